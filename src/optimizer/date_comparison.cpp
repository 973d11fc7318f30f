// `CAST(d AS TIMESTAMP) CMP t`, d a DATE and t a TIMESTAMP constant, becomes the exactly
// equivalent `d CMP' date`: DATE +/- INTERVAL is a TIMESTAMP (as in DuckDB), so TPC-H's
// `l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY` folds to a DATE column compared
// with a TIMESTAMP constant; compared as DATEs, the scan prunes row groups by their zone
// maps and the GPU's kernels read the DATE column as it is.
//
// Proof. Let day = 86,400,000,000 microseconds, x = t / day (a rational number),
// D = floor(x) and d an integer (the date's day number; its midnight is d * day). Then
// CAST(d AS TIMESTAMP) CMP t  <=>  d * day CMP t  <=>  d CMP x  (day > 0), and for an
// integer d:
//   d <= x  <=>  d <= floor(x) = D;
//   d >  x  <=>  not (d <= x)  <=>  d > D;
//   d <  x  <=>  d < ceil(x)   (x integral: ceil(x) = x; otherwise d < x <=> d <= floor(x)
//                               <=> d < floor(x) + 1 = ceil(x));
//   d >= x  <=>  not (d < x)   <=>  d >= ceil(x);
//   d =  x  <=>  x is integral and d = D;  d <> x  <=>  x is not integral or d <> D.
// ceil(x) is D when t is a midnight (t = D * day), D + 1 otherwise. A NULL d gives NULL on
// both sides. = and <> against a time that is not a midnight are left as they are (their
// DATE form would be a constant, which drops the NULL of a NULL d). The constant on the
// left is the same with the operator mirrored.
#include "optimizer/optimizer.hpp"

#include <cstdint>

#include "common/date.hpp"

namespace tessera {

namespace {

bool IsDateAsTimestamp(const BoundExpr& e) {
  return e.kind == BExpr::Cast && !e.negated && e.type.id == TypeId::Timestamp && e.children.size() == 1 &&
         e.children[0]->type.id == TypeId::Date;
}

bool IsTimestampConstant(const BoundExpr& e) {
  return e.kind == BExpr::Constant && e.type.id == TypeId::Timestamp && !e.value.is_null();
}

}  // namespace

BoundExprPtr NarrowDateComparison(BoundExprPtr e) {
  if (e->kind != BExpr::Compare || e->children.size() != 2) return e;
  ast::Op op = e->op;
  int cast_side = -1;
  if (IsDateAsTimestamp(*e->children[0]) && IsTimestampConstant(*e->children[1])) {
    cast_side = 0;
  } else if (IsDateAsTimestamp(*e->children[1]) && IsTimestampConstant(*e->children[0])) {
    cast_side = 1;
    op = FlipComparison(op);
  }
  if (cast_side < 0) return e;
  const int64_t t = e->children[1 - cast_side]->value.int_value();
  int64_t floor_days = t / kMicrosPerDay;
  if (t % kMicrosPerDay != 0 && t < 0) floor_days--;
  const bool midnight = floor_days * kMicrosPerDay == t;
  const int64_t ceil_days = midnight ? floor_days : floor_days + 1;
  int64_t days;
  switch (op) {
    case ast::Op::Le:
    case ast::Op::Gt: days = floor_days; break;
    case ast::Op::Lt:
    case ast::Op::Ge: days = ceil_days; break;
    case ast::Op::Eq:
    case ast::Op::Ne:
      if (!midnight) return e;
      days = floor_days;
      break;
    default: return e;
  }
  if (days < INT32_MIN || days > INT32_MAX) return e;
  BoundExprPtr date = std::move(e->children[cast_side]->children[0]);
  return MakeCompare(op, std::move(date), MakeConstant(Value::Date((int32_t)days)));
}

}  // namespace tessera
