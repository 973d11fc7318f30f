#include "model/pipeline_traffic.hpp"

#include <algorithm>
#include <cstdio>

#include "execution/operators/hash_aggregate.hpp"
#include "execution/operators/hash_join.hpp"
#include "execution/operators/table_scan.hpp"

namespace tessera::model {

namespace {

double RowWidth(const std::vector<Type>& types) {
  double w = 0;
  for (const Type& t : types) w += t.width();
  return w;
}

// Bytes per value of a stored column: fixed width, dictionary codes (4), or plain strings
// (average length + a 4-byte offset), from the first row group.
double StoredWidth(const PhysicalTableScan& scan, size_t out_col) {
  const Type& t = scan.types[out_col];
  if (t.physical() != PhysType::Str) return t.width();
  if (scan.data->row_groups.empty()) return 4;
  const ColumnChunk& ch = *scan.data->row_groups[0]->columns[scan.column_ids[out_col]];
  if (!ch.Loaded() || ch.str_enc == StringEncoding::Dictionary || ch.count == 0) return 4;  // not loaded: unknown
  ch.EnsureVerified();
  return 4 + double(ch.offsets[ch.count] - ch.offsets[0]) / ch.count;
}

// The pipeline whose sink is `op` (a join's build side), if any.
const Pipeline* BuildOf(const Pipeline& p, const PhysicalOperator* op) {
  for (const Pipeline* d : p.dependencies)
    if (d->sink == op) return d;
  return nullptr;
}

}  // namespace

PipelineRun DescribeRun(const Pipeline& p) {
  PipelineRun r;
  r.id = p.id;
  r.device = p.device;
  r.ms = p.elapsed_ms;
  r.plan = p.source->Name();
  for (auto* op : p.operators) r.plan += " -> " + op->Name();
  r.plan += " -> " + p.sink->Name() + (p.sink->kind == PhysKind::HashJoin || p.sink->kind == PhysKind::AsOfJoin ? " (build)" : "");
  const bool gpu = p.device == "gpu";
  r.rows_exact = p.counted && !gpu;
  auto est = [](const PhysicalOperator* op, double fallback) {
    return op->estimated_rows >= 0 ? op->estimated_rows : fallback;
  };
  PipelineTraffic& t = r.traffic;

  // Source.
  double flow = 0;  // rows out of the source, then out of each operator
  if (p.source->kind == PhysKind::TableScan) {
    auto& scan = static_cast<const PhysicalTableScan&>(*p.source);
    double rows = (double)scan.data->row_count - (gpu ? 0 : (double)scan.rows_skipped.load());
    flow = r.rows_exact ? (double)p.source_rows : std::min(rows, est(p.source, rows));
    r.rows_in = rows;
    const std::string table = scan.table ? scan.table->schema.name : "table";
    for (size_t i = 0; i < scan.column_ids.size(); i++) {
      // Columns the filters read are read for every row, the others only for the rows
      // that pass; on the CPU the join filters passed to the scan count as filters.
      const bool join_filtered = !gpu && !scan.join_filters.empty();
      bool full = (scan.filters.empty() && !join_filtered) || scan.IsFilterColumn(i);
      if (join_filtered)
        for (const auto& u : scan.join_filters) full |= u.col == (int)i;
      std::string name = table + "." + scan.table->schema.columns[scan.column_ids[i]].name;
      const double width = gpu && i < p.gpu_read_widths.size() ? p.gpu_read_widths[i] : StoredWidth(scan, i);
      t.reads.push_back({name, rows, full ? rows : flow, width});
    }
  } else {
    flow = r.rows_exact ? (double)p.source_rows : (double)p.source->rows_out;
    r.rows_in = flow;
    double w = RowWidth(p.source->types);
    if (w > 0 && flow > 0) t.reads.push_back({p.source->Name() + " rows", flow, flow, w});
  }

  // Streaming operators: probes.
  for (size_t i = 0; i < p.operators.size(); i++) {
    const PhysicalOperator* op = p.operators[i];
    double in = flow;
    double out = r.rows_exact && i < p.operator_rows.size() ? (double)p.operator_rows[i] : std::min(in, est(op, in));
    if (op->kind == PhysKind::HashJoin) {
      auto& join = static_cast<const PhysicalHashJoin&>(*op);
      const Pipeline* build = BuildOf(p, op);
      if (gpu) {
        double bytes = build ? build->gpu_table_bytes : 0;
        t.random.push_back({"probe " + std::to_string(i + 1) + " (join table)", in, bytes});
      } else {
        t.random.push_back({"probe " + std::to_string(i + 1) + " (index)", in, join.IndexBytes()});
        if (!join.build_types.empty())
          t.random.push_back({"probe " + std::to_string(i + 1) + " (build rows)", out * (double)join.build_types.size(),
                              join.BuildColumnBytes()});
      }
    }
    flow = out;
  }

  // Sink.
  const PhysicalOperator* sink = p.sink;
  r.rows_out = (double)sink->rows_out;
  switch (sink->kind) {
    case PhysKind::HashJoin: {
      auto& join = static_cast<const PhysicalHashJoin&>(*sink);
      if (gpu) {
        t.write_bytes += p.gpu_table_bytes;
      } else {
        double key = 0;
        for (auto& k : join.right_keys) key += k->type.width();
        t.write_bytes += (double)join.BuildRows() * (RowWidth(join.build_types) + key) + join.IndexBytes();
      }
      break;
    }
    case PhysKind::HashAggregate: {
      auto& agg = static_cast<const PhysicalHashAggregate&>(*sink);
      double groups = (double)sink->rows_out;
      double state = gpu ? p.gpu_table_bytes : groups * (RowWidth(agg.types) + 16.0 * (double)agg.aggs.size() + 8);
      if (!agg.groups.empty()) t.random.push_back({"aggregate updates", flow, state});
      t.write_bytes += groups * RowWidth(agg.types);
      break;
    }
    default:
      t.write_bytes += (double)sink->rows_out * RowWidth(sink->types);
  }
  return r;
}

std::vector<PipelineRun> DescribeRuns(const PipelineSet& set) {
  std::vector<PipelineRun> runs;
  for (auto& p : set.pipelines()) runs.push_back(DescribeRun(*p));
  return runs;
}

MemorySystem MemoryFor(const std::string& device, const Ceilings& c, unsigned threads) {
  if (device == "gpu") return {c.has_gpu ? c.gpu_read_gbps : 0, c.gpu_l2_bytes, 32};
  return {c.CpuBandwidth(threads), c.cpu_llc_bytes, 64};
}

QueryBound BoundQuery(const std::vector<PipelineRun>& runs, const Ceilings& c, unsigned threads) {
  QueryBound q;
  for (const PipelineRun& r : runs) {
    MemorySystem mem = MemoryFor(r.device, c, threads);
    if (mem.bandwidth_gbps <= 0) q.complete = false;
    q.pipelines.push_back(Bound(r.traffic, mem));
    q.bound_ms += q.pipelines.back().bound_ms;
    q.bytes += q.pipelines.back().total_bytes();
  }
  return q;
}

std::string RenderModel(const std::vector<PipelineRun>& runs, const Ceilings* c, unsigned threads) {
  std::string s;
  char buf[320];
  std::snprintf(buf, sizeof buf, "%-4s %-4s %12s %12s %10s %12s %9s %10s %8s  %s\n", "pipe", "dev", "rows in",
                "rows out", "ms", "MB", "GB/s", "bound ms", "% bound", "plan");
  s += buf;
  QueryBound q;
  if (c) q = BoundQuery(runs, *c, threads);
  double total_ms = 0;
  for (size_t i = 0; i < runs.size(); i++) {
    const PipelineRun& r = runs[i];
    total_ms += r.ms;
    std::string bound = "-", pct = "-", mb = "-", gbps = "-";
    if (c) {
      const PipelineBound& b = q.pipelines[i];
      std::snprintf(buf, sizeof buf, "%.2f", b.total_bytes() / 1e6);
      mb = buf;
      if (r.ms > 0) {
        std::snprintf(buf, sizeof buf, "%.1f", b.total_bytes() / (r.ms * 1e6));
        gbps = buf;
      }
      if (b.bound_ms > 0) {
        std::snprintf(buf, sizeof buf, "%.3f", b.bound_ms);
        bound = buf;
        if (r.ms > 0) {
          std::snprintf(buf, sizeof buf, "%.0f%%", 100 * b.bound_ms / r.ms);
          pct = buf;
        }
      }
    }
    std::snprintf(buf, sizeof buf, "%-4d %-4s %12.0f %11.0f%s %10.3f %12s %9s %10s %8s  %s\n", r.id, r.device.c_str(),
                  r.rows_in, r.rows_out, r.rows_exact ? " " : "~", r.ms, mb.c_str(), gbps.c_str(), bound.c_str(),
                  pct.c_str(), r.plan.c_str());
    s += buf;
  }
  if (c) {
    std::snprintf(buf, sizeof buf, "total: %.3f ms, %.2f MB, bound %.3f ms (%.0f%% of bound)%s\n", total_ms, q.bytes / 1e6,
                  q.bound_ms, total_ms > 0 ? 100 * q.bound_ms / total_ms : 0.0,
                  q.complete ? "" : "; a device of this query was not probed");
    s += buf;
    s += "bound: bytes at the probed bandwidth of machine " + c->machine + " (tessera probe --show)\n";
  } else {
    s += "bound: no saved probe for this machine (run: tessera probe)\n";
  }
  bool estimated = std::any_of(runs.begin(), runs.end(), [](const PipelineRun& r) { return !r.rows_exact; });
  if (estimated) s += "~: rows between the operators of a GPU pipeline are estimates (its sink's rows are counted)\n";
  return s;
}

}  // namespace tessera::model
