// Splitting text into lines (no empty last line for a trailing newline).
#pragma once
#include <string>
#include <vector>

namespace tessera {

inline std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t e = s.find('\n', start);
    if (e == std::string::npos) e = s.size();
    out.push_back(s.substr(start, e - start));
    start = e + 1;
  }
  return out;
}

}  // namespace tessera
