// PIVOT and UNPIVOT (parser/parse_pivot.cpp), as DuckDB runs them, rewritten into ordinary
// queries written in SQL over the pivoted item's text and bound like a view's text (so the
// plan holds only the usual operators, on either device):
//
// UNPIVOT: the item's rows cross-joined with VALUES (0), (1), ... (one row per unpivoted
// entry), the name column a CASE on that number giving the entry's name (its alias, or the
// column's name as the item spells it) and each value column a CASE giving the entry's
// column cast to the value column's type (the entries' common type: DuckDB's error when
// there is none, e.g. INTEGER and VARCHAR); rows whose values are all NULL are dropped
// unless INCLUDE NULLS. The other columns come first, in the item's order.
//
// PIVOT: one aggregation grouped by the GROUP BY expressions (none given: every column of
// the item that ON and USING do not name), one output column per combination of the ON
// expressions' values (the product, the first expression outermost) and USING aggregate,
// each aggregate given FILTER (WHERE <the combination's values>). Without IN, an ON
// expression's values are its distinct non-NULL values cast to VARCHAR in text order, found
// by running a query now (at most kPivotLimit of them, DuckDB's pivot_limit); the plan then
// holds data and is not cached (reads_data). A value matches as DuckDB matches it: by its
// text (CAST(expr AS VARCHAR) = 'text'), or by equality where that is the same (the value
// has the expression's type, or was found from it). Columns are named `value[_value2...]`,
// with `_name` appended per aggregate when there are several or the one has an alias (the
// alias, else the aggregate as the select list would name it); count(*) of an empty
// combination is 0, other aggregates NULL, as in DuckDB.
#include <algorithm>
#include <thread>

#include "execution/operators/basic_operators.hpp"
#include "execution/physical_planner.hpp"
#include "execution/pipeline.hpp"
#include "optimizer/optimizer.hpp"
#include "parser/parser.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

namespace {

constexpr size_t kPivotLimit = 100000;  // DuckDB's default pivot_limit


std::unique_ptr<ast::Statement> ParseQueryText(const std::string& sql) {
  auto stmts = ParseSQL(sql);
  TESSERA_ASSERT(stmts.size() == 1 && stmts[0]->kind == ast::StmtKind::Select, "PIVOT's generated query");
  return std::move(stmts[0]);
}

const ast::SelectStmt& SelectOf(const std::unique_ptr<ast::Statement>& st) {
  return *static_cast<const ast::SelectStatement&>(*st).select;
}

// The column names an expression refers to (in any case; subqueries' included).
void ReferencedNames(const ast::Expr& e, std::vector<std::string>& out) {
  if (e.kind == ast::ExprKind::Column) out.push_back(e.name);
  for (auto& c : e.children)
    if (c) ReferencedNames(*c, out);
  for (auto& o : e.order_by)
    if (o.expr) ReferencedNames(*o.expr, out);
}

// Gives every aggregate call in `e` (outside window calls) the extra condition made by
// `cond()`, ANDed with its own FILTER; returns how many it found.
template <class MakeCond>
int AddAggregateFilter(ast::Expr& e, const MakeCond& cond) {
  if (e.kind == ast::ExprKind::Function && !e.over && IsAggregateName(e.name) && !IsGroupingName(e.name)) {
    ast::ExprPtr c = cond();
    if (e.has_filter) {
      auto both = std::make_unique<ast::Expr>(ast::ExprKind::Binary, e.pos);
      both->op = ast::Op::And;
      both->children.push_back(std::move(e.children.back()));
      both->children.push_back(std::move(c));
      e.children.back() = std::move(both);
    } else {
      e.children.push_back(std::move(c));
      e.has_filter = true;
    }
    return 1;
  }
  int n = 0;
  for (auto& c : e.children)
    if (c) n += AddAggregateFilter(*c, cond);
  return n;
}

}  // namespace

BoundQuery Binder::BindQueryText(const std::string& sql) {
  // Errors inside the generated text are reported at the PIVOT / UNPIVOT (their positions
  // would point into text the user never wrote).
  std::unique_ptr<ast::Statement> st;
  auto saved = outer_scopes_;  // the pivoted item does not see the queries around it
  outer_scopes_.clear();
  BoundQuery bq;
  try {
    st = ParseQueryText(sql);
    bq = BindSelect(SelectOf(st));
  } catch (const UserError& e) {
    outer_scopes_ = std::move(saved);
    throw UserError(e.kind(), std::string("in ") + pivot_what_ + ": " + e.raw(), pivot_pos_);
  } catch (...) {
    outer_scopes_ = std::move(saved);
    throw;
  }
  outer_scopes_ = std::move(saved);
  return bq;
}

