// Page decompression by Parquet codec. Snappy is ours (snappy.hpp), gzip is zlib (linked);
// zstd, LZ4 and Brotli are the system's shared libraries (libzstd.so.1, liblz4.so.1,
// libbrotlidec.so.1) loaded with dlopen on first use, so tessera builds and runs without
// their headers or libraries and only a file that needs a missing one fails (a clear error
// naming the codec and the library). LZO is not supported.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "storage/parquet/parquet_format.hpp"

namespace tessera::parquet {

// A malformed page, value or missing codec: the table reader adds file and column.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* CodecName(int32_t codec);
// Decompresses in[0, n) into exactly out[0, out_len); throws DecodeError.
void DecompressPage(int32_t codec, const uint8_t* in, size_t n, uint8_t* out, size_t out_len);

}  // namespace tessera::parquet
