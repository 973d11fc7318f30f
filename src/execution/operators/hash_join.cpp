#include "execution/operators/hash_join.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>

#include "common/join_rules.hpp"
#include "common/parallel.hpp"
#include "execution/expression_executor.hpp"
#include "execution/hashing.hpp"
#include "execution/operators/basic_operators.hpp"
#include "execution/operators/join_unmatched.hpp"
#include "execution/selection.hpp"

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
  if (dict_probe_chunks_ > 0) s += " [probe by dictionary codes in " + std::to_string(dict_probe_chunks_.load()) + " chunks]";
  return s;
}

struct PhysicalHashJoin::BuildLocal : LocalState {
  std::vector<BuildChunk> chunks;
  int64_t key_min = INT64_MAX, key_max = INT64_MIN;
  bool null_key = false;
  ColumnsReadCache dense;  // the columns a selected chunk has gathered (Sink)
};

// Spans of at most this many key values get a presence bitmap (2 MB) when the table is hashed.
static constexpr uint64_t kPresenceBits = 1ull << 24;

struct PhysicalHashJoin::ProbeLocal : LocalState {
  std::vector<Vector> scratch;      // probe keys that are not plain input columns
  std::vector<const Vector*> keys;  // the probe keys of the chunk
  std::vector<uint64_t> words, hashes;
  std::vector<uint8_t> valid, hit;
  std::vector<uint32_t> pi, bi, sel;  // matches: probe row, build row
  SelPool pool;  // the selections handed on (reused)
  // The table's filter, where it is optional: rows tested and passed so far; off once
  // most rows pass (then it only costs).
  uint64_t filter_tested = 0, filter_passed = 0;
  bool filter_off = false;
  // DictProbe: the dictionary the lookups below belong to (its owner kept: equal pointers
  // then mean one dictionary), and per entry whether it was looked up, its hash and its
  // table entry (null: no build row).
  StringDict dict;
  std::shared_ptr<const void> dict_owner;
  std::vector<uint8_t> dict_known;
  std::vector<uint64_t> dict_hash;
  std::vector<const JoinEntry*> dict_entry;
  std::vector<uint32_t> dict_new;
  Vector dict_keys;
};

bool PhysicalHashJoin::GathersBuildColumns() const {
  switch (join_type) {
    case LJoinType::Semi:
    case LJoinType::Anti:
    case LJoinType::Mark: return residual != nullptr;
    default: return true;
  }
}

bool PhysicalHashJoin::CanFilterProbe() const {
  switch (join_type) {
    case LJoinType::Inner:
    case LJoinType::Right:
    case LJoinType::Semi:
    case LJoinType::RightSemi:
    case LJoinType::RightAnti: break;
    default: return false;
  }
  if (nulls_equal || counted || left_keys.size() != 1 || right_keys.size() != 1) return false;
  const BoundExpr& l = *left_keys[0];
  const BoundExpr& r = *right_keys[0];
  const PhysType p = l.type.physical();
  return l.kind == BExpr::Column && l.type == r.type && l.type.id != TypeId::Null &&
         (p == PhysType::I32 || p == PhysType::I64);
}

// The build keys' set: their range (from the sink), and a bit a key where the range is
// small enough (f.max_bits), set by all threads. For the probe side's scan (key_filter) and
// for the join's own probe (presence_).
void PhysicalHashJoin::FillKeySet(JoinKeyFilter& f) {
  if (!(nkeys_ == 1 && packed_)) return;  // never published: lets every row through
  const PhysType p = build_col_types_[key_col_[0]].physical();
  if (p != PhysType::I32 && p != PhysType::I64) return;
  f.Start(key_min_, key_max_);
  if (f.HasBitmap()) {
    const unsigned th = build_rows_ < (1u << 16) ? 1 : threads;
    ParallelFor(collected_.size(), th, [&](uint64_t ci, unsigned) {
      const Vector& k = collected_[ci].chunk.cols[key_col_[0]];
      const uint32_t m = collected_[ci].chunk.size;
      const uint8_t* v = k.validity_or_null();
      auto add = [&](const auto* x) {
        for (uint32_t i = 0; i < m; i++)
          if (!v || v[i]) f.Add((int64_t)x[i]);
      };
      if (p == PhysType::I32) add(k.data<int32_t>());
      else add(k.data<int64_t>());
    });
  }
  f.Publish();
}

bool PhysicalHashJoin::FirstMatchOnly() const { return !GathersBuildColumns() && !counted; }

