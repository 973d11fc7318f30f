// BEGIN | START [TRANSACTION | WORK], COMMIT | END [TRANSACTION | WORK],
// ROLLBACK | ABORT [TRANSACTION | WORK] (main/transaction.hpp runs them).
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseTransaction() {
  auto st = std::make_unique<TransactionStatement>();
  if (AcceptKw("begin") || AcceptKw("start")) st->op = TransactionOp::Begin;
  else if (AcceptKw("commit") || AcceptKw("end")) st->op = TransactionOp::Commit;
  else if (AcceptKw("rollback") || AcceptKw("abort")) st->op = TransactionOp::Rollback;
  else SyntaxError(Cur());
  if (!AcceptKw("transaction")) AcceptKw("work");
  return st;
}

}  // namespace tessera::parser_internal
