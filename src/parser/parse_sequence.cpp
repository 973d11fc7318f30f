// CREATE [OR REPLACE] [TEMP | TEMPORARY] SEQUENCE [IF NOT EXISTS] name [START [WITH] n]
// [INCREMENT [BY] n] [MINVALUE n | NO MINVALUE] [MAXVALUE n | NO MAXVALUE] [CYCLE | NO CYCLE]
// (options in any order, each at most once). The executor fills in DuckDB's defaults and
// checks the values (storage/sequence.hpp). DROP SEQUENCE is parse_drop.cpp's.
#include <charconv>

#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

// An option's value: an integer literal, optionally signed, that fits in BIGINT.
int64_t Parser::ParseSequenceNumber(const char* option) {
  const Token first = Cur();
  bool negative = false;
  if (AtOp("-") || AtOp("+")) {
    negative = AtOp("-");
    Next();
  }
  const Token& t = Cur();
  if (t.kind != TokenKind::Integer) SyntaxError(t, std::string("expected an integer after ") + option);
  std::string digits = (negative ? "-" : "") + t.text;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size())
    throw UserError(ErrorKind::Syntax, std::string(option) + " must be an integer between -9223372036854775808 and " +
                                           "9223372036854775807, not " + digits, first.pos);
  Next();
  return v;
}

StatementPtr Parser::ParseCreateSequence(bool or_replace, bool temporary) {
  auto st = std::make_unique<CreateSequenceStatement>();
  st->or_replace = or_replace;
  st->temporary = temporary;
  st->if_not_exists = ParseIfNotExists(or_replace);
  st->name = ParseCreatedName(&st->temporary, "sequence");
  bool seen[5] = {};  // start, increment, minvalue, maxvalue, cycle
  auto once = [&](int k, const Token& t) {
    if (seen[k]) throw UserError(ErrorKind::Syntax, "conflicting or redundant options: " + Upper(t.text), t.pos);
    seen[k] = true;
  };
  for (;;) {
    const Token t = Cur();
    if (AcceptKw("start")) {
      once(0, t);
      AcceptKw("with");
      st->start = ParseSequenceNumber("START");
    } else if (AcceptKw("increment")) {
      once(1, t);
      AcceptKw("by");
      st->increment = ParseSequenceNumber("INCREMENT");
    } else if (AcceptKw("minvalue")) {
      once(2, t);
      st->min = ParseSequenceNumber("MINVALUE");
    } else if (AcceptKw("maxvalue")) {
      once(3, t);
      st->max = ParseSequenceNumber("MAXVALUE");
    } else if (AcceptKw("cycle")) {
      once(4, t);
      st->cycle = true;
    } else if (AcceptKw("no")) {
      const Token what = Cur();
      if (AcceptKw("minvalue")) once(2, what);
      else if (AcceptKw("maxvalue")) once(3, what);
      else if (AcceptKw("cycle")) once(4, what);
      else SyntaxError(what, "expected MINVALUE, MAXVALUE or CYCLE after NO");
    } else {
      break;
    }
  }
  return st;
}

}  // namespace tessera::parser_internal
