// A column chunk: the values of one column within one row group, immutable once built.
//
// Layout (all buffers owned through `owner`: heap memory, a memory-mapped file, or the
// buffers of imported Arrow data, capi/arrow_import.hpp):
//   fixed-width types: `data` = count values in physical form (types.hpp)
//   VARCHAR, Plain:      `offsets` = count+1 uint32 offsets into `bytes` (offsets[0] is 0
//                        except in a slice of Arrow utf8 data, whose offsets are shared)
//   VARCHAR, Dictionary: `data` = count uint32 codes; `offsets` = dict_size+1 offsets into
//                        `bytes` holding the distinct strings, sorted ascending
//   `validity` = bitmap (bit i set = row i valid), nullptr when the chunk has no NULLs.
//   The values of NULL rows are zero in chunks built here; in imported Arrow data they are
//   whatever the producer left there: Read and the table scan's gather zero them.
// Statistics: min/max over non-null values (has_stats false when all values are NULL),
// the NULL count and a distinct-count sketch of the non-null values (distinct_sketch.hpp;
// null for chunks of files written before sketches existed, and of Parquet files).
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/types.hpp"
#include "common/value.hpp"
#include "common/vector.hpp"
#include "storage/distinct_sketch.hpp"

namespace tessera {

inline constexpr uint32_t kRowGroupSize = 1u << 17;  // 131072 rows (64 vectors)

enum class StringEncoding : uint8_t { Plain = 0, Dictionary = 1 };

struct ColumnChunk;

struct ColumnStats {
  bool has_stats = false;
  Value min, max;
  uint64_t null_count = 0;
  SketchRef sketch;
};

// Verifies a persisted chunk's checksum on first use (lazy open); throws on corruption.
// A file table's chunk (storage/parquet) uses it as its loader: Verify() decodes the
// chunk and fills in data, validity, offsets, bytes, str_enc, dict_size and owner, which
// must not be read before (type, count and stats are set from the start).
struct ChunkVerifier {
  virtual ~ChunkVerifier() = default;
  virtual void Verify() const = 0;  // must be cheap after the first call and thread-safe
  virtual bool Loaded() const { return true; }  // false until a loader has run
  // True when str_enc and dict_size are set before loading (an encoded chunk of a
  // database file knows them from its directory; a Parquet chunk only once loaded).
  virtual bool LayoutKnown() const { return Loaded(); }
  // A fixed-width chunk not loaded yet: checks it and decodes its values into `out`
  // (count * width bytes) without loading it (the GPU upload's staging buffer), and returns
  // true. False when it cannot (loaded already, or not an encoded chunk of a database file):
  // then the caller reads `data` after EnsureVerified(). Throws like Verify().
  virtual bool DecodeInto(void* /*out*/) const { return false; }
  // Whether DecodeInto would decode now (its statistics' null_count is then exact).
  virtual bool CanDecodeInto() const { return false; }
  // A chunk encoded in a database file: sets its stored blob (compression/chunk_codec.hpp)
  // and returns true, without decoding it (the GPU upload moves a fixed-width chunk's, or a
  // dictionary VARCHAR chunk's codes, as they are and decodes them on the device). With
  // `verify` its checksum is checked first unless loaded (throws like Verify()); without,
  // only its headers may be read. The statistics of such a chunk are exact (its null
  // count). False when it is not such a chunk (then use DecodeInto or EnsureVerified).
  virtual bool EncodedBlob(bool /*verify*/, const uint8_t** /*p*/, size_t* /*len*/) const { return false; }
  // A chunk that may be read once without being loaded to keep (a file table's first
  // scan, streamed): fills `view` (type, count, stats, buffers and the owner that keeps
  // them) and returns true; the buffers go when `view` and the vectors that hold its owner
  // let go. False when it will not (loaded already, or read before): then the caller reads
  // the chunk after EnsureVerified(). Throws like Verify().
  virtual bool LoadTransient(ColumnChunk& /*view*/) const { return false; }
};

struct ColumnChunk {
  Type type;
  uint32_t count = 0;
  const uint8_t* data = nullptr;
  const uint64_t* validity = nullptr;
  StringEncoding str_enc = StringEncoding::Plain;
  const uint32_t* offsets = nullptr;
  const char* bytes = nullptr;
  uint32_t dict_size = 0;
  ColumnStats stats;
  std::shared_ptr<const void> owner;
  std::shared_ptr<const ChunkVerifier> verifier;  // set for chunks read from disk

