// The aggregates: names and result types. Their states and loops stay with the operators
// (execution/operators/hash_aggregate.cpp on the CPU, the GPU generator's state words).
#include "function/function_registry.hpp"

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

const AggregateFunction kAggregates[] = {
    {"count", true, "count_star", false, BigIntResult},
    {"count_star", false, nullptr, false, BigIntResult},
    {"sum", true, nullptr, true, SumResult},
    {"avg", true, nullptr, true, DoubleResult},
    {"min", true, nullptr, false, SameAsArgument},
    {"max", true, nullptr, false, SameAsArgument},
    // Welford's running mean and sum of squared deviations (CPU only so far).
    {"var_samp", true, nullptr, true, DoubleResult, "variance"},
    {"var_pop", true, nullptr, true, DoubleResult},
    {"stddev_samp", true, nullptr, true, DoubleResult, "stddev"},
    {"stddev_pop", true, nullptr, true, DoubleResult},
};

}  // namespace

std::span<const AggregateFunction> AllAggregateFunctions() { return kAggregates; }

}  // namespace tessera
