// The tile library: block-wide device functions of our own that every generated pipeline
// kernel is built from (Crystal's tile model, seed 000). It is CUDA C++ source embedded in
// the binary and placed in front of each generated kernel before NVRTC compiles it; it
// includes no header, so a kernel compiles in milliseconds (anchors.md: CUB's block headers
// cost 1.4-2 s per kernel under NVRTC).
//
// Conventions: a thread block of BT threads processes tiles of BT x IPT rows; item i of
// thread t is row tile_base + i * BT + t (striped, so a warp's loads are coalesced). The
// selection flags of a tile live in registers (`sel[IPT]`); intermediate values never go to
// global memory. Errors (overflow, duplicate build key) set *err to a message id chosen by
// the code generator; the first one wins.
#include "gpu/tile_library.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::gpu {

namespace {
// The scalar core (src/function/scalar_core.hpp), embedded at build time.
const char* kScalarCore =
#include "function/scalar_core.inc"
    ;

const char* kTileLibrary = R"tessera_cuda(
typedef unsigned long long u64;
typedef long long i64;

// ---- lane-packed columns (gpu/column_cache.hpp: CachedColumn::packed) ----------------
// A thread's words of tile `tile` of a column held in the lane-packed layout with B bytes
// a value, N items a thread, T threads a block (storage/compression/lanepack_core.hpp):
// each word loaded once (only those holding a selected item's bytes), coalesced with the
// warp; w has LaneWords(N, B) + 1 entries, the last zero.
template <int B, int N, int T>
__device__ __forceinline__ void tsr_lane_load(const unsigned* __restrict__ col, long long tile, const bool* sel, unsigned* w) {
  constexpr unsigned L = tessera::lanepack::LaneWords(N, B);
  #pragma unroll
  for (unsigned r = 0; r < L; ++r) {
    bool need = false;
    #pragma unroll
    for (int i = 0; i < N; ++i) need = need || (sel[i] && tessera::lanepack::WordHolds(r, i, B));
    w[r] = need ? __ldg(col + tessera::lanepack::WordIndex((u64)tile, r, threadIdx.x, T, L)) : 0u;
  }
  w[L] = 0u;
}
// The fields of the N items from the words: shifts fixed at compile time.
template <int B, int N>
__device__ __forceinline__ void tsr_lane_unpack(const unsigned* w, unsigned* f) {
  #pragma unroll
  for (int i = 0; i < N; ++i) f[i] = tessera::lanepack::Field(w, i, B);
}

// ---- errors ---------------------------------------------------------------------------
__device__ __forceinline__ void tsr_fail(int* err, int id) { atomicCAS(err, 0, id); }
// A 128-bit value kept in a 64-bit state word (MIN/MAX): error `id` when it does not fit.
__device__ __forceinline__ long long tsr_fit64(__int128 v, int* err, int id) {
  if (!tessera::ops::SumFitsInt64(v)) tsr_fail(err, id);
  return (long long)v; }

// An exact numeric cast (the scalar core's CastExact); error `id` when out of range.
__device__ __forceinline__ __int128 tsr_cast_exact(__int128 v, int fs, int ts, __int128 limit, bool decimal, int* err, int id) {
  __int128 r;
  if (!tessera::ops::CastExact(v, fs, ts, limit, decimal, r)) { tsr_fail(err, id); return 0; }
  return r; }

// ---- overflow-checked arithmetic: the scalar core's definitions (tessera::ops, compiled
// in front of this library), the overflow turned into the kernel's error word -----------
template <class T> __device__ __forceinline__ T tsr_add(T a, T b, int* err, int id) {
  T r; if (!tessera::ops::AddChecked(a, b, r)) tsr_fail(err, id); return r; }
template <class T> __device__ __forceinline__ T tsr_sub(T a, T b, int* err, int id) {
  T r; if (!tessera::ops::SubChecked(a, b, r)) tsr_fail(err, id); return r; }
template <class T> __device__ __forceinline__ T tsr_mul(T a, T b, int* err, int id) {
  T r; if (!tessera::ops::MulChecked(a, b, r)) tsr_fail(err, id); return r; }
template <class T> __device__ __forceinline__ T tsr_neg(T a, int* err, int id) {
  T r; if (!tessera::ops::NegChecked(a, r)) tsr_fail(err, id); return r; }

// Integer modulo and division (`%`, `//`): the scalar core's Mod and IntDiv. A zero divisor
// gives NULL, which GPU values cannot hold, and the minimum value over -1 overflows: either
// is error `id`, which hands the query back to the CPU (its NULL, or its error message
// naming the values).
template <class T> __device__ __forceinline__ T tsr_mod(T a, T b, int* err, int id) {
  T r = 0; bool overflow = false;
  if (!tessera::ops::Mod(a, b, r, overflow) || overflow) tsr_fail(err, id); return r; }
template <class T> __device__ __forceinline__ T tsr_intdiv(T a, T b, int* err, int id) {
  T r = 0; bool overflow = false;
  if (!tessera::ops::IntDiv(a, b, r, overflow) || overflow) tsr_fail(err, id); return r; }

// A DECIMAL result must fit its precision p (|v| < 10^p), as on the CPU: one of 128 bits,
// and one of 64 (DECIMAL(18, s), to which the binder narrows wider results of narrow operands).
__device__ __forceinline__ __int128 tsr_precision(__int128 v, int p, int* err, int id) {
  if (!tessera::ops::WithinPrecision(v, tessera::ops::Pow10Int128(p))) tsr_fail(err, id); return v; }
__device__ __forceinline__ i64 tsr_precision(i64 v, int p, int* err, int id) {
  if (!tessera::ops::WithinPrecision(v, (i64)tessera::ops::Pow10Int128(p))) tsr_fail(err, id); return v; }

// ---- 128-bit integer sums (SUM over integers and decimals is exact) --------------------
struct I128 { u64 lo; i64 hi; };
__device__ __forceinline__ I128 tsr_i128(i64 v) { I128 x; x.lo = (u64)v; x.hi = v < 0 ? -1 : 0; return x; }
__device__ __forceinline__ I128 tsr_i128(__int128 v) { I128 x; x.lo = (u64)v; x.hi = (i64)(v >> 64); return x; }
__device__ __forceinline__ void i128_add(I128& a, i64 v) {
  u64 lo = a.lo + (u64)v; a.hi += (v < 0 ? -1 : 0) + (lo < a.lo ? 1 : 0); a.lo = lo; }
__device__ __forceinline__ void i128_add(I128& a, I128 b) {
  u64 lo = a.lo + b.lo; a.hi += b.hi + (lo < a.lo ? 1 : 0); a.lo = lo; }
// Adds v to the 128-bit value stored as (lo, hi) words; two atomics at most.
__device__ __forceinline__ void atomic_add_i128(u64* w, I128 v) {
  u64 old = atomicAdd(w, v.lo);
  i64 h = v.hi + (old + v.lo < old ? 1 : 0);
  if (h) atomicAdd(w + 1, (u64)h);
}
__device__ __forceinline__ void atomic_add_i128(u64* w, i64 v) {
  I128 x; x.lo = (u64)v; x.hi = v < 0 ? -1 : 0; atomic_add_i128(w, x); }
__device__ __forceinline__ void atomic_add_f64(u64* w, double v) { atomicAdd((double*)w, v); }
__device__ __forceinline__ void atomic_min_i64(u64* w, i64 v) { atomicMin((i64*)w, v); }
__device__ __forceinline__ void atomic_max_i64(u64* w, i64 v) { atomicMax((i64*)w, v); }

// ---- block-wide reduction: warp shuffles, then one warp over the warp totals -----------
struct SumI128 { __device__ I128 operator()(I128 a, I128 b) const { i128_add(a, b); return a; } };
struct SumU64 { __device__ u64 operator()(u64 a, u64 b) const { return a + b; } };
struct SumF64 { __device__ double operator()(double a, double b) const { return a + b; } };
struct MinI64 { __device__ i64 operator()(i64 a, i64 b) const { return a < b ? a : b; } };
struct MaxI64 { __device__ i64 operator()(i64 a, i64 b) const { return a > b ? a : b; } };
__device__ __forceinline__ I128 tsr_shfl_down(I128 v, int o) {
  I128 r; r.lo = __shfl_down_sync(0xffffffffu, v.lo, o); r.hi = __shfl_down_sync(0xffffffffu, v.hi, o); return r; }
template <class T> __device__ __forceinline__ T tsr_shfl_down(T v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }
// The warp's total lands in lane 0; every lane of the warp must call it.
template <class T, class Op>
__device__ __forceinline__ T WarpReduce(T v, Op op) {
  for (int o = 16; o > 0; o >>= 1) v = op(v, tsr_shfl_down(v, o));
  return v;
}
// The block's total lands in thread 0; every thread of the block must call it.
template <int BT, class T, class Op>
__device__ T BlockReduce(T v, Op op) {
  __shared__ T warp_total[BT / 32];
  for (int o = 16; o > 0; o >>= 1) v = op(v, tsr_shfl_down(v, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // warp_total may still be read by a previous call
  if (lane == 0) warp_total[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_total[lane < BT / 32 ? lane : 0];  // lanes past the warp count are masked below
    for (int o = 16; o > 0; o >>= 1) {
      T w = tsr_shfl_down(v, o);
      if (lane + o < BT / 32) v = op(v, w);
    }
  }
  return v;
}

// ---- hash tables (join build and probe) -------------------------------------------------
// A table is an array of slots of `stride` 32-bit words: word 0 is the occupancy flag,
// payload columns follow (one word for 4-byte values, two for 8-byte values).
// Direct-mapped (perfect hash): slot = key - lo. Open addressing: a separate key array
// (empty = -1), linear probing.
__device__ __forceinline__ u64 tsr_hash(u64 k) {
  k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL; k ^= k >> 33;
  return k;
}
__device__ __forceinline__ i64 ht_find_dense(const unsigned* ht, int stride, i64 lo, u64 range, i64 key) {
  u64 off = (u64)(key - lo);
  if (off >= range) return -1;
  return __ldg(ht + off * stride) ? (i64)off : -1;
}
// The same for a 32-bit key of a table whose keys [lo, lo + range) are 32-bit values: the
// difference taken modulo 2^32 is below range exactly when the key is in the table's range.
// Without a branch: the slot's load is predicated.
__device__ __forceinline__ int ht_find_dense32(const unsigned* ht, int stride, int lo, unsigned range, int key) {
  const unsigned off = (unsigned)key - (unsigned)lo;
  const bool in = off < range;
  const unsigned flag = in ? __ldg(ht + (u64)off * (unsigned)stride) : 0u;
  return flag ? (int)off : -1;
}
// Presence bitmap of a direct-mapped table (GpuHashTable::presence): bit (key - lo) set
// for a key the build inserted. A probe tests it before the table's slot, and a scan
// tests it for a later join of its pipeline (a join filter passed sideways): the bitmap
// is 32 x stride times smaller than the table, so it stays in L2 where the table does not.
__device__ __forceinline__ void ht_presence_set(unsigned* bits, u64 off) {
  atomicOr(bits + (off >> 5), 1u << (off & 31));
}
__device__ __forceinline__ bool ht_presence_test(const unsigned* bits, i64 lo, u64 range, i64 key) {
  u64 off = (u64)(key - lo);
  return off < range && ((__ldg(bits + (off >> 5)) >> (off & 31)) & 1u);
}
// Join filters by key range (GpuHashTable::bounded): a build kernel folds its keys' min
// and max into bounds[0..1]; a probing scan skips a tile whose row groups' statistics
// (zm: min, max per row group of rg_rows rows) all lie outside them. Every thread of the
// block computes the same answer, so the whole block skips the tile together.
__device__ __forceinline__ bool tsr_tile_outside(const i64* zm, u64 rg_rows, i64 first, i64 rows, i64 n,
                                                 const i64* bounds) {
  const i64 last = (first + rows < n ? first + rows : n) - 1, lo = bounds[0], hi = bounds[1];
  for (i64 g = first / (i64)rg_rows; g <= last / (i64)rg_rows; ++g)
    if (tessera::ops::KeyRangeMeets(lo, hi, __ldg(zm + 2 * g), __ldg(zm + 2 * g + 1))) return false;
  return true;
}
// The same when a row group holds a whole number of tiles (tiles_per_group): one group.
__device__ __forceinline__ bool tsr_tile_outside_aligned(const i64* zm, unsigned tiles_per_group, unsigned tile,
                                                         const i64* bounds) {
  const unsigned g = tile / tiles_per_group;
  return !tessera::ops::KeyRangeMeets(bounds[0], bounds[1], __ldg(zm + 2 * g), __ldg(zm + 2 * g + 1));
}
__device__ __forceinline__ i64 ht_find_open(const i64* keys, u64 mask, i64 key) {
  if (key == -1) return -1;  // the empty slots' mark: never a key of the table
  u64 s = tsr_hash((u64)key) & mask;
  for (;;) {
    i64 k = __ldg(keys + s);
    if (k == key) return (i64)s;
    if (k == -1) return -1;
    s = (s + 1) & mask;
  }
}
__device__ __forceinline__ i64 ht_insert_dense(unsigned* ht, int stride, i64 lo, u64 range, i64 key,
                                               int* err, int range_err, int dup_err) {
  u64 off = (u64)(key - lo);
  if (off >= range) { tsr_fail(err, range_err); return -1; }
  if (atomicExch(ht + off * stride, 1u)) { tsr_fail(err, dup_err); return -1; }
  return (i64)off;
}
__device__ __forceinline__ i64 ht_insert_open(i64* keys, u64 mask, i64 key, int* err, int range_err, int dup_err) {
  if (key == -1) { tsr_fail(err, range_err); return -1; }
  u64 s = tsr_hash((u64)key) & mask;
  for (;;) {
    i64 prev = (i64)atomicCAS((u64*)(keys + s), (u64)-1, (u64)key);
    if (prev == -1) return (i64)s;
    if (prev == key) { tsr_fail(err, dup_err); return -1; }
    s = (s + 1) & mask;
  }
}
// Key sets (semi, anti and mark joins): a key seen again is no error.
__device__ __forceinline__ void ht_insert_dense_set(unsigned* ht, int stride, i64 lo, u64 range, i64 key,
                                                    int* err, int range_err) {
  u64 off = (u64)(key - lo);
  if (off >= range) { tsr_fail(err, range_err); return; }
  if (!ht[off * stride]) ht[off * stride] = 1u;
}
__device__ __forceinline__ void ht_insert_open_set(i64* keys, u64 mask, i64 key, int* err, int range_err) {
  if (key == -1) { tsr_fail(err, range_err); return; }
  u64 s = tsr_hash((u64)key) & mask;
  for (;;) {
    i64 prev = (i64)atomicCAS((u64*)(keys + s), (u64)-1, (u64)key);
    if (prev == -1 || prev == key) return;
    s = (s + 1) & mask;
  }
}
// Chained tables (semi/anti joins with a residual: duplicate keys kept): heads[slot] =
// last row + 1 of the key (0: none), rows[r * stride] = the key's previous row + 1.
__device__ __forceinline__ void ht_chain_insert_dense(unsigned* heads, i64 lo, u64 range, i64 key, unsigned* rows,
                                                      int stride, u64 r, int* err, int range_err) {
  u64 off = (u64)(key - lo);
  if (off >= range) { tsr_fail(err, range_err); return; }
  rows[r * stride] = atomicExch(heads + off, (unsigned)(r + 1));
}
__device__ __forceinline__ void ht_chain_insert_open(i64* keys, unsigned* heads, u64 mask, i64 key, unsigned* rows,
                                                     int stride, u64 r, int* err, int range_err) {
  if (key == -1) { tsr_fail(err, range_err); return; }
  u64 s = tsr_hash((u64)key) & mask;
  for (;;) {
    i64 prev = (i64)atomicCAS((u64*)(keys + s), (u64)-1, (u64)key);
    if (prev == -1 || prev == key) break;
    s = (s + 1) & mask;
  }
  rows[r * stride] = atomicExch(heads + s, (unsigned)(r + 1));
}
// The key's last row (-1: none); then each earlier one.
__device__ __forceinline__ i64 ht_chain_first_dense(const unsigned* heads, i64 lo, u64 range, i64 key) {
  u64 off = (u64)(key - lo);
  return off >= range ? -1 : (i64)__ldg(heads + off) - 1;
}
__device__ __forceinline__ i64 ht_chain_first_open(const i64* keys, const unsigned* heads, u64 mask, i64 key) {
  i64 s = ht_find_open(keys, mask, key);
  return s < 0 ? -1 : (i64)__ldg(heads + s) - 1;
}
__device__ __forceinline__ i64 ht_chain_next(const unsigned* rows, int stride, i64 r) {
  return (i64)__ldg(rows + r * stride) - 1;
}
__device__ __forceinline__ int ht_load32(const unsigned* ht, int stride, i64 slot, int off) {
  return (int)__ldg(ht + slot * stride + off); }
__device__ __forceinline__ i64 ht_load64(const unsigned* ht, int stride, i64 slot, int off) {
  const unsigned* w = ht + slot * stride + off;
  return (i64)(((u64)__ldg(w + 1) << 32) | __ldg(w)); }
__device__ __forceinline__ __int128 ht_load128(const unsigned* ht, int stride, i64 slot, int off) {
  return (__int128)(((unsigned __int128)(u64)ht_load64(ht, stride, slot, off + 2) << 64) | (u64)ht_load64(ht, stride, slot, off)); }
__device__ __forceinline__ void ht_store32(unsigned* ht, int stride, i64 slot, int off, int v) {
  ht[slot * stride + off] = (unsigned)v; }
__device__ __forceinline__ void ht_store64(unsigned* ht, int stride, i64 slot, int off, i64 v) {
  unsigned* w = ht + slot * stride + off; w[0] = (unsigned)(u64)v; w[1] = (unsigned)((u64)v >> 32); }
__device__ __forceinline__ void ht_store128(unsigned* ht, int stride, i64 slot, int off, __int128 v) {
  ht_store64(ht, stride, slot, off, (i64)(u64)v); ht_store64(ht, stride, slot, off + 2, (i64)(v >> 64)); }
__device__ __forceinline__ double tsr_as_f64(i64 v) { return __longlong_as_double(v); }
__device__ __forceinline__ i64 tsr_f64_bits(double v) { return __double_as_longlong(v); }

// ---- dictionary predicates: a bit per dictionary code ----------------------------------
__device__ __forceinline__ bool tsr_bit(const unsigned* bm, int code) {
  return (__ldg(bm + (code >> 5)) >> (code & 31)) & 1u; }

// ---- aggregation state ---------------------------------------------------------------
// A group's state is `W` 64-bit words: word 0 counts its rows, each aggregate follows
// (SUM over integers: 2 words, lo/hi; SUM over doubles: 1; MIN/MAX: 1). Every kernel below
// is generic over W; the pattern gives each word's initial value.
struct StatePattern { u64 w[32]; };

// Group hash table (GROUP BY keys without a small domain): open addressing over the
// state rows themselves, linear probing; a row's last word holds its packed key + 1
// (0: empty), claimed with one compare-and-swap and counted in *fill. Returns the group's
// row, or nullptr once *fill passes `limit` (3/4 of the rows: probe sequences stay short;
// the kernel reports it and the host runs it again over a larger table). A row that
// probes long checks *fill every 16 slots, so a full table does not cost a scan per row.
__device__ __forceinline__ u64* tsr_group_row(u64* st, u64 mask, int W, u64 key, u64* fill, u64 limit) {
  const u64 tag = key + 1;
  u64 s = tsr_hash(key) & mask;
  for (u64 n = 0; n <= mask; ++n) {
    if ((n & 15) == 15 && *(volatile u64*)fill > limit) return nullptr;
    u64* row = st + s * (u64)W;
    u64 cur = *(volatile u64*)(row + W - 1);
    if (cur == 0) {
      cur = atomicCAS(row + W - 1, 0ull, tag);
      if (cur == 0) return atomicAdd(fill, 1ull) < limit ? row : nullptr;
    }
    if (cur == tag) return row;
    s = (s + 1) & mask;
  }
  return nullptr;
}

// Group keys wider than one word (K key words, K <= 4): the row's last word is its state
// (0 empty, 1 being written, 2 ready) and the K words before it hold the key words. The
// thread that claims an empty row (0 -> 1) writes the key words, fences and marks the row
// ready; a thread that finds a row being written waits for it (independent thread
// scheduling lets the writer finish), then compares every key word.
__device__ __forceinline__ u64* tsr_group_row_wide(u64* st, u64 mask, int W, int K, const u64* key, u64* fill, u64 limit) {
  u64 h = 0;
  for (int j = 0; j < K; ++j) h = tsr_hash(h ^ key[j]);
  u64 s = h & mask;
  for (u64 n = 0; n <= mask; ++n) {
    if ((n & 15) == 15 && *(volatile u64*)fill > limit) return nullptr;
    u64* row = st + s * (u64)W;
    volatile u64* kw = row + W - 1 - K;
    u64 cur = *(volatile u64*)(row + W - 1);
    if (cur == 0) {
      cur = atomicCAS(row + W - 1, 0ull, 1ull);
      if (cur == 0) {
        for (int j = 0; j < K; ++j) kw[j] = key[j];
        __threadfence();
        atomicExch(row + W - 1, 2ull);
        return atomicAdd(fill, 1ull) < limit ? row : nullptr;
      }
    }
    while (cur == 1) cur = *(volatile u64*)(row + W - 1);
    __threadfence();
    bool same = true;
    for (int j = 0; j < K; ++j) same = same && kw[j] == key[j];
    if (same) return row;
    s = (s + 1) & mask;
  }
  return nullptr;
}

// Block-wide compacted store: the output position of this thread's row among the rows
// the block's threads flag (warp ballots and a block prefix over the warp counts), with
// one atomicAdd on *out_count per tile. Valid where `flag`; every thread of the block
// must call it, once per tile.
__device__ __forceinline__ u64 tsr_compact_pos(bool flag, u64* out_count) {
  __shared__ unsigned warp_count[32];
  __shared__ u64 tile_base;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // the previous tile's positions are read
  unsigned ballot = __ballot_sync(0xffffffffu, flag);
  if (lane == 0) warp_count[warp] = __popc(ballot);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned total = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++) { unsigned c = warp_count[w]; warp_count[w] = total; total += c; }
    tile_base = total ? atomicAdd(out_count, (u64)total) : 0;
  }
  __syncthreads();
  return tile_base + warp_count[warp] + __popc(ballot & ((1u << lane) - 1));
}

// Rows kept of `seen` by a sink that keeps [offset, offset + limit) (see GpuRowSet).
__device__ __forceinline__ u64 tsr_kept(u64 seen, u64 offset, u64 limit) {
  return seen <= offset ? 0ull : (seen - offset < limit ? seen - offset : limit);
}


// ---- order words: a sort key as unsigned 64-bit words whose unsigned order is the key's
// order under ops::LessThan (the CPU's ORDER BY): signed integers with the sign bit flipped;
// 128-bit values as (high word flipped, low word); doubles by the sign-magnitude trick, with
// -0 equal to 0 and every NaN above +inf; dictionary codes as they are (the dictionary is
// sorted byte-wise, as strings compare). A DESC key's words are inverted.
__device__ __forceinline__ u64 tsr_order_i64(i64 v) { return (u64)v ^ 0x8000000000000000ull; }
__device__ __forceinline__ u64 tsr_order_f64(u64 b) {
  const u64 sign = 0x8000000000000000ull;
  if ((b & ~sign) > 0x7ff0000000000000ull) return ~0ull;  // NaN
  if (b == sign) b = 0;                                   // -0
  return (b & sign) ? ~b : (b ^ sign);
}

)tessera_cuda";
// The generic kernels of the library module (KernelCache::Library): aggregation state
// set-up, the compacted store of non-empty groups and the top-N pre-selection. They do not
// depend on a query, so they are compiled once per machine instead of into every pipeline's
// module (they cost most of a small pipeline's NVRTC time; docs/PERFORMANCE.md).
const char* kGenericKernels = R"tessera_cuda(
extern "C" __global__ void tsr_init_state(u64* st, u64 words, int W, StatePattern pat) {
  for (u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x; x < words; x += (u64)gridDim.x * blockDim.x)
    st[x] = pat.w[x % W];
}

