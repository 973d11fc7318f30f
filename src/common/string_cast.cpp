#include "common/string_cast.hpp"

#include <cstdlib>
#include <string>

namespace tessera {

namespace {
bool Space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool EqualsLower(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); i++)
    if ((char)std::tolower((unsigned char)s[i]) != lower[i]) return false;
  return true;
}
}  // namespace

std::optional<bool> ParseBoolean(std::string_view s) {
  for (std::string_view t : {"true", "t", "yes", "y", "1"})
    if (EqualsLower(s, t)) return true;
  for (std::string_view f : {"false", "f", "no", "n", "0"})
    if (EqualsLower(s, f)) return false;
  return std::nullopt;
}

std::optional<double> ParseDouble(std::string_view s) {
  while (!s.empty() && Space(s.front())) s.remove_prefix(1);
  while (!s.empty() && Space(s.back())) s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  // strtod also reads hexadecimal floats; DuckDB does not.
  for (char c : s)
    if (c == 'x' || c == 'X') return std::nullopt;
  std::string tmp(s);
  char* end = nullptr;
  double d = std::strtod(tmp.c_str(), &end);  // HUGE_VAL / 0 when out of range
  if (end != tmp.c_str() + tmp.size()) return std::nullopt;
  return d;
}

}  // namespace tessera
