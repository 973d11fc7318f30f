#include "execution/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>

#include "common/interrupt.hpp"
#include "common/parallel.hpp"
#include "execution/expression_executor.hpp"
#include "execution/operators/materialized.hpp"
#include "execution/selection.hpp"

namespace tessera {

Pipeline* PipelineSet::NewPipeline(PhysicalOperator* sink) {
  auto p = std::make_unique<Pipeline>();
  p->sink = sink;
  pipelines_.push_back(std::move(p));
  return pipelines_.back().get();
}

void PipelineSet::Build(PhysicalOperator* op, Pipeline* cur) {
  switch (op->kind) {
    case PhysKind::TableScan:
    case PhysKind::Dummy:
    case PhysKind::Values:
    case PhysKind::RecursiveCte:  // runs its own plans' pipelines (recursive_cte.hpp)
    case PhysKind::WorkingTable: cur->source = op; return;
    case PhysKind::JoinUnmatched:
      cur->source = op;
      if (!op->children.empty()) {  // RIGHT_SEMI/ANTI: the probe pipeline (sinking here) first
        Pipeline* probe = NewPipeline(op);
        Build(op->children[0].get(), probe);
        cur->dependencies.push_back(probe);
      }
      return;
    case PhysKind::Filter:
    case PhysKind::Projection:
      cur->operators.push_back(op);
      Build(op->children[0].get(), cur);
      return;
    case PhysKind::HashJoin:
    case PhysKind::AsOfJoin: {  // the right side builds, the left side streams through it
      Pipeline* build = NewPipeline(op);
      Build(op->children[1].get(), build);
      cur->dependencies.push_back(build);
      cur->operators.push_back(op);
      Build(op->children[0].get(), cur);
      return;
    }
    case PhysKind::HashAggregate:
    case PhysKind::Window:
    case PhysKind::Order:
    case PhysKind::Limit:
    case PhysKind::Result: {
      cur->source = op;
      Pipeline* child = NewPipeline(op);
      Build(op->children[0].get(), child);
      cur->dependencies.push_back(child);
      return;
    }
    case PhysKind::Materialized:  // its subplan's pipeline runs once, before every reader's
    case PhysKind::SharedScan:
      cur->source = op;
      cur->dependencies.push_back(MaterializingPipeline(op));
      return;
    case PhysKind::UnionAll:  // every operand's pipeline sinks into it, in turn
      cur->source = op;
      for (auto& c : op->children) {
        Pipeline* child = NewPipeline(op);
        Build(c.get(), child);
        // A FULL join's unmatched build rows are known once its probe pipeline (the
        // operand before) has run.
        if (c->kind == PhysKind::JoinUnmatched) child->dependencies.push_back(cur->dependencies.back());
        cur->dependencies.push_back(child);
      }
      return;
  }
}

Pipeline* PipelineSet::MaterializingPipeline(PhysicalOperator* op) {
  if (op->kind == PhysKind::SharedScan) {
    op = static_cast<PhysicalSharedScan*>(op)->source;
    TESSERA_ASSERT(op != nullptr, "a shared scan without its materialization");
  }
  for (auto& [m, p] : materializing_)
    if (m == op) return p;
  Pipeline* p = NewPipeline(op);
  materializing_.emplace_back(op, p);
  Build(op->children[0].get(), p);
  return p;
}

PipelineSet::PipelineSet(PhysicalOperator* root) {
  TESSERA_ASSERT(root->kind == PhysKind::Result, "plan root must be a result collector");
  Pipeline* top = NewPipeline(root);
  Build(root->children[0].get(), top);
  for (auto& p : pipelines_) std::reverse(p->operators.begin(), p->operators.end());
  // Order: dependencies first (post-order DFS from the result pipeline).
  std::vector<std::unique_ptr<Pipeline>> ordered;
  std::vector<Pipeline*> seen;
  std::function<void(Pipeline*)> visit = [&](Pipeline* p) {
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) return;
    seen.push_back(p);
    for (auto* d : p->dependencies) visit(d);
    for (auto& up : pipelines_)
      if (up.get() == p) ordered.push_back(std::move(up));
  };
  visit(top);
  pipelines_ = std::move(ordered);
  for (size_t i = 0; i < pipelines_.size(); i++) pipelines_[i]->id = (int)i + 1;
}