// After an aggregation whose 32-bit sums were added in their low words alone (fire-and-
// forget atomics; pipeline_codegen.cpp, PipelineProgram::sign_extend_words): below 2^32
// rows each such sum fits 64 bits, so its high word is the low word's sign, whatever
// carries reached it.
extern "C" __global__ void tsr_sign_extend_sums(u64* st, u64 slots, int W, unsigned words) {
  for (u64 s = blockIdx.x * (u64)blockDim.x + threadIdx.x; s < slots; s += (u64)gridDim.x * blockDim.x)
    for (int w = 0; w < W; w++)
      if ((words >> w) & 1u) st[s * W + w + 1] = (u64)((i64)st[s * W + w] >> 63);
}

// Decodes a column's chunks uploaded in their stored encoding (gpu_stream_core.hpp, one
// stream per chunk at scratch + src[c]) into the plain column: chunk c's rows start at row
// dst_row[c] of dst (width bytes a value). Block b decodes 1,024 rows of the chunk c with
// first_block[c] <= b < first_block[c + 1] (first_block[nchunks]: the grid). remap[c], when
// not 0, is where chunk c's code map is (a VARCHAR dictionary chunk's codes are its own
// dictionary's): u32 size, 12 bytes, then size u32 codes of the column's dictionary. A
// dictionary code out of range (a corrupt file) sets *bad.
extern "C" __global__ void __launch_bounds__(256) tsr_decode_streams(const unsigned char* scratch, const u64* src,
                                                                    const u64* dst_row, const u64* remap,
                                                                    const unsigned* first_block, unsigned nchunks,
                                                                    unsigned char* dst, int width, unsigned* bad) {
  unsigned lo = 0, hi = nchunks;
  while (hi - lo > 1) {
    const unsigned mid = (lo + hi) / 2;
    if (first_block[mid] <= blockIdx.x) lo = mid;
    else hi = mid;
  }
  const unsigned char* s = scratch + src[lo];
  const unsigned count = ((const unsigned*)s)[2];
  const unsigned base = (blockIdx.x - first_block[lo]) * 1024u;
  unsigned char* out = dst + dst_row[lo] * (u64)width;
  const unsigned* map = remap[lo] ? (const unsigned*)(scratch + remap[lo]) : nullptr;
  bool b = false;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const unsigned i = base + k * 256 + threadIdx.x;
    if (i >= count) break;
    u64 v = tessera::gpustream::Value(s, i, &b);
    unsigned mapped = 0;
    if (map) {
      if (!tessera::gpustream::MapCode(map + 4, map[0], v, &mapped)) b = true;
      v = mapped;
    }
    switch (width) {
      case 1: out[i] = (unsigned char)v; break;
      case 2: ((unsigned short*)out)[i] = (unsigned short)v; break;
      case 4: ((unsigned*)out)[i] = (unsigned)v; break;
      default: ((u64*)out)[i] = v; break;
    }
  }
  if (b) *bad = 1;
}

