#include "execution/operators/union_all.hpp"

#include <algorithm>

namespace tessera {

struct UnionLocal : LocalState {
  ChunkList rows;
};

std::unique_ptr<LocalState> PhysicalUnionAll::InitLocalSink() { return std::make_unique<UnionLocal>(); }

void PhysicalUnionAll::Sink(DataChunk& in, LocalState& ls) {
  DataChunk c;
  c.cols = std::move(in.cols);
  c.sel = std::move(in.sel);  // (none but a MATERIALIZED's: a UNION ALL takes dense chunks)
  c.size = in.size;
  c.batch = in.batch;
  static_cast<UnionLocal&>(ls).rows.Add(std::move(c));
}

void PhysicalUnionAll::Combine(LocalState& ls) {
  for (auto& c : static_cast<UnionLocal&>(ls).rows.chunks) rows_.Add(std::move(c));
  rows_out = rows_.rows;
}

void PhysicalUnionAll::Finalize() {
  // The operand just finished: its chunks in its source's order, after the earlier operands'.
  std::stable_sort(rows_.chunks.begin() + (std::ptrdiff_t)finalized_, rows_.chunks.end(),
                   [](const DataChunk& a, const DataChunk& b) { return a.batch < b.batch; });
  finalized_ = rows_.chunks.size();
}

std::unique_ptr<GlobalSourceState> PhysicalUnionAll::InitSource() { return std::make_unique<ChunkListSourceState>(); }

bool PhysicalUnionAll::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return NextChunkFromList(rows_, gs, out);
}

}  // namespace tessera
