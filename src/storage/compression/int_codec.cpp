#include "storage/compression/int_codec.hpp"

#include "storage/compression/bitpack_core.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <bit>
#include <cstring>
#include <vector>

namespace tessera::codec {

const char* IntCodecName(IntCodec c) {
  switch (c) {
    case IntCodec::Plain: return "plain";
    case IntCodec::BitPack: return "bitpack";
    case IntCodec::Dictionary: return "dictionary";
    case IntCodec::Rle: return "rle";
  }
  return "?";
}

namespace {

constexpr size_t kHeaderBytes = 8;
constexpr size_t kBlockBytes = bitpack::kDescriptorBytes;
constexpr uint32_t kPadWords = bitpack::kPadWords;
// The encoder's limit on a dictionary (decoders accept any size up to the row count).
constexpr uint32_t kEncoderDictionaryLimit = 4096;

int64_t LoadWide(const uint8_t* p, int width, bool is_signed) {
  switch (width) {
    case 1: return is_signed ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return is_signed ? (int64_t)(int16_t)v : (int64_t)v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return is_signed ? (int64_t)(int32_t)v : (int64_t)v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

// The values widened to 64 bits; NULL rows take the previous valid row's value (the first
// valid value before it), so they neither widen a miniblock's range nor break a run.
std::vector<int64_t> Widen(const void* values, uint32_t n, int width, bool is_signed, const uint64_t* validity) {
  std::vector<int64_t> v(n);
  const uint8_t* p = static_cast<const uint8_t*>(values);
  if (width == 4 && is_signed) {
    const int32_t* q = static_cast<const int32_t*>(values);
    for (uint32_t i = 0; i < n; i++) v[i] = q[i];
  } else if (width == 8) {
    std::memcpy(v.data(), values, (size_t)n * 8);
  } else {
    for (uint32_t i = 0; i < n; i++) v[i] = LoadWide(p + (size_t)i * width, width, is_signed);
  }
  if (validity) {
    auto valid = [&](uint32_t i) { return (validity[i >> 6] >> (i & 63)) & 1; };
    uint32_t first = 0;
    while (first < n && !valid(first)) first++;
    int64_t fill = first < n ? v[first] : 0;
    for (uint32_t i = 0; i < n; i++) {
      if (valid(i)) fill = v[i];
      else v[i] = fill;
    }
  }
  return v;
}

void PutHeader(std::string& out, IntCodec c, int width, uint32_t n) {
  out.push_back((char)c);
  out.push_back((char)width);
  Put<uint16_t>(out, 0);
  Put<uint32_t>(out, n);
}

// Frame of reference per miniblock: reference and bit width.
struct Frames {
  std::vector<int64_t> ref;
  std::vector<uint8_t> bits;
  uint64_t sum_bits = 0;
};

Frames FramesOf(const int64_t* v, uint32_t n) {
  Frames f;
  const uint32_t nb = (n + kMiniblockValues - 1) / kMiniblockValues;
  f.ref.resize(nb);
  f.bits.resize(nb);
  for (uint32_t b = 0; b < nb; b++) {
    const uint32_t lo = b * kMiniblockValues;
    f.bits[b] = (uint8_t)MiniblockFrame(v + lo, std::min(kMiniblockValues, n - lo), &f.ref[b]);
    f.sum_bits += f.bits[b];
  }
  return f;
}

size_t BitPackBodySize(uint32_t nblocks, uint64_t sum_bits) {
  return 4 + kBlockBytes * nblocks + 4 + 4 * (4 * sum_bits + kPadWords);
}

void PutBitPackBody(const int64_t* v, uint32_t n, const Frames& f, std::string& out) {
  const uint32_t nb = (uint32_t)f.ref.size();
  Put<uint32_t>(out, nb);
  uint64_t woff = 0;
  for (uint32_t b = 0; b < nb; b++) {
    unsigned d[4];
    bitpack::WriteDescriptor(d, (uint64_t)f.ref[b], (uint32_t)woff, f.bits[b]);
    out.append(reinterpret_cast<const char*>(d), sizeof d);
    woff += 4ull * f.bits[b];
  }
  const uint64_t nwords = woff + kPadWords;
  Put<uint32_t>(out, (uint32_t)nwords);
  std::vector<uint32_t> words(nwords, 0);
  woff = 0;
  for (uint32_t b = 0; b < nb; b++) {
    const uint32_t lo = b * kMiniblockValues;
    PackMiniblock(v + lo, std::min(kMiniblockValues, n - lo), f.ref[b], f.bits[b], words.data() + woff);
    woff += 4ull * f.bits[b];
  }
  out.append(reinterpret_cast<const char*>(words.data()), nwords * 4);
}

// One miniblock with the bit width a compile-time constant (shifts and masks by constants:
// about 3x faster than a run-time width), through a table of all 65 widths.
// A whole miniblock goes in four runs of 32 values: 32 fields of B bits fill exactly B
// words, so within a run unrolled every field's word and shift are constants too (about 3x
// faster again than the plain loop, measured on the development machine).
template <class T, unsigned B>
void UnpackFixed(const uint32_t* w, uint64_t ref, T* out, uint32_t cnt) {
  if (cnt == kMiniblockValues) {
    for (uint32_t g = 0; g < kMiniblockValues / 32; g++) {
      const uint32_t* wg = w + g * B;
      T* og = out + g * 32;
#pragma GCC unroll 32
      for (uint32_t j = 0; j < 32; j++) og[j] = (T)(ref + (B ? bitpack::Field(wg, j, B) : 0));
    }
    return;
  }
  for (uint32_t j = 0; j < cnt; j++) out[j] = (T)(ref + (B ? bitpack::Field(w, j, B) : 0));
}

template <class T, size_t... B>
constexpr auto UnpackTable(std::index_sequence<B...>) {
  return std::array<void (*)(const uint32_t*, uint64_t, T*, uint32_t), sizeof...(B)>{&UnpackFixed<T, B>...};
}

template <class T>
void UnpackBlock(const uint32_t* w, uint32_t bits, uint64_t ref, T* out, uint32_t cnt) {
  static constexpr auto table = UnpackTable<T>(std::make_index_sequence<65>());
  table[bits](w, ref, out, cnt);
}

template <class T>
void DecodeBitPackBody(ByteReader& r, uint32_t n, T* out) {
  const uint32_t nb = r.Get<uint32_t>();
  if (nb != (n + kMiniblockValues - 1) / kMiniblockValues) throw DecodeError("bit-packed stream has the wrong block count");
  const uint8_t* blocks = r.Take((size_t)nb * kBlockBytes);
  const uint32_t nwords = r.Get<uint32_t>();
  // The words, 4-byte aligned for bitpack::Field (the stream itself may be unaligned). Taken
  // before anything is allocated: a corrupt word count must fail here, not allocate up to
  // 16 GB first.
  const uint8_t* words = r.Take((size_t)nwords * 4);
  std::vector<uint32_t> w(nwords);
  if (nwords) std::memcpy(w.data(), words, (size_t)nwords * 4);
  for (uint32_t b = 0; b < nb; b++) {
    unsigned raw[4];  // the stream may be unaligned
    std::memcpy(raw, blocks + (size_t)b * kBlockBytes, sizeof raw);
    const bitpack::Descriptor d = bitpack::ReadDescriptor(raw);
    if (d.bits > 64 || (uint64_t)d.word_offset + 4ull * d.bits + kPadWords > nwords)
      throw DecodeError("bit-packed stream has a bad miniblock");
    const uint32_t lo = b * kMiniblockValues;
    UnpackBlock<T>(w.data() + d.word_offset, d.bits, d.ref, out + lo, std::min(kMiniblockValues, n - lo));
  }
}

template <class T>
void DecodeBody(ByteReader& r, IntCodec codec, uint32_t n, T* out) {
  switch (codec) {
    case IntCodec::Plain: {
      const uint8_t* p = r.Take((size_t)n * sizeof(T));
      std::memcpy(out, p, (size_t)n * sizeof(T));
      return;
    }
    case IntCodec::BitPack: DecodeBitPackBody<T>(r, n, out); return;
    case IntCodec::Dictionary: {
      const uint32_t size = r.Get<uint32_t>();
      if (size > n || (size == 0 && n > 0)) throw DecodeError("dictionary stream has a bad size");
      const uint8_t* values = r.Take((size_t)size * sizeof(T));
      if (r.Get<uint8_t>() != (uint8_t)IntCodec::BitPack || r.Get<uint8_t>() != 4 || r.Get<uint16_t>() != 0 ||
          r.Get<uint32_t>() != n)
        throw DecodeError("dictionary stream has bad codes");
      std::vector<uint32_t> codes(n);
      DecodeBitPackBody<uint32_t>(r, n, codes.data());
      std::vector<T> dict(size);
      if (size) std::memcpy(dict.data(), values, (size_t)size * sizeof(T));
      for (uint32_t i = 0; i < n; i++) {
        if (codes[i] >= size) throw DecodeError("dictionary stream has a code out of range");
        out[i] = dict[codes[i]];
      }
      return;
    }
    case IntCodec::Rle: {
      const uint32_t nruns = r.Get<uint32_t>();
      if (nruns > n || (nruns == 0 && n > 0)) throw DecodeError("run-length stream has a bad run count");
      const uint8_t* values = r.Take((size_t)nruns * sizeof(T));
      const uint8_t* ends = r.Take((size_t)nruns * 4);
      uint32_t at = 0;
      for (uint32_t k = 0; k < nruns; k++) {
        uint32_t end;
        std::memcpy(&end, ends + (size_t)k * 4, 4);
        if (end <= at || end > n) throw DecodeError("run-length stream has a bad run end");
        T v;
        std::memcpy(&v, values + (size_t)k * sizeof(T), sizeof(T));
        std::fill(out + at, out + end, v);
        at = end;
      }
      if (at != n) throw DecodeError("run-length stream ends early");
      return;
    }
  }
  throw DecodeError("integer stream has an unknown codec");
}

// Distinct values of v when there are at most `limit`, sorted; empty when more.
std::vector<int64_t> SmallDistinct(const int64_t* v, uint32_t n, uint32_t limit) {
  const uint32_t cap = std::bit_ceil(limit * 2);
  std::vector<int64_t> slot(cap);
  std::vector<uint8_t> used(cap, 0);
  std::vector<int64_t> distinct;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t h = (uint64_t)v[i] * 0x9E3779B97F4A7C15ull;
    uint32_t s = (uint32_t)(h >> 40) & (cap - 1);
    while (used[s] && slot[s] != v[i]) s = (s + 1) & (cap - 1);
    if (used[s]) continue;
    if (distinct.size() == limit) return {};
    used[s] = 1;
    slot[s] = v[i];
    distinct.push_back(v[i]);
  }
  std::sort(distinct.begin(), distinct.end());
  return distinct;
}

void PutValues(std::string& out, const int64_t* v, size_t k, int width) {
  for (size_t i = 0; i < k; i++) out.append(reinterpret_cast<const char*>(&v[i]), width);  // little-endian truncation
}

}  // namespace

IntCodec EncodeInts(const void* values, uint32_t n, int width, bool is_signed, const uint64_t* validity,
                    std::string& out, unsigned allow) {
  const std::vector<int64_t> v = Widen(values, n, width, is_signed, validity);
  const uint32_t nb = (n + kMiniblockValues - 1) / kMiniblockValues;
  const Frames frames = FramesOf(v.data(), n);
  IntCodec best = IntCodec::Plain;
  size_t best_size = (size_t)n * width;
  auto consider = [&](IntCodec c, size_t size) {
    if ((allow >> (unsigned)c & 1) && size < best_size) {
      best = c;
      best_size = size;
    }
  };
  consider(IntCodec::BitPack, BitPackBodySize(nb, frames.sum_bits));
  uint32_t runs = n ? 1 : 0;
  for (uint32_t i = 1; i < n; i++) runs += v[i] != v[i - 1];
  consider(IntCodec::Rle, 4 + (size_t)runs * (width + 4));
  std::vector<int64_t> dict;
  if ((allow >> (unsigned)IntCodec::Dictionary & 1) && n > 0) {
    dict = SmallDistinct(v.data(), n, std::min(kEncoderDictionaryLimit, n));
    if (!dict.empty()) {
      const uint32_t code_bits = BitsFor(dict.size() - 1);
      consider(IntCodec::Dictionary,
               4 + dict.size() * width + kHeaderBytes + BitPackBodySize(nb, (uint64_t)nb * code_bits));
    }
  }
  PutHeader(out, best, width, n);
  switch (best) {
    case IntCodec::Plain: PutValues(out, v.data(), n, width); break;
    case IntCodec::BitPack: PutBitPackBody(v.data(), n, frames, out); break;
    case IntCodec::Rle: {
      std::vector<int64_t> run_values;
      std::vector<uint32_t> ends;
      for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || v[i] != v[i - 1]) {
          if (i) ends.push_back(i);
          run_values.push_back(v[i]);
        }
      }
      ends.push_back(n);
      Put<uint32_t>(out, (uint32_t)run_values.size());
      PutValues(out, run_values.data(), run_values.size(), width);
      for (uint32_t e : ends) Put<uint32_t>(out, e);
      break;
    }
    case IntCodec::Dictionary: {
      Put<uint32_t>(out, (uint32_t)dict.size());
      PutValues(out, dict.data(), dict.size(), width);
      std::vector<int64_t> codes(n);
      for (uint32_t i = 0; i < n; i++)
        codes[i] = std::lower_bound(dict.begin(), dict.end(), v[i]) - dict.begin();
      PutHeader(out, IntCodec::BitPack, 4, n);
      PutBitPackBody(codes.data(), n, FramesOf(codes.data(), n), out);
      break;
    }
  }
  return best;
}