// Compacted store of the non-empty groups: each non-empty slot's row is the slot number
// followed by its W state words.
extern "C" __global__ void __launch_bounds__(256) tsr_compact_groups(const u64* st, u64 slots, int W,
                                                                    u64* out, u64* out_count) {
  for (u64 base = (u64)blockIdx.x * 256; base < slots; base += (u64)gridDim.x * 256) {
    u64 s = base + threadIdx.x;
    bool flag = s < slots && st[s * W] != 0;
    u64 pos = tsr_compact_pos(flag, out_count);
    if (flag) {
      u64* row = out + pos * (W + 1);
      row[0] = s;
      for (int k = 0; k < W; k++) row[k + 1] = st[s * W + k];
    }
  }
}

// ---- top-N pre-selection of compacted groups (ORDER BY ... LIMIT n after a GROUP BY) ----
// Each compacted row (W1 words: slot, then the state) gets an order key u, unsigned, larger
// = earlier in the ORDER BY: its first sort key made order-preserving (signed: flip the
// sign bit; 128-bit sums: saturated to 64 bits, which keeps the order non-decreasing; doubles:
// the usual bit trick; a group key: its offset in the key's range), inverted for ASC. A
// radix select over u (8 bits a pass, histograms below) finds a threshold t no larger
// than the n-th largest u; the rows with u >= t hold every group of the top n, ties
// included, and are all the host needs for its exact ORDER BY and LIMIT.
extern "C" __global__ void tsr_order_keys(const u64* rows, u64 n, int W1, int kind, int word, u64 stride, u64 range,
                                          int hashed, int desc, u64* u) {
  const u64 sign = 0x8000000000000000ull;
  for (u64 r = blockIdx.x * (u64)blockDim.x + threadIdx.x; r < n; r += (u64)gridDim.x * blockDim.x) {
    const u64* row = rows + r * (u64)W1;
    u64 x;
    if (kind == 0) {  // a group key: in the slot (direct-mapped), the key word + 1 (hashed: 1) or key word `word` (2)
      u64 packed = hashed == 2 ? row[1 + word] : hashed ? row[W1 - 1] - 1 : row[0];
      x = (packed / stride) % range;
    } else if (kind == 1) {  // a signed 64-bit word
      x = row[1 + word] ^ sign;
    } else if (kind == 2) {  // a 128-bit sum (lo, hi), saturated
      u64 lo = row[1 + word];
      i64 hi = (i64)row[2 + word];
      i64 v = hi > 0 || (hi == 0 && (i64)lo < 0) ? (i64)0x7fffffffffffffffLL
            : hi < -1 || (hi == -1 && (i64)lo >= 0) ? (i64)(-0x7fffffffffffffffLL - 1) : (i64)lo;
      x = (u64)v ^ sign;
    } else {  // a double
      x = tsr_order_f64(row[1 + word]);
    }
    u[r] = desc ? x : ~x;
  }
}

