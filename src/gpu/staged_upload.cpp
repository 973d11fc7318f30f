#include "gpu/staged_upload.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>

#include "common/error.hpp"
#include "common/parallel.hpp"

namespace tessera::gpu {

namespace {
struct Piece {
  const UploadItem* item;
  size_t from;   // first byte of the item in this piece (memory items)
  size_t bytes;
  size_t window;
  size_t offset;  // in the window
};
}  // namespace

namespace {
size_t EnvSize(const char* name, size_t dflt, size_t lo, size_t hi) {
  const char* e = std::getenv(name);
  if (!e || !*e) return dflt;
  const long long v = std::atoll(e);
  return v < (long long)lo ? lo : v > (long long)hi ? hi : (size_t)v;
}
}  // namespace

bool UploadTrace() {
  static const bool on = [] {
    const char* e = std::getenv("TESSERA_UPLOAD_TRACE");
    return e && std::string(e) == "1";
  }();
  return on;
}

size_t StagedUploader::SlotCount() {
  static const size_t n = EnvSize("TESSERA_STAGING_SLOTS", 4, 2, 64);
  return n;
}

size_t StagedUploader::SlotBytes() {
  static const size_t b = EnvSize("TESSERA_STAGING_MB", 4, 1, 1024) << 20;
  return b;
}

void StagedUploader::Upload(GpuContext& ctx, const std::vector<UploadItem>& items, DeviceBuffer& dst,
                            unsigned threads) {
  // The pieces, and the windows they fall into: [window_start[w], window_start[w + 1]) of
  // the device buffer.
  std::vector<Piece> pieces;
  std::vector<size_t> window_start{0};
  size_t total = 0, in_window = 0;
  auto add = [&](const UploadItem* item, size_t from, size_t bytes) {
    if (in_window + bytes > SlotBytes()) {
      window_start.push_back(total);
      in_window = 0;
    }
    pieces.push_back({item, from, bytes, window_start.size() - 1, in_window});
    in_window += bytes;
    total += bytes;
  };
  for (const UploadItem& item : items) {
    if (item.bytes == 0) continue;
    if (item.data) {
      for (size_t from = 0; from < item.bytes; from += kPieceBytes) add(&item, from, std::min(kPieceBytes, item.bytes - from));
    } else {
      if (item.bytes > SlotBytes()) throw InternalError("StagedUploader: a produced item above the staging size");
      add(&item, 0, item.bytes);
    }
  }
  if (total == 0) return;
  window_start.push_back(total);
  if (total > dst.size()) throw InternalError("StagedUploader: destination smaller than the data");
  if (slots_.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t s = 0; s < SlotCount(); s++) slots_.push_back({ctx.AllocatePinned(SlotBytes()), ctx.CreateStream()});
    if (UploadTrace())
      std::fprintf(stderr, "upload staging: %zu x %zu MB pinned in %.2f ms\n", SlotCount(), SlotBytes() >> 20,
                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const size_t windows = window_start.size() - 1;
  // Per window: pieces still to be filled in; per slot: the windows whose copy has been
  // issued (the slot may take window w once window w - SlotCount() was issued and its stream
  // has finished it).
  std::vector<std::atomic<size_t>> left(windows);
  for (auto& l : left) l = 0;
  for (const Piece& p : pieces) left[p.window]++;
  std::vector<size_t> issued(SlotCount(), 0), freed(SlotCount(), 0);  // guarded by mu
  bool failed = false;                                       // guarded by mu: a thread threw
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  auto work = [&] {
    ctx.MakeCurrent();
    for (size_t i; (i = next.fetch_add(1)) < pieces.size();) {
      const Piece& p = pieces[i];
      const size_t s = p.window % SlotCount(), round = p.window / SlotCount();
      Slot& slot = slots_[s];
      if (round > 0) {
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
      uint8_t* out = slot.buffer.as<uint8_t>() + p.offset;
      if (p.item->data) std::memcpy(out, static_cast<const uint8_t*>(p.item->data) + p.from, p.bytes);
      else p.item->produce(out);
      if (left[p.window].fetch_sub(1) == 1) {
        // The window is complete: copy it on the slot's stream.
        const size_t lo = window_start[p.window], hi = window_start[p.window + 1];
        dst.CopyFromHostAsync(slot.buffer.data(), hi - lo, slot.stream.get(), lo);
        std::lock_guard<std::mutex> lock(mu);
        issued[s] = round + 1;
        cv.notify_all();
      }
    }
  };
  if (threads == 0) threads = HardwareThreads();
  threads = (unsigned)std::min<size_t>(threads, pieces.size());
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
