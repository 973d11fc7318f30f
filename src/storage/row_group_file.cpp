#include "storage/row_group_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <mutex>

#include "storage/binary_codec.hpp"
#include "storage/compression/chunk_codec.hpp"
#include "storage/compression/int_codec.hpp"
#include "storage/crc32c.hpp"
#include "storage/disk_backend.hpp"
#include "storage/disk_files.hpp"

namespace tessera::disk {

namespace {

// Row-group file.
//
//   [0, 64)       header: magic "TESSRGF\0", u32 version, u32 column count, u64 row count,
//                 u64 file size, u64 directory offset, u64 directory size,
//                 u32 directory CRC, zero padding, u32 header CRC at byte 60
//   [64, D)       column buffers, each starting at a multiple of 64
//   [D, D+size)   directory: per column its type, string encoding, validity flag, stats
//                 flag, layout (version 2: 0 plain, 1 encoded; version 1: always 0),
//                 counts, buffer extents, chunk CRC (over its buffers) and min/max
//                 statistics; version 3: then a sketch flag and, when set, the chunk's
//                 distinct-count sketch (768 bytes, distinct_sketch.hpp)
// An encoded chunk's values are one blob in its data buffer (compression/chunk_codec.hpp),
// its validity bitmap a plain buffer as before, its offsets and bytes buffers empty.

constexpr char kRowGroupMagic[8] = {'T', 'E', 'S', 'S', 'R', 'G', 'F', '\0'};
constexpr size_t kHeaderSize = 64;
constexpr size_t kAlign = 64;
enum Buffer { kData = 0, kValidity = 1, kOffsets = 2, kBytes = 3, kNumBuffers = 4 };
const char* const kBufferNames[kNumBuffers] = {"data", "validity", "offsets", "bytes"};

struct ChunkBuffers {
  const void* ptr[kNumBuffers] = {};
  uint64_t len[kNumBuffers] = {};
};

// The buffers a chunk consists of, with their exact lengths.
ChunkBuffers BuffersOf(const ColumnChunk& c) {
  ChunkBuffers b;
  if (c.validity) {
    b.ptr[kValidity] = c.validity;
    b.len[kValidity] = (uint64_t)((c.count + 63) / 64) * 8;
  }
  if (c.type.physical() == PhysType::Str) {
    uint32_t n = c.str_enc == StringEncoding::Dictionary ? c.dict_size : c.count;
    if (c.str_enc == StringEncoding::Dictionary) {
      b.ptr[kData] = c.data;
      b.len[kData] = (uint64_t)c.count * 4;
    }
    b.ptr[kOffsets] = c.offsets;
    b.len[kOffsets] = (uint64_t)(n + 1) * 4;
    b.ptr[kBytes] = c.bytes;
    b.len[kBytes] = c.offsets ? c.offsets[n] : 0;
  } else {
    b.ptr[kData] = c.data;
    b.len[kData] = (uint64_t)c.count * (uint64_t)c.type.width();
  }
  for (int i = 0; i < kNumBuffers; i++)
    if (!b.ptr[i]) b.len[i] = 0;
  return b;
}

uint32_t ChunkCrc(const ChunkBuffers& b) {
  uint32_t crc = 0;
  for (int i = 0; i < kNumBuffers; i++)
    if (b.len[i]) crc = Crc32c(b.ptr[i], b.len[i], crc);
  return crc;
}

uint64_t AlignUp(uint64_t v) { return (v + kAlign - 1) & ~(uint64_t)(kAlign - 1); }

// Runs Check() on the first read, once (thread-safe): its error, if any, is thrown then and
// on every later read.
class CheckedOnce : public ChunkVerifier {
 public:
  explicit CheckedOnce(bool done) : state_(done ? kOk : kUnchecked) {}
  void Verify() const override {
    if (Done()) return;
    std::lock_guard<std::mutex> g(mu_);
    if (state_.load(std::memory_order_relaxed) == kUnchecked) {
      error_ = Check();
      state_.store(error_.empty() ? kOk : kBad, std::memory_order_release);
    }
    if (state_.load(std::memory_order_relaxed) == kBad) throw UserError(ErrorKind::IO, error_);
  }

