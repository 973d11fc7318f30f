// The 13 Star Schema Benchmark queries (q1.1 ... q4.3), as run by `tessera bench ssb`.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli {

struct SsbQuery {
  std::string_view name;  // "q1.1"
  std::string_view sql;   // one statement, ending in ';'
};

// All 13 queries in flight order.
const std::vector<SsbQuery>& SsbQueries();
// Looks a query up by name, "q2.1" or "2.1"; nullptr when there is none.
const SsbQuery* FindSsbQuery(std::string_view name);

}  // namespace tessera::cli
