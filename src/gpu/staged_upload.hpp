// Host-to-device uploads through pinned staging buffers, several host threads and several
// streams (issue 13's cold path; ../../docs/PERFORMANCE.md "Cold start").
//
// The bytes to upload are a list of host ranges (a column's row-group chunks, or one packed
// buffer) that land one after another in a device buffer. They move in pieces of
// kPieceBytes: all host threads take pieces in order and copy them into one of kSlots
// pinned staging buffers (slot = window % kSlots, a window being kSlotBytes of the stream);
// the thread that completes a window issues its asynchronous copy on the slot's own stream,
// so the DMA engine copies one window while the threads fill the next. A slot is refilled
// only after its previous window's copy finished. Pageable memory cannot be copied
// asynchronously, hence the staging; one thread could fill it at about 6 GB/s, against
// the 50+ GB/s the PCIe link takes (../../shared/anchors.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/device_memory.hpp"
#include "gpu/gpu_context.hpp"

namespace tessera::gpu {

struct HostRange {
  const void* data;
  size_t bytes;
};

class StagedUploader {
 public:
  static constexpr size_t kSlots = 4;
  static constexpr size_t kSlotBytes = 16u << 20;
  static constexpr size_t kPieceBytes = 1u << 20;

  // Copies the concatenation of `ranges` into dst from offset 0 (dst must hold them all);
  // returns once every byte is on the device. `threads` 0: all hardware threads. Not
  // reentrant: one upload at a time per uploader (the column cache holds its lock).
  void Upload(GpuContext& ctx, const std::vector<HostRange>& ranges, DeviceBuffer& dst, unsigned threads = 0);

 private:
  struct Slot {
    PinnedHostBuffer buffer;
    Stream stream;
  };
  std::vector<Slot> slots_;
};

}  // namespace tessera::gpu