 protected:
  bool Done() const { return state_.load(std::memory_order_acquire) == kOk; }
  virtual std::string Check() const = 0;  // "" when the chunk is fine

 private:
  enum State { kUnchecked, kOk, kBad };
  mutable std::mutex mu_;
  mutable std::atomic<int> state_;
  mutable std::string error_;
};

// Verifies a mapped chunk's checksum (and the consistency of its string offsets and
// dictionary codes) the first time it is read.
class LazyChunkVerifier final : public CheckedOnce {
 public:
  LazyChunkVerifier(std::shared_ptr<const Mapping> map, const ColumnChunk& c, uint32_t crc,
                    std::string where, bool verified)
      : CheckedOnce(verified), map_(std::move(map)), bufs_(BuffersOf(c)), crc_(crc), where_(std::move(where)),
        phys_(c.type.physical()), enc_(c.str_enc), count_(c.count), dict_size_(c.dict_size) {}

 private:
  std::string Check() const override {
    if (ChunkCrc(bufs_) != crc_)
      return "database file " + where_ + " is corrupt (checksum mismatch)";
    if (phys_ == PhysType::Str) {
      uint32_t n = enc_ == StringEncoding::Dictionary ? dict_size_ : count_;
      const uint32_t* o = static_cast<const uint32_t*>(bufs_.ptr[kOffsets]);
      for (uint32_t i = 0; i < n; i++)
        if (o[i] > o[i + 1]) return "database file " + where_ + " is corrupt (bad string offsets)";
      if (o[n] > bufs_.len[kBytes])
        return "database file " + where_ + " is corrupt (bad string offsets)";
      if (enc_ == StringEncoding::Dictionary) {
        const uint32_t* codes = static_cast<const uint32_t*>(bufs_.ptr[kData]);
        for (uint32_t i = 0; i < count_; i++)
          if (codes[i] >= dict_size_)
            return "database file " + where_ + " is corrupt (bad dictionary code)";
      }
    }
    return {};
  }
  std::shared_ptr<const Mapping> map_;
  ChunkBuffers bufs_;
  uint32_t crc_;
  std::string where_;
  PhysType phys_;
  StringEncoding enc_;
  uint32_t count_, dict_size_;
};

// An encoded chunk (format version 2, layout 1): when loaded, its checksum is checked
// (unless the file was just written) and its blob decoded into memory kept with `target`,
// the chunk that owns this loader (compression/chunk_codec.hpp); a scan's first read of it
// streams instead (LoadTransient).
class EncodedChunkLoader final : public CheckedOnce {
 public:
  EncodedChunkLoader(ColumnChunk* target, std::shared_ptr<const Mapping> map, const ChunkBuffers& bufs, uint32_t crc,
                     std::string where, bool verified)
      : CheckedOnce(false), target_(target), map_(std::move(map)), bufs_(bufs), crc_(crc), where_(std::move(where)),
        verified_(verified) {}
  bool Loaded() const override { return Done(); }
  bool LayoutKnown() const override { return true; }
  bool CanDecodeInto() const override { return !Done() && target_->type.physical() != PhysType::Str; }
  bool DecodeInto(void* out) const override {
    if (!CanDecodeInto()) return false;
    std::string error = Decode([&](const uint8_t* p, size_t len) { codec::DecodeFixedInto(p, len, *target_, out); });
    if (!error.empty()) throw UserError(ErrorKind::IO, error);
    return true;
  }
  // A chunk's first read streams: it is decoded into buffers of the TransientPool that go
  // back when the scan moves on, and loaded to keep on its next read (the rule of a Parquet
  // file's first read). A cold scan then writes no fresh memory: at SSB SF20 the kept
  // columns of q1.1 are 1.9 GB of new pages.
  bool LoadTransient(ColumnChunk& view) const override {
    if (Done() || streamed_.exchange(true, std::memory_order_acq_rel)) return false;
    // type, count, validity, stats, str_enc and dict_size were set before this loader and
    // are not changed by loading.
    view = ColumnChunk{};
    view.type = target_->type;
    view.count = target_->count;
    view.stats = target_->stats;
    view.validity = target_->validity;
    view.str_enc = target_->str_enc;
    view.dict_size = target_->dict_size;
    view.owner = map_;  // kept by the decoded buffers (the validity bitmap is in the mapping)
    std::string error =
        Decode([&](const uint8_t* p, size_t len) { codec::DecodeChunk(p, len, view, codec::ChunkMemory::Transient); });
    if (!error.empty()) throw UserError(ErrorKind::IO, error);
    return true;
  }
  // (The blob stays mapped after the chunk was loaded: its validity bitmap is read there.)
  bool EncodedBlob(bool verify, const uint8_t** p, size_t* len) const override {
    if (verify && !verified_ && !Done() && ChunkCrc(bufs_) != crc_)
      throw UserError(ErrorKind::IO, "database file " + where_ + " is corrupt (checksum mismatch)");
    *p = static_cast<const uint8_t*>(bufs_.ptr[kData]);
    *len = bufs_.len[kData];
    return true;
  }

