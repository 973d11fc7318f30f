// Compression libraries tessera uses without their headers or a link-time dependency:
// the system's shared libraries (libzstd.so.1, liblz4.so.1, libbrotlidec.so.1) are loaded
// with dlopen at first use and the few functions needed declared here, so tessera builds
// and runs without them and only input that needs a missing one fails, with an error
// naming the codec and the library. The one loader for Parquet pages
// (parquet/parquet_codecs.cpp) and compressed CSV input (decompress.cpp).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

namespace tessera::codec_lib {

// A library or function that could not be loaded; the message names the codec and library.
struct MissingLibrary : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `symbol` of the first of `sonames` (nullptr-terminated) that dlopen loads; the library
// stays loaded. Throws MissingLibrary naming `lib` and `codec`.
void* LoadSymbol(const char* lib, const char* const* sonames, const char* symbol, const char* codec);

// libzstd's streaming decoder buffers (zstd.h: ZSTD_inBuffer / ZSTD_outBuffer, stable ABI).
struct ZstdInBuffer {
  const void* src;
  size_t size, pos;
};
struct ZstdOutBuffer {
  void* dst;
  size_t size, pos;
};

// The functions of libzstd tessera calls (zstd.h's names without the ZSTD_ prefix), all
// resolved together on first use. Throws MissingLibrary when libzstd is not installed.
struct Zstd {
  size_t (*decompress)(void* dst, size_t dst_size, const void* src, size_t src_size);
  unsigned (*is_error)(size_t code);
  const char* (*error_name)(size_t code);
  void* (*create_dstream)();
  size_t (*free_dstream)(void* ds);
  size_t (*decompress_stream)(void* ds, ZstdOutBuffer* out, ZstdInBuffer* in);
  size_t (*dstream_out_size)();
  static const Zstd& Get();
};

}  // namespace tessera::codec_lib
