#include "main/prepared_query.hpp"
#include "common/stopwatch.hpp"

#include <algorithm>
#include <chrono>

#include "common/interrupt.hpp"
#include "execution/physical_planner.hpp"
#include "execution/operators/basic_operators.hpp"
#include "execution/operators/hash_join.hpp"
#include "execution/operators/table_scan.hpp"
#include "gpu/gpu_executor.hpp"
#include "model/pipeline_traffic.hpp"
#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

PreparedQuery::PreparedQuery() = default;
PreparedQuery::~PreparedQuery() = default;
PreparedQuery::PreparedQuery(PreparedQuery&&) noexcept = default;
PreparedQuery& PreparedQuery::operator=(PreparedQuery&&) noexcept = default;

namespace {

enum class Target { Session, Cpu, Gpu };

// Plans for the device: the session's (the GPU where one is usable and asked for), the CPU
// alone, or the GPU (its query set up whether or not a GPU is usable here).
PreparedQuery Prepare(Database& db, const ast::SelectStmt& select, Target target, const std::set<int>& chained_joins,
                      const Binder::TableOverrides* overrides) {
  PreparedQuery q;
  auto t0 = Clock::now();
  Binder binder(db.catalog());
  binder.SetTableOverrides(overrides);
  binder.SetFileThreads(db.threads());
  q.bound = binder.BindSelect(select);
  q.cacheable = !binder.reads_files() && !binder.reads_clock() && !binder.draws_random() && !binder.reads_data();
  // Some plans are for the CPU only (Optimize's for_cpu).
  const bool gpu = target == Target::Gpu || (target == Target::Session && gpu::UseGpu(db.settings().device));
  q.bound.plan = Optimize(std::move(q.bound.plan), /*for_cpu=*/!gpu);
  q.plan = CreatePhysicalPlan(*q.bound.plan, db.settings().join_filters);
  q.pipelines = std::make_unique<PipelineSet>(q.plan.get());
  q.plan_ms = MsSince(t0);
  if (gpu) {
    t0 = Clock::now();
    q.gpu = std::make_unique<gpu::GpuQuery>(*q.pipelines, chained_joins);
    q.gpu_plan_ms = MsSince(t0);
  }
  return q;
}

}  // namespace

PreparedQuery PrepareSelect(Database& db, const ast::SelectStmt& select, bool allow_gpu, const std::set<int>& chained_joins,
                            const Binder::TableOverrides* overrides) {
  return Prepare(db, select, allow_gpu ? Target::Session : Target::Cpu, chained_joins, overrides);
}

PreparedQuery PrepareSelectForGpu(Database& db, const ast::SelectStmt& select) {
  return Prepare(db, select, Target::Gpu, {}, nullptr);
}


namespace {
// The join filters (execution/operators/join_filter.hpp) that the hash joins of op's subtree
// produce, op's own included.
void FiltersProduced(const PhysicalOperator& op, std::vector<const JoinKeyFilter*>& out) {
  if (op.kind == PhysKind::HashJoin)
    if (auto& f = static_cast<const PhysicalHashJoin&>(op).key_filter) out.push_back(f.get());
  for (auto& c : op.children) FiltersProduced(*c, out);
}
// Whether a scan of op's subtree takes a join filter that is not in `inside`.
bool FilteredFromOutside(const PhysicalOperator& op, const std::vector<const JoinKeyFilter*>& inside) {
  if (op.kind == PhysKind::TableScan)
    for (const auto& u : static_cast<const PhysicalTableScan&>(op).join_filters)
      if (std::find(inside.begin(), inside.end(), u.filter.get()) == inside.end()) return true;
  for (auto& c : op.children)
    if (FilteredFromOutside(*c, inside)) return true;
  return false;
}
// Whether a join filter from above (not produced by this join or below it) removed rows
// from the join's inputs: then its counts are not the plan's.
bool FilteredFromAbove(const PhysicalOperator& join) {
  std::vector<const JoinKeyFilter*> produced;
  FiltersProduced(join, produced);
  return FilteredFromOutside(join, produced);
}

// Each hash join the CPU counted, with its estimate; not those whose inputs a join filter
// from above reduced (their counts are not the plan's joins'). A join's own filter leaves
// its output as it is, but not its probe side's count: that one is not reported.
void CollectJoinRows(const PhysicalOperator& op, const std::map<const PhysicalOperator*, uint64_t>& actual,
                     std::vector<QueryResult::JoinRows>& out, const PhysicalOperator* emitter = nullptr) {
  const bool emits = op.kind == PhysKind::JoinUnmatched && op.children.size() == 1 &&
                     op.children[0]->kind == PhysKind::HashJoin;
  for (auto& c : op.children) CollectJoinRows(*c, actual, out, emits ? &op : nullptr);
  if (op.kind != PhysKind::HashJoin || FilteredFromAbove(op)) return;
  auto it = actual.find(emitter ? emitter : &op);
  if (it == actual.end()) return;
  QueryResult::JoinRows j;
  j.join = op.Details();
  j.estimated = op.estimated_rows;
  j.actual = it->second;
  j.inner = static_cast<const PhysicalHashJoin&>(op).join_type == LJoinType::Inner;
  const PhysicalOperator &probe = *op.children[0], &build = *op.children[1];
  j.probe_estimated = probe.estimated_rows;
  j.build_estimated = build.estimated_rows;
  auto p = actual.find(&probe), b = actual.find(&build);
  j.probe_actual = p != actual.end() ? p->second : 0;
  j.build_actual = b != actual.end() ? b->second : 0;
  if (static_cast<const PhysicalHashJoin&>(op).key_filter) {
    std::vector<const JoinKeyFilter*> others;
    FiltersProduced(probe, others);
    if (FilteredFromOutside(probe, others)) {  // its own filter reduced the probe side
      j.probe_estimated = -1;
      j.probe_actual = 0;
    }
  }
  out.push_back(std::move(j));
}
}  // namespace

