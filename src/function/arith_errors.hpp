// The messages of arithmetic errors, one wording for both backends: the CPU raises them,
// the GPU's generated kernels report them through their error word (the executor raises
// the same text).
#pragma once
#include <string>

#include "common/types.hpp"

namespace tessera::ops {

// "overflow in addition of BIGINT"; what: addition, subtraction, multiplication, negation.
inline std::string OverflowMessage(const std::string& what, const Type& t) {
  return "overflow in " + what + " of " + t.ToString();
}

// An exact SUM or AVG accumulator out of its range (DuckDB raises an error too).
inline std::string SumOverflowMessage(const std::string& agg, const Type& in) {
  return "Overflow in " + agg + " of " + in.ToString() + ": the sum is out of range";
}
// A SUM whose BIGINT result cannot hold the exact sum.
inline std::string SumResultOverflowMessage() { return "overflow in SUM"; }

}  // namespace tessera::ops
