#include "execution/operators/hash_join.hpp"

#include <algorithm>
#include <cstring>

#include "common/join_rules.hpp"
#include "execution/expression_executor.hpp"
#include "execution/hashing.hpp"
#include "execution/operators/basic_operators.hpp"

namespace tessera {

PhysicalHashJoin::PhysicalHashJoin(std::vector<Type> t, LJoinType jt, std::vector<BoundExprPtr> lk,
                                   std::vector<BoundExprPtr> rk, BoundExprPtr res)
    : PhysicalOperator(PhysKind::HashJoin, std::move(t)), join_type(jt), left_keys(std::move(lk)),
      right_keys(std::move(rk)), residual(std::move(res)) {}

std::string PhysicalHashJoin::Details() const {
  std::string s = JoinTypeName(join_type);
  for (size_t i = 0; i < left_keys.size(); i++)
    s += (i ? " AND " : " ") + left_keys[i]->ToString() + " = " + right_keys[i]->ToString();
  if (residual) s += " [" + residual->ToString() + "]";
  if (null_aware) s += " (null-aware)";
  if (nulls_equal) s += " (nulls equal)";
  if (counted) s += " (counted)";
  if (single_match) s += " (single match)";
  if (is_dense_) s += " (perfect hash)";
  return s;
}

struct JoinBuildLocal : LocalState {
  std::vector<DataChunk> chunks;
};

std::unique_ptr<LocalState> PhysicalHashJoin::InitLocalSink() { return std::make_unique<JoinBuildLocal>(); }

void PhysicalHashJoin::Sink(DataChunk& in, LocalState& ls) {
  DataChunk c;
  c.cols = std::move(in.cols);
  c.size = in.size;
  c.batch = in.batch;
  // Key values are evaluated over the payload columns and stored after them.
  std::vector<Vector> keys(right_keys.size());
  for (size_t k = 0; k < right_keys.size(); k++) Evaluate(*right_keys[k], c, keys[k]);
  for (auto& v : keys) c.cols.push_back(std::move(v));
  static_cast<JoinBuildLocal&>(ls).chunks.push_back(std::move(c));
}

void PhysicalHashJoin::ResetState() {
  PhysicalOperator::ResetState();
  collected_.clear();
  build_rows_ = 0;
  build_cols_.clear();
  build_has_null_key_ = false;
  remaining_.reset();
  matched_.reset();
  is_dense_ = false;
  dense_min_ = 0;
  std::vector<uint32_t>().swap(dense_);
  std::vector<uint32_t>().swap(heads_);
  std::vector<uint32_t>().swap(next_);
  mask_ = 0;
}

void PhysicalHashJoin::Combine(LocalState& ls) {
  for (auto& c : static_cast<JoinBuildLocal&>(ls).chunks) {
    build_rows_ += c.size;
    collected_.push_back(std::move(c));
  }
}

void PhysicalHashJoin::Finalize() {
  nkeys_ = right_keys.size();
  if (build_rows_ >= UINT32_MAX) throw UserError(ErrorKind::Unsupported, "hash join build side exceeds 4 billion rows");
  uint32_t n = (uint32_t)build_rows_;
  build_cols_.resize(build_types.size() + nkeys_);
  for (size_t c = 0; c < build_cols_.size(); c++) {
    Type t = c < build_types.size() ? build_types[c] : right_keys[c - build_types.size()]->type;
    build_cols_[c].Init(t, std::max<uint32_t>(n, 1));
  }
  // The rows a RightSemi/RightAnti join returns come out in the build's order: the build
  // side's source order (DataChunk::batch), as the probe side's would of a Semi/Anti join.
  if (ReturnsRightOnly(join_type))
    std::stable_sort(collected_.begin(), collected_.end(),
                     [](const DataChunk& a, const DataChunk& b) { return a.batch < b.batch; });
  uint32_t off = 0;
  for (auto& ch : collected_) {
    for (size_t c = 0; c < build_cols_.size(); c++) CopyRows(ch.cols[c], nullptr, ch.size, build_cols_[c], off);
    off += ch.size;
  }
  collected_.clear();
  rows_out = n;
  for (uint32_t i = 0; i < n && !build_has_null_key_; i++)
    for (size_t k = 0; k < nkeys_; k++) build_has_null_key_ |= !build_cols_[build_types.size() + k].IsValid(i);
  if (counted) {
    const Vector& count = build_cols_[build_types.size() - 1];
    remaining_ = std::make_unique<std::atomic<int64_t>[]>(std::max<uint32_t>(n, 1));
    for (uint32_t i = 0; i < n; i++) remaining_[i].store(count.data<int64_t>()[i], std::memory_order_relaxed);
  }
  if (join_type == LJoinType::Full || ReturnsRightOnly(join_type)) {
    matched_ = std::make_unique<std::atomic<uint8_t>[]>(std::max<uint32_t>(n, 1));
    for (uint32_t i = 0; i < n; i++) matched_[i].store(0, std::memory_order_relaxed);
  }
  // Perfect hash for one dense, unique integer key (NULL keys never match in it).
  if (nkeys_ == 1 && !nulls_equal) {
    const Vector& k = build_cols_[build_types.size()];
    PhysType p = k.type().physical();
    if (p == PhysType::I32 || p == PhysType::I64) {
      auto val = [&](uint32_t i) -> int64_t {
        return p == PhysType::I32 ? k.data<int32_t>()[i] : k.data<int64_t>()[i];
      };
      int64_t mn = INT64_MAX, mx = INT64_MIN;
      for (uint32_t i = 0; i < n; i++)
        if (k.IsValid(i)) { mn = std::min(mn, val(i)); mx = std::max(mx, val(i)); }
      // Direct-mapped when the key range is small next to the rows (common/join_rules.hpp).
      if (n > 0 && mx >= mn && DirectMappedKeys((uint64_t)(mx - mn), n)) {
        dense_.assign((size_t)(mx - mn + 1), 0);
        bool unique = true;
        for (uint32_t i = 0; i < n && unique; i++) {
          if (!k.IsValid(i)) continue;
          uint32_t& slot = dense_[val(i) - mn];
          if (slot) unique = false;
          slot = i + 1;
        }
        if (unique) {
          is_dense_ = true;
          dense_min_ = mn;
          return;
        }
        dense_.clear();
      }
    }
  }
  uint64_t cap = 16;
  while (cap < 2ull * n) cap <<= 1;
  mask_ = cap - 1;
  heads_.assign(cap, UINT32_MAX);
  next_.assign(n, UINT32_MAX);
  std::vector<Vector> keys;  // views of the key columns
  for (uint32_t i = 0; i < n; i++) {
    bool null_key = false;
    for (size_t k = 0; k < nkeys_; k++) null_key |= !build_cols_[build_types.size() + k].IsValid(i);
    if (null_key && !nulls_equal) continue;
    uint64_t h = 0;
    for (size_t k = 0; k < nkeys_; k++) h = HashCombine(h, HashValue(build_cols_[build_types.size() + k], i));
    uint64_t b = h & mask_;
    next_[i] = heads_[b];
    heads_[b] = i;
  }
}

uint64_t PhysicalHashJoin::Hash(const std::vector<Vector>& keys, uint32_t i) const {
  uint64_t h = 0;
  for (auto& k : keys) h = HashCombine(h, HashValue(k, i));
  return h;
}

bool PhysicalHashJoin::KeysEqual(const std::vector<Vector>& probe, uint32_t i, uint32_t row) const {
  for (size_t k = 0; k < nkeys_; k++)
    if (!ValuesEqual(probe[k], i, build_cols_[build_types.size() + k], row)) return false;
  return true;
}

void PhysicalHashJoin::Match(DataChunk& in, std::vector<Vector>& keys, std::vector<uint32_t>& pi,
                             std::vector<uint32_t>& bi) const {
  uint32_t n = in.size;
  if (nkeys_ == 0) {  // cross product
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t r = 0; r < build_rows_; r++) { pi.push_back(i); bi.push_back(r); }
    return;
  }
  auto null_key = [&](uint32_t i) {
    if (nulls_equal) return false;
    for (auto& k : keys)
      if (!k.IsValid(i)) return true;
    return false;
  };
  if (is_dense_) {
    const Vector& k = keys[0];
    PhysType p = k.type().physical();
    uint64_t range = dense_.size();
    for (uint32_t i = 0; i < n; i++) {
      if (!k.IsValid(i)) continue;
      int64_t v = p == PhysType::I32 ? k.data<int32_t>()[i] : k.data<int64_t>()[i];
      uint64_t off = (uint64_t)(v - dense_min_);
      if (off < range && dense_[off]) { pi.push_back(i); bi.push_back(dense_[off] - 1); }
    }
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (null_key(i)) continue;
    uint64_t h = Hash(keys, i);
    for (uint32_t r = heads_[h & mask_]; r != UINT32_MAX; r = next_[r])
      if (KeysEqual(keys, i, r)) { pi.push_back(i); bi.push_back(r); }
  }
}

