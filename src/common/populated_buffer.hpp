// An uninitialised byte buffer for data written once, whole, right after it is made (a
// decoded Parquet column slice, an Arrow export buffer). A large one is mapped with its
// pages populated in one call (MAP_POPULATE) instead of taking a page fault per 4 KiB on
// the first write; a small one comes from the allocator. Aligned to `align` (<= 4096).
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

namespace tessera {

class PopulatedBuffer {
 public:
  static constexpr size_t kMapAtLeast = 256 << 10;

  PopulatedBuffer() = default;
  PopulatedBuffer(const PopulatedBuffer&) = delete;
  PopulatedBuffer& operator=(const PopulatedBuffer&) = delete;
  PopulatedBuffer(PopulatedBuffer&& o) noexcept { *this = std::move(o); }
  PopulatedBuffer& operator=(PopulatedBuffer&& o) noexcept {
    if (this != &o) {
      Release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      mapped_ = std::exchange(o.mapped_, false);
    }
    return *this;
  }
  ~PopulatedBuffer() { Release(); }

  // `bytes` (at least 1) uninitialised bytes; throws std::bad_alloc.
  void Allocate(size_t bytes, size_t align = 64) {
    Release();
    n_ = (bytes + align - 1) / align * align;
    if (n_ == 0) n_ = align;
    if (n_ >= kMapAtLeast) {
      void* m = mmap(nullptr, n_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      if (m != MAP_FAILED) {
        p_ = static_cast<uint8_t*>(m);
        mapped_ = true;
        return;
      }
    }
    p_ = static_cast<uint8_t*>(std::aligned_alloc(align, n_));
    if (!p_) throw std::bad_alloc();
  }
  uint8_t* get() const { return p_; }
  size_t size() const { return n_; }  // rounded up to the alignment

 private:
  void Release() {
    if (mapped_) munmap(p_, n_);
    else std::free(p_);
    p_ = nullptr;
    n_ = 0;
    mapped_ = false;
  }
  uint8_t* p_ = nullptr;
  size_t n_ = 0;
  bool mapped_ = false;
};

}  // namespace tessera
