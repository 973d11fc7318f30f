// An encoded integer stream (int_codec.hpp) as the GPU column cache uploads it: the bytes of
// a chunk's bit-packed, dictionary or run-length stream moved over PCIe as they are stored and decoded
// by the device (tile library: tsr_decode_streams) into the plain column, instead of being
// decoded on the host first (issue 13's cold path). One definition of the layout and of a
// value's decoding for the host that writes it (gpu_stream.cpp), its tests and the kernel.
// Include-free, no std:: (embedded in the NVRTC source: src/function/embed_core.cmake).
//
// Laid out aligned (the stored stream is not), 16 bytes at a time:
//   4 u32: kind (0 values as they are, 1 bit-packed, 2 dictionary, 3 run-length) | width
//          (1, 2, 4, 8) | count | dictionary size (kind 2) or number of runs (kind 3)
//   kind 0: count * width bytes of values
//   kind 3: the runs' values (width bytes each), padded to 16, then their exclusive ends
//          (u32, strictly increasing, the last = count), padded to 16; row i is in the
//          first run whose end is above i (a binary search)
//   kind 2: dictionary size * width bytes of distinct values, padded to 16
//   kinds 1, 2: ceil(count / 128) miniblock descriptors of 16 bytes (bitpack_core.hpp), then
//          the packed words (their offsets as in the stored stream, 4 zero words after the
//          last miniblock's), padded to 16. Kind 2's fields are dictionary codes.
#pragma once
#include "storage/compression/bitpack_core.hpp"

namespace tessera::gpustream {

enum Kind : unsigned { kValues = 0, kBitPack = 1, kDictionary = 2, kRle = 3 };
inline constexpr unsigned kHeaderBytes = 16;

TESSERA_HD inline unsigned long long Pad16(unsigned long long n) { return (n + 15) & ~15ull; }
// Where the descriptors start (kinds 1 and 2).
TESSERA_HD inline unsigned long long DescriptorsAt(unsigned kind, unsigned width, unsigned dict_size) {
  return kHeaderBytes + (kind == kDictionary ? Pad16((unsigned long long)dict_size * width) : 0);
}
// Where the packed words start (kinds 1 and 2).
TESSERA_HD inline unsigned long long WordsAt(unsigned kind, unsigned width, unsigned count, unsigned dict_size) {
  return DescriptorsAt(kind, width, dict_size) +
         (unsigned long long)((count + bitpack::kMiniblock - 1) / bitpack::kMiniblock) * bitpack::kDescriptorBytes;
}

// A little-endian value of `width` bytes at p (aligned to its width), zero-extended.
TESSERA_HD inline unsigned long long LoadValue(const unsigned char* p, unsigned width) {
  switch (width) {
    case 1: return *p;
    case 2: return *(const unsigned short*)p;
    case 4: return *(const unsigned*)p;
    default: return *(const unsigned long long*)p;
  }
}

// Where a run-length stream's run ends start.
TESSERA_HD inline unsigned long long RunEndsAt(unsigned width, unsigned nruns) {
  return kHeaderBytes + Pad16((unsigned long long)nruns * width);
}

// Row i (< count) of the stream at s (16-byte aligned), as 64 bits; the caller keeps the low
// `width` bytes. A dictionary code out of range (a corrupt file) sets *bad and gives 0.
TESSERA_HD inline unsigned long long Value(const unsigned char* s, unsigned i, bool* bad) {
  const unsigned* h = (const unsigned*)s;
  const unsigned kind = h[0], width = h[1];
  if (kind == kValues) return LoadValue(s + kHeaderBytes + (unsigned long long)i * width, width);
  if (kind == kRle) {
    const unsigned nruns = h[3];
    const unsigned* ends = (const unsigned*)(s + RunEndsAt(width, nruns));
    unsigned lo = 0, hi = nruns - 1;  // the writer checked nruns >= 1 and the ends
    while (lo < hi) {
      const unsigned mid = (lo + hi) / 2;
      if (ends[mid] <= i) lo = mid + 1;
      else hi = mid;
    }
    return LoadValue(s + kHeaderBytes + (unsigned long long)lo * width, width);
  }
  const unsigned count = h[2], dict_size = h[3];
  const bitpack::Descriptor d =
      bitpack::ReadDescriptor((const unsigned*)(s + DescriptorsAt(kind, width, dict_size)) + (i / bitpack::kMiniblock) * 4);
  const unsigned* words = (const unsigned*)(s + WordsAt(kind, width, count, dict_size));
  const unsigned long long f = d.bits ? bitpack::Field(words + d.word_offset, i % bitpack::kMiniblock, d.bits) : 0;
  const unsigned long long v = d.ref + f;
  if (kind == kBitPack) return v;
  const unsigned code = (unsigned)v;  // the codes are a stream of u32
  if (code >= dict_size) {
    *bad = true;
    return 0;
  }
  return LoadValue(s + kHeaderBytes + (unsigned long long)code * width, width);
}

// A VARCHAR dictionary chunk's code (its own dictionary's) as a code of the column's
// dictionary: map[code] of the chunk's `size` codes (ColumnDictionary's slot codes). A code
// out of range (a corrupt file) gives false. The host's uploads and tsr_decode_streams.
TESSERA_HD inline bool MapCode(const unsigned* map, unsigned size, unsigned long long code, unsigned* out) {
  if (code >= size) return false;
  *out = map[code];
  return true;
}

}  // namespace tessera::gpustream
