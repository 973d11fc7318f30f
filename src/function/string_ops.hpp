// String function semantics. The GPU evaluates string predicates over a column's
// dictionary with these same functions, and LIKE over a column's own bytes with
// string_core.hpp's LikeMatch, which the one here calls. Strings are UTF-8 and positions and lengths count code points, as in DuckDB; invalid bytes count
// as one character each.
#pragma once
#include "function/string_core.hpp"
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::ops {

// Number of code points.
int64_t CharLength(std::string_view s);
// s[i] and s[a:b] (DuckDB's array_extract and array_slice over a VARCHAR): 1-based character
// positions, a negative one counted from the end (-1 the last); a position outside the
// string gives '', a slice's ends are clamped to it and both are included.
std::string_view CharAt(std::string_view s, int64_t i);
std::string_view CharSlice(std::string_view s, int64_t begin, int64_t end);
// DuckDB's substring(s, start, length) over code points: start is 1-based, counts from
// the end when negative, and 0 stands one before the first character; a negative length
// takes the characters before start. `has_length` false: to the end. Throws a UserError
// for |start| or length beyond 2^32 - 1 as DuckDB does. Returns a view into s.
std::string_view Substring(std::string_view s, int64_t start, int64_t length, bool has_length);
// SQL LIKE: % any sequence, _ exactly one character (string_core.hpp); `escape` a byte
// that makes the next one literal, or -1.
inline bool LikeMatch(std::string_view s, std::string_view pattern, int escape = -1) {
  return LikeMatch(s.data(), s.size(), pattern.data(), pattern.size(), escape);
}
// The escape byte of LIKE ... ESCAPE e: -1 for an empty e; a UserError unless e is one
// character (DuckDB's rule and message).
int LikeEscapeByte(std::string_view e);
// Simple (one code point to one code point) case mapping for ASCII, Latin-1 Supplement,
// Latin Extended-A, Greek and Coptic (U+0370-U+03FF) and Cyrillic (U+0400-U+052F), as
// DuckDB maps them (so ß upper-cases to ẞ, ÿ to Ÿ, µ to Greek Μ, ς to Σ). Other code
// points are left as they are.
uint32_t UpperCodePoint(uint32_t c);
uint32_t LowerCodePoint(uint32_t c);
// Appends s to out with every code point upper- (or lower-) cased.
void AppendCaseMapped(std::string_view s, bool upper, std::string& out);

// DuckDB's trim family: the characters (code points) of `chars` removed from the start
// (`left`) and / or the end (`right`) of s; a view into s.
std::string_view Trim(std::string_view s, std::string_view chars, bool left, bool right);
// s with every non-overlapping occurrence of `from`, left to right, replaced by `to`
// (an empty `from` replaces nothing), appended to out.
void AppendReplaced(std::string_view s, std::string_view from, std::string_view to, std::string& out);
// The 1-based character position of the first occurrence of `needle` in s; 0 when there is
// none; 1 for an empty needle.
int64_t StrPos(std::string_view s, std::string_view needle);
// The first (`from_left`) or last n characters of s; a negative n: all but the last (or
// first) -n. A view into s.
std::string_view LeftRight(std::string_view s, int64_t n, bool from_left);
// lpad / rpad: s cut or padded to n characters (n < 0: empty) with `fill` repeated on the
// left or the right, appended to out; false when padding is needed and `fill` is empty
// (DuckDB's "Insufficient padding").
bool AppendPadded(std::string_view s, int64_t n, std::string_view fill, bool left, std::string& out);

// split_part(s, delimiter, index): the index-th part (1-based; negative: from the end) of s
// split at every `delimiter` (an empty delimiter: at every character); empty when there is
// no such part or index is 0 (DuckDB's). A view into s.
std::string_view SplitPart(std::string_view s, std::string_view delimiter, int64_t index);
// s with its characters (code points) in reverse order, appended to out. DuckDB reverses
// grapheme clusters; the two agree on text without combining marks.
void AppendReversed(std::string_view s, std::string& out);
// The first code point of s (ascii / unicode / ord); `empty` for an empty string.
int32_t FirstCodePoint(std::string_view s, int32_t empty);
// chr(c): appends the UTF-8 encoding of code point c; false when c is no Unicode scalar
// value (negative, a surrogate or beyond U+10FFFF).
bool AppendCodePoint(int64_t c, std::string& out);
// translate(s, from, to): every character of s found in `from` replaced by the character
// at the same place in `to`, or dropped when `to` is shorter; appended to out.
void AppendTranslated(std::string_view s, std::string_view from, std::string_view to, std::string& out);

}  // namespace tessera::ops
