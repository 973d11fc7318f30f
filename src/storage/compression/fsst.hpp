// FSST string compression (Fast Static Symbol Table; Boncz, Neumann, Leis, VLDB 2020), our
// own implementation of the paper's idea: a table of up to 255 symbols of 1..8 bytes,
// trained on a sample, replaces byte sequences by one-byte codes.
//
// Format (the contract every decoder, the GPU kernels included, follows):
//   Code bytes: c < nsymbols expands to symbol c (length[c] bytes). c == 255 is an escape:
//   the byte after it is output literally. Any other c (nsymbols <= c < 255) and an escape
//   as the last byte of a string's codes are malformed. Each string is compressed on its
//   own: its codes neither depend on nor span other strings, so strings decode
//   independently given only the table. Empty string <-> no code bytes. A string of n bytes
//   compresses to at most 2n code bytes (all escapes).
//   Serialized table: u8 nsymbols (0..255), then per symbol c = 0..nsymbols-1: u8 length
//   (1..8) followed by its `length` bytes. Little-endian throughout.
//   In memory, symbol[c] holds the symbol's bytes little-endian (first byte in the low
//   byte) with the unused high bytes zero, so a decoder may store all 8 bytes of
//   symbol[c] and advance its output by length[c] (given 8 bytes of room).
//   Since every string's codes are complete, the concatenated codes of several strings
//   decode to the concatenated strings: a chunk's strings can be decoded in one call, the
//   original offsets saying where each one starts.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::fsst {

inline constexpr uint8_t kEscape = 255;
inline constexpr uint32_t kMaxSymbols = 255;
inline constexpr uint32_t kLongBuckets = 1024;  // hash buckets of symbols of 3..8 bytes

struct SymbolTable {
  uint32_t nsymbols = 0;              // <= 255
  uint64_t symbol[kMaxSymbols] = {};  // symbol bytes, little-endian, unused high bytes zero
  uint8_t length[kMaxSymbols] = {};   // 1..8

  // Encoder lookup, built by Finalize (Train and Deserialize call it); decoding needs none
  // of it. Entries are code | length << 8; an escape is kEscape | 1 << 8.
  uint16_t byte_code[256] = {};      // the 1-byte symbol of a byte, else escape
  std::vector<uint16_t> short_code;  // [b0 | b1 << 8]: the 2-byte symbol b0 b1, else byte_code[b0]
  // Symbols of 3..8 bytes by a hash of their first 3 bytes: bucket h holds entries
  // [long_start[h], long_start[h+1]), longest first, so the first match is the longest.
  uint16_t long_start[kLongBuckets + 1] = {};
  uint64_t long_symbol[kMaxSymbols] = {};
  uint64_t long_mask[kMaxSymbols] = {};  // the low `length` bytes set
  uint8_t long_code[kMaxSymbols] = {};
  uint8_t long_length[kMaxSymbols] = {};
};

// Builds a table from a sample of the strings (16 KB does well, 32 KB a little better; a
// larger sample is subsampled to ~32 KB): 10 generations of compressing the sample with the
// current table, counting how often each symbol and each pair of adjacent symbols occurs,
// and keeping the 255 symbols and concatenations that cover the most bytes. Deterministic;
// takes about 2-3 ms for 16 KB.
SymbolTable Train(const std::vector<std::string_view>& sample);
// Builds the encoder lookup of a table whose nsymbols, symbol and length (1..8) are set.
void Finalize(SymbolTable& t);
// Serialized form: u8 nsymbols, then per symbol u8 length + `length` bytes. Appends to out.
void Serialize(const SymbolTable& t, std::string& out);
// Parses a serialized table from [p, p+len) (and finalizes it); returns the bytes
// consumed, 0 when malformed (a length of 0 or > 8, truncated).
size_t Deserialize(const uint8_t* p, size_t len, SymbolTable& t);
// Compresses one string, appending its code bytes (at most 2 * s.size()) to out.
void CompressString(const SymbolTable& t, std::string_view s, std::string& out);
// Decompresses code bytes [in, in+len) into out (capacity cap). Returns the number of bytes
// written, or SIZE_MAX when the input is malformed (a code >= nsymbols other than 255, an
// escape at the end) or the output would exceed cap. Whatever the code bytes, never reads
// or writes out of bounds (given a table with lengths 1..8, as Train and Deserialize make),
// but may scribble on out[result, cap) (symbols are stored 8 bytes at a time), and on
// refusal out holds garbage. Tables are read-only here: share one between threads freely.
size_t DecompressString(const SymbolTable& t, const uint8_t* in, size_t len, char* out, size_t cap);

}  // namespace tessera::fsst
