// The aggregates: names and result types. Their states and loops stay with the operators
// (execution/operators/hash_aggregate.cpp on the CPU, the GPU generator's state words).
#include "execution/expression_executor.hpp"
#include "function/function_registry.hpp"
#include "function/scalar_function_sets.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

namespace {

Type BigIntResult(const Type&) { return Type::BigInt(); }
Type DoubleResult(const Type&) { return Type::Double(); }
// min/max: the argument's type (a NULL argument: INTEGER).
Type SameAsArgument(const Type& t) { return t.id == TypeId::Null ? Type::Integer() : t; }
// sum: wide enough not to overflow where DuckDB's is.
Type SumResult(const Type& t) {
  if (t.id == TypeId::Integer) return Type::BigInt();
  if (t.id == TypeId::BigInt) return Type::Decimal(38, 0);
  if (t.id == TypeId::Decimal) return Type::Decimal(38, t.scale);
  return Type::Double();
}

// HUGEINT in DuckDB (count_if): DECIMAL(38,0), as sum(BIGINT).
UserError TypeError(const std::string& msg, SourcePos pos) { return UserError(ErrorKind::Type, msg, pos); }

Type HugeIntResult(const Type&) { return Type::Decimal(38, 0); }
Type BooleanResult(const Type&) { return Type::Boolean(); }

void Arity(const ScalarCall& c, size_t lo, size_t hi) {
  if (c.args.size() < lo || c.args.size() > hi)
    throw BindError("aggregate " + std::string(c.written) + " takes " +
                        (lo == hi ? "exactly " + std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
                        (hi == 1 ? " argument" : " arguments"),
                    c.pos);
}
// A NULL argument is read as INTEGER (as min/max).
void NullAsInteger(BoundExprPtr& a) {
  if (a->type.id == TypeId::Null) a = MakeCast(std::move(a), Type::Integer());
}

// bool_and, bool_or, count_if: one BOOLEAN argument.
Type BindBoolean(ScalarCall& c, Type result) {
  Arity(c, 1, 1);
  if (c.args[0]->type.id != TypeId::Boolean && c.args[0]->type.id != TypeId::Null)
    throw TypeError(std::string(c.written) + "(" + c.args[0]->type.ToString() + ") is not defined: argument must be BOOLEAN",
                    c.pos);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Boolean(), c.pos);
  return result;
}
Type BindBoolAgg(ScalarCall& c) { return BindBoolean(c, Type::Boolean()); }
Type BindCountIf(ScalarCall& c) { return BindBoolean(c, HugeIntResult(Type())); }

// any_value(x), mode(x): the argument's type.
Type BindSameType(ScalarCall& c) {
  Arity(c, 1, 1);
  NullAsInteger(c.args[0]);
  return c.args[0]->type;
}

// arg_min(x, by), arg_max(x, by): x's type; the row with the least (greatest) non-NULL
// `by` whose x is not NULL.
Type BindArgExtremum(ScalarCall& c) {
  Arity(c, 2, 2);
  NullAsInteger(c.args[0]);
  NullAsInteger(c.args[1]);
  return c.args[0]->type;
}

// string_agg(s [, sep]): VARCHAR; the separator is a constant (',' when left out).
Type BindStringAgg(ScalarCall& c) {
  Arity(c, 1, 2);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Varchar(), c.pos);
  if (c.args.size() == 1) return Type::Varchar();
  if (!c.args[1]->IsConstant())
    throw BindError(std::string(c.written) + ": the separator must be a constant", c.pos);
  c.args[1] = MakeConstant(EvaluateConstant(*Binder::Coerce(std::move(c.args[1]), Type::Varchar(), c.pos)));
  return Type::Varchar();
}

// median(x), quantile_cont(x, q): interpolated between the neighbouring values; DOUBLE for
// integers and doubles, the DECIMAL type for decimals, the lower value for VARCHAR. DuckDB
// returns a TIMESTAMP interpolated between dates, which tessera does not yet: an error here.
Type ContinuousResult(ScalarCall& c) {
  NullAsInteger(c.args[0]);
  const Type& t = c.args[0]->type;
  switch (t.id) {
    case TypeId::Integer:
    case TypeId::BigInt:
    case TypeId::Double: return Type::Double();
    case TypeId::Decimal:
    case TypeId::Varchar: return t;
    default:
      throw TypeError(std::string(c.written) + "(" + t.ToString() + ") is not supported" +
                          (t.id == TypeId::Date ? " (DuckDB's result is a TIMESTAMP between the dates; not supported yet)" : ""),
                      c.pos);
  }
}
// The constant fraction of a quantile, in [0, 1], as a DOUBLE constant.
void QuantileFraction(ScalarCall& c) {
  if (!c.args[1]->IsConstant() || !c.args[1]->type.IsNumeric())
    throw BindError(std::string(c.written) + ": the quantile must be a numeric constant", c.pos);
  const Value q = EvaluateConstant(*Binder::Coerce(std::move(c.args[1]), Type::Double(), c.pos));
  if (q.is_null() || q.double_value() < 0 || q.double_value() > 1)
    throw BindError(std::string(c.written) + ": the quantile must be between 0 and 1", c.pos);
  c.args[1] = MakeConstant(q);
}
Type BindMedian(ScalarCall& c) {
  Arity(c, 1, 1);
  return ContinuousResult(c);  // the group table's default fraction: 0.5
}
Type BindQuantileCont(ScalarCall& c) {
  Arity(c, 2, 2);
  QuantileFraction(c);
  return ContinuousResult(c);
}
// quantile_disc(x, q): the value at the quantile, of x's type.
Type BindQuantileDisc(ScalarCall& c) {
  Arity(c, 2, 2);
  QuantileFraction(c);
  NullAsInteger(c.args[0]);
  return c.args[0]->type;
}

