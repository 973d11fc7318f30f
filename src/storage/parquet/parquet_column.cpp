#include "storage/parquet/parquet_column.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string_view>

#include "common/error.hpp"
#include "storage/parquet/parquet_codecs.hpp"
#include "storage/transient_pool.hpp"
#include "storage/parquet/parquet_format.hpp"
#include "storage/parquet/parquet_metadata.hpp"
#include "storage/parquet/thrift_compact.hpp"

namespace tessera::parquet {

ParquetFile::~ParquetFile() {
  if (fd >= 0) ::close(fd);
}

void ParquetFile::Read(uint64_t offset, uint64_t n, uint8_t* out) const {
  if (offset > size || n > size - offset) throw DecodeError("the file is truncated");
  while (n > 0) {
    ssize_t got = ::pread(fd, out, std::min<uint64_t>(n, 1u << 30), (off_t)offset);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw DecodeError(got == 0 ? "the file is truncated" : "read error");
    out += got;
    offset += (uint64_t)got;
    n -= (uint64_t)got;
  }
}

// A data page of the chunk: where its bytes are and which rows it holds.
struct PageRef {
  PageHeader header;
  const uint8_t* body = nullptr;  // compressed_page_size bytes (in the chunk's bytes)
  uint64_t first_row = 0;
  uint32_t rows = 0;
  int32_t encoding = 0;
};

// The dictionary page, decoded: fixed-width values in the column's physical form, or
// strings (views into `page`); for VARCHAR also sorted and de-duplicated (`sorted_*`) with
// `remap` from Parquet index to sorted code.
struct DecodedDictionary {
  std::vector<uint8_t> page;
  std::vector<uint8_t> fixed;
  std::vector<std::string_view> strings;
  uint32_t size = 0;
  std::vector<uint32_t> sorted_offsets;
  std::string sorted_bytes;
  std::vector<uint32_t> remap;
};

namespace {

[[noreturn]] void Fail(const std::string& why) { throw DecodeError(why); }

bool IsDictEncoding(int32_t e) {
  return e == (int32_t)Encoding::PLAIN_DICTIONARY || e == (int32_t)Encoding::RLE_DICTIONARY;
}

uint64_t ReadUleb(const uint8_t*& p, const uint8_t* end) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) Fail("unexpected end of page");
    uint8_t b = *p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  Fail("malformed varint");
}

