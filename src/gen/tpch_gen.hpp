// TPC-H data generator: region, nation, supplier, customer, part, partsupp, orders,
// lineitem, following the TPC-H specification (revision 3, clause 4.2). Rows are made by
// TableProducers (gen_core.hpp) from counter-based random streams keyed by (seed, table,
// row or order), so the output depends only on sf and seed, never on the thread count.
// GenerateTpch fills a Catalog, WriteTpchTbl writes dbgen-format .tbl files; both give the
// same rows in the same order. See src/gen/README.md for the rules.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "storage/catalog.hpp"

namespace tessera {

struct TpchOptions {
  double sf = 1;             // scale factor; fractions (0.01, 0.1) allowed
  uint64_t seed = 19920101;  // same sf + seed => same data
  unsigned threads = 0;      // 0: hardware concurrency
  // Optional progress messages; may be called from worker threads, never concurrently.
  std::function<void(const std::string&)> progress;
};

// The eight tables in load order (region, nation, supplier, customer, part, partsupp,
// orders, lineitem) with the specification's column names and order. Keys and other
// integers are INTEGER, money and quantities DECIMAL(15,2), dates DATE, text VARCHAR.
std::vector<TableSchema> TpchSchemas();

// "CREATE TABLE name (col TYPE, ...);"
std::string TpchCreateTableSql(const TableSchema& schema);

// Base row counts of a scale factor (lineitem depends on the drawn line counts; its exact
// count is what the generator writes). Throws UserError for an unusable scale factor.
struct TpchCardinalities {
  uint64_t supplier = 0, customer = 0, part = 0, partsupp = 0, orders = 0, clerks = 0;
};
TpchCardinalities TpchCounts(double sf);

// The specification's ps_suppkey formula (clause 4.2.3): supplier i (0..3) of part
// `partkey` among `suppliers` suppliers.
int64_t TpchPartSupplier(int64_t partkey, int i, int64_t suppliers);

// Creates the eight tables (UserError if any of them already exists; then none is created)
// and appends their rows, one Catalog::Append per table.
void GenerateTpch(Catalog& catalog, const TpchOptions& opt);

// Writes <table>.tbl for the eight tables into `dir` (created if missing) in dbgen's
// format: every field followed by '|', rows end in '\n', dates yyyy-mm-dd.
void WriteTpchTbl(const std::string& dir, const TpchOptions& opt);

}  // namespace tessera
