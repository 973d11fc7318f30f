// RETURNING of INSERT, UPDATE and DELETE (returning.cpp): the statement's RETURNING list,
// parsed as SELECT list FROM t [AS a] (parser/parse_returning.cpp), run over a table that
// holds just the rows inserted, updated (their new values) or deleted.
#pragma once
#include "main/database.hpp"
#include "parser/ast.hpp"

namespace tessera {

// Binds the RETURNING SELECT against the table (named `name`) before the statement runs:
// names, types, and DuckDB's rules (no aggregates, no window functions) give their errors
// while nothing has changed.
void CheckReturning(Database& db, const TableEntry& table, const std::string& name, const ast::SelectStmt& returning);

// Runs the RETURNING SELECT with the table `name` replaced by `rows` (row groups of the
// table's columns). Called before the statement commits its change, so that a failing
// RETURNING expression (a cast, an overflow) leaves the table unchanged.
QueryResult RunReturning(Database& db, const TableEntry& table, const std::string& name,
                         const ast::SelectStmt& returning, std::vector<std::shared_ptr<const RowGroup>> rows);

// The rows of `data` (the table's columns) whose row numbers are in `rows`, as row groups:
// in ascending order of row number, each once; with `keep_order` in the order of `rows`.
std::vector<std::shared_ptr<const RowGroup>> RowsAt(const TableEntry& table, const TableData& data,
                                                    const std::vector<int64_t>& rows, bool keep_order = false);

}  // namespace tessera
