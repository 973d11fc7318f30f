// GroupTable's hash table: finding and creating groups, merging tables (see group_table.hpp).
// The aggregate states' update, merge and output rules are in aggregate_states.cpp.
#include "execution/operators/group_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "execution/expression_executor.hpp"
#include "execution/hashing.hpp"
#include "function/function_registry.hpp"

namespace tessera {

static bool IsVariance(const std::string& n) {
  return n == "var_samp" || n == "var_pop" || n == "stddev_samp" || n == "stddev_pop";
}
static bool IsCovariance(const std::string& n) {
  return n == "covar_samp" || n == "covar_pop" || n == "corr" || n.starts_with("regr_");
}
static bool IsHolistic(const std::string& n) {
  return n == "median" || n == "quantile_cont" || n == "quantile_disc" || n == "mode" || n == "string_agg" ||
         n == "first" || n == "last" || n == "entropy" || n == "mad";
}
bool GroupTable::TwoInputs(const std::string& n) { return n == "arg_min" || n == "arg_max" || IsCovariance(n); }

// The state an aggregate keeps (the order of the tests decides, e.g. count_if(DISTINCT)
// counts TRUEs once, median(DISTINCT) keeps its list).
static AggKind KindOf(const std::string& n, bool distinct) {
  if (IsVariance(n) && !distinct) return AggKind::Variance;
  if (IsCovariance(n)) return AggKind::Covariance;
  if (IsHolistic(n)) return AggKind::Holistic;
  if (n == "any_value") return AggKind::First;
  if (n == "arg_min" || n == "arg_max") return AggKind::ArgExt;
  if (CountsTrueRows(n)) return AggKind::BoolCount;
  if (n == "count_star") return AggKind::CountStar;
  if (distinct) return AggKind::Distinct;
  if (n == "bit_and" || n == "bit_or" || n == "bit_xor") return AggKind::Bits;
  if (n == "product") return AggKind::Product;
  if (n == "fsum" || n == "favg") return AggKind::Kahan;
  if (n == "skewness" || n == "kurtosis" || n == "kurtosis_pop") return AggKind::Moments;
  if (n == "count") return AggKind::Count;
  if (n == "sum" || n == "avg") return AggKind::Sum;
  return AggKind::MinMax;
}

GroupTable::GroupTable(const std::vector<Type>& key_types, const std::vector<const BoundExpr*>& aggs)
    : key_types_(key_types) {
  for (auto* a : aggs) {
    AggColumn c;
    c.name = a->name;
    // approx_count_distinct counts exactly: count(DISTINCT x)'s set.
    c.distinct = a->distinct || c.name == "approx_count_distinct";
    c.kind = KindOf(c.name, c.distinct);
    c.order = a->agg_order;
    c.order_keys = (uint32_t)a->agg_order.size();
    if (c.order_keys) c.kind = AggKind::Holistic;  // any_value(x ORDER BY y) too
    c.keep_nulls = c.name == "first" || c.name == "last";
    const size_t nargs = a->children.size() - c.order_keys;
    c.out_type = a->type;
    c.in_type = a->children.empty() ? Type::BigInt() : a->children[0]->type;
    c.by_min = c.name == "arg_min";
    c.is_min = c.name == "min";
    if (c.kind == AggKind::MinMax || c.kind == AggKind::First || c.kind == AggKind::ArgExt) c.ext.Init(c.in_type, 16);
    if (c.kind == AggKind::ArgExt) c.ext2.Init(a->children[1]->type, 16);
    if (c.kind == AggKind::Holistic && nargs > 1) {  // the constant quantile or separator
      const Value& v = a->children[1]->value;
      if (c.name == "string_agg") {
        c.null_separator = v.is_null();
        if (!v.is_null()) c.separator = v.str_value();
      } else {
        c.fraction = v.double_value();
      }
    }
    c.wide = c.IntSum() && c.in_type.physical() == PhysType::I128;
    aggs_.push_back(std::move(c));
  }
  keys_.resize(key_types_.size());
  for (size_t k = 0; k < keys_.size(); k++) keys_[k].Init(key_types_[k], 16);
  capacity_ = 16;
  hashes_.assign(16, 0);
  Rehash(64);
  if (key_types_.empty()) {  // the single group of an ungrouped aggregate
    std::vector<uint32_t> g;
    FindOrCreate(std::vector<Vector>{}, 1, g);
  }
}

static void GrowVector(Vector& v, uint32_t used, uint32_t cap) {
  Vector nv(v.type(), cap);
  CopyRows(v, nullptr, used, nv, 0);
  nv.ShareStrings(v);
  v = std::move(nv);
}

void GroupTable::Grow(uint32_t need) {
  if (need <= capacity_) return;
  uint32_t cap = capacity_;
  while (cap < need) cap *= 2;
  for (auto& k : keys_) GrowVector(k, ngroups_, cap);
  for (auto& a : aggs_) {
    if (a.ext.capacity()) GrowVector(a.ext, ngroups_, cap);
    if (a.ext2.capacity()) GrowVector(a.ext2, ngroups_, cap);
  }
  hashes_.resize(cap);
  capacity_ = cap;
}

// Calls f on each state vector aggregate a's kind keeps.
template <class F>
static void ForEachState(AggColumn& a, F&& f) {
  switch (a.kind) {
    case AggKind::CountStar:
    case AggKind::Count: f(a.count); break;
    case AggKind::Sum:
      f(a.count);
      if (!a.IntSum()) f(a.dsum);
      else if (a.wide) f(a.isum);
      else f(a.lsum);
      break;
    case AggKind::BoolCount:
      f(a.count);
      f(a.lsum);
      break;
    case AggKind::MinMax:
    case AggKind::First:
    case AggKind::ArgExt: f(a.has); break;
    case AggKind::Variance:
      f(a.count);
      f(a.dsum);
      f(a.m2);
      break;
    case AggKind::Covariance:
    case AggKind::Moments:
      f(a.count);
      f(a.cov);
      break;
    case AggKind::Bits:
      f(a.count);
      f(a.lsum);
      break;
    case AggKind::Product:
      f(a.count);
      f(a.dsum);
      break;
    case AggKind::Kahan:
      f(a.count);
      f(a.dsum);
      f(a.m2);
      break;
    case AggKind::Holistic: f(a.lists); break;
    case AggKind::Distinct: f(a.sets); break;
  }
}

void GroupTable::ResizeStates(uint32_t n) {
  for (auto& a : aggs_) ForEachState(a, [&](auto& v) { v.resize(n); });
}

void GroupTable::Reserve(uint32_t n) {
  Grow(n);
  uint64_t nslots = mask_ + 1;
  while ((uint64_t)n * 2 > nslots) nslots *= 2;
  if (nslots != mask_ + 1) Rehash(nslots);
  for (auto& a : aggs_) ForEachState(a, [&](auto& v) { v.reserve(n); });
}

// Slot arrays of 2 MiB and more are 2 MiB aligned and asked to be on huge pages (random
// probes then miss the TLB far less); smaller ones come from calloc.
constexpr size_t kHugePage = 2u << 20;
void GroupTable::FreeSlots::operator()(uint64_t* p) const { std::free(p); }
static uint64_t* AllocSlots(uint64_t n) {
  const size_t bytes = n * sizeof(uint64_t);
  if (bytes < kHugePage) return static_cast<uint64_t*>(std::calloc(n, sizeof(uint64_t)));
  void* p = std::aligned_alloc(kHugePage, bytes);  // n is a power of two: bytes a multiple of 2 MiB
  if (!p) throw std::bad_alloc();
#ifdef __linux__
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  std::memset(p, 0, bytes);
  return static_cast<uint64_t*>(p);
}

void GroupTable::Rehash(uint64_t nslots) {
  slots_.reset(AllocSlots(nslots));
  if (!slots_) throw std::bad_alloc();
  mask_ = nslots - 1;
  for (uint32_t g = 0; g < ngroups_; g++) {
    const uint64_t h = hashes_[g];
    uint64_t s = h & mask_;
    while (slots_[s]) s = (s + 1) & mask_;
    slots_[s] = (h >> 32 << 32) | (g + 1);
  }
}

// The probe loop: eq(i, g) compares input row i with group g's stored keys, eq_new(i, j)
// with input row j (the row that created a group earlier in this batch, whose keys are
// stored after the loop).
template <class Eq, class EqNew>
void GroupTable::Probe(const uint64_t* h, uint32_t n, uint32_t* gids, Eq eq, EqNew eq_new) {
  const uint32_t first_new = ngroups_;
  uint64_t* slots = slots_.get();
  uint64_t* hashes = hashes_.data();
  constexpr uint32_t kAhead = 48;  // slots of later rows are prefetched: their misses overlap
  for (uint32_t i = 0; i < std::min(n, kAhead); i++) __builtin_prefetch(&slots[h[i] & mask_]);
  for (uint32_t i = 0; i < n; i++) {
    if (i + kAhead < n) __builtin_prefetch(&slots[h[i + kAhead] & mask_]);
    const uint64_t hv = h[i];
    const uint64_t tag = hv >> 32 << 32;
    uint64_t s = hv & mask_;
    for (;;) {
      const uint64_t e = slots[s];
      if (!e) {
        const uint32_t g = ngroups_++;
        slots[s] = tag | (g + 1);
        hashes[g] = hv;
        new_rows_.push_back(i);
        gids[i] = g;
        break;
      }
      if ((e & ~0xffffffffULL) == tag) {
        const uint32_t g = (uint32_t)e - 1;
        if (g >= first_new ? eq_new(i, new_rows_[g - first_new]) : eq(i, g)) {
          gids[i] = g;
          break;
        }
      }
      s = (s + 1) & mask_;
    }
  }
}

// Cell equality of one key column, NULLs equal (grouping semantics): a typed function per
// physical type, with or without NULL checks.
using CellEq = bool (*)(const Vector&, uint32_t, const Vector&, uint32_t);
template <class T, bool kNulls>
static bool CellEqual(const Vector& a, uint32_t i, const Vector& b, uint32_t j) {
  if constexpr (kNulls) {
    const bool va = a.IsValid(i), vb = b.IsValid(j);
    if (!va || !vb) return va == vb;
  }
  if constexpr (std::is_same_v<T, double>) return ops::Equals(a.data<double>()[i], b.data<double>()[j]);
  else return a.data<T>()[i] == b.data<T>()[j];
}
static CellEq CellEqualFor(PhysType p, bool nulls) {
  return DispatchPhys(p, [&]<class T>() -> CellEq { return nulls ? &CellEqual<T, true> : &CellEqual<T, false>; });
}

void GroupTable::FindOrCreate(const std::vector<Vector>& keys, uint32_t n, std::vector<uint32_t>& gids) {
  gids.resize(n);
  std::vector<const Vector*> ptrs(keys.size());
  for (size_t k = 0; k < keys.size(); k++) ptrs[k] = &keys[k];
  FindOrCreate(ptrs.data(), n, gids.data());
}

void GroupTable::FindOrCreate(const Vector* const* keys, uint32_t n, uint32_t* gids, const uint64_t* hashes,
                              const uint32_t* const* sels) {
  if (key_types_.empty()) {
    if (ngroups_ == 0) {
      ngroups_ = 1;
      ResizeStates(1);
    }
    std::fill_n(gids, n, 0);
    return;
  }
  const size_t nk = key_types_.size();
  if (!hashes) {
    hash_scratch_.resize(n);
    HashGroupKeys(keys, sels, nk, n, hash_scratch_.data());
    hashes = hash_scratch_.data();
  }
  // Room for n new groups: no growth inside the probe loop (pointers stay valid).
  Grow(ngroups_ + n);
  uint64_t nslots = mask_ + 1;
  while ((uint64_t)(ngroups_ + n) * 2 > nslots) nslots *= 2;
  if (nslots != mask_ + 1) Rehash(nslots);
  const uint32_t first_new = ngroups_;
  new_rows_.clear();
  const Vector& k0 = *keys[0];
  const PhysType p0 = k0.type().physical();
  auto sel_of = [&](size_t k) -> const uint32_t* { return sels ? sels[k] : nullptr; };
  if (nk == 1 && !k0.has_nulls() && !keys_[0].has_nulls() && (p0 == PhysType::I32 || p0 == PhysType::I64)) {
    auto run = [&]<class T>() {
      const T* in = k0.data<T>();
      const T* tab = keys_[0].data<T>();
      WithRows(sel_of(0), [&](auto at) {
        Probe(hashes, n, gids, [&](uint32_t i, uint32_t g) { return in[at[i]] == tab[g]; },
              [&](uint32_t i, uint32_t j) { return in[at[i]] == in[at[j]]; });
      });
    };
    if (p0 == PhysType::I32) run.operator()<int32_t>();
    else run.operator()<int64_t>();
  } else {
    // Per key: its comparison and its selection (row i of the batch is physical row
    // row(k, i)); compared only where a slot's tag matches, so the test a key costs is cheap.
    CellEq eqs[16];
    const uint32_t* ksel[16];
    std::vector<CellEq> more;
    std::vector<const uint32_t*> more_sel;
    CellEq* eq = nk <= 16 ? eqs : (more.resize(nk), more.data());
    const uint32_t** ks = nk <= 16 ? ksel : (more_sel.resize(nk), more_sel.data());
    for (size_t k = 0; k < nk; k++) {
      eq[k] = CellEqualFor(key_types_[k].physical(), keys[k]->has_nulls() || keys_[k].has_nulls());
      ks[k] = sel_of(k);
    }
    auto row = [&](size_t k, uint32_t i) { return ks[k] ? ks[k][i] : i; };
    Probe(
        hashes, n, gids,
        [&](uint32_t i, uint32_t g) {
          for (size_t k = 0; k < nk; k++)
            if (!eq[k](*keys[k], row(k, i), keys_[k], g)) return false;
          return true;
        },
        [&](uint32_t i, uint32_t j) {
          for (size_t k = 0; k < nk; k++)
            if (!eq[k](*keys[k], row(k, i), *keys[k], row(k, j))) return false;
          return true;
        });
  }
  const uint32_t added = ngroups_ - first_new;
  if (added) {
    for (size_t k = 0; k < nk; k++) {
      const uint32_t* rows = new_rows_.data();
      if (const uint32_t* s = sel_of(k)) {  // the new groups' physical rows in this key's vector
        new_phys_.resize(added);
        for (uint32_t j = 0; j < added; j++) new_phys_[j] = s[new_rows_[j]];
        rows = new_phys_.data();
      }
      CopyRows(*keys[k], rows, added, keys_[k], first_new);
    }
    ResizeStates(ngroups_);
  }
}

// Rows sel[0..n) of src into dst rows [0, n): values and validity, strings as views
// (their owners are adopted by the table once, not per batch).
static void GatherCells(const Vector& src, const uint32_t* sel, uint32_t n, Vector& dst) {
  const size_t w = (size_t)src.type().width();
  const uint8_t* s = src.raw();
  uint8_t* d = dst.raw();
  switch (w) {
    case 1: for (uint32_t i = 0; i < n; i++) d[i] = s[sel[i]]; break;
    case 4: for (uint32_t i = 0; i < n; i++) ((uint32_t*)d)[i] = ((const uint32_t*)s)[sel[i]]; break;
    case 8: for (uint32_t i = 0; i < n; i++) ((uint64_t*)d)[i] = ((const uint64_t*)s)[sel[i]]; break;
    case 16: for (uint32_t i = 0; i < n; i++) std::memcpy(d + (size_t)i * 16, s + (size_t)sel[i] * 16, 16); break;
    default: for (uint32_t i = 0; i < n; i++) std::memcpy(d + i * w, s + (size_t)sel[i] * w, w);
  }
  if (const uint8_t* sv = src.validity_or_null()) {
    uint8_t* dv = dst.validity();
    for (uint32_t i = 0; i < n; i++) dv[i] = sv[sel[i]];
  }
}

void GroupTable::MergeGroups(const GroupTable& other, const uint32_t* src_gids, uint32_t n, const uint64_t* hashes) {
  const size_t nk = other.keys_.size();
  std::vector<Vector> keys(nk);
  std::vector<const Vector*> ptrs(nk);
  std::vector<uint64_t> h(hashes ? 0 : n);
  std::vector<uint32_t> gids(n);
  for (size_t k = 0; k < nk; k++) {
    keys[k].Init(other.key_types_[k], std::max<uint32_t>(n, 1));
    GatherCells(other.keys_[k], src_gids, n, keys[k]);
    ptrs[k] = &keys[k];
  }
  if (nk && !hashes) {
    for (uint32_t i = 0; i < n; i++) h[i] = other.hashes_[src_gids[i]];
    hashes = h.data();
  }
  FindOrCreate(ptrs.data(), n, gids.data(), nk ? hashes : nullptr);
  for (size_t a = 0; a < aggs_.size(); a++) CombineBatch(a, gids.data(), other, src_gids, n);
}

std::shared_ptr<const void> GroupTable::StringOwners() const {
  auto owners = std::make_shared<Vector>();
  for (const Vector& k : keys_)
    if (k.type().physical() == PhysType::Str) owners->ShareStrings(k);
  for (const AggColumn& a : aggs_) {
    if (a.ext.type().physical() == PhysType::Str) owners->ShareStrings(a.ext);
    if (a.ext2.type().physical() == PhysType::Str) owners->ShareStrings(a.ext2);
  }
  return owners;
}

void GroupTable::AdoptStrings(const std::shared_ptr<const void>& owners) {
  for (Vector& k : keys_)
    if (k.type().physical() == PhysType::Str) k.KeepAlive(owners);
  for (AggColumn& a : aggs_) {
    if (a.ext.type().physical() == PhysType::Str) a.ext.KeepAlive(owners);
    if (a.ext2.type().physical() == PhysType::Str) a.ext2.KeepAlive(owners);
  }
}

void GroupTable::Merge(GroupTable& other) {
  AdoptStrings(other.StringOwners());
  std::vector<uint32_t> sel(kVectorSize);
  for (uint32_t from = 0; from < other.ngroups_; from += kVectorSize) {
    const uint32_t n = std::min(kVectorSize, other.ngroups_ - from);
    for (uint32_t i = 0; i < n; i++) sel[i] = from + i;
    MergeGroups(other, sel.data(), n);
  }
}

}  // namespace tessera
