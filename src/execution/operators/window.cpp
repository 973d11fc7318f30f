#include "execution/operators/window.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>

#include "common/parallel.hpp"
#include "execution/expression_executor.hpp"
#include "execution/hashing.hpp"
#include "execution/operators/hash_aggregate.hpp"
#include "execution/sort_keys.hpp"
#include "function/scalar_ops.hpp"
#include "planner/bound_window.hpp"

namespace tessera {

namespace {

// Row `from` of src into row `to` of dst (same type; dst's validity materialised and its
// strings shared beforehand, so that tasks may write disjoint rows concurrently).
void SetCell(const Vector& src, uint32_t from, Vector& dst, uint32_t to) {
  size_t w = (size_t)src.type().width();
  std::memcpy(dst.raw() + to * w, src.raw() + from * w, w);
  dst.validity()[to] = src.IsValid(from);
}

int64_t BigIntAt(const Vector& v, uint32_t i) { return v.data<int64_t>()[i]; }

// An offset or position clamped to +-(m + 1): the same frame or row within m rows, and no
// overflow in the arithmetic on it.
int64_t Clamp(int64_t n, int64_t m) { return std::clamp<int64_t>(n, -(m + 1), m + 1); }

[[noreturn]] void OutOfRange(const std::string& msg) { throw UserError(ErrorKind::Conversion, msg); }

// Whether row i of v (a RANGE offset) is negative.
bool Negative(const Vector& v, uint32_t i) {
  return DispatchPhys(v.type().physical(), [&]<class T>() {
    if constexpr (std::is_same_v<T, StrRef>) return false;
    else return ops::LessThan(v.data<T>()[i], T(0));
  });
}

// The window functions sharing one PARTITION BY / ORDER BY, evaluated over one sort.
struct SortGroup {
  std::vector<size_t> members;  // indices into exprs
  const BoundExpr* first = nullptr;
};

}  // namespace

PhysicalWindow::PhysicalWindow(std::vector<Type> t, std::vector<BoundExprPtr> e)
    : PhysicalOperator(PhysKind::Window, std::move(t)), exprs(std::move(e)) {}

std::string PhysicalWindow::Details() const {
  std::string s;
  for (size_t i = 0; i < exprs.size(); i++) s += (i ? ", " : "") + exprs[i]->ToString();
  return s;
}

struct WindowLocal : LocalState {
  ChunkList rows;
};
std::unique_ptr<LocalState> PhysicalWindow::InitLocalSink() { return std::make_unique<WindowLocal>(); }

// Keeps the chunk with every window function's children evaluated after its columns.
void PhysicalWindow::Sink(DataChunk& in, LocalState& ls) {
  std::vector<Vector> evaluated;
  for (auto& e : exprs)
    for (auto& ch : e->children) {
      Vector v;
      Evaluate(*ch, in, v);
      evaluated.push_back(std::move(v));
    }
  DataChunk c;
  c.cols = std::move(in.cols);
  c.size = in.size;
  for (auto& v : evaluated) c.cols.push_back(std::move(v));
  static_cast<WindowLocal&>(ls).rows.Add(std::move(c));
}

void PhysicalWindow::Combine(LocalState& ls) {
  for (auto& c : static_cast<WindowLocal&>(ls).rows.chunks) input_.Add(std::move(c));
}

namespace {

// Evaluates the window functions of one sort group over one partition, rows
// idx[ps, pe) (indices into the full columns) in window order.
struct PartitionEval {
  const std::vector<const BoundExpr*>& fns;
  const std::vector<size_t>& child_col;  // per fn: the column of its first child
  std::vector<Vector>& cols;
  const std::vector<size_t>& result_col;  // per fn
  const uint32_t* idx;
  uint32_t ps, pe;
  std::vector<std::unique_ptr<GroupTable>>& tables;  // per fn (aggregates), reused
  std::vector<BoundExprPtr>& agg_shapes;            // per fn: the aggregate as BExpr::Agg
  unsigned inner_threads;                            // for one partition's rows

  PartitionEval(const std::vector<const BoundExpr*>& fns, const std::vector<size_t>& child_col,
                std::vector<Vector>& cols, const std::vector<size_t>& result_col, const uint32_t* idx,
                std::vector<std::unique_ptr<GroupTable>>& tables, std::vector<BoundExprPtr>& agg_shapes,
                unsigned inner_threads)
      : fns(fns), child_col(child_col), cols(cols), result_col(result_col), idx(idx), ps(0), pe(0),
        tables(tables), agg_shapes(agg_shapes), inner_threads(inner_threads) {}

