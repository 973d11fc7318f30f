// The function registry: every scalar function and aggregate the engine knows, each
// defined once. The binder resolves a call against it (BoundExpr::fn / agg_fn point at the
// entry) and both backends then use the entry: the CPU executor calls `cpu`, the GPU code
// generator `device` and `range`. No backend matches a function by its name.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/vector.hpp"
#include "planner/bound_expr.hpp"

namespace tessera {

// The values an integral expression can take, where known (the GPU generator's domains).
struct ValueRange {
  bool known = false;
  int64_t lo = 0, hi = 0;
};

// A call being bound: its arguments (already bound; the hook coerces them in place), the
// name the query wrote (error messages say it) and the call's position.
struct ScalarCall {
  std::string_view written;
  SourcePos pos;
  std::vector<BoundExprPtr>& args;
};

struct ScalarFunction {
  // BoundExpr::name of the bound call: what EXPLAIN and ToString show.
  const char* name;
  // The names a SQL call resolves to this function by; none for a function only syntax
  // makes (|| is concat, EXTRACT(month ...) extract_month, DATE + INTERVAL date_add_*).
  std::vector<std::string_view> sql_names;
  // Checks the arity, coerces the arguments in place and returns the result type; throws
  // the binder's UserErrors (with call.pos).
  Type (*bind)(ScalarCall& call);
  // False: a row with a NULL argument is NULL, and the executor marks those rows in `out`
  // before `cpu` runs (which skips them: out.IsValid(i)). True: `cpu` reads NULLs itself.
  bool reads_nulls;
  // Evaluates rows [0, n) of the arguments into `out` (initialised to the result type);
  // null for first_non_null functions, which the executor evaluates itself.
  void (*cpu)(std::vector<Vector>& args, Vector& out, uint32_t n);
  // The GPU: the device expression of a call, given the generated expressions of its
  // arguments; it calls the same scalar core function `cpu` calls. Null: not on the GPU.
  std::string (*device)(std::span<const std::string> args) = nullptr;
  // The range of the results given the ranges of the arguments (the generator's domains:
  // dense group keys, narrow words). Null: unknown.
  ValueRange (*range)(std::span<const ValueRange> args) = nullptr;
  // A call's value may differ per row and per evaluation (random, setseed, nextval): it is
  // never a constant (BoundExpr::IsConstant), so nothing folds it, and two calls are never
  // the same expression (BoundExpr::Equals).
  bool is_volatile = false;
  // Argument k > 0 is evaluated only for the rows whose earlier arguments were all NULL,
  // and `cpu` is not called (COALESCE, as DuckDB: a later argument that would fail on the
  // other rows does not; the executor takes each row's first non-NULL argument).
  bool first_non_null = false;
  // (Fields below are set by name, after the positional ones above.)
  // The call names a sequence (nextval, currval): its first argument must be a constant,
  // which the binder resolves to BoundExpr::sequence.
  bool reads_sequence = false;
  // Evaluates with the bound call at hand (its `sequence`); called instead of `cpu` when set.
  void (*cpu_call)(const BoundExpr& call, std::vector<Vector>& args, Vector& out, uint32_t n) = nullptr;
  // The device expression and the results' range when the first argument is a TIMESTAMP
  // (64-bit microseconds on the device; `device` and `range` take DATEs). Null: a call
  // over a TIMESTAMP is not on the GPU.
  std::string (*device_timestamp)(std::span<const std::string> args) = nullptr;
  ValueRange (*range_timestamp)(std::span<const ValueRange> args) = nullptr;
};

// The function a SQL call `name(...)` means; null when there is none.
const ScalarFunction* FindScalarFunction(std::string_view sql_name);
// The function named `name` (ScalarFunction::name); throws InternalError when there is none
// (for the binder's syntax-made calls).
const ScalarFunction& ScalarFunctionNamed(std::string_view name);
std::span<const ScalarFunction> AllScalarFunctions();
// The function of a date part as EXTRACT(part FROM d) and date_part('part', d) name it
// (year, dow, isodow, doy, week, ..., epoch; DuckDB's synonyms); null when unknown.
const ScalarFunction* FindDatePart(std::string_view part);

struct AggregateFunction {
  const char* name;  // BoundExpr::name of the bound aggregate
  // False for count_star, which only count(*) makes.
  bool sql_callable;
  // The aggregate `name(*)` means (count(*): count_star); null where (*) is an error.
  const char* star = nullptr;
  // The argument must be numeric; a NULL argument is read as INTEGER.
  bool numeric_argument = false;
  // The result type for an argument of type `arg` (after the numeric rule above).
  Type (*result)(const Type& arg) = nullptr;
  // Other names a SQL call resolves to it by (variance is var_samp); null: none.
  const char* alias = nullptr;
  const char* alias2 = nullptr;
  // Aggregates of other arities or with argument rules (arg_min(x, by), string_agg(s, sep),
  // quantile_cont(x, q)): checks the arity, coerces call.args in place and returns the
  // result type (throws the binder's errors at call.pos). Null: one argument, with the
  // `numeric_argument` and `result` rules above.
  Type (*bind)(ScalarCall& call) = nullptr;
  // The result does not change under DISTINCT (min, max, bool_and, any_value, ...): the
  // binder drops DISTINCT.
  bool distinct_insensitive = false;
  // DISTINCT is not supported (an error at bind time).
  bool no_distinct = false;
  // A correlated aggregate subquery yields 0 for an outer row no inner row belongs to, not
  // NULL (count, count_star; DuckDB gives every other aggregate NULL there, also
  // approx_count_distinct, whose value over no rows is 0 elsewhere).
  bool zero_on_empty = false;
};

// The aggregate a SQL call `name(...)` means; null when there is none.
const AggregateFunction* FindAggregateFunction(std::string_view sql_name);
// bool_and, bool_or and count_if: computed from a group's non-NULL rows and TRUE rows (the
// CPU's group table and the GPU's state words both keep those two counts).
bool CountsTrueRows(std::string_view aggregate_name);
// The aggregate named `name`; throws InternalError when there is none.
const AggregateFunction& AggregateFunctionNamed(std::string_view name);
std::span<const AggregateFunction> AllAggregateFunctions();

}  // namespace tessera
