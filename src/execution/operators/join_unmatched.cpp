#include "execution/operators/join_unmatched.hpp"

#include <algorithm>
#include <atomic>

#include "execution/expression_executor.hpp"

namespace tessera {

void NullPaddedBuildRows(const std::vector<Type>& probe_types, const std::vector<Type>& build_types,
                         const std::vector<Vector>& build_cols, const std::vector<uint32_t>& rows, DataChunk& out) {
  const uint32_t m = (uint32_t)rows.size();
  const size_t np = probe_types.size(), nb = build_types.size();
  out.cols.resize(np + nb);
  out.sel.clear();
  for (size_t c = 0; c < np; c++) {
    out.cols[c].Init(probe_types[c], std::max<uint32_t>(m, 1));
    for (uint32_t i = 0; i < m; i++) out.cols[c].SetNull(i);
  }
  for (size_t c = 0; c < nb; c++) {
    out.cols[np + c].Init(build_types[c], std::max<uint32_t>(m, 1));
    CopyRows(build_cols[c], rows.data(), m, out.cols[np + c], 0);
  }
  out.size = m;
}

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
