#include "execution/operators/materialized.hpp"

#include <numeric>

#include "common/error.hpp"

namespace tessera {

void PhysicalMaterialized::Sink(DataChunk& in, LocalState& ls) {
  if (in.size == 0) return;
  PhysicalUnionAll::Sink(in, ls);  // as it comes: its vectors, views and selections
}

bool PhysicalMaterialized::CopyNext(GlobalSourceState& gs, const std::vector<uint32_t>& read, DataChunk& out) const {
  auto& s = static_cast<ChunkListSourceState&>(gs);
  size_t i;
  {
    std::lock_guard<std::mutex> g(s.mu);
    if (s.next >= rows_.chunks.size()) return false;
    i = s.next++;
  }
  const DataChunk& c = rows_.chunks[i];
  // Views of the collected vectors (as a hash join hands on its build columns: they live
  // until the plan runs again) under their selections, an identity one where they had
  // none, so that an operator keeping the chunk flattens it into its own copy (the
  // pipeline does, for a sink that takes no selection); a dictionary's codes go on with them.
  SelPtr identity;
  out.cols.resize(read.size());
  out.sel.resize(read.size());
  for (size_t k = 0; k < read.size(); k++) {
    const Vector& from = c.cols[read[k]];
    out.cols[k].SetView(from);
    if (from.has_dict()) out.cols[k].SetDict(from.dict(), from.dict_owner(), from.dict_codes());
    if (read[k] < c.sel.size() && c.sel[read[k]]) {
      out.sel[k] = c.sel[read[k]];
      continue;
    }
    if (!identity) {
      auto s = std::make_shared<SelVec>(c.size);
      std::iota(s->begin(), s->end(), 0u);
      identity = std::move(s);
    }
    out.sel[k] = identity;
  }
  out.size = c.size;
  out.batch = i;  // the collected order is the source's order
  return true;
}

bool PhysicalMaterialized::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return CopyNext(gs, columns, out);
}

std::string PhysicalMaterialized::ColumnsRead(const std::vector<uint32_t>& read) const {
  const size_t all = children.empty() ? read.size() : children[0]->types.size();
  bool every = read.size() == all;
  for (size_t i = 0; every && i < read.size(); i++) every = read[i] == i;
  if (every) return "";
  std::string s = ", columns";
  for (size_t i = 0; i < read.size(); i++) s += (i ? ", " : " ") + std::to_string(read[i]);
  return s + " of " + std::to_string(all);
}

std::unique_ptr<GlobalSourceState> PhysicalSharedScan::InitSource() { return std::make_unique<ChunkListSourceState>(); }

bool PhysicalSharedScan::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  TESSERA_ASSERT(source != nullptr, "a shared scan without its materialization");
  return source->CopyNext(gs, columns, out);
}

}  // namespace tessera
