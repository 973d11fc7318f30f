#include "gpu/gpu_executor.hpp"
#include "common/stopwatch.hpp"

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "common/interrupt.hpp"
#include "common/parallel.hpp"
#include "gpu/cuda_driver.hpp"
#include "gpu/gpu_context.hpp"
#include "gpu/kernel_cache.hpp"
#include "gpu/nvrtc.hpp"

namespace tessera::gpu {

namespace {
using Clock = std::chrono::steady_clock;

// Copies `bytes` of `src` into a process-wide pinned buffer (grown as needed) and calls
// use(pointer) while holding it: device-to-host copies into pageable memory go at a
// fraction of the pinned rate (anchors.md).
template <class F>
void PinnedDownload(GpuContext& ctx, const DeviceBuffer& src, size_t bytes, F use) {
  static std::mutex mu;
  static PinnedHostBuffer* buf = new PinnedHostBuffer();  // never freed: outlives static destruction
  std::lock_guard<std::mutex> g(mu);
  if (buf->size() < bytes) *buf = ctx.AllocatePinned(std::max<size_t>(bytes, 4u << 20));
  if (bytes) src.CopyToHost(buf->data(), bytes);
  use(static_cast<const uint64_t*>(buf->data()));
}
// The host copy of the error words (see RunProgram), taken under its mutex.
std::mutex& ErrWordsMutex() {
  static std::mutex mu;
  return mu;
}
PinnedHostBuffer& ErrWords() {
  static auto* buf = new PinnedHostBuffer();  // never freed: outlives static destruction
  return *buf;
}
// Timing events are reused across queries: creating and destroying them costs more than
// recording them.
std::mutex event_mu;
std::vector<Event>& EventPool() {
  static auto* pool = new std::vector<Event>();  // never destroyed (events outlive static destruction)
  return *pool;
}
Event TakeEvent(GpuContext& ctx) {
  std::lock_guard<std::mutex> g(event_mu);
  auto& pool = EventPool();
  if (pool.empty()) return ctx.CreateEvent();
  Event e = std::move(pool.back());
  pool.pop_back();
  return e;
}
void GiveEvent(Event e) {
  std::lock_guard<std::mutex> g(event_mu);
  EventPool().push_back(std::move(e));
}
}  // namespace

// ORDER BY ... LIMIT over the groups of the aggregation `prog` ends: the pipeline that
// reads the aggregate must be projections only (no HAVING: a filter could drop groups of
// the top n) into a TOP_N sink whose first key is a column that maps to a group key of
// an integer type or to COUNT, SUM over integers or doubles, MIN or MAX over integers.
// NULL placement (NULLS LAST by default, NULLS FIRST) plays no part: columns on the GPU
// have no NULLs, so neither group keys nor these aggregates are ever NULL here.
std::optional<TopNHint> FindTopN(const ir::Query& query, const PipelineProgram& prog) {
  const ir::Sink* agg = prog.agg;
  for (const ir::Pipeline& q : query.pipelines) {
    if (q.source.kind != ir::Source::Kind::Intermediate || q.source.from != agg->node) continue;
    if (q.sink.kind != ir::Sink::Kind::Order) return std::nullopt;
    const ir::Sink& order = q.sink;
    if (order.limit < 0 || order.orders.empty() || order.orders[0].expr->kind != BExpr::Column) return std::nullopt;
    int col = order.orders[0].expr->index;
    // Back through the projections to the aggregate's output column.
    for (size_t i = q.steps.size(); i-- > 0;) {
      const ir::Step& st = q.steps[i];
      if (st.kind != ir::Step::Kind::Project) return std::nullopt;
      const auto& e = *st.exprs[col];
      if (e.kind != BExpr::Column) return std::nullopt;
      col = e.index;
    }
    TopNHint h;
    h.desc = order.orders[0].desc;
    h.n = (uint64_t)order.limit;
    h.what = order.orders[0].expr->ToString() + (h.desc ? " DESC" : " ASC");
    const size_t nk = agg->groups.size();
    if ((size_t)col < nk) {
      TypeId t = prog.keys[col].type.id;
      if (t == TypeId::Varchar || t == TypeId::Double) return std::nullopt;  // keep collation questions on the CPU
      h.kind = 0;
      h.key_index = col;
      // Keys over several words: the key's word in the state row.
      if (prog.key_words > 1) h.word = (int)prog.words.size() - 1 - prog.key_words + prog.keys[col].word;
      return h;
    }
    const size_t a = (size_t)col - nk;
    if (a >= agg->aggs.size()) return std::nullopt;
    const std::string& name = agg->aggs[a]->name;
    const int w = prog.agg_word[a];
    if (name != "count" && prog.agg_count_word[a]) return std::nullopt;  // NULL where no row qualified
    h.word = w;
    if (name == "count" || name == "count_star") h.kind = 1;
    else if ((name == "min" || name == "max") && (prog.words[w] == AggWord::Min || prog.words[w] == AggWord::Max)) h.kind = 1;
    else if (name == "sum" && prog.words[w] == AggWord::SumLo) h.kind = 2;
    else if (name == "sum" && prog.words[w] == AggWord::SumF64) h.kind = 3;
    else return std::nullopt;
    return h;
  }
  return std::nullopt;
}

// Below this many groups to drop, the pre-selection's passes cost more than the download.
constexpr uint64_t kTopNMinSaving = 4096;

// The compacted group rows `rows` (n of them, W + 1 words each) that can be in the top
// prog.top_n->n by the first ORDER BY key: order keys, a radix select for a threshold no
// larger than the n-th largest key (8 bits a pass; it stops once the threshold's bucket
// holds few rows), then a compacted copy of the rows at or above it. Updates n.
DeviceBuffer SelectTopN(GpuContext& ctx, CompiledKernel& kernel, const PipelineProgram& prog, const DeviceBuffer& rows,
                        uint64_t& n) {
  const TopNHint& h = *prog.top_n;
  const int W1 = (int)prog.words.size() + 1;
  const unsigned blocks = (unsigned)std::max<uint64_t>(1, std::min<uint64_t>((n + 255) / 256, (uint64_t)ctx.info().sm_count * 8));
  DeviceBuffer u = ctx.Allocate(n * 8);
  const GroupKeyPlan* kp = h.kind == 0 ? &prog.keys[h.key_index] : nullptr;
  const uint64_t stride = kp ? kp->stride : 1, range = kp ? kp->range : 1;
  const int key_mode = prog.key_words > 1 ? 2 : prog.hashed ? 1 : 0;  // where a group key is (tsr_order_keys)
  ctx.LaunchKernel(kernel.lib->order_keys, blocks, 256, 0, nullptr, rows.ptr(), (uint64_t)n, W1, h.kind, h.word, stride, range,
                   key_mode, (int)h.desc, u.ptr());
  DeviceBuffer hist = ctx.Allocate(256 * 8);
  uint64_t need = h.n, prefix = 0, mask = 0, bucket = n;
  for (int shift = 56; shift >= 0; shift -= 8) {
    hist.MemsetAsync(0, nullptr);
    ctx.LaunchKernel(kernel.lib->radix_hist, blocks, 256, 0, nullptr, u.ptr(), (uint64_t)n, shift, mask, prefix, hist.ptr());
    uint64_t count[256];
    hist.CopyToHost(count, sizeof count);
    // The digit of the need-th largest key among the rows with this prefix.
    uint64_t above = 0;
    int b = 255;
    for (; b > 0 && above + count[b] < need; b--) above += count[b];
    need -= above;
    prefix |= (uint64_t)b << shift;
    mask |= 255ull << shift;
    bucket = count[b];
    if (bucket <= kTopNMinSaving) break;
  }
  // Rows at or above the threshold: those of higher digits (h.n - need) and the bucket's.
  const uint64_t keep = h.n - need + bucket;
  DeviceBuffer out = ctx.Allocate(std::max<uint64_t>(keep, 1) * W1 * 8), count = ctx.Allocate(8);
  count.MemsetAsync(0, nullptr);
  ctx.LaunchKernel(kernel.lib->select_rows, blocks, 256, 0, nullptr, rows.ptr(), (uint64_t)n, W1, u.ptr(), prefix, out.ptr(),
                   count.ptr());
  count.CopyToHost(&n, 8);
  if (n != keep) throw InternalError("GPU top-N selection kept " + std::to_string(n) + " groups, expected " + std::to_string(keep));
  return out;
}

std::string GpuUnavailable() {
  std::string why;
  if (!CudaDriver::Instance().Available(&why)) return why;
  if (!NvrtcCompiler::Instance().Available(&why)) return why;
  return "";
}

std::thread OpenGpuInBackground() {
  return std::thread([] {
    try {
      if (GpuUnavailable().empty()) GpuContext::Shared();
    } catch (const std::exception&) {
      // Reported by the query that needs the GPU (GpuContext::Shared retries and rethrows).
    }
  });
}

bool UseGpu(const std::string& device) {
  if (device == "cpu") return false;
  std::string why = GpuUnavailable();
  if (why.empty()) return true;
  if (device == "gpu") throw UserError(ErrorKind::Unsupported, "device 'gpu' was asked for but no GPU can be used: " + why);
  return false;
}

// A LIMIT without ORDER BY over a table keeps the table's first rows (DuckDB's insertion
// order), which the CPU's scan keeps and the GPU's compaction does not: such a pipeline
// runs on the GPU only where which rows it keeps cannot matter, an uncorrelated EXISTS (a
// keyless semi, anti or mark join builds on its rows and reads no column). Returns why
// pipeline i stays on the CPU, or nullptr.
static const char* OrderedLimitWhy(const std::vector<ir::Pipeline>& irp, size_t i) {
  if (irp[i].sink.kind != ir::Sink::Kind::Limit || irp[i].source.kind != ir::Source::Kind::TableScan) return nullptr;
  for (size_t j = i + 1; j < irp.size(); j++) {
    if (irp[j].source.kind != ir::Source::Kind::Intermediate || irp[j].source.from != irp[i].sink.node) continue;
    const ir::Sink& k = irp[j].sink;
    if (k.kind == ir::Sink::Kind::JoinBuild && k.build.keys.empty() && !k.build.residual &&
        (k.build.type == LJoinType::Semi || k.build.type == LJoinType::Anti || k.build.type == LJoinType::Mark))
      return nullptr;
  }
  return "a LIMIT without ORDER BY over a table keeps the table's first rows on the CPU";
}

struct GpuQuery::Timing {
  Event start, end;
  Pipeline* pipeline = nullptr;
};

GpuQuery::GpuQuery(PipelineSet& ps, ChainedJoins chained) : pipelines_(ps), ir_(ir::Lower(ps)), chained_(std::move(chained)) {
  const auto& pl = ps.pipelines();
  const auto& irp = ir_.pipelines;
  programs_.resize(pl.size());
  why_cpu_.resize(pl.size());
  // The pipeline that probes each join (its build pipeline's consumer).
  std::map<ir::NodeId, size_t> consumer;
  for (size_t i = 0; i < irp.size(); i++)
    for (const ir::Step& st : irp[i].steps)
      if (st.kind == ir::Step::Kind::Probe) consumer[st.join] = i;
  // GPU aggregations, for the pipelines that read their groups (generated after them).
  GpuResults results;
  for (size_t i = 0; i < irp.size(); i++) {
    if (const char* why = OrderedLimitWhy(irp, i)) {
      why_cpu_[i] = why;
      continue;
    }
    try {
      programs_[i] = GeneratePipeline(irp[i], tables_, results, chained_);
      if (programs_[i]->agg || programs_[i]->out) results[irp[i].sink.node] = programs_[i].get();
    } catch (const NotOnGpu& e) {
      why_cpu_[i] = e.what();
    }
  }
  // Sorted or limited rows stay in device memory: such a sink runs on the GPU only when the
  // pipeline that reads its rows does; a build only when its consumer does. Dropping one
  // pipeline can drop another (a build that reads limited rows, whose consumer is on the
  // CPU), so both rules run until nothing changes (last to first, so a chain ends as a whole).
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = pl.size(); i-- > 0;) {
      auto& prog = programs_[i];
      if (!prog || !prog->out || irp[i].sink.kind == ir::Sink::Kind::Result) continue;
      bool read_on_gpu = false;
      for (size_t j = i + 1; j < irp.size(); j++)
        if (irp[j].source.kind == ir::Source::Kind::Intermediate && irp[j].source.from == irp[i].sink.node)
          read_on_gpu = programs_[j] != nullptr;
      if (!read_on_gpu) {
        why_cpu_[i] = "the pipeline that reads its rows runs on the CPU";
        prog.reset();
        changed = true;
      }
    }
    // A build runs on the GPU only when its consumer does; drop the others (last to first, so
    // a dropped consumer's builds are seen after it).
    for (size_t i = pl.size(); i-- > 0;) {
      auto& prog = programs_[i];
      if (!prog || !prog->is_build) continue;
      auto c = consumer.find(prog->join);
      if (c == consumer.end() || !programs_[c->second]) {
        why_cpu_[i] = "its probe side runs on the CPU";
        tables_.erase(prog->join);
        prog.reset();
        changed = true;
      }
    }
  }
  // Second pass over the builds: now that their probe kernels are generated, each table
  // stores only the build columns its probe side reads (narrower slots, fewer sectors).
  for (auto& [join, table] : tables_) table->read_known = true;
  for (size_t i = 0; i < pl.size(); i++)
    if (programs_[i] && programs_[i]->is_build) programs_[i] = GeneratePipeline(irp[i], tables_, results, chained_);
  // An aggregation read by a GPU pipeline keeps its groups in device memory (no download,
  // no CPU group table); one read by a CPU pipeline hands them over as before.
  for (auto& p : programs_)
    if (p && p->from_agg) const_cast<PipelineProgram*>(p->from_agg)->resident = true;
  for (size_t i = 0; i < pl.size(); i++)
    if (programs_[i] && !programs_[i]->is_build && !programs_[i]->keys.empty() && !programs_[i]->resident)
      programs_[i]->top_n = FindTopN(ir_, *programs_[i]);
  for (size_t i = 0; i < pl.size(); i++) {
    if (programs_[i]) {
      pl[i]->device = "gpu";
      pl[i]->gpu_read_widths = programs_[i]->scan_widths;
      stats_.gpu_pipelines++;
    } else if (irp[i].source.kind == ir::Source::Kind::TableScan) {
      stats_.cpu_scan_pipelines++;
    }
  }
}

