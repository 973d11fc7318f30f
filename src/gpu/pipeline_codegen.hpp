// Code generation: one CUDA kernel per pipeline, in Crystal's tile model.
//
// A pipeline of the IR (pipeline_ir/pipeline_ir.hpp; the generator reads nothing else of
// the plan) of the shape
//     table scan [pushed filters] -> (filter | projection | probe)* -> sink
// with sink = join build or aggregation becomes one kernel (GpuSupport decides the shapes
// it takes):
// each thread block takes tiles of BT x IPT rows; a thread keeps its IPT rows' selection
// flags and column values in registers; a column is loaded only when an expression needs
// it and only for rows still selected (Crystal's BlockLoadSel), so later columns cost only
// the sectors that hold surviving rows; hash probes read build-side values straight from
// the slot they find; the sink inserts into a device hash table or updates aggregation
// state (registers + one block reduction for no groups; shared-memory tables merged at
// block end for few groups; global atomics otherwise).
//
// Everything the query's constants decide is a kernel parameter (Params.v[k], 64-bit
// words): comparison constants, hash-table bounds, group strides, the bitmaps that string
// predicates become (a predicate over one dictionary-encoded VARCHAR column is evaluated
// by the CPU expression executor over the column's dictionary, once per query, and the
// kernel tests one bit per row). So a query shape compiles once.
//
// What the generator cannot express raises NotOnGpu with the reason; the executor then
// runs that pipeline on the CPU and says so in EXPLAIN.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/column_cache.hpp"
#include "gpu/device_memory.hpp"
#include "pipeline_ir/pipeline_ir.hpp"

