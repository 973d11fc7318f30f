// ALTER TABLE [IF EXISTS] t ADD [COLUMN] [IF NOT EXISTS] c type [NOT NULL] [DEFAULT e]
// | DROP [COLUMN] [IF EXISTS] c | RENAME [COLUMN] a TO b | RENAME TO n.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseAlter() {
  Next();  // ALTER
  if (!AtKw("table")) {
    if (Cur().kind == TokenKind::Word) Unsupported(Cur().pos, "ALTER " + Upper(Cur().text));
    SyntaxError(Cur(), "expected TABLE");
  }
  Next();
  auto st = std::make_unique<AlterTableStatement>();
  if (AcceptKw("if")) {
    ExpectKw("exists");
    st->if_exists = true;
  }
  st->table = ParseIdent();
  if (AcceptKw("add")) {
    if (AtKw("constraint") || AtKw("primary") || AtKw("unique") || AtKw("foreign") || AtKw("check"))
      Unsupported(Cur().pos, "ALTER TABLE ... ADD CONSTRAINT");
    AcceptKw("column");
    st->action = AlterAction::AddColumn;
    if (AcceptKw("if")) {
      ExpectKw("not");
      ExpectKw("exists");
      st->column_if = true;
    }
    st->column.pos = Cur().pos;
    st->column.name = ParseIdent();
    st->column.type = ParseType();
    for (;;) {
      if (AcceptKw("not")) {
        ExpectKw("null");
        st->column.not_null = true;
      } else if (AcceptKw("null")) {
      } else if (AcceptKw("default")) {
        ParseColumnDefault(st->column);
      } else if (AtKw("primary") || AtKw("unique") || AtKw("references") || AtKw("check") || AtKw("collate")) {
        Unsupported(Cur().pos, "a constraint in ALTER TABLE ... ADD COLUMN");
      } else {
        break;
      }
    }
  } else if (AcceptKw("drop")) {
    if (AtKw("constraint")) Unsupported(Cur().pos, "ALTER TABLE ... DROP CONSTRAINT");
    AcceptKw("column");
    st->action = AlterAction::DropColumn;
    if (AcceptKw("if")) {
      ExpectKw("exists");
      st->column_if = true;
    }
    st->name = ParseIdent();
    if (AtKw("cascade") || AtKw("restrict")) Next();
  } else if (AcceptKw("rename")) {
    if (AcceptKw("to")) {
      st->action = AlterAction::RenameTable;
      st->new_name = ParseIdent();
    } else {
      AcceptKw("column");
      st->action = AlterAction::RenameColumn;
      st->name = ParseIdent();
      ExpectKw("to");
      st->new_name = ParseIdent();
    }
  } else if (AtKw("alter")) {
    Unsupported(Cur().pos, "ALTER TABLE ... ALTER COLUMN");
  } else {
    SyntaxError(Cur(), "expected ADD, DROP or RENAME");
  }
  return st;
}

}  // namespace tessera::parser_internal