int64_t ReadZigZag(const uint8_t*& p, const uint8_t* end) {
  uint64_t v = ReadUleb(p, end);
  return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

// Reads `bw` bits (<= 64) at bit position `bit` of p[0, n) (LSB first).
inline uint64_t ReadBits(const uint8_t* p, size_t n, uint64_t bit, int bw) {
  if (bw == 0) return 0;
  uint64_t byte = bit >> 3;
  int shift = (int)(bit & 7);
  if ((bit + (uint64_t)bw + 7) / 8 > n) Fail("bit-packed run exceeds the page");
  uint64_t v;
  if (byte + 8 <= n) {
    std::memcpy(&v, p + byte, 8);
    v >>= shift;
    if (shift + bw > 64) v |= (uint64_t)p[byte + 8] << (64 - shift);
  } else {
    v = 0;
    for (uint64_t i = byte, k = 0; i < n && k < 9; i++, k++) {
      uint64_t b = p[i];
      int s = (int)(k * 8) - shift;
      if (s >= 64) break;
      v |= s >= 0 ? b << s : b >> -s;
    }
  }
  return bw == 64 ? v : v & (((uint64_t)1 << bw) - 1);
}

// The RLE/bit-packed hybrid encoding (levels, dictionary indices, booleans).
class RleDecoder {
 public:
  RleDecoder(const uint8_t* p, const uint8_t* end, int bit_width) : p_(p), end_(end), bw_(bit_width) {
    if (bit_width < 0 || bit_width > 32) Fail("invalid bit width " + std::to_string(bit_width));
  }
  void Get(uint32_t* out, size_t n) {
    size_t i = 0;
    while (i < n) {
      if (rle_left_ == 0 && packed_left_ == 0) NextRun();
      if (rle_left_) {
        size_t take = std::min<size_t>(rle_left_, n - i);
        std::fill(out + i, out + i + take, rle_value_);
        rle_left_ -= take;
        i += take;
      } else {
        size_t take = std::min<size_t>(packed_left_, n - i);
        for (size_t k = 0; k < take; k++, packed_bit_ += bw_)
          out[i + k] = (uint32_t)ReadBits(packed_, packed_bytes_, packed_bit_, bw_);
        packed_left_ -= take;
        i += take;
      }
    }
  }
  // Levels of bit width 1 (definition levels, max 1) as bytes 0/1 into out[0, n), a run
  // at a time (an RLE run is one memset); returns how many are 1.
  uint64_t GetFlags(uint8_t* out, size_t n) {
    if (bw_ != 1) Fail("definition levels of bit width " + std::to_string(bw_));
    size_t i = 0;
    uint64_t ones = 0;
    while (i < n) {
      if (rle_left_ == 0 && packed_left_ == 0) NextRun();
      if (rle_left_) {
        size_t take = std::min<size_t>(rle_left_, n - i);
        std::memset(out + i, (int)rle_value_, take);
        if (rle_value_) ones += take;
        rle_left_ -= take;
        i += take;
      } else {
        size_t take = std::min<size_t>(packed_left_, n - i);
        if (packed_bit_ + take > packed_bytes_ * 8) Fail("bit-packed run exceeds the page");
        uint64_t bit = packed_bit_;
        for (size_t k = 0; k < take; k++, bit++) {
          const uint8_t b = (packed_[bit >> 3] >> (bit & 7)) & 1;
          out[i + k] = b;
          ones += b;
        }
        packed_bit_ = bit;
        packed_left_ -= take;
        i += take;
      }
    }
    return ones;
  }

 private:
  void NextRun() {
    uint64_t h = ReadUleb(p_, end_);
    if (h & 1) {
      uint64_t groups = h >> 1;
      if (groups == 0 || groups > (1u << 24)) Fail("invalid bit-packed run");
      packed_left_ = groups * 8;
      uint64_t bytes = groups * (uint64_t)bw_;
      packed_ = p_;
      // A final run may be cut short of its padding: read what is there.
      packed_bytes_ = std::min<uint64_t>(bytes, (uint64_t)(end_ - p_));
      packed_bit_ = 0;
      p_ += packed_bytes_;
      if (bw_ == 0) packed_bytes_ = 0;
    } else {
      rle_left_ = h >> 1;
      if (rle_left_ == 0) Fail("invalid RLE run");
      int bytes = (bw_ + 7) / 8;
      if (end_ - p_ < bytes) Fail("unexpected end of page");
      uint32_t v = 0;
      for (int k = 0; k < bytes; k++) v |= (uint32_t)p_[k] << (8 * k);
      p_ += bytes;
      if (bw_ < 32 && (v >> bw_)) Fail("RLE value exceeds its bit width");
      rle_value_ = v;
    }
  }
  const uint8_t* p_;
  const uint8_t* end_;
  int bw_;
  uint64_t rle_left_ = 0, packed_left_ = 0;
  uint32_t rle_value_ = 0;
  const uint8_t* packed_ = nullptr;
  uint64_t packed_bytes_ = 0, packed_bit_ = 0;
};

// DELTA_BINARY_PACKED: `n` values (at most the header's count) into out; returns the
// position after the encoded block(s) it consumed.
const uint8_t* DecodeDeltaBinary(const uint8_t* p, const uint8_t* end, std::vector<int64_t>& out, uint64_t max_values) {
  uint64_t block = ReadUleb(p, end), minis = ReadUleb(p, end), total = ReadUleb(p, end);
  int64_t first = ReadZigZag(p, end);
  if (block == 0 || block % 128 || minis == 0 || block % minis || (block / minis) % 32 || minis > block)
    Fail("invalid DELTA_BINARY_PACKED header");
  if (total > max_values) Fail("DELTA_BINARY_PACKED count exceeds the page's values");
  out.resize(total);
  if (total == 0) return p;
  const uint64_t per_mini = block / minis;
  uint64_t v = (uint64_t)first;
  out[0] = first;
  uint64_t got = 1;
  std::vector<uint8_t> widths(minis);
  while (got < total) {
    const uint64_t min_delta = (uint64_t)ReadZigZag(p, end);
    if ((uint64_t)(end - p) < minis) Fail("unexpected end of page");
    std::memcpy(widths.data(), p, minis);
    p += minis;
    for (uint64_t m = 0; m < minis && got < total; m++) {
      const int bw = widths[m];
      if (bw > 64) Fail("invalid DELTA_BINARY_PACKED bit width");
      const uint64_t bytes = per_mini * (uint64_t)bw / 8;
      const uint64_t avail = std::min<uint64_t>(bytes, (uint64_t)(end - p));
      const uint64_t take = std::min(per_mini, total - got);
      for (uint64_t k = 0; k < take; k++) {
        v += min_delta + ReadBits(p, avail, k * (uint64_t)bw, bw);
        out[got++] = (int64_t)v;
      }
      p += avail;
    }
  }
  return p;
}

// Values of a BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY page (non-NULL ones only).
void DecodeBinaryPage(int32_t enc, const ColumnPlan& plan, const uint8_t* p, const uint8_t* end, uint32_t n,
                      std::vector<std::string_view>& out, std::string& scratch) {
  out.resize(n);
  const bool fixed = plan.physical == (int32_t)PhysicalType::FIXED_LEN_BYTE_ARRAY;
  switch ((Encoding)enc) {
    case Encoding::PLAIN:
      if (fixed) {
        const uint64_t w = (uint64_t)plan.type_length;
        if ((uint64_t)(end - p) < w * n) Fail("PLAIN page shorter than its values");
        for (uint32_t i = 0; i < n; i++) out[i] = {reinterpret_cast<const char*>(p + i * w), (size_t)w};
        return;
      }
      for (uint32_t i = 0; i < n; i++) {
        if (end - p < 4) Fail("PLAIN page shorter than its values");
        uint32_t len;
        std::memcpy(&len, p, 4);
        p += 4;
        if ((uint64_t)(end - p) < len) Fail("PLAIN page shorter than its values");
        out[i] = {reinterpret_cast<const char*>(p), len};
        p += len;
      }
      return;
    case Encoding::DELTA_LENGTH_BYTE_ARRAY: {
      std::vector<int64_t> lens;
      p = DecodeDeltaBinary(p, end, lens, n);
      if (lens.size() < n) Fail("DELTA_LENGTH_BYTE_ARRAY page holds too few values");
      for (uint32_t i = 0; i < n; i++) {
        if (lens[i] < 0 || (uint64_t)(end - p) < (uint64_t)lens[i]) Fail("DELTA_LENGTH_BYTE_ARRAY lengths exceed the page");
        out[i] = {reinterpret_cast<const char*>(p), (size_t)lens[i]};
        p += lens[i];
      }
      return;
    }
    case Encoding::DELTA_BYTE_ARRAY: {
      std::vector<int64_t> prefix, lens;
      p = DecodeDeltaBinary(p, end, prefix, n);
      p = DecodeDeltaBinary(p, end, lens, n);
      if (prefix.size() < n || lens.size() < n) Fail("DELTA_BYTE_ARRAY page holds too few values");
      uint64_t total = 0;
      for (uint32_t i = 0; i < n; i++) {
        if (prefix[i] < 0 || lens[i] < 0 || (uint64_t)lens[i] > (uint64_t)(end - p)) Fail("corrupt DELTA_BYTE_ARRAY page");
        total += (uint64_t)prefix[i] + (uint64_t)lens[i];
        if (total > (1ull << 32)) Fail("DELTA_BYTE_ARRAY page too large");
      }
      scratch.resize(total);
      char* o = scratch.data();
      std::string_view prev;
      for (uint32_t i = 0; i < n; i++) {
        if ((uint64_t)prefix[i] > prev.size()) Fail("corrupt DELTA_BYTE_ARRAY prefix");
        if ((uint64_t)(end - p) < (uint64_t)lens[i]) Fail("DELTA_BYTE_ARRAY suffixes exceed the page");
        std::memmove(o, prev.data(), (size_t)prefix[i]);
        std::memcpy(o + prefix[i], p, (size_t)lens[i]);
        p += lens[i];
        out[i] = {o, (size_t)(prefix[i] + lens[i])};
        prev = out[i];
        o += out[i].size();
      }
      return;
    }
    default:
      Fail("encoding " + std::to_string(enc) + " is not supported for " + (fixed ? "FIXED_LEN_BYTE_ARRAY" : "BYTE_ARRAY"));
  }
}

// A big-endian two's complement integer (DECIMAL in bytes) as a 128-bit value.
int128_t BigEndianInt(std::string_view b) {
  if (b.size() > 16) {
    // Leading sign bytes only.
    size_t extra = b.size() - 16;
    uint8_t sign = (uint8_t)b[extra] & 0x80 ? 0xff : 0;
    for (size_t i = 0; i < extra; i++)
      if ((uint8_t)b[i] != sign) Fail("DECIMAL value wider than 128 bits");
    b.remove_prefix(extra);
  }
  if (b.empty()) return 0;
  using u128 = unsigned __int128;
  u128 v = (uint8_t)b[0] & 0x80 ? ~(u128)0 : 0;
  for (char c : b) v = (v << 8) | (uint8_t)c;
  return (int128_t)v;
}

// Whether s[0, n) is valid UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF); ASCII eight bytes at a time.
bool ValidUtf8(const char* str, size_t n) {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(str);
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      if (!(w & 0x8080808080808080ull)) {
        i += 8;
        continue;
      }
    }
    const uint8_t c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
    else return false;
    if (i + len > n) return false;
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
      return false;
    i += len;
  }
  return true;
}

