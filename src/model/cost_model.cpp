#include "model/cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace tessera::model {

double TouchedFraction(double selectivity, double width, double granularity) {
  double s = std::clamp(selectivity, 0.0, 1.0);
  if (s <= 0) return 0;
  if (s >= 1 || width <= 0) return 1;
  double per_line = std::max(1.0, granularity / width);  // values per line
  return 1 - std::pow(1 - s, per_line);
}

double HitRatio(double table_bytes, double cache_bytes) {
  if (table_bytes <= 0) return 1;
  return std::clamp(cache_bytes / table_bytes, 0.0, 1.0);
}

double MsAt(double bytes, double gbps) { return gbps > 0 ? bytes / (gbps * 1e9) * 1e3 : 0; }

PipelineBound Bound(const PipelineTraffic& t, const MemorySystem& mem) {
  PipelineBound b;
  for (const ColumnRead& r : t.reads) {
    if (r.rows_total <= 0) continue;
    double s = r.rows_needed / r.rows_total;
    b.read_bytes += r.rows_total * r.width * TouchedFraction(s, r.width, mem.granularity);
  }
  for (const RandomAccess& a : t.random)
    b.random_bytes += a.count * mem.granularity * (1 - HitRatio(a.table_bytes, mem.cache_bytes));
  b.write_bytes = t.write_bytes;
  b.bound_ms = MsAt(b.total_bytes(), mem.bandwidth_gbps);
  return b;
}

}  // namespace tessera::model