// Small chunks out of a selective filter or join, gathered into one before the operators
// after it (DuckDB's operators cache small results the same way). A probe that keeps 1% of
// its input hands on 20-row chunks; every operator and sink downstream pays its per-chunk
// costs (vectors set up, hash and partition passes, a stored chunk) for each of them.
// Appending gathers the rows (through their selection, DataChunk::sel: for a filter's or
// probe's output the only copy its rows get). Chunks are joined only
// while they come from the same row group (DataChunk::batch >> 32; one worker scans a row
// group, in order), so the first chunk's batch still orders the rows for the result.
namespace {
struct ChunkCompactor {
  static constexpr uint32_t kSmall = 256;   // chunks below this many rows are gathered
  static constexpr uint32_t kTarget = 1024;  // and handed on at this many
  static constexpr uint32_t kMaxPieces = 128;  // or after this many pieces
  DataChunk acc;
  uint32_t pieces = 0;

  static bool Reduces(const PhysicalOperator& op) {
    return op.kind == PhysKind::HashJoin || op.kind == PhysKind::AsOfJoin || op.kind == PhysKind::Filter;
  }
  bool Wants(const PhysicalOperator& op, const DataChunk& c) const {
    return c.size > 0 && c.size < kSmall && Reduces(op);
  }
  bool Empty() const { return pieces == 0; }
  bool Fits(const DataChunk& c) const {
    if (pieces == 0) return true;
    return acc.size + c.size <= kVectorSize && (acc.batch >> 32) == (c.batch >> 32) &&
           acc.cols.size() == c.cols.size();
  }
  void Append(const DataChunk& c) {
    if (pieces == 0) {
      acc.cols.resize(c.cols.size());
      for (size_t k = 0; k < c.cols.size(); k++) acc.cols[k].Init(c.cols[k].type(), kVectorSize);
      acc.size = 0;
      acc.batch = c.batch;
    }
    for (size_t k = 0; k < c.cols.size(); k++) CopyRows(c.cols[k], c.ColumnSel(k), c.size, acc.cols[k], acc.size);
    acc.size += c.size;
    pieces++;
  }
  bool Full() const { return acc.size >= kTarget || pieces >= kMaxPieces; }
  DataChunk Take() {
    DataChunk out = std::move(acc);
    acc = DataChunk();
    pieces = 0;
    return out;
  }
};
}  // namespace

