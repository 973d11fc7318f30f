// INSERT, with its upsert forms (insert.cpp): ON CONFLICT DO NOTHING / DO UPDATE, INSERT OR
// IGNORE / OR REPLACE. The helpers COPY shares are defined in statement_executor.cpp.
#pragma once
#include "main/database.hpp"
#include "parser/ast.hpp"

namespace tessera {

QueryResult ExecuteInsert(Database& db, const ast::InsertStatement& ins);

// Query result chunks as row groups of a table with `schema`: the columns `target_cols`
// from the chunks (cast to the table's types), the others their DEFAULT; NOT NULL checked.
std::vector<std::shared_ptr<const RowGroup>> ResultRowGroups(Database& db, const TableSchema& schema,
                                                             std::vector<DataChunk>& chunks,
                                                             const std::vector<int>& target_cols, uint64_t& rows);
// Appends result chunks to a table in one commit (ResultRowGroups, Catalog::Append).
uint64_t AppendResult(Database& db, const std::string& table, std::vector<DataChunk>& chunks,
                      const std::vector<int>& target_cols);
// The table's column indexes an INSERT names (all, in order, when `names` is empty).
std::vector<int> TargetColumns(const TableSchema& schema, const std::vector<std::string>& names, SourcePos pos);

}  // namespace tessera
