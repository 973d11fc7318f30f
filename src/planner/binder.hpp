// The binder: resolves names against the catalog, types every expression (inserting the
// casts that make both sides of an operator agree), and turns a SELECT into a logical
// plan. All user mistakes found here are UserErrors with the AST node's position.
#pragma once
#include <string>
#include <vector>

#include "common/identifier.hpp"
#include "parser/ast.hpp"
#include "planner/bound_expr.hpp"
#include "planner/logical_plan.hpp"
#include "storage/catalog.hpp"

namespace tessera {

struct BoundQuery {
  LogicalOpPtr plan;
  std::vector<std::string> names;
  std::vector<Type> types;
};

class Binder {
 public:
  explicit Binder(Catalog& catalog) : catalog_(catalog) {}
  // Tables to bind in place of the catalog's of the same name (UPDATE and DELETE: the table
  // with its row numbers, main/data_change.cpp).
  using TableOverrides = IdentMap<std::shared_ptr<const TableEntry>>;
  void SetTableOverrides(const TableOverrides* overrides) { overrides_ = overrides; }
  // The threads a file read at bind time may use (FROM 'f.csv': the session's SET threads;
  // 0: all hardware threads).
  void SetFileThreads(unsigned threads) { file_threads_ = threads; }
  BoundQuery BindSelect(const ast::SelectStmt& stmt);
  // Binds an expression without any columns in scope (INSERT ... VALUES).
  BoundExprPtr BindStandalone(const ast::Expr& e);
  // Whether what was bound reads files (FROM 'f.csv'): its plan holds their contents as of
  // now, so it must not be cached (main/plan_cache.hpp).
  bool reads_files() const { return reads_files_; }
  // Whether what was bound holds the statement's time (now(), current_date): its plan must
  // not be cached either.
  bool reads_clock() const { return clock_micros_ >= 0; }
  // Whether it samples rows without a seed (USING SAMPLE, TABLESAMPLE): its plan holds a
  // seed drawn now, so it must not be cached either.
  bool draws_random() const { return draws_random_; }
  // Whether binding ran a query over the data (PIVOT without IN: the columns are the
  // values found): its plan must not be cached either.
  bool reads_data() const { return reads_data_; }

  // Shared typing rules (also used by the optimizer's constant folding).
  static Type CommonType(const Type& a, const Type& b, SourcePos pos = {});
  // The type of a set operation's column from its operands' (UNION, INTERSECT, EXCEPT).
  static Type SetOpType(const Type& a, const Type& b, SourcePos pos = {});
  // `e` as type t (a cast, or a constant converted now; a Conversion error at pos).
  static BoundExprPtr Coerce(BoundExprPtr e, const Type& t, SourcePos pos);

