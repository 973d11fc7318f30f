// Mathematical functions of the registry, with DuckDB's results, types and errors: sign
// (-1, 0 or 1; NaN 0), sqrt, cbrt, exp, ln, log (base 10, or log(b, x)), log10, log2, power
// / pow, pi, sin, cos, tan, cot, asin, acos, atan, atan2, radians, degrees (all DOUBLE),
// isnan, isinf, isfinite, signbit (BOOLEAN), gamma, lgamma, nextafter (DOUBLE; tessera has
// no FLOAT, DuckDB's other overload). A logarithm of zero or a negative number, the square root of a
// negative number, asin/acos outside [-1, 1] and gamma/lgamma of zero are errors, as in DuckDB.
#include <cmath>

#include "common/error.hpp"
#include "execution/expression_executor.hpp"
#include "function/scalar_function_sets.hpp"
#include "function/scalar_ops.hpp"

namespace tessera {

namespace {

using DoubleFn = double (*)(double);

// A DOUBLE -> DOUBLE function applied row by row (NULL rows skipped).
template <DoubleFn F>
void UnaryCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const double* x = args[0].data<double>();
  double* r = out.data<double>();
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) r[i] = F(x[i]);
}

double Sqrt(double x) {
  if (x < 0) throw UserError(ErrorKind::Conversion, "cannot take square root of a negative number");
  return std::sqrt(x);
}
double CheckLogArgument(double x) {
  if (x == 0) throw UserError(ErrorKind::Conversion, "cannot take logarithm of zero");
  if (x < 0) throw UserError(ErrorKind::Conversion, "cannot take logarithm of a negative number");
  return x;
}
double Ln(double x) { return std::log(CheckLogArgument(x)); }
double Log10(double x) { return std::log10(CheckLogArgument(x)); }
double Log2(double x) { return std::log2(CheckLogArgument(x)); }
double Cbrt(double x) { return std::cbrt(x); }
double Exp(double x) { return std::exp(x); }
double Sin(double x) { return std::sin(x); }
double Cos(double x) { return std::cos(x); }
double Tan(double x) { return std::tan(x); }
double Cot(double x) { return 1.0 / std::tan(x); }
double Atan(double x) { return std::atan(x); }
double Asin(double x) {
  if (x < -1 || x > 1) throw UserError(ErrorKind::Conversion, "ASIN is undefined outside [-1,1]");
  return std::asin(x);
}
double Acos(double x) {
  if (x < -1 || x > 1) throw UserError(ErrorKind::Conversion, "ACOS is undefined outside [-1,1]");
  return std::acos(x);
}
// gamma and lgamma: the C library's (NaN at the poles of gamma, infinity at those of
// lgamma), zero an error as in DuckDB.
double Gamma(double x) {
  if (x == 0) throw UserError(ErrorKind::Conversion, "cannot take gamma of zero");
  return std::tgamma(x);
}
double LGamma(double x) {
  if (x == 0) throw UserError(ErrorKind::Conversion, "cannot take log gamma of zero");
  int sign;
  return ::lgamma_r(x, &sign);  // the reentrant form: std::lgamma sets the global signgam
}
double Radians(double x) { return x * (M_PI / 180.0); }
double Degrees(double x) { return x * (180.0 / M_PI); }

using BinaryFn = double (*)(double, double);
template <BinaryFn F>
void BinaryCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const double* a = args[0].data<double>();
  const double* b = args[1].data<double>();
  double* r = out.data<double>();
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) r[i] = F(a[i], b[i]);
}
double Power(double a, double b) { return std::pow(a, b); }
double Atan2(double a, double b) { return std::atan2(a, b); }
double NextAfter(double a, double b) { return std::nextafter(a, b); }
// log(b, x): the logarithm of x to base b.
double LogBase(double b, double x) {
  const double lb = std::log(CheckLogArgument(b));
  if (lb == 0) throw UserError(ErrorKind::Conversion, "divison by zero in based logarithm");
  return std::log(CheckLogArgument(x)) / lb;
}

