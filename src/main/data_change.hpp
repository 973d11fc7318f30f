// UPDATE, DELETE, TRUNCATE and ALTER TABLE (data_change.cpp).
#pragma once
#include "main/database.hpp"
#include "parser/ast.hpp"
#include "planner/binder.hpp"

namespace tessera {

QueryResult ExecuteUpdate(Database& db, const ast::UpdateStatement& st);
// DELETE and TRUNCATE.
QueryResult ExecuteDelete(Database& db, const ast::DeleteStatement& st);
// The table with its row numbers (ast::kRowIdColumn) as one more column.
std::shared_ptr<const TableEntry> WithRowNumbers(const TableEntry& t);
// Runs `select` over table `t` (named `name`) with its row numbers; `extra` binds more
// tables by name (an upsert's EXCLUDED).
QueryResult RunRowQuery(Database& db, const TableEntry& t, const std::string& name, const ast::SelectStmt& select,
                        const Binder::TableOverrides* extra = nullptr);
// `table`'s data with the changes of `r` applied: each row of r is a row number and the
// new values of the columns `targets` (cast to their types, NOT NULL checked; errors at
// target_pos / pos). `changed` counts the rows changed.
std::shared_ptr<TableData> UpdatedData(const TableEntry& table, const QueryResult& r, const std::vector<int>& targets,
                                       const std::vector<SourcePos>& target_pos, SourcePos pos, uint64_t& changed);
QueryResult ExecuteAlterTable(Database& db, const ast::AlterTableStatement& st);

// The value of a column's DEFAULT (ColumnDef::default_sql; NULL when it has none), cast to
// the column's type; errors at `pos`.
Value ColumnDefaultValue(Catalog& catalog, const ColumnDef& col, SourcePos pos = {});
// The DEFAULT of `col` bound (its SQL text must not be empty), and evaluated: a DEFAULT
// that calls a volatile function (nextval('seq')) is evaluated once per row.
BoundExprPtr BindColumnDefault(Catalog& catalog, const ColumnDef& col, SourcePos pos = {});
Value EvaluateColumnDefault(const BoundExpr& def, const ColumnDef& col, SourcePos pos = {});

}  // namespace tessera