// Histogram of digit (u >> shift) & 255 over the rows whose bits under `mask` equal `prefix`.
extern "C" __global__ void __launch_bounds__(256) tsr_radix_hist(const u64* u, u64 n, int shift, u64 mask, u64 prefix,
                                                                 u64* hist) {
  __shared__ u64 h[256];
  h[threadIdx.x] = 0;
  __syncthreads();
  for (u64 r = blockIdx.x * 256ull + threadIdx.x; r < n; r += (u64)gridDim.x * 256) {
    u64 x = u[r];
    if ((x & mask) == prefix) atomicAdd(&h[(x >> shift) & 255], 1ull);
  }
  __syncthreads();
  if (h[threadIdx.x]) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

// Compacted copy of the rows with u >= t.
extern "C" __global__ void __launch_bounds__(256) tsr_select_rows(const u64* rows, u64 n, int W1, const u64* u, u64 t,
                                                                  u64* out, u64* out_count) {
  for (u64 base = (u64)blockIdx.x * 256; base < n; base += (u64)gridDim.x * 256) {
    u64 r = base + threadIdx.x;
    bool flag = r < n && u[r] >= t;
    u64 pos = tsr_compact_pos(flag, out_count);
    if (flag)
      for (int k = 0; k < W1; k++) out[pos * W1 + k] = rows[r * (u64)W1 + k];
  }
}
)tessera_cuda";
// The device sort, kernels of the library module too. Needs the library above.
const char* kSortLibrary = R"tessera_cuda(
// ---- sort: a stable LSD radix sort of row numbers by their order words -----------------
// keys: KW order words per row (word 0 the most significant). Each pass sorts by one 8-bit
// digit of (word - the word's minimum), from the last word's lowest digit up; digits above
// the word's span (max - min) are skipped, so narrow keys cost few passes. A pass over
// several blocks: per-block digit counts (tsr_sort_hist), their exclusive prefix sums in
// digit-major order (tsr_sort_scan), then each block scatters its contiguous chunk in
// order (tsr_sort_scatter): stable, so earlier passes' order survives among equal digits.
__device__ __forceinline__ unsigned tsr_digit(const u64* keys, int KW, int word, u64 kmin, int shift, unsigned row) {
  return (unsigned)(((keys[(u64)row * KW + word] - kmin) >> shift) & 255u);
}
// Rows [begin, end) of perm_in, in order, to perm_out at base[digit] (shared, 256 entries,
// advanced as rows are placed): ranks within a warp from __match_any_sync, across the 8
// warps of a 256-thread block from per-warp counts in shared memory.
__device__ void tsr_sort_scatter_chunk(const u64* keys, int KW, int word, u64 kmin, int shift, const unsigned* perm_in,
                                       unsigned* perm_out, u64 begin, u64 end, unsigned* base, unsigned (*wcount)[256]) {
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  for (u64 s = begin; s < end; s += 256) {
    for (int w = 0; w < 8; ++w) wcount[w][t] = 0;
    __syncthreads();
    const u64 i = s + t;
    const bool has = i < end;
    const unsigned row = has ? perm_in[i] : 0u;
    const unsigned d = has ? tsr_digit(keys, KW, word, kmin, shift, row) : 256u;
    const unsigned peers = __match_any_sync(0xffffffffu, d);
    const unsigned rank = __popc(peers & ((1u << lane) - 1u));
    if (has && rank == 0) wcount[warp][d] = __popc(peers);
    __syncthreads();
    unsigned run = 0;
    for (int w = 0; w < 8; ++w) { unsigned c = wcount[w][t]; wcount[w][t] = run; run += c; }
    __syncthreads();
    if (has) perm_out[base[d] + wcount[warp][d] + rank] = row;
    __syncthreads();
    base[t] += run;
  }
  __syncthreads();
}
// Min and max of each order word over the rows: mm[2w], mm[2w+1] (start at ~0 and 0).
extern "C" __global__ void __launch_bounds__(256) tsr_sort_minmax(const u64* keys, u64 n, int KW, u64* mm) {
  for (int w = 0; w < KW; ++w) {
    u64 lo = ~0ull, hi = 0;
    for (u64 r = blockIdx.x * 256ull + threadIdx.x; r < n; r += (u64)gridDim.x * 256) {
      const u64 x = keys[r * KW + w];
      lo = x < lo ? x : lo; hi = x > hi ? x : hi;
    }
    for (int o = 16; o > 0; o >>= 1) {
      const u64 a = __shfl_down_sync(0xffffffffu, lo, o), b = __shfl_down_sync(0xffffffffu, hi, o);
      lo = a < lo ? a : lo; hi = b > hi ? b : hi;
    }
    if ((threadIdx.x & 31) == 0) { atomicMin(&mm[2 * w], lo); atomicMax(&mm[2 * w + 1], hi); }
  }
}
extern "C" __global__ void __launch_bounds__(256) tsr_sort_iota(unsigned* perm, u64 n) {
  for (u64 r = blockIdx.x * 256ull + threadIdx.x; r < n; r += (u64)gridDim.x * 256) perm[r] = (unsigned)r;
}
// Digit counts of each block's chunk: hist[digit * gridDim.x + block].
extern "C" __global__ void __launch_bounds__(256) tsr_sort_hist(const u64* keys, int KW, int word, u64 kmin, int shift,
                                                                const unsigned* perm, u64 n, u64 chunk, unsigned* hist) {
  __shared__ unsigned h[256];
  h[threadIdx.x] = 0;
  __syncthreads();
  const u64 begin = blockIdx.x * chunk, end = begin + chunk < n ? begin + chunk : n;
  for (u64 i = begin + threadIdx.x; i < end; i += 256) atomicAdd(&h[tsr_digit(keys, KW, word, kmin, shift, perm[i])], 1u);
  __syncthreads();
  hist[threadIdx.x * gridDim.x + blockIdx.x] = h[threadIdx.x];
}
// Exclusive prefix sums of hist (nb blocks' counts per digit, digit-major), in place: each
// block's first position per digit. One block of 256 threads.
extern "C" __global__ void __launch_bounds__(256) tsr_sort_scan(unsigned* hist, int nb) {
  __shared__ unsigned total[256];
  unsigned t = 0;
  for (int b = 0; b < nb; ++b) t += hist[threadIdx.x * nb + b];
  total[threadIdx.x] = t;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned run = 0;
    for (int d = 0; d < 256; ++d) { unsigned c = total[d]; total[d] = run; run += c; }
  }
  __syncthreads();
  unsigned run = total[threadIdx.x];
  for (int b = 0; b < nb; ++b) { unsigned c = hist[threadIdx.x * nb + b]; hist[threadIdx.x * nb + b] = run; run += c; }
}
extern "C" __global__ void __launch_bounds__(256) tsr_sort_scatter(const u64* keys, int KW, int word, u64 kmin, int shift,
                                                                   const unsigned* perm_in, unsigned* perm_out, u64 n,
                                                                   u64 chunk, const unsigned* hist) {
  __shared__ unsigned base[256];
  __shared__ unsigned wcount[8][256];
  base[threadIdx.x] = hist[threadIdx.x * gridDim.x + blockIdx.x];
  __syncthreads();
  const u64 begin = blockIdx.x * chunk, end = begin + chunk < n ? begin + chunk : n;
  tsr_sort_scatter_chunk(keys, KW, word, kmin, shift, perm_in, perm_out, begin, end, base, wcount);
}
// The whole sort in one block, for few rows (n = min(*count, cap), read on the device, so
// the host need not wait for it): the same passes, the min/max and digit counts computed in
// the block. The sorted row numbers end in perm_a.
extern "C" __global__ void __launch_bounds__(256) tsr_sort_small(const u64* keys, int KW, const u64* count, u64 cap,
                                                                 unsigned* perm_a, unsigned* perm_b) {
  __shared__ unsigned base[256];
  __shared__ unsigned wcount[8][256];
  __shared__ u64 red[2][8];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const u64 n = *count < cap ? *count : cap;
  for (u64 i = t; i < n; i += 256) perm_a[i] = (unsigned)i;
  __syncthreads();
  if (n < 2) return;
  unsigned* in = perm_a;
  unsigned* out = perm_b;
  for (int w = KW - 1; w >= 0; --w) {
    u64 lo = ~0ull, hi = 0;
    for (u64 r = t; r < n; r += 256) { const u64 x = keys[r * KW + w]; lo = x < lo ? x : lo; hi = x > hi ? x : hi; }
    for (int o = 16; o > 0; o >>= 1) {
      const u64 a = __shfl_down_sync(0xffffffffu, lo, o), b = __shfl_down_sync(0xffffffffu, hi, o);
      lo = a < lo ? a : lo; hi = b > hi ? b : hi;
    }
    if (lane == 0) { red[0][warp] = lo; red[1][warp] = hi; }
    __syncthreads();
    lo = red[0][0]; hi = red[1][0];
    for (int k = 1; k < 8; ++k) { lo = red[0][k] < lo ? red[0][k] : lo; hi = red[1][k] > hi ? red[1][k] : hi; }
    __syncthreads();
    const u64 span = hi - lo;
    for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += 8) {
      base[t] = 0;
      __syncthreads();
      for (u64 i = t; i < n; i += 256) atomicAdd(&base[tsr_digit(keys, KW, w, lo, shift, in[i])], 1u);
      __syncthreads();
      if (t == 0) {
        unsigned run = 0;
        for (int d = 0; d < 256; ++d) { unsigned c = base[d]; base[d] = run; run += c; }
      }
      __syncthreads();
      tsr_sort_scatter_chunk(keys, KW, w, lo, shift, in, out, 0, n, base, wcount);
      unsigned* x = in; in = out; out = x;
    }
  }
  if (in != perm_a)
    for (u64 i = t; i < n; i += 256) perm_a[i] = in[i];
}
// Rows in sorted order: out row r = rows[perm[r]] (R words a row) for r < m = min(n, limit),
// n = *count; *out_count = m.
extern "C" __global__ void __launch_bounds__(256) tsr_gather_rows(const u64* rows, int R, const unsigned* perm,
                                                                  const u64* count, u64 limit, u64* out, u64* out_count) {
  const u64 n = *count, m = n < limit ? n : limit;
  if (blockIdx.x == 0 && threadIdx.x == 0) *out_count = m;
  for (u64 r = blockIdx.x * 256ull + threadIdx.x; r < m; r += (u64)gridDim.x * 256) {
    const u64* src = rows + (u64)perm[r] * R;
    for (int k = 0; k < R; ++k) out[r * R + k] = src[k];
  }
}

)tessera_cuda";