Type BindLog(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 2);
  for (auto& a : c.args) a = Binder::Coerce(std::move(a), Type::Double(), c.pos);
  return Type::Double();
}
void LogCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  if (args.size() == 1) return UnaryCpu<Log10>(args, out, n);
  BinaryCpu<LogBase>(args, out, n);
}

void PiCpu(std::vector<Vector>&, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) out.data<double>()[i] = M_PI;
}

template <int Which>  // 0 isnan, 1 isinf, 2 isfinite, 3 signbit
void FloatClassCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const double* x = args[0].data<double>();
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i))
      out.data<uint8_t>()[i] = Which == 0 ? std::isnan(x[i])
                              : Which == 1 ? std::isinf(x[i])
                              : Which == 2 ? std::isfinite(x[i])
                                           : std::signbit(x[i]);
}

// sign: DuckDB's TINYINT, here INTEGER (tessera has no TINYINT); the values agree.
Type BindSign(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  NeedNumeric(c);
  return Type::Integer();
}
void SignCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  DispatchPhys(args[0].type().physical(), [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, int128_t>) {
      for (uint32_t i = 0; i < n; i++) {
        if (!out.IsValid(i)) continue;
        const T x = args[0].data<T>()[i];
        out.data<int32_t>()[i] = x > T(0) ? 1 : x < T(0) ? -1 : 0;  // NaN: 0
      }
    }
  });
}

ScalarFunction Unary(const char* name, std::vector<std::string_view> sql, void (*cpu)(std::vector<Vector>&, Vector&, uint32_t)) {
  return {name, std::move(sql), BindFixed<Type::Double, Type::Double>, false, cpu};
}

}  // namespace

std::vector<ScalarFunction> MathFunctions() {
  return {
      {"sign", {"sign"}, BindSign, false, SignCpu},
      Unary("sqrt", {"sqrt"}, UnaryCpu<Sqrt>),
      Unary("cbrt", {"cbrt"}, UnaryCpu<Cbrt>),
      Unary("exp", {"exp"}, UnaryCpu<Exp>),
      Unary("ln", {"ln"}, UnaryCpu<Ln>),
      {"log", {"log"}, BindLog, false, LogCpu},
      Unary("log10", {"log10"}, UnaryCpu<Log10>),
      Unary("log2", {"log2"}, UnaryCpu<Log2>),
      {"power", {"power", "pow"}, BindFixed<Type::Double, Type::Double, Type::Double>, false, BinaryCpu<Power>},
      {"pi", {"pi"}, BindFixed<Type::Double>, false, PiCpu},
      Unary("sin", {"sin"}, UnaryCpu<Sin>),
      Unary("cos", {"cos"}, UnaryCpu<Cos>),
      Unary("tan", {"tan"}, UnaryCpu<Tan>),
      Unary("cot", {"cot"}, UnaryCpu<Cot>),
      Unary("asin", {"asin"}, UnaryCpu<Asin>),
      Unary("acos", {"acos"}, UnaryCpu<Acos>),
      Unary("atan", {"atan"}, UnaryCpu<Atan>),
      {"atan2", {"atan2"}, BindFixed<Type::Double, Type::Double, Type::Double>, false, BinaryCpu<Atan2>},
      Unary("radians", {"radians"}, UnaryCpu<Radians>),
      Unary("degrees", {"degrees"}, UnaryCpu<Degrees>),
      {"isnan", {"isnan"}, BindFixed<Type::Boolean, Type::Double>, false, FloatClassCpu<0>},
      {"isinf", {"isinf"}, BindFixed<Type::Boolean, Type::Double>, false, FloatClassCpu<1>},
      {"isfinite", {"isfinite"}, BindFixed<Type::Boolean, Type::Double>, false, FloatClassCpu<2>},
      {"signbit", {"signbit"}, BindFixed<Type::Boolean, Type::Double>, false, FloatClassCpu<3>},
      Unary("gamma", {"gamma"}, UnaryCpu<Gamma>),
      Unary("lgamma", {"lgamma"}, UnaryCpu<LGamma>),
      {"nextafter", {"nextafter"}, BindFixed<Type::Double, Type::Double, Type::Double>, false, BinaryCpu<NextAfter>},
  };
}

}  // namespace tessera
