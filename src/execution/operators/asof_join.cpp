#include "execution/operators/asof_join.hpp"

#include <algorithm>

#include "common/parallel.hpp"
#include "execution/expression_executor.hpp"
#include "execution/hashing.hpp"
#include "execution/operators/join_unmatched.hpp"
#include "execution/selection.hpp"
#include "function/scalar_core.hpp"

namespace tessera {

namespace {

// -1, 0, 1: cell a[i] against b[j] (same type, both non-NULL), in ORDER BY's order (NaN
// above every number, strings by their bytes).
int CompareCells(const Vector& a, uint32_t i, const Vector& b, uint32_t j) {
  return DispatchPhys(a.type().physical(), [&]<class T>() {
    const T x = a.data<T>()[i], y = b.data<T>()[j];
    if (ops::LessThan(x, y)) return -1;
    if (ops::LessThan(y, x)) return 1;
    return 0;
  });
}

bool AnyNull(const std::vector<const Vector*>& keys, uint32_t i) {
  for (const Vector* k : keys)
    if (!k->IsValid(i)) return true;
  return false;
}

constexpr uint32_t kNoMatch = UINT32_MAX;
constexpr uint64_t kBlock = 1u << 16;  // rows a parallel task takes

}  // namespace

struct PhysicalAsOfJoin::SinkLocal : LocalState {
  std::vector<DataChunk> chunks;
};

struct PhysicalAsOfJoin::ProbeLocal : LocalState {
  std::vector<Vector> scratch;
  std::vector<const Vector*> keys;
  std::vector<uint32_t> probe, build;
};

PhysicalAsOfJoin::PhysicalAsOfJoin(std::vector<Type> t, LJoinType jt, ast::Op o, std::vector<BoundExprPtr> lk,
                                   std::vector<BoundExprPtr> rk)
    : PhysicalOperator(PhysKind::AsOfJoin, std::move(t)),
      join_type(jt),
      op(o),
      left_keys(std::move(lk)),
      right_keys(std::move(rk)) {}

std::string PhysicalAsOfJoin::Details() const {
  std::string s = JoinTypeName(join_type);
  for (size_t k = 0; k < left_keys.size(); k++)
    s += (k ? " AND " : " ") + left_keys[k]->ToString() +
         (k + 1 == left_keys.size() ? " " + AsOfOpText(op) + " " : " = ") + right_keys[k]->ToString();
  return s;
}

std::unique_ptr<LocalState> PhysicalAsOfJoin::InitLocalSink() { return std::make_unique<SinkLocal>(); }

void PhysicalAsOfJoin::Sink(DataChunk& in, LocalState& ls) {
  auto& L = static_cast<SinkLocal&>(ls);
  if (in.size == 0) return;
  DataChunk c;
  c.size = in.size;
  c.cols = std::move(in.cols);
  c.cols.resize(build_types.size() + right_keys.size());
  for (size_t k = 0; k < right_keys.size(); k++) {
    Vector v;
    Evaluate(*right_keys[k], c, v);
    c.cols[build_types.size() + k] = std::move(v);
  }
  L.chunks.push_back(std::move(c));
}

void PhysicalAsOfJoin::Combine(LocalState& ls) {
  auto& L = static_cast<SinkLocal&>(ls);
  for (auto& c : L.chunks) collected_.push_back(std::move(c));
  L.chunks.clear();
}

bool PhysicalAsOfJoin::RowLess(uint32_t a, uint32_t b) const {
  if (hash_[a] != hash_[b]) return hash_[a] < hash_[b];
  const size_t nb = build_types.size(), nk = right_keys.size();
  for (size_t k = 0; k < nk; k++) {
    const Vector& v = cols_[nb + k];
    if (int c = CompareCells(v, a, v, b)) return c < 0;
  }
  return a < b;
}

void PhysicalAsOfJoin::Finalize() {
  const size_t nb = build_types.size(), nk = right_keys.size(), nc = nb + nk;
  uint64_t n = 0;
  for (auto& c : collected_) n += c.size;
  if (n >= UINT32_MAX) throw UserError(ErrorKind::Unsupported, "an ASOF join's right side has too many rows", {});
  rows_ = n;
  rows_out = n;
  const unsigned th = n < 2 * kBlock ? 1 : threads;
  // One set of columns: the chunks copied in parallel (validity and string owners set up
  // first, so that the copies only write their own rows).
  std::vector<uint64_t> off(collected_.size() + 1, 0);
  for (size_t i = 0; i < collected_.size(); i++) off[i + 1] = off[i] + collected_[i].size;
  cols_.assign(nc, Vector());
  for (size_t c = 0; c < nc; c++) {
    const Type t = c < nb ? build_types[c] : right_keys[c - nb]->type;
    if (n == 0) {
      cols_[c].Init(t, 1);
      continue;
    }
    cols_[c].InitForOverwrite(t, (uint32_t)n);
    bool nulls = false;
    for (auto& ch : collected_) {
      nulls |= ch.cols[c].has_nulls();
      if (t.physical() == PhysType::Str) cols_[c].ShareStrings(ch.cols[c]);
    }
    if (nulls) cols_[c].validity();
  }
  ParallelFor(collected_.size(), th, [&](uint64_t ci, unsigned) {
    const DataChunk& ch = collected_[ci];
    for (size_t c = 0; c < nc; c++) CopyRows(ch.cols[c], nullptr, ch.size, cols_[c], (uint32_t)off[ci]);
  });
  if (MarksBuildRows()) {
    matched_ = std::make_unique<std::atomic<uint8_t>[]>(std::max<uint64_t>(n, 1));
    for (uint64_t r = 0; r < n; r++) matched_[r].store(0, std::memory_order_relaxed);
  }
  // Each row's hash of its equality keys (NULL keys: left out of the index below).
  hash_.assign(n, 0);
  std::vector<uint8_t> usable(n, 1);
  const uint64_t blocks = (n + kBlock - 1) / kBlock;
  ParallelFor(blocks, th, [&](uint64_t b, unsigned) {
    const uint64_t from = b * kBlock, to = std::min(n, from + kBlock);
    for (uint64_t r = from; r < to; r++) {
      uint64_t h = 0x51ed27;
      for (size_t k = 0; k < nk; k++) {
        const Vector& v = cols_[nb + k];
        if (!v.IsValid((uint32_t)r)) usable[r] = 0;
        if (k + 1 < nk) h = HashCombine(h, HashValue(v, (uint32_t)r));
      }
      hash_[r] = h;
    }
  });
  // Radix partitions by the hash's top bits: counted per block, then scattered in parallel.
  const unsigned bits = n < 2 * kBlock ? 0 : 8;
  const size_t parts = (size_t)1 << bits;
  auto part_of = [&](uint64_t r) { return bits == 0 ? (size_t)0 : (size_t)(hash_[r] >> (64 - bits)); };
  std::vector<uint64_t> counts(blocks * parts, 0);
  ParallelFor(blocks, th, [&](uint64_t b, unsigned) {
    const uint64_t from = b * kBlock, to = std::min(n, from + kBlock);
    for (uint64_t r = from; r < to; r++)
      if (usable[r]) counts[b * parts + part_of(r)]++;
  });
  std::vector<uint64_t> part_begin(parts + 1, 0);
  uint64_t total = 0;
  for (size_t p = 0; p < parts; p++) {  // partition-major: block b's rows of partition p at counts[b][p]
    part_begin[p] = total;
    for (uint64_t b = 0; b < blocks; b++) {
      const uint64_t c = counts[b * parts + p];
      counts[b * parts + p] = total;
      total += c;
    }
  }
  part_begin[parts] = total;
  order_.assign(total, 0);
  ParallelFor(blocks, th, [&](uint64_t b, unsigned) {
    const uint64_t from = b * kBlock, to = std::min(n, from + kBlock);
    for (uint64_t r = from; r < to; r++)
      if (usable[r]) order_[counts[b * parts + part_of(r)]++] = (uint32_t)r;
  });
  // Each partition sorted, and its runs of equal keys made groups.
  std::vector<std::vector<Group>> part_groups(parts);
  ParallelFor(parts, th, [&](uint64_t p, unsigned) {
    uint32_t* begin = order_.data() + part_begin[p];
    uint32_t* end = order_.data() + part_begin[p + 1];
    std::sort(begin, end, [&](uint32_t a, uint32_t b) { return RowLess(a, b); });
    auto& out = part_groups[p];
    for (uint32_t* g = begin; g < end;) {
      uint32_t* e = g + 1;
      while (e < end && hash_[*e] == hash_[*g]) {
        bool same = true;
        for (size_t k = 0; k + 1 < nk && same; k++) same = ValuesEqual(cols_[nb + k], *e, cols_[nb + k], *g);
        if (!same) break;
        e++;
      }
      out.push_back({hash_[*g], (uint32_t)(g - order_.data()), (uint32_t)(e - order_.data())});
      g = e;
    }
  });
  groups_.clear();
  for (auto& pg : part_groups) groups_.insert(groups_.end(), pg.begin(), pg.end());
  collected_.clear();
}

uint32_t PhysicalAsOfJoin::Find(const std::vector<const Vector*>& keys, uint32_t i) const {
  const size_t nb = build_types.size(), nk = keys.size();
  if (AnyNull(keys, i)) return kNoMatch;
  uint64_t h = 0x51ed27;
  for (size_t k = 0; k + 1 < nk; k++) h = HashCombine(h, HashValue(*keys[k], i));
  auto g = std::lower_bound(groups_.begin(), groups_.end(), h, [](const Group& x, uint64_t v) { return x.hash < v; });
  for (; g != groups_.end() && g->hash == h; ++g) {
    bool same = true;
    for (size_t k = 0; k + 1 < nk && same; k++) same = ValuesEqual(*keys[k], i, cols_[nb + k], order_[g->begin]);
    if (same) break;
  }
  if (g == groups_.end() || g->hash != h) return kNoMatch;
  // Within the group (sorted by the inequality value): the nearest row satisfying it.
  const Vector& lt = *keys[nk - 1];
  const Vector& rt = cols_[nb + nk - 1];
  const uint32_t* first = order_.data() + g->begin;
  const uint32_t* last = order_.data() + g->end;
  // First row whose value is > the probe's (strict) or >= it.
  auto bound = [&](bool strict) {
    return std::partition_point(first, last, [&](uint32_t r) {
      const int c = CompareCells(rt, r, lt, i);
      return strict ? c <= 0 : c < 0;
    });
  };
  const uint32_t* at;
  switch (op) {
    case ast::Op::Ge: at = bound(true); return at == first ? kNoMatch : at[-1];   // greatest <= left
    case ast::Op::Gt: at = bound(false); return at == first ? kNoMatch : at[-1];  // greatest < left
    case ast::Op::Le: at = bound(false); return at == last ? kNoMatch : *at;      // least >= left
    default: at = bound(true); return at == last ? kNoMatch : *at;                // least > left
  }
}

std::unique_ptr<LocalState> PhysicalAsOfJoin::InitLocalOperator() { return std::make_unique<ProbeLocal>(); }

void PhysicalAsOfJoin::Execute(DataChunk& in, DataChunk& out, LocalState& ls) {
  auto& L = static_cast<ProbeLocal&>(ls);
  const size_t nk = left_keys.size(), np = in.cols.size(), nb = build_types.size();
  L.scratch.resize(nk);
  L.keys.resize(nk);
  for (size_t k = 0; k < nk; k++) L.keys[k] = &EvaluateOperand(*left_keys[k], in, L.scratch[k]);
  L.probe.clear();
  L.build.clear();
  const bool keep = KeepsUnmatchedProbe();
  bool any_unmatched = false;
  for (uint32_t i = 0; i < in.size; i++) {
    const uint32_t r = groups_.empty() ? kNoMatch : Find(L.keys, i);
    if (r == kNoMatch) {
      if (!keep) continue;
      any_unmatched = true;
    } else if (matched_ && !matched_[r].load(std::memory_order_relaxed)) {
      matched_[r].store(1, std::memory_order_relaxed);
    }
    L.probe.push_back(i);
    L.build.push_back(r);
  }
  const uint32_t m = (uint32_t)L.probe.size();
  out.cols.resize(np + nb);
  out.sel.clear();
  if (m == in.size) {  // every probe row, in order: its columns handed on
    for (size_t c = 0; c < np; c++) out.cols[c] = std::move(in.cols[c]);
  } else {
    for (size_t c = 0; c < np; c++) GatherColumn(in, c, L.probe.data(), m, out.cols[c]);
  }
  std::vector<uint32_t> rows(L.build);  // a probe row without a match: row 0 gathered, then NULL
  for (uint32_t& r : rows)
    if (r == kNoMatch) r = 0;
  for (size_t c = 0; c < nb; c++) {
    Vector& v = out.cols[np + c];
    v.Init(build_types[c], std::max<uint32_t>(m, 1));
    CopyRows(cols_[c], rows.data(), m, v, 0);
    if (any_unmatched)
      for (uint32_t j = 0; j < m; j++)
        if (L.build[j] == kNoMatch) v.SetNull(j);
  }
  out.size = m;
  out.batch = in.batch;
}

void PhysicalAsOfJoin::EmitUnmatched(uint64_t begin, uint64_t end, const std::vector<Type>& probe_types,
                                     DataChunk& out) const {
  std::vector<uint32_t> rows;
  for (uint64_t r = begin; r < end && r < rows_; r++)
    if (!matched_[r].load(std::memory_order_relaxed)) rows.push_back((uint32_t)r);
  NullPaddedBuildRows(probe_types, build_types, cols_, rows, out);
}

void PhysicalAsOfJoin::ResetState() {
  PhysicalOperator::ResetState();
  collected_.clear();
  rows_ = 0;
  cols_.clear();
  hash_.clear();
  order_.clear();
  groups_.clear();
  matched_.reset();
}

namespace {
struct UnmatchedState : GlobalSourceState {
  std::atomic<uint64_t> next{0};
};
}  // namespace

std::unique_ptr<GlobalSourceState> PhysicalAsOfUnmatched::InitSource() { return std::make_unique<UnmatchedState>(); }

bool PhysicalAsOfUnmatched::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  auto& st = static_cast<UnmatchedState&>(gs);
  const uint64_t range = st.next.fetch_add(1);
  const uint64_t begin = range * kVectorSize;
  if (begin >= join_.BuildRows()) return false;
  const size_t np = types.size() - join_.build_types.size();
  std::vector<Type> probe_types(types.begin(), types.begin() + (std::ptrdiff_t)np);
  join_.EmitUnmatched(begin, begin + kVectorSize, probe_types, out);
  out.batch = range;
  return true;
}

}  // namespace tessera