// The least and greatest of v[0, n) (n > 0), as a reduction the compiler vectorizes.
template <class T>
inline void MinMax(const T* v, uint32_t n, T& mn, T& mx) {
  T a = v[0], b = v[0];
  for (uint32_t i = 1; i < n; i++) {
    a = v[i] < a ? v[i] : a;
    b = v[i] > b ? v[i] : b;
  }
  mn = a, mx = b;
}
// With AVX2 where the CPU has it (64-bit compares need it; the build targets baseline x86-64).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TESSERA_MINMAX_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TESSERA_MINMAX_CLONES
#endif
TESSERA_MINMAX_CLONES void MinMax64(const int64_t* v, uint32_t n, int64_t& mn, int64_t& mx) { MinMax(v, n, mn, mx); }
TESSERA_MINMAX_CLONES void MinMax32(const int32_t* v, uint32_t n, int32_t& mn, int32_t& mx) { MinMax(v, n, mn, mx); }

// Whether every valid value of v[0, n) lies in [lo, hi].
template <class T>
bool WithinRange(const T* v, uint32_t n, const uint64_t* validity, int128_t lo, int128_t hi) {
  const T tlo = (T)lo, thi = (T)hi;
  if (!validity) {
    if (n == 0) return true;
    T mn, mx;
    if constexpr (std::is_same_v<T, int64_t>) MinMax64(v, n, mn, mx);
    else if constexpr (std::is_same_v<T, int32_t>) MinMax32(v, n, mn, mx);
    else MinMax(v, n, mn, mx);
    return mn >= tlo && mx <= thi;
  }
  for (uint32_t i = 0; i < n; i++)
    if (((validity[i >> 6] >> (i & 63)) & 1) && (v[i] < tlo || v[i] > thi)) return false;
  return true;
}

// Width in bytes of a fixed-width physical value.
int PhysicalWidth(int32_t physical) {
  switch ((PhysicalType)physical) {
    case PhysicalType::INT32:
    case PhysicalType::FLOAT: return 4;
    case PhysicalType::INT64:
    case PhysicalType::DOUBLE: return 8;
    default: return 0;
  }
}

// n little-endian values of physical type S at src (unaligned) converted to T.
template <class S, class T>
void CastValues(const uint8_t* src, uint32_t n, T* out) {
  for (uint32_t i = 0; i < n; i++) {
    S v;
    std::memcpy(&v, src + (size_t)i * sizeof(S), sizeof(S));
    out[i] = (T)v;
  }
}

// The plan's values, from a page's raw physical values (PLAIN or reassembled), into T.
template <class T>
void ConvertFixed(const ColumnPlan& plan, const uint8_t* src, uint32_t n, T* out) {
  switch ((PhysicalType)plan.physical) {
    case PhysicalType::INT32:
      if constexpr (sizeof(T) == 4 && std::is_integral_v<T>) {
        std::memcpy(out, src, (size_t)n * 4);
      } else {
        for (uint32_t i = 0; i < n; i++) {
          int32_t v;
          std::memcpy(&v, src + (size_t)i * 4, 4);
          out[i] = plan.is_unsigned ? (T)(uint32_t)v : (T)((int64_t)v * plan.time_mul);  // TIME_MILLIS
        }
      }
      return;
    case PhysicalType::INT64:
      if constexpr (sizeof(T) == 8 && std::is_integral_v<T>) {
        std::memcpy(out, src, (size_t)n * 8);
        if (plan.time_mul != 1 || plan.time_div != 1)  // TIMESTAMP/TIME in millis or nanos
          for (uint32_t i = 0; i < n; i++) {
            const int64_t v = (int64_t)out[i], d = plan.time_div;
            out[i] = (T)((v / d - (v % d < 0)) * plan.time_mul);
          }
      } else {
        CastValues<int64_t>(src, n, out);
      }
      return;
    case PhysicalType::FLOAT: CastValues<float>(src, n, out); return;
    case PhysicalType::DOUBLE:
      if constexpr (std::is_same_v<T, double>) std::memcpy(out, src, (size_t)n * 8);
      else CastValues<double>(src, n, out);
      return;
    default: Fail("unexpected physical type");
  }
}

// Binary values (DECIMAL in bytes) into T.
template <class T>
void ConvertBinary(const std::vector<std::string_view>& v, uint32_t n, T* out) {
  if constexpr (std::is_integral_v<T> || std::is_same_v<T, int128_t>) {
    for (uint32_t i = 0; i < n; i++) {
      int128_t x = BigEndianInt(v[i]);
      if constexpr (sizeof(T) < 16) {
        if (x > (int128_t)INT64_MAX || x < (int128_t)INT64_MIN) Fail("DECIMAL value out of range");
      }
      out[i] = (T)x;
    }
  } else {
    Fail("unexpected binary values");
  }
}

