// A LIKE pattern compiled once per expression (CPU): the pattern read into its literal
// segments between `%` runs, so that a row is matched with memcmp (prefix, suffix,
// equality) and a SIMD substring search (`%a%b%` chains) instead of the byte-by-byte
// automaton. The semantics stay string_core.hpp's LikeMatch, the one definition both
// backends evaluate: the fast path is taken only where it provably gives LikeMatch's
// answer, and everything else calls LikeMatch itself:
//   * patterns with `_` (one character, a UTF-8 sequence of variable length) are matched by
//     LikeMatch;
//   * a `%` in LikeMatch skips whole characters (Utf8SequenceLength of the byte where it
//     stands); over bytes below 0xC0 that is one byte at a time, where the leftmost match
//     of each literal segment is LikeMatch's greedy answer. A string holding a byte of
//     0xC0 or above (a multi-byte character, or a stray lead byte) goes to LikeMatch.
// test/unit/like_pattern_test.cpp compares both on random patterns and strings (escapes,
// `%%`, `_`, multi-byte and invalid UTF-8 included).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::ops {

class LikePattern {
 public:
  // `escape`: the ESCAPE byte (LikeEscapeByte), or -1 for none.
  LikePattern(std::string_view pattern, int escape);
  bool Match(const char* s, size_t n) const;
  bool Match(std::string_view s) const { return Match(s.data(), s.size()); }
  // How the pattern is matched (for tests and EXPLAIN-free introspection).
  enum class Kind : uint8_t { Never, Exact, Segments, General };
  Kind kind() const { return kind_; }

 private:
  bool MatchSegments(const char* s, size_t n) const;
  Kind kind_ = Kind::General;
  std::string pattern_;  // the pattern as written (Kind::General)
  int escape_ = -1;
  // Kind::Exact: segments_[0] is the whole string. Kind::Segments: the literal runs
  // between `%`s, escapes resolved, empty ones dropped; `anchor_start_` / `anchor_end_`
  // when the pattern does not begin / end with `%`.
  std::vector<std::string> segments_;
  bool anchor_start_ = false, anchor_end_ = false;
};

// Whether bytes [s, s + n) hold a byte >= 0xC0 (where LikeMatch's `%` may step more than
// one byte).
bool HasMultiByteLead(const char* s, size_t n);
// The first occurrence of `needle` (size m >= 1) in [s, s + n) at or after byte `from`;
// n (or more) when there is none.
size_t FindBytes(const char* s, size_t n, size_t from, const char* needle, size_t m);

}  // namespace tessera::ops
