// Exact decimal helpers: DECIMAL(p,s) values are integers scaled by 10^s.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "common/types.hpp"

namespace tessera {

// Formats a scaled integer with `scale` fractional digits ("-12.50").
std::string FormatDecimal(int128_t v, int scale);
std::string FormatInt128(int128_t v);
// Parses a decimal literal into a value scaled by 10^scale, rounding half away from zero
// on extra digits. Returns nullopt if malformed or if it does not fit `precision` digits.
std::optional<int128_t> ParseDecimal(std::string_view s, int precision, int scale);
// Number of digits before and after the point of a numeric literal such as "12.340".
void DecimalLiteralShape(std::string_view s, int& int_digits, int& frac_digits);
// Rescales: multiplies by 10^(to-from) or divides with rounding half away from zero.
int128_t RescaleDecimal(int128_t v, int from_scale, int to_scale);
// Shortest round-trip representation of a double (as DuckDB prints).
std::string FormatDouble(double d);

}  // namespace tessera