GpuQuery::~GpuQuery() {
  // Pool blocks are reused at once: let the device finish before this query's buffers go.
  if (ran_) {
    try {
      GpuContext::Shared().Synchronize();
    } catch (...) {
    }
  }
}

std::string GpuQuery::DeviceLabel() const {
  if (!stats_.gpu_pipelines) return "cpu";
  return stats_.cpu_scan_pipelines ? "gpu+cpu" : "gpu";
}

// A probing pipeline's join filters by key range (RangeTests), with the tiles the last run
// skipped once it ran (read back here: EXPLAIN ANALYZE).
static std::string RangeTestText(const PipelineProgram& pr) {
  if (!pr.range_tests) return "";
  if (!pr.skipped.empty()) pr.skipped.CopyToHost(&pr.last_skipped, 8);
  return "; tiles tested against " + std::to_string(pr.range_tests) + " join key range" + (pr.range_tests > 1 ? "s" : "") +
         (pr.last_skipped != UINT64_MAX
              ? " (last run: " + std::to_string(pr.last_skipped) + " of " + std::to_string(pr.tiles) + " tiles skipped)"
              : std::string());
}

std::string GpuQuery::Describe() const {
  std::string s;
  const auto& pl = pipelines_.pipelines();
  for (size_t i = 0; i < pl.size(); i++) {
    if (programs_[i] && programs_[i]->out) {
      auto& pr = *programs_[i];
      const GpuRowSet& rs = *pr.out;
      std::string what;
      for (auto& k : rs.key_what) what += (what.empty() ? "" : ", ") + k;
      const ir::Sink& sk = *pr.materialise;
      s += "pipeline " + std::to_string(pl[i]->id) + " on the GPU: one kernel, " +
           (pr.from_agg ? "reading the groups of pipeline " + std::to_string(pr.from_agg->ir->id) + " in device memory, "
            : pr.from_rows ? "reading the rows of pipeline " + std::to_string(pr.from_rows->ir->id) + " in device memory, "
                           : std::string()) +
           (sk.kind == ir::Sink::Kind::Order
                ? "rows of " + std::to_string(rs.row_words) + " words sorted on the GPU by " + what +
                      " (radix sort over " + std::to_string(rs.key_words) + " order words)" +
                      (sk.limit >= 0 ? ", the first " + std::to_string(sk.limit) + " kept" : "")
            : sk.kind == ir::Sink::Kind::Limit ? "rows kept from " + std::to_string(rs.offset) +
                                                     (rs.limit == UINT64_MAX ? std::string() : ", at most " + std::to_string(rs.limit))
                                               : std::string("rows copied back as the result")) +
           (rs.ordered && sk.kind != ir::Sink::Kind::Order ? " (in order)" : "") + "\n";
    } else if (programs_[i]) {
      auto& pr = *programs_[i];
      s += "pipeline " + std::to_string(pl[i]->id) + " on the GPU: one kernel, " +
           (pr.from_agg ? std::string("reading the groups of pipeline ") + std::to_string(pr.from_agg->ir->id) +
                              " in device memory, "
                        : std::string()) +
           (pr.is_build ? std::string(pr.table->dense ? "direct-mapped" : "open-addressing") + " hash table of " +
                              std::to_string(pr.table->range) + " slots" + (pr.table->keys_only ? " (keys only)" : "") +
                              (pr.table->presence ? " with a presence bitmap" : "") +
                              (pr.table->chained ? " chaining every build row (duplicate keys kept for the residual)" : "") +
                              (pr.table->counted ? ", rows claimed by a counter (built inside another join's match loop)" : "")
                        : (pr.keys.empty() ? std::string("no groups (block reduction)")
                           : pr.hashed       ? "group hash table of " + std::to_string(pr.slots) +
                                                 " rows (open addressing, global atomics; grown when full)"
                                             : std::to_string(pr.slots) + " group slots" +
                                                 (pr.shared_state ? " (per-block tables in shared memory)" : " (global atomics)"))) +
           (pr.top_n ? "; ORDER BY " + pr.top_n->what + " LIMIT " + std::to_string(pr.top_n->n) +
                           ": the groups that can be in it are selected on the GPU when there are many" +
                           (pr.top_n->last_in ? " (last run: " + std::to_string(pr.top_n->last_out) + " of " +
                                                    std::to_string(pr.top_n->last_in) + " groups kept)"
                                              : std::string())
                     : std::string()) +
           (pr.resident ? "; the groups stay in device memory" : "") + RangeTestText(pr) + "\n";
    } else if (!why_cpu_[i].empty()) {
      s += "pipeline " + std::to_string(pl[i]->id) + " on the CPU: " + why_cpu_[i] + "\n";
    }
  }
  // The table columns the GPU pipelines read, with their device size (packed or plain).
  std::vector<const CachedColumn*> cols;
  for (auto& p : programs_)
    if (p)
      for (auto& c : p->columns)
        if (std::find(cols.begin(), cols.end(), c.get()) == cols.end()) cols.push_back(c.get());
  if (!cols.empty()) {
    size_t device = 0, plain = 0;
    for (const CachedColumn* c : cols) device += c->device_bytes(), plain += c->plain_bytes();
    char total[96];
    std::snprintf(total, sizeof total, "%.1f MiB on the device (%.1f MiB plain)", device / 1048576.0, plain / 1048576.0);
    s += "device columns: " + std::string(total) + "\n";
    for (const CachedColumn* c : cols)
      s += "  " + c->table + "." + c->name + ": " + c->SizeText() + (c->data.empty() ? "" : ", resident") + "\n";
  }
  return s;
}

