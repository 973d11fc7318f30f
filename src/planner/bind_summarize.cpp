// SUMMARIZE name | SUMMARIZE query (parser/parse_summarize.cpp): DuckDB's columns, one row
// per column of the relation, in its order:
//   column_name, column_type, min, max (as text), approx_unique (BIGINT), avg, std, q25,
//   q50, q75 (as text), count (BIGINT: the rows), null_percentage (DECIMAL(9,2)).
// It is bound as the statistics query written in SQL, one aggregating SELECT per column
// under a UNION ALL over the relation (a column's scan reads that column only), like a
// view's text: avg of numbers, DATEs and TIMESTAMPs (as a TIMESTAMP) and TIMEs; std of
// numbers; the quartiles of numbers and of DATE/TIMESTAMP/TIME values. Where DuckDB's
// values are approximate, these are exact: approx_unique is count(DISTINCT), the quartiles
// quantile_cont (DOUBLE, DECIMAL) or quantile_disc (integers, DATE, TIMESTAMP, TIME) where
// DuckDB's approx_quantile estimates them.
#include "parser/parser.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

namespace {


// The statistics of column `c` of type `t`: the select list after column_type.
std::string ColumnStatistics(const std::string& c, const Type& t) {
  auto text = [](const std::string& e) { return "CAST(" + e + " AS VARCHAR)"; };
  const std::string none = "CAST(NULL AS VARCHAR)";
  std::string avg = none, std = none, quantile;  // quantile: the aggregate's name, or none
  if (t.IsNumeric()) {
    avg = text("avg(" + c + ")");
    std = text("stddev_samp(" + c + ")");
    quantile = t.IsIntegral() ? "quantile_disc" : "quantile_cont";
  } else if (t.id == TypeId::Date || t.id == TypeId::Timestamp) {
    const std::string micros = t.id == TypeId::Date ? "epoch_us(CAST(" + c + " AS TIMESTAMP))" : "epoch_us(" + c + ")";
    avg = text("make_timestamp(CAST(avg(" + micros + ") AS BIGINT))");
    quantile = "quantile_disc";
  } else if (t.id == TypeId::Time) {
    avg = text("CAST(make_timestamp(CAST(avg(extract(epoch FROM " + c + ")) * 1000000 AS BIGINT)) AS TIME)");
    quantile = "quantile_disc";
  }
  std::string s = text("min(" + c + ")") + " AS min, " + text("max(" + c + ")") + " AS max, approx_count_distinct(" +
                  c + ") AS approx_unique, " + avg + " AS avg, " + std + " AS std";
  for (const char* q : {"0.25", "0.5", "0.75"}) {
    const std::string name = q == std::string("0.25") ? "q25" : q == std::string("0.5") ? "q50" : "q75";
    s += ", " + (quantile.empty() ? none : text(quantile + "(" + c + ", " + q + ")")) + " AS " + name;
  }
  s += ", count(*) AS count, CAST(100.0 * (count(*) - count(" + c +
       ")) / NULLIF(count(*), 0) AS DECIMAL(9,2)) AS null_percentage";
  return s;
}

}  // namespace

LogicalOpPtr Binder::BindSummarize(const ast::TableRef& ref, Scope& scope) {
  const std::vector<RelationColumn> columns = DescribeRelation(ref);
  // A query is a CTE (its text may be parenthesised itself), a table or view its name.
  std::string sql, input;
  if (ref.subquery) {
    sql = "WITH __tessera_summarize_input AS (" + ref.query_text + ") ";
    input = "__tessera_summarize_input";
  } else {
    input = (ref.schema.empty() ? "" : QuoteIdent(ref.schema) + ".") + QuoteIdent(ref.name);
  }
  sql +=
      "SELECT column_name, column_type, min, max, approx_unique, avg, std, q25, q50, q75, count, null_percentage "
      "FROM (";
  for (size_t i = 0; i < columns.size(); i++) {
    const RelationColumn& col = columns[i];
    if (i) sql += " UNION ALL ";
    sql += "SELECT " + std::to_string(i) + " AS __tessera_ordinal, " + QuoteText(col.name) + " AS column_name, " +
           QuoteText(col.type.ToString()) + " AS column_type, " + ColumnStatistics(QuoteIdent(col.name), col.type) +
           " FROM " + input + " AS __tessera_summarized";
  }
  sql += ") ORDER BY __tessera_ordinal";
  auto stmts = ParseSQL(sql);
  TESSERA_ASSERT(stmts.size() == 1 && stmts[0]->kind == ast::StmtKind::Select, "SUMMARIZE's query");
  const ast::SelectStmt& q = *static_cast<ast::SelectStatement&>(*stmts[0]).select;
  try {
    return BindSubqueryRef(q, ref.alias.empty() ? "summarize" : ref.alias, ref.column_aliases, ref.pos, scope,
                           !ref.column_aliases.empty());
  } catch (const UserError& e) {  // positions inside the generated text would mislead
    throw UserError(e.kind(), "in SUMMARIZE: " + e.raw(), ref.pos);
  }
}

}  // namespace tessera
