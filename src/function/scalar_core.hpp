// The core of the scalar semantics, defined once for both backends: integer arithmetic
// with overflow checks, integer division and modulo, negation and absolute value, and the
// order of values (NaN equal to NaN and above every number). The CPU's vector loops call
// these (through scalar_ops.hpp); the GPU's generated kernels call the very same
// functions: this header is embedded in the binary at build time and compiled by NVRTC in
// front of every kernel (src/function/embed_core.cmake, gpu/tile_library.cpp). So it
// includes nothing but common/host_device.hpp (inlined when embedded), uses no std::, and
// holds templates over the integer types of both sides (int, long, long long, __int128).
//
// Conventions: a function returns false when the result does not exist: an overflow
// (Add/Sub/Mul/Neg/Abs; Mod/IntDiv set `overflow`) or a NULL (division by zero). The
// caller turns that into its own error: the CPU raises a UserError, the GPU sets the
// kernel's error word; the message text is the caller's (ArithmeticError names them).
#pragma once
#include "common/host_device.hpp"

namespace tessera {
namespace ops {

// The unsigned type of the same width (two's complement wrap-around arithmetic).
template <class T> struct UnsignedOf;
// Unsigned types map to themselves (only BOOLEAN, stored as unsigned char, reaches these
// templates unsigned, and no arithmetic is bound on it).
template <> struct UnsignedOf<signed char> { using type = unsigned char; };
template <> struct UnsignedOf<short> { using type = unsigned short; };
template <> struct UnsignedOf<unsigned char> { using type = unsigned char; };
template <> struct UnsignedOf<unsigned short> { using type = unsigned short; };
template <> struct UnsignedOf<unsigned int> { using type = unsigned int; };
template <> struct UnsignedOf<unsigned long> { using type = unsigned long; };
template <> struct UnsignedOf<unsigned long long> { using type = unsigned long long; };
template <> struct UnsignedOf<int> { using type = unsigned int; };
template <> struct UnsignedOf<long> { using type = unsigned long; };
template <> struct UnsignedOf<long long> { using type = unsigned long long; };
template <> struct UnsignedOf<__int128> { using type = unsigned __int128; };

template <class T>
TESSERA_HD inline bool AddChecked(T a, T b, T& r) {
  using U = typename UnsignedOf<T>::type;
  r = (T)((U)a + (U)b);
  return ((a ^ r) & (b ^ r)) >= 0;  // overflow: both operands' signs differ from the sum's
}
template <class T>
TESSERA_HD inline bool SubChecked(T a, T b, T& r) {
  using U = typename UnsignedOf<T>::type;
  r = (T)((U)a - (U)b);
  return ((a ^ b) & (a ^ r)) >= 0;  // overflow: operands differ in sign, result took b's
}
template <class T>
TESSERA_HD inline bool MulChecked(T a, T b, T& r) {
  if constexpr (sizeof(T) <= 4) {
    long long w = (long long)a * (long long)b;
    r = (T)w;
    return w == (long long)r;
  } else if constexpr (sizeof(T) == 8) {
    __int128 w = (__int128)a * (__int128)b;
    r = (T)w;
    return w == (__int128)r;
  } else {
    using U = typename UnsignedOf<T>::type;
    const long long lo = -0x7fffffffffffffffLL - 1, hi = 0x7fffffffffffffffLL;
    if (a >= lo && a <= hi && b >= lo && b <= hi) {  // both fit in 64 bits: exact
      r = a * b;
      return true;
    }
    const bool neg = (a < 0) != (b < 0);
    const U ua = a < 0 ? (U)0 - (U)a : (U)a, ub = b < 0 ? (U)0 - (U)b : (U)b;
    const U p = ua * ub;
    const U max = ((U)1 << 127) - 1;
    if ((ua != 0 && p / ua != ub) || p > max + (neg ? 1 : 0)) return false;
    r = neg ? (T)((U)0 - p) : (T)p;
    return true;
  }
}
TESSERA_HD inline bool AddChecked(double a, double b, double& r) { r = a + b; return true; }
TESSERA_HD inline bool SubChecked(double a, double b, double& r) { r = a - b; return true; }
TESSERA_HD inline bool MulChecked(double a, double b, double& r) { r = a * b; return true; }

// Modulo with SQL semantics: sign follows the dividend; x % 0 is NULL (returns false).
// The minimum value % -1 sets `overflow` (as DuckDB, whose quotient overflows there).
template <class T>
TESSERA_HD inline bool Mod(T a, T b, T& r, bool& overflow) {
  if (b == 0) return false;
  if (b == -1) {
    overflow |= !SubChecked((T)0, a, r);
    r = 0;
    return true;
  }
  r = a % b;
  return true;
}
// Integer division truncating toward zero; x // 0 is NULL (returns false); the minimum
// value // -1 does not fit and sets `overflow`.
template <class T>
TESSERA_HD inline bool IntDiv(T a, T b, T& r, bool& overflow) {
  if (b == 0) return false;
  if (b == -1) {
    overflow |= !SubChecked((T)0, a, r);
    return true;
  }
  r = a / b;
  return true;
}
// `//` with a DOUBLE operand is the plain quotient (DuckDB: 7.5 // 2 = 3.75), but NULL
// when dividing by zero (1.5 // 0 is NULL, unlike 1.5 / 0 = inf).
TESSERA_HD inline bool IntDiv(double a, double b, double& r, bool&) {
  if (b == 0) return false;
  r = a / b;
  return true;
}
// Division is always in DOUBLE (the binder casts) and follows IEEE 754 as DuckDB does:
// 1 / 0 is inf, 0 / 0 is nan.
TESSERA_HD inline bool Div(double a, double b, double& r) {
  r = a / b;
  return true;
}
// Negation and absolute value; false when the result does not fit (the minimum value).
template <class T>
TESSERA_HD inline bool NegChecked(T a, T& r) { return SubChecked((T)0, a, r); }
TESSERA_HD inline bool NegChecked(double a, double& r) { r = -a; return true; }
template <class T>
TESSERA_HD inline bool AbsChecked(T a, T& r) {
  if (a < 0) return NegChecked(a, r);
  r = a;
  return true;
}
TESSERA_HD inline bool AbsChecked(double a, double& r) { r = a < 0 || (a == 0 && 1 / a < 0) ? -a : a; return true; }

// The order of values of one type, as DuckDB and PostgreSQL order DOUBLEs: NaN equals
// NaN and is greater than every other value (inf included); -0.0 equals 0.0. Comparisons,
// IN, ORDER BY, MIN/MAX, grouping, joins and zone maps all use these, on both backends.
template <class T>
TESSERA_HD inline bool Equals(const T& a, const T& b) { return a == b; }
TESSERA_HD inline bool Equals(double a, double b) { return a == b || (a != a && b != b); }
template <class T>
TESSERA_HD inline bool LessThan(const T& a, const T& b) { return a < b; }
TESSERA_HD inline bool LessThan(double a, double b) { return a < b || (b != b && a == a); }

// 10^n in 128 bits (0 <= n <= 38): the limits and scale factors of DECIMAL values.
TESSERA_HD inline __int128 Pow10Int128(int n) {
  __int128 p = 1;
  for (int i = 0; i < n; i++) p *= 10;
  return p;
}
// A DECIMAL value fits its precision p when |v| < 10^p (`limit`); arithmetic on DECIMALs
// held in 128 bits checks it after each operation (the 128-bit range alone is wider).
template <class T>
TESSERA_HD inline bool WithinPrecision(T v, T limit) { return v < limit && v > -limit; }

// An integer or DECIMAL value scaled by 10^from_scale, rescaled to 10^to_scale:
// multiplied (false on overflow of 128 bits) or divided with rounding half away from zero.
// RescaleByChecked takes the power of ten instead: p = 10^|to_scale - from_scale|, `up`
// when to_scale >= from_scale, so that a loop computes it once; T is long long (where
// value, power and result fit 64 bits) or __int128.
template <class T>
TESSERA_HD inline bool RescaleByChecked(T v, T p, bool up, T& r) {
  if (up) return MulChecked(v, p, r);
  T q = v / p, rem = v % p;
  if (rem < 0) rem = -rem;
  if (rem * 2 >= p) q += v < 0 ? -1 : 1;
  r = q;
  return true;
}
TESSERA_HD inline bool RescaleChecked(__int128 v, int from_scale, int to_scale, __int128& r) {
  const bool up = to_scale >= from_scale;
  return RescaleByChecked(v, Pow10Int128(up ? to_scale - from_scale : from_scale - to_scale), up, r);
}
// Whether a rescaled exact value fits its target: |r| < limit for a DECIMAL (limit =
// 10^precision), -limit <= r < limit for an integer type (limit = 2^31 or 2^63).
template <class T>
TESSERA_HD inline bool WithinCastLimit(T r, T limit, bool decimal) {
  return decimal ? (r < limit && r > -limit) : (r < limit && r >= -limit);
}
// A cast between exact numeric types (INTEGER, BIGINT, DECIMAL): rescaled, then within
// the target's range: |r| < 10^precision for a DECIMAL (`decimal`, limit = 10^precision),
// -limit <= r < limit for an integer type (limit = 2^31 or 2^63). False: out of range
// (the CPU raises the conversion error naming the value; the GPU hands the query back).
TESSERA_HD inline bool CastExact(__int128 v, int from_scale, int to_scale, __int128 limit, bool decimal, __int128& r) {
  if (!RescaleChecked(v, from_scale, to_scale, r)) return false;
  return WithinCastLimit(r, limit, decimal);
}

// An integer or DECIMAL of scale `scale` (held in up to 128 bits) as a DOUBLE, as DuckDB
// casts it: a value within +-2^53 (exact as a double) divided by 10^scale; a larger one as
// its integer part plus its fraction divided by 10^scale, each converted alone (so the
// DECIMAL(17,16) 2.2600000000000002 is the double 2.2600000000000002, not 2.26).
// DecimalToDoubleBy takes 10^scale as an integer and as a double, for loops.
// (The value within +-2^53 converts from 64 bits, the same double; the rest of the rule is
// out of line in the kernels: TESSERA_HD_OUTLINE.)
TESSERA_HD_OUTLINE inline double DecimalToDoubleWide(__int128 v, __int128 pow10, double pow10_scale) {
  const __int128 ip = v / pow10;
  return (double)ip + (double)(v - ip * pow10) / pow10_scale;
}
TESSERA_HD inline double DecimalToDoubleBy(__int128 v, __int128 pow10, double pow10_scale) {
  const __int128 exact = (__int128)1 << 53;
  if (v <= exact && v >= -exact) return (double)(long long)v / pow10_scale;
  return DecimalToDoubleWide(v, pow10, pow10_scale);
}
// 10^n as a double (0 <= n <= 38), correctly rounded: exact up to 10^22 (each product of the
// loop is), beyond it the 128-bit power converted.
TESSERA_HD_OUTLINE inline double Pow10DoubleWide(int n) { return (double)Pow10Int128(n); }
TESSERA_HD inline double Pow10Double(int n) {
  if (n > 22) return Pow10DoubleWide(n);
  double d = 1;
  for (int i = 0; i < n; i++) d *= 10;
  return d;
}
TESSERA_HD inline double DecimalToDouble(__int128 v, int scale) {
  return DecimalToDoubleBy(v, Pow10Int128(scale), Pow10Double(scale));
}

// AVG's result: from an exact (128-bit) sum of `count` values of scale `scale` (integers:
// 0), or from a DOUBLE sum; the mean is taken in double. Both backends finalise with these.
TESSERA_HD_OUTLINE inline double AvgOfSum(__int128 sum, int scale, long long count) {
  return (double)sum / Pow10Double(scale) / (double)count;
}
TESSERA_HD inline double AvgOfSum(double sum, long long count) { return sum / (double)count; }

// bool_and / bool_or of a group from its TRUE rows and its non-NULL rows (both backends keep
// those two counts; count_if is the TRUE rows).
TESSERA_HD inline bool BoolAndOf(long long trues, long long rows) { return trues == rows; }
TESSERA_HD inline bool BoolOrOf(long long trues) { return trues > 0; }
// SUM into a BIGINT result: the exact sum must fit 64 bits.
TESSERA_HD inline bool SumFitsInt64(__int128 sum) { return sum <= (__int128)0x7fffffffffffffffLL && sum >= -(__int128)0x7fffffffffffffffLL - 1; }

// Whether the key range [lo, hi] of a finished join build (empty when lo > hi) meets the
// values [min, max] of a row group's statistics: the join filters' row-group test, the CPU
// scan's (JoinKeyFilter::MayOverlap) and the GPU kernels' per tile (tsr_tile_outside).
TESSERA_HD inline bool KeyRangeMeets(long long lo, long long hi, long long min, long long max) {
  return lo <= hi && min <= hi && max >= lo;
}

// Comparison operators by number: 0 =, 1 <>, 2 <, 3 <=, 4 >, 5 >=.
enum CompareOp { kEq = 0, kNe = 1, kLt = 2, kLe = 3, kGt = 4, kGe = 5 };
template <class T>
TESSERA_HD inline bool Compare(int op, const T& a, const T& b) {
  switch (op) {
    case kEq: return Equals(a, b);
    case kNe: return !Equals(a, b);
    case kLt: return LessThan(a, b);
    case kLe: return !LessThan(b, a);
    case kGt: return LessThan(b, a);
    default: return !LessThan(a, b);
  }
}

}  // namespace ops
}  // namespace tessera