  std::vector<uint32_t> peer_start, peer_end;  // partition-relative
  std::vector<uint32_t> group_of, group_start;  // GROUPS: each row's peer group, each group's start
  uint32_t keys_lo = 0, keys_hi = 0;             // RANGE: the rows with a non-NULL key
  Vector range_keys;                             // RANGE: the keys in window order
  uint32_t start_hint = 0, end_hint = 0;         // RANGE: the previous row's bounds
  // Scratch reused from partition to partition (small partitions: no allocations).
  std::vector<int64_t> fs, fe;
  std::vector<uint32_t> gids, rows, slots;
  Vector leaves, leaves2;
  DataChunk results;

  const Vector& Child(size_t f, uint32_t c) const { return cols[child_col[f] + c]; }
  // Where child c's value for input row `row` is: row 0 for a constant (no cache miss).
  uint32_t At(size_t f, uint32_t c, uint32_t row) const {
    return fns[f]->children[c]->kind == BExpr::Constant ? 0 : row;
  }

  void Peers(const WindowInfo& w, size_t f) {
    uint32_t m = pe - ps;
    peer_start.resize(m);
    peer_end.resize(m);
    group_of.resize(m);
    group_start.clear();
    std::vector<KeyColumn> order_keys;
    for (uint32_t o = 0; o < w.orders.size(); o++) order_keys.emplace_back(Child(f, w.OrderChild() + o), false, false);
    uint32_t start = 0;
    for (uint32_t k = 0; k < m; k++) {
      bool same = k > 0;
      for (size_t o = 0; o < order_keys.size() && same; o++) same = order_keys[o].Compare(idx[ps + k - 1], idx[ps + k]) == 0;
      if (!same) {
        start = k;
        group_start.push_back(k);
      }
      peer_start[k] = start;
      group_of[k] = (uint32_t)group_start.size() - 1;
    }
    uint32_t end = m;
    for (uint32_t k = m; k-- > 0;) {
      peer_end[k] = end;
      if (peer_start[k] == k) end = k;
    }
    // RANGE with offsets: the rows with a non-NULL key, after the NULLs (NULLS FIRST) or
    // before them.
    keys_lo = 0;
    keys_hi = m;
    if (w.RangeValues()) {
      const Vector& key = Child(f, w.RangeKeyChild());
      range_keys.Init(key.type(), std::max<uint32_t>(m, 1));
      CopyRows(key, idx + ps, m, range_keys, 0);
      if (w.orders[0].nulls_first) {
        while (keys_lo < keys_hi && !key.IsValid(idx[ps + keys_lo])) keys_lo = peer_end[keys_lo];
      } else {
        while (keys_hi > keys_lo && !key.IsValid(idx[ps + keys_hi - 1])) keys_hi = peer_start[keys_hi - 1];
      }
    }
    start_hint = end_hint = keys_lo;
  }

