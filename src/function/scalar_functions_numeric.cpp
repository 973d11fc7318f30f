// Numeric and comparison functions of the registry, with DuckDB's semantics and result
// types: round (half away from zero; DECIMAL(p, s) to DECIMAL(p, min(s, max(d, 0)))),
// ceil and floor (DECIMAL(p, s) to DECIMAL(p, 0); integers to DOUBLE, as DuckDB), greatest
// and least (NULLs skipped), nullif (the first argument's type, compared in the common
// type), gcd and lcm (BIGINT), even (DOUBLE). Exact rounding is the scalar core's
// RescaleChecked, as casts round.
#include <cmath>

#include "common/error.hpp"
#include "execution/expression_executor.hpp"
#include "function/scalar_function_sets.hpp"
#include "function/scalar_ops.hpp"
#include "planner/binder.hpp"

namespace tessera {

void NeedNumeric(ScalarCall& c) {
  if (c.args[0]->type.id == TypeId::Null) c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Double(), c.pos);
  if (!c.args[0]->type.IsNumeric())
    throw UserError(ErrorKind::Type, std::string(c.written) + "() needs a numeric argument", c.pos);
}

void NeedIntegerArg(const ScalarCall& c, const Type& t, std::string_view why, const std::string& shown) {
  if (t.id == TypeId::Integer || t.id == TypeId::BigInt || t.id == TypeId::Null) return;
  throw UserError(ErrorKind::Type,
                  "no function matches " + std::string(c.written) + "(" + (shown.empty() ? t.ToString() : shown) + "): " +
                      std::string(why),
                  c.pos);
}

namespace {

Type BindRound(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 2);
  NeedNumeric(c);
  const Type t = c.args[0]->type;
  if (c.args.size() == 2) c.args[1] = Binder::Coerce(std::move(c.args[1]), Type::Integer(), c.pos);
  if (t.id != TypeId::Decimal || c.args.size() == 1) return t.id == TypeId::Decimal ? Type::Decimal(t.precision, 0) : t;
  // The result's scale depends on the digits, so they must be known when binding.
  if (!c.args[1]->IsConstant())
    throw UserError(ErrorKind::Unsupported, "ROUND(DECIMAL, INTEGER) with non-constant precision is not supported", c.pos);
  const Value d = EvaluateConstant(*c.args[1]);
  if (d.is_null()) return t;
  const int64_t digits = (int64_t)d.int_value();
  return Type::Decimal(t.precision, digits >= t.scale ? t.scale : (int)std::max<int64_t>(digits, 0));
}

Type BindCeilFloor(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  NeedNumeric(c);
  const Type t = c.args[0]->type;
  return t.id == TypeId::Decimal ? Type::Decimal(t.precision, 0) : Type::Double();
}

Type BindExtreme(ScalarCall& c) {
  if (c.args.empty()) throw UserError(ErrorKind::Binder, std::string(c.written) + " needs at least one argument", c.pos);
  Type t = c.args[0]->type;
  for (auto& a : c.args) t = Binder::CommonType(t, a->type, c.pos);
  for (auto& a : c.args) a = Binder::Coerce(std::move(a), t, c.pos);
  return t;
}

// nullif(a, b): a's type; a and b compared in their common type (nullif(i, 17.5) compares
// as DECIMAL): b is coerced to it, and the loop converts a.
Type BindNullIf(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 2);
  const Type t = c.args[0]->type;
  c.args[1] = Binder::Coerce(std::move(c.args[1]), Binder::CommonType(t, c.args[1]->type, c.pos), c.pos);
  return t;
}

// v (scale s) rounded to d decimal digits; the result at scale min(s, max(d, 0)).
bool RoundExact(__int128 v, int s, int64_t d, __int128& r) {
  if (d >= s) {
    r = v;
    return true;
  }
  if (d >= 0) return ops::RescaleChecked(v, s, (int)d, r);
  if (s - d > 38) {  // a unit beyond every value of 38 digits
    r = 0;
    return true;
  }
  __int128 q = 0;
  ops::RescaleChecked(v, (int)(s - d), 0, q);
  return ops::MulChecked(q, ops::Pow10Int128((int)-d), r);
}

