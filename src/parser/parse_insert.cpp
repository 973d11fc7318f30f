// INSERT INTO name [(columns)] VALUES (...), ... | INSERT INTO name [(columns)] query.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseInsert() {
  Next();  // INSERT
  ExpectKw("into");
  auto st = std::make_unique<InsertStatement>();
  st->table = ParseIdent();
  if (AtOp("(") && !StartsQuery(Peek()) && !IsOp(Peek(), "(")) st->columns = ParseIdentList();
  if (AcceptKw("values")) {
    size_t width = 0;
    do {
      const Token& open = Cur();
      SourcePos pos = open.pos;
      ExpectOp("(");
      std::vector<ExprPtr> row;
      do {
        row.push_back(ParseExpr());
      } while (AcceptOp(","));
      ExpectOp(")");
      if (st->rows.empty()) {
        width = row.size();
      } else if (row.size() != width) {
        throw UserError(ErrorKind::Syntax, "VALUES lists must all be the same length", pos);
      }
      st->rows.push_back(std::move(row));
    } while (AcceptOp(","));
  } else if (AtOp("(") || StartsQuery(Cur())) {
    st->select = ParseQuery();
  } else {
    SyntaxError(Cur(), "expected VALUES or SELECT");
  }
  return st;
}

}  // namespace tessera::parser_internal
