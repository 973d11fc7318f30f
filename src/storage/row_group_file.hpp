// Row-group files (rg-<id>.trg): one immutable file per row group, written once by a
// commit and memory-mapped when the database opens. The layout is in row_group_file.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "storage/catalog.hpp"

namespace tessera::disk {

// What the manifest records about one row group.
struct RowGroupRef {
  std::string file;
  uint32_t count = 0;
  uint64_t size = 0;
  uint32_t dir_crc = 0;
};

struct WrittenFile {
  uint64_t size = 0;
  uint32_t dir_crc = 0;
};

// Writes `rg` to `path` (complete, fsynced), returning its size and directory CRC.
WrittenFile WriteRowGroupFile(const std::string& path, const RowGroup& rg);

// Maps a row-group file and builds its chunks (pointing into the mapping). Throws Corrupt
// (binary_codec.hpp) when the file does not match what the manifest expects.
// `verified`: the file was just written by this process (checksums need no check).
// `decoded`: the row group the file was just written from (its encoded chunks take their
// values from it instead of decoding the file again), or nullptr.
std::shared_ptr<const RowGroup> OpenRowGroupFile(const std::string& dir, const RowGroupRef& ref,
                                                 const TableSchema& schema, bool verified,
                                                 const RowGroup* decoded = nullptr);

// A row group whose file is unusable: the right shape, no statistics, and chunks whose
// verifier throws `msg` so reading the table fails with a clear error (and the rest of
// the database, including DROP TABLE, keeps working).
std::shared_ptr<const RowGroup> BrokenRowGroup(const RowGroupRef& ref, const TableSchema& schema,
                                               const std::string& msg);

}  // namespace tessera::disk
