// DuckDB as the reference of `tessera bench --compare duckdb`, driven through its C API in
// libduckdb.so, loaded with dlopen at run time (no header, no link dependency; the few
// entry points are declared in duckdb_client.cpp after DuckDB's documented C API). The
// library comes from --duckdb-lib, $TESSERA_DUCKDB_LIB, or the npm package the tests
// install (test/duckdb/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so).
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace tessera::cli {

class DuckDbClient {
 public:
  // The library to load: `explicit_path` if given, else $TESSERA_DUCKDB_LIB, else the npm
  // package under the source tree or beside the binary. Throws UserError listing every
  // place tried when none exists.
  static std::string FindLibrary(const std::string& explicit_path);
  // Loads the library and opens an in-memory database limited to `threads` threads.
  DuckDbClient(const std::string& library, unsigned threads);
  ~DuckDbClient();
  DuckDbClient(const DuckDbClient&) = delete;
  DuckDbClient& operator=(const DuckDbClient&) = delete;

  std::string Version() const;
  // Runs one statement; throws UserError with DuckDB's message when it fails. With `fetch`,
  // returns every cell as text ("NULL" for nulls), else only the row count.
  struct Result {
    uint64_t rows = 0;
    std::vector<std::vector<std::string>> cells;
  };
  Result Query(const std::string& sql, bool fetch = true);

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  void* db_ = nullptr;
  void* conn_ = nullptr;
};

// True when two result cells are the same value: equal text, or numbers equal to 1e-9
// relative (DuckDB prints doubles with a different number of digits).
bool SameCell(const std::string& a, const std::string& b);
// Compares two results as sorted lists of rows; "" when equal, else the first difference.
std::string CompareRows(std::vector<std::vector<std::string>> a, std::vector<std::vector<std::string>> b);

}  // namespace tessera::cli