// Where each build key is found among a build chunk's columns: a key that is a payload
// column of its own type is that column; any other is evaluated and appended.
void PhysicalHashJoin::PlanKeys() {
  nkeys_ = right_keys.size();
  build_col_types_ = build_types;
  key_col_.assign(nkeys_, 0);
  std::vector<PhysType> phys;
  for (size_t k = 0; k < nkeys_; k++) {
    const BoundExpr& e = *right_keys[k];
    if (e.kind == BExpr::Column && e.index >= 0 && (size_t)e.index < build_types.size() &&
        build_types[e.index] == e.type) {
      key_col_[k] = (size_t)e.index;
    } else {
      key_col_[k] = build_col_types_.size();
      build_col_types_.push_back(e.type);
    }
    phys.push_back(e.type.physical());
    if (k < left_keys.size() && left_keys[k]->type.physical() != e.type.physical()) phys.back() = PhysType::Str;
  }
  build_ncols_ = build_col_types_.size();
  packed_ = nkeys_ > 0 && !nulls_equal && PackableKeys(phys);
  residual_reads_.clear();
  if (residual && !children.empty()) {
    residual_reads_.assign(children[0]->types.size() + build_types.size(), 0);
    std::function<void(const BoundExpr&)> visit = [&](const BoundExpr& e) {
      if (e.kind == BExpr::Column) {
        if (e.index >= 0 && (size_t)e.index < residual_reads_.size()) residual_reads_[e.index] = 1;
        else std::fill(residual_reads_.begin(), residual_reads_.end(), 1);
      }
      for (const auto& c : e.children)
        if (c) visit(*c);
    };
    visit(*residual);
  }
}

void PhysicalHashJoin::KeyWords(const std::vector<const Vector*>& keys, uint32_t n, uint64_t* words) const {
  if (packed_) {
    PackKeys(keys.data(), keys.size(), n, words);
    return;
  }
  for (size_t k = 0; k < keys.size(); k++) HashColumn(*keys[k], n, k == 0, words);
}

template <class F>
void PhysicalHashJoin::ForTableRows(const BuildChunk& b, F&& f) const {
  const uint32_t m = b.chunk.size;
  const bool exact = packed_;
  const uint64_t* w = b.words.data();
  const uint8_t* valid[2] = {nullptr, nullptr};
  std::vector<uint8_t> all;
  if (b.null_key && !nulls_equal) {
    size_t nv = 0;
    for (size_t k = 0; k < nkeys_; k++)
      if (const uint8_t* v = b.chunk.cols[key_col_[k]].validity_or_null()) {
        if (nv < 2) valid[nv++] = v;
        else {  // more than two nullable keys: combine them
          if (all.empty()) {
            all.assign(valid[1], valid[1] + m);
            valid[1] = all.data();
          }
          for (uint32_t i = 0; i < m; i++) all[i] &= v[i];
        }
      }
  }
  if (!valid[0]) {
    for (uint32_t i = 0; i < m; i++) f(i, w[i], JoinHashTable::HashOf(w[i], exact));
    return;
  }
  for (uint32_t i = 0; i < m; i++)
    if (valid[0][i] && (!valid[1] || valid[1][i])) f(i, w[i], JoinHashTable::HashOf(w[i], exact));
}

std::unique_ptr<LocalState> PhysicalHashJoin::InitLocalSink() {
  std::call_once(keys_planned_, [&] { PlanKeys(); });
  return std::make_unique<BuildLocal>();
}

void PhysicalHashJoin::Sink(DataChunk& in, LocalState& ls) {
  auto& L = static_cast<BuildLocal&>(ls);
  BuildChunk b;
  const uint32_t n = in.size;
  if (!in.sel.empty()) {
    // A selected chunk: the columns the sink reads (keys, the columns of keys evaluated
    // here, a counted join's counts) gathered now; the others stay selected and are
    // gathered once, into the build columns (Finalize).
    const std::vector<uint8_t>& dense = L.dense.Get(in.cols.size(), [&](std::vector<uint8_t>& m) {
      for (size_t k = 0; k < nkeys_; k++) {
        if (key_col_[k] < build_types.size()) m[key_col_[k]] = 1;
        OrColumnsRead(*right_keys[k], m);
      }
      if (counted && !m.empty()) m.back() = 1;
    });
    FlattenChunk(in, &dense);
  }
  b.chunk.cols = std::move(in.cols);
  b.chunk.sel = std::move(in.sel);
  b.chunk.size = n;
  b.chunk.batch = in.batch;
  b.chunk.cols.resize(build_ncols_);
  if (!b.chunk.sel.empty()) b.chunk.sel.resize(build_ncols_);
  std::vector<const Vector*> keys(nkeys_);
  for (size_t k = 0; k < nkeys_; k++) {
    Vector& kv = b.chunk.cols[key_col_[k]];
    if (key_col_[k] >= build_types.size()) Evaluate(*right_keys[k], b.chunk, kv);
    keys[k] = &kv;
    if (const uint8_t* v = kv.validity_or_null())
      for (uint32_t i = 0; i < n && !b.null_key; i++) b.null_key = !v[i];
  }
  L.null_key |= b.null_key;
  b.words.resize(n);
  KeyWords(keys, n, b.words.data());
  // Rows per radix of the table's hash, the NULL keys left out (they never match) unless
  // NULLs are equal.
  b.radix_rows.assign(1u << JoinHashTable::kRadixBits, 0);
  ForTableRows(b, [&](uint32_t, uint64_t, uint64_t h) { b.radix_rows[JoinHashTable::Radix(h)]++; });
  // The range of a single integer key, for the direct-mapped table.
  if (nkeys_ == 1 && packed_) {
    const Vector& k = *keys[0];
    const uint8_t* v = k.validity_or_null();
    auto range = [&](const auto* x) {
      for (uint32_t i = 0; i < n; i++)
        if (!v || v[i]) {
          L.key_min = std::min<int64_t>(L.key_min, x[i]);
          L.key_max = std::max<int64_t>(L.key_max, x[i]);
        }
    };
    if (k.type().physical() == PhysType::I32) range(k.data<int32_t>());
    else if (k.type().physical() == PhysType::I64) range(k.data<int64_t>());
  }
  L.chunks.push_back(std::move(b));
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
  dict_probe_chunks_ = 0;
  dense_min_ = 0;
  decltype(dense_)().swap(dense_);
  presence_.Clear();
  key_min_ = INT64_MAX;
  key_max_ = INT64_MIN;
  table_.Clear();
  if (key_filter) key_filter->Clear();
}

