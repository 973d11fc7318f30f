// Text -> BOOLEAN / DOUBLE as DuckDB casts them (text -> exact numbers: ParseDecimal in
// decimal.hpp). Used by casts, literals and anything else that reads numbers users wrote.
#pragma once
#include <optional>
#include <string_view>

namespace tessera {

// true/t/yes/y/1 and false/f/no/n/0, any case, no surrounding whitespace (as DuckDB).
std::optional<bool> ParseBoolean(std::string_view s);
// A decimal or exponent number, inf/infinity/nan (any case), surrounding whitespace
// allowed; out-of-range magnitudes give +-inf or 0 (DuckDB: SELECT 1e999 is inf).
std::optional<double> ParseDouble(std::string_view s);

}  // namespace tessera
