// Snappy block format (google/snappy's format_description.txt), as Parquet uses it: one
// block, a varint of the uncompressed length, then literals and back-references.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::snappy {

// The uncompressed length the block declares; false when the header is malformed.
bool UncompressedLength(const uint8_t* in, size_t n, size_t* out_len);
// Decompresses the block into out[0, out_len) (out_len from UncompressedLength). Returns
// false on malformed input (never reads or writes out of bounds).
bool Decompress(const uint8_t* in, size_t n, uint8_t* out, size_t out_len);
// Appends the compressed block of in[0, n) to `out`.
void Compress(const uint8_t* in, size_t n, std::string& out);

}  // namespace tessera::snappy
