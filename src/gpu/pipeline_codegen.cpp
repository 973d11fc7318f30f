#include "gpu/pipeline_codegen.hpp"
#include "gpu/string_dictionary.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "common/join_rules.hpp"
#include "execution/expression_executor.hpp"
#include "function/arith_errors.hpp"
#include "function/function_registry.hpp"
#include "function/scalar_core.hpp"
#include "function/scalar_ops.hpp"
#include "gpu/gpu_support.hpp"
#include "gpu/tile_library.hpp"
#include "storage/compression/lanepack_core.hpp"

namespace tessera::gpu {

namespace {

// One column of an operator's output, as the kernel sees it.
struct Col {
  Type type;
  // Found: a mark join's flag; GroupKey, AggValue: a column of the aggregation read in place;
  // RowValue: a column of materialised rows (agg_col: its first word)
  enum Kind { Scan, Payload, Computed, Found, GroupKey, AggValue, RowValue } kind = Scan;
  std::shared_ptr<CachedColumn> cached;        // Scan
  int probe = -1, build_col = -1;              // Payload: probe number, build column; Found: probe
  int agg_col = -1;                            // GroupKey: key index; AggValue: aggregate index
  const BoundExpr* expr = nullptr;             // Computed: over layer `below`
  int below = -1;
  std::string var;                             // register array, once materialised
  ColumnDomain domain;
  // Scan of a VARCHAR column's own bytes (no dictionary): only LIKE with a constant
  // pattern reads it (RawStringColumns).
  bool raw = false;
  // Payload of a left join on keys: NULL where the probe row found no build row. Such a
  // column may only be counted (COUNT(x): its probe's slot says whether it is NULL).
  bool nullable = false;
};

struct Probe {
  LJoinType type = LJoinType::Inner;
  std::shared_ptr<GpuHashTable> table;
  std::string slot_var;
  int p_table = -1, p_keys = -1, p_stride = -1, p_lo = -1, p_range = -1;
  bool left_on_keys = false;  // a left join on keys: rows without a match stay, build columns NULL
};

class Generator {
 public:
  Generator(PipelineProgram& prog, GpuTables& tables, const GpuResults& results, const ChainedJoins& chained)
      : prog_(prog), tables_(tables), results_(results), chained_(chained) {
    prog_.params.resize(kFixedParams);  // rows, err, state: set by the executor
  }

  void Run(const ir::Pipeline& p);

 private:
  int Param(std::function<uint64_t()> f) {
    prog_.params.push_back(std::move(f));
    return (int)prog_.params.size() - 1;
  }
  int ConstParam(uint64_t bits) {
    return Param([bits] { return bits; });
  }
  static std::string PV(int k) { return "p.v[" + std::to_string(k) + "]"; }
  int Error(std::string msg, bool fallback) {
    prog_.errors.push_back(std::move(msg));
    prog_.error_is_fallback.push_back(fallback);
    return (int)prog_.errors.size();
  }
  std::string NewVar(const char* prefix) { return prefix + std::to_string(nvar_++); }
  void ForItems(const std::string& stmt) {
    body_ += "  #pragma unroll\n  for (int i = 0; i < IPT; ++i) if (sel[i]) { " + stmt + " }\n";
  }
  void Declare(const std::string& ctype, const std::string& var) { body_ += "  " + ctype + " " + var + "[IPT];\n"; }

  std::string Need(int layer, int idx);
  std::string Expr(const BoundExpr& e, int layer);
  std::string DictPredicate(const BoundExpr& e, int layer, int idx);
  std::string RawLike(const BoundExpr& e, int layer, int idx);
  // Column idx's dictionary in chunks of kVectorSize (the other columns empty): fn(chunk, first code).
  void ForDictChunks(int layer, int idx, const std::function<void(const DataChunk&, size_t)>& fn);
  struct DictMapping {
    ColumnDomain domain;  // the results' sorted dictionary and code range
    size_t map = 0;       // prog_.bitmaps index: old code -> new code
  };
  const DictMapping& DictMap(const BoundExpr& e, int layer, int idx);
  std::string Checked(const char* fn, const BoundExpr& e, const std::string& a, const std::string& b);
  std::string Precision(const BoundExpr& e, const std::string& code);
  std::string JoinKey(const std::vector<const BoundExpr*>& keys, const GpuHashTable& t, int layer);
  ColumnDomain Domain(const BoundExpr& e, int layer);
  void Predicate(const BoundExpr& e, int layer);
  void Source(const ir::ScanSource& scan, const std::vector<bool>& raw);
  void GroupSource(const ir::Source& src);
  void RowSource(const ir::Source& src);
  std::string OrderWords(const Col& c, const std::string& v, bool desc, std::vector<std::string>& out);
  void MaterialiseSink(const ir::Sink& s);
  std::string GroupWord(int w) const;
  std::string AggValue(const Col& c);
  std::string PresenceTest(const std::shared_ptr<GpuHashTable>& t, const std::string& key);
  int EmitProbe(const ir::Step& j, int layer);
  void EmitChainedProbe(const ir::Step& j, int layer, Probe& pr, const std::string& key);
  void AddProbeLayer(int probe);
  size_t ScanPrefix(const ir::Pipeline& p);
  void RangeTests(const ir::Pipeline& p, size_t nscan);
  void BuildSink(const ir::Sink& j);
  void AggregateSink(const ir::Sink& a);