void PhysicalHashJoin::Combine(LocalState& ls) {
  auto& L = static_cast<BuildLocal&>(ls);
  for (auto& c : L.chunks) {
    build_rows_ += c.chunk.size;
    collected_.push_back(std::move(c));
  }
  key_min_ = std::min(key_min_, L.key_min);
  key_max_ = std::max(key_max_, L.key_max);
  build_has_null_key_ |= L.null_key;
}

// The build, in parallel passes over the sunk chunks (whose key words and rows per hash
// radix the sink computed): (1) copy the columns that matches gather or compare into
// contiguous build columns (and fill the direct-mapped array where the key range allows),
// then for the hash table (2) scatter the rows' words and row numbers into their
// partitions' inputs (places from the radix counts), (3) fill each partition's table,
// (4) the Bloom filter where the table is large.
void PhysicalHashJoin::Finalize() {
  std::call_once(keys_planned_, [&] { PlanKeys(); });
  if (build_rows_ >= UINT32_MAX) throw UserError(ErrorKind::Unsupported, "hash join build side exceeds 4 billion rows");
  const uint32_t n = (uint32_t)build_rows_;
  // The rows a RightSemi/RightAnti join returns come out in the build's order: the build
  // side's source order (DataChunk::batch), as the probe side's would of a Semi/Anti join.
  if (ReturnsRightOnly(join_type))
    std::stable_sort(collected_.begin(), collected_.end(),
                     [](const BuildChunk& a, const BuildChunk& b) { return a.chunk.batch < b.chunk.batch; });
  rows_out = n;
  if (key_filter) FillKeySet(*key_filter);
  const size_t nb = build_types.size(), nchunks = collected_.size();
  const unsigned th = n < (1u << 16) ? 1 : threads;
  // Columns kept: the payload where matches gather it, the keys where they are compared.
  std::vector<uint8_t> keep(build_ncols_, 0);
  if (GathersBuildColumns() || nkeys_ == 0) {
    // A semi, anti or mark join gathers build columns only for its residual.
    const bool for_residual = !residual_reads_.empty() && (join_type == LJoinType::Semi ||
                                                           join_type == LJoinType::Anti || join_type == LJoinType::Mark);
    const size_t np = residual_reads_.size() - nb;
    for (size_t c = 0; c < nb; c++) keep[c] = !for_residual || residual_reads_[np + c];
  }
  if (!packed_)
    for (size_t k = 0; k < nkeys_; k++) keep[key_col_[k]] = 1;
  build_cols_.resize(build_ncols_);
  // Kept columns get every row from the parallel copies below: not zeroed here first.
  for (size_t c = 0; c < build_ncols_; c++) {
    if (keep[c]) build_cols_[c].InitForOverwrite(build_col_types_[c], std::max<uint32_t>(n, 1));
    else build_cols_[c].Init(build_col_types_[c], 1);
  }
  std::vector<uint32_t> off(nchunks + 1, 0);
  for (size_t i = 0; i < nchunks; i++) off[i + 1] = off[i] + collected_[i].chunk.size;
  if (counted) remaining_ = std::make_unique<std::atomic<int64_t>[]>(std::max<uint32_t>(n, 1));
  if (join_type == LJoinType::Full || join_type == LJoinType::Right || ReturnsRightOnly(join_type)) matched_ = std::make_unique<std::atomic<uint8_t>[]>(std::max<uint32_t>(n, 1));
  // Direct-mapped for one integer key whose range is small next to the rows
  // (common/join_rules.hpp), if its non-NULL keys turn out unique, or whatever they are
  // where a probe only asks whether its key is there (a slot then holds any of its rows).
  bool dense = false;
  if (nkeys_ == 1 && packed_ && n > 0 && key_max_ >= key_min_ &&
      DirectMappedKeys((uint64_t)(key_max_ - key_min_), n)) {
    PhysType p = build_col_types_[key_col_[0]].physical();
    if (p == PhysType::I32 || p == PhysType::I64) {
      dense = true;
      // Up to 16 slots a row (join_rules.hpp): zeroed by all threads, not one.
      dense_.clear();
      dense_.resize((size_t)(key_max_ - key_min_ + 1));
      constexpr size_t kBlock = 1u << 20;
      const size_t blocks = (dense_.size() + kBlock - 1) / kBlock;
      ParallelFor(blocks, th, [&](uint64_t b, unsigned) {
        const size_t from = b * kBlock, to = std::min(dense_.size(), from + kBlock);
        std::memset(dense_.data() + from, 0, (to - from) * sizeof(uint32_t));
      });
    }
  }
  std::atomic<bool> dense_dup{false};
  // What copying a chunk would change in a build column besides its rows (the validity
  // array materialised, string storage kept alive) is done here, before the chunks are
  // copied in parallel, so that the copies only write their own rows.
  for (size_t c = 0; c < build_ncols_; c++) {
    if (!keep[c]) continue;
    bool nulls = false;
    for (const BuildChunk& b : collected_) {
      nulls |= b.chunk.cols[c].has_nulls();
      if (build_col_types_[c].physical() == PhysType::Str) build_cols_[c].ShareStrings(b.chunk.cols[c]);
    }
    if (nulls) build_cols_[c].validity();
  }
  ParallelFor(nchunks, th, [&](uint64_t ci, unsigned) {
    const DataChunk& ch = collected_[ci].chunk;
    const uint32_t m = ch.size, o = off[ci];
    for (size_t c = 0; c < build_ncols_; c++)
      if (keep[c]) CopyRows(ch.cols[c], ch.ColumnSel(c), m, build_cols_[c], o);
    if (counted) {
      const int64_t* cnt = ch.cols[nb - 1].data<int64_t>();
      for (uint32_t i = 0; i < m; i++) remaining_[o + i].store(cnt[i], std::memory_order_relaxed);
    }
    if (matched_)
      for (uint32_t i = 0; i < m; i++) matched_[o + i].store(0, std::memory_order_relaxed);
    if (dense) {
      const Vector& k = ch.cols[key_col_[0]];
      const uint8_t* v = k.validity_or_null();
      const bool any_row = FirstMatchOnly();
      auto fill = [&](const auto* x) {
        for (uint32_t i = 0; i < m; i++) {
          if (v && !v[i]) continue;
          if (any_row) {
            std::atomic_ref<uint32_t>(dense_[(uint64_t)(int64_t)x[i] - (uint64_t)key_min_]).store(o + i + 1, std::memory_order_relaxed);
            continue;
          }
          uint32_t expect = 0;
          if (!std::atomic_ref<uint32_t>(dense_[(uint64_t)(int64_t)x[i] - (uint64_t)key_min_]).compare_exchange_strong(expect, o + i + 1,
                                                                                                    std::memory_order_relaxed)) {
            dense_dup.store(true, std::memory_order_relaxed);
            return;
          }
        }
      };
      if (k.type().physical() == PhysType::I32) fill(k.data<int32_t>());
      else fill(k.data<int64_t>());
    }
  });
  if (dense && !dense_dup.load()) {
    is_dense_ = true;
    dense_min_ = key_min_;
    collected_.clear();
    return;
  }
  decltype(dense_)().swap(dense_);
  if (nkeys_ == 0) {
    collected_.clear();
    return;
  }
  // A presence bitmap for one integer key over a span too wide for the direct-mapped
  // array (TPC-H q17 at SF10: 2,025 parts spread over 2 M part keys, 256 KB of bits): a
  // probe key tests its bit, and only keys with a row are hashed and looked up. NULLs-equal
  // joins keep the plain lookup (a NULL key has no bit). A join whose key set is passed to
  // the probe side's scan (key_filter, the same bits) has its probe rows tested there.
  if (!key_filter && !nulls_equal && n > 0 && key_max_ >= key_min_ &&
      (uint64_t)(key_max_ - key_min_) < kPresenceBits) {
    presence_.max_bits = kPresenceBits;
    FillKeySet(presence_);
  }
  // The hash table. Rows with a NULL key are left out (they never match) unless NULLs
  // are equal.
  table_.Init(n, packed_, !FirstMatchOnly());
  const uint32_t P = table_.Partitions();
  std::vector<uint64_t> start((size_t)nchunks * P + 1, 0);  // per (chunk, partition): first place
  const uint32_t per_part = (1u << JoinHashTable::kRadixBits) / P;
  for (size_t ci = 0; ci < nchunks; ci++)
    for (uint32_t r = 0; r < (1u << JoinHashTable::kRadixBits); r++) start[ci * P + r / per_part] += collected_[ci].radix_rows[r];
  // Each partition's input: the rows of chunk 0, then those of chunk 1, ...
  for (uint32_t p = 0; p < P; p++) {
    uint64_t sum = 0;
    for (size_t ci = 0; ci < nchunks; ci++) {
      uint64_t c = start[ci * P + p];
      start[ci * P + p] = sum;
      sum += c;
    }
    table_.AllocateInput(p, sum);
  }
  ParallelFor(nchunks, th, [&](uint64_t ci, unsigned) {
    uint64_t* cur = &start[ci * P];
    const uint32_t o = off[ci];
    ForTableRows(collected_[ci], [&](uint32_t i, uint64_t w, uint64_t h) {
      const uint32_t p = table_.PartitionOf(h);
      const uint64_t at = cur[p]++;
      table_.InputWords(p)[at] = w;
      table_.InputRows(p)[at] = o + i;
    });
  });
  collected_.clear();
  ParallelFor(P, th, [&](uint64_t p, unsigned) {
    table_.BuildPartition((uint32_t)p, [&](uint32_t a, uint32_t b) {
      for (size_t k = 0; k < nkeys_; k++)
        if (!ValuesEqual(build_cols_[key_col_[k]], a, build_cols_[key_col_[k]], b)) return false;
      return true;
    });
  });
  table_.BuildFilter([&](uint64_t tasks, auto&& f) { ParallelFor(tasks, th, [&](uint64_t t, unsigned) { f(t); }); });
}