 private:
  // A FROM item's columns. Names (alias, column names) are as written or created and
  // are matched ignoring case (common/identifier.hpp); an entry's column names are unique
  // (AddScopeEntry).
  struct ScopeEntry {
    std::string alias;
    std::vector<std::string> names;
    std::vector<Type> types;
    std::vector<ColumnBinding> bindings;
    // JOIN ... USING / NATURAL JOIN (bind_table_ref.cpp): the join columns appear once to
    // unqualified names and `*`. The right side's are hidden (only alias.name reaches
    // them); the left side's stand for `merged` where set (the right side's column for a
    // RIGHT join, COALESCE of both for a FULL join). Empty when no column is either.
    std::vector<uint8_t> hidden;
    std::vector<std::shared_ptr<const BoundExpr>> merged;
    bool Hidden(size_t i) const { return i < hidden.size() && hidden[i]; }
    // What the unqualified name of column i (or `*`) stands for.
    BoundExprPtr Unqualified(size_t i) const {
      if (i < merged.size() && merged[i]) return merged[i]->Copy();
      return MakeColumn(bindings[i], types[i], names[i]);
    }
    // The name column i is shown by, unqualified or through `*`: a RIGHT join's USING
    // column is the right side's (and spelled as it is there), as in DuckDB.
    const std::string& UnqualifiedName(size_t i) const {
      if (i < merged.size() && merged[i] && merged[i]->kind == BExpr::Column) return merged[i]->name;
      return names[i];
    }
  };
  struct Scope {
    std::vector<ScopeEntry> entries;
  };
  // Adds a FROM item's columns to `scope`: its alias must differ from the others' (ignoring
  // case), and its column names equal ignoring case get DuckDB's suffixes (a, A: a, A_1).
  static void AddScopeEntry(Scope& scope, ScopeEntry se, SourcePos pos);
  // A select-list item after `*` is expanded: an expression as written (`expr`, a star's
  // REPLACE expression among them) or a column a star stands for (`star_col`).
  struct SelectListItem {
    const ast::Expr* expr;
    std::string alias;
    BoundExprPtr star_col;
    // An expression holding COLUMNS(...) (bind_columns_star.cpp): bound with its COLUMNS
    // standing for column `columns_at` of `columns`.
    std::shared_ptr<const std::vector<SelectListItem>> columns = nullptr;
    size_t columns_at = 0;
  };
  // `*` / `t.*` with its EXCLUDE and REPLACE modifiers, appended to `items` (bind_star.cpp).
  static void ExpandStar(const ast::Expr& star, const Scope& scope, std::vector<SelectListItem>& items);
  // COLUMNS(...) (bind_columns_star.cpp): the COLUMNS stars in `e` (not in its subqueries),
  // checked to be one and the same; the columns one selects (as ExpandStar's items); a
  // select-list item holding them expanded into one item per column; an item bound (with
  // its COLUMNS standing for its column).
  static const ast::Expr* FindColumnsStar(const ast::Expr& e);
  std::vector<SelectListItem> ExpandColumnsStar(const ast::Expr& star, const Scope& scope);
  void ExpandColumnsItem(const ast::SelectItem& si, const Scope& scope, std::vector<SelectListItem>& items);
  // COLUMNS(c -> cond): whether cond holds with c the column's name.
  bool ColumnsLambdaTakes(const ast::Expr& star, const std::string& name);
  // While an expression holding COLUMNS is bound: the column its COLUMNS stands for.
  const SelectListItem* columns_current_ = nullptr;
  struct ColumnsScope {  // sets columns_current_ for a scope, restoring it after
    Binder& b;
    const SelectListItem* saved;
    ColumnsScope(Binder& binder, const SelectListItem* current) : b(binder), saved(binder.columns_current_) {
      b.columns_current_ = current;
    }
    ~ColumnsScope() { b.columns_current_ = saved; }
  };
  // GROUP BY ALL (bind_group_order_all.cpp): whether select-list item `it` is a group
  // (no aggregate, not a constant; an item mixing aggregates with other columns is an error).
  static bool GroupByAllItem(const SelectListItem& it);
  struct AggState {
    uint32_t group_index, agg_index;
    std::vector<BoundExprPtr> groups;
    std::vector<BoundExprPtr> aggs;
    // GROUPING(args) / GROUPING_ID(args) calls (bind_grouping_sets.cpp): each its
    // arguments' indices in `groups`, bound (grouping_index, k) as BIGINT.
    uint32_t grouping_index = 0;
    std::vector<std::vector<uint32_t>> grouping_calls;
    // Joins evaluating subqueries in aggregate arguments (and FILTER clauses): applied to
    // the aggregation's input, under it.
    std::vector<LogicalOpPtr> arg_joins;
  };
  // The window functions of a SELECT (bind_window.cpp): bound (index, i), computed by a
  // Window operator under the select list; `stmt` holds the named windows.
  struct WindowState {
    uint32_t index = 0;
    const ast::SelectStmt* stmt = nullptr;
    std::vector<BoundExprPtr> exprs;
  };
  struct Ctx {
    const Scope* scope = nullptr;
    AggState* agg = nullptr;      // non-null: aggregates allowed, columns must be grouped
    WindowState* win = nullptr;   // non-null: window functions allowed
    // QUALIFY: select-list aliases a name not in scope may refer to (bound items).
    const std::vector<std::pair<std::string, const BoundExpr*>>* aliases = nullptr;
    // WHERE, GROUP BY, HAVING: the select list's aliases (name, expression as written) a
    // name not in the query's scope may refer to; the expression is bound in its place
    // (bind_select_alias.cpp). `alias_group_expr`: in a GROUP BY expression, where naming
    // an alias is an error (DuckDB allows only a bare alias there).
    const std::vector<std::pair<std::string, const ast::Expr*>>* select_aliases = nullptr;
    bool alias_group_expr = false;
    const char* clause = "";      // for "not allowed in WHERE" messages
    // Where subqueries may appear: the joins that evaluate them are collected here (each
    // a Join with only its right child; ApplyJoins puts the query's plan on the left).
    std::vector<LogicalOpPtr>* joins = nullptr;
  };
  // A subquery bound for use in an expression, its correlated predicates pulled out
  // (bind_subquery.cpp).
  struct SubqueryPlan {
    LogicalOpPtr plan;
    std::vector<Type> types;               // the subquery's visible columns
    std::vector<BoundExprPtr> correlated;  // predicates over outer and plan columns
    LogicalOp* grouped_agg = nullptr;      // an ungrouped aggregate the pull-up grouped
    // Correlated: the subquery as bound (for MakeGeneral when the pull-up's plan does not
    // serve), and the enclosing query's columns it may refer to.
    LogicalOpPtr original;
    std::vector<ColumnBinding> outer;
    // Refers to a column of any enclosing query (not only the immediately enclosing one).
    bool refers_out = false;
    // The general decorrelation (decorrelate.hpp) in place of the pull-up: `plan` is S'
    // and `outer`/`domain` the columns to join it back on (NULLs equal).
    bool general = false;
    std::vector<ColumnBinding> domain;
    std::vector<Type> domain_types;
  };
  // The enclosing query's columns a subquery bound in `ctx` may refer to. In a grouped
  // query's select list, HAVING or ORDER BY these are its groups: the subquery's
  // references to grouped columns are rebound to the groups' outputs in `plan` (any
  // other is an error).
  static std::vector<ColumnBinding> SubqueryOuterColumns(LogicalOp& plan, const Ctx& ctx, SourcePos pos);
  // Turns a correlated SubqueryPlan into the general decorrelation's.
  void MakeGeneral(SubqueryPlan& sp, SourcePos pos);

