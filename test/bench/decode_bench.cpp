// Decoding speed of the storage format's bit-packed integer streams (storage/compression/
// int_codec), one thread: a row group's worth (122,880 values) of 32-bit integers at several
// bit widths, encoded once and decoded `reps` times. Prints GB/s of decoded output.
// Usage: decode_bench [REPS]   (built as test/decode_bench; not a test)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "storage/compression/int_codec.hpp"

using namespace tessera;

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 400;
  const uint32_t n = 122880;
  for (int bits : {4, 6, 12, 17, 24, 32}) {
    std::vector<int32_t> v(n), out(n);
    std::mt19937 rng(1);
    for (auto& x : v) x = (int32_t)(rng() & (bits == 32 ? ~0u : (1u << bits) - 1));
    std::string blob;
    codec::EncodeInts(v.data(), n, 4, true, nullptr, blob);
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; r++) codec::DecodeInts((const uint8_t*)blob.data(), blob.size(), n, 4, out.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (out != v) {
      std::fprintf(stderr, "decode_bench: decoded values differ at %d bits\n", bits);
      return 1;
    }
    std::printf("%2d bits (%s): %6.2f GB/s decoded, %.2f ns a value\n", bits,
                codec::IntCodecName(codec::PeekIntCodec((const uint8_t*)blob.data())),
                (double)n * 4 * reps / s / 1e9, s / reps / n * 1e9);
  }
  return 0;
}