std::unique_ptr<LocalState> PhysicalHashJoin::InitLocalOperator() { return std::make_unique<ProbeLocal>(); }

bool PhysicalHashJoin::KeysEqual(const std::vector<const Vector*>& probe, uint32_t i, uint32_t row) const {
  for (size_t k = 0; k < nkeys_; k++)
    if (!ValuesEqual(*probe[k], i, build_cols_[key_col_[k]], row)) return false;
  return true;
}

void PhysicalHashJoin::Match(uint32_t n, const std::vector<const Vector*>& keys, ProbeLocal& L) const {
  auto& pi = L.pi;
  auto& bi = L.bi;
  pi.clear();
  bi.clear();
  if (nkeys_ == 0) {  // cross product
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t r = 0; r < build_rows_; r++) { pi.push_back(i); bi.push_back(r); }
    return;
  }
  if (build_rows_ == 0) return;
  // Probe rows with a NULL key never match, unless NULLs are equal.
  const uint8_t* valid = nullptr;
  if (!nulls_equal) {
    for (const Vector* k : keys)
      if (const uint8_t* v = k->validity_or_null()) {
        if (!valid) {
          L.valid.assign(v, v + n);
          valid = L.valid.data();
        } else {
          for (uint32_t i = 0; i < n; i++) L.valid[i] &= v[i];
        }
      }
  }
  if (is_dense_) {
    const uint64_t range = dense_.size();
    auto probe = [&](const auto* x) {
      for (uint32_t i = 0; i < n; i++) {
        if (valid && !valid[i]) continue;
        const uint64_t o = (uint64_t)(int64_t)x[i] - (uint64_t)dense_min_;
        if (o < range && dense_[o]) { pi.push_back(i); bi.push_back(dense_[o] - 1); }
      }
    };
    if (keys[0]->type().physical() == PhysType::I32) probe(keys[0]->data<int32_t>());
    else probe(keys[0]->data<int64_t>());
    return;
  }
  const PhysType kt = keys[0]->type().physical();
  if (presence_.HasBitmap() && (kt == PhysType::I32 || kt == PhysType::I64)) {
    // The rows whose key has its bit (JoinKeyFilter::Apply, the scans' test), then the
    // lookups of those alone. The word of one integer key is the key (PackKeys).
    auto& cand = L.sel;
    cand.resize(n);
    const uint32_t nc = presence_.Apply(*keys[0], nullptr, n, cand.data());
    auto key = [&](uint32_t i) {
      return kt == PhysType::I32 ? (uint64_t)(int64_t)keys[0]->data<int32_t>()[i] : (uint64_t)keys[0]->data<int64_t>()[i];
    };
    for (uint32_t j = 0; j < nc; j++) {
      const uint64_t w = key(cand[j]);
      const uint64_t h = table_.Hash(w);
      const JoinEntry* e = table_.Find(h, w, [](uint32_t) { return true; });
      if (!e) continue;  // cannot happen: the bit says a build row has this key
      table_.ForEachRow(h, *e, [&](uint32_t r) {
        pi.push_back(cand[j]);
        bi.push_back(r);
      });
    }
    return;
  }
  if (nkeys_ == 1 && !packed_ && !nulls_equal && DictProbe(n, *keys[0], valid, L)) return;
  L.words.resize(n);
  uint64_t* w = L.words.data();
  KeyWords(keys, n, w);
  const uint64_t* h = w;  // hashed keys are their own words
  if (packed_) {
    L.hashes.resize(n);
    for (uint32_t i = 0; i < n; i++) L.hashes[i] = HashMix(w[i]);
    h = L.hashes.data();
  }
  // The rows to look up: those with a key that the table's filter does not rule out.
  auto& cand = L.sel;
  cand.resize(n);
  uint32_t nc = 0;
  if (table_.HasFilter() && !L.filter_off) {
    for (uint32_t i = 0; i < n; i++) {
      cand[nc] = i;
      nc += (!valid || valid[i]) && table_.MayContain(h[i]);
    }
    if (table_.FilterOptional()) {
      L.filter_tested += n;
      L.filter_passed += nc;
      L.filter_off = L.filter_tested >= (1u << 14) && L.filter_passed * 2 > L.filter_tested;
    }
  } else {
    for (uint32_t i = 0; i < n; i++) {
      cand[nc] = i;
      nc += !valid || valid[i];
    }
  }
  // A batch's table slots are prefetched before it looks them up.
  constexpr uint32_t kBatch = 16;
  auto probe = [&](auto same_key) {
    for (uint32_t j = 0; j < std::min(nc, kBatch); j++) table_.Prefetch(h[cand[j]]);
    for (uint32_t b0 = 0; b0 < nc; b0 += kBatch) {
      const uint32_t b1 = std::min(nc, b0 + kBatch);
      for (uint32_t j = b1; j < std::min(nc, b1 + kBatch); j++) table_.Prefetch(h[cand[j]]);
      for (uint32_t j = b0; j < b1; j++) {
        const uint32_t i = cand[j];
        const JoinEntry* e = table_.Find(h[i], w[i], [&](uint32_t r) { return same_key(i, r); });
        if (!e) continue;
        table_.ForEachRow(h[i], *e, [&](uint32_t r) {
          pi.push_back(i);
          bi.push_back(r);
        });
      }
    }
  };
  if (packed_) probe([](uint32_t, uint32_t) { return true; });
  else probe([&](uint32_t i, uint32_t r) { return KeysEqual(keys, i, r); });
}

