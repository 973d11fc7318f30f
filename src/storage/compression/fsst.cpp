// FSST (fsst.hpp): training, the table's serialized form, encoder and decoder.
//
// Encoder: at each position the longest symbol that matches is taken (greedy). Symbols of
// 3..8 bytes are found through a hash of the next 3 bytes (a bucket holds few symbols,
// longest first, each compared under its length mask); otherwise short_code, indexed by
// the next 2 bytes, gives the 2-byte symbol, the 1-byte one, or an escape.
// Training (the paper's loop): compress the sample with the current table, counting each
// code and each pair of adjacent codes (an escaped byte counts as the 1-byte pseudo-symbol
// of that byte); every symbol and every concatenation of a pair (cut to 8 bytes) becomes a
// candidate worth length x count bytes; the 255 worth most form the next table.
#include "storage/compression/fsst.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace tessera::fsst {

static_assert(std::endian::native == std::endian::little, "symbols are stored little-endian");

namespace {

constexpr int kGenerations = 10;            // gains flatten out after about 10 (TPC-H comments)
constexpr size_t kSampleBudget = 32 << 10;  // bytes of the sample training looks at
constexpr size_t kSamplePiece = 512;        // long sample strings are cut into pieces
// Training's code space: 0..255 the pseudo-symbol of an escaped byte, 256 + c symbol c.
constexpr uint32_t kCodes = 256 + kMaxSymbols;

inline uint64_t Load64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

inline uint64_t LengthMask(uint32_t len) { return len >= 8 ? ~0ull : (1ull << (8 * len)) - 1; }

inline uint32_t LongHash(uint64_t w) {
  return ((uint32_t)(w & 0xFFFFFF) * 0x9E3779B1u) >> 22;  // 10 bits: kLongBuckets
}
static_assert(kLongBuckets == 1u << 10);

// The longest symbol matching the next bytes (w, of which `avail` are real; any beyond
// are zero), as code | length << 8 (an escape when none does). Needs a finalized table.
inline uint32_t Match(const SymbolTable& t, uint64_t w, size_t avail) {
  if (avail >= 3) {
    const uint32_t h = LongHash(w);
    for (uint32_t i = t.long_start[h], e = t.long_start[h + 1]; i < e; i++) {
      if ((w & t.long_mask[i]) == t.long_symbol[i] && t.long_length[i] <= avail)
        return t.long_code[i] | (uint32_t)t.long_length[i] << 8;
    }
  }
  return avail >= 2 ? t.short_code[w & 0xFFFF] : t.byte_code[w & 0xFF];
}

// Calls f(entry, p) for each step of the greedy parse of s (entry as Match returns it; p
// points at the step's first byte, in s or in a copy of its tail).
template <typename F>
inline void Parse(const SymbolTable& t, std::string_view s, F&& f) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
  const uint8_t* end = p + s.size();
  while (end - p >= 8) {
    const uint32_t e = Match(t, Load64(p), 8);
    f(e, p);
    p += e >> 8;
  }
  // The last < 8 bytes from a zero-padded copy (Match checks lengths against `avail`).
  const size_t rest = (size_t)(end - p);
  if (rest == 0) return;
  uint8_t tail[16] = {};
  std::memcpy(tail, p, rest);
  for (size_t k = 0; k < rest;) {
    const uint32_t e = Match(t, Load64(tail + k), rest - k);
    f(e, tail + k);
    k += e >> 8;
  }
}

// Strings of the sample, at most about kSampleBudget bytes of them: pieces of at most
// kSamplePiece bytes, an evenly spread subset when there are more.
std::vector<std::string_view> Subsample(const std::vector<std::string_view>& sample) {
  size_t total = 0;
  for (std::string_view s : sample) total += s.size();
  std::vector<std::string_view> out;
  size_t acc = 0;
  for (std::string_view s : sample) {
    for (size_t off = 0; off < s.size(); off += kSamplePiece) {
      std::string_view piece = s.substr(off, kSamplePiece);
      if (total <= kSampleBudget) {
        out.push_back(piece);
        continue;
      }
      acc += kSampleBudget;  // takes kSampleBudget / total of the pieces, evenly spread
      if (acc >= total) {
        acc -= total;
        out.push_back(piece);
      }
    }
  }
  return out;
}

// What one generation's parse of the sample counted.
struct Counts {
  std::vector<uint32_t> single = std::vector<uint32_t>(kCodes);
  std::vector<uint32_t> pair = std::vector<uint32_t>((size_t)kCodes * kCodes);  // [c1*kCodes+c2]
  std::vector<uint32_t> pairs_seen;  // indices of the nonzero entries of `pair`

  void Clear() {
    std::fill(single.begin(), single.end(), 0);
    for (uint32_t k : pairs_seen) pair[k] = 0;
    pairs_seen.clear();
  }
};

struct Candidate {
  uint64_t symbol;
  uint32_t length;
  uint64_t gain;  // bytes it would have covered in the sample
};

