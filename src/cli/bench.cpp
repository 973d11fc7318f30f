// `tessera bench`: runs a benchmark's queries (SSB generates its data once into a cached
// database directory), each once cold and R times warm; prints every result and a summary
// with the cost model's bound per query; optionally the same queries on DuckDB (through
// libduckdb's C API, rows compared), a JSON report and an HTML page with bars.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>

#include "cli/bench_queries.hpp"
#include "cli/bench_report.hpp"
#include "cli/cli_args.hpp"
#include "cli/commands.hpp"
#include "cli/duckdb_client.hpp"
#include "cli/result_format.hpp"
#include "cli/ssb_data.hpp"
#include "model/machine_probe.hpp"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kBenchUsage =
    "Usage: tessera bench ssb --sf N [--reps R] [--queries q1.1,q2.1,...]\n"
    "                         [--device cpu|gpu|auto] [--threads N] [--data DIR]\n"
    "                         [--json FILE] [--plot FILE] [--compare duckdb]\n"
    "                         [--duckdb-lib PATH] [--tbl DIR] [--no-plan-cache] [--quiet]\n"
    "       tessera bench NAME --data DIR ...   (queries/NAME/*.sql, e.g. tpch)\n"
    "\n"
    "Runs the 13 Star Schema Benchmark queries (texts in queries/ssb/) at scale factor N.\n"
    "The data is generated once into a database directory and reused while it is complete.\n"
    "Another benchmark NAME runs queries/NAME/*.sql over the existing database --data DIR.\n"
    "Each query runs once cold (the first run after opening the database) and R times warm;\n"
    "its result rows are printed, then a summary: where it ran (cpu, gpu, or gpu+cpu when a\n"
    "pipeline that scans a table fell back to the CPU: EXPLAIN says why), rows, cold ms, warm\n"
    "median, min and max ms end to end (SQL text in, result rows out; warm runs take their\n"
    "prepared plan from the plan cache unless --no-plan-cache), the warm median of the\n"
    "GPU kernels' device time or of the CPU pipelines' time, the cold run's NVRTC and\n"
    "column-upload times, and the cost model's bound: the bytes the query's pipelines must\n"
    "move at the bandwidths `tessera probe` measured on this machine (probed quickly first\n"
    "when nothing is saved), with the percentage of it the warm median reaches.\n"
    "\n"
    "  --sf N            scale factor (default 1)\n"
    "  --reps R          warm runs per query (default 3)\n"
    "  --queries LIST    comma-separated query names (default: all)\n"
    "  --device D        cpu, gpu or auto (default auto)\n"
    "  --threads N       worker threads, for DuckDB too (default: all hardware threads)\n"
    "  --data DIR        database directory (default data/ssb-sf<N>.tdb)\n"
    "  --json FILE       write every figure (times, pipelines, model, DuckDB) as JSON\n"
    "  --plot FILE       write an HTML page with bars per query (tessera, DuckDB, bound)\n"
    "  --compare duckdb  run the same queries on DuckDB over the same rows (.tbl files\n"
    "                    loaded into an in-memory DuckDB, same thread count), print both\n"
    "                    times and their ratio, and compare the result rows\n"
    "  --duckdb-lib PATH libduckdb.so to use (else $TESSERA_DUCKDB_LIB, else the PyPI package\n"
    "                    duckdb of $TESSERA_PYTHON, .venv/bin/python or python3, whose\n"
    "                    module exports DuckDB's C API)\n"
    "  --tbl DIR         .tbl files + schema.sql for DuckDB (SSB default: data/ssb-sf<N>-tbl,\n"
    "                    written by the generator when missing)\n"
    "  --no-plan-cache   prepare every run afresh (parse, plan, GPU code generation) instead\n"
    "                    of reusing the cold run's plan from the plan cache; the JSON report\n"
    "                    has each query's host phases either way\n"
    "  --quiet           do not print the query results\n"
    "  --help            show this text\n"
    "\n"
    "Progress goes to stderr. Exit status 1 when a query fails, its warm result differs from\n"
    "the cold one, or (with --compare) DuckDB's rows differ from tessera's.\n";

double Ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<std::vector<std::string>> Texts(const QueryResult& r) {
  std::vector<std::vector<std::string>> out;
  for (auto& row : ResultCells(r)) {
    out.emplace_back();
    for (auto& c : row) out.back().push_back(c.text);
  }
  return out;
}

