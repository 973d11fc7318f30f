// A bound window function (BExpr::Window): what it computes and how its children are laid
// out. The binder makes it (bind_window.cpp), the CPU's window operator evaluates it
// (execution/operators/window.cpp); aggregates over windows are the registry's
// (BoundExpr::agg_fn) and keep the hash aggregate's states.
//
// Children, in order: the arguments (`args`), an aggregate's FILTER condition (`filter`),
// the PARTITION BY keys (`partitions`), the ORDER BY keys (`orders.size()`), the frame's
// start and end offsets where the bound has one (ROWS/GROUPS: BIGINT; RANGE: the offset as
// written, checked not negative), and for a RANGE frame with an offset the ORDER BY key and
// the start/end values (key -/+ offset), all three of one type.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

enum class WindowFunc {
  RowNumber, Rank, DenseRank, PercentRank, CumeDist, Ntile,
  Lag, Lead, FirstValue, LastValue, NthValue,
  Aggregate,  // BoundExpr::agg_fn over the frame
};
enum class WindowFrameUnit { Rows, Range, Groups };
enum class WindowBound { UnboundedPreceding, Preceding, CurrentRow, Following, UnboundedFollowing };
// EXCLUDE: rows taken out of every frame (the row, its peers, its peers but itself).
enum class WindowExclude { NoOthers, CurrentRow, Group, Ties };

struct WindowOrder {
  bool desc = false;
  bool nulls_first = false;
  bool operator==(const WindowOrder&) const = default;
};

struct WindowInfo {
  WindowFunc func = WindowFunc::RowNumber;
  uint32_t args = 0;
  bool filter = false;
  uint32_t partitions = 0;
  std::vector<WindowOrder> orders;
  // The frame (the default: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW).
  WindowFrameUnit unit = WindowFrameUnit::Range;
  WindowBound start = WindowBound::UnboundedPreceding, end = WindowBound::CurrentRow;
  WindowExclude exclude = WindowExclude::NoOthers;
  bool ignore_nulls = false;

  bool operator==(const WindowInfo&) const = default;

  static bool HasOffset(WindowBound b) { return b == WindowBound::Preceding || b == WindowBound::Following; }
  uint32_t FilterChild() const { return args; }
  uint32_t PartitionChild() const { return args + (filter ? 1 : 0); }
  uint32_t OrderChild() const { return PartitionChild() + partitions; }
  uint32_t StartOffsetChild() const { return OrderChild() + (uint32_t)orders.size(); }
  uint32_t EndOffsetChild() const { return StartOffsetChild() + (HasOffset(start) ? 1 : 0); }
  // RANGE with an offset: the key, then the start value and/or the end value.
  bool RangeValues() const { return unit == WindowFrameUnit::Range && (HasOffset(start) || HasOffset(end)); }
  uint32_t RangeKeyChild() const { return EndOffsetChild() + (HasOffset(end) ? 1 : 0); }
  uint32_t StartValueChild() const { return RangeKeyChild() + 1; }
  uint32_t EndValueChild() const { return StartValueChild() + (HasOffset(start) ? 1 : 0); }
  // "PARTITION BY a ORDER BY b DESC ROWS ..." given the children's texts.
  std::string ToString(const std::vector<std::string>& children) const;
};

}  // namespace tessera
