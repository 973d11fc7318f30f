// Decoding one Parquet column chunk (a column of a Parquet row group) into tessera column
// chunks, lazily: the first scan of a slice reads the chunk's bytes once (pread), walks
// its page headers and decodes the dictionary once (all under a mutex, shared by the
// slices), then decodes the data pages that overlap its rows, in parallel with the other
// slices. Nothing is read for a column no query scans or a row group the zone maps skip.
//
// Pages: DATA_PAGE (v1: levels inside the compressed block) and DATA_PAGE_V2 (levels
// uncompressed before it), DICTIONARY_PAGE. Value encodings: PLAIN, PLAIN_DICTIONARY /
// RLE_DICTIONARY, RLE (booleans), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT. Definition levels: RLE/bit-packed hybrid. Flat
// columns only (max repetition level 0, max definition level 0 or 1).
//
// Strings: when every page a slice covers is dictionary-encoded, the slice is a
// StringEncoding::Dictionary chunk whose dictionary is the Parquet dictionary sorted and
// de-duplicated (once per Parquet chunk, shared by its slices); otherwise plain.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/column_chunk.hpp"

namespace tessera::parquet {

// An open Parquet file (read with pread; closed when the last reference goes).
struct ParquetFile {
  std::string path;
  int fd = -1;
  uint64_t size = 0;
  ~ParquetFile();
  // Reads [offset, offset + n); throws DecodeError when the file is shorter.
  void Read(uint64_t offset, uint64_t n, uint8_t* out) const;
};

// How a column's values become tessera values.
struct ColumnPlan {
  std::string name;
  int32_t physical = 0;    // parquet::PhysicalType
  int32_t type_length = 0; // FIXED_LEN_BYTE_ARRAY
  bool optional = false;   // max definition level 1
  bool is_unsigned = false;  // UINT_32 read into BIGINT
  // TIMESTAMP and TIME in milliseconds or nanoseconds: value * time_mul / time_div (floored)
  // are tessera's microseconds.
  int64_t time_mul = 1, time_div = 1;
  Type type;                 // the tessera type
};

struct ColumnChunkLocation {
  uint64_t offset = 0, size = 0;  // bytes of the chunk's pages in the file
  int32_t codec = 0;
  int64_t num_values = 0;
  uint64_t rows = 0;
};

struct PageRef;
struct DecodedDictionary;
struct PreparedChunk;

class ChunkSource {
 public:
  ChunkSource(std::shared_ptr<const ParquetFile> file, std::shared_ptr<const ColumnPlan> plan,
              ColumnChunkLocation loc, uint32_t slices)
      : file_(std::move(file)), plan_(std::move(plan)), loc_(loc), slices_(slices) {}
  ~ChunkSource();
  // Fills `out` (type, count and stats already set) with rows [begin, begin + out.count)
  // of the chunk: data, validity, offsets, bytes, str_enc, dict_size, owner. With `keep`
  // false the values are for one scan (a file table's first read, streamed): the
  // fixed-width buffer comes from a pool of reused buffers and goes back to it when `out`
  // and its readers let go. Throws DecodeError.
  void Load(ColumnChunk& out, uint64_t begin, bool keep);
  const ParquetFile& file() const { return *file_; }
  const ColumnPlan& plan() const { return *plan_; }

 private:
  // Reads the chunk's bytes into raw (loc_.size of them), lists its data pages and decodes
  // its dictionary.
  void Prepare(uint8_t* raw, std::vector<PageRef>& pages, std::shared_ptr<DecodedDictionary>& dict) const;
  std::shared_ptr<const ParquetFile> file_;
  std::shared_ptr<const ColumnPlan> plan_;
  ColumnChunkLocation loc_;
  const uint32_t slices_;
  // Several slices: the chunk's bytes, pages and dictionary, read by the first slice to
  // load and shared; dropped after slices_ loads (each slice loads once to keep, and
  // perhaps once before for a streamed scan: a slice loading after the drop reads again).
  std::mutex mu_;
  std::shared_ptr<PreparedChunk> prepared_;
  uint32_t loads_ = 0;
};

// The ChunkVerifier that loads a slice of a ChunkSource into its ColumnChunk on first use
// (column_chunk.hpp: EnsureVerified); errors become UserError(IO) naming file and column.
class SliceLoader : public ChunkVerifier {
 public:
  SliceLoader(std::shared_ptr<ChunkSource> src, ColumnChunk* target, uint64_t begin, uint32_t row_group)
      : src_(std::move(src)), target_(target), begin_(begin), row_group_(row_group) {}
  void Verify() const override;
  bool Loaded() const override { return loaded_.load(std::memory_order_acquire); }
  // The first scan of a slice streams it (decoded into a pooled buffer, not kept); a later
  // one loads it to keep (Verify), so a file read once costs no kept memory and a file read
  // again is decoded once more and then reused.
  bool LoadTransient(ColumnChunk& view) const override;

 private:
  [[noreturn]] void Rethrow(const std::exception& e) const;
  std::shared_ptr<ChunkSource> src_;
  ColumnChunk* target_;
  uint64_t begin_;
  uint32_t row_group_;
  mutable std::mutex mu_;
  mutable std::atomic<bool> loaded_{false};
  mutable std::atomic<bool> streamed_{false};
};

}  // namespace tessera::parquet
