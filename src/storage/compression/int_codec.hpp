// Integer streams of the storage format (version 2): the values of a fixed-width column
// chunk (integers, dates, decimals up to 18 digits, doubles as their bit patterns,
// booleans), a dictionary chunk's codes and a string chunk's lengths, each encoded by the
// codec that gives the fewest bytes.
//
// A stream, little-endian, no alignment assumed:
//   u8 codec | u8 width (bytes per value: 1, 2, 4, 8) | u16 0 | u32 count | body
//   Plain (0):      count * width bytes
//   BitPack (1):    frame of reference + bit-packing in miniblocks of 128 values:
//                   u32 nblocks = ceil(count / 128)
//                   nblocks * { i64 reference, u32 word offset, u8 bits, u8[3] 0 }  (16 bytes)
//                   u32 nwords, nwords * u32 words
//                   Miniblock b's value j (0 <= j < 128) is reference + the `bits`-bit
//                   unsigned field at bit (word offset * 32 + j * bits) of the words, bits
//                   numbered from the least significant bit of the first word (little-endian
//                   bit order), computed modulo 2^64 and truncated to `width` bytes. A miniblock
//                   owns 4 * bits words (128 fields, the last miniblock padded); 4 zero words
//                   follow the last so a decoder may load 16 bytes at any field. bits = 0:
//                   every value is the reference.
//   Dictionary (2): u32 size, size * width bytes of distinct values, then a BitPack stream of
//                   u32 codes (< size), one per value.
//   Rle (3):        u32 nruns, nruns * width bytes of run values, nruns * u32 run ends
//                   (exclusive, strictly increasing, the last = count).
// Rows marked NULL by the chunk's validity bitmap are "don't care": the encoder gives them
// the previous valid row's value (so they cost nothing) and the decoder's caller zeroes them.
// The GPU decodes BitPack tiles in registers (a miniblock is one warp's 128 values).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "storage/compression/byte_io.hpp"  // DecodeError

namespace tessera::codec {

enum class IntCodec : uint8_t { Plain = 0, BitPack = 1, Dictionary = 2, Rle = 3 };
inline constexpr uint32_t kMiniblockValues = 128;
inline constexpr uint32_t kMaxDictionary = 1u << 16;

const char* IntCodecName(IntCodec c);

// Encodes `n` values of `width` bytes (1, 2, 4 or 8) at `values`, read as signed
// (sign-extended: integers, dates, decimals, double bit patterns) or unsigned (codes,
// lengths, booleans) for the frame of reference; rows whose bit in `validity` (nullptr: all
// valid) is clear may decode to any value. Appends the stream to `out`; returns the codec
// chosen (the smallest; `allow` is a bit mask of the codecs the caller permits, Plain always).
IntCodec EncodeInts(const void* values, uint32_t n, int width, bool is_signed, const uint64_t* validity,
                    std::string& out, unsigned allow = 0xF);

// Decodes the stream at [p, p + len) holding `n` values of `width` bytes into `out`; returns
// the bytes it occupied. Throws DecodeError when it is malformed or does not match n/width.
size_t DecodeInts(const uint8_t* p, size_t len, uint32_t n, int width, void* out);

// The codec of the stream at p (len >= 1), for statistics and EXPLAIN.
IntCodec PeekIntCodec(const uint8_t* p);

// Bits of an unsigned range (0 for 0).
uint32_t BitsFor(uint64_t range);
// The frame of reference of v[0, cnt) (cnt >= 1): its minimum (returned in *ref) and the
// bits its range needs (returned).
uint32_t MiniblockFrame(const int64_t* v, uint32_t cnt, int64_t* ref);
// Packs v[0, cnt) (cnt <= 128) minus `ref` at `bits` bits each (bitpack_core.hpp's layout)
// into the 4 * bits words at `words`, which must be zero.
void PackMiniblock(const int64_t* v, uint32_t cnt, int64_t ref, uint32_t bits, uint32_t* words);

}  // namespace tessera::codec