// Whether an exact result fits its type: DECIMAL's precision, or the integer type's range.
bool Fits(__int128 r, const Type& t) {
  if (t.id == TypeId::Decimal) return ops::WithinPrecision(r, ops::Pow10Int128(t.precision));
  const __int128 lim = ops::ExactCastLimit(t);
  return r < lim && r >= -lim;
}

void RoundCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const Type& in = args[0].type();
  if (in.id == TypeId::Double) {
    for (uint32_t i = 0; i < n; i++) {
      if (!out.IsValid(i)) continue;
      const double x = args[0].data<double>()[i];
      double r = std::round(x);
      if (args.size() > 1) {
        const double m = std::pow(10.0, (double)args[1].data<int32_t>()[i]);
        r = std::round(x * m) / m;
        if (std::isinf(r) || std::isnan(r)) r = x;
      }
      out.data<double>()[i] = r;
    }
    return;
  }
  const int s = in.id == TypeId::Decimal ? in.scale : 0;
  DispatchPhys(in.physical(), [&]<class T>() {
    if constexpr (std::is_integral_v<T> || std::is_same_v<T, int128_t>) {
      for (uint32_t i = 0; i < n; i++) {
        if (!out.IsValid(i)) continue;
        const int64_t d = args.size() > 1 ? args[1].data<int32_t>()[i] : 0;
        __int128 r;
        if (!RoundExact((__int128)args[0].data<T>()[i], s, d, r) || !Fits(r, out.type()))
          throw UserError(ErrorKind::Conversion, "Overflow in ROUND of " + args[0].GetValue(i).ToString());
        out.data<T>()[i] = (T)r;
      }
    }
  });
}

// trunc: ceil and floor's types, except that an integer stays itself (DuckDB).
Type BindTrunc(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  NeedNumeric(c);
  const Type t = c.args[0]->type;
  return t.id == TypeId::Decimal ? Type::Decimal(t.precision, 0) : t;
}

// To an integral value: ceil, floor or trunc (towards zero); a DECIMAL to scale 0.
enum class Toward { Ceil, Floor, Zero };
template <Toward Mode>
void ToIntegralCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const Type& in = args[0].type();
  DispatchPhys(in.physical(), [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, int128_t>) {
      for (uint32_t i = 0; i < n; i++) {
        if (!out.IsValid(i)) continue;
        const T x = args[0].data<T>()[i];
        if constexpr (std::is_floating_point_v<T>) {
          out.data<double>()[i] = Mode == Toward::Ceil ? std::ceil(x) : Mode == Toward::Floor ? std::floor(x) : std::trunc(x);
        } else if (in.id != TypeId::Decimal) {
          if (Mode == Toward::Zero) out.data<T>()[i] = x;
          else out.data<double>()[i] = (double)x;
        } else {
          const __int128 p = ops::Pow10Int128(in.scale), v = (__int128)x;
          __int128 q = v / p, rem = v % p;  // C++ division truncates
          if (Mode == Toward::Ceil && rem > 0) q++;
          if (Mode == Toward::Floor && rem < 0) q--;
          out.data<T>()[i] = (T)q;
        }
      }
    }
  });
}

template <bool Greatest>
void ExtremeCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  uint8_t* ov = out.validity();
  DispatchPhys(out.type().physical(), [&]<class T>() {
    for (uint32_t i = 0; i < n; i++) {
      ov[i] = 0;
      for (auto& a : args) {
        if (!a.IsValid(i)) continue;
        const T& v = a.data<T>()[i];
        if (!ov[i] || ops::Compare<T>(Greatest ? ops::kGt : ops::kLt, v, out.data<T>()[i])) out.data<T>()[i] = v;
        ov[i] = 1;
      }
    }
  });
  if (out.type().physical() == PhysType::Str)
    for (auto& a : args) out.ShareStrings(a);
}

void NullIfCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  CopyRows(args[0], nullptr, n, out, 0);
  const Vector& b = args[1];
  const bool convert = !(args[0].type() == b.type());
  Vector converted;
  if (convert) {
    converted.Init(b.type(), n);
    CastVector(args[0], converted, n);
  }
  const Vector& a = convert ? converted : args[0];
  uint8_t* ov = out.validity();
  DispatchPhys(a.type().physical(), [&]<class T>() {
    for (uint32_t i = 0; i < n; i++)
      if (ov[i] && b.IsValid(i) && ops::Compare<T>(ops::kEq, a.data<T>()[i], b.data<T>()[i])) ov[i] = 0;
  });
}

// gcd / lcm (and their long names): BIGINT over INTEGER or BIGINT arguments, as DuckDB
// (whose other overload is HUGEINT; DECIMAL and DOUBLE are type errors there too).
Type BindGcd(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 2);
  for (auto& a : c.args) {
    NeedIntegerArg(c, a->type, "it takes INTEGER or BIGINT arguments (add an explicit cast)");
    a = Binder::Coerce(std::move(a), Type::BigInt(), c.pos);
  }
  return Type::BigInt();
}

uint64_t Magnitude(int64_t v) {
  if (v == INT64_MIN) throw UserError(ErrorKind::Conversion, "Overflow on abs(" + std::to_string(v) + ")");
  return v < 0 ? (uint64_t)-v : (uint64_t)v;
}
uint64_t Gcd(uint64_t a, uint64_t b) {
  while (b) {
    const uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

template <bool Lcm>
void GcdCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const int64_t* a = args[0].data<int64_t>();
  const int64_t* b = args[1].data<int64_t>();
  int64_t* r = out.data<int64_t>();
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const uint64_t x = Magnitude(a[i]), y = Magnitude(b[i]), g = Gcd(x, y);
    if constexpr (!Lcm) {
      r[i] = (int64_t)g;
    } else {
      if (x == 0 || y == 0) {
        r[i] = 0;
        continue;
      }
      const uint64_t q = x / g;
      if (q > (uint64_t)INT64_MAX / y) throw UserError(ErrorKind::Conversion, "lcm value is out of range");
      r[i] = (int64_t)(q * y);
    }
  }
}

// even(x): x rounded away from zero to the next even integer, as a DOUBLE.
Type BindEven(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  NeedNumeric(c);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Double(), c.pos);
  return Type::Double();
}
void EvenCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const double* x = args[0].data<double>();
  double* r = out.data<double>();
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    double v = x[i] >= 0 ? std::ceil(x[i]) : std::floor(x[i]);
    if (std::isfinite(v) && std::fmod(v, 2.0) != 0) v += x[i] >= 0 ? 1 : -1;
    r[i] = v;
  }
}

}  // namespace

std::vector<ScalarFunction> NumericFunctions() {
  return {
      {"round", {"round"}, BindRound, false, RoundCpu},
      {"ceil", {"ceil", "ceiling"}, BindCeilFloor, false, ToIntegralCpu<Toward::Ceil>},
      {"floor", {"floor"}, BindCeilFloor, false, ToIntegralCpu<Toward::Floor>},
      {"trunc", {"trunc"}, BindTrunc, false, ToIntegralCpu<Toward::Zero>},
      {"greatest", {"greatest"}, BindExtreme, true, ExtremeCpu<true>},
      {"least", {"least"}, BindExtreme, true, ExtremeCpu<false>},
      {"nullif", {"nullif"}, BindNullIf, true, NullIfCpu},
      {"gcd", {"gcd", "greatest_common_divisor"}, BindGcd, false, GcdCpu<false>},
      {"lcm", {"lcm", "least_common_multiple"}, BindGcd, false, GcdCpu<true>},
      {"even", {"even"}, BindEven, false, EvenCpu},
  };
}

}  // namespace tessera
