// GPU column cache: the table columns queries touch, resident in device memory.
//
// A column is keyed by (table name, column index) and belongs to one table snapshot
// (TableData is immutable; a write makes a new snapshot, so a stale entry is noticed and
// reloaded). Each entry has two parts:
//   * host information, computed once without touching the GPU: the value domain the code
//     generator plans with (min/max from the row groups' statistics; for VARCHAR a sorted
//     dictionary of the distinct values, whose codes the kernels work on) and whether the
//     GPU can take the column at all (no NULLs, a fixed-width physical type);
//   * the device copy: all row groups concatenated (VARCHAR as 32-bit dictionary codes),
//     uploaded once through pinned staging buffers by all host threads on several streams
//     (staged_upload.hpp) and kept until evicted. The least recently used columns that the
//     running query does not use are evicted when the cache would exceed its budget (3/4
//     of the device memory free when the GPU was opened).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/staged_upload.hpp"
#include "gpu/string_dictionary.hpp"
#include "storage/row_group.hpp"

namespace tessera::gpu {

class GpuContext;

// What the code generator knows of a column's values.
struct ColumnDomain {
  bool has_range = false;
  int64_t lo = 0, hi = 0;  // inclusive; VARCHAR: the code range
  std::shared_ptr<const DictStrings> dict;  // VARCHAR: sorted distinct values
};

struct CachedColumn {
  std::string table;
  std::string name;  // column name
  int column = 0;
  Type type;
  uint64_t rows = 0;
  ColumnDomain domain;
  std::string unsupported;  // why the GPU cannot take this column ("" if it can)
  int device_width = 0;     // bytes per value on the device
  // A VARCHAR column's own bytes instead of dictionary codes (for LIKE over a column
  // without a dictionary: no dictionary is built): `data` holds rows + 1 offsets (u64)
  // and then the string_bytes bytes of all values, one after another.
  bool raw = false;
  uint64_t string_bytes = 0;
  // Lane-packed on the device (storage/compression/lanepack_core.hpp): an integer, date,
  // DECIMAL up to 18 digits or VARCHAR code column whose value range fits in fewer bytes
  // than its width, with TESSERA_GPU_PACK=1 (off by default: slower on the H200). `data` holds whole tiles of the kernels'
  // shape (kBlockThreads x ItemsPerThread()), `packed_bytes_per_value` (0 to 4) bytes a
  // value above `packed_ref` (the column's minimum, or 0 where the values fit as they
  // are); kernels take a thread's fields out of its words (tile library: tsr_lane_load,
  // tsr_lane_unpack).
  bool packed = false;
  int packed_bytes_per_value = 0;
  int64_t packed_ref = 0;
  uint64_t packed_bytes = 0;  // device bytes
  // VARCHAR codes: every row's code, kept from the dictionary's build until the upload.
  std::shared_ptr<const ColumnDictionary> host_codes;
  DeviceBuffer data;        // empty until uploaded
  uint64_t last_use = 0;    // query epoch
  std::weak_ptr<const TableData> snapshot;
  size_t device_bytes() const {
    return raw ? (size_t)(rows + 1) * 8 + string_bytes : packed ? (size_t)packed_bytes : (size_t)rows * device_width;
  }
  size_t plain_bytes() const { return raw ? device_bytes() : (size_t)rows * device_width; }
  // Its device size for people: "12.0 MiB", or "3.0 MiB packed, 1 byte a value (12.0 MiB
  // plain)" (the cache's `.gpu` listing and EXPLAIN).
  std::string SizeText() const;
};

// What the cache has uploaded since the process started (tests, measurements).
struct UploadCounts {
  uint64_t columns = 0;
  uint64_t column_bytes = 0;  // their device bytes
  uint64_t moved_bytes = 0;   // bytes copied over PCIe for them
  uint64_t device_decoded_chunks = 0;  // chunks uploaded as stored and decoded on the device
  uint64_t device_decoded_string_chunks = 0;  // of them, VARCHAR dictionary chunks' codes
};

class ColumnCache {
 public:
  static ColumnCache& Instance();

  // The entry of a column of this snapshot (host information computed on first use);
  // `raw`: a VARCHAR column's bytes (CachedColumn::raw), a separate entry.
  std::shared_ptr<CachedColumn> Get(const std::string& table, const std::shared_ptr<const TableData>& data,
                                    int column, const std::string& name, Type type, bool raw = false);
  // Whether every chunk of a VARCHAR column is stored plain (many distinct values: the
  // storage found no small dictionary), so its GPU dictionary would be costly to build.
  static bool StoredPlain(const TableData& data, int column);
  // Uploads the column unless resident; returns the bytes copied to the device (0 if it
  // was resident; fewer than its device bytes where stored encodings are decoded on the
  // device). Evicts least recently used columns of earlier queries to make room.
  size_t EnsureResident(CachedColumn& c, GpuContext& ctx);
  // Starts a new query epoch: columns used from now on are not evicted until the next one.
  void BeginQuery();
  // One line per column: table.column, rows, bytes, resident or not, last use.
  std::vector<std::string> Describe();
  size_t resident_bytes();
  UploadCounts upload_counts();
  void Clear();

 private:
  std::mutex mu_;
  std::vector<std::shared_ptr<CachedColumn>> entries_;
  uint64_t epoch_ = 1;
  size_t resident_ = 0;
  UploadCounts counts_;
  // A fixed-width column some of whose chunks are stored bit-packed or as a dictionary:
  // uploads every chunk's stream as stored (gpu_stream_core.hpp) into a scratch buffer and
  // decodes them into dst on the device (tsr_decode_streams); *moved: the bytes copied.
  // False (nothing done) when no chunk is so stored or TESSERA_GPU_DEVICE_DECODE=0.
  // `strings`: a VARCHAR column's codes (its dictionary chunks' stored codes, mapped to the
  // column's dictionary on the device; other chunks' codes written by the host).
  bool UploadEncoded(const CachedColumn& c, const TableData& snap, GpuContext& ctx, DeviceBuffer& dst, size_t* moved,
                     const ColumnDictionary* strings = nullptr);
  StagedUploader uploader_;
};

// A column of `rows` values in the lane-packed device layout (CachedColumn::packed) with
// `bytes` bytes a value above `ref`, built on all host threads; get(row, count, out) reads
// values [row, row + count) widened to 64 bits (count <= one tile's rows, called once per
// tile, from several threads).
struct PackedColumn {
  std::unique_ptr<uint8_t[]> bytes;
  size_t size = 0;
};
PackedColumn PackColumn(uint64_t rows, int bytes, int64_t ref, const std::function<void(uint64_t, uint32_t, int64_t*)>& get);
// Rows of one tile of the kernels, and the device bytes of a lane-packed column.
uint64_t TileRows();
uint64_t LanePackedBytes(uint64_t rows, int bytes);

// Device type of a logical type in generated code ("int", "long long", "__int128" for
// DECIMALs above 18 digits, ...); "" when the GPU backend does not handle the type.
std::string DeviceCType(const Type& t);
// Bytes per value of a column held on the device; 0 when the GPU does not store the type
// (a DECIMAL above 18 digits is computed in registers, never stored).
int DeviceWidth(const Type& t);

}  // namespace tessera::gpu
