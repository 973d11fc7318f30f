// Device and pinned host memory over the driver API: move-only RAII owners, and a pool that
// keeps freed device blocks by size class so that queries do not call cuMemAlloc/cuMemFree
// (each of which costs tens of microseconds and, for cuMemFree, a device synchronization)
// for every intermediate.
//
// Only usable when CudaDriver::Instance().Available(); allocation needs a current context
// (GpuContext makes its own current and owns a DevicePool). Each buffer remembers the context
// it was allocated in and makes it current again to free itself, so buffers may be dropped
// on any thread.
//
// Reuse is immediate, not stream-ordered: give a buffer back (destroy/Reset it) only after
// the GPU work that reads or writes it has finished (stream or event synchronized).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu/cuda_driver.hpp"

namespace tessera::gpu {

namespace detail {
struct PoolState;
}

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // A fresh cuMemAlloc_v2 block of `bytes` in the calling thread's current context (no pool).
  // Zero bytes gives an empty buffer. Throws CudaError (e.g. CUDA_ERROR_OUT_OF_MEMORY).
  static DeviceBuffer Allocate(size_t bytes);

  ~DeviceBuffer();  // frees (or returns to its pool); errors are ignored here
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr ptr() const { return ptr_; }
  size_t size() const { return size_; }          // bytes asked for
  size_t capacity() const { return capacity_; }  // bytes of the block (size class)
  bool empty() const { return ptr_ == 0; }
  CUcontext context() const { return ctx_; }

  // Synchronous copies of `bytes` at byte `offset`, complete on return (also with respect to
  // non-blocking streams); bounds-checked (InternalError).
  void CopyFromHost(const void* src, size_t bytes, size_t offset = 0);
  void CopyToHost(void* dst, size_t bytes, size_t offset = 0) const;
  // Asynchronous copies on `stream`; the host memory must stay valid (and, to overlap, be
  // pinned) until the stream is synchronized.
  void CopyFromHostAsync(const void* src, size_t bytes, CUstream stream, size_t offset = 0);
  void CopyToHostAsync(void* dst, size_t bytes, CUstream stream, size_t offset = 0) const;
  // Sets every byte of size() to `value`; complete on return.
  void Memset(unsigned char value);
  void MemsetAsync(unsigned char value, CUstream stream);

  template <typename T>
  void Upload(const std::vector<T>& v) {
    CopyFromHost(v.data(), v.size() * sizeof(T));
  }
  template <typename T>
  std::vector<T> Download(size_t count) const {
    std::vector<T> v(count);
    CopyToHost(v.data(), count * sizeof(T));
    return v;
  }

  // Frees (or returns to the pool) now; unlike the destructor, driver errors throw.
  void Reset();

 private:
  friend class DevicePool;
  void CheckRange(size_t bytes, size_t offset, const char* what) const;
  void Release(bool check);

  CUdeviceptr ptr_ = 0;
  size_t size_ = 0;
  size_t capacity_ = 0;
  CUcontext ctx_ = nullptr;
  std::shared_ptr<detail::PoolState> pool_;  // null: plain cuMemFree
};

// Page-locked host memory (cuMemAllocHost_v2): needed for copies that overlap with kernels
// and about twice as fast as pageable copies.
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  static PinnedHostBuffer Allocate(size_t bytes);  // needs a current context
  ~PinnedHostBuffer();
  PinnedHostBuffer(PinnedHostBuffer&& other) noexcept;
  PinnedHostBuffer& operator=(PinnedHostBuffer&& other) noexcept;
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

  void* data() const { return data_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t size() const { return size_; }
  bool empty() const { return data_ == nullptr; }
  void Reset();  // frees now; driver errors throw

 private:
  void Release(bool check);
  void* data_ = nullptr;
  size_t size_ = 0;
  CUcontext ctx_ = nullptr;
};

// Caches freed device blocks by size class: sizes round up to one of four classes per power
// of two (at most 25% slack; 256 bytes minimum), and Allocate() takes a cached block of the
// class before asking the driver. At most max_cached_bytes are kept; beyond that freed blocks
// go back to the driver. When the driver is out of memory the cache is emptied and the
// allocation retried once. Thread-safe.
class DevicePool {
 public:
  struct Stats {
    uint64_t requests = 0;       // Allocate() calls with bytes > 0
    uint64_t reuses = 0;         // served from the cache
    uint64_t driver_allocs = 0;  // cuMemAlloc_v2 calls
    uint64_t driver_frees = 0;   // cuMemFree_v2 calls
    size_t bytes_in_use = 0;     // capacity held by live buffers
    size_t peak_bytes_in_use = 0;
    size_t bytes_cached = 0;     // capacity of cached free blocks
  };

  // Blocks are allocated in `ctx` (made current for every driver call).
  DevicePool(CUcontext ctx, size_t max_cached_bytes);
  // Frees the cached blocks. Buffers still alive stay valid and free their block directly when
  // they go (while the context lives).
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  DeviceBuffer Allocate(size_t bytes);
  // Returns every cached block to the driver.
  void Trim();
  Stats stats() const;
  void set_max_cached_bytes(size_t bytes);
  size_t max_cached_bytes() const;

  // The block size used for a request of `bytes` (bytes > 0).
  static size_t SizeClass(size_t bytes);

 private:
  std::shared_ptr<detail::PoolState> state_;
};

// Makes `ctx` current on this thread for the scope and restores the previous one.
class ScopedContext {
 public:
  explicit ScopedContext(CUcontext ctx);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  CUcontext prev_ = nullptr;
  bool switched_ = false;
};

std::string FormatBytes(size_t bytes);  // "1.5 GiB", "320 B"

}  // namespace tessera::gpu
