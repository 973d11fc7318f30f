#include "storage/disk_backend.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "common/parallel.hpp"
#include "storage/compression/chunk_codec.hpp"
#include "storage/compression/int_codec.hpp"

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

static_assert(std::endian::native == std::endian::little, "the storage format is little-endian");

namespace tessera {

// ---------------------------------------------------------------------------------------
// CRC-32C: reflected polynomial 0x82F63B78, slicing-by-8 in software, crc32 instruction
// on x86-64 CPUs with SSE4.2.
namespace {

struct CrcTables {
  uint32_t t[8][256];
};

const CrcTables& Tables() {
  static const CrcTables tables = [] {
    CrcTables T{};
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
      T.t[0][i] = c;
    }
    for (int s = 1; s < 8; s++)
      for (uint32_t i = 0; i < 256; i++)
        T.t[s][i] = (T.t[s - 1][i] >> 8) ^ T.t[0][T.t[s - 1][i] & 0xff];
    return T;
  }();
  return tables;
}

uint32_t CrcSoftware(const uint8_t* p, size_t n, uint32_t c) {
  const auto& T = Tables().t;
  while (n && (reinterpret_cast<uintptr_t>(p) & 7)) {
    c = (c >> 8) ^ T[0][(c ^ *p++) & 0xff];
    n--;
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    w ^= c;
    c = T[7][w & 0xff] ^ T[6][(w >> 8) & 0xff] ^ T[5][(w >> 16) & 0xff] ^
        T[4][(w >> 24) & 0xff] ^ T[3][(w >> 32) & 0xff] ^ T[2][(w >> 40) & 0xff] ^
        T[1][(w >> 48) & 0xff] ^ T[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ T[0][(c ^ *p++) & 0xff];
  return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t CrcHardware(const uint8_t* p, size_t n, uint32_t c) {
  while (n && (reinterpret_cast<uintptr_t>(p) & 7)) {
    c = _mm_crc32_u8(c, *p++);
    n--;
  }
  uint64_t c64 = c;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c64 = _mm_crc32_u64(c64, w);
    p += 8;
    n -= 8;
  }
  c = (uint32_t)c64;
  while (n--) c = _mm_crc32_u8(c, *p++);
  return c;
}
bool HaveHardwareCrc() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

uint32_t Crc32c(const void* data, size_t n, uint32_t crc) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
#if defined(__x86_64__)
  if (HaveHardwareCrc()) return ~CrcHardware(p, n, c);
#endif
  return ~CrcSoftware(p, n, c);
}

namespace storage_testing {
static std::atomic<int> g_crash_point{0};
void SetCommitCrashPoint(int k) { g_crash_point.store(k); }
}  // namespace storage_testing

namespace {

using storage_testing::SimulatedCrash;

void CrashPoint(int k) {
  int expected = k;
  if (storage_testing::g_crash_point.compare_exchange_strong(expected, 0))
    throw SimulatedCrash{k};
}

// ---------------------------------------------------------------------------------------
// Small file-system helpers. All failures become UserError(IO) naming the path.

[[noreturn]] void ThrowIO(const std::string& msg) { throw UserError(ErrorKind::IO, msg); }

std::string ErrnoText(int e) { return std::strerror(e); }

[[noreturn]] void ThrowErrno(const std::string& what, const std::string& path) {
  int e = errno;
  ThrowIO(what + " " + path + ": " + ErrnoText(e));
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  return dir + "/" + name;
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Closes and reports errors of close() (write-back failures on some file systems).
  void CloseChecked(const std::string& path) {
    int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) ThrowErrno("cannot close", path);
  }

 private:
  int fd_;
};

void WriteAll(int fd, const void* data, size_t n, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, std::min<size_t>(n, 1u << 30));
    if (w < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("cannot write", path);
    }
    p += w;
    n -= (size_t)w;
  }
}

void SyncFile(int fd, const std::string& path) {
  if (::fsync(fd) != 0) ThrowErrno("cannot sync", path);
}