void PhysicalHashJoin::Execute(DataChunk& in, DataChunk& out, LocalState&) {
  std::vector<Vector> keys(left_keys.size());
  for (size_t k = 0; k < left_keys.size(); k++) Evaluate(*left_keys[k], in, keys[k]);
  std::vector<uint32_t> pi, bi;
  pi.reserve(in.size);
  bi.reserve(in.size);
  Match(in, keys, pi, bi);
  if (ReturnsRightOnly(join_type)) {  // a build row marked already needs no more pairs
    size_t k = 0;
    for (size_t m = 0; m < pi.size(); m++)
      if (!matched_[bi[m]].load(std::memory_order_relaxed)) { pi[k] = pi[m]; bi[k] = bi[m]; k++; }
    pi.resize(k);
    bi.resize(k);
  }
  size_t np = in.cols.size(), nb = build_types.size();
  auto assemble = [&](const std::vector<uint32_t>& p, const std::vector<uint32_t>& b, DataChunk& o) {
    uint32_t m = (uint32_t)p.size();
    o.cols.resize(np + nb);
    for (size_t c = 0; c < np; c++) {
      o.cols[c].Init(in.cols[c].type(), std::max<uint32_t>(m, 1));
      CopyRows(in.cols[c], p.data(), m, o.cols[c], 0);
    }
    for (size_t c = 0; c < nb; c++) {
      o.cols[np + c].Init(build_types[c], std::max<uint32_t>(m, 1));
      CopyRows(build_cols_[c], b.data(), m, o.cols[np + c], 0);
    }
    o.size = m;
  };
  if (residual) {  // keep only pairs satisfying the residual condition
    DataChunk pairs;
    assemble(pi, bi, pairs);
    std::vector<uint32_t> sel;
    uint32_t k = EvaluateFilter(*residual, pairs, sel);
    std::vector<uint32_t> p2(k), b2(k);
    for (uint32_t i = 0; i < k; i++) { p2[i] = pi[sel[i]]; b2[i] = bi[sel[i]]; }
    pi.swap(p2);
    bi.swap(b2);
  }
  if (single_match)
    for (size_t i = 1; i < pi.size(); i++)
      if (pi[i] == pi[i - 1])
        throw UserError(ErrorKind::Constraint, "more than one row returned by a subquery used as an expression");
  switch (join_type) {
    case LJoinType::Mark: {
      std::vector<uint8_t> hit(in.size, 0);
      for (uint32_t p : pi) hit[p] = 1;
      out.cols.resize(np + 1);
      for (size_t c = 0; c < np; c++) {
        out.cols[c].Init(in.cols[c].type(), std::max<uint32_t>(in.size, 1));
        CopyRows(in.cols[c], nullptr, in.size, out.cols[c], 0);
      }
      Vector& mark = out.cols[np];
      mark.Init(Type::Boolean(), std::max<uint32_t>(in.size, 1));
      for (uint32_t i = 0; i < in.size; i++) {
        mark.data<uint8_t>()[i] = hit[i];
        if (!hit[i] && null_aware && build_rows_ > 0) {
          bool null_probe = false;
          for (auto& k : keys) null_probe |= !k.IsValid(i);
          if (null_probe || build_has_null_key_) mark.SetNull(i);
        }
      }
      out.size = in.size;
      return;
    }
    case LJoinType::Inner:
    case LJoinType::Cross: assemble(pi, bi, out); return;
    case LJoinType::Semi:
    case LJoinType::Anti: {
      std::vector<uint8_t> hit(in.size, 0);
      if (counted) {  // the build rows are distinct: at most one match per probe row
        for (size_t m = 0; m < pi.size(); m++)
          hit[pi[m]] = remaining_[bi[m]].fetch_sub(1, std::memory_order_relaxed) > 0;
      } else {
        for (uint32_t p : pi) hit[p] = 1;
      }
      std::vector<uint32_t> sel;
      for (uint32_t i = 0; i < in.size; i++)
        if (hit[i] == (join_type == LJoinType::Semi)) sel.push_back(i);
      SliceChunk(in, sel.data(), (uint32_t)sel.size(), out);
      return;
    }
    case LJoinType::RightSemi:
    case LJoinType::RightAnti:  // its rows come after the probe (PhysicalJoinUnmatched)
      for (uint32_t b : bi) matched_[b].store(1, std::memory_order_relaxed);
      out.cols.clear();
      out.size = 0;
      return;
    case LJoinType::Full:
      for (uint32_t b : bi) matched_[b].store(1, std::memory_order_relaxed);
      [[fallthrough]];
    case LJoinType::Left: {
      std::vector<uint8_t> hit(in.size, 0);
      for (uint32_t p : pi) hit[p] = 1;
      std::vector<uint32_t> miss;
      for (uint32_t i = 0; i < in.size; i++)
        if (!hit[i]) miss.push_back(i);
      DataChunk matched;
      assemble(pi, bi, matched);
      uint32_t m = matched.size, u = (uint32_t)miss.size();
      out.cols.resize(np + nb);
      for (size_t c = 0; c < np + nb; c++) {
        Type t = c < np ? in.cols[c].type() : build_types[c - np];
        out.cols[c].Init(t, std::max<uint32_t>(m + u, 1));
        CopyRows(matched.cols[c], nullptr, m, out.cols[c], 0);
        if (c < np) CopyRows(in.cols[c], miss.data(), u, out.cols[c], m);
        else
          for (uint32_t i = 0; i < u; i++) out.cols[c].SetNull(m + i);
      }
      out.size = m + u;
      return;
    }
  }
}

