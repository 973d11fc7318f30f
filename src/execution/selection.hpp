// Selected chunks (DataChunk::sel): a filter or a join probe hands on its input's vectors
// with the selection of the rows it keeps instead of copying every column's rows, and a
// projection hands its plain columns on with theirs; the hash aggregate reads its keys and
// arguments through them. The rows are gathered once, where an operator or sink that does
// not take a selection needs them dense (the pipeline flattens the chunk before it:
// pipeline.cpp), or where an expression is evaluated over them (DenseColumns).
//
// One gather (GatherVector) and one composition (SelectRows) serve every operator.
#pragma once
#include <cstdint>
#include <cstddef>
#include <vector>

#include "common/vector.hpp"
#include "planner/bound_expr.hpp"

namespace tessera {

// The one gather: dst (re-initialised to src's type) gets rows rows[0..n) of src (rows
// [0, n) when rows is null), with their validity, string ownership and, where src is in
// dictionary form, their dictionary codes.
void GatherVector(const Vector& src, const uint32_t* rows, uint32_t n, Vector& dst);
// The chunk's rows idx[0..n) of column c (through its selection) into dst, as GatherVector.
void GatherColumn(const DataChunk& in, size_t c, const uint32_t* idx, uint32_t n, Vector& dst);

// Selections reused by one operator on one thread (a pool in its local state) instead of
// one allocated per chunk. Take(n) hands out a selection of n rows (contents unspecified)
// that no chunk refers to: one the pool made earlier that only the pool holds now (every
// chunk that was given it has dropped it), else a new one. A chunk shares ownership of its
// selections, so one kept downstream however long (a hash join's build sink keeps its
// chunks until Finalize) is never refilled under it: the pool passes it by (and, once
// full, forgets it for a fresh one). The pool lives as long as the operator's local state
// (one pipeline run); what chunks still hold outlives it.
class SelPool {
 public:
  std::shared_ptr<SelVec> Take(uint32_t n);

 private:
  static constexpr size_t kMax = 8;  // an operator's chunk in flight holds one to three
  std::vector<std::shared_ptr<SelVec>> sels_;
  size_t next_ = 0;  // the entry a full pool replaces next
};

// The one composition: the chunk's rows become its rows idx[0..n) (repeats allowed): each
// column's selection is composed with idx (once per distinct selection: columns that
// shared one share the result), a dense column gets idx itself. No values are copied. The
// selections come from `pool` (reused) or are allocated when it is null.
void SelectRows(DataChunk& chunk, const uint32_t* idx, uint32_t n, SelPool* pool = nullptr);

// Gathers every selected column (or those `only` marks) in place; the chunk is then dense
// (in those columns).
void FlattenChunk(DataChunk& chunk, const std::vector<uint8_t>* only = nullptr);

// Per column of a chunk of `ncols` columns, whether `e` reads it (a column reference it
// cannot place marks them all). OrColumnsRead marks them in `reads` (sized to the chunk).
std::vector<uint8_t> ColumnsRead(const BoundExpr& e, size_t ncols);
void OrColumnsRead(const BoundExpr& e, std::vector<uint8_t>& reads);

// The columns an operator's fixed expressions read, worked out at its first selected chunk
// of a width (`mark` fills the zeroed mask, with OrColumnsRead and any columns of its
// own) and kept: one per operator and thread (in its local state), so later chunks walk
// no expression.
class ColumnsReadCache {
 public:
  template <class Mark>
  const std::vector<uint8_t>& Get(size_t ncols, Mark&& mark) {
    if (ncols != ncols_) {
      reads_.assign(ncols, 0);
      mark(reads_);
      ncols_ = ncols;
    }
    return reads_;
  }

 private:
  std::vector<uint8_t> reads_;
  size_t ncols_ = SIZE_MAX;
};
// Whether any column `cols` marks is selected (else expressions reading only those
// columns are evaluated over the chunk as it is).
bool ReadsSelected(const DataChunk& in, const std::vector<uint8_t>& cols);
// A dense chunk holding the rows of the columns `cols` marks (the others empty), for
// evaluating expressions over a selected chunk; dense columns are copied.
DataChunk DenseColumns(const DataChunk& in, const std::vector<uint8_t>& cols);
// The value of `e` over a possibly selected chunk without copying where it can (as
// EvaluateOperand): a dense column reference is the chunk's vector, a selected one is
// gathered into `scratch`, anything else is evaluated over the columns it reads.
const Vector& EvaluateSelected(const BoundExpr& e, const DataChunk& in, Vector& scratch);

}  // namespace tessera
