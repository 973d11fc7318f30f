#include "storage/row_group.hpp"

namespace tessera {

void RowGroupWriter::Reset() {
  builders_.clear();
  for (auto& t : types_) builders_.emplace_back(t);
  rows_ = 0;
}

void RowGroupWriter::Flush() {
  if (rows_ == 0) return;
  auto rg = std::make_shared<RowGroup>();
  rg->count = rows_;
  for (auto& b : builders_) rg->columns.push_back(b.Finish());
  done_.push_back(std::move(rg));
  rows_ = 0;
}

void RowGroupWriter::Append(const DataChunk& chunk) {
  TESSERA_ASSERT(chunk.cols.size() == types_.size(), "row group writer: column count mismatch");
  uint32_t off = 0;
  while (off < chunk.size) {
    uint32_t n = std::min(chunk.size - off, kRowGroupSize - rows_);
    for (size_t c = 0; c < builders_.size(); c++) builders_[c].Append(chunk.cols[c], off, n);
    rows_ += n;
    off += n;
    if (rows_ == kRowGroupSize) Flush();
  }
}

std::vector<std::shared_ptr<const RowGroup>> RowGroupWriter::Finish() {
  Flush();
  return std::move(done_);
}

}  // namespace tessera
