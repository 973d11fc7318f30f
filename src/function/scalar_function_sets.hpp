// The registry's scalar functions by family (each in its own file), gathered into one table
// by scalar_functions.cpp.
#pragma once
#include <vector>

#include "function/function_registry.hpp"
#include "planner/binder.hpp"

namespace tessera {

// concat, concat_ws, trim, ltrim, rtrim, replace, starts_with, ends_with, contains, strpos / instr, left,
// right, repeat, lpad, rpad, split_part, reverse, ascii, unicode, chr, translate, md5,
// strlen / octet_length, bit_length (scalar_functions_text.cpp).
std::vector<ScalarFunction> TextFunctions();
// round, ceil, floor, trunc, greatest, least, nullif (scalar_functions_numeric.cpp).
std::vector<ScalarFunction> NumericFunctions();
// The date parts (extract_*: year ... era, epoch), make_date, last_day, dayname, monthname,
// date_diff (scalar_functions_date.cpp).
std::vector<ScalarFunction> DateFunctions();
// The TIMESTAMP and TIME functions: INTERVAL arithmetic, date_trunc, epoch_ms, epoch_us,
// make_timestamp, make_time, strftime, strptime (scalar_functions_timestamp.cpp).
std::vector<ScalarFunction> TimestampFunctions();
// sign, sqrt, cbrt, exp, ln, log, log10, log2, power, pi, trigonometry, isnan, isinf,
// isfinite, signbit, gamma, lgamma, nextafter (scalar_functions_math.cpp).
std::vector<ScalarFunction> MathFunctions();
// regexp_matches, regexp_full_match, regexp_replace, regexp_extract
// (scalar_functions_regex.cpp).
std::vector<ScalarFunction> RegexFunctions();
// random, setseed, the samples' sample_key (scalar_functions_random.cpp).
std::vector<ScalarFunction> RandomFunctions();
// nextval, currval (scalar_functions_sequence.cpp).
std::vector<ScalarFunction> SequenceFunctions();
// &, |, xor, <<, >>, ~, bit_count (scalar_functions_bitwise.cpp).
std::vector<ScalarFunction> BitwiseFunctions();
// format, printf (scalar_functions_format.cpp, over format_ops.hpp).
std::vector<ScalarFunction> FormatFunctions();
// levenshtein, damerau_levenshtein, hamming / mismatches, jaccard, jaro_similarity,
// jaro_winkler_similarity (scalar_functions_distance.cpp).
std::vector<ScalarFunction> DistanceFunctions();
// to_hex / hex, from_hex / unhex, to_base64 / base64, from_base64, sha256
// (scalar_functions_encoding.cpp).
std::vector<ScalarFunction> EncodingFunctions();

// Shared by the families' bind hooks: the arity check with the binder's message.
void ExpectScalarArgs(const ScalarCall& c, size_t lo, size_t hi);
// The first argument must be numeric (a NULL literal is read as DOUBLE); the binder's Type
// error otherwise (scalar_functions_numeric.cpp).
void NeedNumeric(ScalarCall& c);
// An argument of a function that takes only INTEGER or BIGINT (a NULL literal too): the
// binder's Type error "no function matches <name>(<shown>): <why>" otherwise, `shown` the
// argument's type unless given (scalar_functions_numeric.cpp).
void NeedIntegerArg(const ScalarCall& c, const Type& t, std::string_view why, const std::string& shown = "");

// A bind hook for `n` arguments coerced to the types `In...`, with result type `Out`.
template <Type (*Out)(), Type (*... In)()>
Type BindFixed(ScalarCall& c) {
  ExpectScalarArgs(c, sizeof...(In), sizeof...(In));
  size_t i = 0;
  ((c.args[i] = Binder::Coerce(std::move(c.args[i]), In(), c.pos), i++), ...);
  return Out();
}

}  // namespace tessera