 private:
  std::string Check() const override {
    return Decode([&](const uint8_t* p, size_t len) { codec::DecodeChunk(p, len, *target_); });
  }
  // Checks the blob's checksum and runs `decode` over it; the error text, or "".
  template <class F>
  std::string Decode(F decode) const {
    if (!verified_ && ChunkCrc(bufs_) != crc_)
      return "database file " + where_ + " is corrupt (checksum mismatch)";
    try {
      decode(static_cast<const uint8_t*>(bufs_.ptr[kData]), bufs_.len[kData]);
    } catch (const codec::DecodeError& e) {
      return "database file " + where_ + " is corrupt (" + e.what() + ")";
    }
    return {};
  }
  ColumnChunk* target_;
  std::shared_ptr<const Mapping> map_;  // holds the blob and the validity bitmap
  ChunkBuffers bufs_;
  uint32_t crc_;
  std::string where_;
  bool verified_;
  mutable std::atomic<bool> streamed_{false};
};

// Stands in for a chunk whose file could not be opened: reading it always throws.
class FailedChunkVerifier final : public ChunkVerifier {
 public:
  explicit FailedChunkVerifier(std::string msg) : msg_(std::move(msg)) {}
  void Verify() const override { throw UserError(ErrorKind::IO, msg_); }

