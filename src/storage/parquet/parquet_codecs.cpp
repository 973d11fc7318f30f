#include "storage/parquet/parquet_codecs.hpp"

#include <zlib.h>

#include <cstring>

#include "storage/codec_libraries.hpp"
#include "storage/parquet/snappy.hpp"

namespace tessera::parquet {

namespace {

// A function of a shared library (codec_libraries.hpp), resolved once by the caller's
// static; a missing library is a DecodeError naming the codec.
void* LoadSymbol(const char* lib, const char* const* sonames, const char* symbol, const char* codec) {
  try {
    return codec_lib::LoadSymbol(lib, sonames, symbol, codec);
  } catch (const codec_lib::MissingLibrary& e) {
    throw DecodeError(e.what());
  }
}

using Lz4DecompressSafe = int (*)(const char*, char*, int, int);
using BrotliDecompress = int (*)(size_t, const uint8_t*, size_t*, uint8_t*);

const char* const kLz4Names[] = {"liblz4.so.1", "liblz4.so", nullptr};
const char* const kBrotliNames[] = {"libbrotlidec.so.1", "libbrotlidec.so", nullptr};

void Zstd(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  const codec_lib::Zstd* z;
  try {
    z = &codec_lib::Zstd::Get();
  } catch (const codec_lib::MissingLibrary& e) {
    throw DecodeError(e.what());
  }
  size_t got = z->decompress(out, out_len, in, n);
  if (z->is_error(got)) throw DecodeError(std::string("corrupt ZSTD page: ") + z->error_name(got));
  if (got != out_len) throw DecodeError("corrupt ZSTD page: wrong decompressed size");
}

int Lz4Block(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  static auto decompress = (Lz4DecompressSafe)LoadSymbol("liblz4", kLz4Names, "LZ4_decompress_safe", "LZ4");
  if (n > INT32_MAX || out_len > INT32_MAX) return -1;
  return decompress(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out), (int)n, (int)out_len);
}

void Lz4Raw(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  if (Lz4Block(in, n, out, out_len) != (int)out_len) throw DecodeError("corrupt LZ4_RAW page");
}

// The deprecated LZ4 codec: Hadoop's framing (big-endian decompressed and compressed
// sizes before each block), else a bare block as older Arrow wrote.
void Lz4Hadoop(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  auto be32 = [](const uint8_t* p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; };
  size_t ip = 0, op = 0;
  bool framed = true;
  while (ip < n && framed) {
    if (n - ip < 8) { framed = false; break; }
    uint32_t dlen = be32(in + ip), clen = be32(in + ip + 4);
    if (clen > n - ip - 8 || dlen > out_len - op) { framed = false; break; }
    if (Lz4Block(in + ip + 8, clen, out + op, dlen) != (int)dlen) { framed = false; break; }
    ip += 8 + clen;
    op += dlen;
  }
  if (framed && op == out_len) return;
  Lz4Raw(in, n, out, out_len);
}

void Brotli(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  static auto decompress =
      (BrotliDecompress)LoadSymbol("libbrotlidec", kBrotliNames, "BrotliDecoderDecompress", "BROTLI");
  size_t got = out_len;
  if (decompress(n, in, &got, out) != 1 || got != out_len) throw DecodeError("corrupt BROTLI page");
}

void Gzip(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw DecodeError("zlib could not be initialised");
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = (uInt)n;
  zs.next_out = out;
  zs.avail_out = (uInt)out_len;
  int rc = inflate(&zs, Z_FINISH);
  size_t got = out_len - zs.avail_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || got != out_len) throw DecodeError("corrupt GZIP page");
}

}  // namespace

const char* CodecName(int32_t codec) {
  switch ((Codec)codec) {
    case Codec::UNCOMPRESSED: return "UNCOMPRESSED";
    case Codec::SNAPPY: return "SNAPPY";
    case Codec::GZIP: return "GZIP";
    case Codec::LZO: return "LZO";
    case Codec::BROTLI: return "BROTLI";
    case Codec::LZ4: return "LZ4";
    case Codec::ZSTD: return "ZSTD";
    case Codec::LZ4_RAW: return "LZ4_RAW";
  }
  return "unknown";
}

void DecompressPage(int32_t codec, const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  switch ((Codec)codec) {
    case Codec::UNCOMPRESSED:
      if (n != out_len) throw DecodeError("page size mismatch");
      std::memcpy(out, in, n);
      return;
    case Codec::SNAPPY: {
      size_t len;
      if (!snappy::UncompressedLength(in, n, &len) || len != out_len || !snappy::Decompress(in, n, out, out_len))
        throw DecodeError("corrupt SNAPPY page");
      return;
    }
    case Codec::GZIP: return Gzip(in, n, out, out_len);
    case Codec::ZSTD: return Zstd(in, n, out, out_len);
    case Codec::LZ4_RAW: return Lz4Raw(in, n, out, out_len);
    case Codec::LZ4: return Lz4Hadoop(in, n, out, out_len);
    case Codec::BROTLI: return Brotli(in, n, out, out_len);
    default: break;
  }
  throw DecodeError(std::string("the ") + CodecName(codec) + " codec is not supported");
}

}  // namespace tessera::parquet
