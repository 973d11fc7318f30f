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

}  // namespace tessera::ops
