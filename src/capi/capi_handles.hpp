// The structs behind the C API's opaque handles (tessera.h), and helpers shared by the
// capi_*.cpp files. Nothing here is visible outside the library.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "main/sql_parameters.hpp"
#include "capi/tessera.h"
#include "common/value.hpp"
#include "main/database.hpp"

namespace tessera::capi {
class ResultStream;
class StreamSlot;
}  // namespace tessera::capi

struct tessera_config_s {
  tessera::Settings settings;
};

struct tessera_database_s {
  std::shared_ptr<tessera::Database> db;
};

struct tessera_connection_s {
  std::shared_ptr<tessera::Database> db;  // keeps the database alive after tessera_close
  std::shared_ptr<tessera::Connection> conn;  // shared with prepared statements
  std::shared_ptr<tessera::capi::StreamSlot> streams;  // its stream thread and open stream (shared too)
};

// A statement's error: message, kind and byte offset into the SQL the caller gave (-1: none).
struct CapiError {
  bool failed = false;
  std::string message;
  tessera_error_type type = TESSERA_ERROR_NONE;
  int64_t offset = -1;
};

struct tessera_result_s {
  std::shared_ptr<const tessera::QueryResult> data;  // shared with Arrow streams
  std::vector<uint64_t> chunk_starts;                // first row of each chunk of `data`
  size_t next_chunk = 0;                             // tessera_fetch_chunk's position
  CapiError error;
  unsigned threads = 0;  // the database's thread count (the Arrow export's); 0: the machine's
  // A streamed result (tessera_query_stream): its rows come from `stream` (result_stream.hpp)
  // instead of `data`'s chunks (none); `data` holds the header (names, types, message).
  // The stream is closed when the handle and the Arrow streams sharing it are gone.
  std::shared_ptr<tessera::capi::ResultStream> stream;
  bool streamed = false;  // rows come from `stream`
  ~tessera_result_s();
};

// One chunk handed out by tessera_fetch_chunk: typed column arrays (strings converted to
// tessera_string) and byte validity, copied from a result chunk.
struct tessera_chunk_s {
  uint64_t rows = 0;
  std::vector<std::vector<uint8_t>> data;      // per column; empty for NULL-typed columns
  std::vector<std::vector<uint8_t>> validity;  // per column; empty when all rows are valid
  tessera::DataChunk owner;  // a streamed chunk: owns the strings the tessera_strings point to
};

struct tessera_prepared_s {
  std::shared_ptr<tessera::Database> db;  // the connection's, kept alive by the statement
  std::shared_ptr<tessera::Connection> conn;
  std::string sql;
  tessera::Placeholders placeholders;
  std::vector<bool> bound;
  std::vector<std::string> literals;  // the SQL literal each bound parameter becomes
  std::shared_ptr<tessera::capi::StreamSlot> streams;  // the connection's
  CapiError error;
};

namespace tessera::capi {

// Fills `error` from the exception being handled (call inside a catch block); the position
// of a UserError becomes a byte offset into `sql`, or, with `sub` (the parameters written
// into `original`), into `original`.
void CaptureError(CapiError& error, std::string_view sql, const Substitution* sub = nullptr,
                  std::string_view original = {});
// A result handle for `r`, or for an error.
tessera_result_s* MakeResult(QueryResult r);
tessera_result_s* MakeErrorResult(CapiError error);
tessera_state StateOf(const CapiError& error);
// The state of result `h`; gives `h` to the caller through `out` (or frees it when out is NULL).
tessera_state HandOver(tessera_result_s* h, tessera_result_s** out);
// The error for a run of `p` with a parameter left unbound (failed: false when all are bound).
CapiError MissingBinding(const tessera_prepared_s& p);
// malloc'd NUL-terminated copy (for tessera_free).
char* CopyString(const std::string& s);

}  // namespace tessera::capi
