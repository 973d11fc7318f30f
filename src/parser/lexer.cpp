#include "parser/lexer.hpp"

#include <cstdio>

namespace tessera {

namespace {

bool IsIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdentChar(unsigned char c) { return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '$'; }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : s_(src) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    for (;;) {
      SkipSpaceAndComments();
      Token t;
      t.pos = {line_, col_};
      t.begin = i_;
      if (i_ >= s_.size()) {
        t.kind = TokenKind::End;
        t.end = i_;
        out.push_back(std::move(t));
        return out;
      }
      unsigned char c = s_[i_];
      if (IsIdentStart(c)) {
        t.kind = TokenKind::Word;
        while (i_ < s_.size() && IsIdentChar(s_[i_])) {
          char ch = s_[i_];
          if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
          t.text.push_back(ch);
          Advance();
        }
      } else if (IsDigit(c) || (c == '.' && i_ + 1 < s_.size() && IsDigit(s_[i_ + 1]))) {
        LexNumber(t);
      } else if (c == '\'') {
        t.kind = TokenKind::String;
        LexQuoted(t, '\'', "unterminated quoted string");
      } else if (c == '"') {
        t.kind = TokenKind::QuotedIdent;
        LexQuoted(t, '"', "unterminated quoted identifier");
        if (t.text.empty()) throw UserError(ErrorKind::Syntax, "zero-length delimited identifier", t.pos);
      } else {
        LexOperator(t);
      }
      t.end = i_;
      out.push_back(std::move(t));
    }
  }

 private:
  void Advance() {
    unsigned char c = s_[i_++];
    if (c == '\n') {
      line_++;
      col_ = 1;
    } else if ((c & 0xC0) != 0x80) {
      col_++;  // columns count characters: UTF-8 continuation bytes do not advance
    }
  }

  bool At(size_t k, char c) const { return i_ + k < s_.size() && s_[i_ + k] == c; }

  void SkipSpaceAndComments() {
    while (i_ < s_.size()) {
      unsigned char c = s_[i_];
      if (IsSpace(c)) {
        Advance();
      } else if (c == '-' && At(1, '-')) {
        while (i_ < s_.size() && s_[i_] != '\n') Advance();
      } else if (c == '/' && At(1, '*')) {
        SourcePos start{line_, col_};
        Advance();
        Advance();
        int depth = 1;
        while (depth > 0) {
          if (i_ >= s_.size()) throw UserError(ErrorKind::Syntax, "unterminated /* comment", start);
          if (s_[i_] == '*' && At(1, '/')) {
            Advance();
            Advance();
            depth--;
          } else if (s_[i_] == '/' && At(1, '*')) {
            Advance();
            Advance();
            depth++;
          } else {
            Advance();
          }
        }
      } else {
        return;
      }
    }
  }

  // Digits, with single underscores between them as separators (1_000_000, as DuckDB).
  void LexDigits() {
    while (i_ < s_.size() && (IsDigit(s_[i_]) || (s_[i_] == '_' && i_ > 0 && IsDigit(s_[i_ - 1]) &&
                                                  i_ + 1 < s_.size() && IsDigit(s_[i_ + 1]))))
      Advance();
  }

  void LexNumber(Token& t) {
    bool dot = false, exp = false;
    LexDigits();
    if (i_ < s_.size() && s_[i_] == '.' && !At(1, '.')) {
      dot = true;
      Advance();
      LexDigits();
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      size_t k = 1;
      if (At(1, '+') || At(1, '-')) k = 2;
      if (i_ + k < s_.size() && IsDigit(s_[i_ + k])) {
        exp = true;
        for (size_t j = 0; j < k; j++) Advance();
        while (i_ < s_.size() && IsDigit(s_[i_])) Advance();
      }
    }
    t.text = std::string(s_.substr(t.begin, i_ - t.begin));
    std::erase(t.text, '_');
    t.kind = exp ? TokenKind::Float : dot ? TokenKind::Decimal : TokenKind::Integer;
    if (i_ < s_.size() && IsIdentChar(s_[i_])) {
      size_t j = i_;
      while (j < s_.size() && IsIdentChar(s_[j])) j++;
      std::string junk(s_.substr(t.begin, j - t.begin));
      if (junk.size() > 40) junk = junk.substr(0, 40) + "...";
      throw UserError(ErrorKind::Syntax, "trailing junk after numeric literal at or near \"" + junk + "\"",
                      t.pos);
    }
  }

