#include "function/like_pattern.hpp"

#include <cstring>

#include "function/string_core.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tessera::ops {

LikePattern::LikePattern(std::string_view p, int escape) : pattern_(p), escape_(escape) {
  std::string cur;
  bool any_percent = false, starts_percent = false, ends_percent = false;
  for (size_t i = 0; i < p.size();) {
    const unsigned char c = (unsigned char)p[i];
    if (escape >= 0 && c == escape) {
      // LikeMatch reads the escape byte and the one after it as that literal byte; a
      // pattern ending in the escape byte matches nothing.
      if (i + 1 >= p.size()) {
        kind_ = Kind::Never;
        return;
      }
      cur += p[i + 1];
      i += 2;
      ends_percent = false;
      continue;
    }
    if (c == '_') {  // one character: LikeMatch itself
      kind_ = Kind::General;
      segments_.clear();
      return;
    }
    if (c == '%') {
      if (i == 0) starts_percent = true;
      any_percent = true;
      if (!cur.empty()) segments_.push_back(std::move(cur));
      cur.clear();
      ends_percent = true;
      i++;
      continue;
    }
    cur += (char)c;
    ends_percent = false;
    i++;
  }
  if (!any_percent) {
    kind_ = Kind::Exact;
    segments_.assign(1, cur);
    return;
  }
  if (!cur.empty()) segments_.push_back(std::move(cur));
  kind_ = Kind::Segments;
  anchor_start_ = !starts_percent;
  anchor_end_ = !ends_percent;
}

bool HasMultiByteLead(const char* s, size_t n) {
  // A byte is >= 0xC0 when its bits 7 and 6 are both set: per 8-byte word, w & (w << 1)
  // has bit 7 of a byte set exactly then.
  size_t i = 0;
#if defined(__SSE2__)
  // 16 bytes at a time: shifting 16-bit lanes left by one moves each byte's bit 6 to its
  // bit 7; the last (partial) block is the overlapping one ending at n.
  if (n >= 16) {
    __m128i acc = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      acc = _mm_or_si128(acc, _mm_and_si128(x, _mm_slli_epi16(x, 1)));
    }
    if (i < n) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + n - 16));
      acc = _mm_or_si128(acc, _mm_and_si128(x, _mm_slli_epi16(x, 1)));
    }
    return _mm_movemask_epi8(acc) != 0;
  }
#endif
  uint64_t acc = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, s + i, 8);
    acc |= w & (w << 1);
  }
  if (i < n) {
    uint64_t w = 0;
    std::memcpy(&w, s + i, n - i);
    acc |= w & (w << 1);
  }
  return (acc & 0x8080808080808080ULL) != 0;
}

// a[0, k) == b[0, k) for the short middles of needles (inline: no call per candidate).
static inline bool SameBytes(const char* a, const char* b, size_t k) {
  for (size_t i = 0; i < k; i++)
    if (a[i] != b[i]) return false;
  return true;
}

size_t FindBytes(const char* s, size_t n, size_t from, const char* needle, size_t m) {
  if (m > n || from > n - m) return n;
  if (m == 1) {
    const void* p = std::memchr(s + from, needle[0], n - from);
    return p ? (size_t)((const char*)p - s) : n;
  }
  const size_t last = n - m;  // the last position a match can start at
  size_t i = from;
#if defined(__SSE2__)
  // Candidates where both the needle's first and last bytes match, 16 positions at a time
  // (the loads read s[i, i + m - 1 + 16), within the string); each checked byte by byte.
  if (n >= m - 1 + 16) {
    const __m128i first = _mm_set1_epi8(needle[0]);
    const __m128i lastb = _mm_set1_epi8(needle[m - 1]);
    auto block = [&](size_t at, unsigned skip) -> size_t {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at + m - 1));
      unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, lastb)));
      mask &= ~0u << skip;  // positions before `from` (the overlapping last block)
      while (mask) {
        const unsigned bit = (unsigned)__builtin_ctz(mask);
        if (SameBytes(s + at + bit + 1, needle + 1, m - 2)) return at + bit;
        mask &= mask - 1;
      }
      return n;
    };
    for (; i + 16 <= last + 1; i += 16) {
      const size_t r = block(i, 0);
      if (r != n) return r;
    }
    if (i <= last) {  // the rest: one block ending at the last start position
      const size_t at = last + 1 - 16;
      return block(at, (unsigned)(i - at));
    }
    return n;
  }
#endif
  for (; i <= last; i++)
    if (s[i] == needle[0] && s[i + m - 1] == needle[m - 1] && SameBytes(s + i + 1, needle + 1, m - 2))
      return i;
  return n;
}

// Leftmost match of each literal segment in turn (prefix and suffix anchored where the
// pattern does not begin or end with `%`); valid for strings without bytes >= 0xC0.
bool LikePattern::MatchSegments(const char* s, size_t n) const {
  size_t pos = 0, k = 0, end = segments_.size();
  if (anchor_start_) {
    const std::string& a = segments_[0];
    if (n < a.size() || std::memcmp(s, a.data(), a.size()) != 0) return false;
    pos = a.size();
    k = 1;
  }
  if (anchor_end_) end--;
  for (; k < end; k++) {
    const std::string& g = segments_[k];
    const size_t j = FindBytes(s, n, pos, g.data(), g.size());
    if (j >= n) return false;
    pos = j + g.size();
  }
  if (anchor_end_) {
    const std::string& z = segments_.back();
    return n - pos >= z.size() && std::memcmp(s + n - z.size(), z.data(), z.size()) == 0;
  }
  return true;
}

bool LikePattern::Match(const char* s, size_t n) const {
  switch (kind_) {
    case Kind::Never: return false;
    case Kind::Exact: return n == segments_[0].size() && (n == 0 || std::memcmp(s, segments_[0].data(), n) == 0);
    case Kind::Segments:
      if (!HasMultiByteLead(s, n)) return MatchSegments(s, n);
      break;
    case Kind::General: break;
  }
  return LikeMatch(s, n, pattern_.data(), pattern_.size(), escape_);
}

}  // namespace tessera::ops
