// `tessera bench ssb`: the Star Schema Benchmark. Generates the data once into a cached
// database directory, then runs each query once cold (first run after opening the
// database) and R times warm, prints every result and a timing summary.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/cli_args.hpp"
#include "cli/commands.hpp"
#include "cli/result_format.hpp"
#include "cli/ssb_data.hpp"
#include "cli/ssb_queries.hpp"

namespace tessera::cli {

namespace {

constexpr const char* kBenchUsage =
    "Usage: tessera bench ssb --sf N [--reps R] [--queries q1.1,q2.1,...]\n"
    "                         [--device cpu|gpu|auto] [--threads N] [--data DIR]\n"
    "\n"
    "Runs the 13 Star Schema Benchmark queries (texts in queries/ssb/) at scale factor N.\n"
    "The data is generated once into a database directory and reused while it is complete.\n"
    "Each query runs once cold (the first run after opening the database) and R times warm;\n"
    "its result rows are printed, then a summary: where it ran (cpu, gpu, or gpu+cpu when a\n"
    "pipeline that scans a table fell back to the CPU: EXPLAIN says why), rows, cold ms, warm\n"
    "median and min ms end to end (SQL text in, result rows out), and on the GPU the warm\n"
    "median device time of the kernels and the cold run's NVRTC and column-upload times;\n"
    "with the total and the geometric mean.\n"
    "\n"
    "  --sf N          scale factor (default 1)\n"
    "  --reps R        warm runs per query (default 3)\n"
    "  --queries LIST  comma-separated query names (default: all 13)\n"
    "  --device D      cpu, gpu or auto (default auto)\n"
    "  --threads N     worker threads (default: all hardware threads)\n"
    "  --data DIR      database directory (default data/ssb-sf<N>.tdb)\n"
    "  --help          show this text\n"
    "\n"
    "Exit status 1 when a query fails or its warm result differs from the cold one.\n";

struct Timing {
  std::string name;
  uint64_t rows = 0;
  std::optional<double> cold, median, min;
  std::string error;
  std::string device;                         // where the warm runs ran (cpu, gpu, gpu+cpu)
  double compile_ms = 0, transfer_ms = 0;     // GPU, cold run: NVRTC and column uploads
  std::optional<double> kernel_median;        // GPU, warm runs: device time of the kernels
};

double Ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string Fixed(std::optional<double> v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", *v);
  return buf;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs one query cold and `reps` times warm.
Timing RunQuery(Connection& conn, const SsbQuery& q, uint64_t reps) {
  Timing t;
  t.name = std::string(q.name);
  try {
    auto start = std::chrono::steady_clock::now();
    QueryResult cold = conn.Query(q.sql);
    t.cold = Ms(start);
    t.rows = cold.row_count;
    std::cout << q.name << " (" << Fixed(t.cold) << " ms cold)\n";
    PrintResult(std::cout, cold, OutputMode::Table);
    std::cout << std::endl;
    t.device = cold.device;
    t.compile_ms = cold.gpu_compile_ms;
    t.transfer_ms = cold.gpu_transfer_ms;
    if (!cold.note.empty()) std::cout << "note: " << cold.note << "\n";
    std::vector<double> warm, kernel;
    QueryResult last;
    for (uint64_t i = 0; i < reps; i++) {
      start = std::chrono::steady_clock::now();
      last = conn.Query(q.sql);
      warm.push_back(Ms(start));
      kernel.push_back(last.gpu_kernel_ms);
      if (last.device != t.device) t.device = last.device + " (cold: " + t.device + ")";
    }
    if (!warm.empty()) {
      t.median = Median(warm);
      if (t.device != "cpu") t.kernel_median = Median(kernel);
      t.min = *std::min_element(warm.begin(), warm.end());
      if (ResultCells(last) != ResultCells(cold)) t.error = "warm result differs from cold result";
    }
  } catch (const std::exception& e) {
    t.error = e.what();
  }
  if (!t.error.empty()) std::cerr << "Error: " << q.name << ": " << t.error << std::endl;
  return t;
}

void PrintSummary(const std::vector<Timing>& timings) {
  TextTable table;
  table.headers = {"query", "device", "rows", "cold ms", "warm median ms", "warm min ms", "kernels ms",
                   "compile ms", "upload ms"};
  table.right_align = {false, false, true, true, true, true, true, true, true};
  double sums[3] = {0, 0, 0}, logs[3] = {0, 0, 0};
  size_t counts[3] = {0, 0, 0};
  for (const Timing& t : timings) {
    if (!t.error.empty()) {
      table.rows.push_back({t.name, t.device, "error", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    bool gpu = t.device != "cpu";
    table.rows.push_back({t.name, t.device, std::to_string(t.rows), Fixed(t.cold), Fixed(t.median), Fixed(t.min),
                          Fixed(t.kernel_median), gpu ? Fixed(t.compile_ms) : "-", gpu ? Fixed(t.transfer_ms) : "-"});
    const std::optional<double>* cols[3] = {&t.cold, &t.median, &t.min};
    for (int c = 0; c < 3; c++) {
      if (!*cols[c]) continue;
      double v = **cols[c];
      sums[c] += v;
      logs[c] += std::log(std::max(v, 1e-6));
      counts[c]++;
    }
  }
  std::vector<std::string> total = {"total", "", ""}, geo = {"geomean", "", ""};
  for (int c = 0; c < 3; c++) {
    total.push_back(counts[c] ? Fixed(sums[c]) : "-");
    geo.push_back(counts[c] ? Fixed(std::exp(logs[c] / (double)counts[c])) : "-");
  }
  double ksum = 0, klog = 0;
  size_t kn = 0;
  for (const Timing& t : timings)
    if (t.kernel_median && t.error.empty()) {
      ksum += *t.kernel_median;
      klog += std::log(std::max(*t.kernel_median, 1e-6));
      kn++;
    }
  total.push_back(kn ? Fixed(ksum) : "-");
  geo.push_back(kn ? Fixed(std::exp(klog / (double)kn)) : "-");
  for (int c = 0; c < 2; c++) {
    total.push_back("");
    geo.push_back("");
  }
  table.separators_before.push_back(table.rows.size());
  table.rows.push_back(total);
  table.rows.push_back(geo);
  TableStyle style;
  style.max_rows = 0;
  style.footer = false;
  PrintTextTable(std::cout, table, style);
}

std::vector<const SsbQuery*> SelectQueries(const ArgReader& args, const std::string& list) {
  std::vector<const SsbQuery*> picked;
  if (list.empty()) {
    for (const SsbQuery& q : SsbQueries()) picked.push_back(&q);
    return picked;
  }
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    const SsbQuery* q = FindSsbQuery(name);
    if (!q) {
      std::string known;
      for (const SsbQuery& k : SsbQueries()) known += (known.empty() ? "" : ",") + std::string(k.name);
      args.Fail("unknown query '" + name + "' (known: " + known + ")");
    }
    picked.push_back(q);
  }
  if (picked.empty()) args.Fail("--queries names no query");
  return picked;
}

}  // namespace

int RunBenchCommand(const std::vector<std::string>& argv) {
  ArgReader args(argv, kBenchUsage);
  if (args.Done()) args.Fail("bench needs a benchmark name: ssb");
  std::string what = args.Next();
  if (what == "--help" || what == "-h") {
    std::cout << kBenchUsage;
    return 0;
  }
  if (what != "ssb") args.Fail("unknown benchmark '" + what + "' (available: ssb)");

  double sf = 1;
  uint64_t reps = 3;
  unsigned threads = 0;
  std::string device = "auto", data, query_list;
  while (!args.Done()) {
    std::string a = args.Next();
    if (a == "--help" || a == "-h") {
      std::cout << kBenchUsage;
      return 0;
    } else if (a == "--sf") {
      sf = args.DoubleValue(a);
    } else if (a == "--reps") {
      reps = args.UnsignedValue(a);
    } else if (a == "--queries") {
      query_list = args.Value(a);
    } else if (a == "--device") {
      device = args.Value(a);
    } else if (a == "--threads") {
      threads = (unsigned)args.UnsignedValue(a);
    } else if (a == "--data") {
      data = args.Value(a);
    } else {
      args.Unknown(a);
    }
  }
  if (sf <= 0) args.Fail("--sf must be positive");
  if (device != "cpu" && device != "gpu" && device != "auto")
    args.Fail("--device must be cpu, gpu or auto, not '" + device + "'");
  std::vector<const SsbQuery*> queries = SelectQueries(args, query_list);
  const std::string path = data.empty() ? DefaultSsbDatabasePath(sf) : data;

  std::vector<Timing> timings;
  try {
    // Generate (or complete) the cached data set.
    {
      std::filesystem::path parent = std::filesystem::path(path).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent);
      Database db(path);
      if (!SsbDatabaseComplete(db, sf)) {
        std::cerr << "Generating SSB SF " << FormatScaleFactor(sf) << " into " << path
                  << " (once; later runs reuse it)" << std::endl;
        DropSsbTables(db);
        SsbOptions opt;
        opt.sf = sf;
        opt.threads = threads;
        opt.progress = StderrProgress();
        auto start = std::chrono::steady_clock::now();
        GenerateSsb(db.catalog(), opt);
        std::cerr << "Generated in " << Fixed(Ms(start) / 1000) << " s" << std::endl;
      }
    }
    // Reopen, so that the cold run starts from the stored database.
    Database db(path);
    db.settings().device = device;
    db.settings().threads = threads;
    Connection conn(db);
    std::cout << "SSB SF " << FormatScaleFactor(sf) << " (" << path << "): " << queries.size()
              << (queries.size() == 1 ? " query" : " queries") << ", 1 cold + " << reps << " warm runs each, device " << device << ", "
              << db.threads() << " threads\n\n";
    for (const SsbQuery* q : queries) timings.push_back(RunQuery(conn, *q, reps));
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  PrintSummary(timings);
  std::cout.flush();
  bool failed = std::any_of(timings.begin(), timings.end(),
                            [](const Timing& t) { return !t.error.empty(); });
  return failed ? 1 : 0;
}

}  // namespace tessera::cli