size_t DecodeInts(const uint8_t* p, size_t len, uint32_t n, int width, void* out) {
  ByteReader r(p, len);
  const auto codec = (IntCodec)r.Get<uint8_t>();
  const int w = r.Get<uint8_t>();
  if (r.Get<uint16_t>() != 0 || w != width || r.Get<uint32_t>() != n)
    throw DecodeError("integer stream does not match its column (width or count)");
  switch (width) {
    case 1: DecodeBody(r, codec, n, static_cast<uint8_t*>(out)); break;
    case 2: DecodeBody(r, codec, n, static_cast<uint16_t*>(out)); break;
    case 4: DecodeBody(r, codec, n, static_cast<uint32_t*>(out)); break;
    case 8: DecodeBody(r, codec, n, static_cast<uint64_t*>(out)); break;
    default: throw DecodeError("integer stream has a bad width");
  }
  return r.consumed();
}

IntCodec PeekIntCodec(const uint8_t* p) { return (IntCodec)p[0]; }

uint32_t BitsFor(uint64_t range) { return range ? 64 - (uint32_t)std::countl_zero(range) : 0; }

uint32_t MiniblockFrame(const int64_t* v, uint32_t cnt, int64_t* ref) {
  int64_t mn = v[0], mx = v[0];
  for (uint32_t i = 1; i < cnt; i++) {
    mn = std::min(mn, v[i]);
    mx = std::max(mx, v[i]);
  }
  *ref = mn;
  return BitsFor((uint64_t)mx - (uint64_t)mn);
}

void PackMiniblock(const int64_t* v, uint32_t cnt, int64_t ref, uint32_t bits, uint32_t* words) {
  if (bits == 0) return;
  // Fields go out through a 128-bit accumulator, a word at a time.
  unsigned __int128 acc = 0;
  uint32_t have = 0, k = 0;
  for (uint32_t j = 0; j < kMiniblockValues; j++) {
    const uint64_t delta = j < cnt ? (uint64_t)v[j] - (uint64_t)ref : 0;
    acc |= (unsigned __int128)delta << have;
    have += bits;
    while (have >= 32) {
      words[k++] = (uint32_t)acc;
      acc >>= 32;
      have -= 32;
    }
  }
}

}  // namespace tessera::codec
