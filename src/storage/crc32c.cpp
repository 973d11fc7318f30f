#include "storage/crc32c.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace tessera {

// ---------------------------------------------------------------------------------------
// CRC-32C: reflected polynomial 0x82F63B78, slicing-by-8 in software, crc32 instruction
// on x86-64 CPUs with SSE4.2.
namespace {

struct CrcTables {
  uint32_t t[8][256];
};

const CrcTables& Tables() {
  static const CrcTables tables = [] {
    CrcTables T{};
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
      T.t[0][i] = c;
    }
    for (int s = 1; s < 8; s++)
      for (uint32_t i = 0; i < 256; i++)
        T.t[s][i] = (T.t[s - 1][i] >> 8) ^ T.t[0][T.t[s - 1][i] & 0xff];
    return T;
  }();
  return tables;
}

uint32_t CrcSoftware(const uint8_t* p, size_t n, uint32_t c) {
  const auto& T = Tables().t;
  while (n && (reinterpret_cast<uintptr_t>(p) & 7)) {
    c = (c >> 8) ^ T[0][(c ^ *p++) & 0xff];
    n--;
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    w ^= c;
    c = T[7][w & 0xff] ^ T[6][(w >> 8) & 0xff] ^ T[5][(w >> 16) & 0xff] ^
        T[4][(w >> 24) & 0xff] ^ T[3][(w >> 32) & 0xff] ^ T[2][(w >> 40) & 0xff] ^
        T[1][(w >> 48) & 0xff] ^ T[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ T[0][(c ^ *p++) & 0xff];
  return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t CrcHardware(const uint8_t* p, size_t n, uint32_t c) {
  while (n && (reinterpret_cast<uintptr_t>(p) & 7)) {
    c = _mm_crc32_u8(c, *p++);
    n--;
  }
  uint64_t c64 = c;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c64 = _mm_crc32_u64(c64, w);
    p += 8;
    n -= 8;
  }
  c = (uint32_t)c64;
  while (n--) c = _mm_crc32_u8(c, *p++);
  return c;
}
bool HaveHardwareCrc() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

uint32_t Crc32c(const void* data, size_t n, uint32_t crc) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
#if defined(__x86_64__)
  if (HaveHardwareCrc()) return ~CrcHardware(p, n, c);
#endif
  return ~CrcSoftware(p, n, c);
}

}  // namespace tessera