// A page's defined values of a fixed-width column into out[0, n).
template <class T>
void DecodeFixedValues(const ColumnPlan& plan, int32_t enc, const DecodedDictionary* dict, const uint8_t* p,
                       const uint8_t* end, uint32_t n, T* out, std::vector<uint8_t>& tmp) {
  const int32_t phys = plan.physical;
  const bool binary = phys == (int32_t)PhysicalType::BYTE_ARRAY || phys == (int32_t)PhysicalType::FIXED_LEN_BYTE_ARRAY;
  if (IsDictEncoding(enc)) {
    if (!dict) Fail("dictionary-encoded page without a dictionary page");
    if (end <= p) {
      if (n) Fail("empty dictionary-encoded page");
      return;
    }
    int bw = *p++;
    std::vector<uint32_t> idx(n);
    RleDecoder(p, end, bw).Get(idx.data(), n);
    const T* d = reinterpret_cast<const T*>(dict->fixed.data());
    for (uint32_t i = 0; i < n; i++) {
      if (idx[i] >= dict->size) Fail("dictionary index out of range");
      out[i] = d[idx[i]];
    }
    return;
  }
  if (binary) {
    std::vector<std::string_view> v;
    std::string scratch;
    DecodeBinaryPage(enc, plan, p, end, n, v, scratch);
    ConvertBinary(v, n, out);
    return;
  }
  const int w = PhysicalWidth(phys);
  switch ((Encoding)enc) {
    case Encoding::PLAIN:
      if ((uint64_t)(end - p) < (uint64_t)n * w) Fail("PLAIN page shorter than its values");
      ConvertFixed(plan, p, n, out);
      return;
    case Encoding::BYTE_STREAM_SPLIT: {
      const uint64_t total = (uint64_t)(end - p);
      if (total % w || total / w < n) Fail("BYTE_STREAM_SPLIT page of the wrong size");
      const uint64_t count = total / w;
      tmp.resize((size_t)n * w);
      for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < w; k++) tmp[(size_t)i * w + k] = p[k * count + i];
      ConvertFixed(plan, tmp.data(), n, out);
      return;
    }
    case Encoding::DELTA_BINARY_PACKED: {
      if (phys != (int32_t)PhysicalType::INT32 && phys != (int32_t)PhysicalType::INT64)
        Fail("DELTA_BINARY_PACKED on a non-integer column");
      std::vector<int64_t> v;
      DecodeDeltaBinary(p, end, v, n);
      if (v.size() < n) Fail("DELTA_BINARY_PACKED page holds too few values");
      if (phys == (int32_t)PhysicalType::INT32) {
        tmp.resize((size_t)n * 4);
        for (uint32_t i = 0; i < n; i++) {
          int32_t x = (int32_t)(uint32_t)(uint64_t)v[i];
          std::memcpy(&tmp[(size_t)i * 4], &x, 4);
        }
        ConvertFixed(plan, tmp.data(), n, out);
      } else {
        ConvertFixed(plan, reinterpret_cast<const uint8_t*>(v.data()), n, out);
      }
      return;
    }
    default: Fail("encoding " + std::to_string(enc) + " is not supported for this column");
  }
}

void DecodeBoolValues(int32_t enc, const uint8_t* p, const uint8_t* end, uint32_t n, uint8_t* out) {
  if (enc == (int32_t)Encoding::PLAIN) {
    if ((uint64_t)(end - p) * 8 < n) Fail("PLAIN page shorter than its values");
    for (uint32_t i = 0; i < n; i++) out[i] = (p[i >> 3] >> (i & 7)) & 1;
    return;
  }
  if (enc == (int32_t)Encoding::RLE) {
    if (end - p < 4) Fail("RLE page too short");
    uint32_t len;
    std::memcpy(&len, p, 4);
    p += 4;
    if (len > (uint64_t)(end - p)) Fail("RLE length exceeds the page");
    std::vector<uint32_t> v(n);
    RleDecoder(p, p + len, 1).Get(v.data(), n);
    for (uint32_t i = 0; i < n; i++) out[i] = (uint8_t)v[i];
    return;
  }
  Fail("encoding " + std::to_string(enc) + " is not supported for BOOLEAN");
}

// One page decompressed: definition levels (one byte per row, 1 = defined) and the values.
// Its buffers are the decoding thread's, reused from page to page (no allocation, no
// zeroing, no page faults once they have grown).
struct DecodedPage {
  std::vector<uint8_t> buffer;  // decompressed bytes (v1: everything; v2: the values)
  std::vector<uint8_t> defined; // per row, 1 = defined (valid when `nulls`)
  bool nulls = false;           // false: every row defined
  uint32_t num_defined = 0;
  const uint8_t* values = nullptr;
  const uint8_t* values_end = nullptr;
};

// Larger pages are taken for corruption (writers cut pages at about 1 MiB).
constexpr int32_t kMaxPageSize = 1 << 30;

// The bytes a page decompresses to (v2: the values only; the levels stay outside), or -1
// when its header is invalid (OpenPage says why).
int64_t DecompressedSize(const PageHeader& h) {
  if (h.uncompressed_page_size < 0 || h.compressed_page_size < 0 || h.uncompressed_page_size > kMaxPageSize) return -1;
  if (!h.data_v2) return h.uncompressed_page_size;
  const int32_t lvl = h.data_v2->definition_levels_byte_length;
  if (lvl < 0 || lvl > h.uncompressed_page_size || lvl > h.compressed_page_size) return -1;
  return (int64_t)h.uncompressed_page_size - lvl;
}

