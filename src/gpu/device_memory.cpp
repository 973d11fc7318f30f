#include "gpu/device_memory.hpp"

#include <bit>
#include <cstdio>
#include <map>
#include <mutex>

namespace tessera::gpu {

namespace {

CUcontext CurrentContextOrThrow(const char* what) {
  CUcontext ctx = nullptr;
  TESSERA_CU(cuCtxGetCurrent, &ctx);
  if (!ctx)
    throw InternalError(std::string(what) +
                        ": no current CUDA context on this thread (allocate through GpuContext)");
  return ctx;
}

// Best effort, for destructors: makes ctx current and says whether the driver can be used.
class QuietContext {
 public:
  explicit QuietContext(CUcontext ctx) {
    CudaDriver& d = CudaDriver::Instance();
    if (!d.Available()) return;
    api_ = &d.api();
    if (api_->cuCtxGetCurrent(&prev_) != cu::kSuccess) prev_ = nullptr;
    if (ctx && prev_ != ctx) {
      if (api_->cuCtxSetCurrent(ctx) != cu::kSuccess) {
        api_ = nullptr;
        return;
      }
      switched_ = true;
    }
  }
  ~QuietContext() {
    if (api_ && switched_) api_->cuCtxSetCurrent(prev_);
  }
  const CudaApi* api() const { return api_; }

