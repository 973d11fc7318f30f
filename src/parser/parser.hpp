// Hand-written recursive-descent SQL parser.
#pragma once
#include <string_view>
#include <vector>

#include "parser/ast.hpp"

namespace tessera {

// Parses one or more ';'-separated statements. Throws UserError(Syntax) with the position
// of the offending token, e.g. `line 1, column 8: syntax error at or near "FORM"`.
std::vector<ast::StatementPtr> ParseSQL(std::string_view sql);

// Splits a script into statement texts at top-level ';' (outside quotes and comments);
// used by the shell to know when a statement is complete.
std::vector<std::string> SplitStatements(std::string_view sql, bool* last_complete = nullptr);

}  // namespace tessera