 private:
  std::string msg_;
};

}  // namespace

// Writes `rg` to `path` (complete, fsynced), returning its size and directory CRC.
WrittenFile WriteRowGroupFile(const std::string& path, const RowGroup& rg) {
  const size_t ncols = rg.columns.size();
  std::vector<ChunkBuffers> bufs(ncols);
  std::vector<std::string> blobs(ncols);  // encoded chunks
  std::vector<uint64_t> offs(ncols * kNumBuffers);
  uint64_t pos = kHeaderSize;
  BufWriter dir;
  for (size_t c = 0; c < ncols; c++) {
    const ColumnChunk& ch = *rg.columns[c];
    TESSERA_ASSERT(ch.count == rg.count, "row group column has the wrong row count");
    ch.EnsureVerified();
    bufs[c] = BuffersOf(ch);
    const bool encoded = codec::EncodeChunk(ch, blobs[c]);
    if (encoded) {
      ChunkBuffers b;
      b.ptr[kValidity] = bufs[c].ptr[kValidity];
      b.len[kValidity] = bufs[c].len[kValidity];
      b.ptr[kData] = blobs[c].data();
      b.len[kData] = blobs[c].size();
      bufs[c] = b;
    }
    WriteType(dir, ch.type);
    bool str = ch.type.physical() == PhysType::Str;
    dir.U8(str ? (uint8_t)ch.str_enc : 0);
    dir.U8(ch.validity ? 1 : 0);
    dir.U8(ch.stats.has_stats ? 1 : 0);
    dir.U8(encoded ? 1 : 0);
    dir.U32(ch.count);
    dir.U32(str && ch.str_enc == StringEncoding::Dictionary ? ch.dict_size : 0);
    dir.U64(ch.stats.null_count);
    for (int b = 0; b < kNumBuffers; b++) {
      offs[c * kNumBuffers + b] = pos;
      dir.U64(pos);
      dir.U64(bufs[c].len[b]);
      pos = AlignUp(pos + bufs[c].len[b]);
    }
    dir.U32(ChunkCrc(bufs[c]));
    if (ch.stats.has_stats) {
      WriteStatValue(dir, ch.type, ch.stats.min);
      WriteStatValue(dir, ch.type, ch.stats.max);
    }
    dir.U8(ch.stats.sketch ? 1 : 0);
    if (ch.stats.sketch) ch.stats.sketch->Pack(dir.buf);
  }
  const uint64_t dir_offset = pos;
  const uint64_t file_size = dir_offset + dir.buf.size();
  const uint32_t dir_crc = Crc32c(dir.buf.data(), dir.buf.size());

  BufWriter hdr;
  hdr.Raw(kRowGroupMagic, 8);
  hdr.U32(kStorageFormatVersion);
  hdr.U32((uint32_t)ncols);
  hdr.U64(rg.count);
  hdr.U64(file_size);
  hdr.U64(dir_offset);
  hdr.U64(dir.buf.size());
  hdr.U32(dir_crc);
  hdr.buf.resize(60, '\0');
  hdr.U32(Crc32c(hdr.buf.data(), 60));

  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) ThrowErrno("cannot create", path);
  // Buffers go out in order; small pieces are staged, large ones written directly.
  std::string stage = std::move(hdr.buf);
  uint64_t written = 0;
  auto flush = [&] {
    WriteAll(fd.get(), stage.data(), stage.size(), path);
    written += stage.size();
    stage.clear();
  };
  for (size_t c = 0; c < ncols; c++) {
    for (int b = 0; b < kNumBuffers; b++) {
      uint64_t at = offs[c * kNumBuffers + b];
      uint64_t cur = written + stage.size();
      stage.append(at - cur, '\0');
      uint64_t len = bufs[c].len[b];
      if (!len) continue;
      if (len < 64 * 1024) {
        stage.append(static_cast<const char*>(bufs[c].ptr[b]), len);
      } else {
        flush();
        WriteAll(fd.get(), bufs[c].ptr[b], len, path);
        written += len;
      }
    }
  }
  stage.append(dir_offset - (written + stage.size()), '\0');
  stage.append(dir.buf);
  flush();
  TESSERA_ASSERT(written == file_size, "row group file size mismatch");
  SyncFile(fd.get(), path);
  fd.CloseChecked(path);
  return {file_size, dir_crc};
}