 private:
  const CudaApi* api_ = nullptr;
  CUcontext prev_ = nullptr;
  bool switched_ = false;
};

}  // namespace

std::string FormatBytes(size_t bytes) {
  char buf[64];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%zu B", bytes);
  } else if (bytes < (size_t(1) << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  } else if (bytes < (size_t(1) << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / double(1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(size_t(1) << 30));
  }
  return buf;
}

// ---------------------------------------------------------------------------------------
// ScopedContext

ScopedContext::ScopedContext(CUcontext ctx) {
  TESSERA_CU(cuCtxGetCurrent, &prev_);
  if (ctx && prev_ != ctx) {
    TESSERA_CU(cuCtxSetCurrent, ctx);
    switched_ = true;
  }
}

ScopedContext::~ScopedContext() {
  if (switched_) CudaDriver::Instance().api().cuCtxSetCurrent(prev_);  // driver is loaded
}

// ---------------------------------------------------------------------------------------
// Pool state, shared by the pool and the buffers it handed out.

namespace detail {
struct PoolState {
  CUcontext ctx = nullptr;
  mutable std::mutex mu;
  bool closed = false;  // the DevicePool is gone: returned blocks are freed
  size_t max_cached = 0;
  std::map<size_t, std::vector<CUdeviceptr>> free_blocks;  // size class -> blocks
  DevicePool::Stats stats;

  // Frees every cached block; mu held. Best effort (runs in destructors too).
  void TrimLocked(bool check) {
    QuietContext qc(ctx);
    const CudaApi* a = qc.api();
    CUresult first_error = cu::kSuccess;
    for (auto& [cls, blocks] : free_blocks) {
      for (CUdeviceptr p : blocks) {
        CUresult r = a ? a->cuMemFree_v2(p) : cu::kErrorDeinitialized;
        if (r != cu::kSuccess && first_error == cu::kSuccess) first_error = r;
        stats.driver_frees++;
        stats.bytes_cached -= cls;
      }
    }
    free_blocks.clear();
    if (check && first_error != cu::kSuccess)
      CheckCu(first_error, "cuMemFree_v2", __FILE__, __LINE__);
  }

  // A buffer gives its block back. Returns the driver's result when the block was freed.
  CUresult Return(CUdeviceptr p, size_t capacity) {
    std::lock_guard<std::mutex> g(mu);
    stats.bytes_in_use -= capacity;
    if (!closed && stats.bytes_cached + capacity <= max_cached) {
      free_blocks[capacity].push_back(p);
      stats.bytes_cached += capacity;
      return cu::kSuccess;
    }
    stats.driver_frees++;
    QuietContext qc(ctx);
    return qc.api() ? qc.api()->cuMemFree_v2(p) : cu::kErrorDeinitialized;
  }
};
}  // namespace detail

// ---------------------------------------------------------------------------------------
// DeviceBuffer

DeviceBuffer DeviceBuffer::Allocate(size_t bytes) {
  DeviceBuffer b;
  if (bytes == 0) return b;
  b.ctx_ = CurrentContextOrThrow("DeviceBuffer::Allocate");
  TESSERA_CU(cuMemAlloc_v2, &b.ptr_, bytes);
  b.size_ = b.capacity_ = bytes;
  return b;
}

DeviceBuffer::~DeviceBuffer() { Release(false); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(o.ptr_), size_(o.size_), capacity_(o.capacity_), ctx_(o.ctx_), pool_(std::move(o.pool_)) {
  o.ptr_ = 0;
  o.size_ = o.capacity_ = 0;
  o.ctx_ = nullptr;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    Release(false);
    ptr_ = o.ptr_;
    size_ = o.size_;
    capacity_ = o.capacity_;
    ctx_ = o.ctx_;
    pool_ = std::move(o.pool_);
    o.ptr_ = 0;
    o.size_ = o.capacity_ = 0;
    o.ctx_ = nullptr;
  }
  return *this;
}

void DeviceBuffer::Reset() { Release(true); }

void DeviceBuffer::Release(bool check) {
  if (ptr_ == 0) return;
  CUdeviceptr p = ptr_;
  size_t cap = capacity_;
  CUcontext ctx = ctx_;
  auto pool = std::move(pool_);
  ptr_ = 0;
  size_ = capacity_ = 0;
  ctx_ = nullptr;
  pool_.reset();
  CUresult r;
  if (pool) {
    r = pool->Return(p, cap);
  } else {
    QuietContext qc(ctx);
    r = qc.api() ? qc.api()->cuMemFree_v2(p) : cu::kErrorDeinitialized;
  }
  if (check) CheckCu(r, "cuMemFree_v2", __FILE__, __LINE__);
}

void DeviceBuffer::CheckRange(size_t bytes, size_t offset, const char* what) const {
  if (ptr_ == 0 && bytes > 0) throw InternalError(std::string(what) + " on an empty DeviceBuffer");
  if (offset > size_ || bytes > size_ - offset)
    throw InternalError(std::string(what) + " out of range: " + std::to_string(bytes) +
                        " bytes at offset " + std::to_string(offset) + " of a " +
                        std::to_string(size_) + "-byte buffer");
}

void DeviceBuffer::CopyFromHost(const void* src, size_t bytes, size_t offset) {
  CheckRange(bytes, offset, "DeviceBuffer::CopyFromHost");
  if (bytes == 0) return;
  ScopedContext sc(ctx_);
  TESSERA_CU(cuMemcpyHtoD_v2, ptr_ + offset, src, bytes);
  // From pageable memory the call returns once the data is staged, before the DMA lands, and
  // non-blocking streams do not wait for the legacy stream: wait for it here.
  TESSERA_CU(cuStreamSynchronize, nullptr);
}

void DeviceBuffer::CopyToHost(void* dst, size_t bytes, size_t offset) const {
  CheckRange(bytes, offset, "DeviceBuffer::CopyToHost");
  if (bytes == 0) return;
  ScopedContext sc(ctx_);
  TESSERA_CU(cuMemcpyDtoH_v2, dst, ptr_ + offset, bytes);
}

void DeviceBuffer::CopyFromHostAsync(const void* src, size_t bytes, CUstream stream,
                                     size_t offset) {
  CheckRange(bytes, offset, "DeviceBuffer::CopyFromHostAsync");
  if (bytes == 0) return;
  ScopedContext sc(ctx_);
  TESSERA_CU(cuMemcpyHtoDAsync_v2, ptr_ + offset, src, bytes, stream);
}

void DeviceBuffer::CopyToHostAsync(void* dst, size_t bytes, CUstream stream,
                                   size_t offset) const {
  CheckRange(bytes, offset, "DeviceBuffer::CopyToHostAsync");
  if (bytes == 0) return;
  ScopedContext sc(ctx_);
  TESSERA_CU(cuMemcpyDtoHAsync_v2, dst, ptr_ + offset, bytes, stream);
}

void DeviceBuffer::Memset(unsigned char value) {
  if (ptr_ == 0) return;
  ScopedContext sc(ctx_);
  TESSERA_CU(cuMemsetD8_v2, ptr_, value, size_);
  TESSERA_CU(cuStreamSynchronize, nullptr);  // memsets are asynchronous to the host
}

void DeviceBuffer::MemsetAsync(unsigned char value, CUstream stream) {
  if (ptr_ == 0) return;
  ScopedContext sc(ctx_);
  TESSERA_CU(cuMemsetD8Async, ptr_, value, size_, stream);
}

// ---------------------------------------------------------------------------------------
// PinnedHostBuffer

PinnedHostBuffer PinnedHostBuffer::Allocate(size_t bytes) {
  PinnedHostBuffer b;
  if (bytes == 0) return b;
  b.ctx_ = CurrentContextOrThrow("PinnedHostBuffer::Allocate");
  TESSERA_CU(cuMemAllocHost_v2, &b.data_, bytes);
  b.size_ = bytes;
  return b;
}

PinnedHostBuffer::~PinnedHostBuffer() { Release(false); }

PinnedHostBuffer::PinnedHostBuffer(PinnedHostBuffer&& o) noexcept
    : data_(o.data_), size_(o.size_), ctx_(o.ctx_) {
  o.data_ = nullptr;
  o.size_ = 0;
  o.ctx_ = nullptr;
}

PinnedHostBuffer& PinnedHostBuffer::operator=(PinnedHostBuffer&& o) noexcept {
  if (this != &o) {
    Release(false);
    data_ = o.data_;
    size_ = o.size_;
    ctx_ = o.ctx_;
    o.data_ = nullptr;
    o.size_ = 0;
    o.ctx_ = nullptr;
  }
  return *this;
}

void PinnedHostBuffer::Reset() { Release(true); }

void PinnedHostBuffer::Release(bool check) {
  if (!data_) return;
  void* p = data_;
  CUcontext ctx = ctx_;
  data_ = nullptr;
  size_ = 0;
  ctx_ = nullptr;
  QuietContext qc(ctx);
  CUresult r = qc.api() ? qc.api()->cuMemFreeHost(p) : cu::kErrorDeinitialized;
  if (check) CheckCu(r, "cuMemFreeHost", __FILE__, __LINE__);
}

// ---------------------------------------------------------------------------------------
// DevicePool

size_t DevicePool::SizeClass(size_t bytes) {
  constexpr size_t kMin = 256;
  if (bytes <= kMin) return kMin;
  if (bytes > (size_t(1) << 62)) throw InternalError("device allocation too large: " + std::to_string(bytes));
  // 2^(k-1) < bytes <= 2^k; four classes per doubling: steps of 2^(k-3).
  int k = std::bit_width(bytes - 1);
  size_t step = size_t(1) << (k - 3);
  return (bytes + step - 1) / step * step;
}

DevicePool::DevicePool(CUcontext ctx, size_t max_cached_bytes)
    : state_(std::make_shared<detail::PoolState>()) {
  if (!ctx) throw InternalError("DevicePool needs a CUDA context");
  state_->ctx = ctx;
  state_->max_cached = max_cached_bytes;
}

DevicePool::~DevicePool() {
  std::lock_guard<std::mutex> g(state_->mu);
  state_->closed = true;
  state_->TrimLocked(false);
}

DeviceBuffer DevicePool::Allocate(size_t bytes) {
  DeviceBuffer b;
  if (bytes == 0) return b;
  size_t cls = SizeClass(bytes);
  detail::PoolState& s = *state_;
  {
    std::lock_guard<std::mutex> g(s.mu);
    s.stats.requests++;
    auto it = s.free_blocks.find(cls);
    if (it != s.free_blocks.end() && !it->second.empty()) {
      b.ptr_ = it->second.back();
      it->second.pop_back();
      s.stats.reuses++;
      s.stats.bytes_cached -= cls;
    }
  }
  if (b.ptr_ == 0) {
    ScopedContext sc(s.ctx);
    CUresult r = CudaDriver::Instance().api().cuMemAlloc_v2(&b.ptr_, cls);
    if (r == cu::kErrorOutOfMemory) {  // give the cache back and try once more
      std::lock_guard<std::mutex> g(s.mu);
      s.TrimLocked(false);
      r = CudaDriver::Instance().api().cuMemAlloc_v2(&b.ptr_, cls);
    }
    if (r != cu::kSuccess) {
      b.ptr_ = 0;
      Stats st = stats();
      CudaDriver& d = CudaDriver::Instance();
      throw CudaError(r, "cuMemAlloc_v2 failed: " + d.ErrorName(r) + " (" + d.ErrorString(r) +
                             ") allocating " + FormatBytes(cls) + " (pool: " +
                             FormatBytes(st.bytes_in_use) + " in use, " +
                             FormatBytes(st.bytes_cached) + " cached)");
    }
    std::lock_guard<std::mutex> g(s.mu);
    s.stats.driver_allocs++;
  }
  {
    std::lock_guard<std::mutex> g(s.mu);
    s.stats.bytes_in_use += cls;
    if (s.stats.bytes_in_use > s.stats.peak_bytes_in_use)
      s.stats.peak_bytes_in_use = s.stats.bytes_in_use;
  }
  b.size_ = bytes;
  b.capacity_ = cls;
  b.ctx_ = s.ctx;
  b.pool_ = state_;
  return b;
}

void DevicePool::Trim() {
  std::lock_guard<std::mutex> g(state_->mu);
  state_->TrimLocked(true);
}

DevicePool::Stats DevicePool::stats() const {
  std::lock_guard<std::mutex> g(state_->mu);
  return state_->stats;
}

void DevicePool::set_max_cached_bytes(size_t bytes) {
  std::lock_guard<std::mutex> g(state_->mu);
  state_->max_cached = bytes;
  if (state_->stats.bytes_cached > bytes) state_->TrimLocked(true);
}

size_t DevicePool::max_cached_bytes() const {
  std::lock_guard<std::mutex> g(state_->mu);
  return state_->max_cached;
}

}  // namespace tessera::gpu