std::vector<std::vector<Value>> Binder::RunQueryText(const std::string& sql) {
  BoundQuery bq = BindQueryText(sql);
  LogicalOpPtr plan = Optimize(std::move(bq.plan), /*for_cpu=*/true);
  PhysicalOperatorPtr phys = CreatePhysicalPlan(*plan);
  PipelineSet pipelines(phys.get());
  unsigned threads = file_threads_ ? file_threads_ : std::max(1u, std::thread::hardware_concurrency());
  pipelines.Execute(threads);
  std::vector<std::vector<Value>> rows;
  for (auto& c : static_cast<PhysicalResult*>(phys.get())->result.chunks)
    for (uint32_t r = 0; r < c.size; r++) {
      std::vector<Value> row;
      for (auto& col : c.cols) row.push_back(col.GetValue(r));
      rows.push_back(std::move(row));
    }
  return rows;
}

std::string Binder::UnpivotQuery(const ast::TableRef& ref) {
  const ast::PivotSpec& spec = *ref.pivot;
  const BoundQuery src = BindQueryText("SELECT * FROM " + spec.source);
  // The entries: per entry its columns (indices into src) and its name.
  struct Entry {
    std::vector<size_t> columns;
    std::string name;
    SourcePos pos;
  };
  std::vector<Entry> entries;
  for (const ast::UnpivotEntry& e : spec.entries) {
    if (e.star) {
      Scope scope;
      ScopeEntry se;
      se.names = src.names;
      se.types = src.types;
      for (size_t i = 0; i < src.names.size(); i++) se.bindings.push_back({0, (uint32_t)i});
      scope.entries.push_back(std::move(se));
      std::vector<SelectListItem> items;
      if (e.star->columns) {
        items = ExpandColumnsStar(*e.star, scope);
      } else {
        ExpandStar(*e.star, scope, items);
      }
      for (auto& it : items) {
        TESSERA_ASSERT(it.star_col && it.star_col->kind == BExpr::Column, "UNPIVOT's star column");
        const size_t i = it.star_col->binding.column;
        entries.push_back({{i}, src.names[i], e.pos});
      }
      continue;
    }
    Entry out{{}, e.alias, e.pos};
    std::string joined;
    for (const std::string& c : e.columns) {
      size_t i = 0;
      while (i < src.names.size() && !IdentEquals(src.names[i], c)) i++;
      if (i == src.names.size())
        throw BindError("Column \"" + c + "\" referenced in UNPIVOT but no matching entry was found in the table",
                        e.pos);
      out.columns.push_back(i);
      joined += (joined.empty() ? "" : "_") + src.names[i];
    }
    if (out.name.empty()) out.name = joined;
    entries.push_back(std::move(out));
  }
  if (entries.empty()) throw BindError("UNPIVOT requires at least one column to unpivot", ref.pos);
  const size_t nvalues = spec.value_columns.size();
  for (const Entry& e : entries)
    if (e.columns.size() != nvalues)
      throw BindError("UNPIVOT: an entry has " + std::to_string(e.columns.size()) + " column(s) but there are " +
                          std::to_string(nvalues) + " value column(s)",
                      e.pos);
  // Each value column's type: the common type of its entries' columns.
  std::vector<Type> value_types(nvalues);
  for (size_t v = 0; v < nvalues; v++) {
    Type t = src.types[entries[0].columns[v]];
    for (size_t k = 1; k < entries.size(); k++) {
      const Type& u = src.types[entries[k].columns[v]];
      bool ok = true;
      if (t != u && (t.id == TypeId::Varchar || u.id == TypeId::Varchar)) {
        ok = false;
      } else {
        try {
          t = CommonType(t, u, entries[k].pos);
        } catch (const UserError&) {
          ok = false;
        }
      }
      if (!ok)
        throw BindError("Cannot unpivot columns of types " + t.ToString() + " and " + u.ToString() +
                            " - an explicit cast is required",
                        entries[k].pos);
    }
    value_types[v] = t;
  }
  std::vector<bool> unpivoted(src.names.size(), false);
  for (const Entry& e : entries)
    for (size_t i : e.columns) unpivoted[i] = true;
  const std::string k = "__tessera_unpivot_k";
  std::string list;
  for (size_t i = 0; i < src.names.size(); i++)
    if (!unpivoted[i]) list += QuoteIdent(src.names[i]) + ", ";
  list += "CASE " + k;
  for (size_t e = 0; e < entries.size(); e++)
    list += " WHEN " + std::to_string(e) + " THEN " + QuoteText(entries[e].name);
  list += " END AS " + QuoteIdent(spec.name_column);
  std::string nonnull;
  for (size_t v = 0; v < nvalues; v++) {
    list += ", CASE " + k;
    for (size_t e = 0; e < entries.size(); e++) {
      const size_t c = entries[e].columns[v];
      std::string col = QuoteIdent(src.names[c]);
      if (src.types[c] != value_types[v]) col = "CAST(" + col + " AS " + value_types[v].ToString() + ")";
      list += " WHEN " + std::to_string(e) + " THEN " + col;
    }
    list += " END AS " + QuoteIdent(spec.value_columns[v]);
    nonnull += (v ? " OR " : "") + QuoteIdent(spec.value_columns[v]) + " IS NOT NULL";
  }
  std::string numbers;
  for (size_t e = 0; e < entries.size(); e++) numbers += (e ? ", (" : "(") + std::to_string(e) + ")";
  std::string sql = "SELECT " + list + " FROM " + spec.source + ", (VALUES " + numbers +
                    ") AS __tessera_unpivot(" + k + ")";
  if (!spec.include_nulls) sql = "SELECT * FROM (" + sql + ") AS __tessera_unpivoted WHERE " + nonnull;
  return sql;
}

