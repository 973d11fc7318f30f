// Column names made unique as DuckDB makes them (read_csv's header, COPY ... TO Parquet):
// a name equal to an earlier one, ignoring case, gets "_<n>", n counting the repeats of
// that name from 1 ("a", "a", "A" become "a", "a_1", "A_2").
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/ascii.hpp"

namespace tessera {

inline std::vector<std::string> UniqueColumnNames(std::vector<std::string> names) {
  std::set<std::string> seen;
  std::map<std::string, int> repeats;
  for (auto& name : names) {
    std::string lower = AsciiLower(name);
    if (seen.count(lower)) {
      std::string base = name;
      do {
        name = base + "_" + std::to_string(++repeats[lower]);
      } while (seen.count(AsciiLower(name)));
    }
    seen.insert(AsciiLower(name));
  }
  return names;
}

}  // namespace tessera