struct Options {
  std::string bench = "ssb";
  double sf = 1;
  uint64_t reps = 3;
  unsigned threads = 0;
  std::string device = "auto", data, query_list, json, plot, compare, duckdb_lib, tbl;
  bool quiet = false;
  bool plan_cache = true;
};

// Runs a query file's statements in order; returns the result of its query statement.
QueryResult RunStatements(Connection& conn, const BenchQuery& q) {
  QueryResult r;
  for (size_t i = 0; i < q.statements.size(); i++) {
    QueryResult x = conn.Query(q.statements[i]);
    if (i == q.result) r = std::move(x);
  }
  return r;
}

DuckDbClient::Result RunStatements(DuckDbClient& duck, const BenchQuery& q) {
  DuckDbClient::Result r;
  for (size_t i = 0; i < q.statements.size(); i++) {
    auto x = duck.Query(q.statements[i], i == q.result);
    if (i == q.result) r = std::move(x);
  }
  return r;
}

// Runs one query cold and `reps` times warm; keeps the cold result's rows in `cold_rows`.
QueryFigures RunQuery(Connection& conn, const BenchQuery& q, const Options& opt, const model::Ceilings& ceilings,
                      unsigned threads, std::vector<std::vector<std::string>>& cold_rows) {
  QueryFigures t;
  t.name = q.name;
  try {
    auto start = std::chrono::steady_clock::now();
    QueryResult cold = RunStatements(conn, q);
    t.cold = Ms(start);
    t.rows = cold.row_count;
    if (!opt.quiet) {
      std::cout << q.name << " (" << Fixed(t.cold) << " ms cold)\n";
      PrintResult(std::cout, cold, OutputMode::Table);
      std::cout << std::endl;
    }
    t.device = cold.device;
    t.compile_ms = cold.gpu_compile_ms;
    t.transfer_ms = cold.gpu_transfer_ms;
    t.transfer_bytes = (double)cold.gpu_transfer_bytes;
    t.column_bytes = (double)cold.gpu_column_bytes;
    t.note = cold.note;
    t.cold_parse_ms = cold.phases.parse_ms;
    t.cold_plan_ms = cold.phases.plan_ms;
    t.cold_gpu_plan_ms = cold.phases.gpu_plan_ms;
    if (!cold.note.empty()) std::cout << "note: " << q.name << ": " << cold.note << "\n";
    cold_rows = Texts(cold);
    std::vector<double> warm, kernel, cpu, parse, plan, run, collect, release;
    bool all_cached = opt.reps > 0;
    QueryResult last = std::move(cold);
    bool have_warm = false;
    for (uint64_t i = 0; i < opt.reps; i++) {
      start = std::chrono::steady_clock::now();
      last = RunStatements(conn, q);
      warm.push_back(Ms(start));
      have_warm = true;
      kernel.push_back(last.gpu_kernel_ms);
      const auto& ph = last.phases;
      parse.push_back(ph.parse_ms);
      plan.push_back(ph.plan_cached ? 0 : ph.plan_ms + ph.gpu_plan_ms);
      run.push_back(ph.run_ms);
      collect.push_back(ph.collect_ms);
      release.push_back(ph.release_ms);
      all_cached = all_cached && ph.plan_cached;
      double c = 0;
      for (auto& p : last.pipelines)
        if (p.device == "cpu") c += p.ms;
      cpu.push_back(c);
      if (last.device != t.device) t.device = last.device + " (cold: " + t.device + ")";
    }
    if (have_warm) {
      t.median = Median(warm);
      t.min = *std::min_element(warm.begin(), warm.end());
      t.max = *std::max_element(warm.begin(), warm.end());
      if (t.device != "cpu") t.kernel_median = Median(kernel);
      if (t.device == "cpu") t.cpu_median = Median(cpu);
      t.warm_parse_ms = Median(parse);
      t.warm_plan_ms = Median(plan);
      t.warm_run_ms = Median(run);
      t.warm_collect_ms = Median(collect);
      t.warm_release_ms = Median(release);
      t.warm_plan_cached = all_cached;
      if (Texts(last) != cold_rows) t.error = "warm result differs from cold result";
    } else {
      t.median = t.min = t.max = t.cold;  // --reps 0: the cold run is all there is
    }
    // The q-error pass: once more without join filters, so that every join counts the rows
    // the plan's estimates are about (a join filter from a join above drops rows from the
    // scans below before the joins there see them; those joins would be left out). Only
    // the joins come from it; the pipelines and the bound are the timed runs'.
    std::vector<QueryResult::JoinRows> joins = last.joins;
    if (last.device != "gpu") {
      conn.Query("SET join_filters = false");
      QueryResult unfiltered;
      try {
        unfiltered = RunStatements(conn, q);
      } catch (...) {
        conn.Query("SET join_filters = true");
        throw;
      }
      conn.Query("SET join_filters = true");
      if (Texts(unfiltered) != cold_rows) t.error = "result without join filters differs";
      joins = std::move(unfiltered.joins);
    }
    for (auto& j : joins)
      t.joins.push_back({j.join, j.estimated, j.actual, j.inner, j.probe_estimated, j.build_estimated, j.probe_actual,
                         j.build_actual});
    model::QueryBound b = model::BoundQuery(last.pipelines, ceilings, threads);
    for (size_t i = 0; i < last.pipelines.size(); i++) t.pipelines.push_back({last.pipelines[i], b.pipelines[i]});
    t.bound_ms = b.bound_ms;
    t.bound_bytes = b.bytes;
    t.bound_complete = b.complete;
  } catch (const std::exception& e) {
    t.error = e.what();
  }
  if (!t.error.empty()) std::cerr << "Error: " << q.name << ": " << t.error << std::endl;
  return t;
}