// Decompresses a page into dp.buffer, or into `into` (DecompressedSize bytes) when given,
// and decodes its definition levels.
void OpenPage(const PageRef& pg, const ColumnPlan& plan, int32_t codec, DecodedPage& dp, uint8_t* into = nullptr) {
  const PageHeader& h = pg.header;
  if (h.uncompressed_page_size < 0 || h.compressed_page_size < 0) Fail("negative page size");
  if (h.uncompressed_page_size > kMaxPageSize) Fail("page size of " + std::to_string(h.uncompressed_page_size) + " bytes");
  const uint8_t* body = pg.body;
  const size_t csize = (size_t)h.compressed_page_size;
  const uint32_t rows = pg.rows;
  const uint8_t* levels = nullptr;
  size_t levels_len = 0;
  if (h.data_v2) {
    const DataPageHeaderV2& v2 = *h.data_v2;
    if (v2.repetition_levels_byte_length != 0) Fail("repetition levels in a flat column");
    if (v2.definition_levels_byte_length < 0 || (size_t)v2.definition_levels_byte_length > csize ||
        (size_t)v2.definition_levels_byte_length > (size_t)h.uncompressed_page_size)
      Fail("invalid definition levels length");
    const size_t lvl = (size_t)v2.definition_levels_byte_length;
    levels = body;
    levels_len = lvl;
    const size_t vsize = (size_t)h.uncompressed_page_size - lvl;
    if (!into) {
      dp.buffer.resize(vsize + 8);
      into = dp.buffer.data();
    }
    if (v2.is_compressed && codec != (int32_t)Codec::UNCOMPRESSED)
      DecompressPage(codec, body + lvl, csize - lvl, into, vsize);
    else if (csize - lvl != vsize)
      Fail("page size mismatch");
    else
      std::memcpy(into, body + lvl, vsize);
    dp.values = into;
    dp.values_end = dp.values + vsize;
  } else {
    const size_t usize = (size_t)h.uncompressed_page_size;
    if (!into) {
      dp.buffer.resize(usize + 8);
      into = dp.buffer.data();
    }
    DecompressPage(codec, body, csize, into, usize);
    const uint8_t* p = into;
    const uint8_t* end = p + usize;
    if (plan.optional) {
      if (h.data->definition_level_encoding != (int32_t)Encoding::RLE)
        Fail("definition levels encoding " + std::to_string(h.data->definition_level_encoding) + " is not supported");
      if (end - p < 4) Fail("page too short for its definition levels");
      uint32_t len;
      std::memcpy(&len, p, 4);
      p += 4;
      if (len > (size_t)(end - p)) Fail("definition levels exceed the page");
      levels = p;
      levels_len = len;
      p += len;
    }
    dp.values = p;
    dp.values_end = end;
  }
  dp.nulls = false;
  dp.num_defined = rows;
  if (plan.optional) {
    if (dp.defined.size() < rows) dp.defined.resize(rows);
    const uint64_t defined = RleDecoder(levels, levels + levels_len, 1).GetFlags(dp.defined.data(), rows);
    dp.nulls = defined != rows;
    dp.num_defined = (uint32_t)defined;
  }
}

// Spreads n_defined dense values at the front of v[0, rows) to the defined rows (backwards,
// in place); undefined rows become T{}.
template <class T>
void Spread(T* v, const uint8_t* defined, uint32_t rows, uint32_t n_defined) {
  int64_t src = (int64_t)n_defined - 1;
  for (int64_t i = (int64_t)rows - 1; i >= 0; i--) {
    if (defined[i]) v[i] = v[src--];
    else v[i] = T{};
  }
}

// Spreads n_defined dense values at the back of v[0, rows) to the defined rows (forwards,
// in place: a value is read before its slot can be written); undefined rows become T{}.
template <class T>
void SpreadFromBack(T* v, const uint8_t* defined, uint32_t rows, uint32_t n_defined) {
  uint32_t src = rows - n_defined;
  for (uint32_t i = 0; i < rows; i++) {
    if (defined[i]) v[i] = v[src++];
    else v[i] = T{};
  }
}

void SetValidity(std::vector<uint64_t>& validity, uint64_t at, const uint8_t* defined, uint32_t rows) {
  for (uint32_t i = 0; i < rows; i++)
    if (!defined[i]) validity[(at + i) >> 6] &= ~((uint64_t)1 << ((at + i) & 63));
}

// Bytes before a slice's fixed-width values (OwnedSlice::fixed): a page decompressed in
// place puts its definition levels there (the first page of a slice).
constexpr size_t kHeadroom = 4096;

// A slice's fixed-width buffer. Large ones are mapped with their pages populated up front
// (MAP_POPULATE): the decoder writes every byte of a fresh buffer once, and taking its
// pages in one call costs far less than a page fault per 4 KiB on first touch. A transient
// one (not kept with the table) is TakeTransientBuffer's, from and back to the
// TransientPool; a fresh transient one is mapped without populating: only the first row group of each scan
// thread makes one, and the scan threads making theirs at once each populating 1 MiB
// inside mmap took longer than their page faults spread over the decoding (TPC-H SF10
// lineitem's first read, 16 threads on the lent H200 host: 55.6 ms against 60.0 ms).
struct SliceBuffer {
  static constexpr size_t kMapAtLeast = TransientPool::kMapAtLeast;
  uint8_t* p = nullptr;
  size_t n = 0;
  bool mapped = false;
  std::shared_ptr<uint8_t> transient;  // TakeTransientBuffer's (pooled) buffer
  SliceBuffer() = default;
  SliceBuffer(const SliceBuffer&) = delete;
  SliceBuffer& operator=(const SliceBuffer&) = delete;
  ~SliceBuffer() { Release(); }
  void Allocate(size_t bytes, bool transient_buffer) {
    Release();
    if (transient_buffer) {
      transient = TakeTransientBuffer(bytes);
      p = transient.get();
      return;
    }
    n = bytes;
    if (bytes >= kMapAtLeast) {
      void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      if (m != MAP_FAILED) {
        p = static_cast<uint8_t*>(m);
        mapped = true;
        return;
      }
    }
    p = new uint8_t[bytes];
  }
  void Release() {
    if (transient) {
      transient.reset();
    } else if (mapped) {
      munmap(p, n);
    } else {
      delete[] p;
    }
    p = nullptr;
    mapped = false;
  }
  uint8_t* get() const { return p; }
};

struct OwnedSlice {
  SliceBuffer fixed;  // kHeadroom bytes, then every row written by the decoder (not zeroed first)
  std::vector<uint64_t> validity;
  std::vector<uint32_t> offsets;
  std::string bytes;
  std::shared_ptr<const DecodedDictionary> dict;  // Dictionary strings: the sorted entries
};

}  // namespace

// A multi-slice chunk's bytes, pages and dictionary, shared by the slices loading from it.
struct PreparedChunk {
  std::unique_ptr<uint8_t[]> raw;
  std::vector<PageRef> pages;
  std::shared_ptr<DecodedDictionary> dict;
};

ChunkSource::~ChunkSource() = default;