// ---- the declarations a kernel needs ------------------------------------------------------
// The library (scalar core + tile library) is split once into its top-level items: each
// declaration or definition with the comments in front of it, and the structure kept in
// every kernel (preprocessor lines, namespace openings and closings). Each declaration
// records the names it declares and the identifiers it uses; a kernel gets the closure of
// the names its body uses, in library order (declarations before uses, as in the whole
// library). Nothing is copied: every definition stays where it is written, the table is
// computed from the text.
struct LibraryItem {
  size_t begin = 0, end = 0;          // text [begin, end) of the library source
  bool always = false;                // structure (or nothing recognised): kept in every kernel
  std::vector<std::string> declares;  // names it declares (functions, types, constants, enumerators)
  std::vector<int> needs;             // items declaring a name it uses (other than itself)
};

bool IdStart(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
bool IdChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

// The text without comments, string and character literals (each replaced by a space).
std::string CodeOnly(const std::string& s, size_t b, size_t e) {
  std::string out;
  out.reserve(e - b);
  for (size_t i = b; i < e;) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < e && s[i] != '\n') i++;
      out += ' ';
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t j = s.find("*/", i + 2);
      i = j == std::string::npos || j + 2 > e ? e : j + 2;
      out += ' ';
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i++];
      while (i < e && s[i] != q) i += s[i] == '\\' ? 2 : 1;
      i++;
      out += ' ';
    } else {
      out += s[i++];
    }
  }
  return out;
}

