#include "main/sql_parameters.hpp"

#include <cmath>
#include <cstdio>

#include "common/identifier.hpp"

namespace tessera {

namespace {
bool IsIdentChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c >= 0x80;
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80; }

// Moves one byte forward the way the lexer counts lines and columns.
void Step(unsigned char c, int& line, int& col) {
  if (c == '\n') {
    line++;
    col = 1;
  } else if ((c & 0xC0) != 0x80) {
    col++;
  }
}
}  // namespace

int64_t ByteOffset(std::string_view sql, SourcePos pos) {
  if (pos.line <= 0) return -1;
  int l = 1, c = 1;
  for (size_t i = 0; i < sql.size(); i++) {
    if (l == pos.line && c == pos.col && ((unsigned char)sql[i] & 0xC0) != 0x80) return (int64_t)i;
    Step((unsigned char)sql[i], l, c);
  }
  return (l == pos.line && c == pos.col) ? (int64_t)sql.size() : -1;
}

SourcePos PositionAt(std::string_view sql, int64_t offset) {
  int l = 1, c = 1;
  for (size_t i = 0; i < sql.size() && (int64_t)i < offset; i++) Step((unsigned char)sql[i], l, c);
  return {l, c};
}

Placeholders FindPlaceholders(std::string_view s) {
  Placeholders ph;
  bool positional = false, numbered = false, named = false;
  const char* const kMixed = "cannot mix ?, $n and $name parameters in one statement";
  auto fail = [&](size_t at, std::string msg) {
    ph.list.clear();
    ph.count = 0;
    ph.names.clear();
    ph.error = std::move(msg);
    ph.error_offset = at;
    return ph;
  };
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '\'' || c == '"') {  // literal or quoted identifier; a doubled quote stays inside
      size_t j = i + 1;
      for (;;) {
        if (j >= s.size()) return ph;  // unterminated: the parser says so
        if (s[j] == c) {
          if (j + 1 < s.size() && s[j + 1] == c) { j += 2; continue; }
          break;
        }
        j++;
      }
      i = j + 1;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') i++;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {  // nested, as the lexer
      int depth = 1;
      i += 2;
      while (depth > 0) {
        if (i >= s.size()) return ph;
        if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '/') { depth--; i += 2; }
        else if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '*') { depth++; i += 2; }
        else i++;
      }
    } else if (IsIdentChar((unsigned char)c) && c != '$') {  // a word or number, `$` inside it included
      while (i < s.size() && IsIdentChar((unsigned char)s[i])) i++;
    } else if (c == '?') {
      if (numbered || named) return fail(i, kMixed);
      positional = true;
      ph.list.push_back({i, i + 1, ph.count++});
      i++;
    } else if (c == '$' && i + 1 < s.size() && IsDigit(s[i + 1])) {
      if (positional || named) return fail(i, kMixed);
      numbered = true;
      size_t j = i + 1;
      uint64_t n = 0;
      while (j < s.size() && IsDigit(s[j])) {
        n = n * 10 + (uint64_t)(s[j] - '0');
        if (n > 65535) return fail(i, "parameter number too large (at most $65535)");
        j++;
      }
      if (n == 0) return fail(i, "parameter numbers start at $1");
      ph.list.push_back({i, j, (size_t)n - 1});
      if (n > ph.count) ph.count = (size_t)n;
      i = j;
    } else if (c == '$' && i + 1 < s.size() && IsNameStart((unsigned char)s[i + 1])) {
      if (positional || numbered) return fail(i, kMixed);
      named = true;
      size_t j = i + 1;
      while (j < s.size() && IsIdentChar((unsigned char)s[j]) && s[j] != '$') j++;
      const std::string name(s.substr(i + 1, j - i - 1));
      int found = IdentFind(ph.names, name);
      const size_t index = found >= 0 ? (size_t)found : ph.names.size();
      if (index == ph.names.size()) ph.names.push_back(name);
      ph.list.push_back({i, j, index});
      ph.count = ph.names.size();
      i = j;
    } else {
      i++;
    }
  }
  return ph;
}

std::string SqlLiteral(const Value& v) {
  if (v.is_null()) return "NULL";
  const Type& t = v.type();
  switch (t.id) {
    case TypeId::Null: return "NULL";
    case TypeId::Boolean: return v.int_value() ? "TRUE" : "FALSE";
    case TypeId::Integer:  // digits are an INTEGER literal too, and stand where only a literal may (LIMIT $1)
      if (v.int_value() >= 0) return v.ToString();
      break;
    case TypeId::Varchar: {
      std::string out = "'";
      for (char c : v.str_value()) {
        if (c == '\0') throw UserError(ErrorKind::Input, "a VARCHAR parameter cannot hold a NUL byte");
        if (c == '\'') out += '\'';
        out += c;
      }
      return out + "'";
    }
    case TypeId::Double: {
      double d = v.double_value();
      std::string text;
      if (std::isnan(d)) text = "nan";
      else if (std::isinf(d)) text = d > 0 ? "inf" : "-inf";
      else {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", d);
        text = buf;
      }
      return "CAST('" + text + "' AS DOUBLE)";
    }
    default:
      break;
  }
  // INTEGER, BIGINT, DECIMAL, DATE, TIMESTAMP, TIME, ...: their text form casts back exactly
  return "CAST('" + v.ToString() + "' AS " + t.ToString() + ")";
}

Substitution::Substitution(std::string_view sql, const Placeholders& ph, const std::vector<std::string>& literals)
    : in_size_(sql.size()) {
  size_t at = 0;
  auto verbatim = [&](size_t end) {
    if (end > at) {
      pieces_.push_back({sql_.size(), at, end - at, true});
      sql_.append(sql.substr(at, end - at));
    }
  };
  for (auto& p : ph.list) {
    verbatim(p.begin);
    const std::string& lit = p.index < literals.size() ? literals[p.index] : "NULL";
    pieces_.push_back({sql_.size(), p.begin, lit.size(), false});
    sql_ += lit;
    at = p.end;
  }
  verbatim(sql.size());
}

int64_t Substitution::OriginalOffset(int64_t offset) const {
  if (offset < 0) return offset;
  for (auto& p : pieces_) {
    if ((size_t)offset >= p.out_begin && (size_t)offset < p.out_begin + p.out_len)
      return (int64_t)(p.verbatim ? p.in_begin + ((size_t)offset - p.out_begin) : p.in_begin);
  }
  return (int64_t)in_size_;  // at or past the end
}

}  // namespace tessera