// corr(y, x), covar_samp(y, x), covar_pop(y, x), regr_*(y, x): DOUBLE over rows where both
// are non-NULL.
// Every argument numeric (a NULL literal read as INTEGER), coerced to DOUBLE; a DOUBLE result.
Type NumericArgsAsDouble(ScalarCall& c) {
  for (auto& a : c.args) {
    NullAsInteger(a);
    if (!a->type.IsNumeric())
      throw TypeError(std::string(c.written) + "(" + a->type.ToString() + ") is not defined: arguments must be numeric",
                      c.pos);
    a = Binder::Coerce(std::move(a), Type::Double(), c.pos);
  }
  return Type::Double();
}
Type BindCovariance(ScalarCall& c) {
  Arity(c, 2, 2);
  return NumericArgsAsDouble(c);
}
Type BindRegrCount(ScalarCall& c) {
  BindCovariance(c);
  return Type::BigInt();
}

// One argument of any type (a NULL literal read as INTEGER) and a result of type `result`.
Type OneArgOfAnyType(ScalarCall& c, Type result) {
  Arity(c, 1, 1);
  NullAsInteger(c.args[0]);
  return result;
}

// approx_count_distinct(x): BIGINT; exact here (DuckDB's HyperLogLog estimate equals the
// exact count on small sets).
Type BindApproxCountDistinct(ScalarCall& c) { return OneArgOfAnyType(c, Type::BigInt()); }

// bit_and, bit_or, bit_xor: INTEGER or BIGINT, the argument's type (a NULL argument: BIGINT,
// as DuckDB reads it); DuckDB's other overloads are the types tessera does not have.
Type BindBitwise(ScalarCall& c) {
  Arity(c, 1, 1);
  if (c.args[0]->type.id == TypeId::Null) c.args[0] = MakeCast(std::move(c.args[0]), Type::BigInt());
  const Type& t = c.args[0]->type;
  NeedIntegerArg(c, t, "it takes INTEGER or BIGINT arguments (add an explicit cast)");
  return t;
}

// product, fsum (sumkahan, kahan_sum), favg, skewness, kurtosis, kurtosis_pop: one numeric
// argument read as DOUBLE (DuckDB's only overload), a DOUBLE result.
Type BindDoubleAggregate(ScalarCall& c) {
  Arity(c, 1, 1);
  return NumericArgsAsDouble(c);
}

// entropy(x): DOUBLE, the base-2 entropy of the non-NULL values' distribution, of any type;
// 0 over no rows (not NULL, as DuckDB).
Type BindEntropy(ScalarCall& c) { return OneArgOfAnyType(c, Type::Double()); }

// mad(x): the median absolute deviation from the median. DOUBLE for integers and doubles,
// the DECIMAL type for decimals (interpolated and truncated in its scaled integers, as
// median); an INTERVAL for dates, timestamps and times (DuckDB's: the distances in
// microseconds, as days and microseconds).
Type BindMad(ScalarCall& c) {
  Arity(c, 1, 1);
  NullAsInteger(c.args[0]);
  const Type& t = c.args[0]->type;
  switch (t.id) {
    case TypeId::Integer:
    case TypeId::BigInt:
    case TypeId::Double: return Type::Double();
    case TypeId::Decimal: return t;
    case TypeId::Date:
    case TypeId::Timestamp:
    case TypeId::Time: return Type::Interval();
    default:
      throw TypeError("no function matches " + std::string(c.written) + "(" + t.ToString() +
                          "): argument must be numeric, DATE, TIMESTAMP or TIME",
                      c.pos);
  }
}