namespace tessera::gpu {

struct CompiledKernel;  // kernel_cache.hpp

struct NotOnGpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Raised at run time when the GPU result would be wrong or incomplete (a duplicate join key
// on the build side, a key outside the planned range): the query is re-run on the CPU.
struct GpuFallback : std::runtime_error {
  using std::runtime_error::runtime_error;
  GpuFallback(const std::string& what, int dup_join) : std::runtime_error(what), duplicate_join(dup_join) {}
  // An inner (or cross) join whose build side turned out to hold duplicate keys: the query
  // can be planned again with that join's table chained (GpuQuery's `chained`), on the GPU.
  int duplicate_join = -1;
};

inline constexpr int kBlockThreads = 128;
// Parameter words every pipeline kernel has at fixed positions, set by the executor: the
// scanned table's row count, the kernel's error word, the aggregation state (0 for builds).
inline constexpr int kParamRows = 0, kParamErr = 1, kParamState = 2, kFixedParams = 3;
inline constexpr int kItemsPerThread = 4;
// Items per thread of the generated kernels: kItemsPerThread, or TESSERA_GPU_ITEMS (1-16)
// for tuning experiments.
int ItemsPerThread();
// Whether a kernel loads the words of its lane-packed columns where a tile starts, all at
// once (default), rather than each where it is first used, for the rows still selected
// (TESSERA_GPU_EAGER=0). docs/PERFORMANCE.md compares them.
bool EagerLoads();
bool EagerPlainLoads();  // TESSERA_GPU_EAGER=all: plain columns' loads there too
// ", N" for __launch_bounds__ with TESSERA_GPU_MIN_BLOCKS=N (register budget for N blocks
// a multiprocessor), else "".
std::string MinBlocksBound();

// A hash table built on the device by a join's build pipeline and probed by its consumer.
struct GpuHashTable {
  bool dense = true;   // direct-mapped (perfect hash) or open addressing
  int64_t lo = 0;      // dense: smallest key
  uint64_t range = 0;  // dense: slots; open: capacity (a power of two)
  int stride = 1;      // 32-bit words per slot (word 0: occupancy)
  bool keys_only = false;  // semi/anti/mark: a set of keys, duplicates allowed, no columns
  // Semi/anti joins with a residual predicate, and inner/cross joins whose build side has
  // duplicate keys (found at run time, or TESSERA_GPU_CHAIN_JOINS=1): every build row is
  // kept, duplicates chained (an inner probe runs the rest of its pipeline once per match).
  // `heads` holds per key slot (direct-mapped or open addressing over `keys`) its last row
  // + 1 (0: none); `table` holds one row of `stride` words per build input item (its
  // position in the build pipeline's input), word 0 the next row of the same key + 1.
  bool chained = false;
  uint64_t capacity = 0;  // chained: rows `table` holds (the build pipeline's input items)
  // Chained, built inside the match loop of another chained table's probe (a build with
  // duplicate keys over a join with duplicate keys): rows are claimed by the counter at
  // device address `count`; `capacity` grows to the count when the first build outgrew it.
  bool counted = false;
  uint64_t count = 0;
  // Several keys: packed into one, sum of (key_i - lo_i) * stride_i, each key within
  // [lo_i, lo_i + range_i) (the build side's value ranges); empty for one key.
  std::vector<int64_t> key_lo;
  std::vector<uint64_t> key_range, key_stride;
  // Direct-mapped, not chained, larger than kPresenceMinTableBytes: a bitmap of the keys
  // present (one bit a slot, `bits`), tested before the slot by probes and by the scans of
  // the probing pipelines (the GPU's join filter). A set of keys (keys_only) is then the
  // bitmap alone: `table` is not filled.
  bool presence = false;
  static constexpr double kPresenceMinTableBytes = 4.0 * (1 << 20);
  uint64_t PresenceBytes() const { return (range + 31) / 32 * 4; }
  // One integer key: the build kernel folds the keys it inserts into `bounds` (two i64
  // words, min then max, reset before each build), against which probing scans skip tiles
  // by their row groups' statistics (the GPU's join filter by key range).
  bool bounded = false;
  bool range_tested = false;  // a probing scan tests the bounds (the second pass keeps them)
  std::vector<int> word_of;             // build column -> first word (-1: not stored)
  std::vector<char> read;               // build columns the probe side reads (marked as it is generated)
  bool read_known = false;              // store only the columns marked in `read`
  std::vector<Type> types;              // build column types
  std::vector<ColumnDomain> domains;    // build column domains
  DeviceBuffer table, keys, heads, bits, bounds;
};

// Initial values of the W state words (mirrors the tile library's StatePattern).
struct StatePattern {
  uint64_t w[32];
};

// One state word kind of an aggregation (see the tile library).
// Key: a hashed group table's packed key + 1 (the row's last word; 0 = empty row).
// KeyWord, Ready: a table of group keys wider than one word: the key words, then the row's
// state (its last word: 0 empty, 1 being written, 2 ready).
enum class AggWord { Count, SumLo, SumHi, SumF64, Min, Max, Key, KeyWord, Ready };

// A group key's place in the packed key: its offset from `lo` times `stride`, within key
// word `word` (group keys pack into as few 63-bit words as their ranges allow).
struct GroupKeyPlan {
  Type type;
  int64_t lo = 0;
  uint64_t range = 1, stride = 1;
  int word = 0;
  std::shared_ptr<const DictStrings> dict;
};

// ORDER BY ... LIMIT n over an aggregation's groups (no filter between): the groups whose
// first sort key can be in the top n are selected on the device before the download
// (see the tile library's tsr_order_keys). kind: 0 a group key (key_index), 1 a signed
// 64-bit state word, 2 a 128-bit sum (word = its low word), 3 a double word.
struct TopNHint {
  int kind = 0;
  int word = 0;
  int key_index = 0;
  bool desc = false;
  uint64_t n = 0;
  std::string what;  // for EXPLAIN: the sort key
  uint64_t last_in = 0, last_out = 0;  // groups before and after the last selection (EXPLAIN ANALYZE)
};

// Rows a GPU pipeline materialised (an ORDER BY or top-N, a LIMIT, the query's result), in
// device memory for the GPU pipeline that reads them or for the download of the result.
// Row r is `row_words` words at rows + r * row_words: column c from word word_of[c], a
// 128-bit value in two words (low, high), any other value in one (integers sign-extended,
// doubles as their bits, strings as codes of domains[c].dict). *count is the rows seen, of
// which those from `offset` on, at most `limit`, are kept (stored from row 0): Kept().
struct GpuRowSet {
  std::vector<Type> types;
  std::vector<int> word_of;
  int row_words = 0;
  std::vector<ColumnDomain> domains;
  bool ordered = false;  // rows in the order of a sort (also after a LIMIT over them)
  uint64_t offset = 0, limit = UINT64_MAX;
  // Order sink: `key_words` order words per row (the tile library's tsr_order_*), written
  // beside the rows, sorted on, then dropped.
  int key_words = 0;
  std::vector<std::string> key_what;  // for EXPLAIN
  // Per run: capacity (rows the buffer holds at most), buffers, the count word's address.
  uint64_t capacity = 0;
  DeviceBuffer rows, keys;
  std::vector<DeviceBuffer> scratch;  // the sort's buffers, kept until the run ends (no wait for it)
  uint64_t count = 0;  // device address of the count word
  uint64_t Kept(uint64_t seen) const { return seen <= offset ? 0 : std::min<uint64_t>(seen - offset, limit); }
};

struct PipelineProgram {
  const ir::Pipeline* ir = nullptr;
  std::string source;                     // generated CUDA C++ (with the tile library)
  std::string kernel_body;                // the generated kernel alone (EXPLAIN (KERNELS))
  std::vector<std::function<uint64_t()>> params;  // resolved at launch
  std::vector<std::shared_ptr<CachedColumn>> columns;  // scanned columns the kernel reads
  std::vector<double> scan_widths;  // device bytes a row of each column of the scan (CachedColumn)
  uint64_t rows = 0;                      // rows of the scanned table
  std::vector<std::string> errors;        // error id k+1 -> message
  std::vector<bool> error_is_fallback;    // true: re-run on the CPU; false: a user error
  std::vector<std::vector<uint32_t>> bitmaps;  // host bitmaps, uploaded before launch
  std::vector<DeviceBuffer> bitmap_buffers;  // uploaded on the first run, kept for later runs
  std::shared_ptr<CompiledKernel> kernel;    // looked up on the first run
  bool is_build = false;
  int join_filters = 0;     // later joins' presence bitmaps tested at the scan (EXPLAIN)
  // Build tables whose key ranges the scan tests per tile (GpuHashTable::bounded); the
  // tiles skipped are counted in `skipped` (one word, reset per run) and read back by
  // EXPLAIN ANALYZE into last_skipped of `tiles`.
  int range_tests = 0;
  uint64_t tiles = 0;
  DeviceBuffer skipped;
  mutable uint64_t last_skipped = UINT64_MAX;
  bool expands = false;     // an inner probe of a chained table: more rows out than items in
  // Build sink of an inner or cross join (not a scalar subquery's, whose duplicates are the
  // CPU's error to raise): the error id of a duplicate key.
  int duplicate_error = 0;
  // Build sink: the join's node
  ir::NodeId join = -1;
  std::shared_ptr<GpuHashTable> table;
  // Aggregate sink
  const ir::Sink* agg = nullptr;
  std::vector<GroupKeyPlan> keys;
  // Direct-mapped (slot = packed key) or, with `hashed`, an open-addressing table of
  // `slots` rows (a power of two) that the executor grows when the kernel reports it full
  // (error id `table_full_error`).
  uint64_t slots = 1;
  bool hashed = false;
  int table_full_error = 0;
  DeviceBuffer fill;  // hashed: rows claimed (one word)
  std::vector<AggWord> words;  // W = words.size()
  // SumLo words (bit w) whose 32-bit values were added to the low word alone, signs
  // included: the executor sets each high word to its low word's sign after the kernel
  // (tsr_sign_extend_sums).
  uint32_t sign_extend_words = 0;
  int key_words = 1;           // packed key words; above 1 the table is hashed with KeyWord/Ready words
  // Key word j of the group in `slot` whose W state words are `row`: the slot itself
  // (direct-mapped), the Key word - 1 (hashed, one word) or the j-th KeyWord.
  uint64_t KeyWordOf(const uint64_t* row, uint64_t slot, int j) const {
    if (!hashed) return slot;
    const int W = (int)words.size();
    return key_words == 1 ? row[W - 1] - 1 : row[W - 1 - key_words + j];
  }
  std::vector<int> agg_word;   // aggregate -> its first word
  // aggregate -> the word counting the rows it took, for a conditional aggregate (its
  // argument CASE WHEN c THEN x END, as FILTER (WHERE c) is bound): its result is NULL
  // where that count is 0; 0 for the others (the group's row count).
  std::vector<int> agg_count_word;
  bool shared_state = false;   // per-block table in shared memory
  std::optional<TopNHint> top_n;
  DeviceBuffer state;
  // The aggregation's groups stay in device memory for the GPU pipeline that reads them
  // (set by the executor once placement is known); after a run, `groups_bound` is an upper
  // bound of the groups (rows claimed in a hashed table, else the slots).
  bool resident = false;
  uint64_t groups_bound = 0;
  // Source: another GPU pipeline's aggregation, read in place (its state rows: one per slot,
  // empty ones skipped); `rows` is then its slot count at run time.
  const PipelineProgram* from_agg = nullptr;
  // Sink that materialises rows (order/top-N, limit, result): the rows it keeps.
  const ir::Sink* materialise = nullptr;
  std::shared_ptr<GpuRowSet> out;
  // Source: another GPU pipeline's materialised rows (its `out`).
  const PipelineProgram* from_rows = nullptr;
  // The items the kernel runs over at run time: the scanned rows, the slots an aggregation
  // read in place ended with, or the rows another pipeline materialised.
  uint64_t SourceItems() const {
    return from_agg ? from_agg->slots : from_rows ? from_rows->out->capacity : rows;
  }
};

// Join build tables of the query, by the join's node (filled as build pipelines are planned).
using GpuTables = std::map<ir::NodeId, std::shared_ptr<GpuHashTable>>;
// Joins whose tables are chained from the start (their build side has duplicate keys).
using ChainedJoins = std::set<ir::NodeId>;
// The GPU aggregations and materialised rows of the query, by the node (their programs).
using GpuResults = std::map<ir::NodeId, const PipelineProgram*>;

// Generates the kernel of `p`; throws NotOnGpu when the pipeline cannot run on the GPU.
// A build pipeline whose join already has a table in `tables` lays that same table out
// again (the probe kernels keep pointing at it), storing only the columns it marks read.
// A pipeline that reads an aggregation's result reads it in device memory when the
// aggregation is in `results`.
std::unique_ptr<PipelineProgram> GeneratePipeline(const ir::Pipeline& p, GpuTables& tables, const GpuResults& results,
                                                  const ChainedJoins& chained = {});

}  // namespace tessera::gpu
