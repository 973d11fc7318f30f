// Executes one parsed statement against a database (the dispatch behind Connection).
#pragma once
#include "main/database.hpp"
#include "parser/ast.hpp"

namespace tessera {

QueryResult ExecuteStatement(Database& db, const ast::Statement& stmt);

// Plans and runs a SELECT; `explain` receives the plan text when non-null.
QueryResult RunSelect(Database& db, const ast::SelectStmt& select);

}  // namespace tessera