std::string Binder::PivotQuery(const ast::TableRef& ref, std::vector<std::string>& conditions) {
  const ast::PivotSpec& spec = *ref.pivot;
  const BoundQuery src = BindQueryText("SELECT * FROM " + spec.source);
  std::string on_list;
  for (auto& on : spec.on) on_list += (on_list.empty() ? "" : ", ") + ("(" + on.text + ")");
  const std::vector<Type> on_types = BindQueryText("SELECT " + on_list + " FROM " + spec.source).types;
  // Each ON expression's values: (the column name part, the condition matching it).
  std::vector<std::vector<std::pair<std::string, std::string>>> values(spec.on.size());
  for (size_t j = 0; j < spec.on.size(); j++) {
    const ast::PivotOn& on = spec.on[j];
    const Type& t = on_types[j];
    const std::string e = "(" + on.text + ")";
    const bool text = t.id == TypeId::Varchar;
    auto typed_match = [&](const std::string& s) {
      return e + " = " + (text ? QuoteText(s) : "CAST(" + QuoteText(s) + " AS " + t.ToString() + ")");
    };
    auto text_match = [&](const std::string& s) { return "CAST(" + e + " AS VARCHAR) = " + QuoteText(s); };
    if (!on.has_in) {
      auto rows = RunQueryText("SELECT DISTINCT CAST(" + e + " AS VARCHAR) AS __tessera_pivot_value FROM " +
                               spec.source + " WHERE " + e + " IS NOT NULL ORDER BY __tessera_pivot_value");
      reads_data_ = true;
      if (rows.size() > kPivotLimit)
        throw BindError("PIVOT on " + on.text + " would make " + std::to_string(rows.size()) +
                            " columns, more than the limit of " + std::to_string(kPivotLimit) +
                            " (name the values with ON ... IN (...))",
                        on.pos);
      for (auto& r : rows) {
        const std::string s = r[0].ToString();
        values[j].push_back({s, typed_match(s)});
      }
      continue;
    }
    // IN (...): each value's text (its CAST to VARCHAR), found by running the constants.
    std::string consts;
    for (auto& v : on.in)
      if (!v.name) consts += (consts.empty() ? "" : ", ") + ("CAST((" + v.text + ") AS VARCHAR), (" + v.text + ")");
    std::vector<std::vector<Value>> rows;
    std::vector<Type> types;
    if (!consts.empty()) {
      types = BindQueryText("SELECT " + consts).types;
      rows = RunQueryText("SELECT " + consts);
      TESSERA_ASSERT(rows.size() == 1, "PIVOT's IN values");
    }
    size_t at = 0;
    for (auto& v : on.in) {
      std::string s;
      bool same_type;
      if (v.name) {
        s = v.text;
        same_type = text;
      } else {
        const Value& val = rows[0][at];
        if (val.is_null()) throw BindError("PIVOT's IN values may not be NULL", v.pos);
        s = val.ToString();
        same_type = types[at + 1] == t;
        at += 2;
      }
      values[j].push_back({v.alias.empty() ? s : v.alias, same_type ? typed_match(s) : text_match(s)});
    }
  }
  // The aggregates and their names (as a select list names them).
  std::vector<std::string> aggs, agg_names;
  for (auto& a : spec.aggregates) aggs.push_back(a.text);
  if (aggs.empty()) aggs.push_back("count(*)");
  {
    std::string list;
    for (auto& a : aggs) list += (list.empty() ? "" : ", ") + a;
    agg_names = BindQueryText("SELECT " + list + " FROM " + spec.source).names;
  }
  for (size_t a = 0; a < spec.aggregates.size(); a++)
    if (!spec.aggregates[a].alias.empty()) agg_names[a] = spec.aggregates[a].alias;
  const bool suffix = aggs.size() > 1 || (spec.aggregates.size() == 1 && !spec.aggregates[0].alias.empty());
  // The groups.
  std::vector<std::string> groups;
  if (spec.has_group_by) {
    for (auto& g : spec.group_by) groups.push_back(g.text);
  } else {
    std::vector<std::string> used;
    for (auto& on : spec.on) ReferencedNames(*on.expr, used);
    for (auto& a : spec.aggregates) ReferencedNames(*a.expr, used);
    for (auto& n : src.names)
      if (std::none_of(used.begin(), used.end(), [&](const std::string& u) { return IdentEquals(u, n); }))
        groups.push_back(QuoteIdent(n));
  }
  // The combinations of values, the first ON expression outermost.
  std::vector<std::pair<std::string, std::string>> combos = values[0];
  for (size_t j = 1; j < values.size(); j++) {
    std::vector<std::pair<std::string, std::string>> next;
    for (auto& c : combos)
      for (auto& v : values[j]) next.push_back({c.first + "_" + v.first, c.second + " AND " + v.second});
    combos = std::move(next);
    if (combos.size() > kPivotLimit)
      throw BindError("PIVOT would make more than " + std::to_string(kPivotLimit) + " columns", ref.pos);
  }
  std::string list;
  for (auto& g : groups) list += (list.empty() ? "" : ", ") + g;
  conditions.clear();
  for (auto& c : combos)
    for (size_t a = 0; a < aggs.size(); a++) {
      list += (list.empty() ? "" : ", ") + aggs[a] + " AS " +
              QuoteIdent(suffix ? c.first + "_" + agg_names[a] : c.first);
      conditions.push_back(c.second);
    }
  std::string sql = "SELECT " + list + " FROM " + spec.source;
  if (!groups.empty()) {
    sql += " GROUP BY ";
    for (size_t i = 0; i < groups.size(); i++) sql += (i ? ", " : "") + groups[i];
  }
  return sql;
}

