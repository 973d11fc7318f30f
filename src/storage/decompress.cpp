#include "storage/decompress.hpp"

#include <zlib.h>

#include <cstring>

#include "common/error.hpp"
#include "storage/codec_libraries.hpp"


namespace tessera {

namespace {

[[noreturn]] void Corrupt(const std::string& path, const char* format, const std::string& why) {
  throw UserError(ErrorKind::IO, "could not decompress " + std::string(format) + " file \"" + path + "\": " + why);
}

std::string Gunzip(const char* data, size_t size, const std::string& path) {
  std::string out;
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 15 + 16) != Z_OK) throw InternalError("inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  size_t in_left = size;
  out.resize(std::max<size_t>(size * 4, 1 << 16));
  size_t produced = 0;
  for (;;) {
    // zlib counts in uInt: feed and drain at most 1 GiB at a time.
    if (zs.avail_in == 0 && in_left > 0) {
      zs.avail_in = (uInt)std::min<size_t>(in_left, 1u << 30);
      in_left -= zs.avail_in;
    }
    if (produced == out.size()) out.resize(out.size() * 2);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = (uInt)std::min<size_t>(out.size() - produced, 1u << 30);
    uInt before = zs.avail_out;
    int rc = inflate(&zs, Z_NO_FLUSH);
    produced += before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (files concatenated with cat).
      if (zs.avail_in == 0 && in_left == 0) break;
      if (inflateReset(&zs) != Z_OK) break;
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
      inflateEnd(&zs);
      Corrupt(path, "gzip", "the file is truncated");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      std::string why = zs.msg ? zs.msg : "error " + std::to_string(rc);
      inflateEnd(&zs);
      Corrupt(path, "gzip", why);
    }
  }
  inflateEnd(&zs);
  out.resize(produced);
  return out;
}

// libzstd's streaming decoder, loaded with dlopen (codec_libraries.hpp): frames
// concatenated one after another decode as one stream.
std::string Unzstd(const char* data, size_t size, const std::string& path) {
  const codec_lib::Zstd* z;
  try {
    z = &codec_lib::Zstd::Get();
  } catch (const codec_lib::MissingLibrary& e) {
    throw UserError(ErrorKind::Unsupported, "cannot read \"" + path + "\": " + e.what());
  }
  void* ds = z->create_dstream();
  if (!ds) throw InternalError("ZSTD_createDStream failed");
  std::string out;
  out.resize(std::max<size_t>(size * 4, z->dstream_out_size()));
  codec_lib::ZstdInBuffer in{data, size, 0};
  size_t produced = 0, last = 1;
  // Until the input is used up and the decoder holds nothing more (last == 0).
  while (in.pos < in.size || last != 0) {
    if (produced == out.size()) out.resize(out.size() * 2);
    codec_lib::ZstdOutBuffer o{out.data() + produced, out.size() - produced, 0};
    const size_t in_before = in.pos;
    last = z->decompress_stream(ds, &o, &in);
    produced += o.pos;
    if (z->is_error(last)) {
      std::string why = z->error_name(last);
      z->free_dstream(ds);
      Corrupt(path, "zstd", why);
    }
    if (o.pos == 0 && in.pos == in_before && last != 0) {  // no progress: input ended mid-frame
      z->free_dstream(ds);
      Corrupt(path, "zstd", "the file is truncated");
    }
  }
  z->free_dstream(ds);
  out.resize(produced);
  return out;
}

}  // namespace

Compression DetectCompression(const char* data, size_t size) {
  if (size >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) return Compression::Gzip;
  if (size >= 4 && std::memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0) return Compression::Zstd;
  return Compression::None;
}

std::string Decompress(Compression kind, const char* data, size_t size, const std::string& path) {
  switch (kind) {
    case Compression::None: return std::string(data, size);
    case Compression::Gzip: return Gunzip(data, size, path);
    case Compression::Zstd: return Unzstd(data, size, path);
  }
  throw InternalError("unknown compression");
}

}  // namespace tessera
