// Join filters passed sideways: a hash join on one integer key whose probe rows without a
// match produce nothing (inner, semi, right semi, right anti) hands the key set of its
// finished build to the table scan that produces its probe key column (found through the
// filters, projections and probe sides between them by physical_planner.cpp). The scan
// skips row groups whose key statistics miss the build's [min, max] and drops rows whose
// key is NULL, outside that range or, where the range is small enough for a bitmap of
// present keys, absent from it, before reading the other columns (late materialisation).
// The join still matches every row the filter lets through, so the filter only removes
// rows that could not have matched: results do not change.
//
// The build pipeline finishes (PhysicalHashJoin::Finalize fills the filter) before the
// probe pipeline, which holds the scan, starts; a filter that is not ready lets every row
// through.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/vector.hpp"
#include "function/scalar_core.hpp"

namespace tessera {

class JoinKeyFilter {
 public:
  // A bitmap is built for a key range of up to max_bits keys (set by the planner: 32 M,
  // or 8 a row of the probed table up to 1 G: one byte of bitmap per probed row at most);
  // a wider range keeps [min, max] only.
  static constexpr uint64_t kMinMaxBits = 1ull << 25, kMaxMaxBits = 1ull << 30;
  uint64_t max_bits = kMinMaxBits;

  // Called by the build (single-threaded parts) before and after filling.
  void Clear();
  // Sets up an empty filter over the build keys' range [min, max] (min > max: no key).
  void Start(int64_t min, int64_t max);
  bool HasBitmap() const { return !bits_.empty(); }
  uint64_t BitmapWords() const { return bits_.size(); }
  // Marks key k (within [min, max]); thread-safe.
  void Add(int64_t k) {
    const uint64_t o = (uint64_t)k - (uint64_t)min_;
    std::atomic_ref<uint64_t>(bits_[o >> 6]).fetch_or(1ull << (o & 63), std::memory_order_relaxed);
  }
  // After the keys were added: drops a bitmap in which every key of the range is present
  // (the range says as much) and publishes the filter to the scans.
  void Publish();
  bool Ready() const { return ready_.load(std::memory_order_acquire); }

  // Zone maps: whether a row group whose key column lies in [lo, hi] may hold a key.
  bool MayOverlap(int64_t lo, int64_t hi) const { return ops::KeyRangeMeets(min_, max_, lo, hi); }
  // The rows of `keys` (physical I32 or I64) among sel[0..count) (row i where sel is null)
  // that may match, into out (may alias sel); returns how many.
  uint32_t Apply(const Vector& keys, const uint32_t* sel, uint32_t count, uint32_t* out) const {
    return Apply(keys.type().physical(), keys.raw(), keys.validity_or_null(), sel, count, out);
  }
  // The same over keys in physical form at `keys` (I32 or I64), valid where `valid` (one
  // byte a row) is null or non-zero: a scan tests a column chunk's rows where they lie.
  uint32_t Apply(PhysType type, const void* keys, const uint8_t* valid, const uint32_t* sel, uint32_t count,
                 uint32_t* out) const;

  std::string description;  // for EXPLAIN: the join's key condition

 private:
  int64_t min_ = 1, max_ = 0;
  std::vector<uint64_t> bits_;  // bit (key - min) set for a present key; empty: range only
  std::atomic<bool> ready_{false};
};

}  // namespace tessera