const AggregateFunction kAggregates[] = {
    {"count", true, "count_star", false, BigIntResult, nullptr, nullptr, nullptr, false, false, true},
    {"count_star", false, nullptr, false, BigIntResult, nullptr, nullptr, nullptr, false, false, true},
    {"sum", true, nullptr, true, SumResult},
    {"avg", true, nullptr, true, DoubleResult},
    // min(DISTINCT x) is min(x): the binder drops DISTINCT (distinct_insensitive).
    {"min", true, nullptr, false, SameAsArgument, nullptr, nullptr, nullptr, true},
    {"max", true, nullptr, false, SameAsArgument, nullptr, nullptr, nullptr, true},
    // Welford's running mean and sum of squared deviations (CPU only so far).
    {"var_samp", true, nullptr, true, DoubleResult, "variance"},
    {"var_pop", true, nullptr, true, DoubleResult},
    {"stddev_samp", true, nullptr, true, DoubleResult, "stddev"},
    {"stddev_pop", true, nullptr, true, DoubleResult},
    // CPU only (no GPU state words yet). count rows and isum trues.
    {"bool_and", true, nullptr, false, BooleanResult, nullptr, nullptr, BindBoolAgg, true},
    {"bool_or", true, nullptr, false, BooleanResult, nullptr, nullptr, BindBoolAgg, true},
    {"count_if", true, nullptr, false, HugeIntResult, "countif", nullptr, BindCountIf},
    // The first non-NULL value (in input order, which is undefined without ORDER BY).
    {"any_value", true, nullptr, false, nullptr, nullptr, nullptr, BindSameType, true},
    // The first (last) value, NULL or not, in input order or by the call's ORDER BY
    // (string_agg(x ORDER BY y) likewise); kept as lists (holistic).
    {"first", true, nullptr, false, nullptr, "arbitrary", nullptr, BindSameType},
    {"last", true, nullptr, false, nullptr, nullptr, nullptr, BindSameType},
    {"arg_min", true, nullptr, false, nullptr, "argmin", "min_by", BindArgExtremum, true},
    {"arg_max", true, nullptr, false, nullptr, "argmax", "max_by", BindArgExtremum, true},
    // Holistic: a list of the values per group, finished at the end.
    {"string_agg", true, nullptr, false, nullptr, "listagg", nullptr, BindStringAgg},
    {"median", true, nullptr, false, nullptr, nullptr, nullptr, BindMedian},
    {"quantile_cont", true, nullptr, false, nullptr, nullptr, nullptr, BindQuantileCont},
    {"quantile_disc", true, nullptr, false, nullptr, nullptr, nullptr, BindQuantileDisc},
    {"mode", true, nullptr, false, nullptr, nullptr, nullptr, BindSameType},
    // Running co-moment (Welford), merged as the variance family.
    {"covar_samp", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"covar_pop", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"corr", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    // Linear regression of y on x over the same state (DuckDB's regr_*; regr_count is
    // DuckDB's UINTEGER, here BIGINT).
    {"regr_slope", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"regr_intercept", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"regr_r2", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"regr_avgx", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"regr_avgy", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"regr_sxx", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"regr_syy", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"regr_sxy", true, nullptr, false, nullptr, nullptr, nullptr, BindCovariance, false, true},
    {"regr_count", true, nullptr, false, nullptr, nullptr, nullptr, BindRegrCount, false, true},
    {"approx_count_distinct", true, nullptr, false, nullptr, nullptr, nullptr, BindApproxCountDistinct, true},
    // Bitwise AND/OR/XOR of the non-NULL values (count + lsum); NULL over no rows. AND and OR
    // do not change under DISTINCT.
    {"bit_and", true, nullptr, false, nullptr, nullptr, nullptr, BindBitwise, true},
    {"bit_or", true, nullptr, false, nullptr, nullptr, nullptr, BindBitwise, true},
    {"bit_xor", true, nullptr, false, nullptr, nullptr, nullptr, BindBitwise},
    // The product in DOUBLE (inf and NaN as IEEE arithmetic gives them, as DuckDB).
    {"product", true, nullptr, false, nullptr, nullptr, nullptr, BindDoubleAggregate},
    // Kahan-compensated sum and mean in DOUBLE.
    {"fsum", true, nullptr, false, nullptr, "sumkahan", "kahan_sum", BindDoubleAggregate},
    {"favg", true, nullptr, false, nullptr, nullptr, nullptr, BindDoubleAggregate},
    // Sample skewness, sample and population excess kurtosis from running central moments
    // (count, mean, M2, M3, M4; updated and merged as the variance family).
    {"skewness", true, nullptr, false, nullptr, nullptr, nullptr, BindDoubleAggregate},
    {"kurtosis", true, nullptr, false, nullptr, nullptr, nullptr, BindDoubleAggregate},
    {"kurtosis_pop", true, nullptr, false, nullptr, nullptr, nullptr, BindDoubleAggregate},
    // Holistic: the values' frequencies at the end.
    {"entropy", true, nullptr, false, nullptr, nullptr, nullptr, BindEntropy},
    // Holistic: the median of |x - median(x)|.
    {"mad", true, nullptr, false, nullptr, nullptr, nullptr, BindMad},
};

}  // namespace

std::span<const AggregateFunction> AllAggregateFunctions() { return kAggregates; }

}  // namespace tessera
