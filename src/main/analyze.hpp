// ANALYZE [table]: gives every column chunk of the table (of every table without a name) a
// distinct-count sketch where it has none (row groups of files written before sketches
// existed). Chunks are immutable and each was sketched when it was built, so this is all a
// refresh needs; the changed row groups are written again as new files in one commit.
#pragma once
#include "main/database.hpp"
#include "parser/ast.hpp"

namespace tessera {

QueryResult ExecuteAnalyze(Database& db, const ast::AnalyzeStatement& st);

}  // namespace tessera
