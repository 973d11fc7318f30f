// `tessera gen ssb|tpch`: generates benchmark data into a database or .tbl files.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli_args.hpp"
#include "cli/commands.hpp"
#include "cli/ssb_data.hpp"
#include "gen/tpch_gen.hpp"

namespace tessera::cli {

namespace {

constexpr const char* kGenUsage =
    "Usage: tessera gen ssb|tpch --sf N (--db PATH | --out DIR) [--seed S] [--threads N]\n"
    "\n"
    "Generates benchmark data at scale factor N (fractions such as 0.01 allowed):\n"
    "  ssb    Star Schema Benchmark: lineorder (about 6,000,000 x N rows), part, supplier,\n"
    "         customer, date\n"
    "  tpch   TPC-H: lineitem (about 6,000,000 x N rows), orders, partsupp, part,\n"
    "         customer, supplier, nation, region\n"
    "\n"
    "  --sf N        scale factor (required; TPC-H needs 0.01, 0.02 or at least 0.03)\n"
    "  --db PATH     create the tables in the database directory PATH\n"
    "  --out DIR     write one <table>.tbl file per table (dbgen format, '|' after every\n"
    "                field) and schema.sql (the CREATE TABLE statements) into DIR\n"
    "  --seed S      random seed (default 19940101 for ssb, 19920101 for tpch); the same\n"
    "                sf and seed give the same data\n"
    "  --threads N   generator threads (default: all hardware threads)\n"
    "  --help        show this text\n"
    "\n"
    "Load the files with: COPY t FROM 'DIR/t.tbl' (DELIMITER '|');\n"
    "Progress and the time taken go to stderr.\n";

struct GenArgs {
  double sf = 1;
  bool have_seed = false;
  uint64_t seed = 0;
  unsigned threads = 0;
  std::string db_path, out_dir;
};

void WriteSchemaSql(const std::string& dir, const std::vector<TableSchema>& schemas,
                    std::string (*sql)(const TableSchema&)) {
  std::string path = (std::filesystem::path(dir) / "schema.sql").string();
  std::ofstream schema(path);
  for (const TableSchema& s : schemas) schema << sql(s) << '\n';
  if (!schema.flush()) throw std::runtime_error("cannot write " + path);
}

void GenSsb(const GenArgs& a) {
  SsbOptions opt;
  opt.sf = a.sf;
  if (a.have_seed) opt.seed = a.seed;
  opt.threads = a.threads;
  opt.progress = StderrProgress();
  if (!a.out_dir.empty()) {
    WriteSsbTbl(a.out_dir, opt);
    WriteSchemaSql(a.out_dir, SsbSchemas(), SsbCreateTableSql);
  } else {
    Database db(a.db_path);
    GenerateSsb(db.catalog(), opt);
  }
}

void GenTpch(const GenArgs& a) {
  TpchOptions opt;
  opt.sf = a.sf;
  if (a.have_seed) opt.seed = a.seed;
  opt.threads = a.threads;
  opt.progress = StderrProgress();
  TpchCounts(opt.sf);  // rejects an unusable scale factor before anything is created
  if (!a.out_dir.empty()) {
    WriteTpchTbl(a.out_dir, opt);
    WriteSchemaSql(a.out_dir, TpchSchemas(), TpchCreateTableSql);
  } else {
    Database db(a.db_path);
    GenerateTpch(db.catalog(), opt);
  }
}

}  // namespace

int RunGenCommand(const std::vector<std::string>& argv) {
  ArgReader args(argv, kGenUsage);
  if (args.Done()) args.Fail("gen needs a benchmark name: ssb or tpch");
  std::string what = args.Next();
  if (what == "--help" || what == "-h") {
    std::cout << kGenUsage;
    return 0;
  }
  if (what != "ssb" && what != "tpch")
    args.Fail("unknown benchmark '" + what + "' (available: ssb, tpch)");

  GenArgs g;
  bool have_sf = false;
  while (!args.Done()) {
    std::string a = args.Next();
    if (a == "--help" || a == "-h") {
      std::cout << kGenUsage;
      return 0;
    } else if (a == "--sf") {
      g.sf = args.DoubleValue(a);
      have_sf = true;
    } else if (a == "--db") {
      g.db_path = args.Value(a);
    } else if (a == "--out") {
      g.out_dir = args.Value(a);
    } else if (a == "--seed") {
      g.seed = args.UnsignedValue(a);
      g.have_seed = true;
    } else if (a == "--threads") {
      g.threads = (unsigned)args.UnsignedValue(a);
    } else {
      args.Unknown(a);
    }
  }
  if (!have_sf) args.Fail("gen " + what + " needs --sf N");
  if (!(g.sf > 0)) args.Fail("--sf must be positive");
  if (g.db_path.empty() == g.out_dir.empty())
    args.Fail("gen " + what + " needs one of --db PATH or --out DIR");

  auto start = std::chrono::steady_clock::now();
  try {
    if (what == "ssb") GenSsb(g);
    else GenTpch(g);
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  std::cerr << "Generated " << (what == "ssb" ? "SSB" : "TPC-H") << " SF "
            << FormatScaleFactor(g.sf) << " into " << (g.out_dir.empty() ? g.db_path : g.out_dir)
            << " in " << buf << " s" << std::endl;
  return 0;
}

}  // namespace tessera::cli
