// The SSB query texts are embedded from queries/ssb/q*.sql, the one source of truth shared
// with the DuckDB differential test (test/duckdb/ssb_diff.mjs). The build generates
// ssb_queries.inc from those files (src/cli/embed_queries.cmake).
//
// Which text: O'Neil, O'Neil and Chen's SSB specification (revision 3), written as
// `from lineorder, date, ...` and with the specification's order-by clauses, except where
// sources differ, where we run Crystal's variants (also ClickHouse's):
//   q1.3  lo_quantity between 26 and 35   (revision 3: between 36 and 40)
//   q2.3  p_brand1 = 'MFGR#2221'          (revision 3: 'MFGR#2239')
#include "cli/ssb_queries.hpp"

namespace tessera::cli {

const std::vector<SsbQuery>& SsbQueries() {
  static const std::vector<SsbQuery> queries = {
#include "ssb_queries.inc"
  };
  return queries;
}

const SsbQuery* FindSsbQuery(std::string_view name) {
  for (const SsbQuery& q : SsbQueries()) {
    if (q.name == name || q.name.substr(1) == name) return &q;
  }
  return nullptr;
}

}  // namespace tessera::cli
