#include "execution/operators/materialized.hpp"

#include "common/error.hpp"

namespace tessera {

void PhysicalMaterialized::Sink(DataChunk& in, LocalState& ls) {
  if (in.size == 0) return;
  for (Vector& v : in.cols)
    if (v.is_view()) v.raw();  // its own copy: the viewed rows may not outlive the plan's run
  PhysicalUnionAll::Sink(in, ls);
}

bool PhysicalMaterialized::CopyNext(GlobalSourceState& gs, DataChunk& out) const {
  auto& s = static_cast<ChunkListSourceState&>(gs);
  size_t i;
  {
    std::lock_guard<std::mutex> g(s.mu);
    if (s.next >= rows_.chunks.size()) return false;
    i = s.next++;
  }
  const DataChunk& c = rows_.chunks[i];
  out.cols = c.cols;  // a copy: values, validity; strings' owners shared
  out.sel.clear();
  out.size = c.size;
  out.batch = i;  // the collected order is the source's order
  return true;
}

bool PhysicalMaterialized::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) { return CopyNext(gs, out); }

std::unique_ptr<GlobalSourceState> PhysicalSharedScan::InitSource() { return std::make_unique<ChunkListSourceState>(); }

bool PhysicalSharedScan::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  TESSERA_ASSERT(source != nullptr, "a shared scan without its materialization");
  return source->CopyNext(gs, out);
}

}  // namespace tessera
