// A distinct-count sketch (HyperLogLog) of one column chunk's non-NULL values, built with
// its min/max statistics and persisted beside them (row_group_file.cpp). Sketches of the
// chunks of a table column merge (register-wise max) into the column's sketch, whose
// estimate is the optimizer's distinct count (optimizer/cardinality.cpp).
//
// 2^10 registers of 6 bits each (768 bytes on disk): the standard error of an estimate is
// 1.04 / sqrt(1024) = 3.25%; below 2.5 * 1024 distinct values linear counting (from the
// empty registers) is used, which is near exact for a few hundred values.
//
// Values are hashed by their value, not their representation: a dictionary-encoded and a
// plain string chunk of the same strings give the same registers, so chunks merge.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "execution/hashing.hpp"

namespace tessera {

class DistinctSketch {
 public:
  static constexpr uint32_t kIndexBits = 10;
  static constexpr uint32_t kRegisters = 1u << kIndexBits;
  static constexpr size_t kPackedBytes = kRegisters * 6 / 8;  // 768

  // Adds one value's 64-bit hash (SketchHash* below).
  void Add(uint64_t h) {
    uint32_t idx = (uint32_t)(h >> (64 - kIndexBits));
    // The rank of the first set bit of the remaining 54 bits (1-based, at most 55: the
    // guard bit keeps it within 6 bits).
    uint64_t rest = (h << kIndexBits) | ((uint64_t)1 << (kIndexBits - 1));
    uint8_t rank = (uint8_t)(__builtin_clzll(rest) + 1);
    if (rank > regs_[idx]) regs_[idx] = rank;
  }
  void Merge(const DistinctSketch& o);
  // Estimated number of distinct values added.
  double Estimate() const;
  bool Empty() const;

  // 6-bit packed registers (kPackedBytes), and back; Unpack returns false when a register
  // is out of range (a corrupt file).
  void Pack(std::string& out) const;
  bool Unpack(std::string_view in);
  // Unpack's check without unpacking: the size, and every register within range.
  static bool PackedValid(std::string_view in);

  const std::array<uint8_t, kRegisters>& registers() const { return regs_; }

 private:
  std::array<uint8_t, kRegisters> regs_{};
};

// A chunk's sketch (ColumnStats::sketch): one built in memory, or one still packed in a
// mapped database file, unpacked on first use (thread-safe). A database's open reads
// every chunk's directory entry; unpacking all of them there (15,800 sketches of 1 KiB at
// SSB SF20) took about a third of `SELECT 1`'s time on the development VM (43-46 ms; 29-32 without).
class SketchRef {
 public:
  SketchRef() = default;
  SketchRef(std::shared_ptr<const DistinctSketch> s);  // NOLINT: a built sketch converts
  // kPackedBytes at `packed` (checked with PackedValid by the caller), kept by `keep`.
  static SketchRef Packed(const uint8_t* packed, std::shared_ptr<const void> keep);
  explicit operator bool() const { return built_ || lazy_; }
  const DistinctSketch& operator*() const { return *get(); }
  const DistinctSketch* operator->() const { return get(); }
  const DistinctSketch* get() const;

 private:
  struct Lazy {
    const uint8_t* packed = nullptr;
    std::shared_ptr<const void> keep;
    std::once_flag once;
    std::shared_ptr<const DistinctSketch> sketch;
  };
  std::shared_ptr<const DistinctSketch> built_;
  std::shared_ptr<Lazy> lazy_;
};

// Hashes of values for the sketch: the engine's hashes (execution/hashing.hpp), with
// integers offset first so that zero (HashMix's fixed point) is not one.
inline uint64_t SketchHashInt(int64_t v) { return HashMix((uint64_t)v + 0x9e3779b97f4a7c15ULL); }
inline uint64_t SketchHashInt128(int128_t v) { return HashCombine(SketchHashInt((int64_t)v), (uint64_t)(v >> 64)); }
inline uint64_t SketchHashDouble(double v) {
  double d = ops::CanonicalDouble(v);  // -0.0 as 0.0, every NaN as one
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return SketchHashInt((int64_t)b);
}
inline uint64_t SketchHashBytes(std::string_view s) { return HashBytes(s.data(), s.size()); }

}  // namespace tessera
