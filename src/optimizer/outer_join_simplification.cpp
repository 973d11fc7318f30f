// Outer join simplification: a LEFT join under a filter that rejects the rows it pads
// with NULLs is an inner join; a FULL join under one that rejects the rows padded on one
// side is a LEFT join (sides swapped where the left side's padding survives), and an
// inner join when it rejects both. A filter term rejects them when, with every column of the
// join's right side replaced by NULL, it folds to NULL or FALSE (strict comparisons and
// arithmetic do; IS NULL, COALESCE and OR with another column do not). The scalar
// subqueries of TPC-H q02, q11, q17, q20 and q22 become inner joins this way (their
// single-match check stays), which both backends run with less work and the GPU without
// NULLs.
#include <algorithm>
#include <set>

#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

bool References(const BoundExpr& e, const std::set<ColumnBinding>& cols) {
  if (e.kind == BExpr::Column && cols.count(e.binding)) return true;
  for (auto& c : e.children)
    if (References(*c, cols)) return true;
  return false;
}

// e with every column of `cols` replaced by a NULL of its type.
BoundExprPtr NullOut(const BoundExpr& e, const std::set<ColumnBinding>& cols) {
  if (e.kind == BExpr::Column && cols.count(e.binding)) {
    auto c = MakeConstant(Value::Null(e.type));
    c->type = e.type;
    return c;
  }
  BoundExprPtr out = e.Copy();
  for (size_t i = 0; i < e.children.size(); i++) out->children[i] = NullOut(*e.children[i], cols);
  return out;
}

// NULL whatever the other columns hold: a NULL constant, or a strict operator (comparison,
// arithmetic, negation, cast, LIKE, IN) over such a value.
bool DefinitelyNull(const BoundExpr& e) {
  switch (e.kind) {
    case BExpr::Constant: return e.value.is_null();
    case BExpr::Cast:
    case BExpr::Compare:
    case BExpr::Arith:
    case BExpr::Neg:
    case BExpr::Like: return std::any_of(e.children.begin(), e.children.end(), [](auto& c) { return DefinitelyNull(*c); });
    case BExpr::InList: return DefinitelyNull(*e.children[0]);
    default: return false;
  }
}

// Never TRUE whatever the other columns hold (a filter drops the row): NULL or FALSE, an AND
// with such a term, an OR of only such terms.
bool NeverTrue(const BoundExpr& e) {
  switch (e.kind) {
    case BExpr::Constant: return e.value.is_null() || e.value.int_value() == 0;
    case BExpr::And: return std::any_of(e.children.begin(), e.children.end(), [](auto& c) { return NeverTrue(*c); });
    case BExpr::Or: return std::all_of(e.children.begin(), e.children.end(), [](auto& c) { return NeverTrue(*c); });
    default: return DefinitelyNull(e);
  }
}

bool RejectsNulls(const BoundExpr& term, const std::set<ColumnBinding>& right) {
  if (!References(term, right)) return false;
  BoundExprPtr folded;
  try {
    folded = FoldExpression(NullOut(term, right));
  } catch (const std::exception&) {
    return false;  // an error while folding (e.g. a cast): leave the join as it is
  }
  return NeverTrue(*folded);
}

// After the join became inner, its right-side key columns are never NULL above it: IS
// [NOT] NULL over one of them is a constant, and CASE branches whose condition is a constant
// FALSE go (the scalar subquery's `CASE WHEN #corr IS NULL THEN ... ELSE value END`).
BoundExprPtr DropKeyNullTests(BoundExprPtr e, const std::set<ColumnBinding>& keys) {
  for (auto& c : e->children) c = DropKeyNullTests(std::move(c), keys);
  if (e->kind == BExpr::IsNull && e->children[0]->kind == BExpr::Column && keys.count(e->children[0]->binding)) {
    auto c = MakeConstant(Value::Boolean(e->negated));
    c->type = e->type;
    return c;
  }
  if (e->kind == BExpr::Case) {
    std::vector<BoundExprPtr> kept;
    const size_t n = e->children.size();
    for (size_t i = 0; i + 1 < n; i += 2) {
      const BoundExpr& when = *e->children[i];
      if (when.kind == BExpr::Constant && (when.value.is_null() || when.value.int_value() == 0)) continue;
      kept.push_back(std::move(e->children[i]));
      kept.push_back(std::move(e->children[i + 1]));
    }
    kept.push_back(std::move(e->children[n - 1]));
    if (kept.size() == 1) {
      BoundExprPtr r = std::move(kept[0]);
      if (r->type != e->type) r = MakeCast(std::move(r), e->type);
      return r;
    }
    e->children = std::move(kept);
  }
  return e;
}

}  // namespace

void SimplifyOuterJoins(LogicalOp& op) {
  for (auto& c : op.children) SimplifyOuterJoins(*c);
  if (op.kind != LogicalKind::Filter || op.children.size() != 1) return;
  LogicalOp& j = *op.children[0];
  if (j.kind != LogicalKind::Join || j.children.size() != 2) return;
  if (j.join_type == LJoinType::Full) {
    // The rows padded on the right (left rows without a match) and those padded on the
    // left: a filter rejecting one kind leaves a LEFT join keeping the other side's.
    auto rejects_padding = [&](const LogicalOp& side) {
      std::set<ColumnBinding> cols;
      for (const ColumnBinding& b : side.Bindings()) cols.insert(b);
      for (const BoundExprPtr& f : op.filters)
        if (RejectsNulls(*f, cols)) return true;
      return false;
    };
    const bool no_right_padded = rejects_padding(*j.children[1]);
    const bool no_left_padded = rejects_padding(*j.children[0]);
    if (!no_right_padded && !no_left_padded) return;
    if (no_right_padded && !no_left_padded) {  // a RIGHT join: LEFT with the sides swapped
      std::swap(j.children[0], j.children[1]);
      std::swap(j.left_keys, j.right_keys);
    }
    j.join_type = LJoinType::Left;
  }
  if (j.join_type != LJoinType::Left) return;
  std::set<ColumnBinding> right;
  for (const ColumnBinding& b : j.children[1]->Bindings()) right.insert(b);
  bool rejects = false;
  for (const BoundExprPtr& f : op.filters) rejects = rejects || RejectsNulls(*f, right);
  if (!rejects) return;
  j.join_type = LJoinType::Inner;
  std::set<ColumnBinding> keys;
  for (const BoundExprPtr& k : j.right_keys)
    if (k->kind == BExpr::Column) keys.insert(k->binding);
  for (BoundExprPtr& f : op.filters) f = FoldExpression(DropKeyNullTests(std::move(f), keys));
}

}  // namespace tessera
