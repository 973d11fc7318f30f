// Bound (resolved, typed) expressions: what the binder produces from the AST and what
// both backends evaluate. Column references name a ColumnBinding (table index, column)
// until the physical planner resolves them to a position in the operator's input.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/value.hpp"
#include "parser/ast.hpp"

namespace tessera {

struct ColumnBinding {
  uint32_t table = 0;
  uint32_t column = 0;
  bool operator==(const ColumnBinding& o) const { return table == o.table && column == o.column; }
  bool operator<(const ColumnBinding& o) const {
    return table != o.table ? table < o.table : column < o.column;
  }
};

enum class BExpr {
  Column,    // binding -> index
  Constant,  // value
  Cast,      // children[0] to type; negated: TRY_CAST (a value that cannot convert is NULL)
  Compare,   // op in Eq..Ge; children[0..1] of equal type
  And,       // children[*] (n-ary)
  Or,        // children[*] (n-ary)
  Not,       // children[0]
  Arith,     // op in Add, Sub, Mul, Div, Mod, IntDiv; children[0..1] (see binder for typing)
  Neg,       // children[0]
  IsNull,    // children[0]; negated = IS NOT NULL
  Like,      // children[0] LIKE children[1]; negated
  InList,    // children[0] IN (children[1..]); negated; all of equal type
  Case,      // children: when0, then0, when1, then1, ..., else (always present)
  Func,      // scalar function fn (registry entry; `name` is its name), children = args
  Agg,       // aggregate agg_fn (sum, count, count_star, avg, min, max; `name`), distinct; children
  Window,    // window function `window` (planner/bound_window.hpp: the children's layout); agg_fn
};

struct BoundExpr;
struct ScalarFunction;     // function/function_registry.hpp
struct AggregateFunction;  // function/function_registry.hpp
struct WindowInfo;         // planner/bound_window.hpp
struct SequenceEntry;      // storage/catalog.hpp
namespace ops {
class LikePattern;         // function/like_pattern.hpp
}
using BoundExprPtr = std::unique_ptr<BoundExpr>;

struct BoundExpr {
  BExpr kind;
  Type type;
  ColumnBinding binding;
  int index = -1;  // Column: position in the input chunk (set by the physical planner)
  Value value;
  ast::Op op = ast::Op::Eq;
  bool negated = false;
  bool distinct = false;
  std::string name;  // Func/Agg name; Column: display name (as written; Equals ignores it)
  const ScalarFunction* fn = nullptr;         // Func: the registry's entry, set by the binder
  const AggregateFunction* agg_fn = nullptr;  // Agg: the registry's entry, set by the binder
  std::shared_ptr<const WindowInfo> window;    // Window: what it computes (immutable, shared by copies)
  // Agg with ORDER BY inside its call (string_agg(x, ',' ORDER BY y DESC), first, last,
  // any_value): the last agg_order.size() children are the keys, in this order.
  struct AggOrder {
    bool desc = false;
    bool nulls_first = false;
    bool operator==(const AggOrder&) const = default;
  };
  std::vector<AggOrder> agg_order;
  // Like with a constant pattern (and escape): the pattern compiled once, by the physical
  // planner (its Resolve), on the final expression; Copy() leaves it out (a copy may get
  // other children). Null: the executor compiles the pattern per call.
  std::shared_ptr<const ops::LikePattern> like;
  // Func of a sequence function (nextval, currval): the sequence its constant argument
  // names, resolved by the binder; null for a NULL name (the call is NULL).
  std::shared_ptr<const SequenceEntry> sequence;
  std::vector<BoundExprPtr> children;

  BoundExpr(BExpr k, Type t) : kind(k), type(t) {}
  BoundExprPtr Copy() const;
  bool Equals(const BoundExpr& o) const;
  // The same, with column references compared by `same_column` (this side's binding, the
  // other's) instead of by equal bindings: two plans of one query that bind the same
  // columns under different table indexes (optimizer/shared_subplans.cpp).
  bool Equals(const BoundExpr& o, const std::function<bool(ColumnBinding, ColumnBinding)>& same_column) const;
  std::string ToString() const;
  bool IsConstant() const;  // no column references, aggregates or volatile calls (random())
  bool CallsVolatile() const;  // a volatile call (random()) anywhere in the expression
  void CollectBindings(std::vector<ColumnBinding>& out) const;
  bool ContainsAggregate() const;
};

BoundExprPtr MakeColumn(ColumnBinding b, Type t, std::string name);
BoundExprPtr MakeConstant(Value v);
BoundExprPtr MakeCast(BoundExprPtr e, Type t);  // no-op when already of type t
// CASE WHEN v IS NULL THEN 0 ELSE v END (of v's type): a count over no rows (zero_on_empty)
// where the plan computes it as NULL.
BoundExprPtr ZeroWhenNull(BoundExprPtr v);
BoundExprPtr MakeCompare(ast::Op op, BoundExprPtr l, BoundExprPtr r);
BoundExprPtr MakeAnd(std::vector<BoundExprPtr> terms);  // empty -> TRUE
// The comparison with its operands swapped: a < b  <=>  b > a.
ast::Op FlipComparison(ast::Op op);
// Splits a predicate into its AND-ed terms.
void SplitConjunction(BoundExprPtr e, std::vector<BoundExprPtr>& out);

}  // namespace tessera