void SyncDir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) ThrowErrno("cannot open directory", dir);
  if (::fsync(fd.get()) != 0 && errno != EINVAL) ThrowErrno("cannot sync directory", dir);
}

void RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) ThrowErrno("cannot rename " + from + " to", to);
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  return names;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Row-group file names: "rg-" + decimal id + ".trg".
bool ParseRowGroupFileName(const std::string& name, uint64_t* id) {
  if (name.size() < 8 || name.compare(0, 3, "rg-") != 0 || !EndsWith(name, ".trg")) return false;
  uint64_t v = 0;
  for (size_t i = 3; i + 4 < name.size(); i++) {
    char c = name[i];
    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + (uint64_t)(c - '0');
  }
  if (id) *id = v;
  return true;
}

std::string RowGroupFileName(uint64_t id) {
  std::string digits = std::to_string(id);
  if (digits.size() < 8) digits.insert(0, 8 - digits.size(), '0');
  return "rg-" + digits + ".trg";
}

bool IsTempFile(const std::string& name) {
  return EndsWith(name, ".tmp") &&
         (name.compare(0, 3, "rg-") == 0 || name.compare(0, 11, "catalog.tsm") == 0);
}

// A read-only memory mapping of a whole file.
struct Mapping {
  const uint8_t* base = nullptr;
  size_t size = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (base && size) ::munmap(const_cast<uint8_t*>(base), size);
  }
};

// ---------------------------------------------------------------------------------------
// Binary encoding: little-endian fixed-width integers, strings as u32 length + bytes.

struct Corrupt {
  std::string what;
};