  // $$text$$ or $tag$text$tag$ (tag: letters, digits, _; not starting with a digit): the
  // text as it is, no escapes (PostgreSQL's and DuckDB's dollar quoting).
  bool LexDollarQuoted(Token& t) {
    size_t j = i_ + 1;
    if (j < s_.size() && IsDigit(s_[j])) return false;
    while (j < s_.size() && s_[j] != '$' && IsIdentChar(s_[j])) j++;
    if (j >= s_.size() || s_[j] != '$') return false;
    const std::string_view delim = s_.substr(i_, j + 1 - i_);
    const size_t end = s_.find(delim, j + 1);
    if (end == std::string_view::npos) throw UserError(ErrorKind::Syntax, "unterminated dollar-quoted string", t.pos);
    t.kind = TokenKind::String;
    t.text = std::string(s_.substr(j + 1, end - j - 1));
    while (i_ < end + delim.size()) Advance();
    return true;
  }

  void LexQuoted(Token& t, char q, const char* unterminated) {
    Advance();  // opening quote
    for (;;) {
      if (i_ >= s_.size()) throw UserError(ErrorKind::Syntax, unterminated, t.pos);
      char c = s_[i_];
      if (c == q) {
        if (At(1, q)) {
          t.text.push_back(q);
          Advance();
          Advance();
          continue;
        }
        Advance();
        return;
      }
      t.text.push_back(c);
      Advance();
    }
  }

  void LexOperator(Token& t) {
    t.kind = TokenKind::Operator;
    unsigned char c = s_[i_];
    auto two = [&](char a, char b) { return c == (unsigned char)a && At(1, b); };
    if (two('<', '>') || two('!', '=') || two('<', '=') || two('>', '=') || two('|', '|') ||
        two(':', ':') || two('/', '/') || two(':', '=') || two('!', '~') || two('*', '*') || two('<', '<') ||
        two('>', '>')) {
      t.text = std::string(s_.substr(i_, 2));
      Advance();
      Advance();
      return;
    }
    switch (c) {
      case '{': case '}': case ':':  // table function options' structs ({'a': 'INTEGER'})
      case '=': case '<': case '>': case '+': case '-': case '*': case '/': case '%':
      case '(': case ')': case ',': case '.': case ';': case '[': case ']': case '~':
      case '&': case '|': case '^':  // bitwise and, or; power
      case '?':  // a parameter (prepared statements; the parser rejects it elsewhere)
        t.text = std::string(1, (char)c);
        Advance();
        return;
      case '$':  // a dollar-quoted string ($$text$$, $tag$text$tag$), or a parameter, $1 or $name
        if (LexDollarQuoted(t)) return;
        if (i_ + 1 < s_.size() && IsIdentChar(s_[i_ + 1]) && s_[i_ + 1] != '$') {
          do {
            t.text.push_back(s_[i_]);
            Advance();
          } while (i_ < s_.size() && IsIdentChar(s_[i_]) && s_[i_] != '$');
          return;
        }
        break;
      default:
        break;
    }
    std::string shown;
    if (c >= 0x21 && c < 0x7f) {
      shown = std::string(1, (char)c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", (unsigned)c);
      shown = buf;
    }
    throw UserError(ErrorKind::Syntax, "syntax error at or near \"" + shown + "\"", t.pos);
  }

  std::string_view s_;
  size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view sql) { return Lexer(sql).Run(); }

std::string TokenExcerpt(std::string_view sql, const Token& t, size_t max_len) {
  size_t b = t.begin < sql.size() ? t.begin : sql.size();
  size_t e = t.end < sql.size() ? t.end : sql.size();
  std::string_view raw = sql.substr(b, e - b);
  bool cut = false;
  if (raw.size() > max_len) {
    size_t n = max_len;
    while (n > 0 && ((unsigned char)raw[n] & 0xC0) == 0x80) n--;  // keep UTF-8 intact
    raw = raw.substr(0, n);
    cut = true;
  }
  std::string out;
  for (char ch : raw) out.push_back(((unsigned char)ch < 0x20 || ch == 0x7f) ? ' ' : ch);
  if (cut) out += "...";
  return out;
}

}  // namespace tessera
