// Snappy decompression (snappy.hpp): a varint length, then elements whose tag byte's low
// two bits say literal (00), copy with a 1-byte (01), 2-byte (10) or 4-byte (11) offset.
// Every length and offset is checked against the input and the output written so far.
// While at least kInMargin input bytes and kOutMargin output bytes remain, a fast loop
// decodes without per-element bounds checks on lengths that cannot pass those margins
// (short literals as one 16-byte move, copies as 16- or 8-byte moves overrunning their end
// into the margin, short periods widened by doubling); the tail is decoded fully checked.
#include <cstring>

#include "storage/parquet/snappy.hpp"

namespace tessera::snappy {

namespace {

bool ReadVarint32(const uint8_t*& p, const uint8_t* end, uint32_t* out) {
  uint32_t v = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    if (p >= end) return false;
    uint8_t b = *p++;
    if (shift == 28 && b > 0x0f) return false;
    v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

}  // namespace

bool UncompressedLength(const uint8_t* in, size_t n, size_t* out_len) {
  const uint8_t* p = in;
  uint32_t len;
  if (!ReadVarint32(p, in + n, &len)) return false;
  *out_len = len;
  return true;
}

namespace {

// The fast loop's margins: an element's tag and offset or length bytes (at most 5) plus a
// short literal's 16-byte move lie inside the input, and a copy (at most 64 bytes) written
// as moves of up to 16 bytes (overrunning its end by up to 15) lies inside the output.
constexpr ptrdiff_t kInMargin = 5 + 16;
constexpr ptrdiff_t kOutMargin = 64 + 16;

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline void Store64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// Copies `copy` bytes from `offset` bytes back (1 <= offset <= written so far), writing
// up to 15 bytes past the copy's end (the caller guarantees the room).
inline void CopyWithSlack(uint8_t* o, size_t offset, size_t copy) {
  const uint8_t* src = o - offset;
  if (offset >= 16) {
    std::memcpy(o, src, 16);
    for (size_t i = 16; i < copy; i += 16) std::memcpy(o + i, src + i, 16);
    return;
  }
  uint8_t* const stop = o + copy;
  // A period under 8 bytes: each 8-byte move (loaded before it is stored) makes `offset`
  // more bytes right, so the distance to the source doubles until it reaches 8.
  while (o - src < 8) {
    const size_t d = (size_t)(o - src);
    Store64(o, Load64(src));
    o += d;
  }
  // The distance is a multiple of the period: 8-byte moves read bytes already written.
  for (; o < stop; o += 8, src += 8) Store64(o, Load64(src));
}

}  // namespace

bool Decompress(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  const uint8_t* p = in;
  const uint8_t* end = in + n;
  uint32_t len;
  if (!ReadVarint32(p, end, &len) || len != out_len) return false;
  uint8_t* o = out;
  uint8_t* const oend = out + out_len;
  // Fast loop: while both margins hold, only offsets and long literals need checks.
  while (end - p >= kInMargin && oend - o >= kOutMargin) {
    const uint32_t tag = *p++;
    const uint32_t kind = tag & 3;
    if (kind == 0) {  // literal
      size_t lit = (tag >> 2) + 1;
      if (lit <= 16) {
        std::memcpy(o, p, 16);
        p += lit;
        o += lit;
        continue;
      }
      if (lit > 60) {  // 1-4 length bytes follow the tag
        const size_t bytes = lit - 60;
        uint32_t w;
        std::memcpy(&w, p, 4);
        lit = (size_t)(w & (0xffffffffu >> (32 - 8 * bytes))) + 1;
        p += bytes;
      }
      if ((size_t)(end - p) < lit || (size_t)(oend - o) < lit) return false;
      std::memcpy(o, p, lit);
      p += lit;
      o += lit;
      continue;
    }
    size_t copy, offset;
    if (kind == 1) {
      copy = 4 + ((tag >> 2) & 7);
      offset = ((size_t)(tag >> 5) << 8) | *p++;
    } else if (kind == 2) {
      copy = (tag >> 2) + 1;
      offset = (size_t)p[0] | ((size_t)p[1] << 8);
      p += 2;
    } else {
      copy = (tag >> 2) + 1;
      uint32_t w;
      std::memcpy(&w, p, 4);
      offset = w;
      p += 4;
    }
    if (offset - 1 >= (size_t)(o - out)) return false;  // 0 or before the start
    CopyWithSlack(o, offset, copy);
    o += copy;
  }
  // The rest, every element checked in full.
  while (p < end) {
    const uint8_t tag = *p++;
    if ((tag & 3) == 0) {  // literal
      size_t lit = tag >> 2;
      if (lit >= 60) {
        const size_t bytes = lit - 59;
        if ((size_t)(end - p) < bytes) return false;
        lit = 0;
        for (size_t i = 0; i < bytes; i++) lit |= (size_t)p[i] << (8 * i);
        p += bytes;
      }
      lit += 1;
      if (lit <= 16 && end - p >= 16 && oend - o >= 16) {  // short literal: one 16-byte move
        std::memcpy(o, p, 16);
      } else {
        if ((size_t)(end - p) < lit || (size_t)(oend - o) < lit) return false;
        std::memcpy(o, p, lit);
      }
      p += lit;
      o += lit;
      continue;
    }
    size_t copy, offset;
    switch (tag & 3) {
      case 1:
        if (p >= end) return false;
        copy = 4 + ((tag >> 2) & 7);
        offset = ((size_t)(tag >> 5) << 8) | *p++;
        break;
      case 2:
        if (end - p < 2) return false;
        copy = (tag >> 2) + 1;
        offset = (size_t)p[0] | ((size_t)p[1] << 8);
        p += 2;
        break;
      default:
        if (end - p < 4) return false;
        copy = (tag >> 2) + 1;
        offset = (size_t)p[0] | ((size_t)p[1] << 8) | ((size_t)p[2] << 16) | ((size_t)p[3] << 24);
        p += 4;
        break;
    }
    if (offset == 0 || offset > (size_t)(o - out) || (size_t)(oend - o) < copy) return false;
    const uint8_t* src = o - offset;
    if ((size_t)(oend - o) >= copy + 16) {
      // Room to overrun by up to 15 bytes (rewritten by later elements or never part of
      // the result): fixed-size moves, each reading bytes already written.
      if (offset >= 16) {
        for (size_t i = 0; i < copy; i += 16) std::memcpy(o + i, src + i, 16);
      } else if (offset >= 8) {
        for (size_t i = 0; i < copy; i += 8) std::memcpy(o + i, src + i, 8);
      } else {
        // A pattern of `offset` < 8 bytes: 16 bytes of it, written every whole number of
        // periods (>= 9 bytes apart), so each move reads the buffer, not the output.
        uint8_t pat[16];
        for (size_t i = 0; i < 16; i++) pat[i] = src[i % offset];
        const size_t stride = 16 / offset * offset;
        for (size_t i = 0; i < copy; i += stride) std::memcpy(o + i, pat, 16);
      }
    } else if (offset >= copy) {
      std::memcpy(o, src, copy);
    } else {  // overlapping: the pattern repeats
      for (size_t i = 0; i < copy; i++) o[i] = src[i];
    }
    o += copy;
  }
  return o == oend;
}

}  // namespace tessera::snappy