void ChunkSource::Prepare(uint8_t* raw, std::vector<PageRef>& pages,
                          std::shared_ptr<DecodedDictionary>& dict_out) const {
  const ColumnPlan& plan = *plan_;
  file_->Read(loc_.offset, loc_.size, raw);
  pages.clear();
  const uint8_t* p = raw;
  const uint8_t* end = p + loc_.size;
  uint64_t values = 0, row = 0;
  std::shared_ptr<DecodedDictionary> dict;
  while (values < (uint64_t)loc_.num_values) {
    if (p >= end) Fail("the column chunk ends before its " + std::to_string(loc_.num_values) + " values");
    size_t hlen = 0;
    PageHeader h;
    try {
      h = ParsePageHeader(p, (size_t)(end - p), &hlen);
    } catch (const ThriftError& e) {
      Fail(std::string("corrupt page header: ") + e.what());
    }
    p += hlen;
    if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 || (size_t)h.compressed_page_size > (size_t)(end - p))
      Fail("page size exceeds the column chunk");
    const uint8_t* body = p;
    p += h.compressed_page_size;
    if (h.type == (int32_t)PageType::DICTIONARY_PAGE) {
      if (!h.dict) Fail("dictionary page without its header");
      if (dict) Fail("two dictionary pages in one column chunk");
      if (h.dict->num_values < 0) Fail("negative dictionary size");
      if (h.uncompressed_page_size > kMaxPageSize) Fail("dictionary page too large");
      {
        // Every PLAIN value takes at least this many bytes (a 4-byte length for strings).
        const uint64_t min_width = plan.physical == (int32_t)PhysicalType::FIXED_LEN_BYTE_ARRAY
                                       ? (uint64_t)std::max(plan.type_length, 1)
                                       : plan.physical == (int32_t)PhysicalType::BOOLEAN ? 1 : 4;
        if ((uint64_t)h.dict->num_values * min_width > (uint64_t)h.uncompressed_page_size)
          Fail("dictionary page holds fewer bytes than its " + std::to_string(h.dict->num_values) + " values need");
      }
      dict = std::make_shared<DecodedDictionary>();
      dict->page.resize((size_t)h.uncompressed_page_size + 8);
      DecompressPage(loc_.codec, body, (size_t)h.compressed_page_size, dict->page.data(), (size_t)h.uncompressed_page_size);
      const uint8_t* dp = dict->page.data();
      const uint8_t* de = dp + h.uncompressed_page_size;
      const uint32_t n = (uint32_t)h.dict->num_values;
      dict->size = n;
      if (plan.type.id == TypeId::Varchar) {
        std::string scratch;
        DecodeBinaryPage((int32_t)Encoding::PLAIN, plan, dp, de, n, dict->strings, scratch);
        // Sorted, de-duplicated entries and the remap from Parquet index to sorted code.
        std::vector<uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return dict->strings[a] < dict->strings[b]; });
        dict->remap.resize(n);
        dict->sorted_offsets.push_back(0);
        for (uint32_t k = 0; k < n; k++) {
          std::string_view s = dict->strings[order[k]];
          if (k == 0 || s != dict->strings[order[k - 1]]) {
            if (dict->sorted_bytes.size() + s.size() > UINT32_MAX) Fail("dictionary too large");
            dict->sorted_bytes.append(s);
            dict->sorted_offsets.push_back((uint32_t)dict->sorted_bytes.size());
          }
          dict->remap[order[k]] = (uint32_t)dict->sorted_offsets.size() - 2;
        }
        if (!ValidUtf8(dict->sorted_bytes.data(), dict->sorted_bytes.size()))
          Fail("a string in the dictionary is not valid UTF-8");
      } else {
        const size_t w = (size_t)plan.type.width();
        dict->fixed.resize((size_t)n * w + 8);
        std::vector<uint8_t> tmp;
        switch (plan.type.physical()) {
          case PhysType::I32: DecodeFixedValues(plan, 0, nullptr, dp, de, n, reinterpret_cast<int32_t*>(dict->fixed.data()), tmp); break;
          case PhysType::I64: DecodeFixedValues(plan, 0, nullptr, dp, de, n, reinterpret_cast<int64_t*>(dict->fixed.data()), tmp); break;
          case PhysType::I128: DecodeFixedValues(plan, 0, nullptr, dp, de, n, reinterpret_cast<int128_t*>(dict->fixed.data()), tmp); break;
          case PhysType::F64: DecodeFixedValues(plan, 0, nullptr, dp, de, n, reinterpret_cast<double*>(dict->fixed.data()), tmp); break;
          default: Fail("dictionary page for a BOOLEAN column");
        }
      }
      continue;
    }
    if (h.type == (int32_t)PageType::DATA_PAGE || h.type == (int32_t)PageType::DATA_PAGE_V2) {
      PageRef pr;
      if (h.type == (int32_t)PageType::DATA_PAGE) {
        if (!h.data) Fail("data page without its header");
        if (h.data->num_values < 0) Fail("negative value count");
        pr.rows = (uint32_t)h.data->num_values;
        pr.encoding = h.data->encoding;
      } else {
        if (!h.data_v2) Fail("data page v2 without its header");
        if (h.data_v2->num_values < 0 || h.data_v2->num_rows != h.data_v2->num_values) Fail("invalid data page v2 counts");
        pr.rows = (uint32_t)h.data_v2->num_rows;
        pr.encoding = h.data_v2->encoding;
      }
      pr.header = h;
      pr.body = body;
      pr.first_row = row;
      row += pr.rows;
      values += pr.rows;
      pages.push_back(std::move(pr));
      continue;
    }
    // INDEX_PAGE and unknown page types are skipped.
  }
  if (row != loc_.rows) Fail("the column chunk holds " + std::to_string(row) + " rows, the row group " + std::to_string(loc_.rows));
  dict_out = std::move(dict);
}

