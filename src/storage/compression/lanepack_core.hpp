// The GPU column cache's compressed layout ("lane-packed"): frame of reference plus a
// whole number of bytes a value, laid out so that a thread of a generated kernel loads the
// words of its own items once, coalesced with its warp, and takes every value out with
// shifts known when the kernel is compiled. Written by the host (gpu/column_cache.cpp),
// read by the kernels (embedded in the NVRTC source by src/function/embed_core.cmake) and
// by the unit tests: one definition of where a value's bytes are. Include-free, no std::, and
// no unbalanced square brackets (CMake reads the file as a list when it embeds it).
//
// The kernels' tiles (tile_library.cpp): a block of `lanes` threads takes `items` rows a
// thread; item i of lane t of tile j is row j * lanes * items + i * lanes + t. A column of
// `bytes` bytes a value (0 to 4; 0: every value is the reference) gives each lane of a tile
// LaneWords(items, bytes) little-endian u32 words holding its items one after another,
// item i in the bytes from i * bytes on. Word r of lane t of tile j is word
// WordIndex(j, r, t, lanes, lane_words) of the column, so a warp's load of its word r is
// one coalesced access. A value is the column's reference plus its field (modulo 2^64).
// The column holds whole tiles; the items past its last row are zero.
//
// Why bytes, not bits: the bit-exact miniblocks of the storage format (bitpack_core.hpp)
// made the kernels latency-bound (a descriptor load before each value's words, run-time
// shifts); rounding the width up to bytes costs space but no instruction that waits.
#pragma once
#include "common/host_device.hpp"

namespace tessera::lanepack {

// Bytes a value needs for fields in [0, range].
TESSERA_HD constexpr unsigned BytesFor(unsigned long long range) {
  return range == 0 ? 0 : range < (1ull << 8) ? 1 : range < (1ull << 16) ? 2 : range < (1ull << 24) ? 3 : range < (1ull << 32) ? 4 : 8;
}

TESSERA_HD constexpr unsigned LaneWords(unsigned items, unsigned bytes) { return (items * bytes + 3) / 4; }

TESSERA_HD constexpr unsigned long long WordIndex(unsigned long long tile, unsigned r, unsigned lane, unsigned lanes,
                                                  unsigned lane_words) {
  return (tile * lane_words + r) * lanes + lane;
}

// Whether word r of a lane holds a byte of item i.
TESSERA_HD constexpr bool WordHolds(unsigned r, unsigned i, unsigned bytes) {
  return bytes != 0 && i * bytes / 4 <= r && r <= (i * bytes + bytes - 1) / 4;
}

// The field of item i from a lane's words w[0] to w[lane_words]; the last must be readable
// (any value: no field reaches into it).
TESSERA_HD inline unsigned Field(const unsigned* w, unsigned i, unsigned bytes) {
  if (bytes == 0) return 0;
  const unsigned b = i * bytes, r = b >> 2, k = b & 3;
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  // One byte permute where the field lies in one word (1 or 2 bytes; the selector's 4s
  // take the zero word's bytes), else a funnel shift and a mask.
  if (bytes == 1) return __byte_perm(w[r], 0u, 0x4440u | k);
  if (bytes == 2 && k <= 2) return __byte_perm(w[r], 0u, 0x4400u | ((k + 1) << 4) | k);
  if (bytes == 3 && k == 0) return w[r] & 0xffffffu;
  const unsigned x = k == 0 ? w[r] : __funnelshift_r(w[r], w[r + 1], 8 * k);
#else
  const unsigned x = (unsigned)((((unsigned long long)w[r + 1] << 32) | w[r]) >> (8 * k));
#endif
  return bytes >= 4 ? x : (x & ((1u << (8 * bytes)) - 1));
}

// Packs the fields f[i], i < count (count <= lanes * items; each below 2^(8 * bytes)), as
// tile `tile` into `col`, whose words of that tile it writes in full (zero past count).
TESSERA_HD inline void PackTile(const unsigned* f, unsigned count, unsigned bytes, unsigned lanes, unsigned items,
                                unsigned long long tile, unsigned* col) {
  const unsigned L = LaneWords(items, bytes);
  for (unsigned t = 0; t < lanes; t++) {
    // The lane's items one after another: a 64-bit accumulator, a word written when full.
    unsigned long long acc = 0;
    unsigned have = 0, r = 0;
    for (unsigned i = 0; i < items; i++) {
      const unsigned row = i * lanes + t;
      acc |= (unsigned long long)(row < count ? f[row] : 0u) << have;
      have += 8 * bytes;
      if (have >= 32) {
        col[WordIndex(tile, r++, t, lanes, L)] = (unsigned)acc;
        acc >>= 32;
        have -= 32;
      }
    }
    if (r < L) col[WordIndex(tile, r, t, lanes, L)] = (unsigned)acc;
  }
}

}  // namespace tessera::lanepack