// The identifiers of code (numbers skipped).
std::vector<std::string> Identifiers(const std::string& code) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < code.size();) {
    if (IdStart(code[i])) {
      size_t j = i;
      while (j < code.size() && IdChar(code[j])) j++;
      ids.push_back(code.substr(i, j - i));
      i = j;
    } else if (std::isdigit((unsigned char)code[i])) {
      while (i < code.size() && (IdChar(code[i]) || code[i] == '.')) i++;
    } else {
      i++;
    }
  }
  return ids;
}

// Drops leading `template <...>` clauses (balanced angle brackets).
std::string WithoutTemplateHeads(std::string h) {
  for (;;) {
    size_t i = h.find_first_not_of(" \t\n");
    if (i == std::string::npos || h.compare(i, 8, "template") != 0 || (i + 8 < h.size() && IdChar(h[i + 8]))) return h;
    size_t j = h.find('<', i + 8);
    if (j == std::string::npos) return h;
    int depth = 0;
    for (; j < h.size(); j++) {
      if (h[j] == '<') depth++;
      else if (h[j] == '>' && --depth == 0) break;
    }
    h = j < h.size() ? h.substr(j + 1) : std::string();
  }
}

// The names a declaration declares, from its code (comments and literals removed).
std::vector<std::string> DeclaredNames(const std::string& code) {
  const std::string h = WithoutTemplateHeads(code);
  std::vector<std::string> names;
  // The head: up to the first brace, parenthesis or initializer.
  const std::vector<std::string> ids = Identifiers(h.substr(0, h.find_first_of("{(=;")));
  if (ids.empty()) return names;
  for (size_t k = 0; k + 1 < ids.size(); k++)
    if (ids[k] == "struct" || ids[k] == "class" || ids[k] == "union" || ids[k] == "enum") {
      size_t n = k + 1;
      if (n < ids.size() && (ids[n] == "class" || ids[n] == "struct")) n++;  // enum class
      if (n < ids.size()) names.push_back(ids[n]);
      if (ids[k] == "enum") {  // and its enumerators
        size_t open = h.find('{'), close = h.find('}');
        if (open != std::string::npos && close != std::string::npos && close > open)
          for (const std::string& id : Identifiers(h.substr(open, close - open))) names.push_back(id);
      }
      return names;
    }
  if (ids[0] == "typedef") return {ids.back()};
  if (ids[0] == "using") {  // an alias declares its name; a using-directive none (so it is kept always)
    if (ids.size() > 1 && ids[1] != "namespace") names.push_back(ids[1]);
    return names;
  }
  // A function: the identifier before its first parenthesis at depth 0, past attributes.
  // A variable: the identifier before its initializer or terminator.
  int paren = 0;
  std::string last;
  for (size_t i = 0; i < h.size();) {
    const char c = h[i];
    if (IdStart(c)) {
      size_t j = i;
      while (j < h.size() && IdChar(h[j])) j++;
      if (paren == 0) last = h.substr(i, j - i);
      i = j;
      continue;
    }
    if (c == '(') {
      if (paren++ == 0 && !last.empty() && last != "__launch_bounds__" && last != "__attribute__" && last != "alignas" &&
          last != "__align__" && last != "decltype" && last != "operator")
        return {last};
    } else if (c == ')') {
      paren--;
    } else if (paren == 0 && (c == '=' || c == ';' || c == '[' || c == '{')) {
      if (!last.empty()) return {last};
      break;
    }
    i++;
  }
  return names;
}

