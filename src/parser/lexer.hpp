// SQL tokenizer. Produces the whole token list up front (the parser looks ahead freely).
// Positions are 1-based; columns count characters (UTF-8 code points), a tab counts as one.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace tessera {

enum class TokenKind {
  Word,         // unquoted identifier or keyword; text lower-cased (the source slice keeps the spelling)
  QuotedIdent,  // "Double Quoted" identifier; text verbatim with "" unescaped
  Integer,      // 42               text as written
  Decimal,      // 4.2, .5, 4.      text as written
  Float,        // 4e2, 1.5E-3      text as written
  String,       // 'it''s'          text = contents with '' unescaped
  Operator,     // = <> != < <= > >= + - * / % || :: := ( ) , . ; [ ]
  End,          // end of input (always the last token)
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  SourcePos pos;
  size_t begin = 0;  // byte offsets of the token in the source: [begin, end)
  size_t end = 0;
};

// Tokenizes `sql`. Comments (-- ... and nested /* ... */) and whitespace are skipped.
// Throws UserError(Syntax) with the position for unterminated strings, quoted identifiers
// and comments, stray characters and malformed numbers.
std::vector<Token> Tokenize(std::string_view sql);

// The token as written in the source, shortened to at most `max_len` bytes ("..." appended),
// for error messages.
std::string TokenExcerpt(std::string_view sql, const Token& t, size_t max_len = 40);

}  // namespace tessera
