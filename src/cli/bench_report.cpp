#include "cli/bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "cli/result_format.hpp"
#include "common/json.hpp"
#include "execution/pipeline.hpp"

namespace tessera::cli {

std::optional<double> QueryFigures::PercentOfBound() const {
  if (!median || *median <= 0 || bound_ms <= 0 || !bound_complete) return std::nullopt;
  return 100 * bound_ms / *median;
}

std::string Fixed(std::optional<double> v, int digits) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, *v);
  return buf;
}

namespace {
struct Agg {
  double sum = 0, logs = 0;
  size_t n = 0;
  void Add(std::optional<double> v) {
    if (!v) return;
    sum += *v;
    logs += std::log(std::max(*v, 1e-6));
    n++;
  }
  std::string Sum() const { return n ? Fixed(sum) : "-"; }
  std::string Geo() const { return n ? Fixed(std::exp(logs / (double)n)) : "-"; }
};
std::string J(std::optional<double> v) { return v ? json::Number(*v) : "null"; }
}  // namespace

namespace {
// The median and largest q-error of the suite's joins (max(estimated/actual, actual/estimated)).
void PrintJoinErrors(std::ostream& out, const BenchReport& r) {
  struct Err {
    double q;
    const QueryFigures* query;
    const QueryFigures::Join* join;
  };
  std::vector<Err> errs;
  for (const QueryFigures& q : r.queries)
    for (const auto& j : q.joins)
      if (j.estimated >= 0) errs.push_back({QError(j.estimated, (double)j.actual), &q, &j});
  if (errs.empty()) return;
  std::sort(errs.begin(), errs.end(), [](const Err& a, const Err& b) { return a.q < b.q; });
  const size_t n = errs.size();
  const double median = n % 2 ? errs[n / 2].q : (errs[n / 2 - 1].q + errs[n / 2].q) / 2;
  const Err& worst = errs.back();
  out << "join estimates: " << n << " joins, q-error median " << Fixed(median) << ", max " << Fixed(worst.q) << " ("
      << worst.query->name << ": " << worst.join->join << ", estimated " << Fixed(worst.join->estimated, 0)
      << " rows, actual " << worst.join->actual << ")\n";
}
}  // namespace