  PipelineProgram& prog_;
  GpuTables& tables_;
  const GpuResults& results_;
  const ChainedJoins& chained_;
  std::vector<std::string> loop_ends_;  // inner probes of chained tables: closes their match loops, innermost last
  std::string group_rows_;  // GroupSource: the aggregation's state rows (a const u64* expression)
  std::string row_buf_;     // RowSource: the materialised rows (a const u64* expression)
  int row_words_ = 0;       // RowSource: words per row
  std::vector<std::vector<Col>> layers_;
  std::vector<Probe> probes_;
  std::map<std::pair<const BoundExpr*, int>, DictMapping> dict_maps_;  // by expression and layer
  std::string prologue_, body_, epilogue_;
  // Where a tile's eager loads go (after the tile's skip test), and what they are: the
  // lane-packed columns' words (Need).
  size_t eager_at_ = std::string::npos;
  std::string eager_;
  int nvar_ = 0;
};

std::string Generator::Need(int layer, int idx) {
  Col& c = layers_[layer][idx];
  if (!c.var.empty()) return c.var;
  if (c.nullable)
    throw NotOnGpu("a left join's build column (NULL where no row matched) used other than in COUNT: NULLs are not on the GPU yet");
  std::string ct = DeviceCType(c.type);
  if (ct.empty()) throw NotOnGpu(UnsupportedType(c.type));
  if (c.raw) throw InternalError("a string column without a dictionary read other than by LIKE");
  std::string v = NewVar("v");
  switch (c.kind) {
    case Col::Scan: {
      auto cached = c.cached;
      if (std::find(prog_.columns.begin(), prog_.columns.end(), cached) == prog_.columns.end())
        prog_.columns.push_back(cached);
      int k = Param([cached] { return (uint64_t)cached->data.ptr(); });
      const bool eager_plain = !cached->packed && eager_at_ != std::string::npos && EagerPlainLoads();
      if (!eager_plain) Declare(ct, v);
      if (cached->packed) {
        // Lane-packed: the thread's words of the tile, each loaded once, the fields taken out
        // with constant shifts (tile library: tsr_lane_load, tsr_lane_unpack). The words are
        // loaded where the tile starts (EagerLoads), all columns' at once, unless
        // TESSERA_GPU_EAGER=0: then here, for the rows still selected.
        const int B = cached->packed_bytes_per_value;
        const std::string w = NewVar("w"), f = NewVar("f");
        const std::string load = "  unsigned " + w + "[" + std::to_string(lanepack::LaneWords(ItemsPerThread(), B) + 1) +
                                 "];\n  tsr_lane_load<" + std::to_string(B) + ", IPT, BT>((const unsigned*)" + PV(k) +
                                 ", tile, sel, " + w + ");\n";
        if (eager_at_ != std::string::npos && EagerLoads()) eager_ += load;
        else body_ += load;
        body_ += "  unsigned " + f + "[IPT];\n  tsr_lane_unpack<" + std::to_string(B) + ", IPT>(" + w + ", " + f + ");\n";
        if (cached->packed_ref == 0)
          ForItems(v + "[i] = (" + ct + ")" + f + "[i];");
        else if (ct == "int")
          ForItems(v + "[i] = (int)((unsigned)" + PV(ConstParam((uint64_t)cached->packed_ref)) + " + " + f + "[i]);");
        else
          ForItems(v + "[i] = (" + ct + ")(" + PV(ConstParam((uint64_t)cached->packed_ref)) + " + (u64)" + f + "[i]);");
      } else {
        // The thread's first row of the tile, its address computed once (the items' loads
        // then take constant offsets).
        const std::string et = c.type.id == TypeId::Boolean ? "unsigned char" : ct, cp = NewVar("c");
        const std::string at = "  const " + et + "* __restrict__ " + cp + " = ((const " + et + "*)" + PV(k) + ") + tb;\n";
        const std::string load = v + "[i] = __ldg(" + cp + " + i * BT)" + (c.type.id == TypeId::Boolean ? " != 0;" : ";");
        if (eager_plain) {
          // TESSERA_GPU_EAGER=all: plain columns too, where the tile starts (measured only).
          eager_ += at + "  " + ct + " " + v + "[IPT];\n  #pragma unroll\n  for (int i = 0; i < IPT; ++i) if (sel[i]) { " + load + " }\n";
        } else {
          body_ += at;
          ForItems(load);
        }
      }
      break;
    }
    case Col::Payload: {
      Probe& pr = probes_[c.probe];
      if (!pr.table->read_known && pr.table->word_of[c.build_col] < 0)
        throw NotOnGpu("a string column without a dictionary (read only by LIKE where it is scanned) read through a join");
      pr.table->read[c.build_col] = 1;
      std::string w = "(int)" + PV(Param([t = pr.table, bc = c.build_col] { return (uint64_t)t->word_of[bc]; }));
      std::string args = "(const unsigned*)" + PV(pr.p_table) + ", (int)" + PV(pr.p_stride) + ", " + pr.slot_var + "[i], " + w;
      Declare(ct, v);
      if (ct == "__int128") ForItems(v + "[i] = ht_load128(" + args + ");");
      else if (ct == "long long") ForItems(v + "[i] = ht_load64(" + args + ");");
      else if (ct == "double") ForItems(v + "[i] = tsr_as_f64(ht_load64(" + args + "));");
      else if (ct == "bool") ForItems(v + "[i] = ht_load32(" + args + ") != 0;");
      else ForItems(v + "[i] = ht_load32(" + args + ");");
      break;
    }
    case Col::Computed: {
      std::string code = Expr(*c.expr, c.below);
      Declare(ct, v);
      ForItems(v + "[i] = " + code + ";");
      break;
    }
    case Col::Found:  // a mark join's output: whether the probe found its key
      Declare("bool", v);
      ForItems(v + "[i] = " + probes_[c.probe].slot_var + "[i] >= 0;");
      break;
    case Col::GroupKey: {
      // The key's offset in the packed group key: the slot of a direct-mapped table, the
      // key word (packed key + 1) of a hashed one.
      const PipelineProgram& agg = *prog_.from_agg;
      const GroupKeyPlan& kp = agg.keys[c.agg_col];
      const int W = (int)agg.words.size();
      const std::string packed = !agg.hashed           ? "(u64)(tb + i * BT)"
                                 : agg.key_words == 1 ? "(" + GroupWord(W - 1) + " - 1ull)"
                                                      : GroupWord(W - 1 - agg.key_words + kp.word);
      const std::string x = "((long long)" + PV(ConstParam((uint64_t)kp.lo)) + " + (long long)((" + packed + " / " +
                            PV(ConstParam(kp.stride)) + ") % " + PV(ConstParam(kp.range)) + "))";
      Declare(ct, v);
      ForItems(v + "[i] = " + (ct == "bool" ? x + " != 0" : "(" + ct + ")" + x) + ";");
      break;
    }
    case Col::AggValue: {
      std::string x = AggValue(c);
      Declare(ct, v);
      ForItems(v + "[i] = " + x + ";");
      break;
    }
    case Col::RowValue: {
      auto word = [&](int k) {
        return row_buf_ + "[(u64)(tb + i * BT) * " + std::to_string(row_words_) + " + " + std::to_string(c.agg_col + k) + "]";
      };
      std::string x = ct == "__int128" ? "(((__int128)(long long)" + word(1) + " << 64) | (__int128)" + word(0) + ")"
                    : ct == "double"   ? "__longlong_as_double((long long)" + word(0) + ")"
                    : ct == "bool"     ? "(" + word(0) + " != 0ull)"
                                       : "(" + ct + ")(long long)" + word(0);
      Declare(ct, v);
      ForItems(v + "[i] = " + x + ";");
      break;
    }
  }
  c.var = v;
  return v;
}

static void CollectIndices(const BoundExpr& e, std::vector<int>& out) {
  if (e.kind == BExpr::Column) out.push_back(e.index);
  for (auto& c : e.children) CollectIndices(*c, out);
}

// A boolean expression over one VARCHAR column: evaluated over the column's dictionary
// by the CPU expression executor (the same semantics: LIKE, IN, ranges, ...); the kernel
// tests the bit of the row's code.
// The chunks run on all host threads (a dictionary can hold millions of strings: TPC-H's
// o_comment); `fn` must write only what its chunk's codes own (chunks start at multiples
// of kVectorSize, a multiple of 32, so bitmap words are never shared).
void Generator::ForDictChunks(int layer, int idx, const std::function<void(const DataChunk&, size_t)>& fn) {
  const auto& dict = *layers_[layer][idx].domain.dict;
  const size_t chunks = (dict.size() + kVectorSize - 1) / kVectorSize;
  std::atomic<size_t> next{0};
  std::exception_ptr failed;
  std::mutex mu;
  auto work = [&] {
    try {
      for (size_t c; (c = next.fetch_add(1)) < chunks;) {
        const size_t from = c * kVectorSize;
        uint32_t n = (uint32_t)std::min<size_t>(kVectorSize, dict.size() - from);
        DataChunk chunk;
        chunk.cols.resize(layers_[layer].size());
        for (size_t k = 0; k < chunk.cols.size(); k++) chunk.cols[k].Init(layers_[layer][k].type, n);
        for (uint32_t r = 0; r < n; r++) chunk.cols[idx].data<StrRef>()[r] = dict[from + r];
        chunk.size = n;
        fn(chunk, from);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failed) failed = std::current_exception();
      next = chunks;
    }
  };
  const size_t threads = std::min<size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; t++) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (!failed) return;
  try {
    std::rethrow_exception(failed);
  } catch (const UserError& ue) {
    // The expression fails for some dictionary value (a cast of a non-number, ...), which
    // rows may never reach: under a CASE or COALESCE guard the CPU evaluates it only for
    // the rows it applies to, and raises the error if one does.
    throw NotOnGpu(std::string("an expression over a string column's values fails for one of them (") + ue.what() +
                   "): the CPU evaluates it row by row");
  }
}

std::string Generator::DictPredicate(const BoundExpr& e, int layer, int idx) {
  const Col& c = layers_[layer][idx];
  if (!c.domain.dict) throw NotOnGpu("a string predicate over a computed string");
  std::vector<uint32_t> bits((c.domain.dict->size() + 31) / 32 + 1, 0);
  ForDictChunks(layer, idx, [&](const DataChunk& chunk, size_t from) {
    std::vector<uint32_t> sel;
    uint32_t m = EvaluateFilter(e, chunk, sel);
    for (uint32_t k = 0; k < m; k++) {
      size_t code = from + sel[k];
      bits[code / 32] |= 1u << (code % 32);
    }
  });
  size_t b = prog_.bitmaps.size();
  prog_.bitmaps.push_back(std::move(bits));
  int k = Param([&prog = prog_, b] { return (uint64_t)prog.bitmap_buffers[b].ptr(); });
  std::string v = Need(layer, idx);
  return "tsr_bit((const unsigned*)" + PV(k) + ", " + v + "[i])";
}

// LIKE over a VARCHAR column's own bytes (a column without a small dictionary that only
// LIKE reads: TPC-H q13's o_comment): the scalar core's LikeMatch, as on the CPU, per row
// still selected, the pattern a literal of the kernel. No dictionary is built.
std::string Generator::RawLike(const BoundExpr& e, int layer, int idx) {
  if (e.kind != BExpr::Like || e.children.size() != 2 || e.children[0]->kind != BExpr::Column ||
      e.children[1]->kind != BExpr::Constant)
    throw InternalError("a string column without a dictionary read other than by LIKE");
  const Col& c = layers_[layer][idx];
  auto cached = c.cached;
  if (std::find(prog_.columns.begin(), prog_.columns.end(), cached) == prog_.columns.end()) prog_.columns.push_back(cached);
  int k = Param([cached] { return (uint64_t)cached->data.ptr(); });
  int b = Param([cached] { return (uint64_t)cached->data.ptr() + (cached->rows + 1) * 8; });
  const std::string pattern = e.children[1]->value.str_value();
  std::string lit = "\"";
  for (unsigned char ch : pattern) {
    char esc[8];
    std::snprintf(esc, sizeof esc, "\\%03o", ch);
    lit += std::isalnum(ch) || ch == ' ' || ch == '%' || ch == '_' ? std::string(1, (char)ch) : std::string(esc);
  }
  lit += "\"";
  const std::string row = "(u64)(tb + i * BT)";
  const std::string off = "((const u64*)" + PV(k) + ")";
  return std::string(e.negated ? "!" : "") + "tessera::ops::LikeMatch((const char*)" + PV(b) + " + " + off + "[" + row +
         "], " + off + "[" + row + " + 1] - " + off + "[" + row + "], " + lit + ", " + std::to_string(pattern.size()) + "ull)";
}

// A string-valued expression over one VARCHAR column (substring, upper, concat with
// constants, CASE, ...): evaluated by the CPU expression executor over the column's
// dictionary, once per query, like DictPredicate. Its distinct results, sorted, are the
// expression's own dictionary (so it can be a group key, an ORDER BY key, a join payload
// or a materialised column), and an array maps each code of the column to the code of
// its result; the kernel reads one word per row.
const Generator::DictMapping& Generator::DictMap(const BoundExpr& e, int layer, int idx) {
  auto found = dict_maps_.find({&e, layer});
  if (found != dict_maps_.end()) return found->second;
  const Col& c = layers_[layer][idx];
  if (!c.domain.dict) throw NotOnGpu("a string expression over a string without a dictionary");
  const auto& dict = *c.domain.dict;
  std::vector<std::string> results(dict.size());
  ForDictChunks(layer, idx, [&](const DataChunk& chunk, size_t from) {
    Vector out;
    out.Init(e.type, chunk.size);
    Evaluate(e, chunk, out);
    for (uint32_t r = 0; r < chunk.size; r++) {
      if (!out.IsValid(r)) throw NotOnGpu("a string expression that gives NULL (NULLs are not on the GPU yet)");
      results[from + r] = std::string(out.data<StrRef>()[r]);
    }
  });
  std::vector<int32_t> codes;
  auto sorted = SortedDistinct(std::vector<std::string_view>(results.begin(), results.end()), &codes);
  std::vector<uint32_t> map(dict.size() + 1, 0);
  for (size_t k = 0; k < dict.size(); k++) map[k] = (uint32_t)codes[k];
  DictMapping m;
  m.domain.has_range = true;
  m.domain.lo = 0;
  m.domain.hi = (int64_t)sorted->size() - 1;
  m.domain.dict = std::move(sorted);
  m.map = prog_.bitmaps.size();
  prog_.bitmaps.push_back(std::move(map));
  return dict_maps_.emplace(std::make_pair(&e, layer), std::move(m)).first->second;
}

// a (+|-|*) b, or -a when b is empty: the scalar core's checked operation (tessera::ops,
// the CPU's too), an overflow reported with the CPU's message.
std::string Generator::Checked(const char* what, const BoundExpr& e, const std::string& a, const std::string& b) {
  std::string ct = DeviceCType(e.type);
  int id = Error(ops::OverflowMessage(what, e.type), false);
  std::string w = what;
  std::string fn = w == "addition" ? "add" : w == "subtraction" ? "sub" : w == "multiplication" ? "mul" : "neg";
  return "tsr_" + fn + "<" + ct + ">(" + a + (b.empty() ? "" : ", " + b) + ", err, " + std::to_string(id) + ")";
}

// A DECIMAL must fit its precision after arithmetic (the CPU's rule, ops::WithinPrecision);
// other types pass through.
std::string Generator::Precision(const BoundExpr& e, const std::string& code) {
  if (e.type.id != TypeId::Decimal) return code;
  int id = Error(ops::OverflowMessage("arithmetic", e.type), false);
  return "tsr_precision(" + code + ", " + std::to_string(e.type.precision) + ", err, " + std::to_string(id) + ")";
}

// Whether any of `args` is a TIMESTAMP: on the device it is a 64-bit integer of
// microseconds, which comparisons with other TIMESTAMPs, MIN/MAX, grouping, ordering and
// the functions with a TIMESTAMP form read as such; casts, arithmetic and other functions
// over one stay on the CPU.
static bool AnyTimestamp(const std::vector<BoundExprPtr>& args) {
  for (auto& a : args)
    if (a->type.id == TypeId::Timestamp) return true;
  return false;
}

// A call whose registry entry has a TIMESTAMP form and whose one TIMESTAMP is its first
// argument (extract's parts of a TIMESTAMP), giving no TIMESTAMP.
static bool TimestampCall(const BoundExpr& e) {
  if (!e.fn || !e.fn->device_timestamp || e.children.empty() || e.type.id == TypeId::Timestamp) return false;
  if (e.children[0]->type.id != TypeId::Timestamp) return false;
  for (size_t i = 1; i < e.children.size(); i++)
    if (e.children[i]->type.id == TypeId::Timestamp) return false;
  return true;
}

std::string Generator::Expr(const BoundExpr& e, int layer) {
  // Predicates over a single VARCHAR column become dictionary bitmaps; AND, OR, NOT and
  // CASE over several such predicates (and other columns) are generated around them.
  if (e.kind != BExpr::Column && e.kind != BExpr::Constant && e.kind != BExpr::Agg) {
    std::vector<int> idx;
    CollectIndices(e, idx);
    bool any_str = false, one_column = true;
    for (int i : idx) {
      any_str |= layers_[layer][i].type.id == TypeId::Varchar;
      one_column &= i == idx[0];
    }
    if (any_str) {
      const bool boolean = e.type.id == TypeId::Boolean;
      const bool around = e.kind == BExpr::And || e.kind == BExpr::Or || e.kind == BExpr::Not ||
                          (e.kind == BExpr::Case && e.type.id != TypeId::Varchar);
      if (one_column && layers_[layer][idx[0]].raw) {
        // A column read as its own bytes: only LIKE reads it (RawStringColumns), directly or
        // inside AND, OR, NOT and CASE, generated around it below. Anything else over such
        // a LIKE (IS NULL: found by the random differential test) stays on the CPU.
        if (e.kind == BExpr::Like) return RawLike(e, layer, idx[0]);
        if (!around) throw NotOnGpu("an expression over LIKE on a string column without a dictionary");
      } else if (boolean && one_column) {
        return DictPredicate(e, layer, idx[0]);
      } else if (e.type.id == TypeId::Varchar && one_column) {
        const DictMapping& m = DictMap(e, layer, idx[0]);
        int k = Param([&prog = prog_, b = m.map] { return (uint64_t)prog.bitmap_buffers[b].ptr(); });
        return "(int)__ldg((const unsigned*)" + PV(k) + " + " + Need(layer, idx[0]) + "[i])";
      }
      if (!around)
        throw NotOnGpu(boolean ? "a predicate over a string column and another column"
                               : "string expressions are not supported on the GPU yet");
    }
  }
  std::string ct = DeviceCType(e.type);
  if (ct.empty()) throw NotOnGpu("type " + e.type.ToString() + " is not supported on the GPU yet");
  switch (e.kind) {
    case BExpr::Column: return Need(layer, e.index) + "[i]";
    case BExpr::Constant: {
      if (e.value.is_null()) throw NotOnGpu("NULL constants are not supported on the GPU yet");
      if (ct == "double") {
        double d = e.value.double_value();
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        return "__longlong_as_double((long long)" + PV(ConstParam(bits)) + ")";
      }
      const int128_t v = e.value.int_value();
      if (ct == "__int128" && (v > INT64_MAX || v < INT64_MIN)) {  // two parameter words
        int hi = ConstParam((uint64_t)(int64_t)(v >> 64)), lo = ConstParam((uint64_t)v);
        return "(((__int128)(long long)" + PV(hi) + " << 64) | (__int128)" + PV(lo) + ")";
      }
      int k = ConstParam((uint64_t)(int64_t)v);
      if (ct == "bool") return "(" + PV(k) + " != 0ull)";
      return "((" + ct + ")(long long)" + PV(k) + ")";
    }
    case BExpr::Cast: {
      if (e.negated) throw NotOnGpu("TRY_CAST has no GPU definition yet");
      const BoundExpr& c = *e.children[0];
      std::string x = Expr(c, layer);
      const Type &from = c.type, &to = e.type;
      if (from == to) return x;
      if (from.id == TypeId::Integer && to.id == TypeId::BigInt) return "((long long)" + x + ")";
      if ((from.id == TypeId::Integer || from.id == TypeId::BigInt || from.id == TypeId::Decimal) && to.id == TypeId::Double)
        return "tessera::ops::DecimalToDouble((__int128)" + x + ", " + std::to_string(from.id == TypeId::Decimal ? from.scale : 0) + ")";
      // To a DECIMAL with as many integer digits and at least the scale: a widening and a
      // multiplication by 10^(scale difference), which cannot overflow.
      if (to.id == TypeId::Decimal && (from.id == TypeId::Integer || from.id == TypeId::BigInt || from.id == TypeId::Decimal)) {
        const int from_scale = from.id == TypeId::Decimal ? from.scale : 0;
        const int from_digits = from.id == TypeId::Decimal ? from.precision - from.scale : from.id == TypeId::Integer ? 10 : 19;
        if (to.scale >= from_scale && to.precision - to.scale >= from_digits) {
          const int d = to.scale - from_scale;
          std::string factor = d <= 18 ? "(" + ct + ")" + std::to_string((long long)Pow10(d)) + "LL"
                                       : "tessera::ops::Pow10Int128(" + std::to_string(d) + ")";
          return "((" + ct + ")" + x + " * " + factor + ")";
        }
      }
      // Any other exact numeric cast: the scalar core's CastExact, as on the CPU; a value out
      // of the target's range hands the query back to the CPU, which raises the error
      // naming the value.
      const bool exact_from = from.id == TypeId::Integer || from.id == TypeId::BigInt || from.id == TypeId::Decimal;
      const bool exact_to = to.id == TypeId::Integer || to.id == TypeId::BigInt || to.id == TypeId::Decimal;
      if (exact_from && exact_to) {
        const __int128 lim = ops::ExactCastLimit(to);
        const int id = Error("cast from " + from.ToString() + " to " + to.ToString() + " out of range", true);
        const std::string limit = "(((__int128)(long long)" + PV(ConstParam((uint64_t)(int64_t)(lim >> 64))) +
                                  " << 64) | (__int128)" + PV(ConstParam((uint64_t)lim)) + ")";
        return "((" + ct + ")tsr_cast_exact((__int128)" + x + ", " + std::to_string(from.id == TypeId::Decimal ? from.scale : 0) +
               ", " + std::to_string(to.id == TypeId::Decimal ? to.scale : 0) + ", " + limit + ", " +
               (to.id == TypeId::Decimal ? "true" : "false") + ", err, " + std::to_string(id) + "))";
      }
      throw NotOnGpu("cast from " + from.ToString() + " to " + to.ToString() + " is not supported on the GPU yet");
    }
    case BExpr::Compare: {
      int oi = (int)e.op - (int)ast::Op::Eq;
      if (oi < 0 || oi > 5) throw NotOnGpu("comparison operator");
      if (DeviceCType(e.children[0]->type) != DeviceCType(e.children[1]->type) ||
          (AnyTimestamp(e.children) && e.children[0]->type.id != e.children[1]->type.id))
        throw NotOnGpu("comparison of " + e.children[0]->type.ToString() + " with " + e.children[1]->type.ToString());
      // The scalar core's order (NaN equal to NaN and above every number), as on the CPU.
      return "tessera::ops::Compare<" + DeviceCType(e.children[0]->type) + ">(" + std::to_string(oi) + ", " +
             Expr(*e.children[0], layer) + ", " + Expr(*e.children[1], layer) + ")";
    }
    case BExpr::And:
    case BExpr::Or: {
      std::string s = "(";
      for (size_t i = 0; i < e.children.size(); i++)
        s += (i ? (e.kind == BExpr::And ? " && " : " || ") : "") + Expr(*e.children[i], layer);
      return s + ")";
    }
    case BExpr::Not: return "(!" + Expr(*e.children[0], layer) + ")";
    case BExpr::Arith: {
      for (auto& c : e.children)
        if (DeviceCType(c->type) != ct || c->type.id == TypeId::Date || c->type.id == TypeId::Timestamp)
          throw NotOnGpu("arithmetic on " + c->type.ToString() + " giving " + e.type.ToString());
      std::string a = Expr(*e.children[0], layer), b = Expr(*e.children[1], layer);
      switch (e.op) {
        case ast::Op::Add: return Precision(e, Checked("addition", e, a, b));
        case ast::Op::Sub: return Precision(e, Checked("subtraction", e, a, b));
        case ast::Op::Mul: return Precision(e, Checked("multiplication", e, a, b));
        case ast::Op::Div:
          if (ct == "double") return "(" + a + " / " + b + ")";
          break;
        case ast::Op::Mod:
        case ast::Op::IntDiv:
          // Integers only (DECIMAL operands keep their scales; DOUBLE's `%` is fmod).
          if (e.type.id == TypeId::Integer || e.type.id == TypeId::BigInt) {
            const bool mod = e.op == ast::Op::Mod;
            const int id = Error(std::string(mod ? "modulo" : "integer division") +
                                     " by zero (NULL) or of the minimum value by -1 (not on the GPU)",
                                 true);
            return std::string(mod ? "tsr_mod<" : "tsr_intdiv<") + ct + ">(" + a + ", " + b + ", err, " + std::to_string(id) + ")";
          }
          break;
        default: break;
      }
      throw NotOnGpu("operator " + e.ToString() + " is not supported on the GPU yet");
    }
    case BExpr::Neg: return Checked("negation", e, Expr(*e.children[0], layer), "");
    case BExpr::IsNull:
      // Columns on the GPU have no NULLs and the expressions generated here never yield one:
      // where one would (a zero divisor of `//` or `%`) or would raise an error (an
      // overflow), the operand flags the error word and the query goes back to the CPU. So
      // the operand is still evaluated (`(x // 0) IS NULL` was TRUE on the CPU and FALSE
      // here: found by the random differential test on the GPU).
      return "((void)(" + Expr(*e.children[0], layer) + "), " + (e.negated ? "true" : "false") + ")";
    case BExpr::InList: {
      std::string x = Expr(*e.children[0], layer);
      const std::string eq = "tessera::ops::Equals<" + DeviceCType(e.children[0]->type) + ">(";
      std::string s = "(";
      for (size_t i = 1; i < e.children.size(); i++) {
        if (DeviceCType(e.children[i]->type) != DeviceCType(e.children[0]->type) ||
            (AnyTimestamp(e.children) && e.children[i]->type.id != e.children[0]->type.id))
          throw NotOnGpu("IN list of mixed types");
        s += (i > 1 ? " || " : "") + eq + x + ", " + Expr(*e.children[i], layer) + ")";
      }
      s += ")";
      return e.negated ? "(!" + s + ")" : s;
    }
    case BExpr::Case: {
      size_t n = e.children.size();
      std::string s = Expr(*e.children[n - 1], layer);
      for (size_t i = n - 1; i >= 2; i -= 2)
        s = "(" + Expr(*e.children[i - 2], layer) + " ? " + Expr(*e.children[i - 1], layer) + " : " + s + ")";
      return s;
    }
    case BExpr::Func: {
      // The registry's device expression: the scalar core function the CPU calls too.
      if (!e.fn->device && !TimestampCall(e)) throw NotOnGpu("function " + e.name + " has no GPU definition yet");
      // Device expressions take DATEs, not TIMESTAMPs (both are integers on the device); a
      // call over one TIMESTAMP, its first argument, has a device expression of its own.
      const bool over_timestamp = TimestampCall(e);
      if (!over_timestamp && (e.type.id == TypeId::Timestamp || AnyTimestamp(e.children)))
        throw NotOnGpu("function " + e.name + " over a TIMESTAMP has no GPU definition yet");
      std::vector<std::string> args;
      for (auto& c : e.children) args.push_back(Expr(*c, layer));
      return over_timestamp ? e.fn->device_timestamp(args) : e.fn->device(args);
    }
    default: throw NotOnGpu(e.ToString() + " is not supported on the GPU yet");
  }
}

// The range of an expression's values where it can be derived: a column's domain, a
// constant, a widening cast, a function with a range hook in the registry (EXTRACT: the
// year of a date column with a known range, month and day fixed). has_range false otherwise.
ColumnDomain Generator::Domain(const BoundExpr& e, int layer) {
  ColumnDomain d;
  if (e.type.id == TypeId::Varchar && e.kind != BExpr::Column) {
    // A string expression over one dictionary column has the dictionary of its results.
    std::vector<int> idx;
    CollectIndices(e, idx);
    if (!idx.empty() && std::all_of(idx.begin(), idx.end(), [&](int i) { return i == idx[0]; }) &&
        layers_[layer][idx[0]].domain.dict)
      return DictMap(e, layer, idx[0]).domain;
    return d;
  }
  switch (e.kind) {
    case BExpr::Column: return layers_[layer][e.index].domain;
    case BExpr::Constant:
      if (!e.value.is_null() && DeviceCType(e.type) != "double" && DeviceCType(e.type) != "__int128") {
        d.has_range = true;
        d.lo = d.hi = (int64_t)e.value.int_value();
      }
      return d;
    case BExpr::Cast:
      if ((e.children[0]->type.id == TypeId::Integer && e.type.id == TypeId::BigInt)) return Domain(*e.children[0], layer);
      return d;
    case BExpr::Func: {
      // The registry's range hook over the arguments' ranges (`range` over DATEs, its
      // TIMESTAMP form over one TIMESTAMP's microseconds).
      const bool over_timestamp = TimestampCall(e);
      auto hook = over_timestamp ? e.fn->range_timestamp : e.fn->range;
      if (!hook || (!over_timestamp && (e.type.id == TypeId::Timestamp || AnyTimestamp(e.children)))) return d;
      std::vector<ValueRange> in;
      for (auto& c : e.children) {
        ColumnDomain cd = Domain(*c, layer);
        in.push_back({cd.has_range, cd.lo, cd.hi});
      }
      ValueRange r = hook(in);
      d.has_range = r.known;
      d.lo = r.lo;
      d.hi = r.hi;
      return d;
    }
    default: return d;
  }
}

// AND-ed terms one after another: a term's columns are loaded only for rows that passed
// the terms before it.
void Generator::Predicate(const BoundExpr& e, int layer) {
  if (e.kind == BExpr::And) {
    for (auto& c : e.children) Predicate(*c, layer);
    return;
  }
  std::string code = Expr(e, layer);
  ForItems("sel[i] = " + code + ";");
}

// Word w of the aggregation state row of the item's slot.
std::string Generator::GroupWord(int w) const {
  return group_rows_ + "[(u64)(tb + i * BT) * " + std::to_string(prog_.from_agg->words.size()) + " + " + std::to_string(w) + "]";
}

// An aggregate's result from its state words, finalised as the CPU's GroupTable does (the
// scalar core's AvgOfSum and SumFitsInt64, the same overflow message). Groups read here
// have at least one row and GPU inputs have no NULLs, so no result is NULL.
std::string Generator::AggValue(const Col& c) {
  const PipelineProgram& agg = *prog_.from_agg;
  const BoundExpr& a = *agg.agg->aggs[c.agg_col];
  const int w = agg.agg_word[c.agg_col];
  const std::string count = "(long long)" + GroupWord(0);
  if (a.name == "count" && w != 0) return "(long long)" + GroupWord(w);  // COUNT of a left join's build column
  if (a.name == "count" || a.name == "count_star") return count;
  if (!agg.agg_count_word.empty() && agg.agg_count_word[c.agg_col])
    throw NotOnGpu(a.ToString() + " read on the GPU: NULL where no row qualified (not on the GPU yet)");
  const std::string ct = DeviceCType(a.type);
  if (CountsTrueRows(a.name)) {  // the TRUE rows in the sum word, the group's rows in its count
    if (a.name == "bool_and") return "tessera::ops::BoolAndOf((long long)" + GroupWord(w) + ", (long long)" + GroupWord(0) + ")";
    if (a.name == "bool_or") return "tessera::ops::BoolOrOf((long long)" + GroupWord(w) + ")";
    if (ct == "__int128") return "(__int128)(long long)" + GroupWord(w);
    throw NotOnGpu(a.ToString() + " read from the GPU aggregation");
  }
  switch (agg.words[w]) {
    case AggWord::SumLo: {
      const std::string sum = "(((__int128)(long long)" + GroupWord(w + 1) + " << 64) | (__int128)" + GroupWord(w) + ")";
      const Type& in = a.children[0]->type;
      if (a.name == "avg") return "tessera::ops::AvgOfSum(" + sum + ", " + std::to_string(in.id == TypeId::Decimal ? in.scale : 0) + ", " + count + ")";
      if (ct == "__int128") return sum;
      if (ct == "long long") {
        int id = Error(ops::SumResultOverflowMessage(), false);
        return "(tessera::ops::SumFitsInt64(" + sum + ") ? (long long)" + sum + " : (tsr_fail(err, " + std::to_string(id) + "), 0LL))";
      }
      break;
    }
    case AggWord::SumF64: {
      const std::string sum = "__longlong_as_double((long long)" + GroupWord(w) + ")";
      return a.name == "avg" ? "tessera::ops::AvgOfSum(" + sum + ", " + count + ")" : sum;
    }
    case AggWord::Min:
    case AggWord::Max: return "(" + ct + ")(long long)" + GroupWord(w);
    default: break;
  }
  throw NotOnGpu(a.ToString() + " read from the GPU aggregation");
}

// Source: the groups of an aggregation that ran on the GPU, read where it left them: one
// item per slot of its state, empty slots (count 0) deselected; columns are its keys, then
// its aggregates. An ungrouped aggregation over no rows (count 0) has NULL results, which
// the GPU does not represent: the query is handed back to the CPU then.
void Generator::GroupSource(const ir::Source& src) {
  auto it = results_.find(src.from);
  if (it == results_.end()) throw NotOnGpu("it reads an aggregation (" + src.what + ") that runs on the CPU");
  const PipelineProgram* agg = it->second;
  prog_.from_agg = agg;
  prog_.rows = agg->slots;  // at run time: the slots the aggregation ended with
  group_rows_ = "((const u64*)" + PV(Param([agg] { return (uint64_t)agg->state.ptr(); })) + ")";
  const size_t nk = agg->keys.size();
  if (nk) {
    ForItems("if (" + GroupWord(0) + " == 0ull) sel[i] = false;");
  } else {
    bool nullable = false;
    for (const BoundExpr* a : agg->agg->aggs) nullable |= a->name != "count" && a->name != "count_star";
    if (nullable)
      ForItems("if (" + GroupWord(0) + " == 0ull) tsr_fail(err, " +
               std::to_string(Error("an aggregate over no rows is NULL (not on the GPU yet)", true)) + ");");
  }
  if (src.types.size() != nk + agg->agg->aggs.size()) throw InternalError("aggregation result of unexpected width");
  std::vector<Col> cols;
  for (size_t j = 0; j < src.types.size(); j++) {
    Col c;
    c.type = src.types[j];
    c.kind = j < nk ? Col::GroupKey : Col::AggValue;
    c.agg_col = (int)(j < nk ? j : j - nk);
    if (j < nk) {
      const GroupKeyPlan& kp = agg->keys[j];
      c.domain.has_range = true;
      c.domain.lo = kp.lo;
      c.domain.hi = kp.lo + (int64_t)(kp.range - 1);
      c.domain.dict = kp.dict;
    } else if (agg->agg->aggs[j - nk]->name == "count" || agg->agg->aggs[j - nk]->name == "count_star") {
      // A count of rows a GPU pipeline produced: never negative, and below 2^62 (so it can
      // be a group key again: TPC-H q13's distribution of order counts).
      c.domain.has_range = true;
      c.domain.lo = 0;
      c.domain.hi = (int64_t)((1ull << 62) - 1);
    }
    cols.push_back(std::move(c));
  }
  layers_.push_back(std::move(cols));
}

// Source: rows another GPU pipeline materialised (a sort, a limit), read in place and in
// their order: one item per row kept (the count is read on the device, so no wait for it).
void Generator::RowSource(const ir::Source& src) {
  auto it = results_.find(src.from);
  if (it == results_.end() || !it->second->out)
    throw NotOnGpu("it reads rows (" + src.what + ") that a CPU pipeline materialises");
  const PipelineProgram* from = it->second;
  const GpuRowSet& rs = *from->out;
  prog_.from_rows = from;
  row_buf_ = "((const u64*)" + PV(Param([from] { return (uint64_t)from->out->rows.ptr(); })) + ")";
  row_words_ = rs.row_words;
  const int pc = Param([from] { return from->out->count; });
  prologue_ += "  const u64 src_rows = tsr_kept(*(const u64*)" + PV(pc) + ", " + PV(ConstParam(rs.offset)) + ", " +
               PV(ConstParam(rs.limit)) + ");\n";
  ForItems("if ((u64)(tb + i * BT) >= src_rows) sel[i] = false;");
  if (src.types.size() != rs.types.size()) throw InternalError("materialised rows of unexpected width");
  std::vector<Col> cols;
  for (size_t j = 0; j < rs.types.size(); j++) {
    Col c;
    c.type = rs.types[j];
    c.kind = Col::RowValue;
    c.agg_col = rs.word_of[j];
    c.domain = rs.domains[j];
    cols.push_back(std::move(c));
  }
  layers_.push_back(std::move(cols));
}

// The order words of sort key value `v` (the tile library's tsr_order_*; DESC inverts them).
std::string Generator::OrderWords(const Col& c, const std::string& v, bool desc, std::vector<std::string>& out) {
  const std::string ct = DeviceCType(c.type);
  std::vector<std::string> w;
  if (ct == "__int128") w = {"tsr_order_i64((long long)(" + v + " >> 64))", "(u64)" + v};
  else if (ct == "double") w = {"tsr_order_f64((u64)__double_as_longlong(" + v + "))"};
  else if (c.type.id == TypeId::Varchar) w = {"(u64)(unsigned)" + v};  // codes of a sorted dictionary
  else w = {"tsr_order_i64((long long)" + v + ")"};
  for (auto& x : w) out.push_back(desc ? "~(" + x + ")" : x);
  return ct;
}

// Sink: the rows are materialised in device memory (GpuRowSet), every column of the input
// in its words. An order or top-N sink also writes each row's order words, which the
// executor sorts on (the tile library's radix sort) before gathering the rows in order and
// keeping the first `limit`; a limit sink keeps rows [offset, offset + limit); the result
// sink's rows are downloaded. Rows read in order (from a sort) are stored at their own
// position, which keeps the order; others are compacted (one atomic per tile).
void Generator::MaterialiseSink(const ir::Sink& s) {
  const int L = (int)layers_.size() - 1;
  const auto& cols = layers_[L];
  auto rs = std::make_shared<GpuRowSet>();
  for (size_t c = 0; c < cols.size(); c++) {
    const std::string ct = DeviceCType(cols[c].type);
    if (ct.empty()) throw NotOnGpu(UnsupportedType(cols[c].type));
    if (cols[c].type.id == TypeId::Varchar && !cols[c].domain.dict)
      throw NotOnGpu("a string column without a dictionary cannot be materialised on the GPU yet");
    rs->types.push_back(cols[c].type);
    rs->domains.push_back(cols[c].domain);
    rs->word_of.push_back(rs->row_words);
    rs->row_words += ct == "__int128" ? 2 : 1;
  }
  // Stored at their own position when read in order; a sort's rows are ordered once sorted.
  const bool in_order = prog_.from_rows && prog_.from_rows->out->ordered && s.kind != ir::Sink::Kind::Order;
  rs->ordered = in_order || s.kind == ir::Sink::Kind::Order;
  if (s.kind == ir::Sink::Kind::Limit) {
    rs->offset = (uint64_t)std::max<int64_t>(s.offset, 0);
    rs->limit = s.limit < 0 ? UINT64_MAX : (uint64_t)s.limit;
  }
  std::vector<std::string> keys;
  if (s.kind == ir::Sink::Kind::Order) {
    for (const ir::OrderKey& o : s.orders) {
      if (o.expr->kind != BExpr::Column) throw NotOnGpu("an ORDER BY key that is not a column");
      OrderWords(cols[o.expr->index], Need(L, o.expr->index) + "[i]", o.desc, keys);
      rs->key_what.push_back(o.expr->ToString() + (o.desc ? " DESC" : ""));
    }
    rs->key_words = (int)keys.size();
  }
  PipelineProgram* self = &prog_;
  const std::string R = std::to_string(rs->row_words);
  const std::string out = "((u64*)" + PV(Param([self] { return (uint64_t)self->out->rows.ptr(); })) + ")";
  const std::string count = "((u64*)" + PV(Param([self] { return self->out->count; })) + ")";
  const std::string off = PV(ConstParam(rs->offset)), lim = PV(ConstParam(rs->limit));
  std::string store = "u64* o = " + out + " + (pos - " + off + ") * " + R + ";";
  for (size_t c = 0; c < cols.size(); c++) {
    const std::string ct = DeviceCType(cols[c].type), v = Need(L, (int)c) + "[i]", w = std::to_string(rs->word_of[c]);
    if (ct == "__int128") store += " o[" + w + "] = (u64)" + v + "; o[" + w + " + 1] = (u64)(" + v + " >> 64);";
    else if (ct == "double") store += " o[" + w + "] = (u64)__double_as_longlong(" + v + ");";
    else store += " o[" + w + "] = (u64)(long long)" + v + ";";
  }
  if (!keys.empty()) {
    const std::string kb = "((u64*)" + PV(Param([self] { return (uint64_t)self->out->keys.ptr(); })) + ")";
    store += " u64* kw = " + kb + " + pos * " + std::to_string(keys.size()) + ";";
    for (size_t k = 0; k < keys.size(); k++) store += " kw[" + std::to_string(k) + "] = " + keys[k] + ";";
  }
  // Rows beyond the buffer's capacity are counted, not stored (a join that expands rows can
  // outgrow it: the executor then runs the kernel again over a buffer of the count).
  const std::string cap = PV(Param([self] { return self->out->capacity; }));
  const std::string keep = "pos >= " + off + " && pos - " + off + " < " + lim + " && pos - " + off + " < " + cap;
  if (in_order) {
    // Every row of the ordered source is selected (GpuSupport: projections only): the last
    // one records how many there were.
    ForItems("const u64 pos = (u64)(tb + i * BT); if (pos + 1 == src_rows) " + count + "[0] = src_rows; if (" + keep +
             ") { " + store + " }");
  } else {
    body_ += "  #pragma unroll\n  for (int i = 0; i < IPT; ++i) {\n    const u64 pos = tsr_compact_pos(sel[i], " + count +
             ");\n    if (sel[i] && " + keep + ") { " + store + " }\n  }\n";
  }
  prog_.materialise = &s;
  prog_.out = rs;
}

// References to the scan's columns (index < uses.size()) in e: LIKE with a constant
// pattern over the column itself counts in `like`, any other reference in `other`.
static void CountUses(const BoundExpr& e, std::vector<int>& other, std::vector<int>& like) {
  if (e.kind == BExpr::Like && e.children.size() == 2 && e.children[0]->kind == BExpr::Column &&
      e.children[1]->kind == BExpr::Constant && !e.children[1]->value.is_null()) {
    if (e.children[0]->index >= 0 && (size_t)e.children[0]->index < like.size()) like[e.children[0]->index]++;
    return;
  }
  if (e.kind == BExpr::Column) {
    if (e.index >= 0 && (size_t)e.index < other.size()) other[e.index]++;
    return;
  }
  for (auto& c : e.children) CountUses(*c, other, like);
}

// The scan columns the kernel reads as bytes (CachedColumn::raw) rather than dictionary
// codes: VARCHAR columns stored without a dictionary (many distinct values) that only LIKE
// with a constant pattern reads, up to the first projection (without one: also in the
// sink; a sink that materialises rows reads every column). Probes keep the scan columns'
// positions. Their dictionary (TPC-H's o_comment: 30 M strings at SF20) is never built.
static std::vector<bool> RawStringColumns(const ir::Pipeline& p) {
  const ir::ScanSource& scan = p.source.scan;
  const size_t n = scan.column_ids.size();
  std::vector<int> other(n, 0), like(n, 0);
  for (const BoundExpr* f : scan.filters) CountUses(*f, other, like);
  bool projected = false;
  for (const ir::Step& st : p.steps) {
    if (st.predicate) CountUses(*st.predicate, other, like);
    for (const BoundExpr* e : st.exprs) CountUses(*e, other, like);
    for (const BoundExpr* k : st.on.keys) CountUses(*k, other, like);
    if (st.on.residual) CountUses(*st.on.residual, other, like);
    if (st.kind == ir::Step::Kind::Project) {
      projected = true;
      break;
    }
  }
  if (!projected) {
    const ir::Sink& k = p.sink;
    for (const BoundExpr* e : k.groups) CountUses(*e, other, like);
    for (const BoundExpr* e : k.aggs) CountUses(*e, other, like);
    for (const BoundExpr* e : k.build.keys) CountUses(*e, other, like);
    if (k.build.residual) CountUses(*k.build.residual, other, like);
    for (const ir::OrderKey& o : k.orders) CountUses(*o.expr, other, like);
    if (k.kind != ir::Sink::Kind::JoinBuild && k.kind != ir::Sink::Kind::Aggregate)
      for (auto& o : other) o++;
  }
  std::vector<bool> raw(n, false);
  for (size_t j = 0; j < n; j++)
    raw[j] = scan.column_types[j].id == TypeId::Varchar && like[j] > 0 && other[j] == 0 &&
             ColumnCache::StoredPlain(*scan.data, scan.column_ids[j]);
  return raw;
}

void Generator::Source(const ir::ScanSource& scan, const std::vector<bool>& raw) {
  prog_.rows = scan.data->row_count;
  std::vector<Col> cols;
  for (size_t j = 0; j < scan.column_ids.size(); j++) {
    Col c;
    c.type = scan.column_types[j];
    c.kind = Col::Scan;
    c.cached = ColumnCache::Instance().Get(scan.table, scan.data, scan.column_ids[j], scan.column_names[j], c.type, raw[j]);
    c.raw = c.cached->raw;
    if (!c.cached->unsupported.empty())
      throw NotOnGpu(scan.table + "." + scan.column_names[j] + ": " + c.cached->unsupported);
    c.domain = c.cached->domain;
    prog_.scan_widths.push_back(c.cached->rows ? (double)c.cached->device_bytes() / (double)c.cached->rows : 0);
    cols.push_back(std::move(c));
  }
  layers_.push_back(std::move(cols));
}

// Several integer keys packed into one (join keys, group keys): key = sum of
// (v_i - lo_i) * stride_i, stride_i the product of the ranges before key i. The stride of
// the next key of `range` values; `packed` (the product so far) grows by it; NotOnGpu when
// the product would pass 2^bits.
static uint64_t NextStride(uint64_t& packed, uint64_t range, int bits, const std::string& what) {
  const uint64_t limit = (1ull << bits) - 1;
  if (range > limit || packed > limit / range) throw NotOnGpu(what + " whose value ranges do not pack into " + std::to_string(bits) + " bits");
  uint64_t stride = packed;
  packed *= range;
  return stride;
}
// The offset of key value `v` in its range and its share of the packed key.
static std::string PackedOffset(const std::string& v, const std::string& lo) {
  return "(u64)((long long)" + v + " - (long long)" + lo + ")";
}

// The key a join table is built on or probed with, as a long long: one key as it is;
// several packed by the table's value ranges, or -1 when one lies outside its range (no
// build row can have it; the tables never hold -1).
std::string Generator::JoinKey(const std::vector<const BoundExpr*>& keys, const GpuHashTable& t, int layer) {
  if (keys.empty()) return "0LL";  // a join without keys: the table's one slot
  if (keys.size() == 1) return "(long long)" + Expr(*keys[0], layer);
  std::string in, packed;
  for (size_t i = 0; i < keys.size(); i++) {
    std::string v = NewVar("jk");
    Declare("long long", v);
    ForItems(v + "[i] = (long long)" + Expr(*keys[i], layer) + ";");
    std::string off = PackedOffset(v + "[i]", PV(ConstParam((uint64_t)t.key_lo[i])));
    in += (i ? " && " : "") + off + " < " + PV(ConstParam(t.key_range[i]));
    packed += (i ? " + " : "") + off + " * " + PV(ConstParam(t.key_stride[i]));
  }
  return "((" + in + ") ? (long long)(" + packed + ") : -1LL)";
}

// TESSERA_GPU_CHAIN_JOINS=1: every inner and cross join's table chained from the start
// (tests of the match loop on small data, and of its code generation without a GPU).
static bool ChainAllJoins() {
  static const bool on = [] {
    const char* e = std::getenv("TESSERA_GPU_CHAIN_JOINS");
    return e && std::string(e) == "1";
  }();
  return on;
}

// The smallest direct-mapped table given a presence bitmap: GpuHashTable::
// kPresenceMinTableBytes, or TESSERA_GPU_PRESENCE_MIN_BYTES (0: every direct-mapped table;
// the tests run the GPU queries so as well).
static double PresenceMinTableBytes() {
  static const double v = [] {
    const char* e = std::getenv("TESSERA_GPU_PRESENCE_MIN_BYTES");
    return e && *e ? std::strtod(e, nullptr) : GpuHashTable::kPresenceMinTableBytes;
  }();
  return v;
}

// Join types whose table holds the build rows' columns (the others a set of keys).
static bool BuildsRows(LJoinType t) { return t == LJoinType::Inner || t == LJoinType::Left || t == LJoinType::Cross; }

// Whether `key` is in the presence bitmap of table t (t.presence).
std::string Generator::PresenceTest(const std::shared_ptr<GpuHashTable>& t, const std::string& key) {
  std::shared_ptr<GpuHashTable> tp = t;
  int p_bits = Param([tp] { return (uint64_t)tp->bits.ptr(); });
  int p_lo = Param([tp] { return (uint64_t)tp->lo; });
  int p_range = Param([tp] { return tp->range; });
  return "ht_presence_test((const unsigned*)" + PV(p_bits) + ", (long long)" + PV(p_lo) + ", " + PV(p_range) +
         ", (long long)" + key + ")";
}

// Emits the probe of join `j` (its key over `layer`); returns the probe's number.
int Generator::EmitProbe(const ir::Step& j, int layer) {
  auto it = tables_.find(j.join);
  if (it == tables_.end()) throw NotOnGpu("the build side of the join runs on the CPU");
  std::string k = JoinKey(j.on.keys, *it->second, layer);
  Probe pr;
  pr.type = j.on.type;
  pr.table = it->second;
  auto t = pr.table;
  pr.p_table = Param([t] { return (uint64_t)t->table.ptr(); });
  pr.p_keys = Param([t] { return (uint64_t)t->keys.ptr(); });
  pr.p_stride = Param([t] { return (uint64_t)t->stride; });
  pr.p_lo = Param([t] { return (uint64_t)t->lo; });
  pr.p_range = Param([t] { return t->dense ? t->range : t->range - 1; });
  pr.slot_var = NewVar("slot");
  Declare("int", pr.slot_var);  // tables have fewer than 2^31 slots (checked when planned)
  pr.left_on_keys = j.on.type == LJoinType::Left && !j.on.keys.empty();
  if (t->chained) {
    EmitChainedProbe(j, layer, pr, k);
    probes_.push_back(pr);
    return (int)probes_.size() - 1;
  }
  // With a presence bitmap the bit decides, exactly: a present key's slot is key - lo, and
  // a set of keys is not read at all.
  const std::string present = t->presence ? PresenceTest(t, k) : "";
  // One 32-bit key into a table of 32-bit keys: 32-bit arithmetic (ht_find_dense32).
  const bool key32 = j.on.keys.size() == 1 && DeviceCType(j.on.keys[0]->type) == "int" && t->dense &&
                     t->lo >= INT32_MIN && t->range <= (uint64_t)INT32_MAX && t->lo + (int64_t)t->range - 1 <= INT32_MAX;
  std::string find = t->presence
      ? "(" + present + " ? " + (t->keys_only ? std::string("0LL") : "(long long)" + k + " - (long long)" + PV(pr.p_lo)) + " : -1LL)"
      : key32
      ? "ht_find_dense32((const unsigned*)" + PV(pr.p_table) + ", (int)" + PV(pr.p_stride) + ", (int)" + PV(pr.p_lo) + ", (unsigned)" + PV(pr.p_range) + ", " + Expr(*j.on.keys[0], layer) + ")"
      : t->dense
      ? "ht_find_dense((const unsigned*)" + PV(pr.p_table) + ", (int)" + PV(pr.p_stride) + ", (long long)" + PV(pr.p_lo) + ", " + PV(pr.p_range) + ", (long long)" + k + ")"
      : "ht_find_open((const long long*)" + PV(pr.p_keys) + ", " + PV(pr.p_range) + ", (long long)" + k + ")";
  // Inner and semi joins keep the rows that found their key, anti joins those that did
  // not; a mark join keeps every row and outputs whether it found it. A left join (only
  // without keys: GpuSupport) finds the one build row or, over an empty build side, would
  // give NULL build columns, which GPU columns do not hold: the query goes to the CPU.
  std::string keep;
  if (j.on.type == LJoinType::Anti) keep = " if (" + pr.slot_var + "[i] >= 0) sel[i] = false;";
  else if (pr.left_on_keys) keep = "";  // every row stays; its build columns are NULL without a match
  else if (j.on.type == LJoinType::Left)
    keep = " if (" + pr.slot_var + "[i] < 0) tsr_fail(err, " +
           std::to_string(Error("a left join without keys over an empty build side (NULL columns are not on the GPU yet)", true)) + ");";
  else if (j.on.type != LJoinType::Mark) keep = " if (" + pr.slot_var + "[i] < 0) sel[i] = false;";
  ForItems(pr.slot_var + "[i] = (int)" + find + ";" + keep);
  probes_.push_back(pr);
  return (int)probes_.size() - 1;
}

// A semi or anti join with a residual predicate (TPC-H q21's "another supplier of the same
// order"): the probe walks the chain of build rows of its key, testing the residual over
// its own columns and the row's, until one passes; semi joins keep the rows where one did,
// anti joins the others. The loop is per thread (no block-wide step inside).
void Generator::EmitChainedProbe(const ir::Step& j, int layer, Probe& pr, const std::string& key) {
  auto t = pr.table;
  const int p_heads = Param([t] { return (uint64_t)t->heads.ptr(); });
  const std::string first =
      t->dense ? "ht_chain_first_dense((const unsigned*)" + PV(p_heads) + ", (long long)" + PV(pr.p_lo) + ", " + PV(pr.p_range) +
                     ", (long long)" + key + ")"
               : "ht_chain_first_open((const long long*)" + PV(pr.p_keys) + ", (const unsigned*)" + PV(p_heads) + ", " +
                     PV(pr.p_range) + ", (long long)" + key + ")";
  const std::string next = pr.slot_var + "[i] = (int)ht_chain_next((const unsigned*)" + PV(pr.p_table) + ", (int)" +
                           PV(pr.p_stride) + ", " + pr.slot_var + "[i]);";
  if (BuildsRows(j.on.type)) {
    // An inner, cross or left join over a chained table: the rest of the pipeline (steps
    // and sink) runs once per match, in a loop over the k-th match of every item; the
    // loop's condition is block-wide (sinks compact with block-wide steps). A left join's
    // item without a match runs it once, with slot -1 (its build columns NULL).
    const bool left = pr.left_on_keys;  // chained left joins have keys
    ForItems(pr.slot_var + "[i] = (int)" + first + ";" + (left ? "" : " if (" + pr.slot_var + "[i] < 0) sel[i] = false;"));
    const std::string keep = NewVar("keep"), lone = NewVar("lone");
    body_ += "  bool " + keep + "[IPT], " + lone + "[IPT];\n  #pragma unroll\n  for (int i = 0; i < IPT; ++i) { " + keep +
             "[i] = sel[i]; " + lone + "[i] = " + (left ? "sel[i] && " + pr.slot_var + "[i] < 0" : std::string("false")) + "; }\n";
    body_ += "  for (;;) {\n  bool any = false;\n  #pragma unroll\n  for (int i = 0; i < IPT; ++i) { sel[i] = " + keep +
             "[i] && (" + pr.slot_var + "[i] >= 0 || " + lone + "[i]); any |= sel[i]; }\n  if (!__syncthreads_or(any)) break;\n";
    loop_ends_.push_back("  #pragma unroll\n  for (int i = 0; i < IPT; ++i) { " + lone + "[i] = false; if (" + keep + "[i] && " +
                         pr.slot_var + "[i] >= 0) " + next + " }\n  }\n");
    return;
  }
  ForItems(pr.slot_var + "[i] = (int)" + first + ";");
  // The residual's probe-side columns are loaded before the loop (they stay in registers).
  std::vector<int> idx;
  CollectIndices(*j.on.residual, idx);
  const int nprobe = (int)layers_[layer].size();
  for (int c : idx)
    if (c < nprobe) Need(layer, c);
  // The residual sees the probe columns, then the build row's (read from the chain's row).
  std::vector<Col> joined = layers_[layer];
  for (size_t c = 0; c < t->types.size(); c++) {
    Col col;
    col.type = t->types[c];
    col.kind = Col::Payload;
    col.probe = (int)probes_.size();  // this probe's number once pushed
    col.build_col = (int)c;
    col.domain = t->domains[c];
    joined.push_back(std::move(col));
  }
  probes_.push_back(pr);  // Need() of the build columns reads probes_[col.probe]
  const std::string keep = NewVar("keep"), found = NewVar("found");
  body_ += "  bool " + keep + "[IPT], " + found + "[IPT];\n";
  body_ += "  #pragma unroll\n  for (int i = 0; i < IPT; ++i) { " + keep + "[i] = sel[i]; " + found + "[i] = false; }\n";
  body_ += "  for (;;) {\n  bool any = false;\n";
  body_ += "  #pragma unroll\n  for (int i = 0; i < IPT; ++i) { sel[i] = " + keep + "[i] && !" + found + "[i] && " + pr.slot_var +
           "[i] >= 0; any |= sel[i]; }\n  if (!any) break;\n";
  layers_.push_back(std::move(joined));
  const int JL = (int)layers_.size() - 1;
  const std::string res = Expr(*j.on.residual, JL);
  ForItems("if (" + res + ") " + found + "[i] = true;");
  layers_.pop_back();
  ForItems(next);
  body_ += "  }\n";
  body_ += "  #pragma unroll\n  for (int i = 0; i < IPT; ++i) sel[i] = " + keep + "[i] && " +
           (j.on.type == LJoinType::Anti ? "!" : "") + found + "[i];\n";
  probes_.pop_back();  // the caller pushes it
}

// The join's output columns: its input's, then the build side's (read from the probe's slot).
void Generator::AddProbeLayer(int probe) {
  int L = (int)layers_.size() - 1;
  auto t = probes_[probe].table;
  std::vector<Col> cols = layers_[L];  // probe columns keep their loaded registers
  if (probes_[probe].type == LJoinType::Mark) {
    Col col;
    col.type = Type::Boolean();
    col.kind = Col::Found;
    col.probe = probe;
    cols.push_back(std::move(col));
  }
  for (size_t c = 0; c < t->types.size() && BuildsRows(probes_[probe].type); c++) {
    Col col;
    col.type = t->types[c];
    col.kind = Col::Payload;
    col.probe = probe;
    col.build_col = (int)c;
    col.domain = t->domains[c];
    col.nullable = probes_[probe].left_on_keys;
    cols.push_back(std::move(col));
  }
  layers_.push_back(std::move(cols));
}

// The scan's filter terms and the joins that directly follow the scan are all conjunctive
// tests of a row; they run most useful first: by rank = (1 - selectivity) / cost, the
// selectivities from the optimizer's estimates, the cost 1 for a term and 1 for a probe
// plus 1 when its table exceeds 4 MB (it then lives in L2 rather than near the SM) and 6
// more beyond 40 MB (most probes then miss the H100's 50 MB L2 and wait for DRAM: TPC-H
// q20's semi join into a 268 MB table of partsupp keys, probed by all 120 M lineitem rows
// at SF20 before the shipdate filter: 14.6 ms). A
// later test then loads its columns only in the sectors that still hold selected rows.
// Joins whose key reads another join's columns keep the plan's order.
size_t Generator::ScanPrefix(const ir::Pipeline& p) {
  const ir::ScanSource& scan = p.source.scan;
  struct Step {
    const BoundExpr* filter = nullptr;
    const ir::Step* join = nullptr;
    const ir::Step* pretest = nullptr;  // a later join's presence bitmap, tested at the scan
    double rank = 0;
  };
  // A probe's cost by the bytes it touches: a table's slots, or its presence bitmap.
  auto probe_cost = [](const GpuHashTable& t) {
    const double bytes = t.presence ? (double)t.PresenceBytes() : (double)t.range * t.stride * 4;
    return 1 + (bytes > 4.0 * (1 << 20) ? 1 : 0) + (bytes > 40.0 * (1 << 20) ? 6 : 0);
  };
  auto scan_only_keys = [&](const ir::Step& j, size_t nscan) {
    std::vector<int> idx;
    for (auto* k : j.on.keys) CollectIndices(*k, idx);
    return std::all_of(idx.begin(), idx.end(), [&](int i) { return (size_t)i < nscan; });
  };
  std::vector<Step> steps;
  const std::vector<const BoundExpr*>& terms = scan.filters;
  auto clamp = [](double x) { return x > 0 && x <= 1 ? x : 1.0; };
  double all = clamp(scan.data->row_count && scan.estimated_rows >= 0 ? scan.estimated_rows / (double)scan.data->row_count : 1);
  for (auto* t : terms) steps.push_back({t, nullptr, nullptr, (1 - std::pow(all, 1.0 / (double)terms.size()))});
  size_t njoins = 0;
  const size_t nscan = layers_[0].size();
  for (const ir::Step& st : p.steps) {
    if (st.kind != ir::Step::Kind::Probe) break;
    const ir::Step* j = &st;
    auto it = tables_.find(j->join);
    // A residual may read earlier joins' columns; a chained inner probe opens a loop.
    if (!scan_only_keys(*j, nscan) || it == tables_.end() || j->on.residual || it->second->chained) break;
    double in = j->estimated_in, out = j->estimated_out;
    double sel = clamp(in > 0 && out >= 0 ? out / in : 1);
    steps.push_back({nullptr, j, nullptr, (1 - sel) / probe_cost(*it->second)});
    njoins++;
  }
  // Join filters passed sideways: a later inner or semi join of this pipeline whose key is
  // a scan column and whose table has a presence bitmap drops, at the scan, the rows its
  // probe would drop (the steps between keep the scan columns where they are and only
  // drop or add rows). Its probe still runs where the plan puts it.
  for (size_t i = njoins; i < p.steps.size(); i++) {
    const ir::Step& st = p.steps[i];
    if (st.kind == ir::Step::Kind::Filter) continue;
    if (st.kind != ir::Step::Kind::Probe) break;
    if (st.on.type != LJoinType::Inner && st.on.type != LJoinType::Semi) continue;
    auto it = tables_.find(st.join);
    if (it == tables_.end() || !it->second->presence || st.on.residual || !scan_only_keys(st, nscan)) continue;
    double in = st.estimated_in, out = st.estimated_out;
    double sel = clamp(in > 0 && out >= 0 ? out / in : 1);
    steps.push_back({nullptr, nullptr, &st, (1 - sel) / probe_cost(*it->second)});
  }
  RangeTests(p, nscan);
  eager_at_ = body_.size();
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.rank > b.rank; });
  std::map<const ir::Step*, int> probe_of;
  for (auto& st : steps) {
    if (st.filter) {
      Predicate(*st.filter, 0);  // scan columns keep their positions in every layer
    } else if (st.pretest) {
      auto t = tables_.at(st.pretest->join);
      ForItems("sel[i] = " + PresenceTest(t, JoinKey(st.pretest->on.keys, *t, 0)) + ";");
      prog_.join_filters++;
    } else {
      probe_of[st.join] = EmitProbe(*st.join, 0);
    }
  }
  for (size_t i = 0; i < njoins; i++) AddProbeLayer(probe_of.at(&p.steps[i]));
  return njoins;
}

