// The query set of a benchmark: `ssb` uses the texts embedded at build time
// (ssb_queries.hpp); any other name N uses queries/N/*.sql read at run time, found under
// the source tree the binary was built from, beside the binary (../queries) or in the
// current directory.
#pragma once
#include <string>
#include <vector>

namespace tessera::cli {

struct BenchQuery {
  std::string name;  // file name without .sql: "q1.1"
  std::string sql;
  // The file's statements, run in order on each run (TPC-H q15: CREATE VIEW; SELECT;
  // DROP VIEW); the result of statements[result] (the last SELECT) is the query's.
  std::vector<std::string> statements;
  size_t result = 0;
};

// Fills q.statements and q.result from q.sql.
void SplitQueryFile(BenchQuery& q);

// The queries/ directory, or "" when none is found.
std::string QueriesRoot();
// Benchmarks with a query directory (names of queries/*/ holding .sql files), plus ssb.
std::vector<std::string> KnownBenchmarks();
// The queries of `bench`, sorted by name; throws UserError for an unknown benchmark.
std::vector<BenchQuery> BenchmarkQueries(const std::string& bench);

}  // namespace tessera::cli