// One VARCHAR key in dictionary form: the entries this chunk uses that were not looked up
// yet under its dictionary are hashed (KeyWords' hash of one key) and found in the table
// once; every row then takes its entry's build rows by its code. False (nothing done) when
// the key is not in dictionary form.
bool PhysicalHashJoin::DictProbe(uint32_t n, const Vector& key, const uint8_t* valid, ProbeLocal& L) const {
  if (!key.has_dict() || key.type().physical() != PhysType::Str ||
      build_cols_[key_col_[0]].type().physical() != PhysType::Str)
    return false;
  const StringDict& d = key.dict();
  if (!L.dict.SameAs(d) || L.dict_owner != key.dict_owner()) {
    L.dict = d;
    L.dict_owner = key.dict_owner();
    L.dict_known.assign(d.size, 0);
    L.dict_hash.resize(d.size);
    L.dict_entry.resize(d.size);
  }
  dict_probe_chunks_.fetch_add(1, std::memory_order_relaxed);
  const uint32_t* codes = key.dict_codes();
  L.dict_new.clear();
  for (uint32_t i = 0; i < n; i++) {
    if (valid && !valid[i]) continue;
    const uint32_t c = codes[i];
    if (L.dict_known[c]) continue;
    L.dict_known[c] = 1;
    L.dict_new.push_back(c);
  }
  if (const uint32_t m = (uint32_t)L.dict_new.size()) {
    Vector& e = L.dict_keys;
    e.Init(key.type(), m);
    StrRef* s = e.data<StrRef>();
    for (uint32_t j = 0; j < m; j++) s[j] = d.Entry(L.dict_new[j]);
    std::vector<uint64_t> h(m);
    const std::vector<const Vector*> one{&e};
    KeyWords(one, m, h.data());  // hashed keys are their own words
    const Vector& build_keys = build_cols_[key_col_[0]];
    for (uint32_t j = 0; j < m; j++) {
      const uint32_t c = L.dict_new[j];
      L.dict_hash[c] = h[j];
      L.dict_entry[c] = table_.Find(h[j], h[j], [&](uint32_t r) { return ValuesEqual(e, j, build_keys, r); });
    }
  }
  auto& pi = L.pi;
  auto& bi = L.bi;
  for (uint32_t i = 0; i < n; i++) {
    if (valid && !valid[i]) continue;
    const uint32_t c = codes[i];
    if (const JoinEntry* e = L.dict_entry[c])
      table_.ForEachRow(L.dict_hash[c], *e, [&](uint32_t r) {
        pi.push_back(i);
        bi.push_back(r);
      });
  }
  return true;
}

