#pragma once
// Memory for column chunks decoded from a database file (compression/chunk_codec.cpp).
//
// A cold scan decodes every chunk it reads into memory it keeps, thousands of blocks of
// about 512 KiB (131,072 rows of 4 bytes). Taken one by one from malloc, each block was a
// mapping of its own, and its first touch a fault per 4 KiB page while 16 scan threads
// faulted at once. Here they are carved from shared regions of 64 MiB, 2 MiB aligned and
// advised for transparent huge pages (one fault per 2 MiB where the kernel grants them).
// Measured: docs/PERFORMANCE.md ("Cold CPU scans").

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tessera::storage {

// `bytes` of writable memory, 64-byte aligned, not zeroed. It stays while any copy of the
// returned pointer does. When the last copy goes, the pages wholly inside the block go back
// to the system; a region is unmapped once none of its blocks is held and no new block
// will be carved from it. Throws std::bad_alloc.
std::shared_ptr<uint8_t> AllocateDecoded(size_t bytes);

}  // namespace tessera::storage