  // The query nodes other than the SELECT core (bind_set_operation.cpp, bind_values.cpp),
  // and the ORDER BY/LIMIT/OFFSET over their result.
  BoundQuery BindSetOperation(const ast::SelectStmt& stmt, std::vector<std::string>& other_names);
  void MatchColumnsByName(BoundQuery& l, BoundQuery& r);
  BoundQuery BindValues(const ast::SelectStmt& stmt);
  BoundQuery BindNodeTail(const ast::SelectStmt& stmt, BoundQuery q, const std::vector<std::string>& other_names,
                          const char* node);
  // DISTINCT ON: over the select list's projection `plan`, the first row of each value of
  // its columns `keys` in the order of `orders` (bind_distinct_on.cpp).
  LogicalOpPtr ApplyDistinctOn(LogicalOpPtr plan, const std::vector<int>& keys, const std::vector<Type>& types,
                               const std::vector<OrderSpec>& orders);
  // DISTINCT over all of `plan`'s columns: an aggregate grouping by them all.
  LogicalOpPtr MakeDistinct(LogicalOpPtr plan, const std::vector<std::string>& names);

  LogicalOpPtr BindFrom(const ast::TableRef& ref, Scope& scope);  // with its TABLESAMPLE
  LogicalOpPtr BindFromItem(const ast::TableRef& ref, Scope& scope);
  // USING SAMPLE / TABLESAMPLE (bind_sample.cpp): the rows of `plan` the sample keeps.
  LogicalOpPtr ApplySample(LogicalOpPtr plan, const ast::SampleSpec& spec);
  // JOIN ... USING (cols) / NATURAL JOIN: the condition equating the named columns of the
  // left side (scope entries [left_begin, right_begin)) with the right side's (the rest),
  // and the scope changes making each appear once (ScopeEntry::hidden, merged).
  BoundExprPtr BindUsing(const ast::TableRef& ref, Scope& scope, size_t left_begin, size_t right_begin);
  // ASOF [LEFT | RIGHT | FULL] JOIN of the bound sides (bind_asof_join.cpp): its condition
  // split into equality keys and the one inequality (LJoinType::AsOf).
  LogicalOpPtr BindAsOfJoin(const ast::TableRef& ref, LogicalOpPtr left, LogicalOpPtr right, Scope& scope,
                            size_t left_begin, size_t right_begin);
  LogicalOpPtr BindBaseTable(const ast::TableRef& ref, Scope& scope);
  // A scan of `entry` (a catalog table, or one made by BindSystemTable) named by `ref`.
  // `name` (when given) replaces ref.name as the table's name.
  LogicalOpPtr BindTableEntry(std::shared_ptr<const TableEntry> entry, const ast::TableRef& ref, Scope& scope,
                              const std::string* name = nullptr);
  // A file read as a table: FROM 'file', read_parquet(...), read_csv(...) (bind_table_function.cpp).
  LogicalOpPtr BindTableFunction(const ast::TableRef& ref, Scope& scope);
  // Tables made from the catalog at bind time (bind_system_table.cpp): SHOW TABLES,
  // DESCRIBE, information_schema.tables and information_schema.columns.
  LogicalOpPtr BindSystemTable(const ast::TableRef& ref, Scope& scope);
  // SUMMARIZE name | query: DuckDB's statistics of each column (bind_summarize.cpp).
  LogicalOpPtr BindSummarize(const ast::TableRef& ref, Scope& scope);
  // PIVOT / UNPIVOT (bind_pivot.cpp): rewritten into a query written in SQL over the
  // pivoted item's text (UnpivotQuery, PivotQuery: the query, and per aggregate column
  // the condition its aggregates are filtered by), bound in the item's place.
  LogicalOpPtr BindPivot(const ast::TableRef& ref, Scope& scope);
  std::string UnpivotQuery(const ast::TableRef& ref);
  std::string PivotQuery(const ast::TableRef& ref, std::vector<std::string>& conditions);
  // A query written in SQL bound on its own (not seeing enclosing queries); and bound,
  // planned for the CPU and run now (its rows). Errors are reported at pivot_pos_.
  BoundQuery BindQueryText(const std::string& sql);
  std::vector<std::vector<Value>> RunQueryText(const std::string& sql);
  const char* pivot_what_ = "PIVOT";
  SourcePos pivot_pos_;
  bool reads_data_ = false;
  struct RelationColumn {
    std::string name;
    Type type;
    bool not_null = false;
    std::string default_sql;  // a table column's DEFAULT ("" when none)
    const char* key = nullptr;  // "PRI" (in the PRIMARY KEY), "UNI" (in a UNIQUE constraint)
  };
  // The columns of a table, a view or (ref.subquery) a query, as DESCRIBE shows them.
  std::vector<RelationColumn> DescribeRelation(const ast::TableRef& ref);
  // WITH RECURSIVE (bind_recursive_cte.cpp): a reference to a recursive CTE (null when its
  // query does not refer to itself: then it is bound as any CTE), and a reference to the
  // CTE being bound from inside its recursive part (its working table).
  LogicalOpPtr BindRecursiveCte(const ast::CommonTableExpr& cte, const ast::TableRef& ref, Scope& scope);
  LogicalOpPtr BindWorkingTable(const ast::TableRef& ref, Scope& scope);
  struct WorkingTable {
    const ast::CommonTableExpr* cte;
    uint32_t cte_index;
    std::vector<std::string> names;
    std::vector<Type> types;
    int references = 0;
  };
  std::vector<WorkingTable> working_tables_;
  std::vector<const ast::CommonTableExpr*> recursive_binding_;  // anchors being bound
  // LATERAL (subquery) (bind_subquery.cpp): bound seeing the FROM items before it in
  // `scope`; its correlated predicates pulled up as for subqueries in expressions. Without
  // any, its plan; else a pending inner Join holding only the subquery (its right child)
  // and the join condition, which the caller completes with the left side (IsPendingJoin).
  LogicalOpPtr BindLateral(const ast::TableRef& ref, Scope& scope);
  LogicalOpPtr BindSubqueryRef(const ast::SelectStmt& q, const std::string& alias,
                               const std::vector<std::string>& col_aliases, SourcePos pos,
                               Scope& scope, bool check_aliases, bool derived = false);
  BoundExprPtr Bind(const ast::Expr& e, Ctx& ctx);
  BoundExprPtr BindItem(const SelectListItem& it, Ctx& ctx);  // bind_columns_star.cpp
  // Select-list aliases in WHERE, GROUP BY and HAVING (bind_select_alias.cpp): the
  // expression an unqualified column reference names when it is no column of the query's
  // FROM items but an alias (the last of equal ones); whether `e` names one whose
  // expression satisfies `pred` (or any alias, pred null); the alias bound in its place.
  const ast::Expr* FindSelectAlias(const ast::Expr& e, const Ctx& ctx) const;
  bool UsesSelectAlias(const ast::Expr& e, const Ctx& ctx, bool (*pred)(const ast::Expr&) = nullptr) const;
  BoundExprPtr BindSelectAlias(const ast::Expr& ref, const ast::Expr& target, Ctx& ctx);
  // `e` bound as the alias it names (in HAVING also a column of the FROM items that is not
  // grouped), or null when it names none.
  BoundExprPtr TryBindSelectAlias(const ast::Expr& e, Ctx& ctx);
  BoundExprPtr BindInner(const ast::Expr& e, Ctx& ctx);
  // What a column reference names: column `index` of a scope entry, or (QUALIFY) a
  // select-list alias's expression. Throws when it names nothing or is ambiguous.
  struct ResolvedColumn {
    const ScopeEntry* entry = nullptr;
    size_t index = 0;
    const BoundExpr* alias = nullptr;
  };
  ResolvedColumn ResolveColumn(const ast::Expr& e, const Ctx& ctx) const;
  // A column reference bound; its BoundExpr's name is the reference as written (for
  // display names of expressions: `x + 1` is "(x + 1)" whatever the column's spelling).
  BoundExprPtr BindColumn(const ast::Expr& e, const Ctx& ctx);
  // The name a select item that is a bare column reference gets: the column's spelling in
  // its FROM item (the catalog's: `SELECT x FROM t` of a column created as X shows X).
  std::string ColumnDisplayName(const ast::Expr& e, const Ctx& ctx) const;
  BoundExprPtr BindLiteral(const ast::Expr& e);
  BoundExprPtr BindBinary(const ast::Expr& e, Ctx& ctx);
  BoundExprPtr BindArith(ast::Op op, BoundExprPtr l, BoundExprPtr r, SourcePos pos);
  BoundExprPtr BindFunction(const ast::Expr& e, Ctx& ctx);
  // nextval / currval: resolves the sequence their constant argument names (call.sequence).
  void BindSequence(BoundExpr& call, const ast::Expr& e);
  BoundExprPtr BindAggregate(const ast::Expr& e, Ctx& ctx);
  // GROUPING SETS, ROLLUP, CUBE and GROUPING() (bind_grouping_sets.cpp): the call, and the
  // aggregation of each set (of indices into agg.groups) under one UNION ALL whose columns,
  // bound (out_index, i), are every group (NULL where not in the set), the aggregates and
  // the GROUPING() values.
  BoundExprPtr BindGrouping(const ast::Expr& e, Ctx& ctx);
  LogicalOpPtr ApplyGroupingSets(LogicalOpPtr input, const AggState& agg,
                                 const std::vector<std::vector<uint32_t>>& sets, uint32_t out_index);
  // The aggregate call `e` (BExpr::Agg) bound in `inner`, not yet an aggregate of the query.
  BoundExprPtr MakeAggregate(const ast::Expr& e, Ctx& inner);
  void BindAggregateOrder(const ast::Expr& e, BoundExpr& agg, Ctx& inner);
  // Window functions (bind_window.cpp): a call with OVER, and the operator computing them.
  BoundExprPtr BindWindow(const ast::Expr& e, Ctx& ctx);
  LogicalOpPtr ApplyWindow(LogicalOpPtr plan, WindowState& win);
  // Subqueries in expressions (bind_subquery.cpp).
  SubqueryPlan BindSubqueryPlan(const ast::Expr& e, const Ctx& ctx);
  BoundExprPtr BindSubqueryExpr(const ast::Expr& e, Ctx& ctx);
  bool BindSubqueryConjunct(const ast::Expr& e, Ctx& ctx, std::vector<BoundExprPtr>& late);
  LogicalOpPtr BindWhere(const ast::Expr& where, LogicalOpPtr plan, const Scope& scope,
                         const std::vector<std::pair<std::string, const ast::Expr*>>* select_aliases = nullptr);
  BoundExprPtr ToBoolean(BoundExprPtr e, SourcePos pos, const char* what);

