#include "storage/transient_pool.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace tessera {

namespace {
// Tells threads apart (the address of a thread-local: distinct among live threads).
const void* ThreadToken() {
  thread_local char token;
  return &token;
}
}  // namespace

TransientPool& TransientPool::Shared() {
  static TransientPool* pool = new TransientPool();
  return *pool;
}

uint8_t* TransientPool::Take(size_t bytes, size_t* cap) {
  const void* me = ThreadToken();
  std::lock_guard<std::mutex> g(mu_);
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = free_.size(); i-- > 0;) {  // the most recently returned first
      if (free_[i].cap < bytes || (pass == 0 && free_[i].giver != me)) continue;
      uint8_t* p = free_[i].p;
      *cap = free_[i].cap;
      held_ -= *cap;
      free_.erase(free_.begin() + (ptrdiff_t)i);
      return p;
    }
  }
  return nullptr;
}

bool TransientPool::Give(uint8_t* p, size_t cap) {
  const void* me = ThreadToken();
  std::lock_guard<std::mutex> g(mu_);
  if (held_ + cap > kPoolBytes) return false;
  free_.push_back({p, cap, me});
  held_ += cap;
  return true;
}

std::shared_ptr<uint8_t> TakeTransientBuffer(size_t bytes) {
  if (bytes < TransientPool::kMapAtLeast) {  // 64-byte aligned, as the mapped ones (pages)
    void* p = std::aligned_alloc(64, ((bytes ? bytes : 1) + 63) & ~size_t{63});
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [](uint8_t* q) { std::free(q); });
  }
  size_t cap = 0;
  uint8_t* p = TransientPool::Shared().Take(bytes, &cap);
  if (!p) {
    cap = (bytes + (TransientPool::kMapAtLeast - 1)) & ~(TransientPool::kMapAtLeast - 1);
    void* m = ::mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    p = static_cast<uint8_t*>(m);
  }
  return std::shared_ptr<uint8_t>(p, [cap](uint8_t* q) {
    if (!TransientPool::Shared().Give(q, cap)) ::munmap(q, cap);
  });
}

}  // namespace tessera
