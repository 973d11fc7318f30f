// Scalar operator semantics shared by the CPU executor and the GPU code generator: each
// operation on physical values is defined once. The core (arithmetic with overflow checks,
// division, modulo, negation, abs, the order of values) lives in scalar_core.hpp, which
// the GPU kernels compile too; what only the host needs is added here.
#pragma once
#include <cmath>
#include <cstdint>

#include "common/date.hpp"
#include "common/types.hpp"
#include "function/scalar_core.hpp"

namespace tessera::ops {

// x % y over DOUBLE (the host's fmod; the GPU does not take DOUBLE modulo yet).
inline bool Mod(double a, double b, double& r, bool&) {
  if (b == 0) return false;
  r = std::fmod(a, b);
  return true;
}

// The range of a cast's exact numeric target (CastExact's `limit`): 10^precision for a
// DECIMAL, 2^31 for INTEGER, 2^63 for BIGINT.
inline __int128 ExactCastLimit(const Type& to) {
  return to.id == TypeId::Decimal ? Pow10Int128(to.precision)
         : to.id == TypeId::Integer ? (__int128)INT32_MAX + 1
                                    : (__int128)INT64_MAX + 1;
}

// The canonical NaN (one bit pattern for hashing equal NaNs alike), 0.0 for -0.0.
TESSERA_HD inline double CanonicalDouble(double d) {
  if (d != d) return __builtin_nan("");
  return d == 0 ? 0.0 : d;
}

}  // namespace tessera::ops