  // The frame [fs, fe) of row k (partition-relative), clipped to the partition.
  void Frame(const WindowInfo& w, size_t f, uint32_t k, int64_t& fs, int64_t& fe) {
    const int64_t m = pe - ps;
    const uint32_t row = idx[ps + k];
    // A constant is read from row 0 (not from the row's place in the input: no cache miss).
    auto at = [&](uint32_t child) { return At(f, child, row); };
    auto offset = [&](uint32_t child, bool& unbounded) -> int64_t {
      const Vector& v = Child(f, child);
      const uint32_t r = at(child);
      unbounded = !v.IsValid(r);
      return unbounded ? 0 : Clamp(BigIntAt(v, r), m);
    };
    auto bound = [&](WindowBound b, bool is_start) -> int64_t {
      uint32_t child = is_start ? w.StartOffsetChild() : w.EndOffsetChild();
      switch (b) {
        case WindowBound::UnboundedPreceding: return 0;
        case WindowBound::UnboundedFollowing: return m;
        case WindowBound::CurrentRow:
          if (w.unit == WindowFrameUnit::Rows) return is_start ? k : k + 1;
          return is_start ? peer_start[k] : peer_end[k];
        default: break;
      }
      const bool preceding = b == WindowBound::Preceding;
      if (w.unit == WindowFrameUnit::Rows) {
        bool unb;
        int64_t n = offset(child, unb);
        if (unb) return preceding ? 0 : m;
        int64_t at = preceding ? (int64_t)k - n : (int64_t)k + n;
        return is_start ? at : at + 1;
      }
      if (w.unit == WindowFrameUnit::Groups) {
        bool unb;
        int64_t n = offset(child, unb);
        if (unb) return preceding ? 0 : m;
        if (n < 0) OutOfRange(std::string("Invalid GROUPS ") + (preceding ? "PRECEDING" : "FOLLOWING") + " value");
        const int64_t groups = (int64_t)group_start.size();
        int64_t g = (int64_t)group_of[k] + (preceding ? -n : n);
        if (is_start) return g < 0 ? 0 : g >= groups ? m : group_start[g];
        return g < 0 ? 0 : g + 1 >= groups ? m : group_start[g + 1];
      }
      // RANGE: the rows whose key lies within the row's start/end value (binary search
      // among the partition's rows with a non-NULL key; a NULL key's frame is its peers).
      const Vector& key = range_keys;  // in window order
      if (!key.IsValid(k)) return is_start ? peer_start[k] : peer_end[k];
      const Vector& off = Child(f, child);
      if (off.IsValid(at(child)) && Negative(off, at(child)))
        OutOfRange(std::string("Invalid RANGE ") + (preceding ? "PRECEDING" : "FOLLOWING") + " value");
      const Vector& val = Child(f, is_start ? w.StartValueChild() : w.EndValueChild());
      if (!val.IsValid(row)) return preceding ? 0 : m;
      const bool desc = w.orders[0].desc;
      // The first row among the non-NULL keys [keys_lo, keys_hi) whose key is not before
      // the start value (start), or is past the end value (end), in the key's order.
      // Galloping from the row's previous answer (the next row's is near it), then binary
      // search, over the keys copied in window order.
      uint32_t& hint = is_start ? start_hint : end_hint;
      hint = DispatchPhys(key.type().physical(), [&]<class T>() -> uint32_t {
        const T* keys = range_keys.data<T>();
        const T v = val.data<T>()[row];
        auto before = [&](uint32_t j) {
          int c = CompareValues(keys[j], v);
          if (desc) c = -c;
          return is_start ? c < 0 : c <= 0;
        };
        uint32_t a = keys_lo, b2 = keys_hi;  // the answer lies in [a, b2]
        uint32_t h = std::clamp(hint, keys_lo, keys_hi);
        if (h < keys_hi && before(h)) {
          uint32_t step = 1;
          a = h + 1;
          while (a + step - 1 < keys_hi && before(a + step - 1)) {
            a += step;
            step *= 2;
          }
          b2 = std::min(keys_hi, a + step - 1);
        } else {
          uint32_t step = 1;
          b2 = h;
          while (b2 >= keys_lo + step && !before(b2 - step)) {
            b2 -= step;
            step *= 2;
          }
          a = b2 >= keys_lo + step ? b2 - step + 1 : keys_lo;
        }
        while (a < b2) {
          uint32_t mid = a + (b2 - a) / 2;
          if (before(mid)) a = mid + 1;
          else b2 = mid;
        }
        return a;
      });
      return hint;
    };
    fs = std::clamp<int64_t>(bound(w.start, true), 0, m);
    fe = std::clamp<int64_t>(bound(w.end, false), 0, m);
    if (fe < fs) fe = fs;
  }