void ChunkSource::Load(ColumnChunk& out, uint64_t begin, bool keep) {
  // One slice (DuckDB's row groups, up to 122880 rows): the chunk's bytes and page list in
  // the thread's reused buffers. Several: read once into the shared ones.
  thread_local std::vector<uint8_t> raw_local;
  thread_local std::vector<PageRef> pages_local;
  std::shared_ptr<DecodedDictionary> dict_local;
  const std::vector<PageRef>* pages_ref;
  const DecodedDictionary* dict_ptr;
  std::shared_ptr<DecodedDictionary> dict_keep;
  std::shared_ptr<PreparedChunk> shared;  // held while this slice decodes
  if (slices_ == 1) {
    raw_local.resize(loc_.size + 1);
    Prepare(raw_local.data(), pages_local, dict_local);
    pages_ref = &pages_local;
    dict_keep = dict_local;
  } else {
    {
      std::lock_guard<std::mutex> g(mu_);
      if (!prepared_) {
        auto pc = std::make_shared<PreparedChunk>();
        pc->raw.reset(new uint8_t[loc_.size + 1]);
        Prepare(pc->raw.get(), pc->pages, pc->dict);
        prepared_ = std::move(pc);
      }
      shared = prepared_;
      // The last of slices_ loads: the source lets the bytes go (this load still holds them).
      if (++loads_ == slices_) {
        prepared_.reset();
        loads_ = 0;
      }
    }
    pages_ref = &shared->pages;
    dict_keep = shared->dict;
  }
  dict_ptr = dict_keep.get();
  const ColumnPlan& plan = *plan_;
  const uint32_t count = out.count;
  const uint64_t end = begin + count;
  const bool str = plan.type.id == TypeId::Varchar;
  auto owned = std::make_shared<OwnedSlice>();
  // Pages overlapping [begin, end).
  const auto& pages = *pages_ref;
  size_t first = std::upper_bound(pages.begin(), pages.end(), begin,
                                  [](uint64_t r, const PageRef& pg) { return r < pg.first_row; }) -
                 pages.begin();
  first = first ? first - 1 : 0;
  std::vector<const PageRef*> mine;
  for (size_t i = first; i < pages.size() && pages[i].first_row < end; i++)
    if (pages[i].first_row + pages[i].rows > begin && pages[i].rows) mine.push_back(&pages[i]);
  bool dict_strings = str && dict_ptr && dict_ptr->size > 0;
  for (const PageRef* pg : mine) dict_strings = dict_strings && IsDictEncoding(pg->encoding);

  bool any_null = false;
  owned->validity.assign(((size_t)count + 63) / 64, ~(uint64_t)0);
  const size_t w = str ? (dict_strings ? 4 : 0) : (size_t)plan.type.width();
  if (w) owned->fixed.Allocate(kHeadroom + (size_t)count * w + 16, !keep);
  uint8_t* const fixed = w ? owned->fixed.get() + kHeadroom : nullptr;
  if (str && !dict_strings) owned->offsets.assign(1, 0);

  thread_local DecodedPage dp;
  thread_local std::vector<uint8_t> tmp, rows_buf;
  thread_local std::vector<uint32_t> idx;
  thread_local std::vector<std::string_view> sv;
  thread_local std::string scratch;
  // Fixed-width pages go last to first: a PLAIN page of the column's own width that lies
  // inside the slice is decompressed straight into its rows, its end at theirs (no page
  // buffer, no copy), its definition levels landing in the rows before it, which an earlier
  // page (decoded later) or the headroom holds. Strings append, so they go in order.
  for (size_t k = 0; k < mine.size(); k++) {
    const PageRef* pg = mine[str ? k : mine.size() - 1 - k];
    const uint32_t rows = pg->rows;
    if (!str && pg->encoding == (int32_t)Encoding::PLAIN && pg->first_row >= begin && pg->first_row + rows <= end &&
        ((plan.physical == (int32_t)PhysicalType::INT32 && plan.type.physical() == PhysType::I32) ||
         (plan.physical == (int32_t)PhysicalType::INT64 && plan.type.physical() == PhysType::I64 &&
          plan.time_mul == 1 && plan.time_div == 1) ||
         (plan.physical == (int32_t)PhysicalType::DOUBLE && plan.type.physical() == PhysType::F64))) {
      const int64_t dsize = DecompressedSize(pg->header);
      uint8_t* const region = fixed + (pg->first_row - begin) * w;
      uint8_t* const region_end = region + (size_t)rows * w;
      if (dsize >= 0 && (uint64_t)dsize <= (uint64_t)(region_end - owned->fixed.get())) {
        OpenPage(*pg, plan, loc_.codec, dp, region_end - dsize);
        const uint32_t nd = dp.num_defined;
        if (nd > rows) Fail("more values than rows");
        if ((uint64_t)(dp.values_end - dp.values) < (uint64_t)nd * w) Fail("PLAIN page shorter than its values");
        // The dense values at the back of the rows, then spread (a no-op move for a page
        // without trailing bytes).
        uint8_t* const vstart = region_end - (size_t)nd * w;
        if (dp.values != vstart) std::memmove(vstart, dp.values, (size_t)nd * w);
        if (dp.nulls) {
          any_null = true;
          SetValidity(owned->validity, pg->first_row - begin, dp.defined.data(), rows);
          switch (w) {
            case 4: SpreadFromBack(reinterpret_cast<int32_t*>(region), dp.defined.data(), rows, nd); break;
            default: SpreadFromBack(reinterpret_cast<int64_t*>(region), dp.defined.data(), rows, nd); break;
          }
        }
        continue;
      }
    }
    OpenPage(*pg, plan, loc_.codec, dp);
    if (dp.num_defined > rows) Fail("more values than rows");
    // The page's rows [skip, skip + take) land at out row `at`.
    const uint64_t lo = std::max(begin, pg->first_row), hi = std::min(end, pg->first_row + rows);
    const uint32_t skip = (uint32_t)(lo - pg->first_row), take = (uint32_t)(hi - lo);
    const uint64_t at = lo - begin;
    const uint8_t* defined = dp.nulls ? dp.defined.data() : nullptr;
    if (defined) {
      any_null = true;
      SetValidity(owned->validity, at, defined + skip, take);
    }
    if (str) {
      if (dict_strings) {
        idx.resize(rows);
        const uint8_t* p = dp.values;
        if (dp.num_defined) {
          if (p >= dp.values_end) Fail("empty dictionary-encoded page");
          int bw = *p++;
          RleDecoder(p, dp.values_end, bw).Get(idx.data(), dp.num_defined);
        }
        for (uint32_t i = 0; i < dp.num_defined; i++) {
          if (idx[i] >= dict_ptr->size) Fail("dictionary index out of range");
          idx[i] = dict_ptr->remap[idx[i]];
        }
        if (defined) Spread(idx.data(), defined, rows, dp.num_defined);
        std::memcpy(fixed + at * 4, idx.data() + skip, (size_t)take * 4);
        continue;
      }
      if (IsDictEncoding(pg->encoding)) {
        if (!dict_ptr) Fail("dictionary-encoded page without a dictionary page");
        idx.resize(rows);
        const uint8_t* p = dp.values;
        if (dp.num_defined) {
          if (p >= dp.values_end) Fail("empty dictionary-encoded page");
          int bw = *p++;
          RleDecoder(p, dp.values_end, bw).Get(idx.data(), dp.num_defined);
        }
        sv.resize(rows);
        for (uint32_t i = 0; i < dp.num_defined; i++) {
          if (idx[i] >= dict_ptr->size) Fail("dictionary index out of range");
          sv[i] = dict_ptr->strings[idx[i]];
        }
      } else {
        DecodeBinaryPage(pg->encoding, plan, dp.values, dp.values_end, dp.num_defined, sv, scratch);
        sv.resize(rows);
      }
      if (defined) Spread(sv.data(), defined, rows, dp.num_defined);
      for (uint32_t i = skip; i < skip + take; i++) {
        if (owned->bytes.size() + sv[i].size() > UINT32_MAX) Fail("more than 4 GiB of strings in one row group");
        owned->bytes.append(sv[i]);
        owned->offsets.push_back((uint32_t)owned->bytes.size());
      }
      continue;
    }
    // Fixed width: decode the page's values straight into place when it lies inside the
    // slice and has no NULLs, else through a buffer of the page's rows.
    const bool direct = skip == 0 && take == rows && !defined;
    uint8_t* dst;
    if (direct) {
      dst = fixed + at * w;
    } else {
      rows_buf.resize((size_t)rows * w + 16);
      dst = rows_buf.data();
    }
    const uint32_t nd = dp.num_defined;
    switch (plan.type.physical()) {
      case PhysType::Bool:
        DecodeBoolValues(pg->encoding, dp.values, dp.values_end, nd, dst);
        if (defined) Spread(dst, defined, rows, nd);
        break;
      case PhysType::I32:
        DecodeFixedValues(plan, pg->encoding, dict_ptr, dp.values, dp.values_end, nd, reinterpret_cast<int32_t*>(dst), tmp);
        if (defined) Spread(reinterpret_cast<int32_t*>(dst), defined, rows, nd);
        break;
      case PhysType::I64:
        DecodeFixedValues(plan, pg->encoding, dict_ptr, dp.values, dp.values_end, nd, reinterpret_cast<int64_t*>(dst), tmp);
        if (defined) Spread(reinterpret_cast<int64_t*>(dst), defined, rows, nd);
        break;
      case PhysType::I128:
        DecodeFixedValues(plan, pg->encoding, dict_ptr, dp.values, dp.values_end, nd, reinterpret_cast<int128_t*>(dst), tmp);
        if (defined) Spread(reinterpret_cast<int128_t*>(dst), defined, rows, nd);
        break;
      case PhysType::F64:
        DecodeFixedValues(plan, pg->encoding, dict_ptr, dp.values, dp.values_end, nd, reinterpret_cast<double*>(dst), tmp);
        if (defined) Spread(reinterpret_cast<double*>(dst), defined, rows, nd);
        break;
      default: Fail("unexpected column type");
    }
    if (!direct) std::memcpy(fixed + at * w, dst + (size_t)skip * w, (size_t)take * w);
  }
  // The footer's min/max serve as zone maps and as the GPU's key ranges: a file whose
  // values lie outside them is refused rather than trusted. A kept slice is checked (the
  // GPU column cache and every EnsureVerified() reader take kept slices); a transient one
  // is not: it goes only to the CPU table scan, which reads its values as they are, and
  // the scan's zone maps were applied before the load (a pass over the slice for nothing).
  if (keep && out.stats.has_stats && plan.type.id != TypeId::Double && plan.type.id != TypeId::Boolean && !str) {
    const uint64_t* valid = any_null ? owned->validity.data() : nullptr;
    const int128_t lo = out.stats.min.int_value(), hi = out.stats.max.int_value();
    bool ok = true;
    switch (plan.type.physical()) {
      case PhysType::I32: ok = WithinRange(reinterpret_cast<const int32_t*>(fixed), count, valid, lo, hi); break;
      case PhysType::I64: ok = WithinRange(reinterpret_cast<const int64_t*>(fixed), count, valid, lo, hi); break;
      case PhysType::I128: ok = WithinRange(reinterpret_cast<const int128_t*>(fixed), count, valid, lo, hi); break;
      default: break;
    }
    if (!ok) Fail("values outside the column chunk's min/max statistics (corrupt statistics)");
  }
  // VARCHAR holds UTF-8 (a dictionary was checked once; values here as one run: each
  // value is valid when the run is, but for a sequence split between two values).
  if (str && !dict_strings && !ValidUtf8(owned->bytes.data(), owned->bytes.size()))
    Fail("a string is not valid UTF-8");
  // Publish.
  if (!any_null) owned->validity.clear();
  out.validity = owned->validity.empty() ? nullptr : owned->validity.data();
  if (str) {
    if (dict_strings) {
      owned->dict = dict_keep;
      out.str_enc = StringEncoding::Dictionary;
      out.dict_size = (uint32_t)dict_ptr->sorted_offsets.size() - 1;
      out.data = fixed;
      out.offsets = dict_ptr->sorted_offsets.data();
      out.bytes = dict_ptr->sorted_bytes.data();
    } else {
      out.str_enc = StringEncoding::Plain;
      out.dict_size = 0;
      out.offsets = owned->offsets.data();
      out.bytes = owned->bytes.data();
    }
  } else {
    out.data = fixed;
  }
  out.owner = owned;
}

void SliceLoader::Rethrow(const std::exception& e) const {
  throw UserError(ErrorKind::IO, "could not read Parquet file \"" + src_->file().path + "\" (column \"" +
                                     src_->plan().name + "\", row group " + std::to_string(row_group_) + "): " + e.what());
}

void SliceLoader::Verify() const {
  if (loaded_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> g(mu_);
  if (loaded_.load(std::memory_order_relaxed)) return;
  try {
    src_->Load(*target_, begin_, /*keep=*/true);
  } catch (const DecodeError& e) {
    Rethrow(e);
  }
  loaded_.store(true, std::memory_order_release);
}

bool SliceLoader::LoadTransient(ColumnChunk& view) const {
  if (loaded_.load(std::memory_order_acquire) || streamed_.exchange(true, std::memory_order_acq_rel)) return false;
  view = ColumnChunk{};
  view.type = target_->type;
  view.count = target_->count;
  view.stats = target_->stats;
  try {
    src_->Load(view, begin_, /*keep=*/false);
  } catch (const DecodeError& e) {
    Rethrow(e);
  }
  return true;
}

}  // namespace tessera::parquet