// The pairs (probe row p[j], build row b[j]) a residual is evaluated over, dense: the
// probe columns, then the build columns; the columns `only` does not mark are left empty
// (the residual does not read them).
void PhysicalHashJoin::Assemble(const DataChunk& in, const std::vector<uint32_t>& p, const std::vector<uint32_t>& b,
                                DataChunk& o, const std::vector<uint8_t>* only) const {
  const uint32_t m = (uint32_t)p.size();
  const size_t np = in.cols.size(), nb = build_types.size();
  if (only && only->size() != np + nb) only = nullptr;
  o.cols.resize(np + nb);
  o.sel.clear();
  for (size_t c = 0; c < np + nb; c++) {
    const Type& t = c < np ? in.cols[c].type() : build_types[c - np];
    if (only && !(*only)[c]) {  // not read: an empty placeholder
      o.cols[c].Init(t, 1);
      continue;
    }
    if (c < np) {
      GatherColumn(in, c, p.data(), m, o.cols[c]);
      continue;
    }
    o.cols[c].Init(t, std::max<uint32_t>(m, 1));
    CopyRows(build_cols_[c - np], b.data(), m, o.cols[c], 0);
  }
  o.size = m;
}

// Output rows (probe row p[j], build row b[j]) without copying values: the probe columns
// handed on as a selection over the input's vectors, the build columns as views of the
// build columns (Vector::SetView; they live until the plan runs again) under the
// selection b.
void PhysicalHashJoin::SelectProbe(DataChunk& in, const std::vector<uint32_t>& p, const std::vector<uint32_t>& b,
                                   DataChunk& o, SelPool& pool) const {
  const uint32_t m = (uint32_t)p.size();
  const size_t np = in.cols.size(), nb = build_types.size();
  bool identity = m == in.size;
  for (uint32_t i = 0; i < m && identity; i++) identity = p[i] == i;
  o = std::move(in);
  if (!identity) SelectRows(o, p.data(), m, &pool);
  o.cols.resize(np + nb);
  o.sel.resize(np + nb);
  SelPtr bsel;
  for (size_t c = 0; c < nb; c++) {
    Vector& v = o.cols[np + c];
    if (m > 0 && build_cols_[c].capacity() >= build_rows_) {
      if (!bsel) {
        std::shared_ptr<SelVec> s = pool.Take(m);
        std::copy(b.begin(), b.begin() + m, s->begin());
        bsel = std::move(s);
      }
      v.SetView(build_cols_[c]);
      o.sel[np + c] = bsel;
      continue;
    }
    v.Init(build_types[c], std::max<uint32_t>(m, 1));
    CopyRows(build_cols_[c], b.data(), m, v, 0);
  }
  o.size = m;
}