  void Run(size_t f) {
    const BoundExpr& e = *fns[f];
    const WindowInfo& w = *e.window;
    const uint32_t m = pe - ps;
    Vector& out = cols[result_col[f]];
    Peers(w, f);
    auto out_row = [&](uint32_t k) { return idx[ps + k]; };
    switch (w.func) {
      case WindowFunc::RowNumber:
        for (uint32_t k = 0; k < m; k++) out.data<int64_t>()[out_row(k)] = k + 1;
        return;
      case WindowFunc::Rank:
        for (uint32_t k = 0; k < m; k++) out.data<int64_t>()[out_row(k)] = peer_start[k] + 1;
        return;
      case WindowFunc::DenseRank:
        for (uint32_t k = 0; k < m; k++) out.data<int64_t>()[out_row(k)] = group_of[k] + 1;
        return;
      case WindowFunc::PercentRank:
        for (uint32_t k = 0; k < m; k++)
          out.data<double>()[out_row(k)] = m > 1 ? (double)peer_start[k] / (double)(m - 1) : 0.0;
        return;
      case WindowFunc::CumeDist:
        for (uint32_t k = 0; k < m; k++) out.data<double>()[out_row(k)] = (double)peer_end[k] / (double)m;
        return;
      case WindowFunc::Ntile:
        for (uint32_t k = 0; k < m; k++) {
          const Vector& nv = Child(f, 0);
          uint32_t r = out_row(k), a = At(f, 0, r);
          if (!nv.IsValid(a)) {
            out.validity()[r] = 0;
            continue;
          }
          int64_t n = BigIntAt(nv, a);
          if (n <= 0) throw UserError(ErrorKind::Conversion, "Argument for ntile must be greater than zero");
          int64_t total = m;
          if (n > total) n = total;
          int64_t size = total / n, large = total - n * size, small_end = large * (size + 1);
          int64_t t = k < small_end ? 1 + (int64_t)k / (size + 1) : 1 + large + ((int64_t)k - small_end) / size;
          out.data<int64_t>()[r] = t;
        }
        return;
      case WindowFunc::Lag:
      case WindowFunc::Lead: {
        const Vector& x = Child(f, 0);
        const bool lag = w.func == WindowFunc::Lag;
        std::vector<uint32_t> nonnull;  // IGNORE NULLS: partition-relative rows with a value
        if (w.ignore_nulls)
          for (uint32_t k = 0; k < m; k++)
            if (x.IsValid(idx[ps + k])) nonnull.push_back(k);
        for (uint32_t k = 0; k < m; k++) {
          uint32_t r = out_row(k);
          int64_t n = 1;
          if (w.args >= 2) {
            const Vector& nv = Child(f, 1);
            if (!nv.IsValid(At(f, 1, r))) {
              out.validity()[r] = 0;
              continue;
            }
            n = Clamp(BigIntAt(nv, At(f, 1, r)), m);
          }
          int64_t target;
          if (!w.ignore_nulls) {
            target = lag ? (int64_t)k - n : (int64_t)k + n;
          } else if (n == 0) {
            target = k;
          } else {
            // The n-th row with a value before k (lag) or after it (lead).
            int64_t before = std::lower_bound(nonnull.begin(), nonnull.end(), k) - nonnull.begin();
            int64_t upto = std::upper_bound(nonnull.begin(), nonnull.end(), k) - nonnull.begin();
            bool back = lag;
            if (n < 0) n = -n, back = !back;
            int64_t pos = back ? before - n : upto + n - 1;
            target = pos >= 0 && pos < (int64_t)nonnull.size() ? nonnull[pos] : -1;
          }
          if (target >= 0 && target < (int64_t)m) {
            SetCell(x, idx[ps + target], out, r);
          } else if (w.args >= 3) {
            SetCell(Child(f, 2), At(f, 2, r), out, r);
          } else {
            out.validity()[r] = 0;
          }
        }
        return;
      }
      case WindowFunc::FirstValue:
      case WindowFunc::LastValue:
      case WindowFunc::NthValue: {
        const Vector& x = Child(f, 0);
        std::vector<uint32_t> nonnull;
        if (w.ignore_nulls)
          for (uint32_t k = 0; k < m; k++)
            if (x.IsValid(idx[ps + k])) nonnull.push_back(k);
        for (uint32_t k = 0; k < m; k++) {
          uint32_t r = out_row(k);
          int64_t fs, fe;
          Frame(w, f, k, fs, fe);
          int64_t n = 1;
          if (w.func == WindowFunc::NthValue) {
            const Vector& nv = Child(f, 1);
            if (!nv.IsValid(At(f, 1, r))) {
              out.validity()[r] = 0;
              continue;
            }
            n = Clamp(BigIntAt(nv, At(f, 1, r)), m);
          }
          // The frame's rows (after EXCLUDE) as ranges of positions: of rows, or of the
          // rows with a value (IGNORE NULLS: indices into `nonnull`).
          int64_t ranges[3][2];
          const int nr = Ranges(w, k, fs, fe, ranges);
          if (w.ignore_nulls)
            for (int i = 0; i < nr; i++)
              for (int64_t& e : ranges[i])
                e = std::lower_bound(nonnull.begin(), nonnull.end(), (uint32_t)e) - nonnull.begin();
          int64_t pos = -1;  // in the ranges' positions
          if (w.func == WindowFunc::LastValue) {
            for (int i = nr; i-- > 0 && pos < 0;)
              if (ranges[i][1] > ranges[i][0]) pos = ranges[i][1] - 1;
          } else if (n >= 1) {
            int64_t left = n;  // the n-th position of the ranges
            for (int i = 0; i < nr && pos < 0; i++) {
              const int64_t size = ranges[i][1] - ranges[i][0];
              if (left <= size) pos = ranges[i][0] + left - 1;
              else left -= size;
            }
          }
          const int64_t target = pos < 0 ? -1 : w.ignore_nulls ? nonnull[pos] : pos;
          if (target < 0) out.validity()[r] = 0;
          else SetCell(x, idx[ps + target], out, r);
        }
        return;
      }
      case WindowFunc::Aggregate: return Aggregate(f, w, out);
    }
  }

