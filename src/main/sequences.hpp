// CREATE [OR REPLACE] [TEMP] SEQUENCE and DROP SEQUENCE (nextval and currval are functions:
// function/scalar_functions_sequence.cpp; the catalog keeps the sequences).
#pragma once
#include "main/database.hpp"
#include "parser/ast.hpp"

namespace tessera {

QueryResult ExecuteCreateSequence(Database& db, const ast::CreateSequenceStatement& st);
QueryResult ExecuteDropSequence(Database& db, const ast::DropStatement& st);

}  // namespace tessera
