#include "execution/selection.hpp"

#include <algorithm>
#include <atomic>
#include <functional>

#include "execution/expression_executor.hpp"

namespace tessera {

void GatherVector(const Vector& src, const uint32_t* rows, uint32_t n, Vector& dst) {
  dst.Init(src.type(), std::max<uint32_t>(n, 1));
  CopyRows(src, rows, n, dst, 0);
  if (src.has_dict() && src.type().physical() == PhysType::Str) {
    const uint32_t* from = src.dict_codes();
    uint32_t* codes = dst.DictCodesBuffer();
    if (rows)
      for (uint32_t i = 0; i < n; i++) codes[i] = from[rows[i]];
    else
      std::copy(from, from + n, codes);
    dst.SetDict(src.dict(), src.dict_owner(), nullptr);
  }
}

void GatherColumn(const DataChunk& in, size_t c, const uint32_t* idx, uint32_t n, Vector& dst) {
  const uint32_t* s = in.ColumnSel(c);
  if (!s || !idx) return GatherVector(in.cols[c], idx ? idx : s, n, dst);
  std::vector<uint32_t> rows(n);
  for (uint32_t i = 0; i < n; i++) rows[i] = s[idx[i]];
  GatherVector(in.cols[c], rows.data(), n, dst);
}

std::shared_ptr<SelVec> SelPool::Take(uint32_t n) {
  for (auto& s : sels_) {
    if (s.use_count() != 1) continue;  // a chunk still holds it
    // The last other holder dropped it (on this thread, or a sink's on another before this
    // pipeline's workers started): its reads happen before the refill.
    std::atomic_thread_fence(std::memory_order_acquire);
    s->resize(n);
    return s;
  }
  auto s = std::make_shared<SelVec>(n);
  if (sels_.size() < kMax) {
    sels_.push_back(s);
  } else {  // all held downstream: their holders keep them, the pool keeps the new one
    sels_[next_] = s;
    next_ = (next_ + 1) % kMax;
  }
  return s;
}

void SelectRows(DataChunk& chunk, const uint32_t* idx, uint32_t n, SelPool* pool) {
  chunk.sel.resize(chunk.cols.size());
  // Selections seen (old) and what they became (new): a chunk has one or a few.
  constexpr size_t kFew = 8;
  std::pair<const SelVec*, SelPtr> few[kFew];
  std::vector<std::pair<const SelVec*, SelPtr>> more;
  size_t ndone = 0;
  for (SelPtr& s : chunk.sel) {
    const SelVec* old = s.get();
    SelPtr made;
    for (size_t d = 0; d < ndone && !made; d++) {
      const auto& [o, m] = d < kFew ? few[d] : more[d - kFew];
      if (o == old) made = m;
    }
    if (!made) {
      std::shared_ptr<SelVec> v = pool ? pool->Take(n) : std::make_shared<SelVec>(n);
      uint32_t* to = v->data();
      if (old)
        for (uint32_t i = 0; i < n; i++) to[i] = (*old)[idx[i]];
      else
        std::copy(idx, idx + n, to);
      made = std::move(v);
      if (ndone < kFew) few[ndone] = {old, made};
      else more.emplace_back(old, made);
      ndone++;
    }
    s = std::move(made);
  }
  chunk.size = n;
}

void FlattenChunk(DataChunk& chunk, const std::vector<uint8_t>* only) {
  for (size_t c = 0; c < chunk.sel.size(); c++) {
    if (!chunk.sel[c] || (only && (c >= only->size() || !(*only)[c]))) continue;
    Vector v;
    GatherVector(chunk.cols[c], chunk.sel[c]->data(), chunk.size, v);
    chunk.cols[c] = std::move(v);
    chunk.sel[c].reset();
  }
  if (!chunk.HasSelection()) chunk.sel.clear();
}

void OrColumnsRead(const BoundExpr& e, std::vector<uint8_t>& reads) {
  if (e.kind == BExpr::Column) {
    if (e.index >= 0 && (size_t)e.index < reads.size()) reads[e.index] = 1;
    else std::fill(reads.begin(), reads.end(), 1);
  }
  for (const auto& c : e.children)
    if (c) OrColumnsRead(*c, reads);
}

std::vector<uint8_t> ColumnsRead(const BoundExpr& e, size_t ncols) {
  std::vector<uint8_t> reads(ncols, 0);
  OrColumnsRead(e, reads);
  return reads;
}

bool ReadsSelected(const DataChunk& in, const std::vector<uint8_t>& cols) {
  for (size_t c = 0; c < cols.size() && c < in.sel.size(); c++)
    if (cols[c] && in.sel[c]) return true;
  return false;
}

DataChunk DenseColumns(const DataChunk& in, const std::vector<uint8_t>& cols) {
  DataChunk d;
  d.cols.resize(in.cols.size());
  for (size_t c = 0; c < in.cols.size(); c++)
    if (c < cols.size() && cols[c]) GatherVector(in.cols[c], in.ColumnSel(c), in.size, d.cols[c]);
  d.size = in.size;
  d.batch = in.batch;
  return d;
}

const Vector& EvaluateSelected(const BoundExpr& e, const DataChunk& in, Vector& scratch) {
  if (!in.HasSelection()) return EvaluateOperand(e, in, scratch);
  if (e.kind == BExpr::Column && e.index >= 0 && (size_t)e.index < in.cols.size() &&
      in.cols[e.index].type() == e.type) {
    const uint32_t* s = in.ColumnSel((size_t)e.index);
    if (!s) return in.cols[e.index];
    GatherVector(in.cols[e.index], s, in.size, scratch);
    return scratch;
  }
  const std::vector<uint8_t> reads = ColumnsRead(e, in.cols.size());
  if (!ReadsSelected(in, reads)) return EvaluateOperand(e, in, scratch);
  DataChunk d = DenseColumns(in, reads);
  Evaluate(e, d, scratch);
  return scratch;
}

}  // namespace tessera
