// Scalar operator semantics shared by the CPU executor and the GPU code generator: each
// operation on physical values is defined once. The core (arithmetic with overflow checks,
// division, modulo, negation, abs, the order of values) lives in scalar_core.hpp, which
// the GPU kernels compile too; what only the host needs is added here.
#pragma once
#include <cmath>
#include <cstdint>

#include "common/date.hpp"
#include "function/scalar_core.hpp"

namespace tessera::ops {

// x % y over DOUBLE (the host's fmod; the GPU does not take DOUBLE modulo yet).
inline bool Mod(double a, double b, double& r, bool&) {
  if (b == 0) return false;
  r = std::fmod(a, b);
  return true;
}

// The canonical NaN (one bit pattern for hashing equal NaNs alike), 0.0 for -0.0.
TESSERA_HD inline double CanonicalDouble(double d) {
  if (d != d) return __builtin_nan("");
  return d == 0 ? 0.0 : d;
}

}  // namespace tessera::ops
