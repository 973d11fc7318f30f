// Parameters of prepared statements: `?`, `$1`, `$name`. The engine binds no parameters
// of its own: the placeholders are found in the SQL text (outside string literals, quoted
// identifiers and comments) and each bound value is written into the text as a typed SQL
// literal before the statement runs, so a value is typed as the literal it becomes (as
// DuckDB types a parameter by its value where the context does not fix it). Used by the C
// API (capi_prepared.cpp) and by SQL's PREPARE / EXECUTE (main/prepared_statements.*).
// Error positions in the substituted text map back to the caller's text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "common/value.hpp"

namespace tessera {

struct Placeholder {
  size_t begin = 0, end = 0;  // bytes [begin, end) of the SQL text
  size_t index = 0;           // 0-based parameter number
};

struct Placeholders {
  std::vector<Placeholder> list;  // in text order
  size_t count = 0;               // parameters (the highest number used)
  // For `$name` parameters: the name of each parameter as first written (numbered in order
  // of first use; `$Name` and `$name` are one parameter, as identifiers are); empty for `?`
  // and `$n`.
  std::vector<std::string> names;
  std::string error;  // set when the placeholders are not usable
  size_t error_offset = 0;
};

// Finds `?` (numbered in order), `$1`, `$2`, ... or `$name` (any case; numbered by first
// use). Mixing the kinds in one statement is an error; so is $0. Unterminated literals or
// comments end the scan: the parser reports them.
Placeholders FindPlaceholders(std::string_view sql);

// The SQL literal a bound value becomes: NULL, TRUE/FALSE, a quoted string, the digits of
// a non-negative INTEGER, or CAST('<text>' AS <type>) for other numbers and dates (exact: doubles with 17 digits, "inf",
// "nan"). Throws UserError for a string with a NUL byte.
std::string SqlLiteral(const Value& v);

// SQL text with every placeholder replaced by its parameter's literal, and the way back
// from a byte offset in it to one in the original text.
class Substitution {
 public:
  Substitution(std::string_view sql, const Placeholders& ph, const std::vector<std::string>& literals);
  const std::string& sql() const { return sql_; }
  // An offset inside a literal maps to its placeholder's start.
  int64_t OriginalOffset(int64_t offset) const;

 private:
  struct Piece {
    size_t out_begin, in_begin, out_len;
    bool verbatim;
  };
  std::string sql_;
  std::vector<Piece> pieces_;
  size_t in_size_ = 0;
};

// Line/column (as the lexer counts them: columns in characters) <-> byte offset in `sql`.
// ByteOffset returns -1 for a position that is not in the text.
int64_t ByteOffset(std::string_view sql, SourcePos pos);
SourcePos PositionAt(std::string_view sql, int64_t offset);

}  // namespace tessera
