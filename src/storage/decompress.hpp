// Compressed input files, recognised by their magic bytes (whatever the file is called):
// gzip through zlib, zstd through the system's libzstd.so.1 loaded at first use
// (codec_libraries.hpp: no build-time headers needed).
#pragma once
#include <cstddef>
#include <string>

namespace tessera {

enum class Compression { None, Gzip, Zstd };

// What the first bytes of a file say about it.
Compression DetectCompression(const char* data, size_t size);

// The whole decompressed content of `data` (every member of a multi-member gzip file, or
// every zstd frame). Throws UserError(IO) naming `path` on corrupt or truncated input, and
// UserError(Unsupported) for zstd when libzstd cannot be loaded.
std::string Decompress(Compression kind, const char* data, size_t size, const std::string& path);

}  // namespace tessera