// Join filters by key range, the GPU's row-group skipping: an inner or semi join of this
// pipeline on one key that is a scan column, built with bounds (GpuHashTable::bounded),
// drops whole tiles before anything is loaded when every row group the tile overlaps has
// statistics outside the build's key range (tsr_tile_outside; the CPU's scans skip row
// groups by the same test). The row groups must have one size (all but the last), so that
// a row's group is row / size; each table is tested once.
// Whether row groups of these [min, max] ranges can be skipped by a key range: the
// column is clustered, its row groups on average covering at most half of its span
// (TPC-H's l_orderkey: 1/49 at SF1; SSB's random foreign keys: all of it).
static bool SkipsByKeyRange(const std::vector<std::pair<int64_t, int64_t>>& ranges) {
  if (ranges.size() < 2) return false;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (auto& r : ranges) lo = std::min(lo, r.first), hi = std::max(hi, r.second);
  if (lo > hi) return false;
  const long double span = (long double)hi - (long double)lo + 1;
  long double covered = 0;
  for (auto& r : ranges) covered += r.first > r.second ? 0 : ((long double)r.second - (long double)r.first + 1) / span;
  return covered / (long double)ranges.size() <= 0.5L;
}

void Generator::RangeTests(const ir::Pipeline& p, size_t nscan) {
  const TableData& data = *p.source.scan.data;
  const auto& groups = data.row_groups;
  if (groups.empty()) return;
  const uint64_t rg_rows = groups[0]->count;
  if (rg_rows == 0) return;
  for (size_t g = 0; g + 1 < groups.size(); g++)
    if (groups[g]->count != rg_rows) return;
  std::set<const GpuHashTable*> tested;
  std::string cond;
  for (const ir::Step& st : p.steps) {
    if (st.kind == ir::Step::Kind::Filter) continue;
    if (st.kind != ir::Step::Kind::Probe) break;
    if (st.on.type != LJoinType::Inner && st.on.type != LJoinType::Semi) continue;
    auto it = tables_.find(st.join);
    if (it == tables_.end() || !it->second->bounded || st.on.keys.size() != 1) continue;
    const BoundExpr& key = *st.on.keys[0];
    if (key.kind != BExpr::Column || (size_t)key.index >= nscan) continue;
    const Col& c = layers_[0][key.index];
    if (c.kind != Col::Scan || !c.cached || c.raw || c.type.id == TypeId::Varchar || c.type.id == TypeId::Double) continue;
    std::shared_ptr<GpuHashTable> t = it->second;
    if (!tested.insert(t.get()).second) continue;
    // Per row group: min and max of the key column (the widest range without statistics).
    std::vector<uint32_t> zm(groups.size() * 4);
    std::vector<std::pair<int64_t, int64_t>> ranges(groups.size());
    for (size_t g = 0; g < groups.size(); g++) {
      const ColumnStats& stats = groups[g]->columns[c.cached->column]->stats;
      const bool known = stats.has_stats && !stats.min.is_null() && !stats.max.is_null();
      const int64_t lo = known ? (int64_t)stats.min.int_value() : INT64_MIN;
      const int64_t hi = known ? (int64_t)stats.max.int_value() : INT64_MAX;
      ranges[g] = {lo, hi};
      std::memcpy(&zm[g * 4], &lo, 8);
      std::memcpy(&zm[g * 4 + 2], &hi, 8);
    }
    // Only where the column is clustered (SkipsByKeyRange): a test of every tile costs
    // about 0.1 ms a join at SSB SF20 on the H200, where no tile can be skipped.
    if (!SkipsByKeyRange(ranges)) continue;
    const size_t b = prog_.bitmaps.size();
    prog_.bitmaps.push_back(std::move(zm));
    const int p_zm = Param([&prog = prog_, b] { return (uint64_t)prog.bitmap_buffers[b].ptr(); });
    const int p_bounds = Param([t] { return (uint64_t)t->bounds.ptr(); });
    const uint64_t tile_rows = (uint64_t)kBlockThreads * ItemsPerThread();
    cond += std::string(cond.empty() ? "" : " || ");
    if (rg_rows % tile_rows == 0 && prog_.rows / tile_rows < (1ull << 31))
      cond += "tsr_tile_outside_aligned((const long long*)" + PV(p_zm) + ", (unsigned)" + PV(ConstParam(rg_rows / tile_rows)) +
              ", (unsigned)tile, (const long long*)" + PV(p_bounds) + ")";
    else
      cond += "tsr_tile_outside((const long long*)" + PV(p_zm) + ", " + PV(ConstParam(rg_rows)) +
              ", tile * (BT * IPT), BT * IPT, n, (const long long*)" + PV(p_bounds) + ")";
    prog_.range_tests++;
    t->range_tested = true;
  }
  if (cond.empty()) return;
  prog_.tiles = (prog_.rows + kBlockThreads * ItemsPerThread() - 1) / (kBlockThreads * ItemsPerThread());
  const std::string sk = "((u64*)" + PV(Param([&prog = prog_] { return (uint64_t)prog.skipped.ptr(); })) + ")";
  body_ += "  if (" + cond + ") { if (threadIdx.x == 0) atomicAdd(" + sk + ", 1ull); continue; }\n";
}

