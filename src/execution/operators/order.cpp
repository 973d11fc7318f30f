#include "execution/operators/order.hpp"

#include <algorithm>
#include <cstring>

#include "common/parallel.hpp"
#include "execution/expression_executor.hpp"
#include "execution/sort_keys.hpp"

namespace tessera {

std::string PhysicalOrder::Details() const {
  std::string s;
  for (size_t i = 0; i < orders.size(); i++)
    s += (i ? ", " : "") + orders[i].expr->ToString() + (orders[i].desc ? " DESC" : " ASC");
  if (top_n >= 0) s += " LIMIT " + std::to_string(top_n);
  return s;
}

namespace {

// A TOP_N worker sorts what it holds once it holds this many rows (or twice top_n), when
// top_n is at most kLocalTopNMax; larger limits are cut in the final sort only.
constexpr uint64_t kLocalTopNRows = 8192;
constexpr int64_t kLocalTopNMax = 1 << 20;
// Rows a run at least: smaller inputs sort on fewer threads.
constexpr uint64_t kMinRunRows = 32768;

struct Entry {
  uint64_t w[2];  // normalised key words (sort_keys.hpp), as KeyLayout places them
  uint32_t row;   // the row in its run
};

// Which key words fill an entry's two words (the first keys', in order, up to the first
// whose words do not decide it), and the first key they leave undecided.
struct KeyLayout {
  int slots = 0;
  uint32_t key[2] = {0, 0};
  int word[2] = {0, 0};
  size_t from = 0;
};

KeyLayout Layout(const std::vector<Type>& types, const std::vector<OrderSpec>& orders, const std::vector<bool>& nulls) {
  KeyLayout l;
  for (size_t k = 0; k < orders.size() && l.slots < 2; k++) {
    const PhysType p = types[orders[k].expr->index].physical();
    const int words = KeyColumn::PrefixWords(p);
    int placed = 0;
    for (; placed < words && l.slots < 2; placed++, l.slots++) {
      l.key[l.slots] = (uint32_t)k;
      l.word[l.slots] = placed;
    }
    if (placed < words || !KeyColumn::PrefixExact(p, nulls[k])) break;
    l.from = k + 1;
  }
  return l;
}

// One run: its rows concatenated, its key columns and its entries in sorted order.
struct Run {
  std::vector<Vector> cols;
  std::vector<KeyColumn> keys;
  std::vector<Entry> entries;
};

// The order of rows, run by run: the entries' words, then the keys they leave undecided
// cell by cell, ties by run, then by row (the input order: runs are contiguous in it).
struct RunOrder {
  const std::vector<Run>* runs;
  size_t from;
  bool Less(uint32_t ra, const Entry& a, uint32_t rb, const Entry& b) const {
    if (a.w[0] != b.w[0]) return a.w[0] < b.w[0];
    if (a.w[1] != b.w[1]) return a.w[1] < b.w[1];
    const Run &x = (*runs)[ra], &y = (*runs)[rb];
    for (size_t k = from; k < x.keys.size(); k++)
      if (int c = x.keys[k].Compare(a.row, y.keys[k], b.row)) return c < 0;
    return ra != rb ? ra < rb : a.row < b.row;
  }
};

// Sorts the entries [lo, hi) of run `r` whose first key is a string, all equal in that
// key's words before `word` (MSD order: the strings' next 16 bytes become the words and
// each group of equal words is refined further), instead of comparing ties string by
// string, which reads each string once per comparison from all over memory. Where every
// string in the group is used up, they are equal up to zero padding: ordered by NULL and
// length, then by the other keys. The entries' words are restored on return.
void RefineStrings(std::vector<Run>& runs, uint32_t r, Entry* lo, Entry* hi, int word) {
  const Run& run = runs[r];
  const KeyColumn& k = run.keys[0];
  const uint64_t w0 = lo->w[0], w1 = lo->w[1];
  const StrRef* str = reinterpret_cast<const StrRef*>(k.data);
  auto is_null = [&](uint32_t i) { return k.valid && !k.valid[i]; };
  if (word >= 64) {  // past 512 bytes: string by string (no deep recursion)
    RunOrder all{&runs, 0};
    std::sort(lo, hi, [&](const Entry& a, const Entry& b) { return all.Less(r, a, r, b); });
    for (Entry* e = lo; e < hi; e++) e->w[0] = w0, e->w[1] = w1;
    return;
  }
  bool longer = false;
  for (Entry* e = lo; e < hi && !longer; e++) longer = !is_null(e->row) && str[e->row].size() > (size_t)word * 8;
  if (!longer) {
    for (Entry* e = lo; e < hi; e++) {
      uint64_t len = 1 + (is_null(e->row) ? 0 : str[e->row].size());
      e->w[0] = is_null(e->row) ? (k.nulls_first ? 0 : UINT64_MAX) : (k.desc ? ~len : len);
      e->w[1] = 0;
    }
    RunOrder rest{&runs, 1};
    std::sort(lo, hi, [&](const Entry& a, const Entry& b) { return rest.Less(r, a, r, b); });
  } else {
    for (Entry* e = lo; e < hi; e++) {
      e->w[0] = k.Prefix(e->row, word);
      e->w[1] = k.Prefix(e->row, word + 1);
    }
    std::sort(lo, hi, [](const Entry& a, const Entry& b) {
      return a.w[0] != b.w[0] ? a.w[0] < b.w[0] : a.w[1] != b.w[1] ? a.w[1] < b.w[1] : a.row < b.row;
    });
    for (Entry* g = lo; g < hi;) {
      Entry* e = g + 1;
      while (e < hi && e->w[0] == g->w[0] && e->w[1] == g->w[1]) e++;
      if (e - g > 1) RefineStrings(runs, r, g, e, word + 2);
      g = e;
    }
  }
  for (Entry* e = lo; e < hi; e++) e->w[0] = w0, e->w[1] = w1;
}

// Concatenates chunks [c0, c1) into run `r`, sorts its entries and keeps the first `keep`
// (-1: all).
void BuildRun(std::vector<DataChunk>& chunks, size_t c0, size_t c1, const std::vector<Type>& types,
              const std::vector<OrderSpec>& orders, const KeyLayout& layout, int64_t keep, std::vector<Run>& runs,
              uint32_t r) {
  Run& run = runs[r];
  uint64_t n64 = 0;
  for (size_t c = c0; c < c1; c++) n64 += chunks[c].size;
  TESSERA_ASSERT(n64 < UINT32_MAX, "sort run too large");
  const uint32_t n = (uint32_t)n64;
  run.cols.resize(types.size());
  for (size_t k = 0; k < types.size(); k++) run.cols[k].InitForOverwrite(types[k], std::max<uint32_t>(n, 1));
  uint32_t off = 0;
  for (size_t c = c0; c < c1; c++) {
    DataChunk& ch = chunks[c];
    for (size_t k = 0; k < types.size(); k++) CopyRows(ch.cols[k], nullptr, ch.size, run.cols[k], off);
    off += ch.size;
    ch = DataChunk();  // its strings stay alive through the run's columns
  }
  for (auto& o : orders) run.keys.emplace_back(run.cols[o.expr->index], o.desc, o.nulls_first);
  run.entries.resize(n);
  for (uint32_t i = 0; i < n; i++) {
    Entry& e = run.entries[i];
    e.row = i;
    e.w[1] = 0;
    for (int s = 0; s < layout.slots; s++) e.w[s] = run.keys[layout.key[s]].Prefix(i, layout.word[s]);
  }
  RunOrder order{&runs, layout.from};
  auto less = [&](const Entry& a, const Entry& b) { return order.Less(r, a, r, b); };
  if (run.keys[0].phys == PhysType::Str && layout.slots == 2 && layout.key[1] == 0) {
    // A string first key: by its first 16 bytes, ties refined (RefineStrings).
    std::sort(run.entries.begin(), run.entries.end(), [](const Entry& a, const Entry& b) {
      return a.w[0] != b.w[0] ? a.w[0] < b.w[0] : a.w[1] != b.w[1] ? a.w[1] < b.w[1] : a.row < b.row;
    });
    Entry* end = run.entries.data() + n;
    for (Entry* g = run.entries.data(); g < end;) {
      Entry* e = g + 1;
      while (e < end && e->w[0] == g->w[0] && e->w[1] == g->w[1]) e++;
      if (e - g > 1) RefineStrings(runs, r, g, e, 2);
      g = e;
    }
    if (keep >= 0 && (uint64_t)keep < n) run.entries.resize((size_t)keep);
  } else if (keep >= 0 && (uint64_t)keep < n) {
    std::partial_sort(run.entries.begin(), run.entries.begin() + keep, run.entries.end(), less);
    run.entries.resize((size_t)keep);
  } else {
    std::sort(run.entries.begin(), run.entries.end(), less);
  }
}

// Merges the runs' entries in [lo[r], hi[r]) into out_run / out_row from `at`, writing no
// further than `end`.
void MergeRange(const std::vector<Run>& runs, const RunOrder& order, const std::vector<uint32_t>& lo,
                const std::vector<uint32_t>& hi, uint64_t at, uint64_t end, uint32_t* out_run, uint32_t* out_row) {
  std::vector<uint32_t> pos = lo;
  std::vector<uint32_t> heap;  // runs with entries left; the smallest head on top
  auto after = [&](uint32_t a, uint32_t b) {
    return order.Less(b, runs[b].entries[pos[b]], a, runs[a].entries[pos[a]]);
  };
  for (uint32_t r = 0; r < runs.size(); r++)
    if (pos[r] < hi[r]) heap.push_back(r);
  std::make_heap(heap.begin(), heap.end(), after);
  while (!heap.empty() && at < end) {
    std::pop_heap(heap.begin(), heap.end(), after);
    const uint32_t r = heap.back();
    out_run[at] = r;
    out_row[at] = runs[r].entries[pos[r]].row;
    at++;
    if (++pos[r] < hi[r]) std::push_heap(heap.begin(), heap.end(), after);
    else heap.pop_back();
  }
}

// m rows of the merged order into a chunk. Strings point into the runs' strings, or with
// `own_strings` are copied into the chunk's heap (a TOP_N worker's rows, which then keep
// none of the input alive).
DataChunk Gather(const std::vector<Run>& runs, const std::vector<Type>& types, const uint32_t* run_of,
                 const uint32_t* row_of, uint32_t m, bool own_strings) {
  DataChunk ch;
  ch.cols.resize(types.size());
  ch.size = m;
  for (size_t c = 0; c < types.size(); c++) {
    Vector& dst = ch.cols[c];
    dst.InitForOverwrite(types[c], m);
    const size_t w = (size_t)types[c].width();
    uint8_t* d = dst.raw();
    bool nulls = false;
    for (auto& run : runs) nulls |= run.cols[c].has_nulls();
    for (uint32_t i = 0; i < m; i++) std::memcpy(d + i * w, runs[run_of[i]].cols[c].raw() + (size_t)row_of[i] * w, w);
    if (nulls) {
      uint8_t* v = dst.validity();
      for (uint32_t i = 0; i < m; i++) v[i] = runs[run_of[i]].cols[c].IsValid(row_of[i]);
    }
    if (types[c].physical() != PhysType::Str) continue;
    if (!own_strings) {
      for (auto& run : runs) dst.ShareStrings(run.cols[c]);
      continue;
    }
    StrRef* s = dst.data<StrRef>();
    for (uint32_t i = 0; i < m; i++)
      if (dst.IsValid(i)) s[i] = dst.heap().Add(s[i]);
  }
  return ch;
}

}  // namespace

ChunkList PhysicalOrder::SortChunks(std::vector<DataChunk>&& chunks, int64_t keep, unsigned threads,
                                     bool own_strings) const {
  uint64_t n = 0;
  for (auto& c : chunks) n += c.size;
  ChunkList out;
  if (n == 0) return out;
  // Runs: contiguous slices of the chunks of about n / R rows each.
  const uint64_t nruns = std::max<uint64_t>(1, std::min<uint64_t>({threads, chunks.size(), n / kMinRunRows}));
  std::vector<size_t> cut{0};
  uint64_t seen = 0;
  for (size_t c = 0; c < chunks.size(); c++) {
    seen += chunks[c].size;
    if (cut.size() < nruns && seen * nruns >= n * cut.size() && c + 1 < chunks.size()) cut.push_back(c + 1);
  }
  cut.push_back(chunks.size());
  const uint32_t R = (uint32_t)cut.size() - 1;
  std::vector<bool> nulls(orders.size(), false);
  for (size_t k = 0; k < orders.size(); k++)
    for (auto& c : chunks) nulls[k] = nulls[k] || c.cols[orders[k].expr->index].has_nulls();
  const KeyLayout layout = Layout(types, orders, nulls);
  std::vector<Run> runs(R);
  ParallelFor(R, threads, [&](uint64_t r, unsigned) {
    BuildRun(chunks, cut[r], cut[r + 1], types, orders, layout, keep, runs, (uint32_t)r);
  });
  chunks.clear();
  uint64_t total = 0;
  for (auto& run : runs) total += run.entries.size();
  const uint64_t m = keep >= 0 ? std::min<uint64_t>(total, (uint64_t)keep) : total;
  TESSERA_ASSERT(m < UINT32_MAX, "sort output too large");
  RunOrder order{&runs, layout.from};
  std::vector<uint32_t> out_run(m), out_row(m);
  if (R == 1) {
    for (uint64_t i = 0; i < m; i++) out_row[i] = runs[0].entries[i].row;
  } else {
    // Output ranges: splitters sampled evenly from every run, sorted; each one's position
    // in every run by binary search (the order is total, so the ranges tile the output).
    const uint32_t parts = m < kMinRunRows ? 1 : threads * 4;
    std::vector<std::pair<uint32_t, Entry>> sample;
    const uint32_t per_run = 16 * parts;
    for (uint32_t r = 0; r < R; r++) {
      const auto& e = runs[r].entries;
      if (e.empty()) continue;
      for (uint32_t j = 0; j < per_run; j++) sample.push_back({r, e[(uint64_t)e.size() * j / per_run]});
    }
    auto sample_less = [&](const auto& a, const auto& b) { return order.Less(a.first, a.second, b.first, b.second); };
    std::sort(sample.begin(), sample.end(), sample_less);
    std::vector<std::vector<uint32_t>> bound(parts + 1, std::vector<uint32_t>(R));
    for (uint32_t r = 0; r < R; r++) bound[parts][r] = (uint32_t)runs[r].entries.size();
    for (uint32_t p = 1; p < parts; p++) {
      const auto& s = sample[sample.size() * p / parts];
      for (uint32_t r = 0; r < R; r++) {
        const auto& e = runs[r].entries;
        bound[p][r] = (uint32_t)(std::lower_bound(e.begin(), e.end(), s.second,
                                                  [&](const Entry& x, const Entry& y) {
                                                    return order.Less(r, x, s.first, y);
                                                  }) -
                                 e.begin());
      }
    }
    ParallelFor(parts, threads, [&](uint64_t p, unsigned) {
      uint64_t at = 0;
      for (uint32_t r = 0; r < R; r++) at += bound[p][r];
      if (at >= m) return;
      MergeRange(runs, order, bound[p], bound[p + 1], at, m, out_run.data(), out_row.data());
    });
  }
  const uint64_t nchunks = (m + kVectorSize - 1) / kVectorSize;
  out.chunks.resize(nchunks);
  ParallelFor(nchunks, threads, [&](uint64_t c, unsigned) {
    const uint64_t from = c * kVectorSize;
    const uint32_t cnt = (uint32_t)std::min<uint64_t>(kVectorSize, m - from);
    out.chunks[c] = Gather(runs, types, out_run.data() + from, out_row.data() + from, cnt, own_strings);
  });
  out.rows = m;
  return out;
}

struct OrderLocal : LocalState {
  ChunkList rows;
};
std::unique_ptr<LocalState> PhysicalOrder::InitLocalSink() { return std::make_unique<OrderLocal>(); }
void PhysicalOrder::Sink(DataChunk& in, LocalState& ls) {
  auto& l = static_cast<OrderLocal&>(ls);
  l.rows.Add(std::move(in));
  // TOP_N: keep this worker's first top_n rows once it holds twice as many.
  if (top_n >= 0 && top_n <= kLocalTopNMax &&
      l.rows.rows >= std::max<uint64_t>(kLocalTopNRows, 2 * (uint64_t)top_n))
    l.rows = SortChunks(std::move(l.rows.chunks), top_n, 1, true);
}
void PhysicalOrder::Combine(LocalState& ls) {
  for (auto& c : static_cast<OrderLocal&>(ls).rows.chunks) input_.Add(std::move(c));
}

void PhysicalOrder::Finalize() {
  sorted_ = SortChunks(std::move(input_.chunks), top_n, std::max(1u, threads), false);
  input_ = ChunkList();
  rows_out = sorted_.rows;
}

std::unique_ptr<GlobalSourceState> PhysicalOrder::InitSource() { return std::make_unique<ChunkListSourceState>(); }
bool PhysicalOrder::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return NextChunkFromList(sorted_, gs, out);
}

}  // namespace tessera