  // The rows of row k's frame [fs, fe) that EXCLUDE leaves, as at most three ranges in
  // window order; returns how many.
  int Ranges(const WindowInfo& w, uint32_t k, int64_t fs, int64_t fe, int64_t (&r)[3][2]) const {
    if (w.exclude == WindowExclude::NoOthers) {
      r[0][0] = fs;
      r[0][1] = fe;
      return 1;
    }
    const bool row = w.exclude == WindowExclude::CurrentRow;
    const int64_t lo = row ? k : peer_start[k], hi = row ? k + 1 : peer_end[k];
    int n = 0;
    auto add = [&](int64_t a, int64_t b) {
      a = std::max(a, fs);
      b = std::min(b, fe);
      if (a < b) {
        r[n][0] = a;
        r[n][1] = b;
        n++;
      }
    };
    add(fs, lo);
    if (w.exclude == WindowExclude::Ties) add(k, k + 1);
    add(hi, fe);
    return n;
  }

  // An aggregate over each row's frame, with the hash aggregate's states (see window.hpp).
  void Aggregate(size_t f, const WindowInfo& w, Vector& out) {
    const uint32_t m = pe - ps;
    fs.resize(m);
    fe.resize(m);
    bool running = true;  // every frame starts at the partition start, ends no earlier
    for (uint32_t k = 0; k < m; k++) {
      Frame(w, f, k, fs[k], fe[k]);
      running &= fs[k] == 0 && (k == 0 || fe[k] >= fe[k - 1]);
    }
    const bool excluding = w.exclude != WindowExclude::NoOthers;  // frames differ within peers
    running &= !excluding;
    if (!tables[f]) {
      const BoundExpr* shape = agg_shapes[f].get();
      tables[f] = std::make_unique<GroupTable>(std::vector<Type>{}, std::vector<const BoundExpr*>{shape});
    }
    GroupTable& t = *tables[f];
    // Running: [0] the running state, [1, 1+m) the leaves (one state per row, in window
    // order), then the results. Tree: node j at state j (1 the root), leaves [m, 2m),
    // then the results. Results are made a batch of rows at a time; tree queries of a
    // large partition run in parallel (each worker with its own result states).
    const uint32_t batch = std::min<uint32_t>(m, kVectorSize);
    const unsigned workers = running || m < 4 * kVectorSize ? 1 : inner_threads;
    const uint32_t leaf0 = running ? 1 : m;
    const uint32_t res0 = running ? 1 + m : 2 * m;
    t.ResetStates(res0 + batch * workers);
    {
      gids.resize(m);
      rows.resize(m);
      for (uint32_t k = 0; k < m; k++) {
        gids[k] = leaf0 + k;
        rows[k] = idx[ps + k];
      }
      if (w.args == 0) {
        t.Update(0, nullptr, gids, m);
      } else {
        const Vector& arg = Child(f, 0);
        leaves.Init(arg.type(), m);
        CopyRows(arg, rows.data(), m, leaves, 0);
        if (GroupTable::TwoInputs(agg_shapes[f]->name)) {  // arg_min(x, by), corr(y, x)
          const Vector& arg2 = Child(f, 1);
          leaves2.Init(arg2.type(), m);
          if (At(f, 1, 1) == 0) {  // a constant: its one row for every row
            std::vector<uint32_t> zeros(m, 0);
            CopyRows(arg2, zeros.data(), m, leaves2, 0);
          } else {
            CopyRows(arg2, rows.data(), m, leaves2, 0);
          }
          t.Update(0, &leaves, gids, m, &leaves2);
        } else {
          t.Update(0, &leaves, gids, m);
        }
      }
    }
    if (!running)
      for (uint32_t j = m; j-- > 1;) {
        t.CombineStates(j, 2 * j);
        t.CombineStates(j, 2 * j + 1);
      }
    std::mutex share_mutex;  // out.ShareStrings from parallel batches
    int64_t added = 0;  // running: rows [0, added) merged into state 0
    auto run_batch = [&](uint32_t from, unsigned worker) {
      const uint32_t n = std::min(batch, m - from), base = res0 + worker * batch;
      t.ClearStates(base, n);
      std::vector<uint32_t> own_slot;  // the result state each row reads
      std::vector<uint32_t>& slot = workers > 1 ? own_slot : slots;
      slot.resize(n);
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t k = from + i;
        if (i > 0 && !excluding && fs[k] == fs[k - 1] && fe[k] == fe[k - 1]) {  // the previous row's frame
          slot[i] = slot[i - 1];
          continue;
        }
        slot[i] = i;
        if (running) {
          for (; added < fe[k]; added++) t.CombineStates(0, leaf0 + (uint32_t)added);
          t.CombineStates(base + i, 0);
          continue;
        }
        int64_t ranges[3][2];
        const int nr = Ranges(w, k, fs[k], fe[k], ranges);
        for (int q = 0; q < nr; q++)
          for (int64_t l = ranges[q][0] + m, r = ranges[q][1] + m; l < r; l >>= 1, r >>= 1) {
            if (l & 1) t.CombineStates(base + i, (uint32_t)l++);
            if (r & 1) t.CombineStates(base + i, (uint32_t)--r);
          }
      }
      DataChunk own_chunk;
      DataChunk& chunk = workers > 1 ? own_chunk : results;
      t.Emit(base, n, chunk);
      for (uint32_t i = 0; i < n; i++) SetCell(chunk.cols[0], slot[i], out, idx[ps + from + i]);
      if (out.type().physical() == PhysType::Str) {  // results made in the chunk's heap (string_agg)
        std::lock_guard<std::mutex> lock(share_mutex);
        out.ShareStrings(chunk.cols[0]);
      }
    };
    const uint32_t batches = (m + batch - 1) / batch;
    if (workers > 1) {
      ParallelFor(batches, workers, [&](uint64_t b, unsigned wk) { run_batch((uint32_t)b * batch, wk); });
    } else {
      for (uint32_t b = 0; b < batches; b++) run_batch(b * batch, 0);
    }
  }
};

}  // namespace

