// The compiled LIKE pattern (src/function/like_pattern.hpp) against the one definition of
// LIKE both backends evaluate (string_core.hpp's LikeMatch): the same answer on written
// edge cases and on a million random patterns and strings over a small alphabet that
// makes matches likely (`%`, `_`, an escape byte, multi-byte characters, stray lead and
// continuation bytes). The substring search is checked against a naive one too.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include "function/like_pattern.hpp"
#include "function/string_core.hpp"

using namespace tessera;

static bool Core(const std::string& s, const std::string& p, int esc) {
  return ops::LikeMatch(s.data(), s.size(), p.data(), p.size(), esc);
}
static bool Fast(const std::string& s, const std::string& p, int esc) {
  return ops::LikePattern(p, esc).Match(s.data(), s.size());
}

TEST(kinds) {
  using K = ops::LikePattern::Kind;
  CHECK(ops::LikePattern("abc", -1).kind() == K::Exact);
  CHECK(ops::LikePattern("", -1).kind() == K::Exact);
  CHECK(ops::LikePattern("%special%requests%", -1).kind() == K::Segments);
  CHECK(ops::LikePattern("forest%", -1).kind() == K::Segments);
  CHECK(ops::LikePattern("%BRASS", -1).kind() == K::Segments);
  CHECK(ops::LikePattern("a_c", -1).kind() == K::General);
  CHECK(ops::LikePattern("a\\_c", '\\').kind() == K::Exact);  // escaped: a literal _
  CHECK(ops::LikePattern("abc\\", '\\').kind() == K::Never);  // ends in the escape byte
}

TEST(edge_cases) {
  const char* strings[] = {"", "a", "abc", "special requests", "xx special yy requests zz", "requests special",
                           "%", "_", "a%b", "a_b", "é", "éa", "aé", "\xC3", "a\xC3", "\xC3" "a", "\x80", "ab\xC3",
                           "MEDIUM POLISHED TIN", "PROMO BRUSHED", "forest green", "aaa", "abab", "ababab"};
  const char* patterns[] = {"", "%", "%%", "a", "a%", "%a", "%a%", "abc", "a%c", "%special%requests%", "%b%b%",
                            "_", "__", "%_", "_%", "a_", "%é%", "é", "é%", "%\xC3", "\xC3%", "%\x80%", "ab%ab",
                            "%ab%ab", "MEDIUM POLISHED%", "%BRASS", "PROMO%", "aa%aa", "%aa", "a%%b", "\\%", "\\_",
                            "a\\%b", "%\\%%", "\\", "a\\", "\\\\", "%a\\"};
  for (const char* s : strings)
    for (const char* p : patterns)
      for (int esc : {-1, (int)'\\', (int)'a', (int)'%', (int)'_'}) {
        if (Core(s, p, esc) != Fast(s, p, esc))
          tcheck::Fail(__FILE__, __LINE__, std::string("'") + s + "' LIKE '" + p + "' ESCAPE " + std::to_string(esc));
      }
  // A few answers written out (DuckDB's).
  CHECK(Fast("xx special yy requests zz", "%special%requests%", -1));
  CHECK(!Fast("requests special", "%special%requests%", -1));
  CHECK(Fast("", "", -1));
  CHECK(!Fast("a", "", -1));
  CHECK(Fast("", "%%", -1));
  CHECK(Fast("a%b", "a\\%b", '\\'));
  CHECK(!Fast("axb", "a\\%b", '\\'));
  CHECK(Fast("aé", "a_", -1));
  CHECK(!Fast("aé", "a__", -1));
  CHECK(!Fast("aba", "ab%ab", -1));  // prefix and suffix may not overlap
  CHECK(Fast("abab", "ab%ab", -1));
}

TEST(random_against_core) {
  std::mt19937_64 g(12345);
  // Pieces strings and patterns are made of.
  const std::vector<std::string> text = {"a", "b", "c", "ab", "é", "\xC3", "\x80", "\xF0\x9F\x98\x80", "%", "_", "\\"};
  const std::vector<std::string> pat = {"a", "b", "c", "ab", "é", "\xC3", "%", "%", "_", "\\", "\\%", "\\_", "\\\\"};
  auto make = [&](const std::vector<std::string>& from, int max_len) {
    std::string r;
    const int len = (int)(g() % (uint64_t)(max_len + 1));
    for (int i = 0; i < len; i++) r += from[g() % from.size()];
    return r;
  };
  long mismatches = 0, matches = 0;
  for (int round = 0; round < 20000; round++) {
    const std::string p = make(pat, 6);
    const int esc = g() % 3 == 0 ? -1 : (g() % 2 ? (int)'\\' : (int)'a');
    const ops::LikePattern compiled(p, esc);
    for (int k = 0; k < 50; k++) {
      const std::string s = make(text, 12);
      const bool want = Core(s, p, esc);
      matches += want;
      if (compiled.Match(s.data(), s.size()) != want && mismatches++ < 10)
        tcheck::Fail(__FILE__, __LINE__, "'" + s + "' LIKE '" + p + "' ESCAPE " + std::to_string(esc));
    }
  }
  CHECK_EQ(mismatches, 0L);
  CHECK(matches > 10000);  // the alphabet makes matches common enough to test both answers
}

TEST(find_bytes_against_naive) {
  std::mt19937_64 g(7);
  for (int round = 0; round < 200000; round++) {
    std::string s, nd;
    const size_t n = g() % 70, m = 1 + g() % 9;
    for (size_t i = 0; i < n; i++) s += (char)('a' + g() % 3);
    for (size_t i = 0; i < m; i++) nd += (char)('a' + g() % 3);
    const size_t from = g() % (n + 2);
    size_t want = n;
    for (size_t i = from; i + m <= n; i++)
      if (s.compare(i, m, nd) == 0) {
        want = i;
        break;
      }
    const size_t got = ops::FindBytes(s.data(), n, from, nd.data(), m);
    if ((got >= n ? n : got) != want) {
      tcheck::Fail(__FILE__, __LINE__, "FindBytes('" + s + "', from " + std::to_string(from) + ", '" + nd + "')");
      return;
    }
  }
}

TEST(multi_byte_lead) {
  CHECK(!ops::HasMultiByteLead("plain ascii text, longer than one word", 38));
  CHECK(!ops::HasMultiByteLead("\x80\xBF\x80", 3));  // continuation bytes step one byte
  CHECK(ops::HasMultiByteLead("caf\xC3\xA9", 5));
  for (size_t at = 0; at < 20; at++) {
    std::string s(20, 'x');
    s[at] = '\xC0';
    CHECK(ops::HasMultiByteLead(s.data(), s.size()));
    CHECK(!ops::HasMultiByteLead(s.data(), at));
  }
}

TEST_MAIN()
