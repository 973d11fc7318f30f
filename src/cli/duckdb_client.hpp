// DuckDB as the reference of `tessera bench --compare duckdb`, driven through its C API,
// loaded with dlopen at run time (no header, no link dependency; the few entry points are
// declared in duckdb_client.cpp after DuckDB's documented C API). The library is
// --duckdb-lib or $TESSERA_DUCKDB_LIB (a libduckdb.so), else the extension module of the
// PyPI package `duckdb` (pinned in test/requirements.txt), which exports the same C API:
// the interpreter ($TESSERA_PYTHON, else .venv/bin/python of the source tree, else
// python3) says where the module and its libpython are; libpython is loaded first so the
// module's Python symbols resolve. No Python code runs in tessera's process.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace tessera::cli {

// A library exporting DuckDB's C API, and the libpython to load before it ("" if none).
struct DuckDbLibrary {
  std::string path;
  std::string python_library;
};

class DuckDbClient {
 public:
  // The library to load: `explicit_path` if given, else $TESSERA_DUCKDB_LIB, else the
  // Python package's module (see above). Throws UserError listing every place tried when
  // none is found.
  static DuckDbLibrary FindLibrary(const std::string& explicit_path);
  // Loads the library and opens an in-memory database limited to `threads` threads.
  DuckDbClient(const DuckDbLibrary& library, unsigned threads);
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
