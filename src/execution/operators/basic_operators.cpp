#include "execution/operators/basic_operators.hpp"

#include <algorithm>
#include <cmath>

#include "common/decimal.hpp"
#include "common/interrupt.hpp"
#include "execution/expression_executor.hpp"
#include "execution/selection.hpp"

namespace tessera {

bool NextChunkFromList(ChunkList& list, GlobalSourceState& gs, DataChunk& out) {
  auto& s = static_cast<ChunkListSourceState&>(gs);
  std::lock_guard<std::mutex> g(s.mu);
  while (s.next < list.chunks.size()) {
    DataChunk& c = list.chunks[s.next++];
    if (c.size == 0) continue;
    out = std::move(c);
    out.batch = s.next - 1;  // the list's order is the source's order
    return true;
  }
  return false;
}

void SliceChunk(const DataChunk& in, const uint32_t* sel, uint32_t n, DataChunk& out) {
  out.cols.resize(in.cols.size());
  for (size_t c = 0; c < in.cols.size(); c++) {
    out.cols[c].Init(in.cols[c].type(), std::max<uint32_t>(n, 1));
    CopyRows(in.cols[c], sel, n, out.cols[c], 0);
  }
  out.size = n;
}

struct DummyState : GlobalSourceState {
  std::atomic<bool> done{false};
};
std::unique_ptr<GlobalSourceState> PhysicalDummy::InitSource() { return std::make_unique<DummyState>(); }
bool PhysicalDummy::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  if (static_cast<DummyState&>(gs).done.exchange(true)) return false;
  out.cols.clear();
  out.size = 1;
  return true;
}

namespace {
// A filter's thread: the columns its predicate reads (selection.hpp), the passing rows and
// the selections it hands on (reused).
struct FilterLocal : LocalState {
  ColumnsReadCache reads;
  std::vector<uint32_t> passing;
  SelPool pool;
};
}  // namespace

std::unique_ptr<LocalState> PhysicalFilter::InitLocalOperator() { return std::make_unique<FilterLocal>(); }

// The passing rows become a selection over the input's vectors (composed with the one it
// came with); over a selected input, the predicate's columns are gathered where one is
// selected. Over a dense input the passing rows are written straight into the selection
// handed on.
void PhysicalFilter::Execute(DataChunk& in, DataChunk& out, LocalState& ls) {
  auto& l = static_cast<FilterLocal&>(ls);
  if (!in.HasSelection()) {
    std::shared_ptr<SelVec> sel = l.pool.Take(0);
    const uint32_t n = EvaluateFilter(*predicate, in, *sel);
    out = std::move(in);
    if (n == out.size) return;
    sel->resize(n);
    out.sel.assign(out.cols.size(), sel);
    out.size = n;
    return;
  }
  const std::vector<uint8_t>& reads =
      l.reads.Get(in.cols.size(), [&](std::vector<uint8_t>& m) { OrColumnsRead(*predicate, m); });
  uint32_t n;
  if (ReadsSelected(in, reads)) n = EvaluateFilter(*predicate, DenseColumns(in, reads), l.passing);
  else n = EvaluateFilter(*predicate, in, l.passing);
  out = std::move(in);
  if (n != out.size) SelectRows(out, l.passing.data(), n, &l.pool);
}

std::string PhysicalProjection::Details() const {
  std::string s;
  for (size_t i = 0; i < exprs.size(); i++) s += (i ? ", " : "") + exprs[i]->ToString();
  return s;
}

namespace {
// A projection's thread: per output, the input column a plain column reference takes
// (worked out at the first chunk of a width), and the columns the other expressions read.
struct ProjectionLocal : LocalState {
  size_t ncols = SIZE_MAX;
  // Per output: the input column it takes (the first reference to that column), or
  // kComputed / kRepeat (a column taken by an earlier output: gathered).
  static constexpr int64_t kComputed = -1, kRepeat = -2;
  std::vector<int64_t> take;
  std::vector<int64_t> repeat_of;  // kRepeat: the column
  bool computed = false;  // some output is not a plain column reference
  ColumnsReadCache reads;
};
}  // namespace

std::unique_ptr<LocalState> PhysicalProjection::InitLocalOperator() { return std::make_unique<ProjectionLocal>(); }

