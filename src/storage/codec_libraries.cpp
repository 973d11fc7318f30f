#include "storage/codec_libraries.hpp"

#include <dlfcn.h>

#include <mutex>

namespace tessera::codec_lib {

void* LoadSymbol(const char* lib, const char* const* sonames, const char* symbol, const char* codec) {
  static std::mutex mu;
  std::lock_guard<std::mutex> g(mu);
  void* h = nullptr;
  for (const char* const* s = sonames; *s && !h; s++) h = dlopen(*s, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    throw MissingLibrary(std::string("the input uses the ") + codec + " codec and " + lib +
                         " could not be loaded (install it, e.g. Debian's package of " + lib + ")");
  void* f = dlsym(h, symbol);
  if (!f) throw MissingLibrary(std::string(lib) + " lacks " + symbol + " (needed for the " + codec + " codec)");
  return f;
}

const Zstd& Zstd::Get() {
  static const Zstd api = [] {
    static const char* const kNames[] = {"libzstd.so.1", "libzstd.so", nullptr};
    auto sym = [](const char* name) { return LoadSymbol("libzstd", kNames, name, "ZSTD"); };
    Zstd z;
    z.decompress = reinterpret_cast<decltype(z.decompress)>(sym("ZSTD_decompress"));
    z.is_error = reinterpret_cast<decltype(z.is_error)>(sym("ZSTD_isError"));
    z.error_name = reinterpret_cast<decltype(z.error_name)>(sym("ZSTD_getErrorName"));
    z.create_dstream = reinterpret_cast<decltype(z.create_dstream)>(sym("ZSTD_createDStream"));
    z.free_dstream = reinterpret_cast<decltype(z.free_dstream)>(sym("ZSTD_freeDStream"));
    z.decompress_stream = reinterpret_cast<decltype(z.decompress_stream)>(sym("ZSTD_decompressStream"));
    z.dstream_out_size = reinterpret_cast<decltype(z.dstream_out_size)>(sym("ZSTD_DStreamOutSize"));
    return z;
  }();
  return api;
}

}  // namespace tessera::codec_lib
