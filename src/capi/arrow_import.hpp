// Arrow C data -> a table's row groups without copying where the layouts agree.
//
// An ArrowTableImporter takes the record batches of an Arrow C stream one at a time and
// turns each into row groups of at most kRowGroupSize rows whose column chunks point into
// the batch's buffers; the batch (its ArrowArray) is released when the last chunk that
// points into it goes. Columns whose Arrow layout differs from tessera's (types.hpp,
// column_chunk.hpp) are converted, column by column:
//
//   Arrow                         tessera            buffers
//   int32, int64, double, date32  INTEGER, BIGINT,   shared (copied when misaligned)
//                                 DOUBLE, DATE
//   decimal128 p > 18             DECIMAL(p,s)       shared (copied when misaligned)
//   utf8 (int32 offsets)          VARCHAR, plain     offsets and bytes shared
//   large_utf8                    VARCHAR, plain     bytes shared, offsets narrowed
//   validity bitmap               validity bitmap    shared when the slice starts at a
//                                                    multiple of 64 rows, is a multiple of
//                                                    64 rows long and 8-byte aligned
//   bool, int8/16, uint8/16/32/64, float, date64, decimal128 p <= 18, utf8_view,
//   dictionary (any index type, values of a supported type): copied into tessera's form.
//
// Statistics (min/max, null count) are computed for every chunk, as scans prune by them.
// Batches shorter than kSmallBatch rows are packed together (copied) into full row groups,
// so a stream of many small batches does not become many tiny row groups.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "capi/tessera.h"
#include "storage/catalog.hpp"
#include "storage/row_group.hpp"

namespace tessera::capi {

class ArrowTableImporter {
 public:
  static constexpr int64_t kSmallBatch = 8192;

  // Plans the columns of `schema` (a struct, "+s"); throws UserError (Unsupported) for a
  // type tessera cannot import. `copy`: copy every buffer (the source may change later).
  // `threads`: how many threads convert a batch (0: the machine's cores).
  ArrowTableImporter(const ArrowSchema& schema, std::string table_name, bool copy, unsigned threads = 0);
  ~ArrowTableImporter();

  // Takes the batch `batch` (moved from: its release is NULL afterwards). Throws
  // UserError (Conversion) for values tessera cannot hold, e.g. a uint64 above INT64_MAX.
  // Needs no Python GIL or other lock; thread-compatible. A batch of several row groups is
  // converted (and its statistics computed) on the machine's cores.
  void AddBatch(ArrowArray* batch);
  // The table's rows; the importer is spent afterwards.
  std::shared_ptr<TableData> Finish();

  const TableSchema& schema() const { return schema_; }
  // Bytes copied so far (converted columns, packed small batches): 0 when every column was
  // shared with the Arrow buffers.
  uint64_t bytes_copied() const { return bytes_copied_; }

  struct Column;  // how one Arrow column is read (arrow_import.cpp)

 private:
  void FlushSmall();
  TableSchema schema_;
  std::vector<std::unique_ptr<Column>> columns_;
  bool copy_;
  unsigned threads_;
  std::vector<std::shared_ptr<const RowGroup>> groups_;
  std::vector<std::shared_ptr<const RowGroup>> small_;  // pending small batches' row groups
  uint64_t small_rows_ = 0;
  uint64_t rows_ = 0;
  uint64_t bytes_copied_ = 0;
};

// Reads the whole stream (taking ownership: it is released before return) into a table
// named `table_name`; fills `schema`. Throws UserError on unsupported types, bad values or
// a failing stream (IO).
std::shared_ptr<TableData> ImportArrowStream(ArrowArrayStream* stream, const std::string& table_name, bool copy,
                                             TableSchema& schema, unsigned threads = 0);

}  // namespace tessera::capi
