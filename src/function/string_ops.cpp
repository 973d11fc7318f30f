#include "function/string_ops.hpp"

#include <algorithm>
#include <array>

#include "common/error.hpp"

namespace tessera::ops {

int64_t CharLength(std::string_view s) {
  int64_t n = 0;
  for (size_t i = 0; i < s.size(); i += Utf8SequenceLength((unsigned char)s[i])) n++;
  return n;
}

namespace {
// Byte offset of code point `k` (0-based; clamped to the end).
size_t ByteOffset(std::string_view s, int64_t k) {
  size_t i = 0;
  for (; k > 0 && i < s.size(); k--) i += Utf8SequenceLength((unsigned char)s[i]);
  return std::min(i, s.size());
}
}  // namespace

std::string_view CharAt(std::string_view s, int64_t i) {
  const int64_t n = CharLength(s);
  if (i < 0) i += n + 1;
  if (i < 1 || i > n) return {};
  return Substring(s, i, 1, true);
}

std::string_view CharSlice(std::string_view s, int64_t begin, int64_t end) {
  const int64_t n = CharLength(s);
  if (begin < 0) begin = std::max<int64_t>(begin + n + 1, 1);
  if (end < 0) end += n + 1;
  begin = std::max<int64_t>(begin, 1);
  end = std::min(end, n);
  if (begin > end) return {};
  return Substring(s, begin, end - begin + 1, true);
}

std::string_view Substring(std::string_view s, int64_t start, int64_t length, bool has_length) {
  constexpr int64_t kMax = 4294967295LL;  // DuckDB's supported range
  if (start > kMax) throw UserError(ErrorKind::Conversion, "Substring offset outside of supported range (> 4294967295)");
  if (has_length && length > kMax)
    throw UserError(ErrorKind::Conversion, "Substring length outside of supported range (> 4294967295)");
  start = std::max<int64_t>(start, -2 * kMax);  // beyond this only more of nothing
  if (!has_length) length = 2 * kMax;
  length = std::max<int64_t>(length, -4 * kMax);
  const int64_t size = start < 0 ? CharLength(s) : 0;  // only needed from the end
  int64_t from;
  if (start > 0) {
    from = start - 1;
  } else if (start < 0) {
    from = size + start;
  } else {  // position 0 stands one before the first character
    from = 0;
    if (--length <= 0) return {};
  }
  int64_t to;
  if (length >= 0) {
    to = from + length;
  } else {
    to = from;
    from += length;
  }
  from = std::max<int64_t>(from, 0);
  if (to <= from) return {};
  size_t b = ByteOffset(s, from);
  size_t e = b + ByteOffset(s.substr(b), to - from);
  return s.substr(b, e - b);
}

namespace {
constexpr uint32_t kTableEnd = 0x530;  // through Cyrillic Supplement

// Upper -> lower by ranges: [first, last] all shifted by delta, or (pairs) the even (or
// odd, as `first` is) code points of the range lower-case to the next one.
struct CaseRange {
  uint32_t first, last;
  int delta;
  bool pairs;
};
constexpr CaseRange kLowerRanges[] = {
    {0x41, 0x5A, 32, false},    {0xC0, 0xD6, 32, false},    {0xD8, 0xDE, 32, false},
    {0x100, 0x12F, 1, true},    {0x132, 0x137, 1, true},    {0x139, 0x148, 1, true},
    {0x14A, 0x177, 1, true},    {0x179, 0x17E, 1, true},    {0x370, 0x373, 1, true},
    {0x376, 0x376, 1, false},   {0x37F, 0x37F, 116, false}, {0x386, 0x386, 38, false},
    {0x388, 0x38A, 37, false},  {0x38C, 0x38C, 64, false},  {0x38E, 0x38F, 63, false},
    {0x391, 0x3A1, 32, false},  {0x3A3, 0x3AB, 32, false},  {0x3CF, 0x3CF, 8, false},
    {0x3D8, 0x3EF, 1, true},    {0x3F7, 0x3F7, 1, false},   {0x3F9, 0x3F9, -7, false},
    {0x3FA, 0x3FA, 1, false},   {0x3FD, 0x3FF, -130, false}, {0x400, 0x40F, 80, false},
    {0x410, 0x42F, 32, false},  {0x460, 0x481, 1, true},    {0x48A, 0x4BF, 1, true},
    {0x4C0, 0x4C0, 15, false},  {0x4C1, 0x4CE, 1, true},    {0x4D0, 0x52F, 1, true},
};

struct CaseTables {
  std::array<uint32_t, kTableEnd> lower{}, upper{};
  CaseTables() {
    for (uint32_t c = 0; c < kTableEnd; c++) lower[c] = upper[c] = c;
    for (const CaseRange& r : kLowerRanges)
      for (uint32_t c = r.first; c <= r.last; c++)
        if (!r.pairs || (c - r.first) % 2 == 0) {
          lower[c] = c + r.delta;
          upper[c + r.delta] = c;
        }
    // One-way mappings.
    lower[0x130] = 'i';       // İ
    lower[0x178] = 0xFF;      // Ÿ -> ÿ
    upper[0xFF] = 0x178;
    lower[0x3F4] = 0x3B8;     // ϴ -> θ
    upper[0xB5] = 0x39C;      // µ -> Μ
    upper[0x131] = 'I';       // ı
    upper[0x17F] = 'S';       // ſ
    upper[0x3C2] = 0x3A3;     // ς -> Σ
    upper[0x3D0] = 0x392;     // ϐ -> Β
    upper[0x3D1] = 0x398;     // ϑ -> Θ
    upper[0x3D5] = 0x3A6;     // ϕ -> Φ
    upper[0x3D6] = 0x3A0;     // ϖ -> Π
    upper[0x3F0] = 0x39A;     // ϰ -> Κ
    upper[0x3F1] = 0x3A1;     // ϱ -> Ρ
    upper[0x3F5] = 0x395;     // ϵ -> Ε
    upper[0xDF] = 0x1E9E;     // ß -> ẞ
    upper[0x345] = 0x399;     // combining ypogegrammeni -> Ι
  }
};
const CaseTables& Tables() {
  static const CaseTables t;
  return t;
}

// Decodes the code point at s[i] (advancing i); invalid bytes decode as themselves with
// `valid` false.
uint32_t Decode(std::string_view s, size_t& i, bool& valid) {
  unsigned char b = (unsigned char)s[i];
  int n = Utf8SequenceLength(b);
  valid = n > 1 && i + n <= s.size();
  if (!valid) {
    i++;
    return b;
  }
  uint32_t c = b & (0x7F >> n);
  for (int k = 1; k < n; k++) c = (c << 6) | ((unsigned char)s[i + k] & 0x3F);
  i += n;
  return c;
}
void Encode(uint32_t c, std::string& out) {
  if (c < 0x80) {
    out += (char)c;
  } else if (c < 0x800) {
    out += (char)(0xC0 | (c >> 6));
    out += (char)(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += (char)(0xE0 | (c >> 12));
    out += (char)(0x80 | ((c >> 6) & 0x3F));
    out += (char)(0x80 | (c & 0x3F));
  } else {
    out += (char)(0xF0 | (c >> 18));
    out += (char)(0x80 | ((c >> 12) & 0x3F));
    out += (char)(0x80 | ((c >> 6) & 0x3F));
    out += (char)(0x80 | (c & 0x3F));
  }
}
}  // namespace

uint32_t UpperCodePoint(uint32_t c) { return c < kTableEnd ? Tables().upper[c] : c; }
uint32_t LowerCodePoint(uint32_t c) {
  if (c == 0x1E9E) return 0xDF;  // ẞ -> ß
  return c < kTableEnd ? Tables().lower[c] : c;
}

void AppendCaseMapped(std::string_view s, bool upper, std::string& out) {
  for (size_t i = 0; i < s.size();) {
    unsigned char b = (unsigned char)s[i];
    if (b < 0x80) {  // ASCII fast path
      out += (char)(upper ? (b >= 'a' && b <= 'z' ? b - 32 : b) : (b >= 'A' && b <= 'Z' ? b + 32 : b));
      i++;
      continue;
    }
    size_t at = i;
    bool valid;
    uint32_t c = Decode(s, i, valid);
    if (!valid) {
      out.append(s.substr(at, i - at));
      continue;
    }
    Encode(upper ? UpperCodePoint(c) : LowerCodePoint(c), out);
  }
}

namespace {
// The code point of s starting at byte i (its sequence's bytes).
std::string_view CharAt(std::string_view s, size_t i) {
  return s.substr(i, std::min<size_t>(Utf8SequenceLength((unsigned char)s[i]), s.size() - i));
}
// Whether the character c is one of the characters of `chars`.
bool OneOf(std::string_view c, std::string_view chars) {
  for (size_t j = 0; j < chars.size(); j += Utf8SequenceLength((unsigned char)chars[j]))
    if (CharAt(chars, j) == c) return true;
  return false;
}
// Byte offset where the last character of s[0, end) starts.
size_t LastCharStart(std::string_view s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
  return i;
}
}  // namespace

int LikeEscapeByte(std::string_view e) {
  if (e.empty()) return -1;
  if (e.size() != 1)
    throw UserError(ErrorKind::Syntax, "Invalid escape string. Escape string must be empty or one character.");
  return (unsigned char)e[0];
}

std::string_view Trim(std::string_view s, std::string_view chars, bool left, bool right) {
  size_t b = 0, e = s.size();
  if (left)
    while (b < e && OneOf(CharAt(s, b), chars)) b += CharAt(s, b).size();
  if (right)
    while (e > b) {
      size_t c = std::max(LastCharStart(s, e), b);
      if (!OneOf(s.substr(c, e - c), chars)) break;
      e = c;
    }
  return s.substr(b, e - b);
}

void AppendReplaced(std::string_view s, std::string_view from, std::string_view to, std::string& out) {
  if (from.empty()) {
    out.append(s);
    return;
  }
  size_t at = 0;
  for (size_t f; (f = s.find(from, at)) != std::string_view::npos; at = f + from.size()) {
    out.append(s.substr(at, f - at));
    out.append(to);
  }
  out.append(s.substr(at));
}

int64_t StrPos(std::string_view s, std::string_view needle) {
  size_t f = s.find(needle);
  return f == std::string_view::npos ? 0 : CharLength(s.substr(0, f)) + 1;
}

std::string_view LeftRight(std::string_view s, int64_t n, bool from_left) {
  const int64_t len = CharLength(s);
  const int64_t keep = n >= 0 ? std::min(n, len) : std::max<int64_t>(0, len + n);
  if (from_left) return s.substr(0, ByteOffset(s, keep));
  return s.substr(ByteOffset(s, len - keep));
}

bool AppendPadded(std::string_view s, int64_t n, std::string_view fill, bool left, std::string& out) {
  if (n <= 0) return true;
  const int64_t len = CharLength(s);
  if (len >= n) {
    out.append(s.substr(0, ByteOffset(s, n)));
    return true;
  }
  if (fill.empty()) return false;
  std::string pad;
  const int64_t fill_len = CharLength(fill);
  for (int64_t need = n - len; need > 0; need -= fill_len)
    pad.append(need >= fill_len ? fill : fill.substr(0, ByteOffset(fill, need)));
  if (left) out.append(pad).append(s);
  else out.append(s).append(pad);
  return true;
}

}  // namespace tessera::ops

namespace tessera::ops {

std::string_view SplitPart(std::string_view s, std::string_view delimiter, int64_t index) {
  if (index == 0) return {};
  const size_t step = delimiter.size();
  // Where the part starting at byte `from` ends: an empty delimiter splits into characters.
  auto part_end = [&](size_t from) {
    if (delimiter.empty()) return std::min(s.size(), from + Utf8SequenceLength((unsigned char)s[from]));
    const size_t at = s.find(delimiter, from);
    return at == std::string_view::npos ? s.size() : at;
  };
  if (index < 0) {  // from the end: count the parts
    int64_t parts = 1;
    if (delimiter.empty()) parts = CharLength(s);
    else
      for (size_t at = s.find(delimiter); at != std::string_view::npos; at = s.find(delimiter, at + step)) parts++;
    index += parts + 1;
    if (index < 1) return {};
  }
  for (size_t from = 0, k = 1;; k++) {
    if (delimiter.empty() && from >= s.size()) return {};
    const size_t end = part_end(from);
    if ((int64_t)k == index) return s.substr(from, end - from);
    if (end >= s.size()) return {};
    from = end + step;
  }
}

void AppendReversed(std::string_view s, std::string& out) {
  for (size_t end = s.size(); end > 0;) {
    const size_t start = LastCharStart(s, end);
    const size_t len = Utf8SequenceLength((unsigned char)s[start]);
    if (start + len == end) {
      out.append(s.substr(start, len));
    } else {  // stray continuation bytes: each is a character of its own
      for (size_t k = end; k > start; k--) out += s[k - 1];
    }
    end = start;
  }
}

int32_t FirstCodePoint(std::string_view s, int32_t empty) {
  if (s.empty()) return empty;
  size_t i = 0;
  bool valid;
  return (int32_t)Decode(s, i, valid);
}

bool AppendCodePoint(int64_t c, std::string& out) {
  if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
  Encode((uint32_t)c, out);
  return true;
}

void AppendTranslated(std::string_view s, std::string_view from, std::string_view to, std::string& out) {
  for (size_t i = 0; i < s.size();) {
    const std::string_view c = CharAt(s, i);
    i += c.size();
    // The first occurrence of c in `from` picks the character at the same place in `to`.
    size_t f = 0, t = 0;
    for (; f < from.size() && CharAt(from, f) != c; f += CharAt(from, f).size())
      if (t < to.size()) t += CharAt(to, t).size();
    if (f >= from.size()) out.append(c);         // not translated
    else if (t < to.size()) out.append(CharAt(to, t));  // else: deleted
  }
}

}  // namespace tessera::ops