class BufWriter {
 public:
  std::string buf;
  void U8(uint8_t v) { buf.push_back((char)v); }
  void U16(uint16_t v) { Raw(&v, 2); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void I128(int128_t v) { Raw(&v, 16); }
  void F64(double v) { Raw(&v, 8); }
  void Str(std::string_view s) {
    U32((uint32_t)s.size());
    buf.append(s.data(), s.size());
  }
  void Raw(const void* p, size_t n) { buf.append(static_cast<const char*>(p), n); }
};

class BufReader {
 public:
  BufReader(const uint8_t* p, size_t n, std::string what) : p_(p), end_(p + n), what_(std::move(what)) {}
  uint8_t U8() { return Get<uint8_t>(); }
  uint16_t U16() { return Get<uint16_t>(); }
  uint32_t U32() { return Get<uint32_t>(); }
  uint64_t U64() { return Get<uint64_t>(); }
  int128_t I128() { return Get<int128_t>(); }
  double F64() { return Get<double>(); }
  std::string_view Str() {
    uint32_t n = U32();
    Need(n);
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  bool AtEnd() const { return p_ == end_; }

 private:
  template <class T>
  T Get() {
    Need(sizeof(T));
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  void Need(size_t n) {
    if ((size_t)(end_ - p_) < n) throw Corrupt{what_ + " is truncated"};
  }
  const uint8_t* p_;
  const uint8_t* end_;
  std::string what_;
};

bool ValidTypeId(uint8_t id) { return id >= (uint8_t)TypeId::Boolean && id <= (uint8_t)TypeId::Blob; }

void WriteType(BufWriter& w, const Type& t) {
  w.U8((uint8_t)t.id);
  w.U8(t.precision);
  w.U8(t.scale);
}

Type ReadType(BufReader& r, const std::string& what) {
  Type t;
  uint8_t id = r.U8();
  t.precision = r.U8();
  t.scale = r.U8();
  if (!ValidTypeId(id)) throw Corrupt{what + " has an invalid type tag " + std::to_string(id)};
  t.id = (TypeId)id;
  if (t.id == TypeId::Decimal) {
    if (t.precision < 1 || t.precision > kMaxDecimalPrecision || t.scale > t.precision)
      throw Corrupt{what + " has an invalid DECIMAL type"};
  } else {
    t.precision = t.scale = 0;
  }
  return t;
}

void WriteStatValue(BufWriter& w, const Type& t, const Value& v) {
  switch (t.physical()) {
    case PhysType::F64: w.F64(v.double_value()); break;
    case PhysType::Str: w.Str(v.str_value()); break;
    default: w.I128(v.int_value()); break;
  }
}

Value ReadStatValue(BufReader& r, const Type& t) {
  switch (t.id) {
    case TypeId::Double: return Value::Double(r.F64());
    case TypeId::Varchar: return Value::Varchar(std::string(r.Str()));
    case TypeId::Boolean: return Value::Boolean(r.I128() != 0);
    case TypeId::Integer: return Value::Integer((int32_t)r.I128());
    case TypeId::Date: return Value::Date((int32_t)r.I128());
    case TypeId::BigInt: return Value::BigInt((int64_t)r.I128());
    case TypeId::Timestamp: return Value::Timestamp((int64_t)r.I128());
    case TypeId::Time: return Value::Time((int64_t)r.I128());
    case TypeId::Interval: return Value::Interval(r.I128());
    case TypeId::Blob: return Value::Blob(std::string(r.Str()));
    case TypeId::Decimal: return Value::Decimal(r.I128(), t.precision, t.scale);
    case TypeId::Null: break;
  }
  return Value::Null(t);
}

// ---------------------------------------------------------------------------------------
// Row-group file.
//
//   [0, 64)       header: magic "TESSRGF\0", u32 version, u32 column count, u64 row count,
//                 u64 file size, u64 directory offset, u64 directory size,
//                 u32 directory CRC, zero padding, u32 header CRC at byte 60
//   [64, D)       column buffers, each starting at a multiple of 64
//   [D, D+size)   directory: per column its type, string encoding, validity flag, stats
//                 flag, layout (version 2: 0 plain, 1 encoded; version 1: always 0),
//                 counts, buffer extents, chunk CRC (over its buffers) and min/max
//                 statistics
// An encoded chunk's values are one blob in its data buffer (compression/chunk_codec.hpp),
// its validity bitmap a plain buffer as before, its offsets and bytes buffers empty.

constexpr char kRowGroupMagic[8] = {'T', 'E', 'S', 'S', 'R', 'G', 'F', '\0'};
constexpr char kManifestMagic[8] = {'T', 'E', 'S', 'S', 'C', 'A', 'T', '\0'};
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

struct WrittenFile {
  uint64_t size = 0;
  uint32_t dir_crc = 0;
};

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

// An encoded chunk (format version 2, layout 1): the first time it is read, its checksum
// is checked (unless the file was just written) and its blob decoded into heap buffers of
// `target`, the chunk that owns this loader (compression/chunk_codec.hpp).
class EncodedChunkLoader final : public CheckedOnce {
 public:
  EncodedChunkLoader(ColumnChunk* target, const ChunkBuffers& bufs, uint32_t crc, std::string where,
                     bool verified)
      : CheckedOnce(false), target_(target), bufs_(bufs), crc_(crc), where_(std::move(where)), verified_(verified) {}
  bool Loaded() const override { return Done(); }
  bool LayoutKnown() const override { return true; }
  bool CanDecodeInto() const override { return !Done() && target_->type.physical() != PhysType::Str; }
  bool DecodeInto(void* out) const override {
    if (!CanDecodeInto()) return false;
    std::string error = Decode([&](const uint8_t* p, size_t len) { codec::DecodeFixedInto(p, len, *target_, out); });
    if (!error.empty()) throw UserError(ErrorKind::IO, error);
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
  ChunkBuffers bufs_;
  uint32_t crc_;
  std::string where_;
  bool verified_;
};

// Stands in for a chunk whose file could not be opened: reading it always throws.
class FailedChunkVerifier final : public ChunkVerifier {
 public:
  explicit FailedChunkVerifier(std::string msg) : msg_(std::move(msg)) {}
  void Verify() const override { throw UserError(ErrorKind::IO, msg_); }

 private:
  std::string msg_;
};

// What the manifest records about one row group.
struct RowGroupRef {
  std::string file;
  uint32_t count = 0;
  uint64_t size = 0;
  uint32_t dir_crc = 0;
};

// Maps a row-group file and builds its chunks (pointing into the mapping). Throws Corrupt
// when the file does not match what the manifest expects.
// `decoded`: the row group the file was just written from (its encoded chunks take their
// values from it instead of decoding the file again), or nullptr.
std::shared_ptr<const RowGroup> OpenRowGroupFile(const std::string& dir, const RowGroupRef& ref,
                                                 const TableSchema& schema, bool verified,
                                                 const RowGroup* decoded = nullptr) {
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
        chunk->verifier = std::make_shared<EncodedChunkLoader>(chunk.get(), b, crc, where, verified);
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

// A row group whose file is unusable: the right shape, no statistics, and chunks whose
// verifier throws `msg` so reading the table fails with a clear error (and the rest of
// the database, including DROP TABLE, keeps working).
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

// ---------------------------------------------------------------------------------------
// Manifest.
//
//   magic "TESSCAT\0" | u32 version | u32 flags | u64 body size | body | u32 CRC-32C
//   body: u64 next file id, u32 table count, per table: name, u32 column count,
//         per column (name, u8 type, u8 precision, u8 scale, u8 not null), u64 row count,
//         u32 row-group count, per row group (file name, u32 rows, u64 file size,
//         u32 directory CRC)
//         [flags bit 0 (kManifestHasViews): u32 view count, per view: name, u32 column
//          name count, column names, SQL text]
//         [flags bit 1 (kManifestHasDefaults): u32 count, per column with a DEFAULT: table
//          name, u32 column index, the DEFAULT's SQL text]
// A manifest without the newer sections has the older builds' layout (they open it); one
// with a flag they do not know they refuse.

struct FileInfo {
  std::shared_ptr<const RowGroup> rg;  // the mapped row group (identity of the file)
  uint64_t size = 0;
  uint32_t dir_crc = 0;
};

struct ManifestTable {
  TableSchema schema;
  uint64_t row_count = 0;
  std::vector<RowGroupRef> groups;
  std::string view_sql;  // a view: no schema or groups
  std::vector<std::string> view_columns;
};

constexpr uint32_t kManifestHasViews = 1;
constexpr uint32_t kManifestHasDefaults = 2;

std::string SerializeManifest(uint64_t next_id, const CatalogState& state,
                              const std::map<std::string, FileInfo>& files) {
  BufWriter body;
  body.U64(next_id);
  uint32_t nviews = 0;
  for (auto& [name, entry] : state) nviews += entry->is_view();
  body.U32((uint32_t)state.size() - nviews);
  for (auto& [name, entry] : state) {
    if (entry->is_view()) continue;
    body.Str(name);
    body.U32((uint32_t)entry->schema.columns.size());
    for (auto& col : entry->schema.columns) {
      body.Str(col.name);
      WriteType(body, col.type);
      body.U8(col.not_null ? 1 : 0);
    }
    uint64_t rows = 0;
    for (auto& rg : entry->data->row_groups) rows += rg->count;
    body.U64(rows);
    body.U32((uint32_t)entry->data->row_groups.size());
    for (auto& rg : entry->data->row_groups) {
      auto it = files.find(rg->file_id);
      TESSERA_ASSERT(it != files.end(), "row group without a file in the manifest");
      body.Str(rg->file_id);
      body.U32(rg->count);
      body.U64(it->second.size);
      body.U32(it->second.dir_crc);
    }
  }
  if (nviews) {
    body.U32(nviews);
    for (auto& [name, entry] : state) {
      if (!entry->is_view()) continue;
      body.Str(name);
      body.U32((uint32_t)entry->view_columns.size());
      for (auto& c : entry->view_columns) body.Str(c);
      body.Str(entry->view_sql);
    }
  }
  uint32_t ndefaults = 0;
  for (auto& [name, entry] : state)
    if (!entry->is_view())
      for (auto& col : entry->schema.columns) ndefaults += !col.default_sql.empty();
  if (ndefaults) {
    body.U32(ndefaults);
    for (auto& [name, entry] : state) {
      if (entry->is_view()) continue;
      for (size_t c = 0; c < entry->schema.columns.size(); c++) {
        if (entry->schema.columns[c].default_sql.empty()) continue;
        body.Str(name);
        body.U32((uint32_t)c);
        body.Str(entry->schema.columns[c].default_sql);
      }
    }
  }
  BufWriter m;
  m.Raw(kManifestMagic, 8);
  m.U32(kStorageFormatVersion);
  m.U32((nviews ? kManifestHasViews : 0) | (ndefaults ? kManifestHasDefaults : 0));
  m.U64(body.buf.size());
  m.buf += body.buf;
  m.U32(Crc32c(m.buf.data(), m.buf.size()));
  return std::move(m.buf);
}

std::vector<ManifestTable> ParseManifest(const std::string& data, const std::string& path,
                                         uint64_t* next_id) {
  auto corrupt = [&](const std::string& why) -> UserError {
    return UserError(ErrorKind::IO, "database manifest " + path + " is corrupt (" + why + ")");
  };
  if (data.size() < 28) throw corrupt("truncated");
  if (std::memcmp(data.data(), kManifestMagic, 8) != 0)
    throw UserError(ErrorKind::IO, "database manifest " + path +
                                       " is not a tessera catalog file (bad magic number)");
  uint32_t version;
  std::memcpy(&version, data.data() + 8, 4);
  if (version < kOldestStorageFormatVersion || version > kStorageFormatVersion)
    throw UserError(ErrorKind::IO, "database manifest " + path + " has unsupported format version " +
                                       std::to_string(version) + " (this build supports versions " +
                                       std::to_string(kOldestStorageFormatVersion) + " to " +
                                       std::to_string(kStorageFormatVersion) + ")");
  uint32_t flags;
  std::memcpy(&flags, data.data() + 12, 4);
  if (flags & ~(kManifestHasViews | kManifestHasDefaults))
    throw UserError(ErrorKind::IO, "database manifest " + path + " uses features this build does not know (flags " +
                                       std::to_string(flags) + ")");
  uint64_t body_size;
  std::memcpy(&body_size, data.data() + 16, 8);
  if (body_size != data.size() - 28) throw corrupt("truncated or wrong size");
  uint32_t crc;
  std::memcpy(&crc, data.data() + data.size() - 4, 4);
  if (Crc32c(data.data(), data.size() - 4) != crc) throw corrupt("checksum mismatch");
  std::vector<ManifestTable> tables;
  try {
    BufReader r(reinterpret_cast<const uint8_t*>(data.data()) + 24, body_size, "manifest body");
    *next_id = r.U64();
    uint32_t ntables = r.U32();
    std::set<std::string> names, files;
    for (uint32_t t = 0; t < ntables; t++) {
      ManifestTable mt;
      mt.schema.name = std::string(r.Str());
      if (!names.insert(mt.schema.name).second) throw Corrupt{"duplicate table " + mt.schema.name};
      uint32_t ncols = r.U32();
      for (uint32_t c = 0; c < ncols; c++) {
        ColumnDef def;
        def.name = std::string(r.Str());
        def.type = ReadType(r, "table " + mt.schema.name);
        def.not_null = r.U8() != 0;
        mt.schema.columns.push_back(std::move(def));
      }
      mt.row_count = r.U64();
      uint32_t ngroups = r.U32();
      uint64_t sum = 0;
      for (uint32_t g = 0; g < ngroups; g++) {
        RowGroupRef ref;
        ref.file = std::string(r.Str());
        ref.count = r.U32();
        ref.size = r.U64();
        ref.dir_crc = r.U32();
        if (!ParseRowGroupFileName(ref.file, nullptr)) throw Corrupt{"bad file name " + ref.file};
        files.insert(ref.file);
        sum += ref.count;
        mt.groups.push_back(std::move(ref));
      }
      if (sum != mt.row_count) throw Corrupt{"row count of table " + mt.schema.name};
      tables.push_back(std::move(mt));
    }
    if (flags & kManifestHasViews) {
      uint32_t nviews = r.U32();
      for (uint32_t v = 0; v < nviews; v++) {
        ManifestTable mt;
        mt.schema.name = std::string(r.Str());
        if (!names.insert(mt.schema.name).second) throw Corrupt{"duplicate name " + mt.schema.name};
        uint32_t ncols = r.U32();
        for (uint32_t c = 0; c < ncols; c++) mt.view_columns.emplace_back(r.Str());
        mt.view_sql = std::string(r.Str());
        if (mt.view_sql.empty()) throw Corrupt{"view " + mt.schema.name + " without SQL"};
        tables.push_back(std::move(mt));
      }
    }
    if (flags & kManifestHasDefaults) {
      uint32_t ndefaults = r.U32();
      for (uint32_t d = 0; d < ndefaults; d++) {
        std::string table(r.Str());
        uint32_t col = r.U32();
        std::string sql(r.Str());
        auto t = std::find_if(tables.begin(), tables.end(), [&](const ManifestTable& m) {
          return m.view_sql.empty() && m.schema.name == table;
        });
        if (t == tables.end() || col >= t->schema.columns.size() || sql.empty())
          throw Corrupt{"DEFAULT of an unknown column of " + table};
        t->schema.columns[col].default_sql = std::move(sql);
      }
    }
    if (!r.AtEnd()) throw Corrupt{"trailing bytes"};
  } catch (const Corrupt& c) {
    throw corrupt(c.what);
  }
  return tables;
}

// Writes `data` to `path` (created or truncated) and fsyncs it.
void WriteFileSynced(const std::string& path, const std::string& data) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) ThrowErrno("cannot create", path);
  WriteAll(fd.get(), data.data(), data.size(), path);
  SyncFile(fd.get(), path);
  fd.CloseChecked(path);
}

bool ReadWholeFile(const std::string& path, std::string* out) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return false;
    ThrowErrno("cannot open", path);
  }
  out->clear();
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("cannot read", path);
    }
    if (n == 0) break;
    out->append(buf, (size_t)n);
  }
  return true;
}