std::shared_ptr<const RowGroup> OpenRowGroupFile(const std::string& dir, const RowGroupRef& ref,
                                                 const TableSchema& schema, bool verified,
                                                 const RowGroup* decoded) {
  const std::string path = JoinPath(dir, ref.file);
  auto fail = [&](const std::string& why) { throw Corrupt{"database file " + path + " " + why}; };
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail(std::string("cannot be opened: ") + ErrnoText(errno));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) fail(std::string("cannot be read: ") + ErrnoText(errno));
  if ((uint64_t)st.st_size != ref.size)
    fail("is corrupt (size " + std::to_string(st.st_size) + ", expected " +
         std::to_string(ref.size) + ")");
  if (ref.size < kHeaderSize) fail("is corrupt (truncated header)");
  auto map = std::make_shared<Mapping>();
  void* addr = ::mmap(nullptr, ref.size, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (addr == MAP_FAILED) fail(std::string("cannot be mapped: ") + ErrnoText(errno));
  map->base = static_cast<const uint8_t*>(addr);
  map->size = ref.size;
  fd.Close();

  const uint8_t* base = map->base;
  if (std::memcmp(base, kRowGroupMagic, 8) != 0) fail("is not a tessera row-group file (bad magic)");
  uint32_t hcrc;
  std::memcpy(&hcrc, base + 60, 4);
  if (Crc32c(base, 60) != hcrc) fail("is corrupt (header checksum mismatch)");
  BufReader h(base + 8, 52, "header of " + path);
  uint32_t version = h.U32();
  if (version < kOldestStorageFormatVersion || version > kStorageFormatVersion)
    fail("has unsupported format version " + std::to_string(version) +
         " (this build supports versions " + std::to_string(kOldestStorageFormatVersion) + " to " +
         std::to_string(kStorageFormatVersion) + ")");
  uint32_t ncols = h.U32();
  uint64_t rows = h.U64();
  uint64_t file_size = h.U64();
  uint64_t dir_offset = h.U64();
  uint64_t dir_size = h.U64();
  uint32_t dir_crc = h.U32();
  if (file_size != ref.size || dir_offset < kHeaderSize || dir_offset > file_size ||
      dir_size != file_size - dir_offset)
    fail("is corrupt (bad header)");
  if (dir_crc != ref.dir_crc) fail("does not belong to this database (directory checksum differs)");
  if (Crc32c(base + dir_offset, dir_size) != dir_crc) fail("is corrupt (directory checksum mismatch)");
  if (ncols != schema.columns.size() || rows != ref.count)
    fail("does not match the catalog (columns or row count differ)");

  auto rg = std::make_shared<RowGroup>();
  rg->count = ref.count;
  rg->file_id = ref.file;
  BufReader r(base + dir_offset, dir_size, "directory of " + path);
  for (uint32_t c = 0; c < ncols; c++) {
    const ColumnDef& def = schema.columns[c];
    auto chunk = std::make_shared<ColumnChunk>();
    chunk->type = ReadType(r, "directory of " + path);
    uint8_t enc = r.U8();
    uint8_t has_validity = r.U8();
    uint8_t has_stats = r.U8();
    uint8_t layout = r.U8();  // 0 plain, 1 encoded (version 2)
    chunk->count = r.U32();
    chunk->dict_size = r.U32();
    chunk->stats.null_count = r.U64();
    uint64_t off[kNumBuffers], len[kNumBuffers];
    for (int b = 0; b < kNumBuffers; b++) {
      off[b] = r.U64();
      len[b] = r.U64();
    }
    uint32_t crc = r.U32();
    const std::string col = "column " + std::to_string(c + 1) + " (" + def.name + ")";
    if (chunk->type != def.type) fail("does not match the catalog (type of " + col + ")");
    const bool encoded = layout == 1;
    if (chunk->count != ref.count || enc > 1 || has_validity > 1 || has_stats > 1 ||
        layout > (version >= 2 ? 1 : 0) || chunk->stats.null_count > chunk->count ||
        (encoded && (chunk->type.physical() == PhysType::I128 || chunk->count == 0)))
      fail("is corrupt (bad directory entry for " + col + ")");
    if (has_stats) {
      chunk->stats.has_stats = true;
      chunk->stats.min = ReadStatValue(r, chunk->type);
      chunk->stats.max = ReadStatValue(r, chunk->type);
    }
    if (version >= 3) {
      uint8_t has_sketch = r.U8();
      if (has_sketch > 1) fail("is corrupt (bad sketch flag of " + col + ")");
      if (has_sketch) {
        const std::string_view packed = r.Bytes(DistinctSketch::kPackedBytes);
        if (!DistinctSketch::PackedValid(packed)) fail("is corrupt (bad sketch of " + col + ")");
        chunk->stats.sketch = SketchRef::Packed(reinterpret_cast<const uint8_t*>(packed.data()), map);
      }
    }
    const bool str = chunk->type.physical() == PhysType::Str;
    chunk->str_enc = str ? (StringEncoding)enc : StringEncoding::Plain;
    if (!str || chunk->str_enc != StringEncoding::Dictionary) chunk->dict_size = 0;
    // Expected buffer lengths (the bytes buffer is checked against the offsets lazily).
    uint64_t want[kNumBuffers] = {0, 0, 0, len[kBytes]};
    if (has_validity) want[kValidity] = (uint64_t)((chunk->count + 63) / 64) * 8;
    if (encoded) {
      want[kData] = len[kData];
      want[kBytes] = 0;
    } else if (str) {
      bool dict = chunk->str_enc == StringEncoding::Dictionary;
      want[kData] = dict ? (uint64_t)chunk->count * 4 : 0;
      want[kOffsets] = (uint64_t)((dict ? chunk->dict_size : chunk->count) + 1) * 4;
    } else {
      want[kData] = (uint64_t)chunk->count * (uint64_t)chunk->type.width();
      want[kBytes] = 0;
    }
    for (int b = 0; b < kNumBuffers; b++) {
      if (len[b] != want[b] || off[b] % kAlign != 0 || off[b] < kHeaderSize ||
          off[b] > dir_offset || len[b] > dir_offset - off[b])
        fail("is corrupt (bad " + std::string(kBufferNames[b]) + " buffer of " + col + ")");
    }
    const uint8_t* p[kNumBuffers];
    for (int b = 0; b < kNumBuffers; b++) p[b] = base + off[b];
    if (has_validity) chunk->validity = reinterpret_cast<const uint64_t*>(p[kValidity]);
    chunk->owner = map;
    const std::string where = path + ", " + col + " of table " + schema.name;
    if (encoded) {
      ChunkBuffers b;
      b.ptr[kData] = p[kData];
      b.len[kData] = len[kData];
      if (has_validity) {
        b.ptr[kValidity] = p[kValidity];
        b.len[kValidity] = len[kValidity];
      }
      const ColumnChunk* src = decoded && c < decoded->columns.size() ? decoded->columns[c].get() : nullptr;
      if (src && src->type == chunk->type && src->count == chunk->count && src->str_enc == chunk->str_enc &&
          src->dict_size == chunk->dict_size) {
        // Just written from these values: keep them decoded (no second decode on first read).
        src->EnsureVerified();
        chunk->data = src->data;
        chunk->offsets = src->offsets;
        chunk->bytes = src->bytes;
        chunk->owner = std::make_shared<std::pair<std::shared_ptr<const void>, std::shared_ptr<const void>>>(
            map, src->owner);
      } else {
        chunk->verifier = std::make_shared<EncodedChunkLoader>(chunk.get(), map, b, crc, where, verified);
      }
      rg->columns.push_back(std::move(chunk));
      continue;
    }
    if (len[kData] || (!str && chunk->count == 0)) chunk->data = p[kData];
    if (str) {
      chunk->offsets = reinterpret_cast<const uint32_t*>(p[kOffsets]);
      chunk->bytes = reinterpret_cast<const char*>(p[kBytes]);
    }
    chunk->verifier = std::make_shared<LazyChunkVerifier>(map, *chunk, crc, where, verified);
    rg->columns.push_back(std::move(chunk));
  }
  if (!r.AtEnd()) fail("is corrupt (trailing bytes in the directory)");
  return rg;
}

std::shared_ptr<const RowGroup> BrokenRowGroup(const RowGroupRef& ref, const TableSchema& schema,
                                               const std::string& msg) {
  // Zeroed memory large enough for every buffer of any column type, shared by the columns.
  auto zeros = std::make_shared<std::vector<uint64_t>>((size_t)ref.count * 2 + 16, 0);
  auto verifier = std::make_shared<FailedChunkVerifier>(msg);
  auto rg = std::make_shared<RowGroup>();
  rg->count = ref.count;
  rg->file_id = ref.file;
  for (auto& def : schema.columns) {
    auto chunk = std::make_shared<ColumnChunk>();
    chunk->type = def.type;
    chunk->count = ref.count;
    chunk->data = reinterpret_cast<const uint8_t*>(zeros->data());
    chunk->offsets = reinterpret_cast<const uint32_t*>(zeros->data());
    chunk->bytes = reinterpret_cast<const char*>(zeros->data());
    chunk->owner = zeros;
    chunk->verifier = verifier;
    rg->columns.push_back(std::move(chunk));
  }
  return rg;
}

}  // namespace tessera::disk