void Generator::BuildSink(const ir::Sink& j) {
  int L = (int)layers_.size() - 1;
  const BoundExpr* key = j.build.keys.empty() ? nullptr : j.build.keys[0];  // GpuSupport: integer keys
  auto found = tables_.find(j.node);
  auto t = found != tables_.end() ? found->second : std::make_shared<GpuHashTable>();
  const auto& cols = layers_[L];
  if (!t->read_known) t->read.assign(cols.size(), 0);
  // Semi, anti and mark joins need only the set of build keys (duplicates are fine); with a
  // residual predicate every build row is kept with the columns it reads (chained).
  const bool expandable = j.build.type == LJoinType::Inner || j.build.type == LJoinType::Cross ||
                          (j.build.type == LJoinType::Left && !j.build.keys.empty());
  t->chained = j.build.residual != nullptr || (expandable && !j.build.single_match &&
                                                  (chained_.count(j.node) || ChainAllJoins()));
  // A chained table's row r is the build input's item r, except inside a match loop, where
  // an item is seen once per match: there rows are claimed by a counter.
  t->counted = t->chained && !loop_ends_.empty();
  t->keys_only = !BuildsRows(j.build.type) && !t->chained;
  t->stride = 1;
  t->types.clear();
  t->domains.clear();
  t->word_of.clear();
  for (size_t c = 0; c < cols.size(); c++) {
    // A column only LIKE reads as bytes (raw) is never stored: a probe reading it hands its
    // pipeline to the CPU. Nor is a build column of an earlier join that its table does not
    // store (such a raw column, when this build's input is itself a join: bushy plans).
    const bool unstored = cols[c].kind == Col::Payload &&
                          probes_[cols[c].probe].table->word_of[cols[c].build_col] < 0;
    bool store = !t->keys_only && !cols[c].raw && !unstored && (!t->read_known || t->read[c]);
    const std::string ct = DeviceCType(cols[c].type);
    if (store && ct.empty())
      throw NotOnGpu("a join build column of type " + cols[c].type.ToString() + " is not supported on the GPU yet");
    t->types.push_back(cols[c].type);
    t->domains.push_back(cols[c].domain);
    t->word_of.push_back(store ? t->stride : -1);
    if (store) t->stride += ct == "__int128" ? 4 : ct == "long long" || ct == "double" ? 2 : 1;  // 32-bit words
  }
  // Several keys pack into one by the build side's value ranges (stride = product of the
  // ranges before), which must be known: columns with statistics or dictionaries.
  ColumnDomain kd;
  t->key_lo.clear();
  t->key_range.clear();
  t->key_stride.clear();
  if (j.build.keys.size() > 1) {
    uint64_t packed = 1;
    for (const BoundExpr* kx : j.build.keys) {
      const ColumnDomain* d = kx->kind == BExpr::Column ? &cols[kx->index].domain : nullptr;
      if (!d || !d->has_range || d->hi < d->lo) throw NotOnGpu("a join key without a known value range: " + kx->ToString());
      uint64_t range = (uint64_t)(d->hi - d->lo) + 1;
      t->key_stride.push_back(NextStride(packed, range, 62, "join keys"));
      t->key_lo.push_back(d->lo);
      t->key_range.push_back(range);
    }
    kd.has_range = true;
    kd.lo = 0;
    kd.hi = (int64_t)(packed - 1);
  } else if (!key) {
    kd.has_range = true;  // no keys: every row has key 0, one slot
    kd.lo = kd.hi = 0;
  } else if (key->kind == BExpr::Column) {
    kd = cols[key->index].domain;
  }
  // Direct-mapped when the key's range is small next to the table (common/join_rules.hpp).
  uint64_t rows = std::max<uint64_t>(prog_.rows, 1);
  if (kd.has_range && kd.hi >= kd.lo && DirectMappedKeys((uint64_t)(kd.hi - kd.lo), rows)) {
    t->dense = true;
    t->lo = kd.lo;
    t->range = (uint64_t)(kd.hi - kd.lo) + 1;
  } else {
    t->dense = false;
    t->range = 64;
    while (t->range < 2 * rows) t->range <<= 1;
  }
  if (t->range >= (1ull << 31)) throw NotOnGpu("join build side above 2^31 hash slots");
  // Once given, a table keeps its bitmap when its build is generated again with fewer
  // stored columns (read_known: after its probes were generated, which test the bitmap).
  t->presence = t->dense && !t->chained && (t->presence || (double)t->range * t->stride * 4 > PresenceMinTableBytes());
  std::string k = JoinKey(j.build.keys, *t, L);
  // One key: its min and max over the rows inserted, folded per thread, per warp at the
  // end, then into the table's bounds (the probing scans' join filter by key range).
  // Once the probes are generated (read_known), only where a probing scan tests them.
  t->bounded = key && j.build.keys.size() == 1 && (!t->read_known || t->range_tested);
  if (t->bounded) {
    const std::string b = "((u64*)" + PV(Param([t] { return (uint64_t)t->bounds.ptr(); })) + ")";
    prologue_ += "  long long kmin = 0x7fffffffffffffffLL, kmax = (-0x7fffffffffffffffLL - 1);\n";
    ForItems("{ const long long kb = " + k + "; kmin = kb < kmin ? kb : kmin; kmax = kb > kmax ? kb : kmax; }");
    epilogue_ += "  kmin = WarpReduce(kmin, MinI64()); kmax = WarpReduce(kmax, MaxI64());\n"
                 "  if ((threadIdx.x & 31) == 0 && kmin <= kmax) { atomic_min_i64(" + b + ", kmin); atomic_max_i64(" + b +
                 " + 1, kmax); }\n";
  }
  std::vector<std::string> vars(cols.size());
  for (size_t c = 0; c < cols.size(); c++)
    if (t->word_of[c] >= 0) vars[c] = Need(L, (int)c);
  int p_table = Param([t] { return (uint64_t)t->table.ptr(); });
  int p_keys = Param([t] { return (uint64_t)t->keys.ptr(); });
  int p_stride = Param([t] { return (uint64_t)t->stride; });
  int p_lo = Param([t] { return (uint64_t)t->lo; });
  int p_range = Param([t] { return t->dense ? t->range : t->range - 1; });
  int p_bits = Param([t] { return (uint64_t)t->bits.ptr(); });
  int range_err = Error("join build key outside its planned range", true);
  std::string ht = "(unsigned*)" + PV(p_table), stride = "(int)" + PV(p_stride);
  // The statements storing the build columns the table keeps into slot (or row) `slot`.
  auto store_columns = [&](const std::string& slot) {
    std::string stmt;
    for (size_t c = 0; c < cols.size(); c++) {
      if (t->word_of[c] < 0) continue;
      std::string ct = DeviceCType(cols[c].type), v = vars[c] + "[i]", w = std::to_string(t->word_of[c]);
      const std::string at = ht + ", " + stride + ", " + slot + ", " + w + ", ";
      if (ct == "__int128") stmt += " ht_store128(" + at + v + ");";
      else if (ct == "long long") stmt += " ht_store64(" + at + v + ");";
      else if (ct == "double") stmt += " ht_store64(" + at + "tsr_f64_bits(" + v + "));";
      else stmt += " ht_store32(" + at + "(int)" + v + ");";
    }
    return stmt;
  };
  if (t->chained) {
    int p_heads = Param([t] { return (uint64_t)t->heads.ptr(); });
    const std::string insert =
        (t->dense ? "ht_chain_insert_dense((unsigned*)" + PV(p_heads) + ", (long long)" + PV(p_lo) + ", " + PV(p_range)
                  : "ht_chain_insert_open((long long*)" + PV(p_keys) + ", (unsigned*)" + PV(p_heads) + ", " + PV(p_range)) +
        ", (long long)" + k + ", " + ht + ", " + stride + ", r, err, " + std::to_string(range_err) + ");";
    if (t->counted) {
      // Inside the match loop of a chained probe an item is seen once per match: rows are
      // claimed by a counter. Rows beyond the capacity are counted, not stored; the
      // executor then builds again into a table of the count.
      const std::string count = "((unsigned long long*)" + PV(Param([t] { return t->count; })) + ")";
      const std::string cap = PV(Param([t] { return t->capacity; }));
      ForItems("const u64 r = atomicAdd(" + count + ", 1ULL); if (r < " + cap + ") { " + insert + store_columns("r") + " }");
    } else {
      // Row r of the table is the build input's item r: no counter, no compaction.
      ForItems("const u64 r = (u64)(tb + i * BT); " + insert + store_columns("r"));
    }
    prog_.is_build = true;
    prog_.join = j.node;
    prog_.table = t;
    return;
  }
  if (t->keys_only && t->presence) {
    // The set is the bitmap alone.
    ForItems("const u64 off = (u64)((long long)" + k + " - (long long)" + PV(p_lo) + "); if (off < " + PV(p_range) +
             ") ht_presence_set((unsigned*)" + PV(p_bits) + ", off); else tsr_fail(err, " + std::to_string(range_err) + ");");
    prog_.is_build = true;
    prog_.join = j.node;
    prog_.table = t;
    return;
  }
  if (t->keys_only) {
    ForItems(t->dense ? "ht_insert_dense_set(" + ht + ", " + stride + ", (long long)" + PV(p_lo) + ", " + PV(p_range) +
                            ", (long long)" + k + ", err, " + std::to_string(range_err) + ");"
                      : "ht_insert_open_set((long long*)" + PV(p_keys) + ", " + PV(p_range) + ", (long long)" + k +
                            ", err, " + std::to_string(range_err) + ");");
    prog_.is_build = true;
    prog_.join = j.node;
    prog_.table = t;
    return;
  }
  int dup_err = Error(key ? "duplicate key on the build side of a join"
                          : "a join without keys whose build side has more than one row",
                      true);
  if (expandable && !j.build.single_match) prog_.duplicate_error = dup_err;
  std::string ins = t->dense
      ? "ht_insert_dense(" + ht + ", " + stride + ", (long long)" + PV(p_lo) + ", " + PV(p_range) + ", (long long)" + k
      : "ht_insert_open((long long*)" + PV(p_keys) + ", " + PV(p_range) + ", (long long)" + k;
  ins += ", err, " + std::to_string(range_err) + ", " + std::to_string(dup_err) + ")";
  const std::string mark = t->presence ? " ht_presence_set((unsigned*)" + PV(p_bits) + ", (u64)s);" : "";
  ForItems("long long s = " + ins + "; if (s >= 0) {" + mark + store_columns("s") + " }");
  prog_.is_build = true;
  prog_.join = j.node;
  prog_.table = t;
}

