// SHA-256 (FIPS 180-4) of a byte string, as DuckDB's sha256(): 64 lower-case hex digits.
#pragma once
#include <string>
#include <string_view>

namespace tessera::ops {

std::string Sha256Hex(std::string_view bytes);

}  // namespace tessera::ops
