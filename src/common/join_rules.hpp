// Rules of hash-join layout that both backends follow, written once.
#pragma once
#include <cstdint>

namespace tessera {

// A one-key join table is direct-mapped (slot = key - min, no hashing) when the keys' span
// (max - min) is at most 16 slots per build row plus 1 M slots (4 MB of 32-bit slots):
// dimension keys such as 1..N, filtered subsets of them, or yyyymmdd dates. The CPU's
// hash join decides on the build's actual keys, the GPU generator on the column's
// statistics.
inline bool DirectMappedKeys(uint64_t span, uint64_t rows) { return span < 16ull * rows + (1ull << 20); }

}  // namespace tessera
