// MD5 (RFC 1321) of a byte string, as DuckDB's md5(): 32 lower-case hex digits.
#pragma once
#include <string>
#include <string_view>

namespace tessera::ops {

std::string Md5Hex(std::string_view bytes);

}  // namespace tessera::ops