std::vector<BenchQuery> SelectQueries(const ArgReader& args, const std::string& bench, const std::string& list) {
  std::vector<BenchQuery> all;
  try {
    all = BenchmarkQueries(bench);
  } catch (const std::exception& e) {
    args.Fail(e.what());
  }
  if (list.empty()) return all;
  std::vector<BenchQuery> picked;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    auto it = std::find_if(all.begin(), all.end(), [&](const BenchQuery& q) {
      return q.name == name || (q.name.size() > 1 && q.name.substr(1) == name);
    });
    if (it == all.end()) {
      std::string known;
      for (const BenchQuery& k : all) known += (known.empty() ? "" : ",") + k.name;
      args.Fail("unknown query '" + name + "' (known: " + known + ")");
    }
    picked.push_back(*it);
  }
  if (picked.empty()) args.Fail("--queries names no query");
  return picked;
}

// The .tbl directory DuckDB loads: --tbl, or for SSB data/ssb-sf<N>-tbl written once.
std::string PrepareTbl(const Options& opt, const std::string& db_path) {
  if (!opt.tbl.empty()) {
    if (!fs::exists(fs::path(opt.tbl) / "schema.sql"))
      throw UserError(ErrorKind::IO, "--tbl " + opt.tbl + " has no schema.sql (tessera gen " + opt.bench + " --out DIR writes one)");
    return opt.tbl;
  }
  if (opt.bench != "ssb") throw UserError(ErrorKind::Input, "--compare duckdb for " + opt.bench + " needs --tbl DIR (.tbl files + schema.sql)");
  std::string dir = db_path;
  if (dir.size() > 4 && dir.substr(dir.size() - 4) == ".tdb") dir.resize(dir.size() - 4);
  dir += "-tbl";
  if (fs::exists(fs::path(dir) / "schema.sql")) return dir;
  std::cerr << "Writing SSB SF " << FormatScaleFactor(opt.sf) << " as .tbl files into " << dir << " for DuckDB (once)" << std::endl;
  fs::create_directories(dir);
  SsbOptions g;
  g.sf = opt.sf;
  g.threads = opt.threads;
  g.progress = StderrProgress();
  WriteSsbTbl(dir, g);
  std::ofstream schema(fs::path(dir) / "schema.sql.tmp");
  for (const TableSchema& s : SsbSchemas()) schema << SsbCreateTableSql(s) << '\n';
  if (!schema.flush()) throw UserError(ErrorKind::IO, "cannot write " + dir + "/schema.sql");
  schema.close();
  fs::rename(fs::path(dir) / "schema.sql.tmp", fs::path(dir) / "schema.sql");
  return dir;
}

