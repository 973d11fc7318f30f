// Snappy compression (snappy.hpp): the input in blocks of 64 KiB, each searched for
// repeats of 4 bytes through a hash table of recent positions; matches become copies
// (1- or 2-byte offsets), the rest literals. Misses grow the search step, so input that
// does not compress is passed over quickly.
#include <algorithm>
#include <cstring>
#include <vector>

#include "storage/parquet/snappy.hpp"

namespace tessera::snappy {

namespace {

constexpr size_t kBlockSize = 1 << 16;
constexpr int kHashBits = 14;

inline uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint32_t Hash(uint32_t v) { return (v * 0x1e35a7bdu) >> (32 - kHashBits); }

void Varint(uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back((char)(v | 0x80));
    v >>= 7;
  }
  out.push_back((char)v);
}

void EmitLiteral(const uint8_t* p, size_t n, std::string& out) {
  if (n == 0) return;
  size_t m = n - 1;
  if (m < 60) {
    out.push_back((char)(m << 2));
  } else {
    int bytes = m < (1u << 8) ? 1 : m < (1u << 16) ? 2 : m < (1u << 24) ? 3 : 4;
    out.push_back((char)((59 + bytes) << 2));
    for (int i = 0; i < bytes; i++) out.push_back((char)(m >> (8 * i)));
  }
  out.append(reinterpret_cast<const char*>(p), n);
}

// One copy of len in [4, 64] bytes from `offset` back.
void EmitCopyUpTo64(size_t offset, size_t len, std::string& out) {
  if (len < 12 && offset < 2048) {
    out.push_back((char)(1 | ((len - 4) << 2) | ((offset >> 8) << 5)));
    out.push_back((char)(offset & 0xff));
  } else {
    out.push_back((char)(2 | ((len - 1) << 2)));
    out.push_back((char)(offset & 0xff));
    out.push_back((char)(offset >> 8));
  }
}

void EmitCopy(size_t offset, size_t len, std::string& out) {
  while (len >= 68) {
    EmitCopyUpTo64(offset, 64, out);
    len -= 64;
  }
  if (len > 64) {
    EmitCopyUpTo64(offset, 60, out);
    len -= 60;
  }
  EmitCopyUpTo64(offset, len, out);
}

void CompressBlock(const uint8_t* in, size_t n, std::vector<uint16_t>& table, std::string& out) {
  if (n < 15) {
    EmitLiteral(in, n, out);
    return;
  }
  std::fill(table.begin(), table.end(), 0);
  const size_t limit = n - 4;  // the last position a 4-byte load may start at
  size_t ip = 1, emit = 0;
  uint32_t skip = 32;
  while (ip <= limit) {
    uint32_t cur = Load32(in + ip);
    uint32_t h = Hash(cur);
    size_t cand = table[h];
    table[h] = (uint16_t)ip;
    if (cand < ip && Load32(in + cand) == cur) {
      EmitLiteral(in + emit, ip - emit, out);
      size_t len = 4;
      while (ip + len < n && in[cand + len] == in[ip + len]) len++;
      EmitCopy(ip - cand, len, out);
      ip += len;
      emit = ip;
      skip = 32;
      if (ip - 1 <= limit) table[Hash(Load32(in + ip - 1))] = (uint16_t)(ip - 1);
    } else {
      ip += skip++ >> 5;
    }
  }
  EmitLiteral(in + emit, n - emit, out);
}

}  // namespace

void Compress(const uint8_t* in, size_t n, std::string& out) {
  Varint(n, out);
  std::vector<uint16_t> table((size_t)1 << kHashBits);
  for (size_t at = 0; at < n; at += kBlockSize)
    CompressBlock(in + at, std::min(kBlockSize, n - at), table, out);
}

}  // namespace tessera::snappy