// The value a 128-bit SUM state adds: 64-bit inputs widened, 128-bit ones as they are.
// A sum entry's value as a 128-bit addend (agg null: a count of rows taken, 0 or 1).
static std::string SumValue(const BoundExpr* agg, const std::string& v) {
  return agg && DeviceCType(agg->children[0]->type) == "__int128" ? "tsr_i128(" + v + ")" : "tsr_i128((long long)" + v + ")";
}

// An aggregate's argument CASE WHEN c THEN x END (ELSE NULL; FILTER (WHERE c) is bound so):
// the aggregate takes x on the rows where c holds, and is NULL where none did.
static bool ConditionalArgument(const BoundExpr& e, const BoundExpr** cond, const BoundExpr** then) {
  if (e.kind != BExpr::Case || e.children.size() != 3) return false;
  const BoundExpr& els = *e.children[2];
  const BoundExpr& thn = *e.children[1];
  if (els.kind != BExpr::Constant || !els.value.is_null()) return false;
  if (thn.kind == BExpr::Constant && thn.value.is_null()) return false;
  *cond = e.children[0].get();
  *then = &thn;
  return true;
}

void Generator::AggregateSink(const ir::Sink& a) {
  int L = (int)layers_.size() - 1;
  prog_.agg = &a;
  // Group keys, packed into key words: sum over a word's keys of (value - lo) * stride. A
  // column with a known domain (statistics, dictionary codes) packs into its range; any
  // other key of a 32-bit type (an expression, a column without statistics) into 2^32
  // values. A key starts a new word when its range does not fit the current one's 63 bits.
  // One word of up to 16 M packed values: a direct-mapped table (slot = packed key).
  // Beyond: an open-addressing hash table over the packed key; over up to 4 key words
  // when they do not fit one (tsr_group_row_wide).
  const uint64_t limit63 = (1ull << 63) - 1;
  std::vector<uint64_t> word_packed{1};  // per key word: the product of its keys' ranges
  std::vector<std::string> key_values;
  for (const BoundExpr* g : a.groups) {
    GroupKeyPlan k;
    k.type = g->type;
    const Col* c = g->kind == BExpr::Column ? &layers_[L][g->index] : nullptr;
    const ColumnDomain gd = Domain(*g, L);
    if (gd.has_range && gd.hi >= gd.lo) {
      k.lo = gd.lo;
      k.range = (uint64_t)(gd.hi - gd.lo) + 1;
      k.dict = gd.dict;
    } else if (g->type.id == TypeId::Varchar) {
      throw NotOnGpu("GROUP BY " + g->ToString() + ": a string without a dictionary");
    } else if (DeviceCType(g->type) == "int" || DeviceCType(g->type) == "bool") {
      k.lo = DeviceCType(g->type) == "bool" ? 0 : INT32_MIN;
      k.range = DeviceCType(g->type) == "bool" ? 2 : (1ull << 32);
    } else {
      throw NotOnGpu("GROUP BY " + g->ToString() + " of type " + g->type.ToString() + " without a known value range");
    }
    if (k.range == 0 || k.range > limit63) throw NotOnGpu("GROUP BY " + g->ToString() + ": a value range above 63 bits");
    if (word_packed.back() > limit63 / k.range) word_packed.push_back(1);
    k.word = (int)word_packed.size() - 1;
    k.stride = word_packed.back();
    word_packed.back() *= k.range;
    key_values.push_back(c ? Need(L, g->index) + "[i]" : Expr(*g, L));
    prog_.keys.push_back(k);
  }
  const int K = (int)word_packed.size();
  if (K > 4) throw NotOnGpu("GROUP BY keys wider than four 63-bit words");
  prog_.key_words = K;
  const uint64_t packed = word_packed[0];
  prog_.hashed = K > 1 || packed > (1ull << 24);
  if (prog_.hashed) {
    // Rows for twice the estimated groups (at least 4096, at most twice the scanned rows
    // or the packed range): the executor grows the table when the kernel finds it full.
    double est = a.estimated_groups > 0 ? a.estimated_groups : 1e6;
    double cap = std::min({std::max(2 * est, 4096.0), 2.0 * std::max<double>((double)prog_.rows, 2048),
                           K == 1 ? (double)packed * 2 : 1e300});
    if (const char* e = std::getenv("TESSERA_GPU_GROUP_ROWS")) cap = std::max(std::atof(e), 2.0);  // tests: force growth
    uint64_t slots = 1;
    while ((double)slots < cap && slots < (1ull << 40)) slots <<= 1;
    prog_.slots = slots;
    prog_.table_full_error = Error("the GPU group hash table is full", true);
  } else {
    prog_.slots = packed;
  }
  // State words: count, then each aggregate, then the row counts of conditional ones.
  prog_.words = {AggWord::Count};
  prog_.agg_count_word.assign(a.aggs.size(), 0);
  // Update entries: one per aggregate (values[k], words from entry_word[k]; empty: the
  // group's row count serves), then one per conditional aggregate counting its rows
  // (entry_agg null: an int, 0 or 1).
  std::vector<std::string> values;
  std::vector<int> entry_word;
  std::vector<const BoundExpr*> entry_agg;
  std::vector<std::string> counted;  // conditions of the conditional aggregates, in order
  // Sums of 32-bit values, each row seen once, fewer than 2^32 rows: a group's sum stays
  // below 2^63 in magnitude, so the low word, added to modulo 2^64 by a fire-and-forget
  // atomic, holds it exactly (atomic_add_i128 waits for the old value to carry). Non-negative
  // values never carry; others leave the high word to tsr_sign_extend_sums.
  std::vector<bool> sum32(2 * a.aggs.size(), false), sum_nonneg(2 * a.aggs.size(), false);
  const bool rows_bounded = loop_ends_.empty() && prog_.rows > 0 && prog_.rows < (1ull << 32);
  // An aggregate's entry that counts rows: `value` is 0 or 1 a row, summed into a 128-bit
  // state (its low word alone while the rows are bounded: it never carries).
  auto counting_entry = [&](const std::string& value) {
    prog_.agg_word.push_back((int)prog_.words.size());
    entry_word.push_back((int)prog_.words.size());
    prog_.words.push_back(AggWord::SumLo);
    prog_.words.push_back(AggWord::SumHi);
    sum32[values.size()] = rows_bounded;
    sum_nonneg[values.size()] = true;
    values.push_back(value);
  };
  for (size_t ai = 0; ai < a.aggs.size(); ai++) {
    const BoundExpr* ag = a.aggs[ai];
    const std::string& n = ag->name;  // GpuSupport: COUNT, SUM, AVG, MIN, MAX, BOOL_AND, BOOL_OR, COUNT_IF without DISTINCT
    const BoundExpr* arg = ag->children.empty() ? nullptr : ag->children[0].get();
    entry_agg.push_back(ag);
    const BoundExpr *cond_e = nullptr, *then_e = nullptr;
    if (arg && ConditionalArgument(*arg, &cond_e, &then_e)) {
      const std::string cond = Expr(*cond_e, L);
      if (n == "count") {
        // COUNT(CASE WHEN c THEN x END): the rows where c holds (x is never NULL here), summed
        // into a state of their own.
        const std::string x = Expr(*then_e, L);
        entry_agg.back() = nullptr;  // its values are 0 or 1, whatever x's type
        counting_entry("((" + cond + ") ? ((void)(" + x + "), 1) : 0)");
        continue;
      }
      if (CountsTrueRows(n)) {
        // bool_and / bool_or / count_if: the TRUE rows where c holds, and those rows.
        counting_entry("((" + cond + ") && (" + Expr(*then_e, L) + ") ? 1 : 0)");
        counted.push_back(cond);
        prog_.agg_count_word[ai] = -(int)counted.size();
        continue;
      }
      const Type& in = arg->type;
      std::string v = Expr(*then_e, L);
      if (DeviceCType(in) == "__int128")
        v = "tsr_fit64(" + v + ", err, " +
            std::to_string(Error(n + " over a " + in.ToString() + " value beyond 64 bits (not on the GPU yet)", true)) + ")";
      prog_.agg_word.push_back((int)prog_.words.size());
      entry_word.push_back((int)prog_.words.size());
      if (n == "sum" || n == "avg") {
        if (in.id == TypeId::Double) {
          prog_.words.push_back(AggWord::SumF64);
          values.push_back("((" + cond + ") ? (double)(" + v + ") : -0.0)");  // -0.0: x + -0.0 == x for every x
        } else {
          prog_.words.push_back(AggWord::SumLo);
          prog_.words.push_back(AggWord::SumHi);
          const ColumnDomain d = Domain(*then_e, L);
          sum32[values.size()] = rows_bounded && DeviceCType(in) == "int";
          sum_nonneg[values.size()] = d.has_range && d.lo >= 0;
          values.push_back("((" + cond + ") ? (" + v + ") : 0)");
        }
      } else {
        const bool mn = n == "min";
        prog_.words.push_back(mn ? AggWord::Min : AggWord::Max);
        values.push_back("((" + cond + ") ? (long long)(" + v + ") : " +
                         (mn ? "0x7fffffffffffffffLL" : "(-0x7fffffffffffffffLL - 1)") + ")");
      }
      counted.push_back(cond);
      prog_.agg_count_word[ai] = -(int)counted.size();  // its count's word, once placed
      continue;
    }
    if (n == "count" && arg->kind == BExpr::Column && layers_[L][arg->index].nullable) {
      // COUNT of a left join's build column: the rows that found a build row, summed into
      // a state of their own.
      const Col& c = layers_[L][arg->index];
      prog_.agg_word.push_back((int)prog_.words.size());
      entry_word.push_back((int)prog_.words.size());
      prog_.words.push_back(AggWord::SumLo);
      prog_.words.push_back(AggWord::SumHi);
      values.push_back("(" + probes_[c.probe].slot_var + "[i] >= 0 ? 1LL : 0LL)");
      continue;
    }
    if (n == "count_star" || n == "count") {
      // No NULLs on the GPU: COUNT(x) = COUNT(*). An expression is still evaluated for the
      // rows counted: where it would be NULL (a zero divisor) its error hands the query back.
      if (n == "count") {
        const std::string x = Expr(*ag->children[0], L);
        if (ag->children[0]->kind != BExpr::Column && ag->children[0]->kind != BExpr::Constant) ForItems("(void)(" + x + ");");
      }
      prog_.agg_word.push_back(0);                  // the group's row count
      entry_word.push_back(0);
      values.push_back("");
      continue;
    }
    if (CountsTrueRows(n)) {
      // bool_and / bool_or / count_if: the group's TRUE rows (its rows are its count: no
      // NULLs on the GPU), finished as the CPU's group table does.
      counting_entry("((" + Expr(*ag->children[0], L) + ") ? 1 : 0)");
      continue;
    }
    prog_.agg_word.push_back((int)prog_.words.size());
    entry_word.push_back((int)prog_.words.size());
    const Type& in = ag->children[0]->type;
    std::string v = Expr(*ag->children[0], L);

    if (n == "sum" || n == "avg") {
      if (in.id == TypeId::Double) {
        prog_.words.push_back(AggWord::SumF64);
      } else {
        prog_.words.push_back(AggWord::SumLo);
        prog_.words.push_back(AggWord::SumHi);
        const ColumnDomain d = Domain(*ag->children[0], L);
        sum32[values.size()] = rows_bounded && DeviceCType(in) == "int";
        sum_nonneg[values.size()] = d.has_range && d.lo >= 0;
        // Values of 64 bits cannot overflow the 128-bit sum; a wider one (DECIMAL above 18
        // digits), whose sum the CPU checks add by add, hands the query back to the CPU.
        if (DeviceCType(in) == "__int128")
          v = "tsr_fit64(" + v + ", err, " +
              std::to_string(Error(n + " over a " + in.ToString() + " value beyond 64 bits (not on the GPU yet)", true)) + ")";
      }
    } else {
      prog_.words.push_back(n == "min" ? AggWord::Min : AggWord::Max);
      // A 128-bit value (DECIMAL above 18 digits) is compared in a 64-bit word while it
      // fits; one that does not hands the query back to the CPU.
      if (DeviceCType(in) == "__int128")
        v = "tsr_fit64(" + v + ", err, " +
            std::to_string(Error(n + " over a " + in.ToString() + " value beyond 64 bits (not on the GPU yet)", true)) + ")";
    }
    values.push_back(v);
  }
  // The conditional aggregates' row counts.
  for (size_t ai = 0; ai < a.aggs.size(); ai++) {
    if (prog_.agg_count_word[ai] >= 0) continue;
    const std::string& cond = counted[(size_t)(-prog_.agg_count_word[ai] - 1)];
    prog_.agg_count_word[ai] = (int)prog_.words.size();
    entry_word.push_back((int)prog_.words.size());
    entry_agg.push_back(nullptr);
    prog_.words.push_back(AggWord::SumLo);
    prog_.words.push_back(AggWord::SumHi);
    sum32[values.size()] = rows_bounded;
    sum_nonneg[values.size()] = true;
    values.push_back("((" + cond + ") ? 1 : 0)");
  }
  if (prog_.hashed && K == 1) prog_.words.push_back(AggWord::Key);
  if (K > 1) {
    for (int j = 0; j < K; j++) prog_.words.push_back(AggWord::KeyWord);
    prog_.words.push_back(AggWord::Ready);
  }
  const int W = (int)prog_.words.size();
  if (W > 32) throw NotOnGpu("more than 32 aggregation state words (aggregates and key words)");
  auto update = [&](const std::string& st) {
    std::string s = "atomicAdd(" + st + ", 1ull);";
    for (size_t k = 0; k < values.size(); k++) {
      if (values[k].empty()) continue;
      int w = entry_word[k];
      std::string at = st + " + " + std::to_string(w);
      switch (prog_.words[w]) {
        case AggWord::SumLo:
          if (sum32[k]) {
            s += " atomicAdd(" + at + ", (u64)(long long)" + values[k] + ");";
            if (!sum_nonneg[k]) prog_.sign_extend_words |= 1u << w;
          } else {
            s += " atomic_add_i128(" + at + ", " + SumValue(entry_agg[k], values[k]) + ");";
          }
          break;
        case AggWord::SumF64: s += " atomic_add_f64(" + at + ", (double)" + values[k] + ");"; break;
        case AggWord::Min: s += " atomic_min_i64(" + at + ", (long long)" + values[k] + ");"; break;
        case AggWord::Max: s += " atomic_max_i64(" + at + ", (long long)" + values[k] + ");"; break;
        default: break;
      }
    }
    return s;
  };
  const std::string W_s = std::to_string(W);
  if (a.groups.empty()) {
    // Registers per thread, one block reduction, one atomic per word per block.
    prologue_ += "  u64 acc_count = 0;\n";
    std::string add = "acc_count++;";
    epilogue_ += "  acc_count = BlockReduce<BT>(acc_count, SumU64());\n";
    std::string flush = "atomicAdd(state, acc_count);";
    for (size_t k = 0; k < values.size(); k++) {
      if (values[k].empty()) continue;
      int w = entry_word[k];
      std::string acc = "acc" + std::to_string(k), at = "state + " + std::to_string(w);
      switch (prog_.words[w]) {
        case AggWord::SumLo:
          if ((!entry_agg[k] || DeviceCType(entry_agg[k]->children[0]->type) == "int") && loop_ends_.empty() &&
              prog_.rows > 0 && prog_.rows < (1ull << 32)) {
            // 32-bit values, each row seen once, fewer than 2^32 rows: a thread's sum stays
            // below 2^63 in magnitude, so it adds in 64 bits and widens once at the end.
            prologue_ += "  long long " + acc + "_64 = 0;\n";
            add += " " + acc + "_64 += (long long)" + values[k] + ";";
            epilogue_ += "  I128 " + acc + " = BlockReduce<BT>(tsr_i128(" + acc + "_64), SumI128());\n";
          } else {
            prologue_ += "  I128 " + acc + " = {0ull, 0ll};\n";
            add += " i128_add(" + acc + ", " + SumValue(entry_agg[k], values[k]) + ");";
            epilogue_ += "  " + acc + " = BlockReduce<BT>(" + acc + ", SumI128());\n";
          }
          flush += " atomic_add_i128(" + at + ", " + acc + ");";
          break;
        case AggWord::SumF64:
          prologue_ += "  double " + acc + " = 0;\n";
          add += " " + acc + " += (double)" + values[k] + ";";
          epilogue_ += "  " + acc + " = BlockReduce<BT>(" + acc + ", SumF64());\n";
          flush += " atomic_add_f64(" + at + ", " + acc + ");";
          break;
        case AggWord::Min:
        case AggWord::Max: {
          bool mn = prog_.words[w] == AggWord::Min;
          prologue_ += "  long long " + acc + " = " + (mn ? "0x7fffffffffffffffLL" : "(-0x7fffffffffffffffLL - 1)") + ";\n";
          add += " " + acc + " = " + (mn ? "min(" : "max(") + acc + ", (long long)" + values[k] + ");";
          epilogue_ += "  " + acc + " = BlockReduce<BT>(" + acc + (mn ? ", MinI64());\n" : ", MaxI64());\n");
          flush += std::string(" atomic_") + (mn ? "min" : "max") + "_i64(" + at + ", " + acc + ");";
          break;
        }
        default: break;
      }
    }
    ForItems(add);
    epilogue_ += "  if (threadIdx.x == 0) { " + flush + " }\n";
    return;
  }
  // Grouped: the packed key words. A direct-mapped table of 32-bit keys (fewer than 2^24
  // slots) takes the slot in 32-bit arithmetic: each key's offset is below its range, so
  // the differences taken modulo 2^32 are exact.
  bool keys32 = !prog_.hashed;
  for (const BoundExpr* g : a.groups) keys32 = keys32 && DeviceCType(g->type) == "int";
  std::vector<std::string> gids(K, keys32 ? "0u" : "(u64)0");
  for (size_t k = 0; k < a.groups.size(); k++) {
    int p_lo = ConstParam((uint64_t)prog_.keys[k].lo), p_stride = ConstParam(prog_.keys[k].stride);
    gids[prog_.keys[k].word] += keys32 ? " + ((unsigned)(" + key_values[k] + ") - (unsigned)" + PV(p_lo) + ") * (unsigned)" + PV(p_stride)
                                       : " + " + PackedOffset(key_values[k], PV(p_lo)) + " * " + PV(p_stride);
  }
  if (keys32) gids[0] = "(u64)(" + gids[0] + ")";
  const std::string gid = gids[0];
  if (prog_.hashed) {
    // The table's size is a run-time parameter: growing it needs no new kernel.
    int p_mask = Param([&prog = prog_] { return prog.slots - 1; });
    int p_fill = Param([&prog = prog_] { return (uint64_t)prog.fill.ptr(); });
    int p_limit = Param([&prog = prog_] { return std::max<uint64_t>(prog.slots / 4 * 3, 1); });
    std::string find;
    if (K == 1) {
      find = "u64* st = tsr_group_row(state, " + PV(p_mask) + ", " + W_s + ", " + gid + ", (u64*)" + PV(p_fill) + ", " +
             PV(p_limit) + ");";
    } else {
      find = "u64 kw[" + std::to_string(K) + "] = {";
      for (int j = 0; j < K; j++) find += (j ? ", " : "") + gids[j];
      find += "}; u64* st = tsr_group_row_wide(state, " + PV(p_mask) + ", " + W_s + ", " + std::to_string(K) +
              ", kw, (u64*)" + PV(p_fill) + ", " + PV(p_limit) + ");";
    }
    ForItems(find + " if (!st) tsr_fail(err, " + std::to_string(prog_.table_full_error) + "); else { " + update("st") + " }");
    return;
  }
  // Few groups: a per-block table in shared memory, merged into the global one at the end.
  const uint64_t slots = prog_.slots;
  prog_.shared_state = slots * W * 8 <= 16384;
  if (prog_.shared_state) {
    int p_slots = ConstParam(slots);
    std::vector<int> pat;
    prologue_ += "  extern __shared__ u64 sh[];\n  const u64 nslots = " + PV(p_slots) + ";\n";
    prologue_ += "  for (u64 x = threadIdx.x; x < nslots * " + W_s + "; x += BT) {\n    const int w = (int)(x % " + W_s + ");\n";
    for (int w = 0; w < W; w++) {
      uint64_t init = prog_.words[w] == AggWord::Min ? (uint64_t)INT64_MAX : prog_.words[w] == AggWord::Max ? (uint64_t)INT64_MIN : 0;
      prologue_ += "    if (w == " + std::to_string(w) + ") sh[x] = " + std::to_string(init) + "ull;\n";
    }
    prologue_ += "  }\n  __syncthreads();\n";
    // At most 16 groups and 8 state words: warp-aggregated. Many rows of a warp then update
    // the same slot, and shared-memory atomics on one address serialise. The warp takes its
    // groups one at a time: the lanes of that group reduce each state word with shuffles,
    // and lane 0 adds the total with one atomic. Every lane of the warp runs this (not only
    // selected ones). Measured at TPC-H SF20 on the H100 (6 slots: l_returnflag,
    // l_linestatus): count(*) 3.1 -> 0.87 ms, two sums 5.4 -> 4.0 ms, three averages 6.5 ->
    // 5.5 ms; but q01's 15 state words 26.0 -> 31.6 ms and q09's 175 groups 16.7 -> 19.5 ms
    // (the shuffles per group and word cost more than the atomics they save), so those keep
    // an atomic per row and word.
    if (slots > 16 || W > 8) {
      ForItems("u64* st = sh + (" + gid + ") * " + W_s + "; " + update("st"));
    } else {
    std::string w_body = "  #pragma unroll\n  for (int i = 0; i < IPT; ++i) {\n    u64 g = ~0ull;\n    if (sel[i]) g = " + gid +
                         ";\n    for (unsigned todo = __ballot_sync(0xffffffffu, sel[i]); todo;) {\n"
                         "      const u64 lead = __shfl_sync(0xffffffffu, g, __ffs(todo) - 1);\n"
                         "      const bool mine = sel[i] && g == lead;\n      const unsigned peers = __ballot_sync(0xffffffffu, mine);\n"
                         "      u64* st = sh + lead * " + W_s + ";\n      const bool lane0 = (threadIdx.x & 31) == 0;\n"
                         "      if (lane0) atomicAdd(st, (u64)__popc(peers));\n";
    for (size_t k = 0; k < values.size(); k++) {
      if (values[k].empty()) continue;
      const int w = entry_word[k];
      const std::string at = "st + " + std::to_string(w), x = "x" + std::to_string(k);
      switch (prog_.words[w]) {
        case AggWord::SumLo:
          w_body += "      { I128 " + x + " = {0ull, 0ll}; if (mine) " + x + " = " + SumValue(entry_agg[k], values[k]) + "; " + x +
                    " = WarpReduce(" + x + ", SumI128()); if (lane0) atomic_add_i128(" + at + ", " + x + "); }\n";
          break;
        case AggWord::SumF64:
          w_body += "      { double " + x + " = 0; if (mine) " + x + " = (double)" + values[k] + "; " + x + " = WarpReduce(" + x +
                    ", SumF64()); if (lane0) atomic_add_f64(" + at + ", " + x + "); }\n";
          break;
        case AggWord::Min:
        case AggWord::Max: {
          const bool mn = prog_.words[w] == AggWord::Min;
          w_body += "      { long long " + x + " = " + (mn ? "0x7fffffffffffffffLL" : "(-0x7fffffffffffffffLL - 1)") + "; if (mine) " +
                    x + " = (long long)" + values[k] + "; " + x + " = WarpReduce(" + x + (mn ? ", MinI64()" : ", MaxI64()") +
                    "); if (lane0) atomic_" + (mn ? "min" : "max") + "_i64(" + at + ", " + x + "); }\n";
          break;
        }
        default: break;
      }
    }
    w_body += "      todo &= ~peers;\n    }\n  }\n";
    body_ += w_body;
    }
    epilogue_ += "  __syncthreads();\n  for (u64 s = threadIdx.x; s < nslots; s += BT) {\n";
    epilogue_ += "    const u64* src = sh + s * " + W_s + "; u64* dst = state + s * " + W_s + ";\n    if (!src[0]) continue;\n    atomicAdd(dst, src[0]);\n";
    for (int w = 1; w < W; w++) {
      std::string ws = std::to_string(w);
      switch (prog_.words[w]) {
        case AggWord::SumLo: epilogue_ += "    { I128 x; x.lo = src[" + ws + "]; x.hi = (long long)src[" + ws + " + 1]; atomic_add_i128(dst + " + ws + ", x); }\n"; break;
        case AggWord::SumF64: epilogue_ += "    atomic_add_f64(dst + " + ws + ", __longlong_as_double((long long)src[" + ws + "]));\n"; break;
        case AggWord::Min: epilogue_ += "    atomic_min_i64(dst + " + ws + ", (long long)src[" + ws + "]);\n"; break;
        case AggWord::Max: epilogue_ += "    atomic_max_i64(dst + " + ws + ", (long long)src[" + ws + "]);\n"; break;
        default: break;
      }
    }
    epilogue_ += "  }\n";
  } else {
    ForItems("u64* st = state + (" + gid + ") * " + W_s + "; " + update("st"));
  }
}

