// The bit-packed miniblock (storage format version 2's BitPack codec, int_codec.hpp): one
// definition of where a value's bits are, for its writer and its reader. (The GPU column
// cache's packed layout is lanepack_core.hpp's.) Include-free, no std::.
//
// A miniblock of 128 values with `bits` bits each owns 4 * bits little-endian u32 words;
// value j occupies the `bits` bits from bit j * bits on, counted from the least significant bit
// of the first word; its value is the miniblock's reference plus that unsigned field
// (modulo 2^64). A reader may touch the word after the field's last word (padding
// follows the last miniblock).
#pragma once
#include "common/host_device.hpp"

namespace tessera::bitpack {

inline constexpr unsigned kMiniblock = 128;
inline constexpr unsigned kDescriptorBytes = 16;  // per miniblock, in front of the words
inline constexpr unsigned kPadWords = 4;          // zero words after the last miniblock's

// A miniblock's 16-byte descriptor as four little-endian u32 words: its reference (an i64
// in words 0-1), the offset of its first word among the packed words (word 2) and its bit
// width (the low byte of word 3; the other bytes zero).
struct Descriptor {
  unsigned long long ref;
  unsigned word_offset;
  unsigned bits;
};
TESSERA_HD inline Descriptor ReadDescriptor(const unsigned* d) {
  return {(unsigned long long)d[0] | ((unsigned long long)d[1] << 32), d[2], d[3] & 0xffu};
}
TESSERA_HD inline void WriteDescriptor(unsigned* d, unsigned long long ref, unsigned word_offset, unsigned bits) {
  d[0] = (unsigned)ref;
  d[1] = (unsigned)(ref >> 32);
  d[2] = word_offset;
  d[3] = bits & 0xffu;
}

// The unsigned field of value j (0 <= j < 128) of a miniblock whose words start at w.
TESSERA_HD inline unsigned long long Field(const unsigned* w, unsigned j, unsigned bits) {
  const unsigned long long bp = (unsigned long long)j * bits;
  const unsigned k = (unsigned)(bp >> 5), sh = (unsigned)(bp & 31);
  unsigned long long x = ((unsigned long long)w[k] | ((unsigned long long)w[k + 1] << 32)) >> sh;
  if (sh + bits > 64) x |= (unsigned long long)w[k + 2] << (64 - sh);
  return bits >= 64 ? x : (x & ((1ull << bits) - 1));
}

}  // namespace tessera::bitpack
