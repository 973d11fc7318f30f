// Column names made unique as DuckDB makes them (read_csv's header, COPY ... TO Parquet):
// a name equal to an earlier one, ignoring case, gets "_<n>", n counting the repeats of
// that name from 1 ("a", "a", "A" become "a", "a_1", "A_2").
#pragma once
#include <string>
#include <vector>

#include "common/identifier.hpp"

namespace tessera {

inline std::vector<std::string> UniqueColumnNames(std::vector<std::string> names) {
  IdentSet seen;
  IdentMap<int> repeats;
  for (auto& name : names) {
    if (seen.count(name)) {
      const std::string base = name;
      int& n = repeats[base];
      do {
        name = base + "_" + std::to_string(++n);
      } while (seen.count(name));
    }
    seen.insert(name);
  }
  return names;
}

}  // namespace tessera