// ---------------------------------------------------------------------------------------

class DiskBackend final : public StorageBackend {
 public:
  DiskBackend(std::string dir, int lock_fd) : dir_(std::move(dir)), lock_fd_(lock_fd) {}
  ~DiskBackend() override { lock_fd_.Close(); }

  CatalogState Load() override {
    std::lock_guard<std::mutex> g(mu_);
    const std::string path = JoinPath(dir_, kManifestFileName);
    std::string data;
    CatalogState state;
    files_.clear();
    next_id_ = 1;
    if (!ReadWholeFile(path, &data)) {
      // A new database gets an empty manifest right away, so that later a missing manifest
      // means damage (and data files are never mistaken for leftovers of a first commit).
      for (auto& name : ListDir(dir_))
        if (ParseRowGroupFileName(name, nullptr))
          ThrowIO("database directory " + dir_ + " contains row-group files (" + name +
                  ", ...) but no " + kManifestFileName +
                  " manifest; refusing to open it (restore the manifest or remove the data files)");
      WriteFileSynced(path + ".tmp", SerializeManifest(next_id_, state, files_));
      RenameFile(path + ".tmp", path);
      SyncDir(dir_);
    } else {
      uint64_t next_id = 1;
      std::vector<ManifestTable> tables = ParseManifest(data, path, &next_id);
      next_id_ = std::max<uint64_t>(next_id, 1);
      for (auto& mt : tables) {
        auto entry = std::make_shared<TableEntry>();
        auto td = std::make_shared<TableData>();
        for (auto& ref : mt.groups) {
          uint64_t id = 0;
          ParseRowGroupFileName(ref.file, &id);
          next_id_ = std::max(next_id_, id + 1);
          auto it = files_.find(ref.file);
          std::shared_ptr<const RowGroup> rg;
          if (it != files_.end()) {
            // A file shared by two tables (a row group appended to both): same shape only.
            rg = it->second.rg;
            bool same = rg->columns.size() == mt.schema.columns.size();
            for (size_t c = 0; same && c < rg->columns.size(); c++)
              same = rg->columns[c]->type == mt.schema.columns[c].type;
            if (!same)
              rg = BrokenRowGroup(ref, mt.schema, "database file " + JoinPath(dir_, ref.file) +
                                                      " does not match table " + mt.schema.name);
          } else {
            try {
              rg = OpenRowGroupFile(dir_, ref, mt.schema, false);
            } catch (const Corrupt& c) {
              rg = BrokenRowGroup(ref, mt.schema, c.what + " (table " + mt.schema.name + ")");
            }
            files_[ref.file] = FileInfo{rg, ref.size, ref.dir_crc};
          }
          td->row_groups.push_back(std::move(rg));
        }
        td->row_count = mt.row_count;
        entry->schema = std::move(mt.schema);
        entry->data = std::move(td);
        entry->view_sql = std::move(mt.view_sql);
        entry->view_columns = std::move(mt.view_columns);
        state[entry->schema.name] = std::move(entry);
      }
    }
    // Files of interrupted commits: temp files and row groups no manifest references.
    for (auto& name : ListDir(dir_)) {
      uint64_t id = 0;
      if (ParseRowGroupFileName(name, &id)) next_id_ = std::max(next_id_, id + 1);
    }
    RemoveUnreferenced();
    table_count_ = state.size();
    return state;
  }

