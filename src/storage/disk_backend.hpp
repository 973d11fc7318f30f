// The on-disk storage backend: a database is a directory holding a manifest (catalog.tsm,
// manifest.hpp) and one immutable file per row group (rg-<id>.trg, row_group_file.hpp).
// The backend (disk_backend.cpp) loads them and commits: see src/storage/README.md for the
// format and the commit protocol.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "storage/catalog.hpp"
#include "storage/crc32c.hpp"  // Crc32c, the checksum of the database files

namespace tessera {

// Opens the database directory `dir` (created if it does not exist; its parent must) and
// takes an exclusive lock on it for the backend's lifetime. Throws UserError(IO) when
// `dir` is not a directory, cannot be created, or is in use by another process.
std::unique_ptr<StorageBackend> OpenDiskBackend(const std::string& dir);

// Version 2 encodes column chunks (storage/compression: bit-packing, dictionary, run-length,
// FSST strings); version 1 databases (every chunk plain) still open, and files this build
// writes into them are version 2. Version 3 adds a distinct-count sketch to each chunk's
// directory entry (distinct_sketch.hpp); older files still open, their chunks without
// sketches until rewritten (ANALYZE rewrites them).
inline constexpr uint32_t kStorageFormatVersion = 3;
inline constexpr uint32_t kOldestStorageFormatVersion = 1;
inline constexpr const char* kManifestFileName = "catalog.tsm";
inline constexpr const char* kLockFileName = "tessera.lock";

// Fault injection for crash-safety tests: when set to k > 0, the k-th crash point reached
// inside Commit throws SimulatedCrash and Commit does no cleanup, as if the process had
// died there. Points: 1 row-group temp files written, 2 row-group files renamed,
// 3 manifest temp file written, 4 manifest renamed, 5 directory synced (before old files
// are deleted), 6 after the first old file was deleted. Resets to 0 once it fires.
namespace storage_testing {
struct SimulatedCrash {
  int point;
};
void SetCommitCrashPoint(int k);
}  // namespace storage_testing

}  // namespace tessera
