#include "execution/operators/join_unmatched.hpp"

#include <atomic>

namespace tessera {

namespace {
struct UnmatchedSourceState : GlobalSourceState {
  std::atomic<uint64_t> next{0};  // the next range of build rows
};
}  // namespace

std::string PhysicalJoinUnmatched::Name() const {
  switch (join_.join_type) {
    case LJoinType::RightSemi: return "RIGHT_SEMI_JOIN_MATCHED";
    case LJoinType::RightAnti: return "RIGHT_ANTI_JOIN_UNMATCHED";
    case LJoinType::Right: return "RIGHT_JOIN_UNMATCHED";
    default: return "FULL_JOIN_UNMATCHED";
  }
}

std::string PhysicalJoinUnmatched::Details() const {
  if (join_.join_type == LJoinType::RightSemi) return "build rows of the join below with a match";
  if (join_.join_type == LJoinType::RightAnti) return "build rows of the join below without a match";
  return "build rows of " + join_.Details() + " without a match";
}

std::unique_ptr<GlobalSourceState> PhysicalJoinUnmatched::InitSource() { return std::make_unique<UnmatchedSourceState>(); }

bool PhysicalJoinUnmatched::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  auto& st = static_cast<UnmatchedSourceState&>(gs);
  const uint64_t range = st.next.fetch_add(1);
  const uint64_t begin = range * kVectorSize;
  if (begin >= join_.BuildRows()) return false;
  const size_t probe_columns = types.size() - join_.build_types.size();
  std::vector<Type> probe_types(types.begin(), types.begin() + (std::ptrdiff_t)probe_columns);
  join_.EmitBuildRows((uint32_t)begin, (uint32_t)(begin + kVectorSize), probe_types, out);
  out.batch = range;
  return true;
}

}  // namespace tessera
