// CRC-32C (Castagnoli), the checksum of every database file (row groups and manifest).
#pragma once
#include <cstddef>
#include <cstdint>

namespace tessera {

// CRC-32C of n bytes, continuing from `crc` (0 to start a new checksum).
// Uses the SSE4.2 crc32 instruction when the CPU has it.
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);

}  // namespace tessera
