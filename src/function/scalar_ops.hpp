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
template <class T>
TESSERA_HD inline bool Mod(T a, T b, T& r) {
  if (b == 0) return false;
  if (b == -1) { r = 0; return true; }
  r = a % b;
  return true;
}
TESSERA_HD inline bool Mod(double a, double b, double& r) {
  if (b == 0) return false;
  r = std::fmod(a, b);
  return true;
}
// Integer division truncating toward zero; x // 0 is NULL.
template <class T>
TESSERA_HD inline bool IntDiv(T a, T b, T& r) {
  if (b == 0) return false;
  if (b == -1) { r = (T)0 - a; return true; }
  r = a / b;
  return true;
}
TESSERA_HD inline bool IntDiv(double a, double b, double& r) {
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

template <class T>
TESSERA_HD inline bool Compare(int op, T a, T b) {
  switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

}  // namespace tessera::ops
