// Lowering: the physical plan's pipelines -> the backend-neutral IR. The only code that
// reads both the CPU's physical operators and the IR.
#include <map>

#include "execution/operators/basic_operators.hpp"
#include "execution/operators/hash_aggregate.hpp"
#include "execution/operators/hash_join.hpp"
#include "execution/operators/order.hpp"
#include "execution/operators/table_scan.hpp"
#include "execution/pipeline.hpp"
#include "pipeline_ir/pipeline_ir.hpp"

namespace tessera::ir {

namespace {

// The CPU aggregation as the receiver of groups computed elsewhere.
class AggregateWriter : public GroupResultWriter {
 public:
  explicit AggregateWriter(PhysicalHashAggregate& agg) : agg_(agg), table_(agg.NewTable()) {}
  void FindOrCreate(const std::vector<Vector>& keys, uint32_t n, std::vector<uint32_t>& gids) override {
    table_->FindOrCreate(keys, n, gids);
  }
  void SetState(size_t a, uint32_t g, int64_t count, int128_t isum, double dsum, const Value* ext) override {
    table_->SetState(a, g, count, isum, dsum, ext);
  }
  void Finish(uint64_t all_groups) override {
    agg_.SetResult(std::move(table_));
    if (all_groups) agg_.rows_out = all_groups;
  }

 private:
  PhysicalHashAggregate& agg_;
  std::unique_ptr<GroupTable> table_;
};

// A CPU sink that materialises rows, as the receiver of rows computed elsewhere: the
// result collector keeps them; an order or limit sink only records the count (its rows
// stay with the GPU pipeline that reads them).
class RowsWriter : public RowResultWriter {
 public:
  explicit RowsWriter(PhysicalOperator& op) : op_(op) {}
  void Append(DataChunk&& rows) override {
    if (op_.kind != PhysKind::Result) throw InternalError("rows handed to " + op_.Name());
    static_cast<PhysicalResult&>(op_).result.Add(std::move(rows));
  }
  void Finish(uint64_t rows) override { op_.rows_out = rows; }

 private:
  PhysicalOperator& op_;
};

class Lowering {
 public:
  NodeId Id(const PhysicalOperator* op) {
    auto [it, added] = ids_.try_emplace(op, (NodeId)ids_.size());
    return it->second;
  }

  static std::vector<const BoundExpr*> Ptrs(const std::vector<BoundExprPtr>& v) {
    std::vector<const BoundExpr*> out;
    for (auto& e : v) out.push_back(e.get());
    return out;
  }

  static JoinSpec Spec(const PhysicalHashJoin& j, const std::vector<BoundExprPtr>& keys) {
    JoinSpec s;
    s.type = j.join_type;
    s.keys = Ptrs(keys);
    s.residual = j.residual.get();
    s.null_aware = j.null_aware;
    s.nulls_equal = j.nulls_equal;
    s.counted = j.counted;
    s.single_match = j.single_match;
    return s;
  }

  Source LowerSource(PhysicalOperator& op) {
    Source s;
    s.types = op.types;
    if (op.kind == PhysKind::TableScan) {
      auto& scan = static_cast<PhysicalTableScan&>(op);
      s.kind = Source::Kind::TableScan;
      s.scan.table = scan.table->schema.name;
      s.scan.data = scan.data;
      s.scan.column_ids = scan.column_ids;
      for (int cid : scan.column_ids) {
        s.scan.column_names.push_back(scan.table->schema.columns[cid].name);
        s.scan.column_types.push_back(scan.table->schema.columns[cid].type);
      }
      for (auto& f : scan.filters) {
        if (f->kind == BExpr::And)
          for (auto& c : f->children) s.scan.filters.push_back(c.get());
        else
          s.scan.filters.push_back(f.get());
      }
      s.scan.estimated_rows = scan.estimated_rows;
    } else {
      s.kind = Source::Kind::Intermediate;
      s.from = Id(&op);
      s.what = op.Name();
      s.aggregate = op.kind == PhysKind::HashAggregate;
      s.rows = op.kind == PhysKind::Order || op.kind == PhysKind::Limit;
    }
    return s;
  }

