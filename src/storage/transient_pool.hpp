#pragma once
// Buffers for column data decoded for one scan and not kept with its table: a Parquet
// file's first read (storage/parquet/parquet_column.cpp) and a database chunk's first read
// (storage/row_group_file.cpp), both streamed rather than loaded (ChunkVerifier::LoadTransient).
//
// Returned here when the chunk's last reader lets go and handed to the next such chunk, so
// a streaming scan decodes into the same few buffers, warm in cache, instead of fresh pages.
// A thread takes back the buffer it returned last when it can (a scan thread lets its last
// row group's buffer go just before it loads the next): that buffer's lines are still in
// this core's cache, where one another core returned would have to be fetched from that
// core first (with 16 scan threads, most recently returned buffers are other threads').
// At most kPoolBytes are held.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tessera {

class TransientPool {
 public:
  static constexpr size_t kPoolBytes = 64u << 20;
  // Buffers from this size up are mapped (and pooled); a fresh one is rounded up to a
  // multiple of it, so that chunks of other widths can reuse it.
  static constexpr size_t kMapAtLeast = 256u << 10;

  static TransientPool& Shared();  // never destroyed: buffers may outlive static destructors

  // A mapped buffer of at least `bytes` (its capacity in *cap), or nullptr when none is free.
  uint8_t* Take(size_t bytes, size_t* cap);
  // Keeps a mapped buffer for reuse; false when the pool is full (the caller unmaps it).
  bool Give(uint8_t* p, size_t cap);

 private:
  struct Free {
    uint8_t* p;
    size_t cap;
    const void* giver;
  };
  std::mutex mu_;
  std::vector<Free> free_;
  size_t held_ = 0;
};

// A buffer of at least `bytes`, 64-byte aligned, for values decoded for one scan: from the
// pool when one is free, else freshly mapped (pages not populated: only a scan thread's
// first chunk makes one); under kMapAtLeast from the heap. It goes back to the pool, or is
// unmapped or freed, when the last copy of the pointer goes. Throws std::bad_alloc.
std::shared_ptr<uint8_t> TakeTransientBuffer(size_t bytes);

}  // namespace tessera