void Generator::Run(const ir::Pipeline& p) {
  Support support = GpuSupport(p);
  if (!support.ok) throw NotOnGpu(support.reason);
  size_t done = 0;
  if (p.source.kind == ir::Source::Kind::TableScan) {
    Source(p.source.scan, RawStringColumns(p));
    done = ScanPrefix(p);
  } else if (p.source.rows) {
    RowSource(p.source);
  } else {
    GroupSource(p.source);
  }
  for (size_t oi = done; oi < p.steps.size(); oi++) {
    const ir::Step& op = p.steps[oi];
    int L = (int)layers_.size() - 1;
    switch (op.kind) {
      case ir::Step::Kind::Filter: Predicate(*op.predicate, L); break;
      case ir::Step::Kind::Project: {
        std::vector<Col> cols;
        for (const BoundExpr* e : op.exprs) {
          if (e->kind == BExpr::Column) {
            cols.push_back(layers_[L][e->index]);  // same column, same registers
            continue;
          }
          Col c;
          c.type = e->type;
          c.kind = Col::Computed;
          c.expr = e;
          c.below = L;
          c.domain = Domain(*e, L);
          cols.push_back(std::move(c));
        }
        layers_.push_back(std::move(cols));
        break;
      }
      case ir::Step::Kind::Probe: AddProbeLayer(EmitProbe(op, L)); break;
      default: throw InternalError("GpuSupport let through a step it cannot generate");
    }
  }
  if (p.sink.kind == ir::Sink::Kind::JoinBuild) BuildSink(p.sink);
  else if (p.sink.kind == ir::Sink::Kind::Aggregate) AggregateSink(p.sink);
  else MaterialiseSink(p.sink);
  for (size_t l = loop_ends_.size(); l-- > 0;) body_ += loop_ends_[l];
  if (eager_at_ != std::string::npos) body_.insert(eager_at_, eager_);
  prog_.expands = !loop_ends_.empty();
  std::string k;
  k += "#define BT " + std::to_string(kBlockThreads) + "\n#define IPT " + std::to_string(ItemsPerThread()) + "\n";
  k += "struct Params { unsigned long long v[" + std::to_string(prog_.params.size()) + "]; };\n";
  k += "extern \"C\" __global__ void __launch_bounds__(BT" + MinBlocksBound() + ") tsr_pipeline(const Params p) {\n";
  k += "  const long long n = (long long)" + PV(kParamRows) + ";\n  int* err = (int*)" + PV(kParamErr) +
       ";\n  u64* state = (u64*)" + PV(kParamState) + ";\n";
  k += "  (void)err; (void)state;\n" + prologue_;
  k += "  const long long tiles = (n + BT * IPT - 1) / (BT * IPT);\n";
  k += "  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {\n";
  k += "  const long long tb = tile * (BT * IPT) + threadIdx.x;  // row of item i: tb + i * BT\n  bool sel[IPT];\n";
  // The rows of the tile past its first, in 32 bits (each item's test one comparison).
  k += "  const int tile_rows = n - tile * (BT * IPT) < BT * IPT ? (int)(n - tile * (BT * IPT)) : BT * IPT;\n";
  k += "  #pragma unroll\n  for (int i = 0; i < IPT; ++i) sel[i] = (int)threadIdx.x + i * BT < tile_rows;\n";
  k += body_ + "  }\n" + epilogue_ + "}\n";
  prog_.kernel_body = k;
  prog_.source = TileLibrarySourceFor(k) + k;
}

}  // namespace

