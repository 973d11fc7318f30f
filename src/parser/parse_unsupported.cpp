// Statements tessera recognises but does not run yet (MERGE, SAVEPOINT,
// CREATE INDEX, ...): a UserError(Unsupported) at the statement's first word rather than a
// syntax error, so that the message says what is missing. Anything else is a syntax error.
#include <unordered_map>

#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

void Parser::UnsupportedStatement() {
  // Leading word -> what the message calls the statement.
  static const std::unordered_map<std::string, const char*> kKnown = {
      {"merge", "MERGE"},         {"savepoint", "SAVEPOINT"},
      {"release", "RELEASE SAVEPOINT"}, {"vacuum", "VACUUM"},
      {"attach", "ATTACH"},       {"detach", "DETACH"},
      {"use", "USE"},             {"pragma", "PRAGMA"},         {"call", "CALL"},
      {"grant", "GRANT"},         {"revoke", "REVOKE"},         {"reset", "RESET"},
      {"load", "LOAD"},           {"install", "INSTALL"},       {"import", "IMPORT DATABASE"},
      {"export", "EXPORT DATABASE"}, {"summarize", "SUMMARIZE"}, {"comment", "COMMENT ON"},
      {"upsert", "UPSERT"},       {"replace", "REPLACE"},       {"lock", "LOCK"},
      {"declare", "DECLARE"},     {"fetch", "FETCH"},           {"close", "CLOSE"},
      {"listen", "LISTEN"},       {"notify", "NOTIFY"},         {"refresh", "REFRESH"},
  };
  const Token& t = Cur();
  if (t.kind == TokenKind::Word) {
    auto it = kKnown.find(t.text);
    if (it != kKnown.end()) Unsupported(t.pos, it->second);
  }
  SyntaxError(t);
}

// CREATE or DROP of something other than a table, view or sequence (the current token names
// it): CREATE [UNIQUE] INDEX, SCHEMA, MACRO, FUNCTION, TYPE, ... are not supported.
void Parser::UnsupportedCreateOrDrop(const char* verb) {
  static const char* const kObjects[] = {"index",  "unique", "schema", "macro", "function",
                                         "type",   "secret", "database", "trigger", "role", "user",
                                         "materialized", "extension", "procedure", "domain"};
  const Token& t = Cur();
  if (t.kind == TokenKind::Word)
    for (const char* o : kObjects)
      if (t.text == o) {
        std::string what = std::string(verb) + " " + Upper(t.text);
        if (t.text == "unique") what += " INDEX";
        Unsupported(t.pos, what);
      }
  SyntaxError(t, std::string("expected TABLE, VIEW or SEQUENCE"));
}

}  // namespace tessera::parser_internal