  CatalogState Commit(const CatalogState& next) override {
    std::lock_guard<std::mutex> g(mu_);
    // 1. Row groups to persist: not persisted here yet (or persisted by someone else).
    struct Job {
      std::shared_ptr<const RowGroup> src;
      const TableSchema* schema;
      std::string name;
      WrittenFile written;
      std::shared_ptr<const RowGroup> mapped;
    };
    std::vector<Job> jobs;
    std::unordered_map<const RowGroup*, size_t> job_of;
    for (auto& [tname, entry] : next) {
      for (auto& rg : entry->data->row_groups) {
        if (IsOurs(rg) || job_of.count(rg.get())) continue;
        job_of[rg.get()] = jobs.size();
        jobs.push_back({rg, &entry->schema, RowGroupFileName(next_id_++), {}, nullptr});
      }
    }
    std::map<std::string, FileInfo> files;  // the new manifest's files
    CatalogState result;
    const std::string mpath = JoinPath(dir_, kManifestFileName);
    const std::string mtmp = mpath + ".tmp";
    size_t renamed = 0;
    try {
      // 2. Write each new row group to a temp file (in parallel), then rename them all.
      ParallelFor(jobs.size(), HardwareThreads(), [&](uint64_t i, unsigned) {  // encoding is CPU work
        jobs[i].written = WriteRowGroupFile(JoinPath(dir_, jobs[i].name + ".tmp"), *jobs[i].src);
      });
      CrashPoint(1);
      for (auto& j : jobs) {
        RenameFile(JoinPath(dir_, j.name + ".tmp"), JoinPath(dir_, j.name));
        renamed++;
      }
      CrashPoint(2);
      if (!jobs.empty()) SyncDir(dir_);
      // 3. Map the new files (before the commit point, so nothing can fail after it).
      for (auto& j : jobs) {
        RowGroupRef ref{j.name, j.src->count, j.written.size, j.written.dir_crc};
        try {
          j.mapped = OpenRowGroupFile(dir_, ref, *j.schema, true, j.src.get());
        } catch (const Corrupt& c) {
          ThrowIO(c.what);
        }
      }
      // 4. The new state with persisted row groups replaced by their mapped form.
      for (auto& j : jobs) files[j.name] = FileInfo{j.mapped, j.written.size, j.written.dir_crc};
      for (auto& [tname, entry] : next) {
        bool changed = false;
        for (auto& rg : entry->data->row_groups) changed |= job_of.count(rg.get()) > 0;
        if (!changed) {
          result[tname] = entry;
        } else {
          auto td = std::make_shared<TableData>(*entry->data);
          for (auto& rg : td->row_groups) {
            auto it = job_of.find(rg.get());
            if (it != job_of.end()) rg = jobs[it->second].mapped;
          }
          auto e = std::make_shared<TableEntry>(*entry);
          e->data = std::move(td);
          result[tname] = std::move(e);
        }
        for (auto& rg : result[tname]->data->row_groups)
          if (!files.count(rg->file_id)) files[rg->file_id] = files_.at(rg->file_id);
      }
      // 5. The manifest: temp file, fsync, rename over the old one (the commit point).
      WriteFileSynced(mtmp, SerializeManifest(next_id_, result, files));
      CrashPoint(3);
      RenameFile(mtmp, mpath);
    } catch (const SimulatedCrash&) {
      throw;
    } catch (...) {
      // The old manifest is untouched; remove what this commit wrote.
      for (size_t i = 0; i < jobs.size(); i++) {
        ::unlink(JoinPath(dir_, jobs[i].name + ".tmp").c_str());
        if (i < renamed) ::unlink(JoinPath(dir_, jobs[i].name).c_str());
      }
      ::unlink(mtmp.c_str());
      throw;
    }
    // Committed. Make the rename durable, then drop files the new manifest does not use.
    files_ = std::move(files);
    table_count_ = result.size();
    CrashPoint(4);
    SyncDir(dir_);
    CrashPoint(5);
    RemoveUnreferenced();
    return result;
  }

