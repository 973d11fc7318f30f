// Host-to-device uploads through pinned staging buffers, several host threads and several
// streams (issue 13's cold path; ../../docs/PERFORMANCE.md "Cold start").
//
// What to upload is a list of items that land one after another in a device buffer: host
// memory (a decoded chunk, a packed buffer) or a producer that writes its bytes itself (an
// encoded chunk decoded straight into the staging buffer, never materialised on the host).
// Memory items are cut into pieces of at most kPieceBytes; a producer's item is one piece.
// Consecutive pieces form windows of at most SlotBytes(), each staged in one of SlotCount()
// pinned buffers (window w in slot w % SlotCount()). All host threads take pieces in order and
// fill them in; the thread that completes a window issues its asynchronous copy on the
// slot's own stream, so the DMA engine copies one window while the threads fill the next.
// A slot is refilled only after its previous window's copy finished. Pageable memory cannot
// be copied asynchronously, hence the staging; one thread filling it reached about
// 6 GB/s, against the 50+ GB/s the PCIe link takes (../../shared/anchors.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "gpu/device_memory.hpp"
#include "gpu/gpu_context.hpp"

namespace tessera::gpu {

// TESSERA_UPLOAD_TRACE=1: uploads print their phases on stderr (measurements; read once).
bool UploadTrace();

struct UploadItem {
  size_t bytes = 0;
  const void* data = nullptr;              // host memory, or
  std::function<void(void* out)> produce;  // writes exactly `bytes` bytes to out (<= SlotBytes())
};

class StagedUploader {
 public:
  // Staging buffers: SlotCount() of SlotBytes() each, 4 of 4 MiB (TESSERA_STAGING_SLOTS and
  // TESSERA_STAGING_MB override them, for measurements). Pinning costs about 2.2 ms a MiB on
  // the H200 host, paid by a process's first upload: 4 x 16 MiB took 33-38 ms of a cold
  // q1.1's upload, 4 x 4 MiB 9 ms, and copied no slower (docs/PERFORMANCE.md).
  static size_t SlotCount();
  static size_t SlotBytes();
  static constexpr size_t kPieceBytes = 1u << 20;

  // Copies the items one after another into dst from offset 0 (dst must hold them all);
  // returns once every byte is on the device. `threads` 0: all hardware threads. Not
  // reentrant: one upload at a time per uploader (the column cache holds its lock).
  void Upload(GpuContext& ctx, const std::vector<UploadItem>& items, DeviceBuffer& dst, unsigned threads = 0);

 private:
  struct Slot {
    PinnedHostBuffer buffer;
    Stream stream;
  };
  std::vector<Slot> slots_;
};

}  // namespace tessera::gpu
