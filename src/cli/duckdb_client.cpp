#include "cli/duckdb_client.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "common/error.hpp"

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

const char* kNpmLibrary = "test/duckdb/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so";

std::string ExecutableDir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.parent_path().string();
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

std::string DuckDbClient::FindLibrary(const std::string& explicit_path) {
  std::vector<std::string> candidates;
  if (!explicit_path.empty()) {
    candidates.push_back(explicit_path);
  } else if (const char* env = std::getenv("TESSERA_DUCKDB_LIB"); env && *env) {
    candidates.push_back(env);
  } else {
    if (*TESSERA_SOURCE_DIR) candidates.push_back(std::string(TESSERA_SOURCE_DIR) + "/" + kNpmLibrary);
    std::string exe = ExecutableDir();
    if (!exe.empty()) {
      candidates.push_back(exe + "/../" + kNpmLibrary);  // build/tessera in the source tree
      candidates.push_back(exe + "/" + kNpmLibrary);
    }
    candidates.push_back(kNpmLibrary);  // the current directory
  }
  std::string tried;
  for (const std::string& c : candidates) {
    if (std::filesystem::exists(c)) return std::filesystem::weakly_canonical(c).string();
    tried += "\n  " + c;
  }
  throw UserError(ErrorKind::IO,
                  "libduckdb.so not found; tried:" + tried +
                      "\nGive it with --duckdb-lib PATH or TESSERA_DUCKDB_LIB, or install the npm package: "
                      "npm ci --prefix test/duckdb");
}

DuckDbClient::DuckDbClient(const std::string& library, unsigned threads) : api_(std::make_unique<Api>()) {
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
