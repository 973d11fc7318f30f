// ASOF [LEFT | RIGHT | FULL] JOIN (DuckDB's): the condition is equalities between an
// expression of each side and exactly one inequality (>=, >, <=, <) between an expression of
// each side; USING (k, ..., t) means k = k ... AND left.t >= right.t. The join is a
// LogicalKind::Join of type AsOf/AsOfLeft/AsOfRight/AsOfFull whose last key pair is the
// inequality, normalised to left <op> right (logical_plan.hpp).
#include <algorithm>

#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "planner/decorrelate.hpp"

namespace tessera {

using ast::Op;

namespace {

// The conjuncts of an ON condition as written (AND trees flattened), for their positions.
void AstConjuncts(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
  if (e.kind == ast::ExprKind::Binary && e.op == Op::And) {
    for (auto& c : e.children) AstConjuncts(*c, out);
    return;
  }
  out.push_back(&e);
}

bool ReadsOnly(const BoundExpr& e, const std::vector<ColumnBinding>& side) {
  std::vector<ColumnBinding> used;
  e.CollectBindings(used);
  if (used.empty()) return false;  // a constant is no side's expression
  for (auto& b : used)
    if (std::find(side.begin(), side.end(), b) == side.end()) return false;
  return true;
}

// `a op b` read as `b flipped(op) a`.
Op Flipped(Op op) {
  switch (op) {
    case Op::Ge: return Op::Le;
    case Op::Gt: return Op::Lt;
    case Op::Le: return Op::Ge;
    case Op::Lt: return Op::Gt;
    default: return op;
  }
}

bool IsInequality(Op op) { return op == Op::Ge || op == Op::Gt || op == Op::Le || op == Op::Lt; }

LJoinType AsOfType(ast::JoinType t) {
  switch (t) {
    case ast::JoinType::Left: return LJoinType::AsOfLeft;
    case ast::JoinType::Right: return LJoinType::AsOfRight;
    case ast::JoinType::Full: return LJoinType::AsOfFull;
    default: return LJoinType::AsOf;
  }
}

}  // namespace

LogicalOpPtr Binder::BindAsOfJoin(const ast::TableRef& ref, LogicalOpPtr left, LogicalOpPtr right, Scope& scope,
                                  size_t left_begin, size_t right_begin) {
  if (IsPendingJoin(*right)) throw UnsupportedYet("an ASOF join with a LATERAL subquery", ref.right->pos);
  // Each term of the condition with the position it is reported at.
  std::vector<std::pair<BoundExprPtr, SourcePos>> terms;
  SourcePos cond_pos = ref.pos;
  if (!ref.using_columns.empty()) {
    // USING (k, ..., t): equalities, the last column the inequality left.t >= right.t.
    std::vector<BoundExprPtr> split;
    SplitConjunction(BindUsing(ref, scope, left_begin, right_begin), split);
    if (!split.empty() && split.back()->kind == BExpr::Compare) split.back()->op = Op::Ge;
    for (auto& t : split) terms.emplace_back(std::move(t), ref.pos);
  } else {
    if (!ref.on) throw InternalError("an ASOF join without a condition");
    cond_pos = ref.on->pos;
    if (AstContainsSubquery(*ref.on)) throw UnsupportedYet("a subquery in an ASOF JOIN condition", ref.on->pos);
    std::vector<const ast::Expr*> conjuncts;
    AstConjuncts(*ref.on, conjuncts);
    Ctx ctx;
    ctx.scope = &scope;
    ctx.clause = "JOIN conditions";
    for (const ast::Expr* c : conjuncts) {
      std::vector<BoundExprPtr> split;
      SplitConjunction(ToBoolean(Bind(*c, ctx), c->pos, "JOIN condition"), split);
      for (auto& t : split) terms.emplace_back(std::move(t), c->pos);
    }
  }
  auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
  j->join_type = AsOfType(ref.join_type);
  const std::vector<ColumnBinding> lb = left->Bindings(), rb = right->Bindings();
  BoundExprPtr ineq_left, ineq_right;
  const SourcePos* other = nullptr;  // the first condition that is neither
  for (auto& [t, pos] : terms) {
    if (t->kind == BExpr::Compare && (t->op == Op::Eq || IsInequality(t->op))) {
      BoundExprPtr& a = t->children[0];
      BoundExprPtr& b = t->children[1];
      Op op = t->op;
      bool sides = true;
      if (ReadsOnly(*b, lb) && ReadsOnly(*a, rb)) {
        std::swap(a, b);
        op = Flipped(op);
      } else if (!ReadsOnly(*a, lb) || !ReadsOnly(*b, rb)) {
        sides = false;
      }
      if (sides && op == Op::Eq) {
        j->left_keys.push_back(std::move(a));
        j->right_keys.push_back(std::move(b));
        continue;
      }
      if (sides) {
        if (ineq_left) throw BindError("Multiple ASOF JOIN inequalities", pos);
        ineq_left = std::move(a);
        ineq_right = std::move(b);
        j->asof_op = op;
        continue;
      }
    }
    if (!other) other = &pos;
  }
  if (!ineq_left) throw BindError("Missing ASOF JOIN inequality", cond_pos);
  if (other)
    throw UserError(ErrorKind::Unsupported,
                    "ASOF JOIN conditions other than equalities and one inequality (>=, >, <=, <) between "
                    "expressions of each side are not supported yet",
                    *other);
  j->left_keys.push_back(std::move(ineq_left));
  j->right_keys.push_back(std::move(ineq_right));
  j->children.push_back(std::move(left));
  j->children.push_back(std::move(right));
  return j;
}

}  // namespace tessera