class LibraryIndex {
 public:
  explicit LibraryIndex(std::string text) : text_(std::move(text)) {
    Split();
    for (size_t i = 0; i < items_.size(); i++)
      for (const std::string& n : items_[i].declares) by_name_[n].push_back((int)i);
    for (size_t i = 0; i < items_.size(); i++) {
      LibraryItem& it = items_[i];
      if (it.always) continue;
      std::set<int> needs;
      for (const std::string& id : Identifiers(CodeOnly(text_, it.begin, it.end)))
        if (auto f = by_name_.find(id); f != by_name_.end())
          for (int j : f->second)
            if (j != (int)i) needs.insert(j);
      it.needs.assign(needs.begin(), needs.end());
    }
  }

  std::string For(const std::string& body) const {
    std::vector<char> keep(items_.size(), 0);
    std::vector<int> work;
    auto want = [&](int j) {
      if (!keep[j]) keep[j] = 1, work.push_back(j);
    };
    for (size_t i = 0; i < items_.size(); i++)
      if (items_[i].always) want((int)i);
    for (const std::string& id : Identifiers(CodeOnly(body, 0, body.size())))
      if (auto f = by_name_.find(id); f != by_name_.end())
        for (int j : f->second) want(j);
    while (!work.empty()) {
      int j = work.back();
      work.pop_back();
      for (int k : items_[j].needs) want(k);
    }
    std::string out;
    for (size_t i = 0; i < items_.size(); i++)
      if (keep[i]) out.append(text_, items_[i].begin, items_[i].end - items_[i].begin);
    return out;
  }