  Catalog& catalog_;
  const TableOverrides* overrides_ = nullptr;
  bool reads_files_ = false;
  unsigned file_threads_ = 0;
  int64_t clock_micros_ = -1;
  bool draws_random_ = false;  // the statement's time once read (now(), current_date)
  uint32_t next_index_ = 0;
  using CteMap = IdentMap<const ast::CommonTableExpr*>;
  std::vector<CteMap> ctes_;
  // Scopes of the queries enclosing the one being bound (innermost last): a column not
  // found in its own scope may refer to the immediately enclosing query (correlation).
  std::vector<const Scope*> outer_scopes_;
  static constexpr int kMaxViewDepth = 32;
  int view_depth_ = 0;
};

// Puts `plan` under each pending join (as its left child), in order.
LogicalOpPtr ApplyJoins(LogicalOpPtr plan, std::vector<LogicalOpPtr>& joins);
bool AstContainsSubquery(const ast::Expr& e);

bool IsAggregateName(const std::string& name);  // GROUPING and GROUPING_ID included
bool IsGroupingName(const std::string& name);
// e with the columns of an aggregation's groups, aggregates and GROUPING() calls bound to
// the grouping sets' output instead (bind_grouping_sets.cpp).
void RebindGroupingOutput(BoundExpr& e, uint32_t group_index, uint32_t agg_index, uint32_t grouping_index,
                          size_t ngroups, size_t naggs, uint32_t out_index);
bool AstContainsAggregate(const ast::Expr& e);  // outside window function calls' own
bool AstContainsWindow(const ast::Expr& e);

}  // namespace tessera
