// INSERT INTO name [(columns)] VALUES (...), ... | INSERT INTO name [(columns)] query.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseInsert() {
  Next();  // INSERT
  ExpectKw("into");
  auto st = std::make_unique<InsertStatement>();
  st->table = ParseIdent();
  if (AtOp("(") && !StartsQuery(1) && !IsOp(Peek(), "(")) st->columns = ParseIdentList();
  if (AcceptKw("values")) {
    st->rows = ParseValuesRows();
  } else if (AtOp("(") || StartsQuery(0)) {
    st->select = ParseQuery();
  } else {
    SyntaxError(Cur(), "expected VALUES or SELECT");
  }
  return st;
}

}  // namespace tessera::parser_internal
