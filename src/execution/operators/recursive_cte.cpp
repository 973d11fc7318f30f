#include "execution/operators/recursive_cte.hpp"

#include "common/error.hpp"
#include "execution/operators/basic_operators.hpp"
#include "execution/operators/hash_aggregate.hpp"
#include "execution/pipeline.hpp"

namespace tessera {

PhysicalRecursiveCte::PhysicalRecursiveCte(std::vector<Type> t, bool distinct_rows, std::shared_ptr<WorkingRows> working,
                                           std::unique_ptr<PhysicalOperator> anchor,
                                           std::unique_ptr<PhysicalOperator> recursive)
    : PhysicalOperator(PhysKind::RecursiveCte, std::move(t)), distinct_rows_(distinct_rows), working_(std::move(working)) {
  children.push_back(std::move(anchor));
  children.push_back(std::move(recursive));
}

PhysicalRecursiveCte::~PhysicalRecursiveCte() = default;

void PhysicalRecursiveCte::ResetState() {
  PhysicalOperator::ResetState();
  rows_ = ChunkList();
  working_->rows = ChunkList();
  seen_.reset();
}

void PhysicalRecursiveCte::TakeNew(ChunkList& result, ChunkList& out) {
  for (DataChunk& c : result.chunks) {
    if (c.size == 0) continue;
    if (!distinct_rows_) {
      out.Add(std::move(c));
      continue;
    }
    // UNION: the rows whose group the table did not hold yet (NULLs equal), once each.
    const uint32_t before = seen_->groups();
    std::vector<uint32_t> gids;
    seen_->FindOrCreate(c.cols, c.size, gids);
    std::vector<uint32_t> sel;
    uint32_t next = before;
    for (uint32_t i = 0; i < c.size; i++)
      if (gids[i] == next) {
        sel.push_back(i);
        next++;
      }
    if (sel.empty()) continue;
    DataChunk kept;
    SliceChunk(c, sel.data(), (uint32_t)sel.size(), kept);
    out.Add(std::move(kept));
  }
  result = ChunkList();
}

void PhysicalRecursiveCte::Compute() {
  if (distinct_rows_) seen_ = std::make_unique<GroupTable>(types, std::vector<const BoundExpr*>{});
  auto run = [](PhysicalOperator& root, std::unique_ptr<PipelineSet>& pipelines) -> ChunkList& {
    if (!pipelines) pipelines = std::make_unique<PipelineSet>(&root);
    ResetPlanState(root);
    pipelines->Execute(0);
    return static_cast<PhysicalResult&>(root).result;
  };
  ChunkList added;
  TakeNew(run(*children[0], anchor_pipelines_), added);
  for (uint64_t iteration = 0; added.rows > 0; iteration++) {
    if (iteration >= kMaxIterations)
      throw UserError(ErrorKind::Constraint, "recursive CTE did not finish after " + std::to_string(kMaxIterations) +
                                                " iterations (does its recursive part always add rows?)");
    for (const DataChunk& c : added.chunks) rows_.Add(DataChunk(c));
    working_->rows = std::move(added);
    added = ChunkList();
    TakeNew(run(*children[1], recursive_pipelines_), added);
  }
  working_->rows = ChunkList();
  rows_out = rows_.rows;
}

std::unique_ptr<GlobalSourceState> PhysicalRecursiveCte::InitSource() {
  rows_ = ChunkList();
  Compute();
  return std::make_unique<ChunkListSourceState>();
}

bool PhysicalRecursiveCte::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return NextChunkFromList(rows_, gs, out);
}

std::unique_ptr<GlobalSourceState> PhysicalWorkingTableScan::InitSource() { return std::make_unique<ChunkListSourceState>(); }

bool PhysicalWorkingTableScan::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  return NextChunkFromList(working_->rows, gs, out);
}

}  // namespace tessera