void PhysicalHashJoin::EmitBuildRows(uint32_t begin, uint32_t end, const std::vector<Type>& probe_types,
                                     DataChunk& out) const {
  const uint8_t want = join_type == LJoinType::RightSemi;  // matched rows, else unmatched ones
  std::vector<uint32_t> rows;
  for (uint32_t r = begin; r < end && r < build_rows_; r++)
    if (matched_[r].load(std::memory_order_relaxed) == want) rows.push_back(r);
  const uint32_t m = (uint32_t)rows.size();
  const size_t np = probe_types.size(), nb = build_types.size();
  out.cols.resize(np + nb);
  for (size_t c = 0; c < np; c++) {
    out.cols[c].Init(probe_types[c], std::max<uint32_t>(m, 1));
    for (uint32_t i = 0; i < m; i++) out.cols[c].SetNull(i);
  }
  for (size_t c = 0; c < nb; c++) {
    out.cols[np + c].Init(build_types[c], std::max<uint32_t>(m, 1));
    CopyRows(build_cols_[c], rows.data(), m, out.cols[np + c], 0);
  }
  out.size = m;
}

double PhysicalHashJoin::BuildColumnBytes() const {
  double w = 0;
  for (const Type& t : build_types) w += t.width();
  return w * (double)build_rows_;
}

}  // namespace tessera