  Step LowerStep(PhysicalOperator& op) {
    Step st;
    st.types = op.types;
    switch (op.kind) {
      case PhysKind::Filter:
        st.kind = Step::Kind::Filter;
        st.predicate = static_cast<PhysicalFilter&>(op).predicate.get();
        break;
      case PhysKind::Projection:
        st.kind = Step::Kind::Project;
        st.exprs = Ptrs(static_cast<PhysicalProjection&>(op).exprs);
        break;
      case PhysKind::HashJoin: {
        auto& j = static_cast<PhysicalHashJoin&>(op);
        st.kind = Step::Kind::Probe;
        st.join = Id(&j);
        st.on = Spec(j, j.left_keys);
        st.build_types = j.build_types;
        st.estimated_in = j.children.empty() ? -1 : j.children[0]->estimated_rows;
        st.estimated_out = j.estimated_rows;
        break;
      }
      default:
        st.kind = Step::Kind::Other;
        st.what = op.Name();
        break;
    }
    return st;
  }

  Sink LowerSink(PhysicalOperator& op) {
    Sink s;
    s.node = Id(&op);
    s.what = op.Name();
    switch (op.kind) {
      case PhysKind::HashJoin: {
        auto& j = static_cast<PhysicalHashJoin&>(op);
        s.kind = Sink::Kind::JoinBuild;
        s.build = Spec(j, j.right_keys);
        break;
      }
      case PhysKind::HashAggregate: {
        auto& a = static_cast<PhysicalHashAggregate&>(op);
        s.kind = Sink::Kind::Aggregate;
        s.groups = Ptrs(a.groups);
        s.aggs = Ptrs(a.aggs);
        s.estimated_groups = a.estimated_rows;
        PhysicalHashAggregate* agg = &a;
        s.new_result = [agg] { return std::make_unique<AggregateWriter>(*agg); };
        break;
      }
      case PhysKind::Order: {
        auto& o = static_cast<PhysicalOrder&>(op);
        s.kind = Sink::Kind::Order;
        for (auto& k : o.orders) s.orders.push_back({k.expr.get(), k.desc, k.nulls_first});
        s.limit = o.top_n;
        s.new_rows = [&op] { return std::make_unique<RowsWriter>(op); };
        break;
      }
      case PhysKind::Limit: {
        auto& l = static_cast<PhysicalLimit&>(op);
        if (l.percent >= 0) {  // needs every row first: not in the IR's row sinks
          s.kind = Sink::Kind::Other;
          s.what = "LIMIT with a percentage";
          break;
        }
        s.kind = Sink::Kind::Limit;
        s.limit = l.limit;
        s.offset = l.offset;
        s.new_rows = [&op] { return std::make_unique<RowsWriter>(op); };
        break;
      }
      case PhysKind::Result:
        s.kind = Sink::Kind::Result;
        s.new_rows = [&op] { return std::make_unique<RowsWriter>(op); };
        break;
      default: s.kind = Sink::Kind::Other; break;
    }
    return s;
  }

 private:
  std::map<const PhysicalOperator*, NodeId> ids_;
};

std::string KindName(Step::Kind k) {
  switch (k) {
    case Step::Kind::Filter: return "FILTER";
    case Step::Kind::Project: return "PROJECTION";
    case Step::Kind::Probe: return "PROBE";
    default: return "";
  }
}

}  // namespace

std::string Pipeline::ToString() const {
  std::string s = source.kind == Source::Kind::TableScan ? "SCAN " + source.scan.table : "READ " + source.what;
  for (auto& st : steps) s += " -> " + (st.kind == Step::Kind::Other ? st.what : KindName(st.kind));
  s += " -> ";
  switch (sink.kind) {
    case Sink::Kind::JoinBuild: s += "JOIN_BUILD"; break;
    case Sink::Kind::Aggregate: s += "AGGREGATE"; break;
    case Sink::Kind::Order: s += sink.limit >= 0 ? "TOP_N" : "ORDER"; break;
    case Sink::Kind::Limit: s += "LIMIT"; break;
    case Sink::Kind::Result: s += "RESULT"; break;
    default: s += sink.what; break;
  }
  return s;
}

Query Lower(const PipelineSet& set) {
  Query q;
  Lowering l;
  const auto& pl = set.pipelines();
  for (size_t i = 0; i < pl.size(); i++) {
    tessera::Pipeline& p = *pl[i];
    Pipeline ir;
    ir.id = p.id;
    ir.index = i;
    ir.source = l.LowerSource(*p.source);
    for (auto* op : p.operators) ir.steps.push_back(l.LowerStep(*op));
    ir.sink = l.LowerSink(*p.sink);
    q.pipelines.push_back(std::move(ir));
  }
  return q;
}

}  // namespace tessera::ir
