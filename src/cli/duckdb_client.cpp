#include "cli/duckdb_client.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "common/error.hpp"
#include "common/lines.hpp"

#ifndef TESSERA_SOURCE_DIR
#define TESSERA_SOURCE_DIR ""
#endif

namespace tessera::cli {

namespace {
// DuckDB's C API types (duckdb.h, stable since 1.0): handles are pointers to structs holding
// one pointer; duckdb_result is six words the library fills (the trailing padding is ours).
using idx_t = uint64_t;
struct duckdb_result {
  idx_t deprecated_column_count;
  idx_t deprecated_row_count;
  idx_t deprecated_rows_changed;
  void* deprecated_columns;
  char* deprecated_error_message;
  void* internal_data;
  char reserved[64];
};
using duckdb_database = void*;
using duckdb_connection = void*;
constexpr int DuckDBSuccess = 0;

// Asks a Python interpreter where its `duckdb` package (PyPI) keeps its extension module,
// whose shared object exports DuckDB's whole C API, and which libpython that module's
// Python symbols resolve against (the module is linked against none). Prints two lines.
const char* kLocateScript =
    "import importlib.util, os, sysconfig\n"
    "spec = importlib.util.find_spec('_duckdb') or importlib.util.find_spec('duckdb.duckdb')\n"
    "print(spec.origin if spec else '')\n"
    "d = sysconfig.get_config_var('LIBDIR')\n"
    "n = sysconfig.get_config_var('INSTSONAME') or sysconfig.get_config_var('LDLIBRARY')\n"
    "print(os.path.join(d, n) if d and n and sysconfig.get_config_var('Py_ENABLE_SHARED') else '')\n";

std::string ExecutableDir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.parent_path().string();
}

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `python -c kLocateScript`; returns its output lines (none when it failed).
std::vector<std::string> AskPython(const std::string& python) {
  std::string cmd = ShellQuote(python) + " -c " + ShellQuote(kLocateScript) + " 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  if (pclose(f) != 0) return {};
  return SplitLines(out);
}
}  // namespace

struct DuckDbClient::Api {
  void* handle = nullptr;
  int (*open)(const char*, duckdb_database*) = nullptr;
  void (*close)(duckdb_database*) = nullptr;
  int (*connect)(duckdb_database, duckdb_connection*) = nullptr;
  void (*disconnect)(duckdb_connection*) = nullptr;
  int (*query)(duckdb_connection, const char*, duckdb_result*) = nullptr;
  void (*destroy_result)(duckdb_result*) = nullptr;
  const char* (*result_error)(duckdb_result*) = nullptr;
  idx_t (*row_count)(duckdb_result*) = nullptr;
  idx_t (*column_count)(duckdb_result*) = nullptr;
  char* (*value_varchar)(duckdb_result*, idx_t, idx_t) = nullptr;
  void (*free_)(void*) = nullptr;
  const char* (*library_version)() = nullptr;
};

DuckDbLibrary DuckDbClient::FindLibrary(const std::string& explicit_path) {
  std::string given = explicit_path;
  if (given.empty())
    if (const char* env = std::getenv("TESSERA_DUCKDB_LIB"); env && *env) given = env;
  if (!given.empty()) {
    if (!std::filesystem::exists(given)) throw UserError(ErrorKind::IO, "DuckDB library " + given + " does not exist");
    return {std::filesystem::weakly_canonical(given).string(), ""};
  }
  std::vector<std::string> pythons;
  if (const char* env = std::getenv("TESSERA_PYTHON"); env && *env) {
    pythons.push_back(env);
  } else {
    if (*TESSERA_SOURCE_DIR) pythons.push_back(std::string(TESSERA_SOURCE_DIR) + "/.venv/bin/python");
    std::string exe = ExecutableDir();
    if (!exe.empty()) pythons.push_back(exe + "/../.venv/bin/python");  // build/tessera in the source tree
    pythons.push_back(".venv/bin/python");
    pythons.push_back("python3");
  }
  std::string tried;
  for (const std::string& py : pythons) {
    if (py.find('/') != std::string::npos && !std::filesystem::exists(py)) {
      tried += "\n  " + py + " (no such interpreter)";
      continue;
    }
    std::vector<std::string> lines = AskPython(py);
    if (lines.size() >= 2 && !lines[0].empty() && std::filesystem::exists(lines[0])) {
      if (lines[1].empty() || !std::filesystem::exists(lines[1])) {
        tried += "\n  " + py + " (has duckdb, but no shared libpython for its module to resolve against)";
        continue;
      }
      return {lines[0], lines[1]};
    }
    tried += "\n  " + py + " (no duckdb package)";
  }
  throw UserError(ErrorKind::IO,
                  "DuckDB not found; looked for the Python package duckdb through:" + tried +
                      "\nInstall it (./test/run_all.sh installs test/requirements.txt into .venv), name the "
                      "interpreter with TESSERA_PYTHON, or give a libduckdb.so with --duckdb-lib PATH or "
                      "TESSERA_DUCKDB_LIB");
}

