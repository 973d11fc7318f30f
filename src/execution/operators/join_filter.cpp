#include "execution/operators/join_filter.hpp"

#include <bit>

namespace tessera {

void JoinKeyFilter::Clear() {
  ready_.store(false, std::memory_order_release);
  min_ = 1;
  max_ = 0;
  std::vector<uint64_t>().swap(bits_);
}

void JoinKeyFilter::Start(int64_t min, int64_t max) {
  Clear();
  min_ = min;
  max_ = max;
  if (min > max) return;
  const uint64_t span = (uint64_t)max - (uint64_t)min;
  if (span < max_bits) bits_.assign((size_t)(span / 64 + 1), 0);
}

void JoinKeyFilter::Publish() {
  if (!bits_.empty()) {
    const uint64_t n = (uint64_t)max_ - (uint64_t)min_ + 1;
    uint64_t present = 0;
    for (uint64_t w : bits_) present += (uint64_t)std::popcount(w);
    if (present == n) std::vector<uint64_t>().swap(bits_);
  }
  ready_.store(true, std::memory_order_release);
}

namespace {

template <class T, bool kBits>
uint32_t ApplyTyped(const T* x, const uint8_t* valid, const uint32_t* sel, uint32_t count, uint32_t* out,
                    int64_t min, int64_t max, const uint64_t* bits) {
  const uint64_t span = (uint64_t)max - (uint64_t)min;
  uint32_t k = 0;
  for (uint32_t j = 0; j < count; j++) {
    const uint32_t r = sel ? sel[j] : j;
    const uint64_t o = (uint64_t)(int64_t)x[r] - (uint64_t)min;
    uint64_t pass = o <= span;  // branch-free: a probe side's rows pass at random
    if constexpr (kBits) {
      const uint64_t b = o & (0 - pass);  // no read outside the bitmap
      pass &= bits[b >> 6] >> (b & 63);
    }
    if (valid) pass &= valid[r] != 0;
    out[k] = r;
    k += (uint32_t)pass;
  }
  return k;
}

}  // namespace

uint32_t JoinKeyFilter::Apply(PhysType type, const void* keys, const uint8_t* valid, const uint32_t* sel,
                              uint32_t count, uint32_t* out) const {
  if (min_ > max_) return 0;
  const bool i32 = type == PhysType::I32;
  const auto* k32 = static_cast<const int32_t*>(keys);
  const auto* k64 = static_cast<const int64_t*>(keys);
  if (bits_.empty())
    return i32 ? ApplyTyped<int32_t, false>(k32, valid, sel, count, out, min_, max_, nullptr)
               : ApplyTyped<int64_t, false>(k64, valid, sel, count, out, min_, max_, nullptr);
  return i32 ? ApplyTyped<int32_t, true>(k32, valid, sel, count, out, min_, max_, bits_.data())
             : ApplyTyped<int64_t, true>(k64, valid, sel, count, out, min_, max_, bits_.data());
}

}  // namespace tessera
