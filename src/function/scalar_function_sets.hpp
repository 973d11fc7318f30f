// The registry's scalar functions by family (each in its own file), gathered into one table
// by scalar_functions.cpp.
#pragma once
#include <vector>

#include "function/function_registry.hpp"

namespace tessera {

// concat, trim, ltrim, rtrim, replace, starts_with, ends_with, contains, strpos / instr, left,
// right, repeat, lpad, rpad (scalar_functions_text.cpp).
std::vector<ScalarFunction> TextFunctions();
// round, ceil, floor, greatest, least, nullif (scalar_functions_numeric.cpp).
std::vector<ScalarFunction> NumericFunctions();

// Shared by the families' bind hooks: the arity check with the binder's message.
void ExpectScalarArgs(const ScalarCall& c, size_t lo, size_t hi);

}  // namespace tessera
