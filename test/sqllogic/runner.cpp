// sqllogictest-style runner for tessera's .test files (format: test/sql/README.md).
//
//   sqllogictest [--root DIR] [--device cpu|gpu|auto] [--threads N] [--verbose] FILE...
//
// Each file runs in a fresh in-memory database. Failing records are reported as
// file:line with the expected and actual outcome; the exit status is 1 when any failed.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/gpu_executor.hpp"
#include "common/error.hpp"
#include "function/regex_ops.hpp"
#include "main/database.hpp"

namespace {

using tessera::Connection;
using tessera::Database;
using tessera::QueryResult;

enum class RecordKind { StatementOk, StatementError, Query, Halt, Require };
enum class SortMode { None, Row, Value };

struct Record {
  RecordKind kind = RecordKind::StatementOk;
  int line = 0;  // line of the record's header
  std::string sql;
  std::string types;               // query: one letter per column
  SortMode sort = SortMode::None;  // query
  int gpu_pipelines = -1;          // query ... gpu:N: at least N pipelines must run on the GPU
  bool has_expected = false;       // statement error: a message substring follows ----
  std::vector<std::string> expected;
};

struct ParseError {
  int line;
  std::string msg;
};

std::string TrimRight(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string Lower(std::string s) {
  for (char& c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

bool IsBlank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

std::vector<std::string> Words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

std::vector<Record> Parse(const std::vector<std::string>& lines) {
  std::vector<Record> records;
  size_t i = 0;
  while (i < lines.size()) {
    const std::string& header = lines[i];
    if (IsBlank(header) || header[0] == '#') {
      i++;
      continue;
    }
    Record r;
    r.line = (int)i + 1;
    std::vector<std::string> w = Words(header);
    if (w[0] == "statement" && w.size() == 2 && (w[1] == "ok" || w[1] == "error")) {
      r.kind = w[1] == "ok" ? RecordKind::StatementOk : RecordKind::StatementError;
    } else if (w[0] == "query" && (w.size() >= 2 && w.size() <= 4)) {
      r.kind = RecordKind::Query;
      r.types = w[1];
      if (r.types.find_first_not_of("IRTDB") != std::string::npos)
        throw ParseError{r.line, "query types must be letters I, R, T, D or B: '" + r.types + "'"};
      if (w.size() >= 3) {
        if (w[2] == "nosort") r.sort = SortMode::None;
        else if (w[2] == "rowsort") r.sort = SortMode::Row;
        else if (w[2] == "valuesort") r.sort = SortMode::Value;
        else throw ParseError{r.line, "unknown sort mode '" + w[2] + "'"};
      }
      if (w.size() == 4) {
        if (w[3].rfind("gpu:", 0) != 0 || w[3].size() < 5 || w[3].find_first_not_of("0123456789", 4) != std::string::npos)
          throw ParseError{r.line, "expected gpu:N after the sort mode, got '" + w[3] + "'"};
        r.gpu_pipelines = std::stoi(w[3].substr(4));
      }
    } else if (w[0] == "require" && w.size() == 2) {
      // require FEATURE: the file is skipped when the build lacks it (MissingFeature).
      r.kind = RecordKind::Require;
      r.sql = w[1];
      records.push_back(r);
      i++;
      continue;
    } else if (w[0] == "halt" && w.size() == 1) {
      r.kind = RecordKind::Halt;
      records.push_back(r);
      return records;
    } else {
      throw ParseError{r.line, "unknown record '" + TrimRight(header) + "'"};
    }
    i++;
    // SQL up to a blank line or "----".
    bool separator = false;
    for (; i < lines.size() && !IsBlank(lines[i]); i++) {
      if (TrimRight(lines[i]) == "----") {
        separator = true;
        i++;
        break;
      }
      r.sql += TrimRight(lines[i]) + "\n";
    }
    if (r.sql.empty()) throw ParseError{r.line, "record without SQL"};
    if (separator) {
      if (r.kind == RecordKind::StatementOk)
        throw ParseError{r.line, "'statement ok' takes no '----' section"};
      for (; i < lines.size() && !IsBlank(lines[i]); i++) {
        std::string l = lines[i];
        if (!l.empty() && l.back() == '\r') l.pop_back();
        r.expected.push_back(l);
      }
      r.has_expected = true;
    } else if (r.kind == RecordKind::Query) {
      throw ParseError{r.line, "query without '----' (expected rows follow it)"};
    }
    records.push_back(std::move(r));
  }
  return records;
}

// Why the build cannot run a file's `require` records (empty when it can): `re2`, the
// regular-expression functions (function/regex_ops.hpp).
std::string MissingFeature(const std::vector<Record>& records) {
  for (const Record& r : records) {
    if (r.kind != RecordKind::Require) continue;
    if (r.sql == "re2") {
      if (!tessera::ops::HaveRegex()) return "built without RE2";
    } else {
      return "unknown feature '" + r.sql + "'";
    }
  }
  return {};
}

std::vector<std::string> SplitTabs(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t tab = s.find('\t', start);
    out.push_back(s.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string r;
  for (size_t i = 0; i < v.size(); i++) r += (i ? sep : "") + v[i];
  return r;
}

// Values of DOUBLE columns may differ in the last bits (parallel summation order).
bool CloseDoubles(const std::string& a, const std::string& b) {
  char *ea, *eb;
  double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  if (a.empty() || b.empty() || *ea || *eb) return false;
  if (x == y) return true;
  return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
}

class FileRunner {
 public:
  FileRunner(std::string display, const tessera::Settings& settings, bool verbose)
      : display_(std::move(display)), conn_(db_), verbose_(verbose), gpu_device_(settings.device == "gpu") {
    db_.settings() = settings;
  }

  // Runs every record; returns the number of failed records.
  int Run(const std::vector<Record>& records) {
    for (const Record& r : records) {
      if (r.kind == RecordKind::Halt) break;
      if (r.kind == RecordKind::Require) continue;  // checked before the file runs
      if (verbose_) std::cout << display_ << ":" << r.line << ": " << Oneline(r.sql) << std::endl;
      std::string failure;
      switch (r.kind) {
        case RecordKind::StatementOk: failure = RunStatementOk(r); break;
        case RecordKind::StatementError: failure = RunStatementError(r); break;
        case RecordKind::Query: failure = RunQuery(r); break;
        case RecordKind::Halt:
        case RecordKind::Require: break;
      }
      run_++;
      if (!failure.empty()) {
        failed_++;
        std::cerr << display_ << ":" << r.line << ": FAILED: " << failure << "\n"
                  << "SQL:\n" << Indent(r.sql) << std::endl;
      }
    }
    return failed_;
  }
  int run() const { return run_; }

 private:
  static std::string Oneline(const std::string& sql) {
    std::string s = sql;
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
  }
  static std::string Indent(const std::string& text) {
    std::string r;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) r += "    " + l + "\n";
    return r;
  }

  // Runs `sql`; returns "" or a description of the failure. Only UserError is an error the
  // tests may expect; anything else is an engine bug.
  std::string Execute(const std::string& sql, bool want_error,
                      const std::vector<std::string>& needles, QueryResult* last) {
    try {
      std::vector<QueryResult> results = conn_.ExecuteAll(sql);
      if (want_error) return "statement succeeded, expected an error";
      if (last) {
        if (results.empty()) return "no result";
        *last = std::move(results.back());
      }
      return "";
    } catch (const tessera::UserError& e) {
      if (!want_error) return std::string("unexpected error: ") + e.what();
      const std::string msg = Lower(e.what());
      for (const std::string& needle : needles) {
        if (msg.find(Lower(needle)) == std::string::npos)
          return "error message\n    " + std::string(e.what()) + "\nlacks\n    " + needle;
      }
      return "";
    } catch (const tessera::InternalError& e) {
      return std::string("internal error (a user error was ") +
             (want_error ? "expected" : "not expected") + "): " + e.what();
    } catch (const std::exception& e) {
      return std::string("unexpected exception (not a tessera::UserError): ") + e.what();
    }
  }

  std::string RunStatementOk(const Record& r) { return Execute(r.sql, false, {}, nullptr); }

  std::string RunStatementError(const Record& r) {
    return Execute(r.sql, true, r.expected, nullptr);
  }

  // `gpu:N`: the GPU plan (EXPLAIN (DEVICE gpu), on any machine) puts at least N pipelines
  // on the GPU; where the query ran on the GPU, it did not hand the query back and ran at
  // least N pipelines there.
  std::string CheckPlacement(const Record& r, const QueryResult& result) {
    QueryResult plan;
    std::string failure = Execute("EXPLAIN (DEVICE gpu, FORMAT json) " + r.sql, false, {}, &plan);
    if (!failure.empty()) return "EXPLAIN (DEVICE gpu): " + failure;
    const std::string json = plan.ToStrings().at(0).at(0);
    const std::string key = "\"gpu_pipelines\": ";
    size_t at = json.find(key);
    if (at == std::string::npos) return "EXPLAIN (DEVICE gpu, FORMAT json) without gpu_pipelines: " + json;
    const int planned = std::atoi(json.c_str() + at + key.size());
    if (planned < r.gpu_pipelines)
      return "the GPU plan has " + std::to_string(planned) + " GPU pipelines, the record requires " +
             std::to_string(r.gpu_pipelines) + ":\n    " + json;
    if (gpu_device_) {
      if (!result.note.empty()) return "the query did not stay on the GPU: " + result.note;
      int ran = 0;
      for (const auto& p : result.pipelines) ran += p.device == "gpu";
      if (ran < r.gpu_pipelines)
        return std::to_string(ran) + " pipelines ran on the GPU, the record requires " + std::to_string(r.gpu_pipelines);
    }
    return "";
  }

  std::string RunQuery(const Record& r) {
    QueryResult result;
    std::string failure = Execute(r.sql, false, {}, &result);
    if (!failure.empty()) return failure;
    if (r.gpu_pipelines >= 0) {
      failure = CheckPlacement(r, result);
      if (!failure.empty()) return failure;
    }
    if (!result.has_rows) return "statement returned no result set";
    if (result.names.size() != r.types.size()) {
      return "expected " + std::to_string(r.types.size()) + " columns (" + r.types + "), got " +
             std::to_string(result.names.size()) + " (" + Join(result.names, ", ") + ")";
    }
    std::vector<std::vector<std::string>> actual = result.ToStrings();
    for (auto& row : actual)
      for (auto& v : row)
        if (v.empty()) v = "(empty)";
    std::vector<bool> is_double;
    for (auto& t : result.types) is_double.push_back(t.id == tessera::TypeId::Double);

    std::vector<std::vector<std::string>> expected;
    for (auto& l : r.expected) expected.push_back(SplitTabs(l));

    bool same = true;
    if (r.sort == SortMode::Value) {
      std::vector<std::string> a, e;
      for (auto& row : actual) a.insert(a.end(), row.begin(), row.end());
      for (auto& row : expected) e.insert(e.end(), row.begin(), row.end());
      std::sort(a.begin(), a.end());
      std::sort(e.begin(), e.end());
      same = a == e;
    } else {
      if (r.sort == SortMode::Row) {
        std::sort(actual.begin(), actual.end());
        std::sort(expected.begin(), expected.end());
      }
      same = actual.size() == expected.size();
      for (size_t i = 0; same && i < actual.size(); i++) {
        if (actual[i].size() != expected[i].size()) {
          same = false;
          break;
        }
        for (size_t c = 0; same && c < actual[i].size(); c++) {
          same = actual[i][c] == expected[i][c] ||
                 (is_double[c] && CloseDoubles(actual[i][c], expected[i][c]));
        }
      }
    }
    if (same) return "";
    std::string msg = "wrong result\nexpected (" + std::to_string(expected.size()) + " rows):\n";
    for (auto& row : expected) msg += "    " + Join(row, "\t") + "\n";
    msg += "actual (" + std::to_string(actual.size()) + " rows):\n";
    for (auto& row : actual) msg += "    " + Join(row, "\t") + "\n";
    msg.pop_back();
    return msg;
  }

  std::string display_;
  Database db_;
  Connection conn_;
  bool verbose_;
  bool gpu_device_;  // --device gpu: queries run on the GPU (the GPU run is skipped where there is none)
  int run_ = 0;
  int failed_ = 0;
};

constexpr const char* kUsage =
    "Usage: sqllogictest [--root DIR] [--device cpu|gpu|auto] [--threads N] [--verbose] "
    "FILE...\n"
    "Runs tessera .test files (format: test/sql/README.md), each in a fresh in-memory\n"
    "database. --root: the directory relative paths in the SQL are resolved from (the\n"
    "repository root); FILE paths are taken relative to the starting directory.\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  std::string root;
  tessera::Settings settings;
  bool verbose = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "Error: option " << a << " needs a value\n" << kUsage;
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--root") root = value();
    else if (a == "--device") settings.device = value();
    else if (a == "--threads") settings.threads = (unsigned)std::stoul(value());
    else if (a == "--verbose" || a == "-v") verbose = true;
    else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "Error: unknown option '" << a << "'\n" << kUsage;
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::cerr << "Error: no test files given\n" << kUsage;
    return 2;
  }
  if (settings.device == "gpu") {  // the GPU run of a file is skipped (77) where no GPU exists
    try {
      tessera::gpu::UseGpu("gpu");
    } catch (const std::exception& e) {
      std::cout << "skipped: " << e.what() << "\n";
      return 77;
    }
  }
  // Files are named relative to where we started; SQL paths relative to the root.
  std::vector<std::filesystem::path> paths;
  for (auto& f : files) paths.push_back(std::filesystem::absolute(f));
  if (!root.empty()) {
    std::error_code ec;
    std::filesystem::current_path(root, ec);
    if (ec) {
      std::cerr << "Error: cannot change to --root " << root << ": " << ec.message() << "\n";
      return 2;
    }
  }

  int files_failed = 0, records_passed = 0, records_failed = 0;
  for (size_t f = 0; f < paths.size(); f++) {
    const std::string& display = files[f];
    std::ifstream in(paths[f]);
    if (!in) {
      std::cerr << display << ": cannot open\n";
      files_failed++;
      records_failed++;
      continue;
    }
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::vector<Record> records;
    try {
      records = Parse(lines);
    } catch (const ParseError& e) {
      std::cerr << display << ":" << e.line << ": malformed test file: " << e.msg << "\n";
      files_failed++;
      records_failed++;
      continue;
    }
    if (std::string missing = MissingFeature(records); !missing.empty()) {
      std::cout << display << ": skipped (" << missing << ")" << std::endl;
      continue;
    }
    // __TEST_DIR__ in the SQL names a fresh directory for this file (COPY ... TO writes
    // there), removed afterwards.
    std::string test_dir;
    for (auto& r : records) {
      if (r.sql.find("__TEST_DIR__") == std::string::npos) continue;
      if (test_dir.empty()) {
        std::string tmpl = (std::filesystem::temp_directory_path() / "sqllogictest-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) {
          std::cerr << display << ": cannot make a temporary directory\n";
          return 2;
        }
        test_dir = tmpl;
      }
      for (size_t at; (at = r.sql.find("__TEST_DIR__")) != std::string::npos;)
        r.sql.replace(at, 12, test_dir);
    }
    struct RemoveDir {
      std::string dir;
      ~RemoveDir() {
        std::error_code ec;
        if (!dir.empty()) std::filesystem::remove_all(dir, ec);
      }
    } remove_dir{test_dir};
    int failed = 0, run = 0;
    try {
      FileRunner runner(display, settings, verbose);
      failed = runner.Run(records);
      run = runner.run();
    } catch (const std::exception& e) {
      std::cerr << display << ": cannot run: " << e.what() << "\n";
      failed = run = 1;
    }
    records_passed += run - failed;
    records_failed += failed;
    if (failed) files_failed++;
    std::cout << display << ": " << (run - failed) << " of " << run << " records passed"
              << std::endl;
  }
  std::cout << records_passed << " passed, " << records_failed << " failed"
            << std::endl;
  return files_failed ? 1 : 0;
}
