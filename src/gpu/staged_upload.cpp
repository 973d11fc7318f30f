#include "gpu/staged_upload.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>

#include "common/error.hpp"
#include "common/parallel.hpp"

namespace tessera::gpu {

void StagedUploader::Upload(GpuContext& ctx, const std::vector<HostRange>& ranges, DeviceBuffer& dst,
                            unsigned threads) {
  // Where each range starts in the concatenated stream.
  std::vector<size_t> start(ranges.size() + 1, 0);
  for (size_t r = 0; r < ranges.size(); r++) start[r + 1] = start[r] + ranges[r].bytes;
  const size_t total = start.back();
  if (total == 0) return;
  if (total > dst.size()) throw InternalError("StagedUploader: destination smaller than the data");
  if (slots_.empty()) {
    for (size_t s = 0; s < kSlots; s++) slots_.push_back({ctx.AllocatePinned(kSlotBytes), ctx.CreateStream()});
  }
  const size_t windows = (total + kSlotBytes - 1) / kSlotBytes;
  const size_t pieces_per_window = kSlotBytes / kPieceBytes;
  const size_t pieces = (total + kPieceBytes - 1) / kPieceBytes;
  // Per window: pieces still to be copied into its slot; per slot: the windows whose copy
  // has been issued (the slot may take window w once window w - kSlots was issued and its
  // stream has finished it).
  std::vector<std::atomic<size_t>> left(windows);
  for (size_t w = 0; w < windows; w++)
    left[w] = std::min(pieces_per_window, pieces - w * pieces_per_window);
  std::vector<size_t> issued(kSlots, 0);  // windows issued per slot, guarded by mu
  std::vector<size_t> freed(kSlots, 0);   // windows whose copy is known finished, guarded by mu
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  bool failed = false;  // guarded by mu: a thread threw, the waiting ones stop
  if (threads == 0) threads = HardwareThreads();
  threads = (unsigned)std::min<size_t>(threads, pieces);
  auto work = [&] {
    ctx.MakeCurrent();
    for (size_t p; (p = next.fetch_add(1)) < pieces;) {
      const size_t w = p / pieces_per_window, s = w % kSlots, round = w / kSlots;
      Slot& slot = slots_[s];
      if (round > 0) {
        // The slot's previous window must have been issued and copied.
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return issued[s] >= round || failed; });
        if (failed) return;
        if (freed[s] < round) {
          lock.unlock();
          slot.stream.Synchronize();
          lock.lock();
          freed[s] = std::max(freed[s], round);
        }
      }
      // Copy bytes [lo, hi) of the stream into the slot.
      const size_t lo = p * kPieceBytes, hi = std::min(total, lo + kPieceBytes);
      uint8_t* out = slot.buffer.as<uint8_t>() + (lo - w * kSlotBytes);
      size_t r = (size_t)(std::upper_bound(start.begin(), start.end(), lo) - start.begin()) - 1;
      for (size_t at = lo; at < hi; r++) {
        const size_t take = std::min(hi, start[r + 1]) - at;
        if (take) std::memcpy(out + (at - lo), static_cast<const uint8_t*>(ranges[r].data) + (at - start[r]), take);
        at += take;
      }
      if (left[w].fetch_sub(1) == 1) {
        // The window is complete: copy it on the slot's stream.
        const size_t wlo = w * kSlotBytes, whi = std::min(total, wlo + kSlotBytes);
        dst.CopyFromHostAsync(slot.buffer.data(), whi - wlo, slot.stream.get(), wlo);
        std::lock_guard<std::mutex> lock(mu);
        issued[s] = round + 1;
        cv.notify_all();
      }
    }
  };
  std::exception_ptr error;
  try {
    ParallelFor(threads, threads, [&](uint64_t, unsigned) {
      try {
        work();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        failed = true;
        cv.notify_all();
        throw;
      }
    });
  } catch (...) {
    error = std::current_exception();
  }
  // The staging buffers are reused: wait for every copy issued, also after a failure.
  for (auto& slot : slots_) slot.stream.Synchronize();
  if (error) std::rethrow_exception(error);
}

}  // namespace tessera::gpu