void RunPipeline(Pipeline& p, unsigned threads) {
  auto t0 = std::chrono::steady_clock::now();
  p.sink->threads = threads ? threads : HardwareThreads();
  if (p.source->SourceOrdered()) threads = 1;
  auto gsrc = p.source->InitSource();
  std::mutex combine_mu;
  if (threads == 0) threads = HardwareThreads();
  threads = (unsigned)std::max<uint64_t>(1, std::min<uint64_t>(threads, p.source->SourceMorsels()));
  p.source_rows = 0;
  p.operator_rows.assign(p.operators.size(), 0);
  // The running statement's interrupt flag (common/interrupt.hpp), read here on the calling
  // thread: the workers check it before each chunk.
  const std::atomic<bool>* interrupt = CurrentInterruptFlag();
  CheckInterrupt(interrupt);
  ParallelFor(threads, threads, [&](uint64_t, unsigned) {
    std::vector<uint64_t> rows(p.operators.size() + 1, 0);  // this worker's counts
    auto lsrc = p.source->InitLocalSource();
    std::vector<std::unique_ptr<LocalState>> lops;
    for (auto* op : p.operators) lops.push_back(op->InitLocalOperator());
    auto lsink = p.sink->InitLocalSink();
    std::vector<ChunkCompactor> compact(p.operators.size());
    // Runs `chunk` through operators [from, end) and into the sink. A small chunk out of a
    // filter or a join is appended to that operator's compactor instead, and goes on once
    // the compactor is full enough (see ChunkCompactor).
    std::function<void(size_t, DataChunk&)> push = [&](size_t from, DataChunk& chunk) {
      DataChunk next;
      for (size_t i = from; i < p.operators.size(); i++) {
        if (chunk.size == 0) return;
        if (!p.operators[i]->ExecuteTakesSelection() && !chunk.sel.empty()) FlattenChunk(chunk);
        next.sel.clear();
        p.operators[i]->Execute(chunk, next, *lops[i]);
        next.batch = chunk.batch;
        std::swap(chunk, next);
        rows[i + 1] += chunk.size;
        ChunkCompactor& c = compact[i];
        if (!c.Wants(*p.operators[i], chunk)) {
          if (!c.Empty() && chunk.size > 0) {  // what it holds came first: hand it on first
            DataChunk held = c.Take();
            push(i + 1, held);
          }
          continue;
        }
        if (!c.Fits(chunk)) {
          DataChunk full = c.Take();
          push(i + 1, full);
        }
        c.Append(chunk);
        if (c.Full()) {
          DataChunk full = c.Take();
          push(i + 1, full);
        }
        return;
      }
      if (chunk.size == 0) return;
      if (!p.sink->SinkTakesSelection() && !chunk.sel.empty()) FlattenChunk(chunk);
      p.sink->Sink(chunk, *lsink);
    };
    DataChunk chunk;
    while (!p.sink->SinkDone() && p.source->GetChunk(*gsrc, *lsrc, chunk)) {
      CheckInterrupt(interrupt);
      rows[0] += chunk.size;
      push(0, chunk);
      chunk = DataChunk();
    }
    // What the compactors still hold, in pipeline order (a flush may fill a later one).
    for (size_t i = 0; i < compact.size(); i++) {
      if (compact[i].Empty()) continue;
      DataChunk rest = compact[i].Take();
      push(i + 1, rest);
    }
    std::lock_guard<std::mutex> g(combine_mu);
    p.source_rows += rows[0];
    for (size_t i = 0; i < p.operators.size(); i++) p.operator_rows[i] += rows[i + 1];
    p.sink->Combine(*lsink);
  });
  CheckInterrupt(interrupt);
  p.sink->Finalize();
  p.counted = true;
  p.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void ResetPlanState(PhysicalOperator& op) {
  op.ResetState();
  for (auto& c : op.children) ResetPlanState(*c);
}

void PipelineSet::ResetState() {
  for (auto& p : pipelines_) {
    p->elapsed_ms = 0;
    p->counted = false;
    p->source_rows = 0;
    p->operator_rows.clear();
    p->gpu_table_bytes = 0;
  }
}

void PipelineSet::Execute(unsigned threads) {
  for (auto& p : pipelines_) RunPipeline(*p, threads);
}

std::string Pipeline::ToString() const {
  std::string s = "pipeline " + std::to_string(id) + " [" + device + "]: " + source->Name();
  for (auto* op : operators) s += " -> " + op->Name();
  s += " -> " + sink->Name() + (sink->kind == PhysKind::HashJoin || sink->kind == PhysKind::AsOfJoin ? " (build)" : "");
  if (!dependencies.empty()) {
    s += "   (after";
    for (auto* d : dependencies) s += " " + std::to_string(d->id);
    s += ")";
  }
  return s;
}

std::string PipelineSet::ToString() const {
  std::string s;
  for (auto& p : pipelines_) s += p->ToString() + "\n";
  return s;
}

std::map<const PhysicalOperator*, uint64_t> PipelineSet::ActualRows() const {
  std::map<const PhysicalOperator*, uint64_t> rows;
  for (auto& p : pipelines_) {
    if (!p->counted) continue;
    rows[p->source] = p->source_rows;
    for (size_t i = 0; i < p->operators.size() && i < p->operator_rows.size(); i++)
      rows[p->operators[i]] = p->operator_rows[i];
  }
  return rows;
}

std::string PhysicalPlanToString(const PhysicalOperator& op, int indent,
                                 const std::map<const PhysicalOperator*, uint64_t>* actual) {
  std::string s(indent * 2, ' ');
  s += op.Name();
  std::string d = op.Details();
  if (!d.empty()) s += " " + d;
  char buf[96];
  if (actual) {
    auto it = actual->find(&op);
    std::string est = op.estimated_rows >= 0 ? std::to_string((uint64_t)std::llround(op.estimated_rows)) : "?";
    if (it != actual->end()) std::snprintf(buf, sizeof buf, "  (estimated %s rows, actual %llu)", est.c_str(),
                                           (unsigned long long)it->second);
    else std::snprintf(buf, sizeof buf, "  (estimated %s rows)", est.c_str());
    s += buf;
  } else if (op.estimated_rows >= 0) {
    std::snprintf(buf, sizeof buf, "  (~%.0f rows)", op.estimated_rows);
    s += buf;
  }
  s += "\n";
  for (auto& c : op.children) s += PhysicalPlanToString(*c, indent + 1, actual);
  return s;
}

}  // namespace tessera
