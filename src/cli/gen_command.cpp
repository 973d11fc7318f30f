// `tessera gen ssb`: generates Star Schema Benchmark data into a database or .tbl files.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli_args.hpp"
#include "cli/commands.hpp"
#include "cli/ssb_data.hpp"

namespace tessera::cli {

namespace {

constexpr const char* kGenUsage =
    "Usage: tessera gen ssb --sf N (--db PATH | --out DIR) [--seed S] [--threads N]\n"
    "\n"
    "Generates Star Schema Benchmark data at scale factor N (fractions such as 0.01 allowed;\n"
    "lineorder has about 6,000,000 x N rows).\n"
    "\n"
    "  --sf N        scale factor (required)\n"
    "  --db PATH     create the five tables in the database directory PATH\n"
    "  --out DIR     write lineorder.tbl, part.tbl, supplier.tbl, customer.tbl, date.tbl\n"
    "                (dbgen format, '|' after every field) and schema.sql into DIR\n"
    "  --seed S      random seed (default 19940101); the same sf and seed give the same data\n"
    "  --threads N   generator threads (default: all hardware threads)\n"
    "  --help        show this text\n"
    "\n"
    "Progress and the time taken go to stderr.\n";

}  // namespace

int RunGenCommand(const std::vector<std::string>& argv) {
  ArgReader args(argv, kGenUsage);
  if (args.Done()) args.Fail("gen needs a benchmark name: ssb");
  std::string what = args.Next();
  if (what == "--help" || what == "-h") {
    std::cout << kGenUsage;
    return 0;
  }
  if (what != "ssb") args.Fail("unknown benchmark '" + what + "' (available: ssb)");

  SsbOptions opt;
  bool have_sf = false;
  std::string db_path, out_dir;
  while (!args.Done()) {
    std::string a = args.Next();
    if (a == "--help" || a == "-h") {
      std::cout << kGenUsage;
      return 0;
    } else if (a == "--sf") {
      opt.sf = args.DoubleValue(a);
      have_sf = true;
    } else if (a == "--db") {
      db_path = args.Value(a);
    } else if (a == "--out") {
      out_dir = args.Value(a);
    } else if (a == "--seed") {
      opt.seed = args.UnsignedValue(a);
    } else if (a == "--threads") {
      opt.threads = (unsigned)args.UnsignedValue(a);
    } else {
      args.Unknown(a);
    }
  }
  if (!have_sf) args.Fail("gen ssb needs --sf N");
  if (opt.sf <= 0) args.Fail("--sf must be positive");
  if (db_path.empty() == out_dir.empty()) args.Fail("gen ssb needs one of --db PATH or --out DIR");

  opt.progress = StderrProgress();
  auto start = std::chrono::steady_clock::now();
  try {
    if (!out_dir.empty()) {
      WriteSsbTbl(out_dir, opt);
      std::ofstream schema(std::filesystem::path(out_dir) / "schema.sql");
      for (const TableSchema& s : SsbSchemas()) schema << SsbCreateTableSql(s) << '\n';
      if (!schema.flush()) throw std::runtime_error("cannot write " + out_dir + "/schema.sql");
    } else {
      Database db(db_path);
      GenerateSsb(db.catalog(), opt);
    }
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  std::cerr << "Generated SSB SF " << FormatScaleFactor(opt.sf) << " into "
            << (out_dir.empty() ? db_path : out_dir) << " in " << buf << " s" << std::endl;
  return 0;
}

}  // namespace tessera::cli
