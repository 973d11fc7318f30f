// MD5 as RFC 1321 specifies it: 512-bit blocks, four rounds of sixteen steps over the state
// (a, b, c, d), the message padded with 0x80, zeros and its bit length (little-endian).
#include "function/md5.hpp"

#include <array>
#include <cmath>
#include <cstdint>

namespace tessera::ops {

namespace {

// The per-step additive constants: the integer part of 2^32 * |sin(i + 1)|.
const std::array<uint32_t, 64>& SineTable() {
  static const std::array<uint32_t, 64> k = [] {
    std::array<uint32_t, 64> t{};
    for (int i = 0; i < 64; i++) t[i] = (uint32_t)(std::fabs(std::sin((double)(i + 1))) * 4294967296.0);
    return t;
  }();
  return k;
}

constexpr int kShift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

uint32_t RotateLeft(uint32_t x, int s) { return (x << s) | (x >> (32 - s)); }

void Block(const unsigned char* p, uint32_t state[4]) {
  uint32_t m[16];
  for (int i = 0; i < 16; i++)
    m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  const auto& k = SineTable();
  for (int i = 0; i < 64; i++) {
    const int round = i / 16;
    uint32_t f;
    int g;
    switch (round) {
      case 0: f = (b & c) | (~b & d); g = i; break;
      case 1: f = (d & b) | (~d & c); g = (5 * i + 1) % 16; break;
      case 2: f = b ^ c ^ d; g = (3 * i + 5) % 16; break;
      default: f = c ^ (b | ~d); g = (7 * i) % 16; break;
    }
    const uint32_t rotated = RotateLeft(a + f + k[i] + m[g], kShift[round][i % 4]);
    a = d;
    d = c;
    c = b;
    b = b + rotated;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
}

}  // namespace

std::string Md5Hex(std::string_view bytes) {
  uint32_t state[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  const size_t whole = bytes.size() / 64 * 64;
  for (size_t at = 0; at < whole; at += 64) Block((const unsigned char*)bytes.data() + at, state);
  // The tail, 0x80, zeros to 56 mod 64, and the length in bits.
  unsigned char tail[128] = {};
  const size_t rest = bytes.size() - whole;
  for (size_t i = 0; i < rest; i++) tail[i] = (unsigned char)bytes[whole + i];
  tail[rest] = 0x80;
  const size_t tail_size = rest < 56 ? 64 : 128;
  const uint64_t bits = (uint64_t)bytes.size() * 8;
  for (int i = 0; i < 8; i++) tail[tail_size - 8 + i] = (unsigned char)(bits >> (8 * i));
  for (size_t at = 0; at < tail_size; at += 64) Block(tail + at, state);
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (uint32_t w : state)
    for (int byte = 0; byte < 4; byte++) {
      const unsigned v = (w >> (8 * byte)) & 0xFF;
      out += kHex[v >> 4];
      out += kHex[v & 15];
    }
  return out;
}

}  // namespace tessera::ops