// The next generation's table from the counts of the current one's parse.
SymbolTable MakeTable(const SymbolTable& t, const Counts& counts) {
  auto symbol_of = [&](uint32_t code, uint64_t& sym, uint32_t& len) {
    if (code < 256) {
      sym = code;
      len = 1;
    } else {
      sym = t.symbol[code - 256];
      len = t.length[code - 256];
    }
  };
  std::vector<Candidate> cands;
  cands.reserve(kCodes + counts.pairs_seen.size());
  for (uint32_t c = 0; c < kCodes; c++) {
    if (counts.single[c] == 0) continue;
    uint64_t sym;
    uint32_t len;
    symbol_of(c, sym, len);
    cands.push_back({sym, len, (uint64_t)len * counts.single[c]});
  }
  // Pairs seen once are noise in a sample that has enough repeated ones to fill a table
  // (and skipping them halves training time).
  size_t repeated = 0;
  for (uint32_t k : counts.pairs_seen) repeated += counts.pair[k] >= 2;
  const uint32_t min_pair = repeated >= kMaxSymbols ? 2 : 1;
  for (uint32_t k : counts.pairs_seen) {
    if (counts.pair[k] < min_pair) continue;
    uint64_t s1, s2;
    uint32_t l1, l2;
    symbol_of(k / kCodes, s1, l1);
    if (l1 == 8) continue;  // no room to extend
    symbol_of(k % kCodes, s2, l2);
    const uint32_t len = std::min(8u, l1 + l2);
    const uint64_t sym = (s1 | s2 << (8 * l1)) & LengthMask(len);
    cands.push_back({sym, len, (uint64_t)len * counts.pair[k]});
  }
  // The same bytes may come from several symbols or pairs: add their gains up.
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    return a.length != b.length ? a.length < b.length : a.symbol < b.symbol;
  });
  size_t n = 0;
  for (size_t i = 0; i < cands.size(); i++) {
    if (n > 0 && cands[n - 1].length == cands[i].length && cands[n - 1].symbol == cands[i].symbol)
      cands[n - 1].gain += cands[i].gain;
    else
      cands[n++] = cands[i];
  }
  cands.resize(n);
  // The most valuable first; ties by longer, then by bytes (deterministic).
  const size_t keep = std::min<size_t>(kMaxSymbols, cands.size());
  std::partial_sort(cands.begin(), cands.begin() + keep, cands.end(),
                    [](const Candidate& a, const Candidate& b) {
                      if (a.gain != b.gain) return a.gain > b.gain;
                      if (a.length != b.length) return a.length > b.length;
                      return a.symbol < b.symbol;
                    });
  SymbolTable next;
  next.nsymbols = (uint32_t)keep;
  for (size_t i = 0; i < keep; i++) {
    next.symbol[i] = cands[i].symbol;
    next.length[i] = (uint8_t)cands[i].length;
  }
  Finalize(next);
  return next;
}

}  // namespace

void Finalize(SymbolTable& t) {
  const uint32_t n = std::min(t.nsymbols, kMaxSymbols);
  for (uint32_t b = 0; b < 256; b++) t.byte_code[b] = kEscape | 1u << 8;
  // Lower codes win among duplicates (any choice would decode the same).
  for (uint32_t c = n; c-- > 0;)
    if (t.length[c] == 1) t.byte_code[t.symbol[c] & 0xFF] = (uint16_t)(c | 1u << 8);
  t.short_code.resize(1 << 16);
  for (uint32_t b1 = 0; b1 < 256; b1++)  // [b0 | b1 << 8]: a copy of byte_code per b1
    std::memcpy(&t.short_code[b1 << 8], t.byte_code, sizeof(t.byte_code));
  for (uint32_t c = n; c-- > 0;)
    if (t.length[c] == 2) t.short_code[t.symbol[c] & 0xFFFF] = (uint16_t)(c | 2u << 8);
  // Symbols of 3..8 bytes into hash buckets (a counting sort), each bucket longest first.
  uint32_t count[kLongBuckets] = {};
  for (uint32_t c = 0; c < n; c++)
    if (t.length[c] >= 3) count[LongHash(t.symbol[c])]++;
  t.long_start[0] = 0;
  for (uint32_t h = 0; h < kLongBuckets; h++)
    t.long_start[h + 1] = (uint16_t)(t.long_start[h] + count[h]);
  uint32_t fill[kLongBuckets];
  for (uint32_t h = 0; h < kLongBuckets; h++) fill[h] = t.long_start[h];
  for (uint32_t c = 0; c < n; c++) {
    if (t.length[c] < 3) continue;
    uint32_t i = fill[LongHash(t.symbol[c])]++;
    // Insertion into the bucket's sorted part: longer first, lower code first among equals.
    const uint32_t first = t.long_start[LongHash(t.symbol[c])];
    while (i > first && t.long_length[i - 1] < t.length[c]) {
      t.long_symbol[i] = t.long_symbol[i - 1];
      t.long_mask[i] = t.long_mask[i - 1];
      t.long_code[i] = t.long_code[i - 1];
      t.long_length[i] = t.long_length[i - 1];
      i--;
    }
    t.long_symbol[i] = t.symbol[c];
    t.long_mask[i] = LengthMask(t.length[c]);
    t.long_code[i] = (uint8_t)c;
    t.long_length[i] = t.length[c];
  }
}

