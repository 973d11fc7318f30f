// Looking functions up in the registry by name (bind time only: bound expressions point
// at their entries).
#include "function/function_registry.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace tessera {

const ScalarFunction* FindScalarFunction(std::string_view sql_name) {
  for (const ScalarFunction& f : AllScalarFunctions())
    if (std::find(f.sql_names.begin(), f.sql_names.end(), sql_name) != f.sql_names.end()) return &f;
  return nullptr;
}

const ScalarFunction& ScalarFunctionNamed(std::string_view name) {
  for (const ScalarFunction& f : AllScalarFunctions())
    if (f.name == name) return f;
  throw InternalError("no scalar function " + std::string(name));
}

bool CountsTrueRows(std::string_view n) { return n == "bool_and" || n == "bool_or" || n == "count_if"; }

const AggregateFunction* FindAggregateFunction(std::string_view sql_name) {
  for (const AggregateFunction& f : AllAggregateFunctions())
    if (f.sql_callable && (f.name == sql_name || (f.alias && f.alias == sql_name) || (f.alias2 && f.alias2 == sql_name))) return &f;
  return nullptr;
}

const AggregateFunction& AggregateFunctionNamed(std::string_view name) {
  for (const AggregateFunction& f : AllAggregateFunctions())
    if (f.name == name) return f;
  throw InternalError("no aggregate function " + std::string(name));
}

}  // namespace tessera
