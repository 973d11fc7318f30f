#include "execution/operators/union_all.hpp"

namespace tessera {

struct UnionLocal : LocalState {
  ChunkList rows;
};

std::unique_ptr<LocalState> PhysicalUnionAll::InitLocalSink() { return std::make_unique<UnionLocal>(); }

void PhysicalUnionAll::Sink(DataChunk& in, LocalState& ls) {
  DataChunk c;
  c.cols = std::move(in.cols);
  c.size = in.size;
  static_cast<UnionLocal&>(ls).rows.Add(std::move(c));
}

void PhysicalUnionAll::Combine(LocalState& ls) {
  for (auto& c : static_cast<UnionLocal&>(ls).rows.chunks) rows_.Add(std::move(c));
  rows_out = rows_.rows;
}

std::unique_ptr<GlobalSourceState> PhysicalUnionAll::InitSource() { return std::make_unique<ChunkListSourceState>(); }

bool PhysicalUnionAll::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return NextChunkFromList(rows_, gs, out);
}

}  // namespace tessera