DuckDbClient::DuckDbClient(const DuckDbLibrary& lib, unsigned threads) : api_(std::make_unique<Api>()) {
  const std::string& library = lib.path;
  // The Python module's own symbols (Py*) resolve against libpython, loaded first and
  // globally; DuckDB's C API never calls into Python, so no interpreter is started.
  if (!lib.python_library.empty() && !dlopen(lib.python_library.c_str(), RTLD_NOW | RTLD_GLOBAL))
    throw UserError(ErrorKind::IO, "cannot load " + lib.python_library + ": " + dlerror());
  api_->handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api_->handle) throw UserError(ErrorKind::IO, std::string("cannot load ") + library + ": " + dlerror());
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api_->handle, name));
    if (!fn) throw UserError(ErrorKind::IO, library + " lacks the C API function " + name + " (not libduckdb?)");
  };
  sym(api_->open, "duckdb_open");
  sym(api_->close, "duckdb_close");
  sym(api_->connect, "duckdb_connect");
  sym(api_->disconnect, "duckdb_disconnect");
  sym(api_->query, "duckdb_query");
  sym(api_->destroy_result, "duckdb_destroy_result");
  sym(api_->result_error, "duckdb_result_error");
  sym(api_->row_count, "duckdb_row_count");
  sym(api_->column_count, "duckdb_column_count");
  sym(api_->value_varchar, "duckdb_value_varchar");
  sym(api_->free_, "duckdb_free");
  sym(api_->library_version, "duckdb_library_version");
  if (api_->open(nullptr, &db_) != DuckDBSuccess) throw UserError(ErrorKind::IO, "duckdb_open failed (in-memory database)");
  if (api_->connect(db_, &conn_) != DuckDBSuccess) throw UserError(ErrorKind::IO, "duckdb_connect failed");
  if (threads) Query("SET threads = " + std::to_string(threads), false);
}

DuckDbClient::~DuckDbClient() {
  if (conn_) api_->disconnect(&conn_);
  if (db_) api_->close(&db_);
  // The library stays loaded: DuckDB's own threads and static destructors may still run.
}

std::string DuckDbClient::Version() const { return api_->library_version(); }

DuckDbClient::Result DuckDbClient::Query(const std::string& sql, bool fetch) {
  duckdb_result res{};
  int st = api_->query(conn_, sql.c_str(), &res);
  struct Guard {
    Api* api;
    duckdb_result* r;
    ~Guard() { api->destroy_result(r); }
  } guard{api_.get(), &res};
  if (st != DuckDBSuccess) {
    const char* e = api_->result_error(&res);
    throw UserError(ErrorKind::Input, std::string("DuckDB: ") + (e ? e : "query failed"));
  }
  Result out;
  out.rows = api_->row_count(&res);
  if (!fetch) return out;
  idx_t cols = api_->column_count(&res);
  out.cells.resize(out.rows);
  for (idx_t r = 0; r < out.rows; r++) {
    out.cells[r].resize(cols);
    for (idx_t c = 0; c < cols; c++) {
      char* v = api_->value_varchar(&res, c, r);
      out.cells[r][c] = v ? v : "NULL";
      if (v) api_->free_(v);
    }
  }
  return out;
}

bool SameCell(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char *ea = nullptr, *eb = nullptr;
  double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  if (a.empty() || b.empty() || *ea || *eb) return false;
  return std::fabs(x - y) <= 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)});
}

std::string CompareRows(std::vector<std::vector<std::string>> a, std::vector<std::vector<std::string>> b) {
  if (a.size() != b.size()) return std::to_string(a.size()) + " rows vs " + std::to_string(b.size());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  for (size_t r = 0; r < a.size(); r++) {
    bool same = a[r].size() == b[r].size();
    for (size_t c = 0; same && c < a[r].size(); c++) same = SameCell(a[r][c], b[r][c]);
    if (!same) {
      std::string ra, rb;
      for (auto& s : a[r]) ra += (ra.empty() ? "" : "|") + s;
      for (auto& s : b[r]) rb += (rb.empty() ? "" : "|") + s;
      return "row " + std::to_string(r + 1) + " (sorted): " + ra + " vs " + rb;
    }
  }
  return "";
}

}  // namespace tessera::cli
