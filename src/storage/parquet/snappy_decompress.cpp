// Snappy decompression (snappy.hpp): a varint length, then elements whose tag byte's low
// two bits say literal (00), copy with a 1-byte (01), 2-byte (10) or 4-byte (11) offset.
// Every length and offset is checked against the input and the output written so far.
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

bool Decompress(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  const uint8_t* p = in;
  const uint8_t* end = in + n;
  uint32_t len;
  if (!ReadVarint32(p, end, &len) || len != out_len) return false;
  uint8_t* o = out;
  uint8_t* const oend = out + out_len;
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
