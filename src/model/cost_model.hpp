// The bandwidth cost model (after the Crystal paper's query model): a pipeline's lower bound
// is the bytes it must move divided by the memory bandwidth the machine was measured at.
//
//  * Sequential column reads: a column of `rows_total` values of `width` bytes, of which
//    only `rows_needed` are wanted (a column read after a filter), costs the cache lines /
//    sectors that hold at least one wanted row: rows_total * width * TouchedFraction.
//    Wanted rows are taken as spread uniformly, so a line of g/width values is touched with
//    probability 1 - (1 - s)^(g/width).
//  * Random accesses (hash-table probes, group-table updates): each costs one line / sector
//    of `granularity` bytes, except the share that hits the cache: the hit ratio is
//    cache_bytes / table_bytes, at most 1 (the table's resident fraction).
//  * Writes (materialised rows, build tables) cost their bytes once.
// Time = total bytes / bandwidth. Everything here is arithmetic on the inputs; the inputs
// (row counts, widths, table sizes) come from a run (model/pipeline_traffic.hpp).
#pragma once
#include <string>
#include <vector>

namespace tessera::model {

// The memory system a pipeline runs against.
struct MemorySystem {
  double bandwidth_gbps = 0;  // sequential read bandwidth, GB/s (10^9 bytes/s)
  double cache_bytes = 0;     // last-level cache (CPU LLC, GPU L2)
  double granularity = 64;    // bytes moved per random access: 64 (CPU line), 32 (GPU sector)
};

struct ColumnRead {
  std::string what;        // "lineorder.lo_discount"
  double rows_total = 0;   // rows in the scanned range
  double rows_needed = 0;  // rows whose value is wanted (<= rows_total)
  double width = 4;        // bytes per value
};

struct RandomAccess {
  std::string what;        // "probe HASH_JOIN (date)"
  double count = 0;        // accesses
  double table_bytes = 0;  // size of the structure accessed
};

struct PipelineTraffic {
  std::vector<ColumnRead> reads;
  std::vector<RandomAccess> random;
  double write_bytes = 0;
};

struct PipelineBound {
  double read_bytes = 0;    // sequential reads, after line/sector granularity
  double random_bytes = 0;  // random accesses that miss the cache
  double write_bytes = 0;
  double total_bytes() const { return read_bytes + random_bytes + write_bytes; }
  double bound_ms = 0;  // total bytes at the bandwidth
};

// Fraction of a column's lines/sectors holding at least one wanted row, for selectivity s
// (0..1) of rows of `width` bytes in lines of `granularity` bytes.
double TouchedFraction(double selectivity, double width, double granularity);
// Share of random accesses served by the cache: min(1, cache / table), 1 for an empty table.
double HitRatio(double table_bytes, double cache_bytes);
// Bytes and time for one pipeline.
PipelineBound Bound(const PipelineTraffic& traffic, const MemorySystem& mem);
// Milliseconds to move `bytes` at `gbps`; 0 when the bandwidth is unknown (0).
double MsAt(double bytes, double gbps);

}  // namespace tessera::model
