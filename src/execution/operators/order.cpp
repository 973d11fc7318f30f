#include "execution/operators/order.hpp"

#include <algorithm>

#include "execution/expression_executor.hpp"
#include "function/scalar_ops.hpp"

namespace tessera {

std::string PhysicalOrder::Details() const {
  std::string s;
  for (size_t i = 0; i < orders.size(); i++)
    s += (i ? ", " : "") + orders[i].expr->ToString() + (orders[i].desc ? " DESC" : " ASC");
  if (top_n >= 0) s += " LIMIT " + std::to_string(top_n);
  return s;
}

struct OrderLocal : LocalState {
  ChunkList rows;
};
std::unique_ptr<LocalState> PhysicalOrder::InitLocalSink() { return std::make_unique<OrderLocal>(); }
void PhysicalOrder::Sink(DataChunk& in, LocalState& ls) { static_cast<OrderLocal&>(ls).rows.Add(std::move(in)); }
void PhysicalOrder::Combine(LocalState& ls) {
  for (auto& c : static_cast<OrderLocal&>(ls).rows.chunks) input_.Add(std::move(c));
}

template <class T>
static int Cmp(const T& a, const T& b) { return ops::LessThan(a, b) ? -1 : (ops::LessThan(b, a) ? 1 : 0); }

void PhysicalOrder::Finalize() {
  uint64_t n64 = input_.rows;
  TESSERA_ASSERT(n64 < UINT32_MAX, "sort input too large");
  uint32_t n = (uint32_t)n64;
  // Concatenate the input into single columns.
  std::vector<Vector> cols(types.size());
  for (size_t c = 0; c < types.size(); c++) cols[c].Init(types[c], std::max<uint32_t>(n, 1));
  uint32_t off = 0;
  for (auto& ch : input_.chunks) {
    for (size_t c = 0; c < types.size(); c++) CopyRows(ch.cols[c], nullptr, ch.size, cols[c], off);
    off += ch.size;
  }
  input_.chunks.clear();
  std::vector<int> key_cols;
  for (auto& o : orders) key_cols.push_back(o.expr->index);
  auto less = [&](uint32_t a, uint32_t b) {
    for (size_t k = 0; k < orders.size(); k++) {
      const Vector& v = cols[key_cols[k]];
      bool va = v.IsValid(a), vb = v.IsValid(b);
      int r;
      if (!va || !vb) {
        if (va == vb) continue;
        r = va ? 1 : -1;  // NULL sorts before when nulls_first
        if (!orders[k].nulls_first) r = -r;
        return r < 0;
      }
      r = DispatchPhys(v.type().physical(), [&]<class T>() { return Cmp(v.data<T>()[a], v.data<T>()[b]); });
      if (r == 0) continue;
      if (orders[k].desc) r = -r;
      return r < 0;
    }
    return false;
  };
  std::vector<uint32_t> idx(n);
  for (uint32_t i = 0; i < n; i++) idx[i] = i;
  uint32_t keep = n;
  if (top_n >= 0 && (uint64_t)top_n < n) {
    keep = (uint32_t)top_n;
    std::partial_sort(idx.begin(), idx.begin() + keep, idx.end(), less);
  } else {
    std::stable_sort(idx.begin(), idx.end(), less);
  }
  for (uint32_t from = 0; from < keep; from += kVectorSize) {
    uint32_t m = std::min(kVectorSize, keep - from);
    DataChunk ch;
    ch.cols.resize(types.size());
    for (size_t c = 0; c < types.size(); c++) {
      ch.cols[c].Init(types[c], m);
      CopyRows(cols[c], idx.data() + from, m, ch.cols[c], 0);
    }
    ch.size = m;
    sorted_.Add(std::move(ch));
  }
  rows_out = keep;
}

std::unique_ptr<GlobalSourceState> PhysicalOrder::InitSource() { return std::make_unique<ChunkListSourceState>(); }
bool PhysicalOrder::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return NextChunkFromList(sorted_, gs, out);
}

}  // namespace tessera