  std::string Describe() const override {
    size_t n = table_count_.load();
    return "database at " + dir_ + " (" + std::to_string(n) + (n == 1 ? " table)" : " tables)");
  }

  std::string Name() const override {
    std::filesystem::path p(dir_);
    if (!p.has_filename()) p = p.parent_path();  // "db.tdb/"
    return p.stem().string();
  }

 private:
  bool IsOurs(const std::shared_ptr<const RowGroup>& rg) const {
    if (rg->file_id.empty()) return false;
    auto it = files_.find(rg->file_id);
    return it != files_.end() && it->second.rg == rg;
  }

  // Deletes temp files and row-group files that the committed manifest does not reference.
  // Failures are ignored: a leftover file is harmless and removed next time.
  void RemoveUnreferenced() {
    bool first = true;
    for (auto& name : ListDir(dir_)) {
      bool stale = IsTempFile(name) || (ParseRowGroupFileName(name, nullptr) && !files_.count(name));
      if (!stale) continue;
      ::unlink(JoinPath(dir_, name).c_str());
      if (first) {
        first = false;
        CrashPoint(6);
      }
    }
  }

  std::string dir_;
  Fd lock_fd_;
  std::mutex mu_;
  std::map<std::string, FileInfo> files_;  // files of the committed manifest
  uint64_t next_id_ = 1;
  std::atomic<size_t> table_count_{0};
};

}  // namespace

std::unique_ptr<StorageBackend> OpenDiskBackend(const std::string& dir_in) {
  std::string dir = dir_in;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir.empty()) ThrowIO("database path is empty");
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) ThrowErrno("cannot open database at", dir);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      ThrowErrno("cannot create database directory", dir);
    if (::stat(dir.c_str(), &st) != 0) ThrowErrno("cannot open database at", dir);
  }
  if (!S_ISDIR(st.st_mode))
    ThrowIO("cannot open database at " + dir + ": not a directory (a database is a directory)");
  const std::string lock_path = JoinPath(dir, kLockFileName);
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) ThrowErrno("cannot open database lock file", lock_path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      ThrowIO("database " + dir + " is in use by another process (lock held on " + lock_path + ")");
    errno = e;
    ThrowErrno("cannot lock", lock_path);
  }
  return std::make_unique<DiskBackend>(dir, fd);
}

}  // namespace tessera
