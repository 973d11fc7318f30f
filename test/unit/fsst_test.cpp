// FSST (storage/compression/fsst.hpp): round trips (empty, short, every byte value, long,
// every symbol, random bytes, TPC-H-like comment text with its ratio), the serialized
// table and malformed ones, random code streams against a byte-at-a-time reference decoder
// (every result or refusal must match, never an out-of-bounds access), and a table used on
// text it was not trained on. Prints the ratio and the encode/decode speed on comment text.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "storage/compression/fsst.hpp"

using namespace tessera;

namespace {

// TPC-H-like comment text: weighted words of the specification's kind in short sentences.
struct Words {
  std::vector<const char*> w;
  std::vector<int> cum;
  Words(std::initializer_list<std::pair<const char*, int>> l) {
    int sum = 0;
    for (auto& [text, weight] : l) {
      w.push_back(text);
      cum.push_back(sum += weight);
    }
  }
  const char* Pick(std::mt19937_64& r) const {
    const int x = (int)(r() % (uint64_t)cum.back());
    size_t i = 0;
    while (cum[i] <= x) i++;
    return w[i];
  }
};

const Words kNouns{{"packages", 40}, {"requests", 40}, {"accounts", 40}, {"deposits", 40},
                   {"foxes", 20}, {"ideas", 20}, {"theodolites", 20}, {"pinto beans", 20},
                   {"instructions", 20}, {"dependencies", 10}, {"excuses", 10},
                   {"platelets", 10}, {"asymptotes", 10}, {"courts", 5}, {"dolphins", 5},
                   {"warthogs", 1}, {"frets", 1}, {"somas", 1}, {"braids", 1}, {"pearls", 1}};
const Words kVerbs{{"sleep", 20}, {"wake", 20}, {"are", 20}, {"cajole", 20}, {"haggle", 20},
                   {"nag", 10}, {"use", 10}, {"boost", 10}, {"affix", 5}, {"detect", 5},
                   {"integrate", 5}, {"maintain", 1}, {"nod", 1}, {"print", 1}, {"doze", 1}};
const Words kAdjectives{{"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20},
                        {"regular", 50}, {"final", 40}, {"ironic", 40}, {"even", 30},
                        {"bold", 20}, {"silent", 10}, {"furious", 1}, {"quick", 1}};
const Words kAdverbs{{"furiously", 50}, {"slyly", 50}, {"carefully", 50}, {"blithely", 40},
                     {"quickly", 30}, {"fluffily", 20}, {"slowly", 1}, {"quietly", 1},
                     {"ruthlessly", 1}, {"finally", 1}, {"ironically", 1}, {"boldly", 1}};
const Words kPrepositions{{"about", 50}, {"above", 50}, {"according to", 50}, {"across", 50},
                          {"after", 50}, {"against", 40}, {"along", 40}, {"among", 30},
                          {"around", 20}, {"at", 10}, {"beneath", 1}, {"during", 1}};
const Words kTerminators{{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}};

void Put(std::string& s, const char* w) {
  if (!s.empty() && s.back() != ' ') s += ' ';
  s += w;
}

// A pool of sentences: [adverb] [adjective] noun [verb [adverb]] [preposition the noun].
std::string CommentPool(uint64_t seed, size_t bytes) {
  std::mt19937_64 r(seed);
  std::string s;
  while (s.size() < bytes) {
    if (r() % 3 == 0) Put(s, kAdverbs.Pick(r));
    if (r() % 2 == 0) Put(s, kAdjectives.Pick(r));
    Put(s, kNouns.Pick(r));
    Put(s, kVerbs.Pick(r));
    if (r() % 2 == 0) Put(s, kAdverbs.Pick(r));
    if (r() % 2 == 0) {
      Put(s, kPrepositions.Pick(r));
      Put(s, "the");
      Put(s, kNouns.Pick(r));
    }
    s += kTerminators.Pick(r);
    s += ' ';
  }
  return s;
}

// Comments: substrings of the pool of min..max bytes (as dbgen draws them).
std::vector<std::string> Comments(const std::string& pool, size_t count, size_t min, size_t max,
                                  uint64_t seed) {
  std::mt19937_64 r(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; i++) {
    const size_t len = min + r() % (max - min + 1);
    out.push_back(pool.substr(r() % (pool.size() - len), len));
  }
  return out;
}

std::vector<std::string_view> Views(const std::vector<std::string>& v, size_t max_bytes) {
  std::vector<std::string_view> out;
  size_t bytes = 0;
  for (const auto& s : v) {
    if (bytes >= max_bytes) break;
    out.push_back(s);
    bytes += s.size();
  }
  return out;
}

std::string Codes(const fsst::SymbolTable& t, std::string_view s) {
  std::string c;
  fsst::CompressString(t, s, c);
  return c;
}

// Compresses s, decodes it into exactly s.size() bytes of room (and one byte less, which
// must be refused) and compares. Returns the code bytes' size, SIZE_MAX on a mismatch.
size_t RoundTrip(const fsst::SymbolTable& t, std::string_view s) {
  const std::string c = Codes(t, s);
  if (c.size() > 2 * s.size()) return SIZE_MAX;
  const uint8_t* in = reinterpret_cast<const uint8_t*>(c.data());
  std::vector<char> out(s.size());
  if (fsst::DecompressString(t, in, c.size(), out.data(), out.size()) != s.size()) return SIZE_MAX;
  if (!s.empty() && std::memcmp(out.data(), s.data(), s.size()) != 0) return SIZE_MAX;
  if (!s.empty()) {
    std::vector<char> small(s.size() - 1);
    if (fsst::DecompressString(t, in, c.size(), small.data(), small.size()) != SIZE_MAX)
      return SIZE_MAX;
  }
  return c.size();
}

std::string RandomBytes(std::mt19937_64& r, size_t n) {
  std::string s(n, '\0');
  for (auto& ch : s) ch = (char)r();
  return s;
}

// The format's meaning, one code at a time, for comparison with the decoder.
size_t ReferenceDecode(const fsst::SymbolTable& t, const uint8_t* in, size_t len, size_t cap,
                       std::string& out) {
  out.clear();
  for (size_t i = 0; i < len; i++) {
    if (in[i] == fsst::kEscape) {
      if (i + 1 == len) return SIZE_MAX;
      out.push_back((char)in[++i]);
    } else if (in[i] < t.nsymbols) {
      for (uint32_t k = 0; k < t.length[in[i]]; k++)
        out.push_back((char)(t.symbol[in[i]] >> (8 * k)));
    } else {
      return SIZE_MAX;
    }
  }
  return out.size() <= cap ? out.size() : SIZE_MAX;
}

// A table of n random symbols over a small alphabet (so they overlap and share prefixes).
fsst::SymbolTable RandomTable(std::mt19937_64& r, uint32_t n, int alphabet) {
  fsst::SymbolTable t;
  t.nsymbols = n;
  for (uint32_t c = 0; c < n; c++) {
    t.length[c] = (uint8_t)(1 + r() % 8);
    t.symbol[c] = 0;
    for (uint32_t k = 0; k < t.length[c]; k++)
      t.symbol[c] |= (uint64_t)(uint8_t)('a' + r() % alphabet) << (8 * k);
  }
  fsst::Finalize(t);
  return t;
}

struct Corpus {
  std::string pool = CommentPool(1, 4 << 20);
  std::vector<std::string> comments = Comments(pool, 100000, 10, 115, 2);
  fsst::SymbolTable table = fsst::Train(Views(comments, 16 << 10));
};
const Corpus& TheCorpus() {
  static const Corpus c;
  return c;
}

}  // namespace

TEST(empty_and_short_strings) {
  const auto& t = TheCorpus().table;
  CHECK(t.nsymbols > 0 && t.nsymbols <= 255);
  CHECK(Codes(t, "").empty());
  CHECK_EQ(fsst::DecompressString(t, nullptr, 0, nullptr, 0), (size_t)0);
  CHECK_EQ(RoundTrip(t, ""), (size_t)0);
  for (int b = 0; b < 256; b++) {
    const std::string s(1, (char)b);
    const size_t n = RoundTrip(t, s);
    CHECK(n == 1 || n == 2);  // a symbol or an escape
  }
  std::mt19937_64 r(3);
  for (int i = 0; i < 20000; i++) {
    std::string s = RandomBytes(r, 1 + r() % 9);
    if (i % 2) for (auto& ch : s) ch = "abc ely"[r() % 7];
    CHECK(RoundTrip(t, s) != SIZE_MAX);
  }
  // Each of the 256 byte values, in one string and in both orders.
  std::string all;
  for (int b = 0; b < 256; b++) all.push_back((char)b);
  CHECK(RoundTrip(t, all) != SIZE_MAX);
  CHECK(RoundTrip(t, std::string(all.rbegin(), all.rend())) != SIZE_MAX);
  // An untrained table escapes everything, and so does a default (unfinalized) one.
  const fsst::SymbolTable empty = fsst::Train({});
  CHECK_EQ(empty.nsymbols, 0u);
  CHECK_EQ(RoundTrip(empty, all), all.size() * 2);
  CHECK_EQ(RoundTrip(fsst::SymbolTable{}, "abc"), (size_t)6);
}

TEST(every_symbol) {
  const auto& t = TheCorpus().table;
  std::string all;
  for (uint32_t c = 0; c < t.nsymbols; c++) {
    std::string sym;
    for (uint32_t k = 0; k < t.length[c]; k++) sym.push_back((char)(t.symbol[c] >> (8 * k)));
    CHECK(t.length[c] >= 1 && t.length[c] <= 8);
    CHECK_EQ(t.symbol[c] >> 8 >> (8 * (t.length[c] - 1)), 0ull);  // unused bytes zero
    // The longest match of a symbol alone is itself: one code byte.
    const std::string code = Codes(t, sym);
    CHECK_EQ(code.size(), (size_t)1);
    CHECK_EQ(code.empty() ? -1 : (int)(uint8_t)code[0], (int)c);
    all += sym;
  }
  CHECK(RoundTrip(t, all) != SIZE_MAX);
  std::string reversed;
  for (uint32_t c = t.nsymbols; c-- > 0;) {
    for (uint32_t k = 0; k < t.length[c]; k++) reversed.push_back((char)(t.symbol[c] >> (8 * k)));
  }
  CHECK(RoundTrip(t, reversed) != SIZE_MAX);
}

TEST(greedy_longest_match) {
  // Symbols sharing prefixes (and holding zero bytes): the longest match wins.
  fsst::SymbolTable t;
  const std::vector<std::string> syms = {"a", "ab", "abc", "abcd", "abcdefgh", "b",
                                         std::string("x\0", 2), std::string("\0\0\0", 3)};
  t.nsymbols = (uint32_t)syms.size();
  for (size_t c = 0; c < syms.size(); c++) {
    t.length[c] = (uint8_t)syms[c].size();
    for (size_t k = 0; k < syms[c].size(); k++)
      t.symbol[c] |= (uint64_t)(uint8_t)syms[c][k] << (8 * k);
  }
  fsst::Finalize(t);
  CHECK_EQ(Codes(t, "abcdefghab"), std::string("\x04\x01", 2));
  CHECK_EQ(Codes(t, "abcdefg"), std::string("\x03\xff" "e\xff" "f\xff" "g", 7));
  CHECK_EQ(Codes(t, "abca"), std::string("\x02\x00", 2));
  CHECK_EQ(Codes(t, "ab"), std::string("\x01", 1));
  // "x" at the end is not "x\0"; nor are zero-padded tails symbols of zero bytes.
  CHECK_EQ(Codes(t, "x"), std::string("\xff" "x", 2));
  CHECK_EQ(Codes(t, std::string("x\0", 2)), std::string("\x06", 1));
  CHECK_EQ(Codes(t, std::string("\0\0", 2)), std::string("\xff\0\xff\0", 4));
  CHECK_EQ(Codes(t, std::string("\0\0\0\0", 4)), std::string("\x07\xff\0", 3));
  // Random tables over a tiny alphabet: overlapping symbols, duplicates, shared buckets.
  std::mt19937_64 r(5);
  for (int i = 0; i < 300; i++) {
    const fsst::SymbolTable rt = RandomTable(r, (uint32_t)(r() % 256), 2 + (int)(r() % 4));
    for (int k = 0; k < 20; k++) {
      std::string s(r() % 200, '\0');
      for (auto& ch : s) ch = (char)('a' + r() % 6);
      CHECK(RoundTrip(rt, s) != SIZE_MAX);
    }
  }
}

TEST(long_strings_and_random_bytes) {
  const auto& c = TheCorpus();
  std::mt19937_64 r(7);
  CHECK(RoundTrip(c.table, c.pool.substr(0, 1 << 20)) != SIZE_MAX);
  CHECK(RoundTrip(c.table, std::string(100000, '\0')) != SIZE_MAX);
  // Random bytes: with a table trained on text or on random bytes, at most 2x (escapes).
  const std::string noise = RandomBytes(r, 1 << 20);
  size_t n = RoundTrip(c.table, noise);
  CHECK(n != SIZE_MAX && n <= 2 * noise.size());
  std::vector<std::string> noise_strings;
  for (int i = 0; i < 500; i++) noise_strings.push_back(RandomBytes(r, 1 + r() % 100));
  const fsst::SymbolTable nt = fsst::Train(Views(noise_strings, 16 << 10));
  size_t raw = 0, coded = 0;
  for (const auto& s : noise_strings) {
    n = RoundTrip(nt, s);
    CHECK(n != SIZE_MAX);
    raw += s.size();
    coded += n;
  }
  n = RoundTrip(nt, noise);
  CHECK(n != SIZE_MAX && n <= 2 * noise.size());
  std::printf("  random bytes: %.3fx own table, %.3fx on 1 MiB\n", (double)raw / coded,
              (double)noise.size() / n);
}

TEST(comment_text_ratio_and_speed) {
  const auto& c = TheCorpus();
  std::string codes;
  std::vector<uint32_t> offsets = {0};
  size_t raw = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& s : c.comments) {
    fsst::CompressString(c.table, s, codes);
    offsets.push_back((uint32_t)codes.size());
    raw += s.size();
  }
  auto t1 = std::chrono::steady_clock::now();
  const double ratio = (double)raw / codes.size();
  CHECK(ratio >= 2.0);
  // Decode every string (into one buffer, as a chunk decoder would) and compare.
  std::vector<char> out(raw);
  const uint8_t* in = reinterpret_cast<const uint8_t*>(codes.data());
  double best = 1e9;
  bool ok = true;
  for (int rep = 0; rep < 5; rep++) {
    auto d0 = std::chrono::steady_clock::now();
    size_t o = 0;
    for (size_t i = 0; i + 1 < offsets.size(); i++) {
      const size_t n = fsst::DecompressString(c.table, in + offsets[i],
                                              offsets[i + 1] - offsets[i], out.data() + o,
                                              out.size() - o);
      if (n == SIZE_MAX) {
        ok = false;
        break;
      }
      o += n;
    }
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - d0).count());
    ok = ok && o == raw;
  }
  size_t o = 0;
  for (const auto& s : c.comments) {
    ok = ok && std::memcmp(out.data() + o, s.data(), s.size()) == 0;
    o += s.size();
  }
  CHECK(ok);
  // The concatenated codes of all strings decode to the concatenated strings in one call.
  double best_bulk = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    auto d0 = std::chrono::steady_clock::now();
    CHECK_EQ(fsst::DecompressString(c.table, in, codes.size(), out.data(), out.size()), raw);
    best_bulk = std::min(
        best_bulk, std::chrono::duration<double>(std::chrono::steady_clock::now() - d0).count());
  }
  std::printf("  comments: %zu symbols, ratio %.2fx (%zu -> %zu bytes), encode %.0f MB/s, "
              "decode %.0f MB/s per string, %.0f MB/s all at once\n",
              (size_t)c.table.nsymbols, ratio, raw, codes.size(),
              raw / 1e6 / std::chrono::duration<double>(t1 - t0).count(), raw / 1e6 / best,
              raw / 1e6 / best_bulk);
}

