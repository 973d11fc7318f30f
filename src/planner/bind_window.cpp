// Window functions: name(args) OVER (PARTITION BY ... ORDER BY ... frame). Each distinct
// call becomes a BExpr::Window (planner/bound_window.hpp) of the query's WindowState and
// is referred to as a column (index, i) of the Window operator that ApplyWindow puts over
// the FROM/WHERE/GROUP BY/HAVING plan, under QUALIFY and the select list. Arguments and
// window keys are bound like the select list (in an aggregating query they refer to groups
// and aggregates: sum(sum(x)) OVER ()). Types and errors are DuckDB's.
#include "function/function_registry.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "planner/bound_window.hpp"

namespace tessera {

namespace {

struct RankingFunction {
  const char* name;
  WindowFunc func;
  uint32_t min_args, max_args;
};

const RankingFunction kWindowFunctions[] = {
    {"row_number", WindowFunc::RowNumber, 0, 0},   {"rank", WindowFunc::Rank, 0, 0},
    {"dense_rank", WindowFunc::DenseRank, 0, 0},   {"percent_rank", WindowFunc::PercentRank, 0, 0},
    {"cume_dist", WindowFunc::CumeDist, 0, 0},     {"ntile", WindowFunc::Ntile, 1, 1},
    {"lag", WindowFunc::Lag, 1, 3},                {"lead", WindowFunc::Lead, 1, 3},
    {"first_value", WindowFunc::FirstValue, 1, 1}, {"last_value", WindowFunc::LastValue, 1, 1},
    {"nth_value", WindowFunc::NthValue, 2, 2},
};

std::string Upper(std::string s) {
  for (auto& c : s)
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
  return s;
}

WindowBound BoundOf(ast::FrameBoundKind k) {
  switch (k) {
    case ast::FrameBoundKind::UnboundedPreceding: return WindowBound::UnboundedPreceding;
    case ast::FrameBoundKind::Preceding: return WindowBound::Preceding;
    case ast::FrameBoundKind::CurrentRow: return WindowBound::CurrentRow;
    case ast::FrameBoundKind::Following: return WindowBound::Following;
    case ast::FrameBoundKind::UnboundedFollowing: return WindowBound::UnboundedFollowing;
  }
  return WindowBound::CurrentRow;
}

}  // namespace

BoundExprPtr Binder::BindWindow(const ast::Expr& e, Ctx& ctx) {
  if (!ctx.win) {
    if (std::string(ctx.clause) == "window definitions")
      throw BindError("window functions are not allowed in window definitions", e.pos);
    throw BindError(std::string(ctx.clause) + " clause cannot contain window functions!", e.pos);
  }
  Ctx inner = ctx;
  inner.win = nullptr;
  inner.clause = "window definitions";

  // The window: OVER name, or OVER (name ...) extending a named window.
  const ast::WindowSpec& spec = *e.over;
  const ast::WindowSpec* base = nullptr;
  if (!spec.name.empty()) {
    if (ctx.win->stmt)
      for (auto& w : ctx.win->stmt->windows)
        if (IdentEquals(w.first, spec.name)) base = w.second.get();
    if (!base) throw BindError("window \"" + spec.name + "\" does not exist", spec.pos);
    if (!base->orders.empty() && !spec.orders.empty())
      throw BindError("cannot override ORDER BY clause of window \"" + spec.name + "\"", spec.pos);
  }
  const auto& partitions = base && spec.partitions.empty() ? base->partitions : spec.partitions;
  const auto& orders = base && spec.orders.empty() ? base->orders : spec.orders;
  const ast::WindowSpec& frame = base && spec.unit == ast::FrameUnit::Default ? *base : spec;

  auto info = std::make_shared<WindowInfo>();
  info->ignore_nulls = e.ignore_nulls;
  std::vector<BoundExprPtr> children;
  Type type;
  std::string name = e.name;
  const AggregateFunction* agg_fn = nullptr;
  bool distinct = false;
  const size_t nargs = e.children.size() - (e.has_filter ? 1 : 0);

  const RankingFunction* rf = nullptr;
  for (auto& f : kWindowFunctions)
    if (e.name == f.name) rf = &f;
  if (rf) {
    info->func = rf->func;
    if (e.distinct) throw BindError("DISTINCT is not implemented for non-aggregate window functions!", e.pos);
    if (e.has_filter) throw BindError("FILTER is not supported for " + e.name, e.pos);
    if (e.star_arg || nargs < rf->min_args || nargs > rf->max_args) {
      if (rf->max_args > rf->min_args && nargs > rf->max_args)
        throw BindError("Incorrect number of parameters for function " + e.name, e.pos);
      uint32_t want = rf->min_args;
      throw BindError(Upper(e.name) + " needs " + std::to_string(want) + " parameter" + (want == 1 ? "" : "s") +
                          ", got " + std::to_string(e.star_arg ? 1 : nargs),
                      e.pos);
    }
    bool value_function = rf->func == WindowFunc::Lag || rf->func == WindowFunc::Lead ||
                          rf->func == WindowFunc::FirstValue || rf->func == WindowFunc::LastValue ||
                          rf->func == WindowFunc::NthValue;
    if (e.ignore_nulls && !value_function)
      throw BindError("IGNORE NULLS is not supported for " + e.name, e.pos);
    for (size_t i = 0; i < nargs; i++) {
      if (AstContainsWindow(*e.children[i]))
        throw BindError("window function calls cannot be nested", e.children[i]->pos);
      children.push_back(Bind(*e.children[i], inner));
    }
    switch (rf->func) {
      case WindowFunc::RowNumber:
      case WindowFunc::Rank:
      case WindowFunc::DenseRank: type = Type::BigInt(); break;
      case WindowFunc::PercentRank:
      case WindowFunc::CumeDist: type = Type::Double(); break;
      case WindowFunc::Ntile:
        children[0] = Coerce(std::move(children[0]), Type::BigInt(), e.children[0]->pos);
        type = Type::BigInt();
        break;
      default: {  // lag, lead, first_value, last_value, nth_value: the argument's type
        if (children[0]->type.id == TypeId::Null) children[0] = Coerce(std::move(children[0]), Type::Integer(), e.pos);
        type = children[0]->type;
        if (rf->func == WindowFunc::NthValue || ((rf->func == WindowFunc::Lag || rf->func == WindowFunc::Lead) && nargs >= 2))
          children[1] = Coerce(std::move(children[1]), Type::BigInt(), e.children[1]->pos);
        if (nargs == 3) children[2] = Coerce(std::move(children[2]), type, e.children[2]->pos);
        break;
      }
    }
    info->args = (uint32_t)children.size();
  } else {
    agg_fn = FindAggregateFunction(e.name);
    if (!agg_fn) {
      if (FindScalarFunction(e.name)) throw BindError(e.name + " is not an aggregate function", e.pos);
      throw BindError("aggregate function with name " + e.name + " does not exist", e.pos);
    }
    if (e.ignore_nulls) throw BindError("RESPECT/IGNORE NULLS is not supported for windowed aggregates", e.pos);
    // DISTINCT: count over whole partitions only (a state per frame would hold a set);
    // min/max and the other DISTINCT-insensitive aggregates drop it (MakeAggregate).
    if (e.distinct && !agg_fn->distinct_insensitive) {
      bool whole = (orders.empty() && frame.unit == ast::FrameUnit::Default) ||
                   (frame.unit != ast::FrameUnit::Default && frame.start.kind == ast::FrameBoundKind::UnboundedPreceding &&
                    frame.end.kind == ast::FrameBoundKind::UnboundedFollowing);
      if (e.name != "count" || !whole)
        throw UserError(ErrorKind::Unsupported,
                        "DISTINCT in a window aggregate is supported only for count over the whole partition", e.pos);
    }
    for (auto& c : e.children)
      if (AstContainsWindow(*c)) throw BindError("window function calls cannot be nested", c->pos);
    // The aggregate as GROUP BY would bind it (FILTER folded into its argument); its
    // argument becomes the window function's.
    BoundExprPtr agg = MakeAggregate(e, inner);
    info->func = WindowFunc::Aggregate;
    distinct = agg->distinct;
    agg_fn = agg->agg_fn;
    name = agg->name;
    type = agg->type;
    for (auto& c : agg->children) children.push_back(std::move(c));
    info->args = (uint32_t)children.size();
  }

  for (auto& p : partitions) {
    if (AstContainsWindow(*p)) throw BindError("window functions are not allowed in window definitions", p->pos);
    children.push_back(Bind(*p, inner));
    info->partitions++;
  }
  for (auto& o : orders) {
    if (AstContainsWindow(*o.expr))
      throw BindError("window functions are not allowed in window definitions", o.expr->pos);
    children.push_back(Bind(*o.expr, inner));
    info->orders.push_back({o.desc, o.nulls_first.value_or(false)});
  }

  // The frame.
  if (frame.unit != ast::FrameUnit::Default) {
    info->unit = frame.unit == ast::FrameUnit::Rows    ? WindowFrameUnit::Rows
                 : frame.unit == ast::FrameUnit::Range ? WindowFrameUnit::Range
                                                       : WindowFrameUnit::Groups;
    info->start = BoundOf(frame.start.kind);
    info->end = BoundOf(frame.end.kind);
    info->exclude = (WindowExclude)(int)frame.exclude;
  }
  if (info->RangeValues() && orders.size() != 1)
    throw BindError("RANGE frames must have only one ORDER BY expression", e.pos);
  std::vector<BoundExprPtr> offsets;  // as written (RANGE) or BIGINT
  for (const ast::FrameBound* b : {&frame.start, &frame.end}) {
    if (!b->offset || !WindowInfo::HasOffset(BoundOf(b->kind))) continue;
    if (AstContainsWindow(*b->offset))
      throw BindError("window functions are not allowed in window definitions", b->offset->pos);
    auto off = Bind(*b->offset, inner);
    if (info->unit != WindowFrameUnit::Range) off = Coerce(std::move(off), Type::BigInt(), b->offset->pos);
    else if (off->type.id == TypeId::Null) off = Coerce(std::move(off), Type::Integer(), b->offset->pos);
    children.push_back(off->Copy());
    offsets.push_back(std::move(off));
  }
  if (info->RangeValues()) {
    // The frame's start/end values, key -/+ offset (DESC: +/-), in the key's arithmetic;
    // key and values compared in their common type.
    const BoundExpr& key = *children[info->OrderChild()];
    const bool desc = info->orders[0].desc;
    std::vector<BoundExprPtr> values;
    size_t k = 0;
    for (const ast::FrameBound* b : {&frame.start, &frame.end}) {
      if (!b->offset || !WindowInfo::HasOffset(BoundOf(b->kind))) continue;
      bool minus = (b->kind == ast::FrameBoundKind::Preceding) != desc;
      values.push_back(BindArith(minus ? ast::Op::Sub : ast::Op::Add, key.Copy(), offsets[k++]->Copy(), b->pos));
    }
    Type t = key.type;
    for (auto& v : values) t = CommonType(t, v->type, e.pos);
    children.push_back(Coerce(key.Copy(), t, e.pos));
    for (auto& v : values) children.push_back(Coerce(std::move(v), t, e.pos));
  }

  auto w = std::make_unique<BoundExpr>(BExpr::Window, type);
  w->name = name;
  w->agg_fn = agg_fn;
  w->distinct = distinct;
  w->window = std::move(info);
  w->children = std::move(children);
  for (uint32_t i = 0; i < ctx.win->exprs.size(); i++)
    if (ctx.win->exprs[i]->Equals(*w)) return MakeColumn({ctx.win->index, i}, type, w->ToString());
  std::string label = w->ToString();
  ctx.win->exprs.push_back(std::move(w));
  return MakeColumn({ctx.win->index, (uint32_t)ctx.win->exprs.size() - 1}, type, label);
}

LogicalOpPtr Binder::ApplyWindow(LogicalOpPtr plan, WindowState& win) {
  if (win.exprs.empty()) return plan;
  auto op = std::make_unique<LogicalOp>(LogicalKind::Window);
  op->table_index = win.index;
  op->exprs = std::move(win.exprs);
  op->children.push_back(std::move(plan));
  return op;
}

}  // namespace tessera
