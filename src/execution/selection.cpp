#include "execution/selection.hpp"

#include <algorithm>
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

void SelectRows(DataChunk& chunk, const uint32_t* idx, uint32_t n) {
  chunk.sel.resize(chunk.cols.size());
  // Selections seen (old) and what they became (new): a chunk has one or a few.
  std::vector<std::pair<const SelVec*, SelPtr>> done;
  for (SelPtr& s : chunk.sel) {
    const SelVec* old = s.get();
    SelPtr made;
    for (auto& [o, m] : done)
      if (o == old) made = m;
    if (!made) {
      auto v = std::make_shared<SelVec>(n);
      if (old)
        for (uint32_t i = 0; i < n; i++) (*v)[i] = (*old)[idx[i]];
      else
        std::copy(idx, idx + n, v->begin());
      made = std::move(v);
      done.emplace_back(old, made);
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
