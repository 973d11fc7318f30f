#include "execution/operators/basic_operators.hpp"

#include "execution/expression_executor.hpp"

namespace tessera {

bool NextChunkFromList(ChunkList& list, GlobalSourceState& gs, DataChunk& out) {
  auto& s = static_cast<ChunkListSourceState&>(gs);
  std::lock_guard<std::mutex> g(s.mu);
  while (s.next < list.chunks.size()) {
    DataChunk& c = list.chunks[s.next++];
    if (c.size == 0) continue;
    out = std::move(c);
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

void PhysicalFilter::Execute(DataChunk& in, DataChunk& out, LocalState&) {
  std::vector<uint32_t> sel;
  uint32_t n = EvaluateFilter(*predicate, in, sel);
  if (n == in.size) {
    out = std::move(in);
    return;
  }
  SliceChunk(in, sel.data(), n, out);
}

std::string PhysicalProjection::Details() const {
  std::string s;
  for (size_t i = 0; i < exprs.size(); i++) s += (i ? ", " : "") + exprs[i]->ToString();
  return s;
}

void PhysicalProjection::Execute(DataChunk& in, DataChunk& out, LocalState&) {
  DataChunk r;
  r.cols.resize(exprs.size());
  for (size_t i = 0; i < exprs.size(); i++) Evaluate(*exprs[i], in, r.cols[i]);
  r.size = in.size;
  out = std::move(r);
}

std::string PhysicalLimit::Details() const {
  return std::to_string(limit) + (offset ? " OFFSET " + std::to_string(offset) : "");
}

void PhysicalLimit::Sink(DataChunk& in, LocalState&) {
  std::lock_guard<std::mutex> g(mu_);
  uint64_t want = limit < 0 ? UINT64_MAX : (uint64_t)(offset + limit);
  if (seen_ >= want) return;
  uint32_t take = (uint32_t)std::min<uint64_t>(in.size, want - seen_);
  uint32_t skip = seen_ < (uint64_t)offset ? (uint32_t)std::min<uint64_t>(take, offset - seen_) : 0;
  seen_ += take;
  if (take - skip == 0) return;
  std::vector<uint32_t> sel(take - skip);
  for (uint32_t i = 0; i < take - skip; i++) sel[i] = skip + i;
  DataChunk c;
  SliceChunk(in, sel.data(), take - skip, c);
  rows_.Add(std::move(c));
}
void PhysicalLimit::Finalize() { rows_out = rows_.rows; }
std::unique_ptr<GlobalSourceState> PhysicalLimit::InitSource() {
  return std::make_unique<ChunkListSourceState>();
}
bool PhysicalLimit::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return NextChunkFromList(rows_, gs, out);
}

struct ResultLocal : LocalState {
  ChunkList rows;
};
std::unique_ptr<LocalState> PhysicalResult::InitLocalSink() { return std::make_unique<ResultLocal>(); }
void PhysicalResult::Sink(DataChunk& in, LocalState& ls) {
  static_cast<ResultLocal&>(ls).rows.Add(std::move(in));
}
void PhysicalResult::Combine(LocalState& ls) {
  for (auto& c : static_cast<ResultLocal&>(ls).rows.chunks) result.Add(std::move(c));
  rows_out = result.rows;
}

}  // namespace tessera
