// Row groups and table data: fixed-size horizontal slices of a table (Virginian's tablets).
#pragma once
#include <memory>
#include <vector>

#include "storage/column_chunk.hpp"

namespace tessera {

struct RowGroup {
  uint32_t count = 0;
  std::vector<std::shared_ptr<const ColumnChunk>> columns;
  // Identifier of the persisted file holding this row group (empty: not yet persisted).
  std::string file_id;
};

// An immutable snapshot of a table's rows. Writers build a new snapshot and swap it in.
struct TableData {
  std::vector<std::shared_ptr<const RowGroup>> row_groups;
  uint64_t row_count = 0;
};

// Accumulates rows (as DataChunks of the table's column types) into row groups.
class RowGroupWriter {
 public:
  explicit RowGroupWriter(std::vector<Type> types) : types_(std::move(types)) { Reset(); }
  void Append(const DataChunk& chunk);
  // Closes the open row group (if any rows) and returns all row groups built.
  std::vector<std::shared_ptr<const RowGroup>> Finish();

 private:
  void Reset();
  void Flush();
  std::vector<Type> types_;
  std::vector<ColumnChunkBuilder> builders_;
  uint32_t rows_ = 0;
  std::vector<std::shared_ptr<const RowGroup>> done_;
};

}  // namespace tessera
