#include "execution/operators/values_scan.hpp"

#include <algorithm>

#include "execution/expression_executor.hpp"

namespace tessera {

struct ValuesSourceState : ChunkListSourceState {
  ChunkList chunks;
};

std::unique_ptr<GlobalSourceState> PhysicalValues::InitSource() {
  auto s = std::make_unique<ValuesSourceState>();
  for (size_t from = 0; from < rows.size(); from += kVectorSize) {
    uint32_t n = (uint32_t)std::min<size_t>(kVectorSize, rows.size() - from);
    DataChunk c;
    c.Init(types, n);
    for (uint32_t i = 0; i < n; i++)
      for (size_t col = 0; col < types.size(); col++) c.cols[col].SetValue(i, EvaluateConstant(*rows[from + i][col]));
    c.size = n;
    s->chunks.Add(std::move(c));
  }
  return s;
}

bool PhysicalValues::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  auto& s = static_cast<ValuesSourceState&>(gs);
  return NextChunkFromList(s.chunks, s, out);
}

}  // namespace tessera