LogicalOpPtr Binder::BindPivot(const ast::TableRef& ref, Scope& scope) {
  const ast::PivotSpec& spec = *ref.pivot;
  struct Restore {
    Binder& b;
    const char* what;
    SourcePos pos;
    ~Restore() {
      b.pivot_what_ = what;
      b.pivot_pos_ = pos;
    }
  } restore{*this, pivot_what_, pivot_pos_};
  pivot_what_ = spec.unpivot ? "UNPIVOT" : "PIVOT";
  pivot_pos_ = ref.pos;
  std::vector<std::string> conditions;
  const std::string sql = spec.unpivot ? UnpivotQuery(ref) : PivotQuery(ref, conditions);
  auto st = ParseQueryText(sql);
  if (!spec.unpivot) {
    // Each aggregate column's aggregates get FILTER (WHERE <its values>).
    auto& items = static_cast<ast::SelectStatement&>(*st).select->select_list;
    const size_t first = items.size() - conditions.size();
    std::vector<std::unique_ptr<ast::Statement>> keep;  // the conditions' parses (emptied)
    for (size_t i = 0; i < conditions.size(); i++) {
      auto make = [&]() {
        keep.push_back(ParseQueryText("SELECT " + conditions[i]));
        return std::move(static_cast<ast::SelectStatement&>(*keep.back()).select->select_list[0].expr);
      };
      if (AddAggregateFilter(*items[first + i].expr, make) == 0) {
        const ast::PivotAggregate* a = spec.aggregates.empty() ? nullptr : &spec.aggregates[i % spec.aggregates.size()];
        throw BindError("PIVOT's USING expression " + (a ? a->text + " " : std::string()) +
                            "must be an aggregate: columns can only be referenced within the aggregate",
                        a ? a->pos : ref.pos);
      }
    }
  }
  try {
    return BindSubqueryRef(SelectOf(st), ref.alias, ref.column_aliases, ref.pos, scope, !ref.column_aliases.empty(),
                           true);
  } catch (const UserError& e) {  // positions inside the generated text would mislead
    throw UserError(e.kind(), std::string("in ") + pivot_what_ + ": " + e.raw(), ref.pos);
  }
}

}  // namespace tessera
