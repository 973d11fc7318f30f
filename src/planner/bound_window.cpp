#include "planner/bound_window.hpp"

namespace tessera {

std::string WindowInfo::ToString(const std::vector<std::string>& c) const {
  std::string s;
  auto sep = [&] {
    if (!s.empty()) s += " ";
  };
  for (uint32_t i = 0; i < partitions; i++) s += (i ? ", " : "PARTITION BY ") + c[PartitionChild() + i];
  for (uint32_t i = 0; i < orders.size(); i++) {
    if (i == 0) sep();
    s += (i ? ", " : "ORDER BY ") + c[OrderChild() + i] + (orders[i].desc ? " DESC" : "") +
         (orders[i].nulls_first ? " NULLS FIRST" : "");
  }
  bool is_default = unit == WindowFrameUnit::Range && start == WindowBound::UnboundedPreceding &&
                    end == WindowBound::CurrentRow && exclude == WindowExclude::NoOthers;
  if (!is_default) {
    auto bound = [&](WindowBound b, uint32_t child) -> std::string {
      switch (b) {
        case WindowBound::UnboundedPreceding: return "UNBOUNDED PRECEDING";
        case WindowBound::Preceding: return c[child] + " PRECEDING";
        case WindowBound::CurrentRow: return "CURRENT ROW";
        case WindowBound::Following: return c[child] + " FOLLOWING";
        case WindowBound::UnboundedFollowing: return "UNBOUNDED FOLLOWING";
      }
      return "";
    };
    sep();
    s += unit == WindowFrameUnit::Rows ? "ROWS" : unit == WindowFrameUnit::Range ? "RANGE" : "GROUPS";
    s += " BETWEEN " + bound(start, StartOffsetChild()) + " AND " + bound(end, EndOffsetChild());
    static const char* const kExclude[] = {"", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP", " EXCLUDE TIES"};
    s += kExclude[(int)exclude];
  }
  return s;
}

}  // namespace tessera