QueryResult RunPrepared(Database& db, const ast::SelectStmt& select, PreparedQuery& q, bool free_state,
                        ResultConsumer* consumer) {
  auto t0 = Clock::now();
  // A plan that ran before: clear what that run left (also after a run that threw).
  ResetPlanState(*q.plan);
  q.pipelines->ResetState();
  if (consumer) consumer->Begin(q.bound.names, q.bound.types);
  // The CPU's result streams from its last pipeline; the GPU's is handed over once complete
  // (below), so that a query the GPU hands back to the CPU has streamed nothing yet.
  struct Attach {
    PhysicalResult* res = nullptr;
    ~Attach() {
      if (res) res->consumer = nullptr;  // a cached plan may next run unstreamed
    }
  } attach;
  auto run_on_cpu = [&] {
    attach.res = static_cast<PhysicalResult*>(q.plan.get());
    attach.res->consumer = consumer;
    attach.res->interrupt = CurrentInterruptFlag();
    q.pipelines->Execute(db.threads());
  };
  if (!q.gpu) {
    run_on_cpu();
  } else {
    // A join whose build side had duplicate keys: planned again with its table chained,
    // still on the GPU (the plan cache keeps that plan); any other case goes to the CPU.
    std::set<int> chained;
    for (;;) {
      try {
        q.gpu->Run(db.threads());
        break;
      } catch (const gpu::GpuFallback& e) {
        if (e.duplicate_join >= 0 && !chained.count(e.duplicate_join)) {
          chained.insert(e.duplicate_join);
          q = PrepareSelect(db, select, true, chained);
          if (q.gpu) continue;
        }
        q = PrepareSelect(db, select, false);
        q.fallback_note = std::string("the GPU handed the query back (") + e.what() + "); it ran on the CPU";
        run_on_cpu();
        break;
      }
    }
  }
  const double run_ms = MsSince(t0);
  t0 = Clock::now();
  QueryResult r;
  r.note = q.fallback_note;
  if (q.gpu) {
    const auto& st = q.gpu->stats();
    r.device = q.gpu->DeviceLabel();
    r.gpu_compile_ms = st.compile_ms;
    r.gpu_transfer_ms = st.transfer_ms;
    r.gpu_kernel_ms = st.kernel_ms;
    r.gpu_transfer_bytes = st.transfer_bytes;
    r.gpu_column_bytes = st.column_bytes;
    r.gpu_open_ms = st.open_ms;
  }
  r.pipelines = model::DescribeRuns(*q.pipelines);
  CollectJoinRows(*q.plan, q.pipelines->ActualRows(), r.joins);
  r.has_rows = true;
  r.names = q.bound.names;
  r.types = q.bound.types;
  auto* res = static_cast<PhysicalResult*>(q.plan.get());
  if (consumer) {
    if (!res->consumer) {  // the GPU's result
      res->consumer = consumer;
      res->interrupt = CurrentInterruptFlag();
      attach.res = res;
      res->Finalize();
    }
    r.row_count = res->streamed_rows;
  } else {
    r.row_count = res->result.rows;
    r.chunks = std::move(res->result.chunks);
  }
  // The run's state (hash tables, sorted rows) is not needed any more: free it now rather
  // than when the plan is run again or dropped from the cache.
  if (free_state) ResetPlanState(*q.plan);
  r.phases.plan_ms = q.plan_ms;
  r.phases.gpu_plan_ms = q.gpu_plan_ms;
  r.phases.run_ms = run_ms;
  r.phases.collect_ms = MsSince(t0);
  return r;
}

}  // namespace tessera