// A plain column reference takes the input's vector itself (moved, no copy) with its
// selection, which goes on with it; a column referenced twice is gathered for the later
// references. The other expressions are evaluated first, over the chunk's rows only: over
// a selected chunk, the columns they read are gathered once.
void PhysicalProjection::Execute(DataChunk& in, DataChunk& out, LocalState& ls) {
  auto& l = static_cast<ProjectionLocal&>(ls);
  const size_t nc = in.cols.size();
  if (l.ncols != nc) {  // the plan of outputs (fixed for the chunks of a width)
    l.ncols = nc;
    l.take.assign(exprs.size(), ProjectionLocal::kComputed);
    l.repeat_of.assign(exprs.size(), -1);
    l.computed = false;
    std::vector<uint8_t> taken(nc, 0);
    for (size_t i = 0; i < exprs.size(); i++) {
      const BoundExpr& e = *exprs[i];
      if (!(e.kind == BExpr::Column && e.index >= 0 && (size_t)e.index < nc && in.cols[e.index].type() == e.type)) {
        l.computed = true;
        continue;
      }
      if (taken[e.index]) {
        l.take[i] = ProjectionLocal::kRepeat;
        l.repeat_of[i] = e.index;
      } else {
        l.take[i] = e.index;
        taken[e.index] = 1;
      }
    }
  }
  DataChunk r;
  r.cols.resize(exprs.size());
  const bool selected = in.HasSelection();
  if (l.computed) {
    const DataChunk* src = &in;
    DataChunk dense;
    if (selected) {
      const std::vector<uint8_t>& reads = l.reads.Get(nc, [&](std::vector<uint8_t>& m) {
        for (size_t i = 0; i < exprs.size(); i++)
          if (l.take[i] == ProjectionLocal::kComputed) OrColumnsRead(*exprs[i], m);
      });
      if (ReadsSelected(in, reads)) {
        dense = DenseColumns(in, reads);
        src = &dense;
      }
    }
    for (size_t i = 0; i < exprs.size(); i++)
      if (l.take[i] == ProjectionLocal::kComputed) Evaluate(*exprs[i], *src, r.cols[i]);
  }
  for (size_t i = 0; i < exprs.size(); i++)  // before the column is taken
    if (l.take[i] == ProjectionLocal::kRepeat) GatherColumn(in, (size_t)l.repeat_of[i], nullptr, in.size, r.cols[i]);
  for (size_t i = 0; i < exprs.size(); i++) {
    if (l.take[i] < 0) continue;
    const size_t c = (size_t)l.take[i];
    r.cols[i] = std::move(in.cols[c]);
    if (in.ColumnSel(c)) {
      r.sel.resize(exprs.size());
      r.sel[i] = in.sel[c];
    }
  }
  r.size = in.size;
  out = std::move(r);
}

std::string PhysicalLimit::Details() const {
  return (percent >= 0 ? FormatDouble(percent) + "%" : std::to_string(limit)) + (offset ? " OFFSET " + std::to_string(offset) : "");
}

// The first offset + limit rows in the source's order (DataChunk::batch): chunks are kept
// ordered by batch and those past the first offset + limit rows dropped as they arrive,
// so what is held stays near offset + limit rows.
void PhysicalLimit::Sink(DataChunk& in, LocalState&) {
  std::lock_guard<std::mutex> g(mu_);
  const uint64_t want = limit < 0 ? UINT64_MAX : (uint64_t)(offset + limit);
  if (want == 0 || in.size == 0) return;
  if (seen_ >= want && !pending_.empty() && in.batch >= pending_.rbegin()->first) return;
  seen_ += in.size;
  pending_.emplace(in.batch, std::move(in));  // after the chunks of an equal batch
  uint64_t rows = 0;
  auto it = pending_.begin();
  for (; it != pending_.end() && rows < want; ++it) rows += it->second.size;
  while (it != pending_.end()) {
    seen_ -= it->second.size;
    it = pending_.erase(it);
  }
}
void PhysicalLimit::Finalize() {
  uint64_t want = limit < 0 ? UINT64_MAX : (uint64_t)(offset + limit);
  if (percent >= 0) {
    uint64_t total = 0;
    for (auto& [batch, c] : pending_) total += c.size;
    want = (uint64_t)offset + (uint64_t)std::floor((double)total * percent / 100);
  }
  uint64_t at = 0;  // rows before the chunk
  for (auto& [batch, c] : pending_) {
    if (at >= want) break;
    const uint64_t from = at < (uint64_t)offset ? std::min<uint64_t>(c.size, offset - at) : 0;
    const uint64_t to = std::min<uint64_t>(c.size, want - at);
    at += c.size;
    if (to <= from) continue;
    std::vector<uint32_t> sel(to - from);
    for (uint32_t i = 0; i < sel.size(); i++) sel[i] = (uint32_t)(from + i);
    DataChunk out;
    SliceChunk(c, sel.data(), (uint32_t)sel.size(), out);
    rows_.Add(std::move(out));
  }
  pending_.clear();
  rows_out = rows_.rows;
}
std::unique_ptr<GlobalSourceState> PhysicalLimit::InitSource() {
  return std::make_unique<ChunkListSourceState>();
}
bool PhysicalLimit::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return NextChunkFromList(rows_, gs, out);
}