  const std::string& text() const { return text_; }
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& [name, items] : by_name_) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  // Top-level items: at brace depth 0 (namespace braces do not count) a preprocessor line,
  // a namespace opening `namespace a::b {`, a namespace's closing `}`, or a declaration up
  // to its `;` or, for a function definition, its body's closing `}`.
  void Split() {
    const std::string& s = text_;
    size_t start = 0, i = 0;
    int namespaces = 0;
    auto emit = [&](size_t end, bool always, std::vector<std::string> declares) {
      LibraryItem it;
      it.begin = start;
      it.end = end;
      it.always = always || declares.empty();
      it.declares = std::move(declares);
      items_.push_back(std::move(it));
      start = i = end;
    };
    auto skip_space_and_comments = [&] {
      for (;;) {
        while (i < s.size() && std::isspace((unsigned char)s[i])) i++;
        if (s.compare(i, 2, "//") == 0) {
          while (i < s.size() && s[i] != '\n') i++;
        } else if (s.compare(i, 2, "/*") == 0) {
          size_t j = s.find("*/", i + 2);
          i = j == std::string::npos ? s.size() : j + 2;
        } else {
          return;
        }
      }
    };
    auto line_end = [&](size_t p) {
      while (p < s.size() && s[p] != '\n') p += s[p] == '\\' ? 2 : 1;
      return p < s.size() ? p + 1 : s.size();
    };
    while (true) {
      skip_space_and_comments();
      if (i >= s.size()) break;
      if (s[i] == '#') {
        emit(line_end(i), true, {});
        continue;
      }
      if (s[i] == '}' && namespaces > 0) {
        namespaces--;
        emit(line_end(i), true, {});  // with its `// namespace x` comment
        continue;
      }
      if (s.compare(i, 9, "namespace") == 0 && !IdChar(s[i + 9])) {
        size_t open = s.find_first_of("{;", i);
        if (open != std::string::npos && s[open] == '{') {
          namespaces++;
          emit(open + 1, true, {});
          continue;
        }
      }
      // A declaration: scan to its end.
      size_t p = i;
      int paren = 0, brace = 0;
      bool function = false, done = false;
      while (p < s.size() && !done) {
        if (s.compare(p, 2, "//") == 0 || s.compare(p, 2, "/*") == 0 || s[p] == '"' || s[p] == '\'') {
          size_t q = p;
          if (s[p] == '/' && s[p + 1] == '/') {
            while (q < s.size() && s[q] != '\n') q++;
          } else if (s[p] == '/') {
            size_t j = s.find("*/", p + 2);
            q = j == std::string::npos ? s.size() : j + 2;
          } else {
            const char qc = s[q++];
            while (q < s.size() && s[q] != qc) q += s[q] == '\\' ? 2 : 1;
            q++;
          }
          p = q;
          continue;
        }
        const char c = s[p++];
        if (c == '(') paren++;
        else if (c == ')') paren--;
        else if (c == '{') {
          if (brace++ == 0 && paren == 0 && !function) {
            // A function body, unless the head is a type or an initializer.
            const std::string head = WithoutTemplateHeads(CodeOnly(s, i, p - 1));
            std::vector<std::string> ids = Identifiers(head);
            bool type = false, init = false;
            for (const std::string& id : ids) type = type || id == "struct" || id == "class" || id == "union" || id == "enum";
            int d = 0;
            for (char hc : head) {
              if (hc == '(') d++;
              else if (hc == ')') d--;
              else if (hc == '=' && d == 0) init = true;
            }
            function = !type && !init && head.find('(') != std::string::npos;
          }
        } else if (c == '}') {
          if (--brace == 0 && function) done = true;
        } else if (c == ';' && brace == 0 && paren == 0) {
          done = true;
        }
      }
      emit(p, false, DeclaredNames(CodeOnly(s, i, p)));
    }
    if (start < s.size()) {
      i = s.size();
      emit(s.size(), true, {});
    }
  }

  std::string text_;
  std::vector<LibraryItem> items_;
  std::unordered_map<std::string, std::vector<int>> by_name_;
};

const LibraryIndex& Index() {
  static const LibraryIndex index(std::string(kScalarCore) + kTileLibrary);
  return index;
}

}  // namespace

const char* TileLibrarySource() { return Index().text().c_str(); }

std::string TileLibrarySourceFor(const std::string& kernel_body) { return Index().For(kernel_body); }

std::vector<std::string> TileLibraryNames() { return Index().Names(); }

const char* LibraryModuleSource() {
  static const std::string source = std::string(TileLibrarySource()) + kGenericKernels + kSortLibrary;
  return source.c_str();
}

}  // namespace tessera::gpu
