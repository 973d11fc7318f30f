// Result rows as Arrow C data (the export side of capi_arrow.cpp): the schema of a
// result, and record batches built by appending the result's chunks in order, each
// column's values written once, straight into its 64-byte aligned Arrow buffers.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "capi/tessera.h"
#include "common/vector.hpp"

namespace tessera::capi {

// Rows per record batch at most (DuckDB's default Arrow batch size).
constexpr uint64_t kArrowBatchRows = 1u << 20;

// A struct schema ("+s") with one nullable child per column.
void ExportArrowSchema(const std::vector<std::string>& names, const std::vector<Type>& types, ArrowSchema* out);

// One record batch (a struct array) of up to `capacity` rows, filled chunk by chunk. The
// buffers are allocated for `capacity` rows up front and not cleared (pages never written
// are never touched). With `share` (one chunk only), the fixed-width columns of that chunk
// are not copied: the arrays point into it and keep `share` alive.
class ArrowBatchBuilder {
 public:
  ArrowBatchBuilder(const std::vector<Type>& types, uint64_t capacity, std::shared_ptr<const void> share = nullptr);
  ~ArrowBatchBuilder();
  ArrowBatchBuilder(const ArrowBatchBuilder&) = delete;
  ArrowBatchBuilder& operator=(const ArrowBatchBuilder&) = delete;
  // Whether `c`'s strings still fit (a column's within 2 GiB); throws when `c` alone has
  // too many. Always true for an empty batch.
  bool FitsStrings(const DataChunk& c) const;
  // Writes `c`'s rows after those appended so far (call only when they fit: rows within
  // the capacity, FitsStrings).
  void Append(const DataChunk& c);
  uint64_t rows() const { return rows_; }
  // Hands the batch to `out` (the builder is empty afterwards).
  void Finish(ArrowArray* out);

 private:
  struct Column;
  std::vector<Type> types_;
  uint64_t capacity_ = 0, rows_ = 0;
  std::shared_ptr<const void> share_;
  std::vector<std::unique_ptr<Column>> cols_;
};

// The rows of `result` as an Arrow C stream (tessera_result_arrow_stream) of batches of up
// to `batch_rows` rows: a collected result's from its chunks, a streamed one's as they
// come (then `head`, if not null and not empty, goes first: the rest of a chunk the caller
// fetched in part; `poll` is called while the stream waits for rows: ResultStream::Next).
tessera_state ExportArrowStream(tessera_result_s* result, DataChunk* head, ArrowArrayStream* out_stream,
                                uint64_t batch_rows = kArrowBatchRows, std::function<void()> poll = nullptr);

}  // namespace tessera::capi