void PhysicalWindow::Finalize() {
  const size_t ncols = children[0]->types.size();
  uint64_t n64 = input_.rows;
  if (n64 >= UINT32_MAX) throw UserError(ErrorKind::Unsupported, "window functions over more than 4 billion rows");
  const uint32_t n = (uint32_t)n64;
  rows_ = n;
  // Concatenate: input columns, each function's children, then the results.
  std::vector<size_t> child_col(exprs.size()), result_col(exprs.size());
  std::vector<Type> col_types(children[0]->types);
  for (size_t f = 0; f < exprs.size(); f++) {
    child_col[f] = col_types.size();
    for (auto& c : exprs[f]->children) col_types.push_back(c->type);
  }
  const size_t evaluated = col_types.size();
  for (size_t f = 0; f < exprs.size(); f++) {
    result_col[f] = col_types.size();
    col_types.push_back(exprs[f]->type);
  }
  cols_.assign(col_types.size(), Vector());
  const uint32_t cap = std::max<uint32_t>(n, 1);
  for (size_t c = 0; c < col_types.size(); c++) cols_[c].Init(col_types[c], cap);
  uint32_t off = 0;
  for (auto& ch : input_.chunks) {
    for (size_t c = 0; c < evaluated; c++) CopyRows(ch.cols[c], nullptr, ch.size, cols_[c], off);
    off += ch.size;
  }
  input_ = ChunkList();
  // Results: validity materialised, strings of every column a value may come from shared,
  // so that partitions may be evaluated concurrently.
  for (size_t f = 0; f < exprs.size(); f++) {
    Vector& r = cols_[result_col[f]];
    r.validity();
    for (size_t c = ncols; c < evaluated; c++) r.ShareStrings(cols_[c]);
  }
  rows_out = n;
  if (n == 0) return;

  // Sort groups: functions with equal PARTITION BY and ORDER BY share one sort.
  auto same_keys = [&](const BoundExpr& a, const BoundExpr& b) {
    const WindowInfo &wa = *a.window, &wb = *b.window;
    if (wa.partitions != wb.partitions || wa.orders != wb.orders) return false;
    for (uint32_t i = 0; i < wa.partitions + wa.orders.size(); i++)
      if (!a.children[wa.PartitionChild() + i]->Equals(*b.children[wb.PartitionChild() + i])) return false;
    return true;
  };
  std::vector<SortGroup> groups;
  for (size_t f = 0; f < exprs.size(); f++) {
    bool placed = false;
    for (auto& g : groups)
      if (!placed && same_keys(*g.first, *exprs[f])) {
        g.members.push_back(f);
        placed = true;
      }
    if (!placed) groups.push_back({{f}, exprs[f].get()});
  }
  std::vector<const BoundExpr*> fns;
  std::vector<BoundExprPtr> agg_shapes;
  for (auto& e : exprs) {
    fns.push_back(e.get());
    BoundExprPtr shape;
    if (e->window->func == WindowFunc::Aggregate) {  // the aggregate as the hash aggregate sees it
      shape = std::make_unique<BoundExpr>(BExpr::Agg, e->type);
      shape->name = e->name;
      shape->agg_fn = e->agg_fn;
      shape->distinct = e->distinct;
      for (uint32_t i = 0; i < e->window->args; i++) shape->children.push_back(e->children[i]->Copy());
    }
    agg_shapes.push_back(std::move(shape));
  }

  const unsigned threads = std::max(1u, this->threads);
  for (auto& g : groups) {
    const BoundExpr& lead = *g.first;
    const WindowInfo& w = *lead.window;
    const size_t lf = g.members[0];
    auto key = [&](uint32_t i) -> const Vector& { return cols_[child_col[lf] + w.PartitionChild() + i]; };
    auto okey = [&](uint32_t i) -> const Vector& { return cols_[child_col[lf] + w.OrderChild() + i]; };
    // Buckets by the partition keys' hash (one without PARTITION BY).
    const uint32_t nbuckets = w.partitions == 0 ? 1 : (uint32_t)std::min<uint64_t>(1024, std::max<uint64_t>(1, n / 256));
    std::vector<uint32_t> bucket(n, 0), bstart(nbuckets + 1, 0), idx(n);
    if (nbuckets > 1)
      for (uint32_t r = 0; r < n; r++) {
        uint64_t h = 0;
        for (uint32_t p = 0; p < w.partitions; p++) h = HashCombine(h, HashValue(key(p), r));
        bucket[r] = (uint32_t)(h % nbuckets);
      }
    for (uint32_t r = 0; r < n; r++) bstart[bucket[r] + 1]++;
    for (uint32_t b = 0; b < nbuckets; b++) bstart[b + 1] += bstart[b];
    {
      std::vector<uint32_t> fill(bstart.begin(), bstart.end() - 1);
      for (uint32_t r = 0; r < n; r++) idx[fill[bucket[r]]++] = r;
    }
    std::vector<KeyColumn> sort_keys, part_keys;
    for (uint32_t p = 0; p < w.partitions; p++) part_keys.emplace_back(key(p), false, false);
    sort_keys = part_keys;
    for (uint32_t o = 0; o < w.orders.size(); o++)
      sort_keys.emplace_back(okey(o), w.orders[o].desc, w.orders[o].nulls_first);
    auto less = [&](uint32_t a, uint32_t b) {
      for (auto& k : sort_keys)
        if (int c = k.Compare(a, b)) return c < 0;
      return a < b;  // ties in input order
    };
    // Sorts rows [lo, hi) (ascending row numbers): one integer key by (key, row) pairs,
    // NULLs in row order before or after them; otherwise through the key columns.
    const bool int_key = sort_keys.size() == 1 &&
                         (sort_keys[0].phys == PhysType::I32 || sort_keys[0].phys == PhysType::I64);
    auto sort_rows = [&](uint32_t* lo, uint32_t* hi) {
      if (std::is_sorted(lo, hi, less)) return;
      if (!int_key) return std::sort(lo, hi, less);
      const KeyColumn& k = sort_keys[0];
      std::vector<std::pair<int64_t, uint32_t>> keyed;
      std::vector<uint32_t> nulls;
      keyed.reserve(hi - lo);
      for (uint32_t* p = lo; p < hi; p++) {
        if (k.valid && !k.valid[*p]) nulls.push_back(*p);
        else keyed.emplace_back(k.phys == PhysType::I32 ? reinterpret_cast<const int32_t*>(k.data)[*p]
                                                        : reinterpret_cast<const int64_t*>(k.data)[*p],
                                *p);
      }
      if (k.desc)
        std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
          return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
      else
        std::sort(keyed.begin(), keyed.end());
      uint32_t* out = lo;
      if (k.nulls_first) out = std::copy(nulls.begin(), nulls.end(), out);
      for (auto& kv : keyed) *out++ = kv.second;
      if (!k.nulls_first) std::copy(nulls.begin(), nulls.end(), out);
    };
    // One bucket (no PARTITION BY): sorted in parallel runs, then merged.
    const uint32_t runs = nbuckets == 1 && n >= 65536 && !std::is_sorted(idx.begin(), idx.end(), less)
                              ? std::min(threads, 8u) : 1;
    if (runs > 1) {
      std::vector<uint32_t> bounds(runs + 1);
      for (uint32_t r = 0; r <= runs; r++) bounds[r] = (uint32_t)((uint64_t)n * r / runs);
      ParallelFor(runs, threads, [&](uint64_t r, unsigned) {
        sort_rows(idx.data() + bounds[r], idx.data() + bounds[r + 1]);
      });
      for (uint32_t r = 1; r < runs; r++)
        std::inplace_merge(idx.begin(), idx.begin() + bounds[r], idx.begin() + bounds[r + 1], less);
    }
    const unsigned inner = nbuckets == 1 ? threads : 1;  // one bucket: parallel inside it
    ParallelFor(nbuckets, threads, [&](uint64_t b, unsigned) {
      uint32_t* lo = idx.data() + bstart[b];
      uint32_t* hi = idx.data() + bstart[b + 1];
      if (lo == hi) return;
      if (runs == 1) sort_rows(lo, hi);
      std::vector<std::unique_ptr<GroupTable>> tables(exprs.size());
      PartitionEval ev(fns, child_col, cols_, result_col, idx.data(), tables, agg_shapes, inner);
      uint32_t ps = bstart[b];
      while (ps < bstart[b + 1]) {
        uint32_t pe = ps + 1;
        while (pe < bstart[b + 1]) {
          bool same = true;
          for (size_t p = 0; p < part_keys.size() && same; p++) same = part_keys[p].Compare(idx[ps], idx[pe]) == 0;
          if (!same) break;
          pe++;
        }
        ev.ps = ps;
        ev.pe = pe;
        for (size_t f : g.members) ev.Run(f);
        ps = pe;
      }
    });
  }
}

struct WindowSource : GlobalSourceState {
  std::atomic<uint32_t> next{0};
};
std::unique_ptr<GlobalSourceState> PhysicalWindow::InitSource() { return std::make_unique<WindowSource>(); }

bool PhysicalWindow::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  auto& s = static_cast<WindowSource&>(gs);
  const uint32_t from = s.next.fetch_add(kVectorSize);
  if (from >= rows_) return false;
  const uint32_t m = std::min(kVectorSize, rows_ - from);
  std::vector<uint32_t> sel(m);
  for (uint32_t i = 0; i < m; i++) sel[i] = from + i;
  const size_t ncols = children[0]->types.size();
  out.cols.resize(types.size());
  auto copy = [&](size_t out_col, const Vector& src) {
    out.cols[out_col].Init(types[out_col], m);
    CopyRows(src, sel.data(), m, out.cols[out_col], 0);
  };
  for (size_t c = 0; c < ncols; c++) copy(c, cols_[c]);
  for (size_t f = 0; f < exprs.size(); f++) copy(ncols + f, cols_[cols_.size() - exprs.size() + f]);
  out.size = m;
  return true;
}

}  // namespace tessera