TEST(serialize_round_trip_and_malformed) {
  const auto& c = TheCorpus();
  std::string ser;
  fsst::Serialize(c.table, ser);
  size_t expect = 1;
  for (uint32_t i = 0; i < c.table.nsymbols; i++) expect += 1 + c.table.length[i];
  CHECK_EQ(ser.size(), expect);
  ser += "trailing";
  fsst::SymbolTable t;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(ser.data());
  CHECK_EQ(fsst::Deserialize(p, ser.size(), t), expect);
  CHECK_EQ(t.nsymbols, c.table.nsymbols);
  bool same = true;
  for (uint32_t i = 0; i < t.nsymbols; i++)
    same = same && t.symbol[i] == c.table.symbol[i] && t.length[i] == c.table.length[i];
  CHECK(same);
  for (size_t i = 0; i < 2000; i++)
    CHECK_EQ(Codes(t, c.comments[i]), Codes(c.table, c.comments[i]));
  // Every truncation is refused and leaves the table alone.
  for (size_t n = 0; n < expect; n++) {
    if (fsst::Deserialize(p, n, t) != 0) {
      CHECK(!"truncated table accepted");
      break;
    }
  }
  CHECK_EQ(t.nsymbols, c.table.nsymbols);
  // Lengths 0 and 9 are refused; 0 symbols and 255 of 8 bytes are fine.
  CHECK_EQ(fsst::Deserialize(reinterpret_cast<const uint8_t*>("\x01\x00"), 2, t), (size_t)0);
  CHECK_EQ(fsst::Deserialize(reinterpret_cast<const uint8_t*>("\x01\x09" "abcdefghi"), 11, t),
           (size_t)0);
  CHECK_EQ(fsst::Deserialize(reinterpret_cast<const uint8_t*>("\x02\x01" "a\x00"), 4, t),
           (size_t)0);
  CHECK_EQ(fsst::Deserialize(reinterpret_cast<const uint8_t*>("\x00"), 1, t), (size_t)1);
  CHECK_EQ(t.nsymbols, 0u);
  CHECK_EQ(RoundTrip(t, "xyz"), (size_t)6);
  std::string full(1, (char)255);
  for (int i = 0; i < 255; i++) full += std::string("\x08") + "abcdefg" + (char)i;
  CHECK_EQ(fsst::Deserialize(reinterpret_cast<const uint8_t*>(full.data()), full.size(), t),
           full.size());
  CHECK_EQ(t.nsymbols, 255u);
  CHECK_EQ(Codes(t, std::string("abcdefg") + (char)200), std::string(1, (char)200));
  std::string again;
  fsst::Serialize(t, again);
  CHECK(again == full);
  // Random bytes as a table: refused, or accepted with sane lengths and a working encoder.
  std::mt19937_64 r(17);
  int accepted = 0;
  for (int i = 0; i < 20000; i++) {
    std::string junk = RandomBytes(r, r() % 64);
    for (auto& ch : junk)
      if (r() % 2) ch = (char)(r() % 10);  // plausible counts and lengths
    std::vector<uint8_t> buf(junk.begin(), junk.end());  // exactly sized for ASan
    fsst::SymbolTable jt;
    const size_t used = fsst::Deserialize(buf.data(), buf.size(), jt);
    if (used == 0) continue;
    accepted++;
    CHECK(used <= buf.size());
    for (uint32_t k = 0; k < jt.nsymbols; k++) CHECK(jt.length[k] >= 1 && jt.length[k] <= 8);
    CHECK(RoundTrip(jt, junk) != SIZE_MAX);
  }
  CHECK(accepted > 1000);
}