  // Call before reading the chunk's buffers.
  void EnsureVerified() const {
    if (verifier) verifier->Verify();
  }
  // False while a lazily loaded chunk's buffers, str_enc and dict_size are not there yet
  // (estimates made before a scan read them only when true).
  bool Loaded() const { return !verifier || verifier->Loaded(); }
  // str_enc and dict_size are there (perhaps before the buffers).
  bool LayoutKnown() const { return !verifier || verifier->LayoutKnown(); }
  // See ChunkVerifier::DecodeInto / CanDecodeInto.
  bool DecodeInto(void* out) const { return verifier && verifier->DecodeInto(out); }
  bool CanDecodeInto() const { return verifier && verifier->CanDecodeInto(); }
  bool EncodedBlob(bool verify, const uint8_t** p, size_t* len) const {
    return verifier && verifier->EncodedBlob(verify, p, len);
  }
  bool IsValid(uint32_t i) const { return !validity || ((validity[i >> 6] >> (i & 63)) & 1); }
  std::string_view DictEntry(uint32_t code) const {
    return {bytes + offsets[code], offsets[code + 1] - offsets[code]};
  }
  // The dictionary of a Dictionary chunk (Vector's dictionary form, vector.hpp).
  StringDict Dict() const { return {offsets, bytes, dict_size}; }
  std::string_view GetString(uint32_t i) const {
    if (str_enc == StringEncoding::Dictionary)
      return DictEntry(reinterpret_cast<const uint32_t*>(data)[i]);
    return {bytes + offsets[i], offsets[i + 1] - offsets[i]};
  }
  // Copies rows [start, start+n) into `out` (n <= out.capacity()), starting at out row 0.
  // A Dictionary chunk's rows are expanded to StrRefs and also handed over as codes
  // (Vector's dictionary form, vector.hpp).
  void Read(uint32_t start, uint32_t n, Vector& out) const;
  // Bytes the chunk occupies (data + validity + strings).
  size_t ByteSize() const;
};

// Recomputes stats.min/max and the sketch from the chunk's values (null_count is kept).
void ComputeStats(ColumnChunk& c);
// The distinct-count sketch of a chunk's non-null values (reads its buffers).
std::shared_ptr<const DistinctSketch> BuildSketch(const ColumnChunk& c);

// Builds one column chunk from appended values; chooses the string encoding at Finish.
class ColumnChunkBuilder {
 public:
  explicit ColumnChunkBuilder(Type t) : type_(t) {}
  // Appends rows [0, n) of `v`.
  void Append(const Vector& v, uint32_t n) { Append(v, 0, n); }
  void Append(const Vector& v, uint32_t offset, uint32_t n);
  void AppendValue(const Value& v);  // value already of this builder's type (or NULL)
  uint32_t count() const { return count_; }
  std::shared_ptr<const ColumnChunk> Finish();

 private:
  void AppendValidity(bool valid);  // validity of row count_
  void AppendValidRun(uint32_t n);   // rows [count_, count_ + n) all valid
  void ReserveRowGroup();
  static constexpr uint32_t kBulkRows = 4 * kVectorSize;
  Type type_;
  uint32_t count_ = 0;
  std::vector<uint8_t> fixed_;
  std::vector<uint64_t> validity_;
  bool any_null_ = false;
  uint64_t nulls_ = 0;
  std::vector<uint32_t> offsets_{0};
  std::string bytes_;
};

}  // namespace tessera
