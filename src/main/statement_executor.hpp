// Executes one parsed statement against a database (the dispatch behind Connection).
#pragma once
#include "common/lines.hpp"
#include "main/database.hpp"
#include "parser/ast.hpp"

namespace tessera {

QueryResult ExecuteStatement(Database& db, const ast::Statement& stmt);

// A result without rows that says what a statement did ("INSERT 3").
QueryResult Status(std::string msg);

// Plans and runs a SELECT; with `consumer`, streaming its rows (RunPrepared).
QueryResult RunSelect(Database& db, const ast::SelectStmt& select, ResultConsumer* consumer = nullptr);

// A result of one VARCHAR column `column`, one row per line (EXPLAIN and the like).
QueryResult TextResult(const std::string& column, const std::vector<std::string>& lines);


}  // namespace tessera