void PrintSummary(std::ostream& out, const BenchReport& r) {
  const bool duck = !r.duckdb_version.empty();
  TextTable table;
  table.headers = {"query", "device", "rows", "cold ms", "median ms", "min ms", "max ms", "kernels/CPU ms",
                   "compile ms", "upload ms", "bound ms", "% of bound"};
  if (duck) for (const char* h : {"DuckDB ms", "tessera/DuckDB", "rows vs DuckDB"}) table.headers.push_back(h);
  table.right_align.assign(table.headers.size(), true);
  table.right_align[0] = table.right_align[1] = false;
  if (duck) table.right_align.back() = false;
  enum { kCold, kMedian, kMin, kMax, kWork, kBound, kDuck, kCols };
  Agg agg[kCols];
  for (const QueryFigures& q : r.queries) {
    if (!q.error.empty()) {
      std::vector<std::string> row = {q.name, q.device, "error"};
      row.resize(table.headers.size(), "-");
      table.rows.push_back(row);
      continue;
    }
    bool gpu = q.device != "cpu";
    std::optional<double> work = q.kernel_median ? q.kernel_median : q.cpu_median;
    std::optional<double> bound = q.bound_complete && q.bound_ms > 0 ? std::optional<double>(q.bound_ms) : std::nullopt;
    std::vector<std::string> row = {q.name, q.device, std::to_string(q.rows), Fixed(q.cold), Fixed(q.median),
                                    Fixed(q.min), Fixed(q.max), Fixed(work), gpu ? Fixed(q.compile_ms) : "-",
                                    gpu ? Fixed(q.transfer_ms) : "-", Fixed(bound, 3), Fixed(q.PercentOfBound(), 0)};
    agg[kCold].Add(q.cold), agg[kMedian].Add(q.median), agg[kMin].Add(q.min), agg[kMax].Add(q.max);
    agg[kWork].Add(work), agg[kBound].Add(bound);
    if (duck) {
      const DuckDbFigures* d = q.duckdb ? &*q.duckdb : nullptr;
      std::optional<double> ratio;
      if (d && d->median && q.median && *d->median > 0) ratio = *q.median / *d->median;
      row.push_back(d ? Fixed(d->median) : "-");
      row.push_back(Fixed(ratio));
      row.push_back(!d ? "-" : !d->error.empty() ? "error" : d->mismatch.empty() ? "same" : "DIFFER");
      if (d) agg[kDuck].Add(d->median);
    }
    table.rows.push_back(row);
  }
  table.separators_before.push_back(table.rows.size());
  for (int geo = 0; geo < 2; geo++) {
    auto f = [&](int c) { return geo ? agg[c].Geo() : agg[c].Sum(); };
    std::vector<std::string> row = {geo ? "geomean" : "total", "", "", f(kCold), f(kMedian), f(kMin), f(kMax),
                                    f(kWork), "", "", f(kBound), ""};
    if (duck) {
      row.push_back(f(kDuck));
      double a = geo ? std::exp(agg[kMedian].logs / std::max<size_t>(agg[kMedian].n, 1)) : agg[kMedian].sum;
      double b = geo ? std::exp(agg[kDuck].logs / std::max<size_t>(agg[kDuck].n, 1)) : agg[kDuck].sum;
      row.push_back(agg[kDuck].n && b > 0 ? Fixed(a / b) : "-");
      row.push_back("");
    }
    if (!geo && agg[kBound].n && agg[kMedian].sum > 0) row[11] = Fixed(100 * agg[kBound].sum / agg[kMedian].sum, 0);
    table.rows.push_back(row);
  }
  TableStyle style;
  style.max_rows = 0;
  style.footer = false;
  PrintTextTable(out, table, style);
  PrintJoinErrors(out, r);
  const model::Ceilings& c = r.ceilings;
  // The cold runs' column uploads against the probed pinned host-to-device bandwidth.
  double up_bytes = 0, up_ms = 0, col_bytes = 0;
  for (const QueryFigures& q : r.queries)
    if (q.error.empty() && q.device != "cpu" && q.transfer_bytes > 0)
      up_bytes += q.transfer_bytes, up_ms += q.transfer_ms, col_bytes += std::max(q.column_bytes, q.transfer_bytes);
  if (up_bytes > 0 && up_ms > 0) {
    const double gbps = up_bytes / 1e6 / up_ms;
    out << "column uploads (cold runs): " << Fixed(up_bytes / 1e6, 1) << " MB in " << Fixed(up_ms, 1) << " ms";
    if (col_bytes > up_bytes)
      out << " for " << Fixed(col_bytes / 1e6, 1) << " MB of columns (stored encodings decoded on the GPU: "
          << Fixed(col_bytes / 1e6 / up_ms, 1) << " GB/s of columns)";
    out << ", " << Fixed(gbps, 1) << " GB/s copied";
    if (c.h2d_pinned_gbps > 0)
      out << ", " << Fixed(100 * gbps / c.h2d_pinned_gbps, 0) << "% of the probed pinned host-to-device "
          << Fixed(c.h2d_pinned_gbps, 1) << " GB/s";
    out << "\n";
  }
  out << "bound: the bytes each query's pipelines must move (columns at line/sector granularity of the rows\n"
         "they need, hash probes that miss the cache, writes) at the probed bandwidth of "
      << c.machine << ":\n  CPU " << Fixed(c.CpuBandwidth(r.threads), 1) << " GB/s with " << r.threads
      << " threads (LLC " << Fixed(c.cpu_llc_bytes / (1 << 20), 0) << " MiB)";
  if (c.has_gpu) out << "; GPU " << Fixed(c.gpu_read_gbps, 0) << " GB/s (L2 " << Fixed(c.gpu_l2_bytes / (1 << 20), 0) << " MiB)";
  out << ". % of bound = bound / warm median.\n";
  out << (r.plan_cache ? "plan cache on: warm runs reuse the cold run's prepared plan and kernels (--no-plan-cache: plan each run)\n"
                       : "plan cache off: every run parses, plans and generates its kernels again\n");
}