void PhysicalHashJoin::Execute(DataChunk& in, DataChunk& out, LocalState& ls) {
  auto& L = static_cast<ProbeLocal&>(ls);
  const size_t nk = left_keys.size();
  L.scratch.resize(nk);
  L.keys.resize(nk);
  for (size_t k = 0; k < nk; k++) L.keys[k] = &EvaluateSelected(*left_keys[k], in, L.scratch[k]);
  Match(in.size, L.keys, L);
  auto& pi = L.pi;
  auto& bi = L.bi;
  if (ReturnsRightOnly(join_type)) {  // a build row marked already needs no more pairs
    size_t k = 0;
    for (size_t m = 0; m < pi.size(); m++)
      if (!matched_[bi[m]].load(std::memory_order_relaxed)) { pi[k] = pi[m]; bi[k] = bi[m]; k++; }
    pi.resize(k);
    bi.resize(k);
  }
  const size_t np = in.cols.size(), nb = build_types.size();
  if (residual) {  // keep only pairs satisfying the residual condition
    DataChunk pairs;
    Assemble(in, pi, bi, pairs, &residual_reads_);
    uint32_t k = EvaluateFilter(*residual, pairs, L.sel);
    for (uint32_t i = 0; i < k; i++) {
      pi[i] = pi[L.sel[i]];
      bi[i] = bi[L.sel[i]];
    }
    pi.resize(k);
    bi.resize(k);
  }
  if (single_match)
    for (size_t i = 1; i < pi.size(); i++)
      if (pi[i] == pi[i - 1])
        throw UserError(ErrorKind::Constraint, "More than one row returned by a subquery used as an expression - scalar subqueries can only return a single row.");
  auto& hit = L.hit;
  switch (join_type) {
    case LJoinType::Mark: {
      hit.assign(in.size, 0);
      for (uint32_t p : pi) hit[p] = 1;
      Vector mark(Type::Boolean(), std::max<uint32_t>(in.size, 1));
      for (uint32_t i = 0; i < in.size; i++) {
        mark.data<uint8_t>()[i] = hit[i];
        if (!hit[i] && null_aware && build_rows_ > 0) {
          bool null_probe = false;
          for (const Vector* k : L.keys) null_probe |= !k->IsValid(i);
          if (null_probe || build_has_null_key_) mark.SetNull(i);
        }
      }
      out = std::move(in);
      out.cols.push_back(std::move(mark));
      if (!out.sel.empty()) out.sel.resize(out.cols.size());
      return;
    }
    case LJoinType::Right:  // the pairs now; the build rows left unmarked after the probe
      for (uint32_t b : bi) matched_[b].store(1, std::memory_order_relaxed);
      [[fallthrough]];
    case LJoinType::Inner:
    case LJoinType::Cross: SelectProbe(in, pi, bi, out, L.pool); return;
    case LJoinType::Semi:
    case LJoinType::Anti: {
      hit.assign(in.size, 0);
      if (counted) {  // the build rows are distinct: at most one match per probe row
        for (size_t m = 0; m < pi.size(); m++)
          hit[pi[m]] = remaining_[bi[m]].fetch_sub(1, std::memory_order_relaxed) > 0;
      } else {
        for (uint32_t p : pi) hit[p] = 1;
      }
      auto& sel = L.sel;
      sel.clear();
      for (uint32_t i = 0; i < in.size; i++)
        if (hit[i] == (join_type == LJoinType::Semi)) sel.push_back(i);
      out = std::move(in);
      if (sel.size() != out.size) SelectRows(out, sel.data(), (uint32_t)sel.size(), &L.pool);
      return;
    }
    case LJoinType::RightSemi:
    case LJoinType::RightAnti:  // its rows come after the probe (PhysicalJoinUnmatched)
      for (uint32_t b : bi) matched_[b].store(1, std::memory_order_relaxed);
      out.cols.clear();
      out.sel.clear();
      out.size = 0;
      return;
    case LJoinType::Full:
      for (uint32_t b : bi) matched_[b].store(1, std::memory_order_relaxed);
      [[fallthrough]];
    case LJoinType::Left: {
      hit.assign(in.size, 0);
      for (uint32_t p : pi) hit[p] = 1;
      auto& miss = L.sel;
      miss.clear();
      for (uint32_t i = 0; i < in.size; i++)
        if (!hit[i]) miss.push_back(i);
      if (miss.empty()) {
        SelectProbe(in, pi, bi, out, L.pool);
        return;
      }
      // The matched rows, then the probe rows without a match (build columns NULL).
      const uint32_t m = (uint32_t)pi.size(), u = (uint32_t)miss.size();
      pi.insert(pi.end(), miss.begin(), miss.end());
      out = std::move(in);
      SelectRows(out, pi.data(), m + u, &L.pool);
      out.cols.resize(np + nb);
      out.sel.resize(np + nb);
      for (size_t c = 0; c < nb; c++) {
        Vector& v = out.cols[np + c];
        v.Init(build_types[c], m + u);
        CopyRows(build_cols_[c], bi.data(), m, v, 0);
        uint8_t* valid = v.validity();
        std::memset(valid + m, 0, u);
      }
      out.size = m + u;
      return;
    }
    case LJoinType::AsOf:
    case LJoinType::AsOfLeft:
    case LJoinType::AsOfRight:
    case LJoinType::AsOfFull: throw InternalError("an ASOF join planned as a hash join");  // asof_join.hpp
  }
}

void PhysicalHashJoin::EmitBuildRows(uint32_t begin, uint32_t end, const std::vector<Type>& probe_types,
                                     DataChunk& out) const {
  const uint8_t want = join_type == LJoinType::RightSemi;  // matched rows, else unmatched ones
  std::vector<uint32_t> rows;
  for (uint32_t r = begin; r < end && r < build_rows_; r++)
    if (matched_[r].load(std::memory_order_relaxed) == want) rows.push_back(r);
  NullPaddedBuildRows(probe_types, build_types, build_cols_, rows, out);
}

double PhysicalHashJoin::BuildColumnBytes() const {
  double w = 0;
  for (size_t c = 0; c < build_types.size() && c < build_cols_.size(); c++)
    if (build_cols_[c].capacity() >= build_rows_) w += build_types[c].width();  // the columns kept
  return w * (double)build_rows_;
}

}  // namespace tessera