// Loads the .tbl files into DuckDB and runs every query 1 + reps times, comparing rows.
void RunDuckDb(const Options& opt, const std::string& tbl, unsigned threads, const std::vector<BenchQuery>& queries,
               const std::vector<std::vector<std::vector<std::string>>>& tessera_rows, BenchReport& report) {
  DuckDbLibrary lib = DuckDbClient::FindLibrary(opt.duckdb_lib);
  std::cerr << "DuckDB: " << lib.path << std::endl;
  DuckDbClient duck(lib, threads);
  report.duckdb_version = duck.Version();
  std::ifstream in(fs::path(tbl) / "schema.sql");
  std::stringstream schema;
  schema << in.rdbuf();
  duck.Query(schema.str(), false);
  auto t0 = std::chrono::steady_clock::now();
  std::regex create(R"re(CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?)re", std::regex::icase);
  std::string s = schema.str();
  for (std::sregex_iterator it(s.begin(), s.end(), create), end; it != end; ++it) {
    std::string table = (*it)[1];
    fs::path file = fs::path(tbl) / (table + ".tbl");
    if (!fs::exists(file)) throw UserError(ErrorKind::IO, "DuckDB: " + file.string() + " is missing");
    std::cerr << "DuckDB: loading " << table << std::endl;
    duck.Query("COPY " + table + " FROM '" + file.string() + "' (DELIMITER '|', HEADER false)", false);
  }
  std::cerr << "DuckDB " << report.duckdb_version << ": loaded in " << Fixed(Ms(t0) / 1000) << " s, " << threads
            << " threads" << std::endl;
  for (size_t i = 0; i < queries.size(); i++) {
    QueryFigures& q = report.queries[i];
    DuckDbFigures d;
    std::cerr << "[" << i + 1 << "/" << queries.size() << "] DuckDB " << queries[i].name << std::endl;
    try {
      auto first = RunStatements(duck, queries[i]);
      d.rows = first.rows;
      if (q.error.empty()) d.mismatch = CompareRows(tessera_rows[i], first.cells);
      std::vector<double> times;
      for (uint64_t r = 0; r < std::max<uint64_t>(opt.reps, 1); r++) {
        auto st = std::chrono::steady_clock::now();
        RunStatements(duck, queries[i]);  // rows fetched, as tessera's are
        times.push_back(Ms(st));
      }
      d.median = Median(times);
      d.min = *std::min_element(times.begin(), times.end());
      d.max = *std::max_element(times.begin(), times.end());
    } catch (const std::exception& e) {
      d.error = e.what();
    }
    if (!d.error.empty()) std::cerr << "Error: DuckDB " << q.name << ": " << d.error << std::endl;
    if (!d.mismatch.empty()) std::cerr << "Error: " << q.name << ": rows differ from DuckDB's: " << d.mismatch << std::endl;
    q.duckdb = d;
  }
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw UserError(ErrorKind::IO, "cannot write " + path);
}

}  // namespace

