// UPDATE, DELETE, TRUNCATE and ALTER TABLE (data_change.cpp).
#pragma once
#include "main/database.hpp"
#include "parser/ast.hpp"

namespace tessera {

QueryResult ExecuteUpdate(Database& db, const ast::UpdateStatement& st);
// DELETE and TRUNCATE.
QueryResult ExecuteDelete(Database& db, const ast::DeleteStatement& st);
QueryResult ExecuteAlterTable(Database& db, const ast::AlterTableStatement& st);

// The value of a column's DEFAULT (ColumnDef::default_sql; NULL when it has none), cast to
// the column's type; errors at `pos`.
Value ColumnDefaultValue(Catalog& catalog, const ColumnDef& col, SourcePos pos = {});

}  // namespace tessera
