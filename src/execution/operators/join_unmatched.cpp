#include "execution/operators/join_unmatched.hpp"

#include <atomic>

namespace tessera {

namespace {
struct UnmatchedSourceState : GlobalSourceState {
  std::atomic<uint64_t> next{0};  // the next range of build rows
};
}  // namespace

std::unique_ptr<GlobalSourceState> PhysicalJoinUnmatched::InitSource() { return std::make_unique<UnmatchedSourceState>(); }

bool PhysicalJoinUnmatched::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  auto& st = static_cast<UnmatchedSourceState&>(gs);
  const uint64_t range = st.next.fetch_add(1);
  const uint64_t begin = range * kVectorSize;
  if (begin >= join_.BuildRows()) return false;
  const size_t probe_columns = types.size() - join_.build_types.size();
  std::vector<Type> probe_types(types.begin(), types.begin() + (std::ptrdiff_t)probe_columns);
  join_.EmitUnmatched((uint32_t)begin, (uint32_t)(begin + kVectorSize), probe_types, out);
  out.batch = range;
  return true;
}

}  // namespace tessera