// TESSERA_GPU_MIN_BLOCKS=N: the kernels ask ptxas for registers for N resident blocks a
// multiprocessor (", N" in __launch_bounds__); measured, not a default.
std::string MinBlocksBound() {
  static const std::string bound = [] {
    const char* e = std::getenv("TESSERA_GPU_MIN_BLOCKS");
    const int n = e ? std::atoi(e) : 0;
    return n >= 1 && n <= 32 ? ", " + std::to_string(n) : std::string();
  }();
  return bound;
}

bool EagerLoads() {
  static const bool eager = [] {
    const char* e = std::getenv("TESSERA_GPU_EAGER");
    return !(e && std::string(e) == "0");
  }();
  return eager;
}

bool EagerPlainLoads() {
  static const bool all = [] {
    const char* e = std::getenv("TESSERA_GPU_EAGER");
    return e && std::string(e) == "all";
  }();
  return all;
}

int ItemsPerThread() {
  static const int ipt = [] {
    const char* e = std::getenv("TESSERA_GPU_ITEMS");
    int v = e ? std::atoi(e) : kItemsPerThread;
    return v >= 1 && v <= 16 ? v : kItemsPerThread;
  }();
  return ipt;
}

std::unique_ptr<PipelineProgram> GeneratePipeline(const ir::Pipeline& p, GpuTables& tables, const GpuResults& results,
                                                  const ChainedJoins& chained) {
  auto prog = std::make_unique<PipelineProgram>();
  prog->ir = &p;
  Generator g(*prog, tables, results, chained);
  g.Run(p);
  if (prog->is_build) tables[prog->join] = prog->table;
  return prog;
}

}  // namespace tessera::gpu