std::string ReportJson(const BenchReport& r) {
  std::ostringstream o;
  const model::Ceilings& c = r.ceilings;
  o << "{\n  \"benchmark\": " << json::Quote(r.benchmark) << ",\n  \"sf\": " << json::Number(r.sf)
    << ",\n  \"data\": " << json::Quote(r.data) << ",\n  \"device\": " << json::Quote(r.device)
    << ",\n  \"threads\": " << r.threads << ",\n  \"reps\": " << r.reps
    << ",\n  \"plan_cache\": " << (r.plan_cache ? "true" : "false")
    << ",\n  \"duckdb_version\": " << (r.duckdb_version.empty() ? "null" : json::Quote(r.duckdb_version))
    << ",\n  \"machine\": " << c.ToJson().substr(0, c.ToJson().size() - 1);
  o << ",\n  \"model_bandwidth_gbps\": {\"cpu\": " << json::Number(c.CpuBandwidth(r.threads))
    << ", \"gpu\": " << (c.has_gpu ? json::Number(c.gpu_read_gbps) : "null") << "}";
  o << ",\n  \"queries\": [";
  for (size_t i = 0; i < r.queries.size(); i++) {
    const QueryFigures& q = r.queries[i];
    o << (i ? "," : "") << "\n    {\"name\": " << json::Quote(q.name) << ", \"error\": "
      << (q.error.empty() ? "null" : json::Quote(q.error)) << ", \"rows\": " << q.rows
      << ", \"device\": " << json::Quote(q.device) << ",\n     \"wall_ms\": {\"cold\": " << J(q.cold)
      << ", \"median\": " << J(q.median) << ", \"min\": " << J(q.min) << ", \"max\": " << J(q.max) << "}"
      << ",\n     \"compile_ms\": " << json::Number(q.compile_ms) << ", \"transfer_ms\": " << json::Number(q.transfer_ms)
      << ", \"transfer_bytes\": " << json::Number(q.transfer_bytes) << ", \"column_bytes\": " << json::Number(q.column_bytes)
      << ", \"kernel_ms\": " << J(q.kernel_median) << ", \"cpu_ms\": " << J(q.cpu_median)
      << ",\n     \"host_ms\": {\"cold\": {\"parse\": " << json::Number(q.cold_parse_ms) << ", \"plan\": "
      << json::Number(q.cold_plan_ms) << ", \"gpu_codegen\": " << json::Number(q.cold_gpu_plan_ms)
      << "}, \"warm\": {\"parse\": " << J(q.warm_parse_ms) << ", \"plan\": " << J(q.warm_plan_ms)
      << ", \"run\": " << J(q.warm_run_ms) << ", \"collect\": " << J(q.warm_collect_ms)
      << ", \"release\": " << J(q.warm_release_ms)
      << ", \"plan_cached\": " << (q.warm_plan_cached ? "true" : "false") << "}}"
      << ",\n     \"model\": {\"bound_ms\": " << (q.bound_complete ? json::Number(q.bound_ms) : "null")
      << ", \"bytes\": " << json::Number(q.bound_bytes) << ", \"percent_of_bound\": " << J(q.PercentOfBound()) << "}";
    o << ",\n     \"pipelines\": [";
    for (size_t k = 0; k < q.pipelines.size(); k++) {
      const auto& p = q.pipelines[k];
      o << (k ? "," : "") << "\n       {\"id\": " << p.run.id << ", \"device\": " << json::Quote(p.run.device)
        << ", \"cpu_fallback\": " << (q.device != "cpu" && p.run.device == "cpu" && p.run.plan.rfind("TABLE_SCAN", 0) == 0 ? "true" : "false")
        << ", \"plan\": " << json::Quote(p.run.plan) << ", \"rows_in\": " << json::Number(p.run.rows_in)
        << ", \"rows_out\": " << json::Number(p.run.rows_out) << ", \"rows_exact\": " << (p.run.rows_exact ? "true" : "false")
        << ", \"ms\": " << json::Number(p.run.ms) << ", \"read_bytes\": " << json::Number(p.bound.read_bytes)
        << ", \"random_bytes\": " << json::Number(p.bound.random_bytes) << ", \"write_bytes\": "
        << json::Number(p.bound.write_bytes) << ", \"bound_ms\": " << json::Number(p.bound.bound_ms) << "}";
    }
    o << "]";
    o << ",\n     \"joins\": [";
    for (size_t k = 0; k < q.joins.size(); k++) {
      const auto& j = q.joins[k];
      o << (k ? "," : "") << "\n       {\"join\": " << json::Quote(j.join) << ", \"estimated_rows\": "
        << (j.estimated >= 0 ? json::Number(j.estimated) : "null") << ", \"actual_rows\": " << j.actual
        << ", \"q_error\": " << (j.estimated >= 0 ? json::Number(QError(j.estimated, (double)j.actual)) : "null")
        << ", \"inner\": " << (j.inner ? "true" : "false") << ", \"probe\": {\"estimated_rows\": "
        << (j.probe_estimated >= 0 ? json::Number(j.probe_estimated) : "null") << ", \"actual_rows\": " << j.probe_actual
        << "}, \"build\": {\"estimated_rows\": " << (j.build_estimated >= 0 ? json::Number(j.build_estimated) : "null")
        << ", \"actual_rows\": " << j.build_actual << "}}";
    }
    o << "]";
    if (q.duckdb) {
      const DuckDbFigures& d = *q.duckdb;
      o << ",\n     \"duckdb\": {\"median\": " << J(d.median) << ", \"min\": " << J(d.min) << ", \"max\": " << J(d.max)
        << ", \"rows\": " << d.rows << ", \"same_rows\": " << (d.error.empty() && d.mismatch.empty() ? "true" : "false")
        << ", \"mismatch\": " << (d.mismatch.empty() ? "null" : json::Quote(d.mismatch))
        << ", \"error\": " << (d.error.empty() ? "null" : json::Quote(d.error)) << "}";
    }
    o << "}";
  }
  o << "\n  ]\n}\n";
  return o.str();
}

