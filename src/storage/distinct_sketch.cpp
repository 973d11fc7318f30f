#include "storage/distinct_sketch.hpp"

#include <cmath>
#include <cstring>

namespace tessera {

void DistinctSketch::Merge(const DistinctSketch& o) {
  for (uint32_t i = 0; i < kRegisters; i++)
    if (o.regs_[i] > regs_[i]) regs_[i] = o.regs_[i];
}

bool DistinctSketch::Empty() const {
  for (uint8_t r : regs_)
    if (r) return false;
  return true;
}

double DistinctSketch::Estimate() const {
  const double m = kRegisters;
  double sum = 0;
  uint32_t zeros = 0;
  static const auto kInversePowers = [] {
    std::array<double, 64> t{};
    for (int r = 0; r < 64; r++) t[r] = std::ldexp(1.0, -r);
    return t;
  }();
  for (uint8_t r : regs_) {
    sum += kInversePowers[r & 63];
    zeros += r == 0;
  }
  const double alpha = 0.7213 / (1 + 1.079 / m);
  double e = alpha * m * m / sum;
  // Small range: linear counting over the empty registers. (The hash is 64-bit: no
  // large-range correction.)
  if (e <= 2.5 * m && zeros > 0) e = m * std::log(m / zeros);
  return e;
}

void DistinctSketch::Pack(std::string& out) const {
  size_t at = out.size();
  out.resize(at + kPackedBytes, '\0');
  auto* p = reinterpret_cast<uint8_t*>(&out[at]);
  // Four registers in three bytes.
  for (uint32_t i = 0; i < kRegisters; i += 4) {
    uint32_t w = regs_[i] | (uint32_t)regs_[i + 1] << 6 | (uint32_t)regs_[i + 2] << 12 | (uint32_t)regs_[i + 3] << 18;
    *p++ = (uint8_t)w;
    *p++ = (uint8_t)(w >> 8);
    *p++ = (uint8_t)(w >> 16);
  }
}

bool DistinctSketch::PackedValid(std::string_view in) {
  if (in.size() != kPackedBytes) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  uint32_t over = 0;
  for (uint32_t i = 0; i < kRegisters; i += 4, p += 3) {
    const uint32_t w = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    for (uint32_t k = 0; k < 4; k++) over |= ((w >> (6 * k)) & 63) > 64 - kIndexBits + 1;
  }
  return over == 0;
}

SketchRef::SketchRef(std::shared_ptr<const DistinctSketch> s) : built_(std::move(s)) {}

SketchRef SketchRef::Packed(const uint8_t* packed, std::shared_ptr<const void> keep) {
  SketchRef r;
  r.lazy_ = std::make_shared<Lazy>();
  r.lazy_->packed = packed;
  r.lazy_->keep = std::move(keep);
  return r;
}

const DistinctSketch* SketchRef::get() const {
  if (built_ || !lazy_) return built_.get();
  Lazy& l = *lazy_;
  std::call_once(l.once, [&l] {
    auto s = std::make_shared<DistinctSketch>();
    s->Unpack(std::string_view(reinterpret_cast<const char*>(l.packed), DistinctSketch::kPackedBytes));  // checked when read
    l.sketch = std::move(s);
  });
  return l.sketch.get();
}

bool DistinctSketch::Unpack(std::string_view in) {
  if (!PackedValid(in)) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  for (uint32_t i = 0; i < kRegisters; i += 4, p += 3) {
    uint32_t w = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    for (uint32_t k = 0; k < 4; k++) regs_[i + k] = (uint8_t)((w >> (6 * k)) & 63);
  }
  return true;
}

}  // namespace tessera
