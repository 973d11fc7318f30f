// Star Schema Benchmark (SSB) data generator: lineorder, part, supplier, customer, date.
//
// Rows are produced once by a single row-producing core (ssb_gen.cpp) that fills
// DataChunks; GenerateSsb feeds them into row groups of a Catalog, WriteSsbTbl formats
// them as dbgen-style .tbl text. Both give exactly the same rows for the same sf + seed,
// independent of the thread count (every order / row draws from a counter-based random
// stream keyed by (seed, table, row)). See src/gen/README.md for the rules.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "storage/catalog.hpp"

namespace tessera {

struct SsbOptions {
  double sf = 1;                // scale factor; fractional values (0.01, 0.1) allowed
  uint64_t seed = 19940101;     // same sf + seed => same data
  unsigned threads = 0;         // 0: hardware concurrency
  // Optional progress messages (table starts, every ~5% of a large table, "ssb: done");
  // may be called from worker threads, never concurrently.
  std::function<void(const std::string&)> progress;
};

// The five SSB tables in the standard column order (lineorder, part, supplier, customer,
// date). Numbers are INTEGER (dates as yyyymmdd, money in integer cents), text VARCHAR.
std::vector<TableSchema> SsbSchemas();

// "CREATE TABLE name (col TYPE, ...);"
std::string SsbCreateTableSql(const TableSchema& schema);

// Row counts the generator produces for a scale factor (lineorder is exact: it is computed
// by drawing the line counts of every order).
struct SsbCardinalities {
  uint64_t orders = 0, part = 0, supplier = 0, customer = 0, date = 0;
  uint64_t partkey_range = 0;  // lo_partkey is drawn from 1..partkey_range
};
SsbCardinalities SsbCounts(double sf);

// Creates the five tables (UserError if any of them already exists; then none is created)
// and appends their rows, one Catalog::Append per table.
void GenerateSsb(Catalog& catalog, const SsbOptions& opt);

// Writes lineorder.tbl, part.tbl, supplier.tbl, customer.tbl and date.tbl into `dir`
// (created if missing) in dbgen's format: every field followed by '|', rows end in '\n'.
// Each file is written under a temporary name and renamed when complete.
void WriteSsbTbl(const std::string& dir, const SsbOptions& opt);

}  // namespace tessera