int RunBenchCommand(const std::vector<std::string>& argv) {
  ArgReader args(argv, kBenchUsage);
  if (args.Done()) args.Fail("bench needs a benchmark name: ssb");
  Options opt;
  opt.bench = args.Next();
  if (opt.bench == "--help" || opt.bench == "-h") {
    std::cout << kBenchUsage;
    return 0;
  }
  while (!args.Done()) {
    std::string a = args.Next();
    if (a == "--help" || a == "-h") {
      std::cout << kBenchUsage;
      return 0;
    } else if (a == "--sf") {
      opt.sf = args.DoubleValue(a);
    } else if (a == "--reps") {
      opt.reps = args.UnsignedValue(a);
    } else if (a == "--queries") {
      opt.query_list = args.Value(a);
    } else if (a == "--device") {
      opt.device = args.Value(a);
    } else if (a == "--threads") {
      opt.threads = (unsigned)args.UnsignedValue(a);
    } else if (a == "--data") {
      opt.data = args.Value(a);
    } else if (a == "--json") {
      opt.json = args.Value(a);
    } else if (a == "--plot") {
      opt.plot = args.Value(a);
    } else if (a == "--compare") {
      opt.compare = args.Value(a);
    } else if (a == "--duckdb-lib") {
      opt.duckdb_lib = args.Value(a);
    } else if (a == "--tbl") {
      opt.tbl = args.Value(a);
    } else if (a == "--quiet") {
      opt.quiet = true;
    } else if (a == "--no-plan-cache") {
      opt.plan_cache = false;
    } else {
      args.Unknown(a);
    }
  }
  if (opt.sf <= 0) args.Fail("--sf must be positive");
  if (opt.device != "cpu" && opt.device != "gpu" && opt.device != "auto")
    args.Fail("--device must be cpu, gpu or auto, not '" + opt.device + "'");
  if (!opt.compare.empty() && opt.compare != "duckdb") args.Fail("--compare knows only duckdb, not '" + opt.compare + "'");
  if (opt.bench != "ssb" && opt.data.empty()) {
    // Still reject an unknown name first, with the list of known ones.
    SelectQueries(args, opt.bench, "");
    args.Fail("bench " + opt.bench + " needs --data DIR (a database holding its tables)");
  }
  std::vector<BenchQuery> queries = SelectQueries(args, opt.bench, opt.query_list);
  const std::string path = opt.data.empty() ? DefaultSsbDatabasePath(opt.sf) : opt.data;

  BenchReport report;
  report.benchmark = opt.bench;
  report.sf = opt.bench == "ssb" ? opt.sf : 0;
  report.data = path;
  report.device = opt.device;
  report.reps = opt.reps;
  report.plan_cache = opt.plan_cache;
  std::vector<std::vector<std::vector<std::string>>> tessera_rows(queries.size());
  try {
    if (!opt.compare.empty()) DuckDbClient::FindLibrary(opt.duckdb_lib);  // fail before the long work
    auto progress = [](const std::string& s) { std::cerr << s << std::endl; };
    report.ceilings = model::SavedOrQuickProbe(progress);
    if (opt.bench == "ssb") {
      // Generate (or complete) the cached data set.
      fs::path parent = fs::path(path).parent_path();
      if (!parent.empty()) fs::create_directories(parent);
      Database db(path);
      if (!SsbDatabaseComplete(db, opt.sf)) {
        std::cerr << "Generating SSB SF " << FormatScaleFactor(opt.sf) << " into " << path
                  << " (once; later runs reuse it)" << std::endl;
        DropSsbTables(db);
        SsbOptions g;
        g.sf = opt.sf;
        g.threads = opt.threads;
        g.progress = StderrProgress();
        auto start = std::chrono::steady_clock::now();
        GenerateSsb(db.catalog(), g);
        std::cerr << "Generated in " << Fixed(Ms(start) / 1000) << " s" << std::endl;
      }
    } else if (!fs::is_directory(path)) {
      throw UserError(ErrorKind::IO, "--data " + path + " is not a database directory");
    }
    // Reopen, so that the cold run starts from the stored database.
    Database db(path);
    db.settings().device = opt.device;
    db.settings().threads = opt.threads;
    db.settings().plan_cache = opt.plan_cache;
    report.threads = db.threads();
    Connection conn(db);
    std::cout << opt.bench << (opt.bench == "ssb" ? " SF " + FormatScaleFactor(opt.sf) : std::string()) << " (" << path
              << "): " << queries.size() << (queries.size() == 1 ? " query" : " queries") << ", 1 cold + " << opt.reps
              << " warm runs each, device " << opt.device << ", " << db.threads() << " threads\n\n";
    for (size_t i = 0; i < queries.size(); i++) {
      std::cerr << "[" << i + 1 << "/" << queries.size() << "] " << queries[i].name << std::endl;
      report.queries.push_back(RunQuery(conn, queries[i], opt, report.ceilings, db.threads(), tessera_rows[i]));
    }
    if (!opt.compare.empty()) RunDuckDb(opt, PrepareTbl(opt, path), db.threads(), queries, tessera_rows, report);
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  PrintSummary(std::cout, report);
  std::cout.flush();
  try {
    if (!opt.json.empty()) {
      WriteFile(opt.json, ReportJson(report));
      std::cerr << "wrote " << opt.json << std::endl;
    }
    if (!opt.plot.empty()) {
      WriteFile(opt.plot, ReportHtml(report));
      std::cerr << "wrote " << opt.plot << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  bool failed = std::any_of(report.queries.begin(), report.queries.end(), [](const QueryFigures& q) {
    return !q.error.empty() || (q.duckdb && (!q.duckdb->error.empty() || !q.duckdb->mismatch.empty()));
  });
  return failed ? 1 : 0;
}

}  // namespace tessera::cli