namespace {
std::string Esc(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '<') o += "&lt;";
    else if (ch == '>') o += "&gt;";
    else if (ch == '&') o += "&amp;";
    else if (ch == '"') o += "&quot;";
    else o += ch;
  }
  return o;
}
}  // namespace

std::string ReportHtml(const BenchReport& r) {
  // One group of bars per query: tessera's warm median, DuckDB's (with --compare) and the
  // model's bound, on a logarithmic axis (figures span orders of magnitude).
  struct Series { const char* name; const char* color; };
  const Series series[3] = {{"tessera (warm median)", "#1f77b4"}, {"DuckDB (warm median)", "#ff7f0e"},
                            {"bound (cost model)", "#2ca02c"}};
  double lo = 1e300, hi = 0;
  auto see = [&](std::optional<double> v) { if (v && *v > 0) lo = std::min(lo, *v), hi = std::max(hi, *v); };
  for (const QueryFigures& q : r.queries) {
    see(q.median);
    if (q.duckdb) see(q.duckdb->median);
    if (q.bound_complete) see(q.bound_ms);
  }
  if (hi <= 0) lo = 0.1, hi = 1;
  double l0 = std::floor(std::log10(lo)), l1 = std::ceil(std::log10(hi));
  if (l1 <= l0) l1 = l0 + 1;
  const int left = 70, top = 40, plot_h = 320, group_w = 54, bar_w = 14;
  const int width = left + 20 + group_w * (int)std::max<size_t>(r.queries.size(), 1), height = top + plot_h + 90;
  auto y = [&](double v) { return top + plot_h - (std::log10(v) - l0) / (l1 - l0) * plot_h; };
  std::ostringstream s;
  char buf[512];
  s << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tessera bench " << Esc(r.benchmark) << " SF "
    << json::Number(r.sf) << "</title>\n<style>body{font-family:sans-serif;margin:20px}"
    << "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
    << "</style></head><body>\n<h2>tessera bench " << Esc(r.benchmark) << " SF " << json::Number(r.sf) << "</h2>\n<p>Machine "
    << Esc(r.ceilings.machine) << " (" << Esc(r.ceilings.cpu_model) << ", " << r.threads << " threads"
    << (r.ceilings.has_gpu ? ", " + Esc(r.ceilings.gpu_name) : std::string(", no GPU")) << "), device " << Esc(r.device)
    << ", " << r.reps << " warm runs per query" << (r.duckdb_version.empty() ? "" : ", DuckDB " + Esc(r.duckdb_version))
    << ". Milliseconds, logarithmic axis.</p>\n";
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\">\n";
  for (double e = l0; e <= l1; e++) {
    double v = std::pow(10, e);
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/><text x=\"%d\" y=\"%.1f\" "
                  "font-size=\"11\" text-anchor=\"end\">%g</text>\n",
                  left, width - 10, y(v), y(v), left - 6, y(v) + 4, v);
    s << buf;
  }
  for (size_t i = 0; i < r.queries.size(); i++) {
    const QueryFigures& q = r.queries[i];
    std::optional<double> vals[3] = {q.median, q.duckdb ? q.duckdb->median : std::nullopt,
                                     q.bound_complete && q.bound_ms > 0 ? std::optional<double>(q.bound_ms) : std::nullopt};
    int x0 = left + 8 + (int)i * group_w;
    for (int k = 0; k < 3; k++) {
      if (!vals[k] || *vals[k] <= 0) continue;
      double top_y = std::max<double>(top, y(*vals[k]));
      std::snprintf(buf, sizeof buf,
                    "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %.3f ms</title></rect>\n",
                    x0 + k * (bar_w + 1), top_y, bar_w, top + plot_h - top_y, series[k].color, Esc(q.name).c_str(),
                    series[k].name, *vals[k]);
      s << buf;
    }
    std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
                  x0 + 22, top + plot_h + 16, Esc(q.name).c_str());
    s << buf;
  }
  for (int k = 0; k < 3; k++) {
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                  "font-size=\"12\">%s</text>\n",
                  left + k * 190, top + plot_h + 40, series[k].color, left + k * 190 + 16, top + plot_h + 50,
                  series[k].name);
    s << buf;
  }
  s << "</svg>\n<table><tr><th>query</th><th>device</th><th>tessera ms</th><th>DuckDB ms</th><th>bound ms</th>"
       "<th>% of bound</th></tr>\n";
  for (const QueryFigures& q : r.queries)
    s << "<tr><td>" << Esc(q.name) << "</td><td>" << Esc(q.device) << "</td><td>" << Fixed(q.median) << "</td><td>"
      << (q.duckdb ? Fixed(q.duckdb->median) : "-") << "</td><td>"
      << (q.bound_complete ? Fixed(q.bound_ms, 3) : "-") << "</td><td>" << Fixed(q.PercentOfBound(), 0) << "</td></tr>\n";
  s << "</table>\n</body></html>\n";
  return s.str();
}

}  // namespace tessera::cli
