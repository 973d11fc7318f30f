// Samples (USING SAMPLE over a query's FROM items, TABLESAMPLE over one item; parsed by
// parser/parse_sample.cpp), drawn with the operators there are: each row gets its number
// (row_number() OVER (), a Window) and from it and the seed a pseudo-random key in [0, 1)
// (the registry's sample_key, a hash: the same seed, the same rows for the same input):
//  * bernoulli p%: the rows whose key is below p/100, each kept independently;
//  * system p%: the same per block of 2048 consecutive rows (DuckDB samples vectors);
//  * reservoir n ROWS: the n rows of the smallest keys (all when there are fewer), a uniform
//    sample of exactly n; reservoir p%: the rows whose key ranks in the first p% (cume_dist),
//    floor(p% of the rows) of them.
// Without a seed one is drawn at bind time (the plan is then not cached: draws_random()).
// Which rows come out differs from DuckDB's (another generator), not how many: a count is
// exact and a percentage's expected size is DuckDB's.
#include <cmath>
#include <random>

#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "planner/bound_window.hpp"

namespace tessera {

namespace {

// A Window operator computing `w` (one window function) over `plan`.
LogicalOpPtr WindowOver(LogicalOpPtr plan, BoundExprPtr w, uint32_t index) {
  auto op = std::make_unique<LogicalOp>(LogicalKind::Window);
  op->table_index = index;
  op->exprs.push_back(std::move(w));
  op->children.push_back(std::move(plan));
  return op;
}

BoundExprPtr WindowCall(WindowFunc func, const char* name, Type type) {
  auto info = std::make_shared<WindowInfo>();
  info->func = func;
  auto w = std::make_unique<BoundExpr>(BExpr::Window, type);
  w->name = name;
  w->window = std::move(info);
  return w;
}

LogicalOpPtr FilterOver(LogicalOpPtr plan, BoundExprPtr cond) {
  auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
  f->filters.push_back(std::move(cond));
  f->children.push_back(std::move(plan));
  return f;
}

}  // namespace

LogicalOpPtr Binder::ApplySample(LogicalOpPtr plan, const ast::SampleSpec& spec) {
  int64_t seed;
  if (spec.seed) {
    seed = *spec.seed;
  } else {
    std::random_device rd;
    seed = (int64_t)(((uint64_t)rd() << 32) ^ rd());
    draws_random_ = true;
  }
  const uint32_t rn_index = next_index_++;
  plan = WindowOver(std::move(plan), WindowCall(WindowFunc::RowNumber, "row_number", Type::BigInt()), rn_index);
  BoundExprPtr unit = MakeColumn({rn_index, 0}, Type::BigInt(), "row_number()");
  if (spec.method == ast::SampleMethod::System)  // the row's block of 2048
    unit = BindArith(ast::Op::IntDiv, BindArith(ast::Op::Sub, std::move(unit), MakeConstant(Value::BigInt(1)), spec.pos),
                     MakeConstant(Value::BigInt(2048)), spec.pos);
  std::vector<BoundExprPtr> args;
  args.push_back(std::move(unit));
  args.push_back(MakeConstant(Value::BigInt(seed)));
  BoundExprPtr key = MakeScalarCall("sample_key", std::move(args), spec.pos);
  if (spec.method != ast::SampleMethod::Reservoir)
    return FilterOver(std::move(plan), MakeCompare(ast::Op::Lt, std::move(key), MakeConstant(Value::Double(spec.size / 100))));
  // Reservoir: the rows ranked first by key.
  BoundExprPtr rank = spec.percent ? WindowCall(WindowFunc::CumeDist, "cume_dist", Type::Double())
                                   : WindowCall(WindowFunc::RowNumber, "row_number", Type::BigInt());
  {
    auto info = std::make_shared<WindowInfo>(*rank->window);
    info->orders.push_back({});
    rank->window = std::move(info);
    rank->children.push_back(std::move(key));
  }
  const Type rank_type = rank->type;
  const uint32_t rank_index = next_index_++;
  plan = WindowOver(std::move(plan), std::move(rank), rank_index);
  BoundExprPtr limit = spec.percent ? MakeConstant(Value::Double(spec.size / 100))
                                    : MakeConstant(Value::BigInt(spec.size >= 9.2e18 ? INT64_MAX : std::llround(spec.size)));
  return FilterOver(std::move(plan), MakeCompare(ast::Op::Le, MakeColumn({rank_index, 0}, rank_type, "rank"), std::move(limit)));
}

}  // namespace tessera