std::vector<PipelinePlacement> GpuQuery::Placement() const {
  std::vector<PipelinePlacement> out;
  const auto& pl = pipelines_.pipelines();
  for (size_t i = 0; i < pl.size(); i++) {
    PipelinePlacement p;
    p.id = pl[i]->id;
    p.plan = pl[i]->ToString();
    while (!p.plan.empty() && p.plan.back() == '\n') p.plan.pop_back();
    p.gpu = programs_[i] != nullptr;
    if (!p.gpu) p.reason = why_cpu_[i];  // every pipeline not on the GPU has its reason (GpuSupport or generation)
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<KernelCompilation> GpuQuery::CompileWithoutDevice(int sm_major, int sm_minor) const {
  std::string why;
  if (!NvrtcCompiler::Instance().Available(&why))
    throw UserError(ErrorKind::Unsupported, "kernels cannot be compiled here: " + why);
  std::vector<KernelCompilation> out;
  const auto& pl = pipelines_.pipelines();
  for (size_t i = 0; i < pl.size(); i++) {
    if (!programs_[i]) continue;
    KernelCompilation k;
    k.pipeline = pl[i]->id;
    k.kernel_body = programs_[i]->kernel_body;
    try {
      std::vector<char> cubin = KernelCache::Compile(programs_[i]->source, sm_major, sm_minor, &k.ms);
      k.cubin_bytes = cubin.size();
      k.ok = !cubin.empty();
      if (!k.ok) k.error = "NVRTC produced no cubin";
    } catch (const std::exception& e) {
      k.error = e.what();
    }
    out.push_back(std::move(k));
  }
  return out;
}

std::string GpuQuery::Kernels() const {
  std::string s;
  const auto& pl = pipelines_.pipelines();
  for (size_t i = 0; i < pl.size(); i++)
    if (programs_[i])
      s += "// pipeline " + std::to_string(pl[i]->id) + " (" + std::to_string(programs_[i]->params.size()) +
           " parameter words; the part of the tile library it uses precedes it)\n" + programs_[i]->kernel_body;
  return s;
}

std::vector<std::string> GpuQuery::Sources() const {
  std::vector<std::string> out;
  for (auto& p : programs_)
    if (p) out.push_back(p->source);
  return out;
}

std::vector<std::string> GpuQuery::KernelBodies() const {
  std::vector<std::string> out;
  for (auto& p : programs_)
    if (p) out.push_back(p->kernel_body);
  return out;
}

void GpuQuery::Run(unsigned threads) {
  auto to = Clock::now();
  GpuContext& ctx = GpuContext::Shared();
  const double open_ms = MsSince(to);
  ctx.MakeCurrent();
  // A run after an earlier one (a cached plan): that run ended synchronised, or threw;
  // either way let the device finish before its buffers are reused.
  if (ran_) {
    ctx.Synchronize();
    ReleaseRunBuffers();
  }
  ran_ = true;
  const int gpu_pipelines = stats_.gpu_pipelines, cpu_scans = stats_.cpu_scan_pipelines;
  stats_ = GpuQueryStats();
  stats_.open_ms = open_ms;
  stats_.gpu_pipelines = gpu_pipelines;
  stats_.cpu_scan_pipelines = cpu_scans;
  ColumnCache::Instance().BeginQuery();
  err_ = ctx.Allocate(programs_.size() * sizeof(int));
  err_.MemsetAsync(0, nullptr);  // all work goes to the legacy default stream, in order
  counts_ = ctx.Allocate(programs_.size() * 16);
  counts_.MemsetAsync(0, nullptr);
  // TESSERA_GPU_TRACE=1: the host's time per step of a run on stderr (measurements).
  static const bool trace = [] {
    const char* e = std::getenv("TESSERA_GPU_TRACE");
    return e && std::string(e) == "1";
  }();
  std::string steps;
  auto step = [&](const char* what, size_t i, Clock::time_point since) {
    if (!trace) return;
    char b[64];
    std::snprintf(b, sizeof b, " %s%zu %.3f", what, i, MsSince(since));
    steps += b;
  };
  auto t0 = Clock::now();
  PrepareKernels(ctx);
  step("prep", 0, t0);
  const auto& pl = pipelines_.pipelines();
  const std::atomic<bool>* interrupt = CurrentInterruptFlag();  // common/interrupt.hpp
  for (size_t i = 0; i < pl.size(); i++) {
    CheckInterrupt(interrupt);
    t0 = Clock::now();
    if (programs_[i]) RunProgram(*programs_[i], i);
    else RunPipeline(*pl[i], threads);
    step(programs_[i] ? "gpu" : "cpu", i, t0);
  }
  // The last GPU program's download (a result, an aggregation's groups) synchronised the
  // device: the join tables, states and rows are free to go back to the pool.
  t0 = Clock::now();
  if (!timings_.empty()) {
    ctx.Synchronize();
    CollectTimings();
  }
  ReleaseRunBuffers();
  step("end", 0, t0);
  if (trace) std::fprintf(stderr, "gpu run: %.3f ms, kernels %.3f ms;%s ms\n", MsSince(to), stats_.kernel_ms, steps.c_str());
}

void GpuQuery::ReleaseRunBuffers() {
  for (auto& t : timings_) {
    GiveEvent(std::move(t->start));
    GiveEvent(std::move(t->end));
  }
  timings_.clear();
  for (auto& p : programs_) {
    if (!p) continue;
    p->state = DeviceBuffer();
    p->fill = DeviceBuffer();
    if (p->table) {
      p->table->table = DeviceBuffer();
      p->table->keys = DeviceBuffer();
      p->table->heads = DeviceBuffer();
      p->table->bits = DeviceBuffer();
    }
    if (p->out) {
      p->out->rows = DeviceBuffer();
      p->out->keys = DeviceBuffer();
      p->out->scratch.clear();
    }
  }
  err_ = DeviceBuffer();
  counts_ = DeviceBuffer();
}

void GpuQuery::RaiseErrors(const std::vector<int>& errs) {
  for (size_t i = 0; i < errs.size(); i++) {
    if (!errs[i]) continue;
    auto& p = *programs_[i];
    if (errs[i] < 0 || errs[i] > (int)p.errors.size()) throw InternalError("GPU kernel error id " + std::to_string(errs[i]));
    if (p.is_build && errs[i] == p.duplicate_error) throw GpuFallback(p.errors[errs[i] - 1], p.join);
    if (p.error_is_fallback[errs[i] - 1]) throw GpuFallback(p.errors[errs[i] - 1]);
    throw UserError(ErrorKind::Conversion, p.errors[errs[i] - 1]);
  }
}

void GpuQuery::CollectTimings() {
  GpuContext& ctx = GpuContext::Shared();
  for (auto& t : timings_) {
    float ms = ctx.ElapsedMs(t->start, t->end);
    stats_.kernel_ms += ms;
    t->pipeline->elapsed_ms = ms;
    GiveEvent(std::move(t->start));
    GiveEvent(std::move(t->end));
  }
  timings_.clear();
}

void GpuQuery::LaunchPipeline(PipelineProgram& prog, size_t index) {
  GpuContext& ctx = GpuContext::Shared();
  // Columns (cold: upload once; again when evicted meanwhile, e.g. before a re-run).
  auto tt = Clock::now();
  for (auto& c : prog.columns) AddUpload(*c, ctx);
  stats_.transfer_ms += MsSince(tt);
  CompiledKernel& kernel = *prog.kernel;
  const int W = (int)prog.words.size();
  std::vector<uint64_t> params(prog.params.size());
  const uint64_t rows = prog.SourceItems();
  params[kParamRows] = rows;
  params[kParamErr] = err_.ptr() + index * sizeof(int);
  params[kParamState] = prog.state.ptr();
  for (size_t i = kFixedParams; i < params.size(); i++) params[i] = prog.params[i]();
  const uint64_t tile = (uint64_t)kBlockThreads * ItemsPerThread();
  uint64_t tiles = std::max<uint64_t>((rows + tile - 1) / tile, 1);
  unsigned shared = prog.shared_state ? (unsigned)(prog.slots * W * 8) : 0;
  // One full wave of blocks, each looping over tiles: no under-filled second wave, and one
  // block-end flush per resident block.
  if (!kernel.blocks_per_sm) kernel.blocks_per_sm = ctx.MaxActiveBlocksPerSM(kernel.pipeline, kBlockThreads, shared);
  unsigned grid = (unsigned)std::min<uint64_t>(tiles, (uint64_t)ctx.info().sm_count * kernel.blocks_per_sm);
  auto timing = std::make_unique<Timing>();
  timing->start = TakeEvent(ctx);
  timing->end = TakeEvent(ctx);
  timing->pipeline = pipelines_.pipelines()[prog.ir->index].get();
  ctx.Record(timing->start);
  void* args[] = {params.data(), nullptr};
  ctx.Launch(kernel.pipeline, grid, kBlockThreads, shared, args);
  ctx.Record(timing->end);
  timings_.push_back(std::move(timing));
}

void GpuQuery::AddUpload(CachedColumn& c, GpuContext& ctx) {
  const size_t moved = ColumnCache::Instance().EnsureResident(c, ctx);
  if (!moved) return;
  stats_.transfer_bytes += moved;
  stats_.column_bytes += c.device_bytes();
}

void GpuQuery::PrepareKernels(GpuContext& ctx) {
  // The kernels not compiled yet (cold: the first run of a plan), one per distinct source.
  std::map<std::string, std::vector<PipelineProgram*>> todo;
  for (auto& p : programs_)
    if (p && !p->kernel) todo[p->source].push_back(p.get());
  if (todo.empty()) return;
  std::vector<std::pair<const std::string*, std::vector<PipelineProgram*>*>> work;
  for (auto& [source, progs] : todo) work.push_back({&source, &progs});
  // All of them at once, one host thread each (NVRTC compiles one program per thread), while
  // this thread uploads the columns every program reads (the staged upload's own threads).
  // compile_ms: the wall time until every kernel was ready, when NVRTC compiled any (0
  // when all came from the kernel cache, as before).
  std::exception_ptr error;
  double wall_ms = 0;
  std::atomic<bool> compiled{false};
  std::thread compiler([&] {
    auto tc = Clock::now();
    try {
      // One more task: the library module (its generic kernels), needed by every kernel.
      ParallelFor(work.size() + 1, (unsigned)work.size() + 1, [&](uint64_t i, unsigned) {
        if (i == work.size()) {
          double ms = 0;
          KernelCache::Instance().Library(ctx, &ms);
          if (ms > 0) compiled = true;
          return;
        }
        KernelLookup k = KernelCache::Instance().Get(*work[i].first, ctx);
        if (k.compile_ms > 0) compiled = true;
        for (PipelineProgram* p : *work[i].second) p->kernel = k.kernel;
      });
    } catch (...) {
      error = std::current_exception();
    }
    wall_ms = MsSince(tc);
  });
  auto tt = Clock::now();
  try {
    for (auto& p : programs_)
      if (p)
        for (auto& c : p->columns) AddUpload(*c, ctx);
  } catch (...) {
    compiler.join();
    throw;
  }
  stats_.transfer_ms += MsSince(tt);
  compiler.join();
  if (compiled) stats_.compile_ms += wall_ms;
  if (error) std::rethrow_exception(error);
}

void GpuQuery::RunProgram(PipelineProgram& prog, size_t index) {
  GpuContext& ctx = GpuContext::Shared();
  // The compiled kernel (PrepareKernels); its columns are made resident at each launch
  // (again when evicted meanwhile).
  if (!prog.kernel) throw InternalError("GPU pipeline run without its kernel");
  CompiledKernel& kernel = *prog.kernel;
  // Dictionary bitmaps: uploaded once (they depend on the plan's constants only).
  if (prog.bitmap_buffers.size() != prog.bitmaps.size()) {
    prog.bitmap_buffers.clear();
    for (auto& b : prog.bitmaps) {
      prog.bitmap_buffers.push_back(ctx.Allocate(b.size() * 4));
      prog.bitmap_buffers.back().CopyFromHostAsync(b.data(), b.size() * 4, nullptr);  // b lives as long as the query
    }
  }
  // Tiles skipped by join key ranges (RangeTests): counted per run.
  if (prog.range_tests) {
    if (prog.skipped.empty()) prog.skipped = ctx.Allocate(8);
    prog.skipped.MemsetAsync(0, nullptr);
  }
  const int W = (int)prog.words.size();
  if (prog.out) {
    RunMaterialise(prog, index);
    return;
  }
  if (prog.is_build) {
    auto& t = *prog.table;
    if (t.bounded) {
      // min = INT64_MAX, max = INT64_MIN: an empty build side skips every probing tile.
      static const int64_t kEmptyRange[2] = {INT64_MAX, INT64_MIN};
      if (t.bounds.empty()) t.bounds = ctx.Allocate(16);
      t.bounds.CopyFromHostAsync(kEmptyRange, 16, nullptr);
    }
    // Over an aggregation's groups: an open-addressing table for at least twice the groups
    // it can have (a hashed aggregation may have grown beyond its plan).
    if (prog.from_agg && !t.dense)
      while (t.range < 2 * prog.from_agg->groups_bound) t.range <<= 1;
    if (t.range >= (1ull << 31)) throw GpuFallback("join build side above 2^31 hash slots");
    if (t.chained) {
      // One row per item of the build input (rows of the scan, slots of the groups, rows
      // materialised), heads per key slot.
      t.capacity = prog.SourceItems();
      if (t.capacity >= (1ull << 31)) throw GpuFallback("a chained join build side of 2^31 rows or more");
      t.table = ctx.Allocate(std::max<uint64_t>(t.capacity, 1) * t.stride * 4);
      t.heads = ctx.Allocate(std::max<uint64_t>(t.range, 1) * 4);
      t.heads.MemsetAsync(0, nullptr);
      pipelines_.pipelines()[prog.ir->index]->gpu_table_bytes =
          (double)std::max<uint64_t>(t.capacity, 1) * t.stride * 4 + (double)std::max<uint64_t>(t.range, 1) * (t.dense ? 4 : 12);
      if (!t.dense) {
        t.keys = ctx.Allocate(t.range * 8);
        t.keys.MemsetAsync(0xff, nullptr);
      }
      if (t.counted) t.count = counts_.ptr() + index * 16;
      LaunchPipeline(prog, index);
      if (t.counted) {
        // Built inside another join's match loop: more rows than input items may have
        // come; the kernel counted them all. When they outgrew the table, build again into
        // a table of that many rows.
        uint64_t seen = 0;
        counts_.CopyToHost(&seen, 8, index * 16);
        if (seen > t.capacity) {
          t.capacity = seen;
          if (t.capacity >= (1ull << 31)) throw GpuFallback("a chained join build side of 2^31 rows or more");
          t.table = ctx.Allocate(t.capacity * t.stride * 4);
          t.heads.MemsetAsync(0, nullptr);
          if (!t.dense) t.keys.MemsetAsync(0xff, nullptr);
          const uint64_t zero = 0;
          counts_.CopyFromHost(&zero, 8, index * 16);
          pipelines_.pipelines()[prog.ir->index]->gpu_table_bytes =
              (double)t.capacity * t.stride * 4 + (double)std::max<uint64_t>(t.range, 1) * (t.dense ? 4 : 12);
          LaunchPipeline(prog, index);
        }
      }
      return;
    }
    // A set of keys with a presence bitmap is the bitmap alone (the codegen never touches
    // its table).
    const uint64_t table_bytes = t.keys_only && t.presence ? 4 : std::max<uint64_t>(t.range, 1) * t.stride * 4;
    t.table = ctx.Allocate(table_bytes);
    pipelines_.pipelines()[prog.ir->index]->gpu_table_bytes = (double)table_bytes + (t.presence ? (double)t.PresenceBytes() : 0);
    if (t.presence) {
      t.bits = ctx.Allocate(t.PresenceBytes());
      t.bits.MemsetAsync(0, nullptr);
    }
    if (t.dense) {
      t.table.MemsetAsync(0, nullptr);
    } else {
      t.keys = ctx.Allocate(t.range * 8);
      t.keys.MemsetAsync(0xff, nullptr);
    }
    LaunchPipeline(prog, index);
    return;  // the probe kernel follows on the same stream
  }
  std::vector<uint64_t> rows;  // per group: slot, then W words
  uint64_t ngroups = 0;
  uint64_t all_groups = 0;  // set when the top-N selection kept fewer
  for (int attempt = 0;; attempt++) {
    prog.state = DeviceBuffer();
    try {
      prog.state = ctx.Allocate(prog.slots * W * 8);
    } catch (const CudaError& e) {
      if (!prog.hashed) throw;
      // A group table larger than the device has room for: the CPU aggregates instead.
      throw GpuFallback("no GPU memory for a group hash table of " + std::to_string(prog.slots) + " rows (" + e.what() + ")");
    }
    if (prog.hashed) {
      if (prog.fill.empty()) prog.fill = ctx.Allocate(8);
      prog.fill.MemsetAsync(0, nullptr);
    }
    pipelines_.pipelines()[prog.ir->index]->gpu_table_bytes = (double)prog.slots * W * 8;
    StatePattern pat{};
    for (int w = 0; w < W; w++)
      pat.w[w] = prog.words[w] == AggWord::Min ? (uint64_t)INT64_MAX : prog.words[w] == AggWord::Max ? (uint64_t)INT64_MIN : 0;
    uint64_t words = prog.slots * W;
    unsigned blocks = (unsigned)std::min<uint64_t>((words + 255) / 256, (uint64_t)ctx.info().sm_count * 8);
    ctx.LaunchKernel(kernel.lib->init_state, blocks, 256, 0, nullptr, prog.state.ptr(), words, W, pat);
    LaunchPipeline(prog, index);
    if (prog.sign_extend_words) {
      unsigned sblocks = (unsigned)std::min<uint64_t>((prog.slots + 255) / 256, (uint64_t)ctx.info().sm_count * 8);
      ctx.LaunchKernel(kernel.lib->sign_extend_sums, sblocks, 256, 0, nullptr, prog.state.ptr(), prog.slots, W,
                       prog.sign_extend_words);
    }
    // Aggregation result to the host, through a pinned buffer: a small state (up to 1 MiB)
    // in one copy, scanned here for non-empty groups; a larger one compacted on the device
    // first (non-empty groups only, one atomic per tile), then copied.
    // The error words come back with the result: queued before its (synchronous) download,
    // into a process-wide pinned buffer (allocating pinned memory per query costs more than
    // the copy), held until they are read.
    const size_t err_bytes = programs_.size() * sizeof(int);
    std::unique_lock<std::mutex> err_lock(ErrWordsMutex());
    PinnedHostBuffer& err_host = ErrWords();
    if (err_host.size() < err_bytes) err_host = ctx.AllocatePinned(std::max<size_t>(err_bytes, 4096));
    err_.CopyToHostAsync(err_host.data(), err_bytes, nullptr);
    rows.clear();
    ngroups = 0;
    all_groups = 0;
    const uint64_t state_bytes = prog.slots * W * 8;
    if (prog.resident) {
      // The groups stay here for the GPU pipeline that reads them: only the error words
      // (and a hashed table's fill, a bound of its groups) come back.
      prog.groups_bound = prog.slots;
      if (prog.hashed) prog.fill.CopyToHost(&prog.groups_bound, 8);
      else ctx.Synchronize();
    } else if (prog.keys.empty() || state_bytes <= (1u << 20)) {
      PinnedDownload(ctx, prog.state, state_bytes, [&](const uint64_t* st) {
        for (uint64_t slot = 0; slot < prog.slots; slot++) {
          const uint64_t* g = st + slot * W;
          if (!prog.keys.empty() && g[0] == 0) continue;  // an empty group (no groups: always one row)
          rows.push_back(slot);
          rows.insert(rows.end(), g, g + W);
          ngroups++;
        }
      });
    } else {
      DeviceBuffer out = ctx.Allocate(prog.slots * (W + 1) * 8), count = ctx.Allocate(8);
      count.MemsetAsync(0, nullptr);
      unsigned cblocks = (unsigned)std::min<uint64_t>((prog.slots + 255) / 256, (uint64_t)ctx.info().sm_count * 8);
      ctx.LaunchKernel(kernel.lib->compact_groups, cblocks, 256, 0, nullptr, prog.state.ptr(), prog.slots, W, out.ptr(),
                       count.ptr());
      count.CopyToHost(&ngroups, 8);
      // ORDER BY ... LIMIT n over many groups: only the groups that can be in the top n
      // come back (the host's ORDER BY and LIMIT stay exact over them).
      if (prog.top_n && ngroups > prog.top_n->n + kTopNMinSaving) {
        prog.top_n->last_in = all_groups = ngroups;
        out = SelectTopN(ctx, kernel, prog, out, ngroups);
        prog.top_n->last_out = ngroups;
      }
      PinnedDownload(ctx, out, ngroups * (W + 1) * 8, [&](const uint64_t* r) { rows.assign(r, r + ngroups * (W + 1)); });
    }
    // Each program has its own error word; the id names a message of that program.
    std::vector<int> errs(programs_.size());
    std::memcpy(errs.data(), err_host.data(), err_bytes);
    err_lock.unlock();
    // A full group hash table: run the kernel again over a table four times larger (the
    // join tables it probes are still there), while that fits in a quarter of the memory.
    // Only when that is the one error: another (a build's duplicate key) means the input
    // itself is wrong, and the checks below hand the query back.
    bool only_full = prog.hashed && errs[index] == prog.table_full_error;
    for (size_t i = 0; i < errs.size() && only_full; i++) only_full = i == index || errs[i] == 0;
    if (only_full) {
      const uint64_t next = prog.slots * 4;
      // The next table and the compaction buffer of its size beside it, in half the free memory.
      if (attempt < 12 && next * (2 * W + 1) * 8 <= ctx.FreeMemory() / 2) {
        prog.slots = next;
        const int zero = 0;
        err_.CopyFromHost(&zero, sizeof zero, index * sizeof(int));
        continue;
      }
    }
    RaiseErrors(errs);
    break;
  }
  if (prog.resident) return;  // kernel times are read after a later download
  CollectTimings();
  // Into the aggregation's result, for the pipelines that read it (the CPU finalises: AVG,
  // SUM types, overflow checks).
  const ir::Sink& agg = *prog.agg;
  std::unique_ptr<ir::GroupResultWriter> table = agg.new_result();
  const size_t nk = prog.keys.size();
  std::vector<uint32_t> gids;
  for (uint64_t from = 0; from < ngroups; from += kVectorSize) {
    uint32_t n = (uint32_t)std::min<uint64_t>(kVectorSize, ngroups - from);
    std::vector<Vector> keys(nk);
    for (size_t k2 = 0; k2 < nk; k2++) {
      const auto& kp = prog.keys[k2];
      keys[k2].Init(kp.type, n);
      for (uint32_t r = 0; r < n; r++) {
        // The key's packed word: the slot of a direct-mapped table, a key word of a hashed one.
        const uint64_t* row = &rows[(from + r) * (W + 1)];
        const uint64_t word = prog.KeyWordOf(row + 1, row[0], kp.word);
        int64_t v = (int64_t)((uint64_t)kp.lo + (word / kp.stride) % kp.range);
        Value val;
        switch (kp.type.id) {
          case TypeId::Varchar: val = Value::Varchar(std::string((*kp.dict)[(size_t)v])); break;
          case TypeId::Integer: val = Value::Integer((int32_t)v); break;
          case TypeId::Date: val = Value::Date((int32_t)v); break;
          case TypeId::Timestamp: val = Value::Timestamp((int64_t)v); break;
          case TypeId::Boolean: val = Value::Boolean(v != 0); break;
          case TypeId::Decimal: val = Value::Decimal(v, kp.type.precision, kp.type.scale); break;
          default: val = Value::BigInt(v); break;
        }
        keys[k2].SetValue(r, val);
      }
    }
    table->FindOrCreate(keys, n, gids);
    for (uint32_t r = 0; r < n; r++) {
      const uint64_t* st = &rows[(from + r) * (W + 1) + 1];
      int64_t count = (int64_t)st[0];
      for (size_t a = 0; a < agg.aggs.size(); a++) {
        int w = prog.agg_word[a];
        const Type& in = agg.aggs[a]->children.empty() ? agg.aggs[a]->type : agg.aggs[a]->children[0]->type;
        int128_t isum = 0;
        double dsum = 0;
        Value ext;
        const Value* extp = nullptr;
        if (agg.aggs[a]->name == "count" && w != 0) {  // COUNT of a left join's build column, or conditional: its own sum
          table->SetState(a, gids[r], (int64_t)st[w], 0, 0, nullptr);
          continue;
        }
        // A conditional aggregate's own row count (NULL where 0).
        const int64_t taken = prog.agg_count_word[a] ? (int64_t)st[prog.agg_count_word[a]] : count;
        switch (prog.words[w]) {
          case AggWord::SumLo: isum = (int128_t)(((unsigned __int128)st[w + 1] << 64) | st[w]); break;
          case AggWord::SumF64: std::memcpy(&dsum, &st[w], 8); break;
          case AggWord::Min:
          case AggWord::Max:
            if (taken) {
              ext = in.id == TypeId::Decimal ? Value::Decimal((int64_t)st[w], in.precision, in.scale)
                  : in.id == TypeId::Integer ? Value::Integer((int32_t)(int64_t)st[w])
                  : in.id == TypeId::Date    ? Value::Date((int32_t)(int64_t)st[w])
                  : in.id == TypeId::Timestamp ? Value::Timestamp((int64_t)st[w])
                                             : Value::BigInt((int64_t)st[w]);
              extp = &ext;
            }
            break;
          default: break;
        }
        table->SetState(a, gids[r], taken, isum, dsum, extp);
      }
    }
  }
  // The aggregation produced every group, also those the top-N selection left on the device.
  table->Finish(all_groups);
  prog.state = DeviceBuffer();
}

// Sorts of at most this many rows run in one thread block, reading the row count on the
// device (no wait for it); larger ones wait for the count and run their passes over many
// blocks.
constexpr uint64_t kSmallSort = 16384;

void GpuQuery::RunMaterialise(PipelineProgram& prog, size_t index) {
  GpuContext& ctx = GpuContext::Shared();
  GpuRowSet& rs = *prog.out;
  const ir::Sink& sink = *prog.materialise;
  // One row per item of the source, unless a join expands rows (chained build keys): the
  // buffer then grows below.
  const uint64_t items = prog.SourceItems();
  rs.capacity = sink.kind == ir::Sink::Kind::Limit ? std::min(items, rs.limit) : items;
  rs.count = counts_.ptr() + index * 16;
  const uint64_t bytes = std::max<uint64_t>(rs.capacity, 1) * (rs.row_words + rs.key_words) * 8;
  try {
    rs.rows = ctx.Allocate(std::max<uint64_t>(rs.capacity, 1) * std::max(rs.row_words, 1) * 8);
    if (rs.key_words) rs.keys = ctx.Allocate(std::max<uint64_t>(rs.capacity, 1) * rs.key_words * 8);
  } catch (const CudaError& e) {
    throw GpuFallback("no GPU memory for " + std::to_string(rs.capacity) + " rows (" + e.what() + ")");
  }
  pipelines_.pipelines()[prog.ir->index]->gpu_table_bytes = (double)bytes;
  LaunchPipeline(prog, index);
  if (prog.expands) {
    // A join that expands rows (duplicate build keys) may have produced more than one row
    // per item: the kernel counted them all; when they outgrew the buffer, it runs again
    // over a buffer of that size.
    uint64_t seen = 0;
    counts_.CopyToHost(&seen, 8, rs.count - counts_.ptr());
    const uint64_t need = sink.kind == ir::Sink::Kind::Limit ? rs.Kept(seen) : seen;
    if (need > rs.capacity) {
      rs.capacity = need;
      try {
        rs.rows = ctx.Allocate(std::max<uint64_t>(rs.capacity, 1) * std::max(rs.row_words, 1) * 8);
        if (rs.key_words) rs.keys = ctx.Allocate(std::max<uint64_t>(rs.capacity, 1) * rs.key_words * 8);
      } catch (const CudaError& e) {
        throw GpuFallback("no GPU memory for " + std::to_string(rs.capacity) + " rows (" + e.what() + ")");
      }
      const uint64_t zero = 0;
      counts_.CopyFromHost(&zero, 8, rs.count - counts_.ptr());
      pipelines_.pipelines()[prog.ir->index]->gpu_table_bytes =
          (double)std::max<uint64_t>(rs.capacity, 1) * (rs.row_words + rs.key_words) * 8;
      LaunchPipeline(prog, index);
    }
  }
  if (sink.kind == ir::Sink::Kind::Order) SortRows(prog);
  if (sink.kind == ir::Sink::Kind::Result) DownloadResult(prog);
}

// The rows of an order/top-N sink in order: a stable radix sort of row numbers by their
// order words (the tile library's tsr_sort_*), then the first `limit` rows gathered.
void GpuQuery::SortRows(PipelineProgram& prog) {
  GpuContext& ctx = GpuContext::Shared();
  CompiledKernel& kernel = *prog.kernel;
  GpuRowSet& rs = *prog.out;
  const uint64_t cap = rs.capacity, limit = prog.materialise->limit < 0 ? UINT64_MAX : (uint64_t)prog.materialise->limit;
  const int KW = rs.key_words;
  const uint64_t seen = rs.count, sorted = rs.count + 8;
  DeviceBuffer perm_a = ctx.Allocate(std::max<uint64_t>(cap, 1) * 4), perm_b = ctx.Allocate(std::max<uint64_t>(cap, 1) * 4);
  const DeviceBuffer* perm = &perm_a;
  if (cap <= kSmallSort) {
    ctx.LaunchKernel(kernel.lib->sort_small, 1, 256, 0, nullptr, rs.keys.ptr(), KW, seen, cap, perm_a.ptr(), perm_b.ptr());
  } else {
    uint64_t n = 0;
    counts_.CopyToHost(&n, 8, seen - counts_.ptr());
    if (n > cap) throw InternalError("GPU sort input of " + std::to_string(n) + " rows, above its bound " + std::to_string(cap));
    if (n >= (1ull << 32)) throw GpuFallback("a sort of 2^32 rows or more");
    if (n <= kSmallSort) {
      // Few rows in a large buffer (an aggregation's non-empty groups out of its slots): the
      // one-block sort, one launch instead of a pass of three per key byte (SSB SF20 q3.2's
      // 600 groups of 437,500 slots: about 0.1 ms of host time saved).
      ctx.LaunchKernel(kernel.lib->sort_small, 1, 256, 0, nullptr, rs.keys.ptr(), KW, seen, n, perm_a.ptr(), perm_b.ptr());
    } else if (n > 1) {
      std::vector<uint64_t> mm(2 * KW);
      for (int w = 0; w < KW; w++) mm[2 * w] = UINT64_MAX, mm[2 * w + 1] = 0;
      DeviceBuffer mmd = ctx.Allocate(mm.size() * 8);
      mmd.CopyFromHost(mm.data(), mm.size() * 8);
      const unsigned blocks = (unsigned)std::min<uint64_t>((n + 255) / 256, (uint64_t)ctx.info().sm_count * 8);
      ctx.LaunchKernel(kernel.lib->sort_minmax, blocks, 256, 0, nullptr, rs.keys.ptr(), n, KW, mmd.ptr());
      mmd.CopyToHost(mm.data(), mm.size() * 8);
      ctx.LaunchKernel(kernel.lib->sort_iota, blocks, 256, 0, nullptr, perm_a.ptr(), n);
      // Blocks of contiguous chunks (a multiple of 256 rows each), a few per SM.
      const uint64_t nb = std::min<uint64_t>((n + 4095) / 4096, (uint64_t)ctx.info().sm_count * 4);
      const uint64_t chunk = ((n + nb - 1) / nb + 255) / 256 * 256;
      const unsigned grid = (unsigned)((n + chunk - 1) / chunk);
      DeviceBuffer hist = ctx.Allocate(256ull * grid * 4);
      const DeviceBuffer* in = &perm_a;
      const DeviceBuffer* out = &perm_b;
      for (int w = KW - 1; w >= 0; w--) {
        const uint64_t lo = mm[2 * w], span = mm[2 * w + 1] - lo;
        for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += 8) {
          ctx.LaunchKernel(kernel.lib->sort_hist, grid, 256, 0, nullptr, rs.keys.ptr(), KW, w, lo, shift, in->ptr(), n, chunk,
                           hist.ptr());
          ctx.LaunchKernel(kernel.lib->sort_scan, 1, 256, 0, nullptr, hist.ptr(), (int)grid);
          ctx.LaunchKernel(kernel.lib->sort_scatter, grid, 256, 0, nullptr, rs.keys.ptr(), KW, w, lo, shift, in->ptr(),
                           out->ptr(), n, chunk, hist.ptr());
          std::swap(in, out);
        }
      }
      perm = in;
      rs.scratch.push_back(std::move(mmd));
      rs.scratch.push_back(std::move(hist));
    } else {
      ctx.LaunchKernel(kernel.lib->sort_iota, 1, 256, 0, nullptr, perm_a.ptr(), n);
    }
  }
  const uint64_t m = std::min(cap, limit);
  DeviceBuffer rows = ctx.Allocate(std::max<uint64_t>(m, 1) * std::max(rs.row_words, 1) * 8);
  const unsigned blocks = (unsigned)std::max<uint64_t>(1, std::min<uint64_t>((m + 255) / 256, (uint64_t)ctx.info().sm_count * 8));
  ctx.LaunchKernel(kernel.lib->gather_rows, blocks, 256, 0, nullptr, rs.rows.ptr(), rs.row_words, perm->ptr(), seen, limit,
                   rows.ptr(), sorted);
  // The pool hands a freed block out again at once: what the kernels queued above read
  // stays allocated until the run's end (ReleaseRunBuffers, after the last wait).
  rs.scratch.push_back(std::move(perm_a));
  rs.scratch.push_back(std::move(perm_b));
  rs.scratch.push_back(std::move(rs.rows));
  rs.scratch.push_back(std::move(rs.keys));
  rs.rows = std::move(rows);
  rs.keys = DeviceBuffer();
  rs.count = sorted;
  rs.capacity = m;
}

// The result's rows to the host (one wait, with the error words and every row count), into
// the query's result collector; every GPU sink that materialised rows gets its count.
void GpuQuery::DownloadResult(PipelineProgram& prog) {
  GpuContext& ctx = GpuContext::Shared();
  GpuRowSet& rs = *prog.out;
  const size_t err_bytes = programs_.size() * sizeof(int), count_bytes = programs_.size() * 16;
  std::vector<int> errs(programs_.size());
  std::vector<uint64_t> counts(programs_.size() * 2);
  // A small result (at most 256 KiB of rows at its bound) comes down with the error words
  // and counts, in the same wait (one synchronisation a query instead of two).
  const int R = rs.row_words;
  const size_t early_bytes = (size_t)rs.capacity * (size_t)R * 8;
  const bool early = early_bytes <= (256u << 10);
  std::vector<uint64_t> early_rows;
  {
    std::unique_lock<std::mutex> err_lock(ErrWordsMutex());
    PinnedHostBuffer& host = ErrWords();
    const size_t at = (err_bytes + 15) / 16 * 16, rows_at = at + (count_bytes + 15) / 16 * 16;
    const size_t need = rows_at + (early ? early_bytes : 0);
    if (host.size() < need) host = ctx.AllocatePinned(std::max<size_t>(need, 4096));
    err_.CopyToHostAsync(host.data(), err_bytes, nullptr);
    counts_.CopyToHostAsync(static_cast<char*>(host.data()) + at, count_bytes, nullptr);
    if (early && early_bytes) rs.rows.CopyToHostAsync(static_cast<char*>(host.data()) + rows_at, early_bytes, nullptr);
    ctx.Synchronize();
    std::memcpy(errs.data(), host.data(), err_bytes);
    std::memcpy(counts.data(), static_cast<char*>(host.data()) + at, count_bytes);
    if (early && early_bytes) {
      const uint64_t* r = reinterpret_cast<const uint64_t*>(static_cast<char*>(host.data()) + rows_at);
      early_rows.assign(r, r + early_bytes / 8);
    }
  }
  RaiseErrors(errs);
  CollectTimings();
  auto kept_of = [&](const PipelineProgram& p) {
    const uint64_t word = (p.out->count - counts_.ptr()) / 8;
    return p.out->Kept(counts[word]);
  };
  for (auto& p : programs_)
    if (p && p->out && p.get() != &prog) p->materialise->new_rows()->Finish(kept_of(*p));
  const uint64_t n = kept_of(prog);
  if (n > rs.capacity) throw InternalError("GPU result of " + std::to_string(n) + " rows, above its bound");
  std::unique_ptr<ir::RowResultWriter> writer = prog.materialise->new_rows();
  auto take = [&](const uint64_t* rows) {
    for (uint64_t from = 0; from < n; from += kVectorSize) {
      const uint32_t m = (uint32_t)std::min<uint64_t>(kVectorSize, n - from);
      DataChunk ch;
      ch.cols.resize(rs.types.size());
      for (size_t c = 0; c < rs.types.size(); c++) {
        Vector& v = ch.cols[c];
        const Type& t = rs.types[c];
        v.Init(t, m);
        const uint64_t* w = rows + from * R + rs.word_of[c];
        switch (t.physical()) {
          case PhysType::I32:
            for (uint32_t r = 0; r < m; r++) v.data<int32_t>()[r] = (int32_t)(int64_t)w[(size_t)r * R];
            break;
          case PhysType::I64:
          case PhysType::F64: for (uint32_t r = 0; r < m; r++) std::memcpy(v.data<int64_t>() + r, &w[(size_t)r * R], 8); break;
          case PhysType::I128:
            for (uint32_t r = 0; r < m; r++)
              v.data<int128_t>()[r] = (int128_t)(((unsigned __int128)w[(size_t)r * R + 1] << 64) | w[(size_t)r * R]);
            break;
          case PhysType::Bool:
            for (uint32_t r = 0; r < m; r++) v.SetValue(r, Value::Boolean(w[(size_t)r * R] != 0));
            break;
          case PhysType::Str: {
            const auto& dict = *rs.domains[c].dict;
            for (uint32_t r = 0; r < m; r++) {
              const uint64_t code = w[(size_t)r * R];
              if (code >= dict.size()) throw InternalError("GPU result string code out of its dictionary");
              v.SetValue(r, Value::Varchar(std::string(dict[code])));
            }
            break;
          }
        }
      }
      ch.size = m;
      writer->Append(std::move(ch));
    }
  };
  if (early) take(early_rows.data());
  else PinnedDownload(ctx, rs.rows, n * R * 8, take);
  writer->Finish(n);
}

}  // namespace tessera::gpu