SymbolTable Train(const std::vector<std::string_view>& sample) {
  const std::vector<std::string_view> work = Subsample(sample);
  SymbolTable t;
  Finalize(t);  // empty: every byte an escape, i.e. its pseudo-symbol
  Counts counts;
  for (int gen = 0; gen < kGenerations; gen++) {
    counts.Clear();
    for (std::string_view s : work) {
      uint32_t prev = kCodes;  // none yet: pairs never span strings
      Parse(t, s, [&](uint32_t e, const uint8_t* p) {
        const uint32_t code = e & 0xFF;
        const uint32_t c = code == kEscape ? p[0] : 256 + code;
        counts.single[c]++;
        // The first byte of a longer symbol counts too (the paper's trick): single bytes
        // stay in the table as the fallback should the longer symbol drop out.
        if ((e >> 8) > 1) counts.single[p[0]]++;
        if (prev != kCodes) {
          const uint32_t k = prev * kCodes + c;
          if (counts.pair[k]++ == 0) counts.pairs_seen.push_back(k);
        }
        prev = c;
      });
    }
    t = MakeTable(t, counts);
  }
  return t;
}

void Serialize(const SymbolTable& t, std::string& out) {
  const uint32_t n = std::min(t.nsymbols, kMaxSymbols);
  out.push_back((char)n);
  for (uint32_t c = 0; c < n; c++) {
    out.push_back((char)t.length[c]);
    for (uint32_t k = 0; k < t.length[c]; k++) out.push_back((char)(t.symbol[c] >> (8 * k)));
  }
}

size_t Deserialize(const uint8_t* p, size_t len, SymbolTable& t) {
  if (len < 1) return 0;
  SymbolTable r;
  r.nsymbols = p[0];  // a u8: never above kMaxSymbols
  size_t pos = 1;
  for (uint32_t c = 0; c < r.nsymbols; c++) {
    if (pos >= len) return 0;
    const uint32_t l = p[pos++];
    if (l == 0 || l > 8 || l > len - pos) return 0;
    uint64_t sym = 0;
    for (uint32_t k = 0; k < l; k++) sym |= (uint64_t)p[pos + k] << (8 * k);
    r.symbol[c] = sym;
    r.length[c] = (uint8_t)l;
    pos += l;
  }
  Finalize(r);
  t = std::move(r);
  return pos;
}

void CompressString(const SymbolTable& t, std::string_view s, std::string& out) {
  const size_t base = out.size();
  out.resize(base + 2 * s.size());
  uint8_t* const o0 = reinterpret_cast<uint8_t*>(out.data()) + base;
  uint8_t* o = o0;
  if (t.short_code.empty()) {  // never finalized: escapes only (still a valid encoding)
    for (char ch : s) {
      *o++ = kEscape;
      *o++ = (uint8_t)ch;
    }
  } else {
    // Each step consumes >= 1 byte and writes <= 2, so 2 bytes of room always remain: the
    // escaped byte is stored unconditionally and kept only after an escape.
    Parse(t, s, [&](uint32_t e, const uint8_t* p) {
      const uint8_t code = (uint8_t)e;
      o[0] = code;
      o[1] = p[0];
      o += 1 + (code == kEscape);
    });
  }
  out.resize(base + (size_t)(o - o0));
}

size_t DecompressString(const SymbolTable& t, const uint8_t* in, size_t len, char* out,
                        size_t cap) {
  const uint32_t n = std::min(t.nsymbols, kMaxSymbols);
  size_t i = 0, o = 0;  // o <= cap throughout
  // Fast path: a block of k codes, k <= (cap - o) / 8, cannot overrun even if each stores a
  // whole 8-byte symbol word, so within it only the code itself is checked.
  for (;;) {
    const size_t k = std::min(len - i, (cap - o) / 8);
    if (k == 0) break;
    for (const size_t end = i + k; i < end;) {
      const uint32_t c = in[i];
      if (c < n) {
        std::memcpy(out + o, &t.symbol[c], 8);
        o += t.length[c];
        i++;
      } else if (c == kEscape) {
        if (i + 1 >= len) return SIZE_MAX;
        out[o++] = (char)in[i + 1];
        i += 2;  // may pass `end` by one, never len
      } else {
        return SIZE_MAX;
      }
    }
  }
  // The rest (less than 8 bytes of room left), checking the room for every symbol.
  while (i < len) {
    const uint32_t c = in[i];
    if (c < n) {
      const uint32_t l = t.length[c];
      if (l > cap - o) return SIZE_MAX;
      std::memcpy(out + o, &t.symbol[c], l);
      o += l;
      i++;
    } else if (c == kEscape) {
      if (i + 1 >= len || o >= cap) return SIZE_MAX;
      out[o++] = (char)in[i + 1];
      i += 2;
    } else {
      return SIZE_MAX;
    }
  }
  return o;
}

}  // namespace tessera::fsst
