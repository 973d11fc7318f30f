// Scalar operator semantics shared by the CPU executor and (later) the GPU code generator:
// each operation on physical values is defined once, here. Functions return false when
// the result is NULL (division by zero) and throw-free overflow flags are reported by the
// caller (the CPU raises a UserError, the GPU sets an error flag).
#pragma once
#include <cmath>
#include <cstdint>

#include "common/date.hpp"

namespace tessera::ops {

template <class T>
TESSERA_HD inline bool AddChecked(T a, T b, T& r) { return !__builtin_add_overflow(a, b, &r); }
template <class T>
TESSERA_HD inline bool SubChecked(T a, T b, T& r) { return !__builtin_sub_overflow(a, b, &r); }
template <class T>
TESSERA_HD inline bool MulChecked(T a, T b, T& r) { return !__builtin_mul_overflow(a, b, &r); }
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
TESSERA_HD inline bool Mod(double a, double b, double& r, bool&) {
  if (b == 0) return false;
  r = std::fmod(a, b);
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
TESSERA_HD inline bool AbsChecked(double a, double& r) { r = std::fabs(a); return true; }
// Division is always in DOUBLE (the binder casts) and follows IEEE 754 as DuckDB does:
// 1 / 0 is inf, 0 / 0 is nan.
TESSERA_HD inline bool Div(double a, double b, double& r) {
  r = a / b;
  return true;
}

// The order of values of one type, as DuckDB and PostgreSQL order DOUBLEs: NaN equals
// NaN and is greater than every other value (inf included); -0.0 equals 0.0. Comparisons,
// IN, ORDER BY, MIN/MAX, grouping, joins and zone maps all use these.
template <class T>
TESSERA_HD inline bool Equals(const T& a, const T& b) { return a == b; }
TESSERA_HD inline bool Equals(double a, double b) { return a == b || (a != a && b != b); }
template <class T>
TESSERA_HD inline bool LessThan(const T& a, const T& b) { return a < b; }
TESSERA_HD inline bool LessThan(double a, double b) { return a < b || (b != b && a == a); }
// The canonical NaN (one bit pattern for hashing equal NaNs alike), 0.0 for -0.0.
TESSERA_HD inline double CanonicalDouble(double d) {
  if (d != d) return __builtin_nan("");
  return d == 0 ? 0.0 : d;
}

// op: 0 =, 1 <>, 2 <, 3 <=, 4 >, 5 >=.
template <class T>
TESSERA_HD inline bool Compare(int op, const T& a, const T& b) {
  switch (op) {
    case 0: return Equals(a, b);
    case 1: return !Equals(a, b);
    case 2: return LessThan(a, b);
    case 3: return !LessThan(b, a);
    case 4: return LessThan(b, a);
    default: return !LessThan(a, b);
  }
}

}  // namespace tessera::ops
