// SQL's PREPARE name AS statement / EXECUTE name(args) / DEALLOCATE [PREPARE] name: the
// prepared statements of one Connection. A statement is kept as its text with its
// placeholders (main/sql_parameters.hpp, the machinery the C API's prepared statements
// use); EXECUTE evaluates its arguments, writes them into the text as typed literals and
// runs the statement that results.
#pragma once
#include <string>

#include "common/identifier.hpp"

#include "main/database.hpp"
#include "main/sql_parameters.hpp"
#include "parser/ast.hpp"

namespace tessera {

class PreparedStatements {
 public:
  // Checks the statement (a SELECT, INSERT, UPDATE or DELETE; its syntax, and for a
  // SELECT the tables, columns and functions it names) and keeps it under its name, replacing one of that name.
  QueryResult Prepare(Database& db, const ast::PrepareStatement& stmt);
  // The statement EXECUTE runs, with its arguments written in. Errors: an unknown name,
  // missing or excess arguments (as DuckDB words them).
  ast::StatementPtr Bind(Database& db, const ast::ExecuteStatement& stmt) const;
  // DuckDB drops an unknown name silently; so does this.
  QueryResult Deallocate(const ast::DeallocateStatement& stmt);

 private:
  struct Entry {
    std::string body;
    SourcePos body_pos;  // where the body starts in the PREPARE's text
    Placeholders placeholders;
  };
  IdentMap<Entry> statements_;  // by name, found ignoring case
};

}  // namespace tessera
