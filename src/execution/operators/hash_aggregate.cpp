#include "execution/operators/hash_aggregate.hpp"

#include <algorithm>

#include "common/parallel.hpp"
#include "execution/operators/dict_group_keys.hpp"
#include "execution/selection.hpp"
#include "execution/expression_executor.hpp"

namespace tessera {

PhysicalHashAggregate::PhysicalHashAggregate(std::vector<Type> t, std::vector<BoundExprPtr> g,
                                             std::vector<BoundExprPtr> a)
    : PhysicalOperator(PhysKind::HashAggregate, std::move(t)), groups(std::move(g)), aggs(std::move(a)) {}

std::string PhysicalHashAggregate::Details() const {
  std::string s;
  for (size_t i = 0; i < groups.size(); i++) s += (i ? ", " : "") + groups[i]->ToString();
  if (!groups.empty()) s += " | ";
  for (size_t i = 0; i < aggs.size(); i++) s += (i ? ", " : "") + aggs[i]->ToString();
  if (dict_key_chunks > 0)  // after a run (EXPLAIN ANALYZE)
    s += " [groups by dictionary codes in " + std::to_string(dict_key_chunks.load()) + " of " +
         std::to_string(key_chunks.load()) + " chunks]";
  return s;
}

std::unique_ptr<GroupTable> PhysicalHashAggregate::NewTable() const {
  std::vector<Type> kt;
  for (auto& g : groups) kt.push_back(g->type);
  std::vector<const BoundExpr*> a;
  for (auto& x : aggs) a.push_back(x.get());
  return std::make_unique<GroupTable>(kt, a);
}

struct AggLocal : LocalState {
  std::unique_ptr<GroupTable> table;
  std::vector<uint32_t> gids;
  std::vector<Vector> key_scratch;  // keys that are not plain input columns
  std::vector<const Vector*> keys;
  std::vector<const uint32_t*> key_sels;  // a selected chunk's keys: their selections
  std::vector<Vector> arg_scratch, arg2_scratch;  // aggregate arguments likewise (kept: no allocation a chunk)
  std::vector<std::vector<Vector>> key_scratch_of;  // per aggregate: its ORDER BY keys
  DictGroupKeys dict_keys;  // group keys found by their dictionary codes
  uint64_t key_chunks = 0;  // chunks with group keys
  // A selected chunk: the columns its computed keys and arguments read (worked out once),
  // gathered into `dense` to evaluate those over.
  ColumnsReadCache reads;
  DataChunk dense;
};

std::unique_ptr<LocalState> PhysicalHashAggregate::InitLocalSink() {
  auto l = std::make_unique<AggLocal>();
  l->table = NewTable();
  l->key_scratch.resize(groups.size());
  l->keys.resize(groups.size());
  l->key_sels.resize(groups.size());
  l->arg_scratch.resize(aggs.size());
  l->arg2_scratch.resize(aggs.size());
  l->key_scratch_of.resize(aggs.size());
  return l;
}

// A plain column reference of the chunk (of its own type): read in place, through the
// column's selection.
static bool PlainColumn(const BoundExpr& e, const DataChunk& in) {
  return e.kind == BExpr::Column && e.index >= 0 && (size_t)e.index < in.cols.size() &&
         in.cols[e.index].type() == e.type;
}

void PhysicalHashAggregate::Sink(DataChunk& in, LocalState& ls) {
  auto& l = static_cast<AggLocal&>(ls);
  // Scratch vectors keep their memory between chunks, not their strings' owners (those
  // who kept a string share its owner).
  for (auto& v : l.key_scratch) v.ResetOwnership();
  for (auto& v : l.arg_scratch) v.ResetOwnership();
  for (auto& v : l.arg2_scratch) v.ResetOwnership();
  // A selected chunk (selection.hpp): keys and arguments that are plain columns are read
  // through their selections, nothing gathered; the columns the other expressions read are
  // gathered once and those evaluated over the chunk's rows only.
  const DataChunk* computed = &in;  // what expressions that are not plain columns read
  if (in.HasSelection()) {
    const std::vector<uint8_t>& reads = l.reads.Get(in.cols.size(), [&](std::vector<uint8_t>& m) {
      auto mark = [&](const BoundExpr& e) {
        if (!PlainColumn(e, in)) OrColumnsRead(e, m);
      };
      for (const auto& g : groups) mark(*g);
      for (const auto& a : aggs)
        for (const auto& c : a->children)
          if (c) mark(*c);
    });
    if (ReadsSelected(in, reads)) {
      l.dense = DenseColumns(in, reads);
      computed = &l.dense;
    }
  }
  // The value of `e` over the chunk's rows and the selection to read it through.
  auto operand = [&](const BoundExpr& e, Vector& scratch, const uint32_t*& sel) -> const Vector& {
    if (PlainColumn(e, in)) {
      sel = in.ColumnSel((size_t)e.index);
      return in.cols[e.index];
    }
    sel = nullptr;
    return EvaluateOperand(e, *computed, scratch);
  };
  for (size_t k = 0; k < groups.size(); k++) l.keys[k] = &operand(*groups[k], l.key_scratch[k], l.key_sels[k]);
  const uint32_t* const* key_sels = in.HasSelection() ? l.key_sels.data() : nullptr;
  l.gids.resize(in.size);
  l.key_chunks += !groups.empty();
  if (!l.dict_keys.FindOrCreate(*l.table, l.keys.data(), groups.size(), in.size, l.gids.data(), key_sels))
    l.table->FindOrCreate(l.keys.data(), in.size, l.gids.data(), nullptr, key_sels);
  for (size_t a = 0; a < aggs.size(); a++) {
    AggInput x;
    if (aggs[a]->children.empty()) {  // count(*)
      l.table->Update(a, x, l.gids.data(), in.size);
      continue;
    }
    x.arg = &operand(*aggs[a]->children[0], l.arg_scratch[a], x.sel);
    if (GroupTable::TwoInputs(aggs[a]->name)) x.arg2 = &operand(*aggs[a]->children[1], l.arg2_scratch[a], x.sel2);
    const size_t nkeys = aggs[a]->agg_order.size();
    std::vector<const Vector*> keys;
    std::vector<const uint32_t*> sels;
    if (nkeys) {  // ORDER BY inside the call: its keys, the last children
      auto& scratch = l.key_scratch_of[a];
      scratch.resize(nkeys);
      keys.resize(nkeys);
      sels.resize(nkeys);
      const size_t first = aggs[a]->children.size() - nkeys;
      for (size_t k = 0; k < nkeys; k++) {
        scratch[k].ResetOwnership();
        keys[k] = &operand(*aggs[a]->children[first + k], scratch[k], sels[k]);
      }
      x.keys = keys.data();
      x.key_sels = sels.data();
    }
    l.table->Update(a, x, l.gids.data(), in.size);
  }
}

void PhysicalHashAggregate::Combine(LocalState& ls) {  // under the pipeline's lock
  auto& l = static_cast<AggLocal&>(ls);
  key_chunks += l.key_chunks;
  dict_key_chunks += l.dict_keys.chunks();
  locals_.push_back(std::move(l.table));
}

void PhysicalHashAggregate::SetResult(std::unique_ptr<GroupTable> table) {
  std::vector<std::unique_ptr<GroupTable>> parts;
  parts.push_back(std::move(table));
  SetResultParts(std::move(parts));
}

void PhysicalHashAggregate::SetResultParts(std::vector<std::unique_ptr<GroupTable>> parts) {
  parts_ = std::move(parts);
  morsels_.clear();
  rows_out = 0;
  for (uint32_t p = 0; p < parts_.size(); p++) {
    const uint32_t n = parts_[p]->groups();
    for (uint32_t from = 0; from < n; from += kVectorSize) morsels_.push_back({p, from, std::min(kVectorSize, n - from)});
    rows_out += n;
  }
}

void PhysicalHashAggregate::Finalize() {
  std::vector<std::unique_ptr<GroupTable>> locals = std::move(locals_);
  locals_.clear();
  uint64_t total = 0;
  for (auto& t : locals) total += t->groups();
  if (locals.empty()) return SetResult(NewTable());
  if (locals.size() == 1 || groups.empty() || threads <= 1 || total < kPartitionedMerge) {
    // Few groups: into the largest table, one after another.
    auto largest = std::max_element(locals.begin(), locals.end(),
                                    [](auto& x, auto& y) { return x->groups() < y->groups(); });
    std::swap(*largest, locals[0]);
    for (size_t i = 1; i < locals.size(); i++) {
      locals[0]->Merge(*locals[i]);
      locals[i].reset();
    }
    return SetResult(std::move(locals[0]));
  }
  // Many groups: partitions by the top bits of the groups' hashes (the low bits place a
  // group in its table's slots), about 16 K groups each, at least 4 a thread.
  int bits = 0;
  while (bits < 10 && ((1ull << bits) < 4ull * threads || (total >> bits) > 16384)) bits++;
  const uint32_t nparts = 1u << bits;
  // Each thread's table's group ids by partition (a counting sort of the ids).
  struct Buckets {
    std::vector<uint32_t> start, gids;
    std::vector<uint64_t> hashes;  // of gids, in the same order (read in order by the merge)
  };
  std::vector<Buckets> buckets(locals.size());
  ParallelFor(locals.size(), threads, [&](uint64_t t, unsigned) {
    const GroupTable& table = *locals[t];
    Buckets& b = buckets[t];
    const uint32_t n = table.groups();
    b.start.assign(nparts + 1, 0);
    for (uint32_t g = 0; g < n; g++) b.start[(table.hash(g) >> (64 - bits)) + 1]++;
    for (uint32_t p = 0; p < nparts; p++) b.start[p + 1] += b.start[p];
    std::vector<uint32_t> at(b.start.begin(), b.start.end() - 1);
    b.gids.resize(n);
    b.hashes.resize(n);
    for (uint32_t g = 0; g < n; g++) {
      const uint64_t h = table.hash(g);
      const uint32_t to = at[h >> (64 - bits)]++;
      b.gids[to] = g;
      b.hashes[to] = h;
    }
  });
  std::vector<std::shared_ptr<const void>> owners(locals.size());  // of each table's strings
  for (size_t t = 0; t < locals.size(); t++) owners[t] = locals[t]->StringOwners();
  std::vector<std::unique_ptr<GroupTable>> parts(nparts);
  ParallelFor(nparts, threads, [&](uint64_t p, unsigned) {
    auto table = NewTable();
    uint64_t most = 0;  // the partition's groups if no two threads share one
    for (const Buckets& b : buckets) most += b.start[p + 1] - b.start[p];
    table->Reserve((uint32_t)std::min<uint64_t>(most, UINT32_MAX));
    for (size_t t = 0; t < locals.size(); t++) {
      const Buckets& b = buckets[t];
      if (b.start[p] < b.start[p + 1]) table->AdoptStrings(owners[t]);
      for (uint32_t at = b.start[p]; at < b.start[p + 1]; at += kVectorSize)
        table->MergeGroups(*locals[t], b.gids.data() + at, std::min(kVectorSize, b.start[p + 1] - at), b.hashes.data() + at);
    }
    parts[p] = std::move(table);
  });
  locals.clear();
  SetResultParts(std::move(parts));
}

struct AggSource : GlobalSourceState {
  std::atomic<uint64_t> next{0};
};
std::unique_ptr<GlobalSourceState> PhysicalHashAggregate::InitSource() { return std::make_unique<AggSource>(); }

bool PhysicalHashAggregate::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  auto& s = static_cast<AggSource&>(gs);
  const uint64_t m = s.next.fetch_add(1);
  if (m >= morsels_.size()) return false;
  const Morsel& x = morsels_[m];
  parts_[x.part]->Emit(x.from, x.n, out);
  return true;
}

}  // namespace tessera
