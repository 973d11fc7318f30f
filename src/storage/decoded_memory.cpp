#include "storage/decoded_memory.hpp"

#include <sys/mman.h>

#include <mutex>
#include <new>

namespace tessera::storage {

namespace {

constexpr size_t kPage = 4096;
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kRegionSize = size_t{64} << 20;
// A block larger than this gets a region of its own (less space left unused at a region's end).
constexpr size_t kOwnRegionAbove = kRegionSize / 8;

struct Region {
  uint8_t* base = nullptr;  // 2 MiB aligned
  uint8_t* map = nullptr;   // what mmap returned
  size_t map_size = 0;
  size_t size = 0;
  explicit Region(size_t bytes) {
    size = (bytes + kHugePage - 1) & ~(kHugePage - 1);
    map_size = size + kHugePage;  // room to align the base
    void* m = ::mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    map = static_cast<uint8_t*>(m);
    base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(map) + kHugePage - 1) & ~(uintptr_t)(kHugePage - 1));
#ifdef MADV_HUGEPAGE
    ::madvise(base, size, MADV_HUGEPAGE);  // advice only: small pages where it is not granted
#endif
  }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region() { ::munmap(map, map_size); }
};

struct Carver {
  std::mutex mu;
  std::shared_ptr<Region> current;
  size_t used = 0;
};

Carver& TheCarver() {
  static Carver* c = new Carver();  // never destroyed: blocks may outlive static destructors
  return *c;
}

}  // namespace

std::shared_ptr<uint8_t> AllocateDecoded(size_t bytes) {
  bytes = (bytes + 63) & ~size_t{63};
  if (bytes == 0) bytes = 64;
  if (bytes > kOwnRegionAbove) {
    auto r = std::make_shared<Region>(bytes);
    return std::shared_ptr<uint8_t>(r, r->base);
  }
  Carver& c = TheCarver();
  std::lock_guard<std::mutex> g(c.mu);
  if (!c.current || c.used + bytes > c.current->size) {
    c.current = std::make_shared<Region>(kRegionSize);
    c.used = 0;
  }
  uint8_t* p = c.current->base + c.used;
  c.used += bytes;
  // A block let go returns the pages wholly inside it to the system at once (a region is
  // unmapped only when all its blocks are gone: without this, one chunk still held would
  // keep the memory of a region's dropped chunks).
  return std::shared_ptr<uint8_t>(p, [region = c.current, bytes](uint8_t* q) {
    const uintptr_t lo = (reinterpret_cast<uintptr_t>(q) + kPage - 1) & ~(uintptr_t)(kPage - 1);
    const uintptr_t hi = (reinterpret_cast<uintptr_t>(q) + bytes) & ~(uintptr_t)(kPage - 1);
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
  });
}

}  // namespace tessera::storage
