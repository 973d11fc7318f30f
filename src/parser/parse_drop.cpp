// DROP TABLE | VIEW | SEQUENCE [IF EXISTS] name (a connection's temporary object of the
// name first, as DuckDB's search path finds it).
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseDrop() {
  Next();  // DROP
  StmtKind kind;
  if (AcceptKw("table")) {
    kind = StmtKind::DropTable;
  } else if (AcceptKw("view")) {
    kind = StmtKind::DropView;
  } else if (AcceptKw("sequence")) {
    kind = StmtKind::DropSequence;
  } else {
    UnsupportedCreateOrDrop("DROP");
  }
  auto st = std::make_unique<DropStatement>(kind);
  if (AcceptKw("if")) {
    ExpectKw("exists");
    st->if_exists = true;
  }
  st->name = ParseIdent();
  return st;
}

}  // namespace tessera::parser_internal
