// ASCII helpers for keywords, option values and other words the engine compares
// case-insensitively (not for SQL identifiers: common/identifier.hpp; not for user data:
// string functions are UTF-8 aware, function/string_ops).
#pragma once
#include <cctype>
#include <string>

namespace tessera {

inline std::string AsciiLower(std::string s) {
  for (char& c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

}  // namespace tessera