TEST(random_code_streams) {
  std::mt19937_64 r(11);
  std::string expect;
  for (int i = 0; i < 50000; i++) {
    const uint32_t n = i % 10 == 0 ? 255 : (uint32_t)(r() % 256);
    fsst::SymbolTable t = RandomTable(r, n, 26);
    std::vector<uint8_t> in(r() % 64);
    for (auto& b : in) b = (uint8_t)(r() % 4 == 0 ? 255 : r() % 256);
    if (i % 3 == 0) for (auto& b : in) if (b != 255 && n) b = (uint8_t)(b % n);  // mostly valid
    const size_t cap = r() % 2 ? r() % 300 : r() % 40;
    std::vector<char> out(cap);  // exactly cap: any overrun is an ASan error
    const size_t got = fsst::DecompressString(t, in.data(), in.size(), out.data(), cap);
    const size_t want = ReferenceDecode(t, in.data(), in.size(), cap, expect);
    if (got != want || (got != SIZE_MAX && got > 0 &&
                        std::memcmp(out.data(), expect.data(), got) != 0)) {
      CHECK_EQ(got, want);
      CHECK(!"decoded bytes differ from the reference");
      return;
    }
  }
}

TEST(table_used_on_other_text) {
  const auto& c = TheCorpus();
  const std::vector<std::string> others = {
      "The quick brown fox jumps over the lazy dog; 0123456789 !@#$%^&*()",
      "SELECT l_returnflag, sum(l_quantity) FROM lineitem GROUP BY 1 ORDER BY 1",
      "Customer#000001234", "Supplier#000000042", "1-URGENT", "MAIL", "TAKE BACK RETURN",
      std::string("embedded\0zero\0bytes", 19), "\xc3\xa9t\xc3\xa9 \xe2\x82\xac 100",
  };
  for (const auto& s : others) CHECK(RoundTrip(c.table, s) != SIZE_MAX);
  // A table trained on a different comment pool still round trips and still compresses.
  const std::string pool2 = CommentPool(99, 1 << 20);
  const auto other = Comments(pool2, 5000, 10, 115, 4);
  const fsst::SymbolTable t2 = fsst::Train(Views(Comments(pool2, 1000, 40, 80, 5), 16 << 10));
  size_t raw = 0, coded = 0;
  for (const auto& s : c.comments) {
    if (raw > (2 << 20)) break;
    const size_t n = RoundTrip(t2, s);
    CHECK(n != SIZE_MAX);
    raw += s.size();
    coded += n;
  }
  CHECK((double)raw / coded >= 2.0);
  // Deterministic: the same sample gives the same table.
  const fsst::SymbolTable t3 = fsst::Train(Views(Comments(pool2, 1000, 40, 80, 5), 16 << 10));
  std::string a, b;
  fsst::Serialize(t2, a);
  fsst::Serialize(t3, b);
  CHECK(a == b);
  // A sample far beyond the budget (and one huge string) is subsampled, and still works.
  const fsst::SymbolTable big = fsst::Train({std::string_view(c.pool)});
  CHECK(big.nsymbols > 0);
  for (size_t i = 0; i < 1000; i++) CHECK(RoundTrip(big, other[i]) != SIZE_MAX);
}

TEST_MAIN()