struct ResultLocal : LocalState {
  ChunkList rows;
  size_t worker = 0;  // its slot in watermarks_ (streaming)
};

namespace {
// The source of the pipeline that sinks into `result`: down its streaming operators.
const PhysicalOperator* ResultPipelineSource(const PhysicalOperator& result) {
  const PhysicalOperator* op = result.children.empty() ? nullptr : result.children[0].get();
  while (op && (op->kind == PhysKind::Filter || op->kind == PhysKind::Projection || op->kind == PhysKind::HashJoin ||
                op->kind == PhysKind::AsOfJoin))
    op = op->children[0].get();
  return op;
}
}  // namespace

std::unique_ptr<LocalState> PhysicalResult::InitLocalSink() {
  auto l = std::make_unique<ResultLocal>();
  if (consumer) {
    std::lock_guard<std::mutex> g(mu_);
    if (watermarks_.empty()) {  // the pipeline's first worker
      const PhysicalOperator* src = ResultPipelineSource(*this);
      ordered_source_ = src && (src->kind == PhysKind::TableScan || src->SourceOrdered());
    }
    l->worker = watermarks_.size();
    watermarks_.push_back(0);
  }
  return l;
}

void PhysicalResult::Deliver(DataChunk& c) {
  if (stopped_ || c.size == 0) return;
  if (c.size <= kVectorSize) {
    CheckInterrupt(interrupt);
    streamed_rows += c.size;
    if (!consumer->Chunk(c)) stopped_ = true;
    return;
  }
  std::vector<uint32_t> sel(kVectorSize);
  for (uint32_t from = 0; from < c.size && !stopped_; from += kVectorSize) {
    CheckInterrupt(interrupt);
    const uint32_t n = std::min(kVectorSize, c.size - from);
    for (uint32_t i = 0; i < n; i++) sel[i] = from + i;
    DataChunk part;
    SliceChunk(c, sel.data(), n, part);
    part.batch = c.batch;
    streamed_rows += n;
    if (!consumer->Chunk(part)) stopped_ = true;
  }
}

void PhysicalResult::DeliverBelow(uint64_t watermark) {
  while (!pending_.empty() && pending_.begin()->first < watermark) {
    auto node = pending_.extract(pending_.begin());
    Deliver(node.mapped());
  }
}

void PhysicalResult::Sink(DataChunk& in, LocalState& ls) {
  auto& l = static_cast<ResultLocal&>(ls);
  if (!consumer || !ordered_source_) {
    l.rows.Add(std::move(in));
    return;
  }
  std::lock_guard<std::mutex> g(mu_);
  watermarks_[l.worker] = in.batch;
  pending_.emplace(in.batch, std::move(in));  // after the chunks of an equal batch
  DeliverBelow(*std::min_element(watermarks_.begin(), watermarks_.end()));
}

void PhysicalResult::Combine(LocalState& ls) {
  auto& l = static_cast<ResultLocal&>(ls);
  if (consumer && ordered_source_) {
    std::lock_guard<std::mutex> g(mu_);
    watermarks_[l.worker] = UINT64_MAX;  // this worker is done
    DeliverBelow(*std::min_element(watermarks_.begin(), watermarks_.end()));
    return;
  }
  for (auto& c : l.rows.chunks) result.Add(std::move(c));
  rows_out = result.rows;
}

void PhysicalResult::Finalize() {
  // Each pipeline that feeds the result (UNION ALL: one per branch) finishes with this call:
  // its chunks follow the earlier pipelines' ones.
  std::stable_sort(result.chunks.begin() + (std::ptrdiff_t)finalized_, result.chunks.end(),
                   [](const DataChunk& a, const DataChunk& b) { return a.batch < b.batch; });
  finalized_ = result.chunks.size();
  if (!consumer) return;
  DeliverBelow(UINT64_MAX);
  for (auto& c : result.chunks) Deliver(c);
  result = ChunkList();
  finalized_ = 0;
  pending_.clear();
  watermarks_.clear();
  rows_out = streamed_rows;
}

}  // namespace tessera
