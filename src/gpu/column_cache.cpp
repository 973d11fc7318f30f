#include "gpu/column_cache.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "common/error.hpp"
#include "common/parallel.hpp"
#include "gpu/gpu_context.hpp"
#include "gpu/kernel_cache.hpp"
#include "gpu/pipeline_codegen.hpp"
#include "gpu/string_dictionary.hpp"
#include "storage/compression/byte_io.hpp"
#include "storage/compression/chunk_codec.hpp"
#include "storage/compression/gpu_stream.hpp"
#include "storage/compression/gpu_stream_core.hpp"
#include "storage/compression/lanepack_core.hpp"

namespace tessera::gpu {

std::string DeviceCType(const Type& t) {
  switch (t.id) {
    case TypeId::Boolean: return "bool";
    case TypeId::Integer:
    case TypeId::Date:
    case TypeId::Varchar: return "int";
    case TypeId::BigInt:
    case TypeId::Timestamp: return "long long";  // microseconds
    case TypeId::Decimal: return t.precision <= 18 ? "long long" : "__int128";  // 128-bit: expressions only
    case TypeId::Double: return "double";
    default: return "";
  }
}

int DeviceWidth(const Type& t) {
  switch (t.id) {
    case TypeId::Boolean: return 1;
    case TypeId::Integer:
    case TypeId::Date:
    case TypeId::Varchar: return 4;
    case TypeId::BigInt:
    case TypeId::Timestamp:
    case TypeId::Double: return 8;
    case TypeId::Decimal: return t.precision <= 18 ? 8 : 0;
    default: return 0;
  }
}

ColumnCache& ColumnCache::Instance() {
  static ColumnCache* cache = new ColumnCache();  // never destroyed (device buffers outlive static destruction)
  return *cache;
}

bool ColumnCache::StoredPlain(const TableData& data, int column) {
  if (data.row_groups.empty()) return false;
  for (auto& rg : data.row_groups)
    if (!rg->columns[column]->LayoutKnown() || rg->columns[column]->str_enc != StringEncoding::Plain) return false;
  return true;
}

namespace {

// Stored encodings decoded on the device (gpu_stream_core.hpp); TESSERA_GPU_DEVICE_DECODE=0
// decodes them on the host instead, as before (measurements).
bool DeviceDecode() {
  static const bool on = [] {
    const char* e = std::getenv("TESSERA_GPU_DEVICE_DECODE");
    return !(e && std::string(e) == "0");
  }();
  return on;
}

// A dictionary VARCHAR chunk of a database file, not loaded: the GPU reads its dictionary
// alone and decodes its stored codes on the device, so it is never loaded for the GPU.
bool StoredStringDictionary(const ColumnChunk& ch) {
  const uint8_t* p;
  size_t len;
  return DeviceDecode() && ch.type.id == TypeId::Varchar && !ch.Loaded() && ch.LayoutKnown() &&
         ch.str_enc == StringEncoding::Dictionary && ch.EncodedBlob(false, &p, &len);
}

}  // namespace

// Verifies a chunk before the GPU reads it; false (and the reason in `c`) when it holds NULLs.
static bool ChunkForGpu(const ColumnChunk& ch, CachedColumn& c) {
  // An encoded chunk that the upload decodes straight into its staging buffer is not
  // loaded here: its statistics' null count is exact (ChunkVerifier::CanDecodeInto).
  const bool deferred = !c.raw && (c.type.id == TypeId::Varchar ? StoredStringDictionary(ch) : ch.CanDecodeInto());
  if (!deferred) ch.EnsureVerified();
  if ((!deferred && ch.validity) || ch.stats.null_count) {
    c.unsupported = "column has NULLs (not on the GPU yet)";
    return false;
  }
  return true;
}

// The bytes of a VARCHAR chunk's values, one after another.
static uint64_t ChunkStringBytes(const ColumnChunk& ch) {
  if (ch.str_enc == StringEncoding::Plain) return ch.count ? ch.offsets[ch.count] - ch.offsets[0] : 0;
  uint64_t b = 0;
  for (uint32_t i = 0; i < ch.count; i++) b += ch.GetString(i).size();
  return b;
}

static void ComputeRawInfo(CachedColumn& c, const TableData& data) {
  c.device_width = 8;
  for (auto& rg : data.row_groups) {
    const ColumnChunk& ch = *rg->columns[c.column];
    if (!ChunkForGpu(ch, c)) return;
    c.string_bytes += ChunkStringBytes(ch);
  }
}

// Offsets (u64, rows + 1) and then bytes of a VARCHAR column, row groups on all threads.
static std::vector<uint8_t> RawStrings(const CachedColumn& c, const TableData& data) {
  const auto& groups = data.row_groups;
  const size_t n = groups.size();
  std::vector<uint64_t> row0(n + 1, 0), byte0(n + 1, 0);
  for (size_t g = 0; g < n; g++) {
    const ColumnChunk& ch = *groups[g]->columns[c.column];
    row0[g + 1] = row0[g] + ch.count;
    byte0[g + 1] = byte0[g] + ChunkStringBytes(ch);
  }
  const size_t off_bytes = (size_t)(row0[n] + 1) * 8;
  std::vector<uint8_t> out(off_bytes + byte0[n]);
  uint64_t* off = reinterpret_cast<uint64_t*>(out.data());
  char* bytes = reinterpret_cast<char*>(out.data() + off_bytes);
  off[row0[n]] = byte0[n];
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t g; (g = next.fetch_add(1)) < n;) {
      const ColumnChunk& ch = *groups[g]->columns[c.column];
      uint64_t at = byte0[g];
      if (ch.str_enc == StringEncoding::Plain && ch.count) {
        std::memcpy(bytes + at, ch.bytes + ch.offsets[0], ch.offsets[ch.count] - ch.offsets[0]);
        for (uint32_t i = 0; i < ch.count; i++) off[row0[g] + i] = at + (ch.offsets[i] - ch.offsets[0]);
      } else {
        for (uint32_t i = 0; i < ch.count; i++) {
          std::string_view v = ch.GetString(i);
          off[row0[g] + i] = at;
          std::memcpy(bytes + at, v.data(), v.size());
          at += v.size();
        }
      }
    }
  };
  const size_t threads = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; t++) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return out;
}

// The same bytes as RawStrings as upload items, written straight into the staging buffers
// (no column-sized host copy, which at TPC-H SF10's o_comment is 845 MB): per row group
// its offsets, then the last offset (`end`, the caller's), then per row group its bytes,
// copied from a plain chunk's buffer or written by a producer for a dictionary chunk.
// False (items unchanged) when a row group's part does not fit a staging buffer.
static bool RawStringItems(const CachedColumn& c, const TableData& data, std::vector<UploadItem>& items, uint64_t& end) {
  const auto& groups = data.row_groups;
  const size_t n = groups.size();
  std::vector<uint64_t> byte0(n + 1, 0);
  for (size_t g = 0; g < n; g++) {
    const ColumnChunk& ch = *groups[g]->columns[c.column];
    byte0[g + 1] = byte0[g] + ChunkStringBytes(ch);
    if ((size_t)ch.count * 8 > StagedUploader::SlotBytes()) return false;
    if (ch.str_enc != StringEncoding::Plain && byte0[g + 1] - byte0[g] > StagedUploader::SlotBytes()) return false;
  }
  for (size_t g = 0; g < n; g++) {
    const ColumnChunk* ch = groups[g]->columns[c.column].get();
    if (!ch->count) continue;
    items.push_back({(size_t)ch->count * 8, nullptr, [ch, at = byte0[g]](void* out) {
                       uint64_t* off = static_cast<uint64_t*>(out);
                       if (ch->str_enc == StringEncoding::Plain) {
                         for (uint32_t i = 0; i < ch->count; i++) off[i] = at + (ch->offsets[i] - ch->offsets[0]);
                       } else {
                         uint64_t pos = at;
                         for (uint32_t i = 0; i < ch->count; i++) {
                           off[i] = pos;
                           pos += ch->GetString(i).size();
                         }
                       }
                     }});
  }
  end = byte0[n];
  items.push_back({8, &end, nullptr});
  for (size_t g = 0; g < n; g++) {
    const ColumnChunk* ch = groups[g]->columns[c.column].get();
    const size_t bytes = byte0[g + 1] - byte0[g];
    if (!bytes) continue;
    if (ch->str_enc == StringEncoding::Plain) {
      items.push_back({bytes, ch->bytes + ch->offsets[0], nullptr});
    } else {
      items.push_back({bytes, nullptr, [ch](void* out) {
                         char* p = static_cast<char*>(out);
                         for (uint32_t i = 0; i < ch->count; i++) {
                           const std::string_view v = ch->GetString(i);
                           std::memcpy(p, v.data(), v.size());
                           p += v.size();
                         }
                       }});
    }
  }
  return true;
}

// Loads a column's lazily decoded chunks (a file table's, storage/parquet) on all host
// threads, so the loops below do not decode them one after another; the first error is
// rethrown.
// `fixed`: a fixed-width column, whose chunks that can be decoded straight into the upload's
// staging buffer (ColumnChunk::CanDecodeInto) are left as they are; `string_codes`: a VARCHAR
// column held as codes, whose stored dictionary chunks are left as they are
// (StoredStringDictionary).
static void LoadChunks(const TableData& data, int column, bool fixed, bool string_codes = false) {
  const auto& groups = data.row_groups;
  auto skip = [&](const ColumnChunk& ch) {
    return ch.Loaded() || (fixed && ch.CanDecodeInto()) || (string_codes && StoredStringDictionary(ch));
  };
  bool lazy = false;
  for (auto& rg : groups) lazy = lazy || !skip(*rg->columns[column]);
  if (!lazy) return;
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;
  auto work = [&] {
    for (size_t g; (g = next.fetch_add(1)) < groups.size();) {
      try {
        if (!skip(*groups[g]->columns[column])) groups[g]->columns[column]->EnsureVerified();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        next = groups.size();
      }
    }
  };
  const size_t threads = std::min<size_t>(groups.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; t++) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// The dictionary of a VARCHAR column held as codes: a stored dictionary chunk's strings are
// read from its blob alone (StoredStringDictionary), the other chunks are loaded.
static ColumnDictionary ColumnDictionaryOf(const CachedColumn& c, const TableData& data) {
  const auto& groups = data.row_groups;
  std::vector<ChunkStrings> stored(groups.size());
  ParallelFor(groups.size(), 0, [&](uint64_t g, unsigned) {
    const ColumnChunk& ch = *groups[g]->columns[c.column];
    const uint8_t* p;
    size_t len;
    codec::GpuStreamPlan plan;
    if (StoredStringDictionary(ch) && ch.EncodedBlob(true, &p, &len) &&
        codec::PlanGpuStream(p, len, ch.count, 4, &plan, /*string_codes=*/true)) {
      try {
        codec::DecodeStringDictionary(p, len, plan.end_at, ch.dict_size, stored[g].offsets, stored[g].bytes);
      } catch (const codec::DecodeError& e) {
        throw UserError(ErrorKind::IO, "database file of table " + c.table + " is corrupt (" + e.what() + ")");
      }
    } else {
      ch.EnsureVerified();
    }
  });
  return BuildColumnDictionary(data, c.column, &stored);
}

static void ComputeHostInfo(CachedColumn& c, const TableData& data) {
  LoadChunks(data, c.column, !c.raw && c.type.id != TypeId::Varchar, !c.raw && c.type.id == TypeId::Varchar);
  if (c.raw) return ComputeRawInfo(c, data);
  c.device_width = DeviceWidth(c.type);
  if (!c.device_width) {
    c.unsupported = "type " + c.type.ToString() + " is not supported on the GPU yet";
    return;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  bool integral = c.type.id == TypeId::Integer || c.type.id == TypeId::BigInt || c.type.id == TypeId::Date ||
                  c.type.id == TypeId::Timestamp ||
                  c.type.id == TypeId::Decimal || c.type.id == TypeId::Boolean;
  bool range_known = true;
  for (auto& rg : data.row_groups) {
    const ColumnChunk& ch = *rg->columns[c.column];
    if (!ChunkForGpu(ch, c)) return;
    if (c.type.id == TypeId::Varchar) continue;  // its dictionary is built below
    if (integral && ch.stats.has_stats) {
      lo = std::min<int64_t>(lo, (int64_t)ch.stats.min.int_value());
      hi = std::max<int64_t>(hi, (int64_t)ch.stats.max.int_value());
    } else if (integral && ch.stats.null_count < ch.count) {
      range_known = false;  // values without statistics (a Parquet file may omit them)
    }
  }
  if (c.type.id == TypeId::Varchar) {
    // Every row's code comes with the dictionary, for the upload (host_codes).
    auto d = std::make_shared<ColumnDictionary>(ColumnDictionaryOf(c, data));
    c.domain.dict = d->dict;
    c.domain.has_range = true;
    c.domain.lo = 0;
    c.domain.hi = (int64_t)d->dict->size() - 1;
    // Kept unless large (a column planned but never uploaded would hold them): the upload
    // builds them again then.
    if (d->slot_codes.size() <= (64u << 20)) c.host_codes = std::move(d);
  } else if (integral && range_known && lo <= hi) {
    c.domain.has_range = true;
    c.domain.lo = lo;
    c.domain.hi = hi;
  }
  // Lane-packed on the device when the range fits in fewer bytes than the width, with
  // TESSERA_GPU_PACK=1: off by default, since the kernels ran 10-13% slower packed on the
  // H200 (they are bound by instructions and latency, not by bytes; docs/PERFORMANCE.md).
  static const bool pack = [] {
    const char* e = std::getenv("TESSERA_GPU_PACK");
    return e && std::string(e) == "1";
  }();
  if (pack && c.domain.has_range && c.device_width >= 4 && c.type.id != TypeId::Double && c.rows > 0) {
    const unsigned bytes = lanepack::BytesFor((uint64_t)c.domain.hi - (uint64_t)c.domain.lo);
    if ((int)bytes < c.device_width) {
      c.packed = true;
      c.packed_bytes_per_value = (int)bytes;
      // No reference where the values fit the same bytes as they are (codes, small
      // non-negative numbers): the kernels then add nothing.
      c.packed_ref = c.domain.lo >= 0 && lanepack::BytesFor((uint64_t)c.domain.hi) == bytes ? 0 : c.domain.lo;
      c.packed_bytes = LanePackedBytes(c.rows, (int)bytes);
    }
  }
}

uint64_t TileRows() { return (uint64_t)kBlockThreads * (uint64_t)ItemsPerThread(); }

uint64_t LanePackedBytes(uint64_t rows, int bytes) {
  const uint64_t tiles = (rows + TileRows() - 1) / TileRows();
  return tiles * lanepack::LaneWords((unsigned)ItemsPerThread(), (unsigned)bytes) * kBlockThreads * 4;
}

// Packs tiles [first, first + count) of a column whose values get() reads into `out` (the
// column's words from tile `first` on).
static void PackTiles(uint64_t rows, int bytes, int64_t ref, uint64_t first, uint64_t count,
                      const std::function<void(uint64_t, uint32_t, int64_t*)>& get, uint32_t* out) {
  const uint64_t T = TileRows();
  std::vector<int64_t> v(T);
  std::vector<uint32_t> f(T);
  for (uint64_t j = first; j < first + count; j++) {
    const uint32_t cnt = (uint32_t)std::min<uint64_t>(T, rows - j * T);
    get(j * T, cnt, v.data());
    for (uint32_t i = 0; i < cnt; i++) f[i] = (uint32_t)((uint64_t)v[i] - (uint64_t)ref);
    lanepack::PackTile(f.data(), cnt, (unsigned)bytes, kBlockThreads, (unsigned)ItemsPerThread(), j - first, out);
  }
}

PackedColumn PackColumn(uint64_t n, int bytes, int64_t ref, const std::function<void(uint64_t, uint32_t, int64_t*)>& get) {
  PackedColumn out;
  out.size = LanePackedBytes(n, bytes);
  out.bytes.reset(new uint8_t[out.size]);  // every word is written below, on the threads that pack
  const uint64_t tiles = (n + TileRows() - 1) / TileRows();
  const uint64_t per = 64, tasks = (tiles + per - 1) / per;  // tiles per task
  const uint64_t tile_words = out.size / 4 / std::max<uint64_t>(1, tiles);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  ParallelFor(tasks, threads, [&](uint64_t t, unsigned) {
    const uint64_t first = t * per, count = std::min(tiles, first + per) - first;
    PackTiles(n, bytes, ref, first, count, get,
              reinterpret_cast<uint32_t*>(out.bytes.get()) + first * tile_words);
  });
  return out;
}

std::shared_ptr<CachedColumn> ColumnCache::Get(const std::string& table, const std::shared_ptr<const TableData>& data,
                                               int column, const std::string& name, Type type, bool raw) {
  std::lock_guard<std::mutex> g(mu_);
  for (size_t i = 0; i < entries_.size(); i++) {
    auto& e = entries_[i];
    if (e->table != table || e->column != column || e->raw != raw) continue;
    auto snap = e->snapshot.lock();
    if (snap && snap.get() == data.get() && e->type == type) {
      e->last_use = epoch_;
      return e;
    }
    resident_ -= e->data.empty() ? 0 : e->device_bytes();  // stale: a newer snapshot replaced it
    entries_.erase(entries_.begin() + (long)i);
    break;
  }
  auto c = std::make_shared<CachedColumn>();
  c->table = table;
  c->column = column;
  c->name = name;
  c->type = type;
  c->rows = data->row_count;
  c->snapshot = data;
  c->last_use = epoch_;
  c->raw = raw && type.id == TypeId::Varchar;
  const auto t0 = std::chrono::steady_clock::now();
  ComputeHostInfo(*c, *data);
  if (UploadTrace())
    std::fprintf(stderr, "upload %s.%s: host info %.2f ms\n", table.c_str(), name.c_str(),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  entries_.push_back(c);
  return c;
}

void ColumnCache::BeginQuery() {
  std::lock_guard<std::mutex> g(mu_);
  epoch_++;
}

// A VARCHAR column's dictionary with its rows' codes: the one kept from the column's
// planning, or built again should the column be uploaded a second time.
static std::shared_ptr<const ColumnDictionary> HostCodes(const CachedColumn& c, const TableData& data) {
  if (c.host_codes) return c.host_codes;
  return std::make_shared<ColumnDictionary>(ColumnDictionaryOf(c, data));
}

// The codes of a whole VARCHAR column, the row groups on all host threads.
static std::vector<int32_t> DictionaryCodes(const ColumnDictionary& d, const TableData& data, int column) {
  const auto& groups = data.row_groups;
  std::vector<size_t> start(groups.size() + 1, 0);
  for (size_t g = 0; g < groups.size(); g++) start[g + 1] = start[g] + groups[g]->columns[column]->count;
  std::vector<int32_t> all(start.back());
  ParallelFor(groups.size(), 0, [&](uint64_t g, unsigned) {
    const ColumnChunk& ch = *groups[g]->columns[column];
    ch.EnsureVerified();  // (a stored dictionary chunk is loaded here)
    d.ChunkCodes(g, ch, all.data() + start[g]);
  });
  return all;
}

// A packed column in the device layout, read from its row groups (VARCHAR: the codes of
// its sorted dictionary) without a widened copy of the column.
static PackedColumn PackFromRowGroups(const CachedColumn& c, const TableData& data) {
  std::vector<int32_t> codes;
  if (c.type.id == TypeId::Varchar) {
    codes = DictionaryCodes(*HostCodes(c, data), data, c.column);
    return PackColumn(c.rows, c.packed_bytes_per_value, c.packed_ref, [&](uint64_t row, uint32_t cnt, int64_t* out) {
      for (uint32_t i = 0; i < cnt; i++) out[i] = codes[row + i];
    });
  }
  LoadChunks(data, c.column, /*fixed=*/false);  // the packer reads the decoded values
  const auto& groups = data.row_groups;
  std::vector<uint64_t> start(groups.size() + 1, 0);
  for (size_t g = 0; g < groups.size(); g++) start[g + 1] = start[g] + groups[g]->columns[c.column]->count;
  const bool four = c.device_width == 4;
  return PackColumn(c.rows, c.packed_bytes_per_value, c.packed_ref, [&](uint64_t row, uint32_t cnt, int64_t* out) {
    // The row group holding `row` (a tile may span two when a group is not a multiple of its rows).
    size_t g = std::upper_bound(start.begin(), start.end(), row) - start.begin() - 1;
    for (uint32_t i = 0; i < cnt;) {
      while (row + i >= start[g + 1]) g++;
      const ColumnChunk& ch = *groups[g]->columns[c.column];
      const uint64_t at = row + i - start[g];
      const uint32_t take = (uint32_t)std::min<uint64_t>(cnt - i, ch.count - at);
      if (four) {
        const int32_t* in = reinterpret_cast<const int32_t*>(ch.data) + at;
        for (uint32_t k = 0; k < take; k++) out[i + k] = in[k];
      } else {
        std::memcpy(out + i, reinterpret_cast<const int64_t*>(ch.data) + at, (size_t)take * 8);
      }
      i += take;
    }
  });
}

size_t ColumnCache::EnsureResident(CachedColumn& c, GpuContext& ctx) {
  std::lock_guard<std::mutex> g(mu_);
  c.last_use = epoch_;
  if (!c.data.empty()) return 0;
  auto snap = c.snapshot.lock();
  if (!snap) throw InternalError("column cache: table snapshot released before upload");
  // A packed column whose row groups are whole tiles (all but the last) is packed a row
  // group at a time straight into the staging buffers (its chunks decoded into a scratch
  // buffer of the thread); otherwise it is packed whole on the host first.
  const auto& groups = snap->row_groups;
  bool by_group = c.packed && c.type.id != TypeId::Varchar;
  for (size_t g = 0; by_group && g < groups.size(); g++) {
    const uint64_t cnt = groups[g]->columns[c.column]->count;
    by_group = (g + 1 == groups.size() || cnt % TileRows() == 0) && LanePackedBytes(cnt, c.packed_bytes_per_value) <= StagedUploader::SlotBytes();
  }
  PackedColumn packed;
  if (c.packed && !by_group) packed = PackFromRowGroups(c, *snap);
  const size_t bytes = c.device_bytes();
  const size_t budget = ctx.info().free_memory / 4 * 3;
  // Evict least recently used columns of earlier queries until the new one fits.
  while (resident_ + bytes > budget) {
    CachedColumn* victim = nullptr;
    for (auto& e : entries_)
      if (!e->data.empty() && e->last_use < epoch_ && (!victim || e->last_use < victim->last_use)) victim = e.get();
    if (!victim) break;
    resident_ -= victim->device_bytes();
    victim->data = DeviceBuffer();
  }
  if (bytes == 0) return 0;
  const auto ta = std::chrono::steady_clock::now();
  DeviceBuffer buf = ctx.AllocateUnpooled(bytes);
  if (UploadTrace())
    std::fprintf(stderr, "upload %s.%s: device allocation %.2f ms\n", c.table.c_str(), c.name.c_str(),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ta).count());
  const size_t w = (size_t)c.device_width;
  size_t moved = bytes;  // over PCIe
  // The bytes, in device order, as host ranges for the staged upload (several threads and
  // streams: staged_upload.hpp).
  std::vector<UploadItem> items;
  std::vector<uint8_t> raw_bytes;
  uint64_t raw_offsets_end = 0;
  std::vector<int32_t> codes;
  std::shared_ptr<const ColumnDictionary> host_codes;
  bool codes_on_device = false;  // VARCHAR codes decoded on the device (UploadEncoded)
  if (c.packed && by_group) {
    for (auto& rg : groups) {
      const ColumnChunk* ch = rg->columns[c.column].get();
      items.push_back({LanePackedBytes(ch->count, c.packed_bytes_per_value), nullptr, [ch, &c, w](void* out) {
                         thread_local std::vector<uint8_t> scratch;
                         const void* values = ch->data;
                         if (!ch->Loaded() && ch->CanDecodeInto()) {
                           scratch.resize((size_t)ch->count * w);
                           if (ch->DecodeInto(scratch.data())) values = scratch.data();
                         }
                         if (values != scratch.data()) {
                           ch->EnsureVerified();
                           values = ch->data;
                         }
                         const uint64_t tiles = (ch->count + TileRows() - 1) / TileRows();
                         PackTiles(ch->count, c.packed_bytes_per_value, c.packed_ref, 0, tiles,
                                   [values, w](uint64_t row, uint32_t cnt, int64_t* v) {
                                     if (w == 4)
                                       for (uint32_t i = 0; i < cnt; i++) v[i] = static_cast<const int32_t*>(values)[row + i];
                                     else
                                       std::memcpy(v, static_cast<const int64_t*>(values) + row, (size_t)cnt * 8);
                                   },
                                   static_cast<uint32_t*>(out));
                       }});
    }
  } else if (c.packed) {
    items.push_back({packed.size, packed.bytes.get(), nullptr});
  } else if (c.raw) {
    if (!RawStringItems(c, *snap, items, raw_offsets_end)) {
      raw_bytes = RawStrings(c, *snap);
      items.push_back({raw_bytes.size(), raw_bytes.data(), nullptr});
    }
  } else if (c.type.id == TypeId::Varchar) {
    // Stored dictionary chunks' codes are decoded on the device (UploadEncoded). Otherwise
    // a row group's codes are written straight into the staging buffer where they fit (no
    // column-sized array filled first and copied again); the chunks are loaded.
    host_codes = HostCodes(c, *snap);
    codes_on_device = UploadEncoded(c, *snap, ctx, buf, &moved, host_codes.get());
    bool per_group = true;
    for (auto& rg : groups) per_group = per_group && (size_t)rg->columns[c.column]->count * 4 <= StagedUploader::SlotBytes();
    if (codes_on_device) {
      // (done)
    } else if (per_group) {
      for (size_t g = 0; g < groups.size(); g++) {
        const ColumnChunk* ch = groups[g]->columns[c.column].get();
        items.push_back({(size_t)ch->count * 4, nullptr, [ch, g, &c, d = host_codes.get()](void* out) {
                           ch->EnsureVerified();
                           try {
                             d->ChunkCodes(g, *ch, static_cast<int32_t*>(out));
                           } catch (const std::runtime_error& e) {
                             throw UserError(ErrorKind::IO, "database file of table " + c.table + " is corrupt (" + e.what() + ")");
                           }
                         }});
      }
    } else {
      codes = DictionaryCodes(*host_codes, *snap, c.column);
      items.push_back({codes.size() * 4, codes.data(), nullptr});
    }
  } else if (UploadEncoded(c, *snap, ctx, buf, &moved)) {
    items.clear();
  } else {
    for (auto& rg : snap->row_groups) {
      const ColumnChunk* ch = rg->columns[c.column].get();
      const size_t n = (size_t)ch->count * w;
      if (ch->Loaded() || !ch->CanDecodeInto() || n > StagedUploader::SlotBytes()) {
        ch->EnsureVerified();
        items.push_back({n, ch->data, nullptr});
      } else {
        // Decoded into the staging buffer (or copied, should a scan have loaded it meanwhile).
        items.push_back({n, nullptr, [ch, n](void* out) {
                           if (ch->DecodeInto(out)) return;
                           ch->EnsureVerified();
                           std::memcpy(out, ch->data, n);
                         }});
      }
    }
  }
  if (!items.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    uploader_.Upload(ctx, items, buf);
    if (UploadTrace())
      std::fprintf(stderr, "upload %s.%s: %.1f MB copied, staged copy %.2f ms\n", c.table.c_str(), c.name.c_str(),
                   bytes / 1e6, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  c.data = std::move(buf);
  c.host_codes.reset();  // the device has the codes now
  resident_ += bytes;
  counts_.columns++;
  counts_.column_bytes += bytes;
  counts_.moved_bytes += moved;
  return moved;
}

bool ColumnCache::UploadEncoded(const CachedColumn& c, const TableData& snap, GpuContext& ctx, DeviceBuffer& dst,
                                size_t* moved, const ColumnDictionary* strings) {
  if (!DeviceDecode()) return false;
  const unsigned w = (unsigned)c.device_width;
  // Per chunk: the stream's plan; a chunk the device cannot decode (stored plain, a
  // Parquet file's, one whose stream does not parse) goes as its values (kind 0, decoded on
  // the host if need be, which reports a corrupt file).
  struct Chunk {
    const ColumnChunk* ch;
    codec::GpuStreamPlan plan;
    bool encoded;
  };
  std::vector<Chunk> chunks;
  bool any = false;
  for (auto& rg : snap.row_groups) {
    const ColumnChunk* ch = rg->columns[c.column].get();
    Chunk k{ch, {}, false};
    const uint8_t* p;
    size_t len;
    // VARCHAR codes (`strings`): a dictionary chunk's stored codes stream (the blob stays
    // mapped once the chunk is loaded).
    const bool can = strings ? ch->LayoutKnown() && ch->str_enc == StringEncoding::Dictionary
                             : (unsigned)ch->type.width() == w;
    if (can && ch->EncodedBlob(false, &p, &len) &&
        codec::PlanGpuStream(p, len, ch->count, (int)w, &k.plan, strings != nullptr) &&
        k.plan.kind != gpustream::kValues && k.plan.bytes <= StagedUploader::SlotBytes())
      k.encoded = any = true;
    if (strings && !k.encoded && (size_t)ch->count * 4 > StagedUploader::SlotBytes()) return false;
    chunks.push_back(k);
  }
  if (!any) return false;
  // A dictionary chunk's codes are its own dictionary's: the device maps them to the
  // column's through the chunk's slot codes (ColumnDictionary), a table of u32 after a
  // 16-byte header holding its size.
  auto remap_bytes = [&](size_t g) {
    return strings && chunks[g].encoded ? 16 + gpustream::Pad16((size_t)chunks[g].ch->dict_size * 4) : 0;
  };
  // Worth it only when the stored forms are clearly smaller than the values (the scratch
  // buffer and the decoding cost a little; a column stored mostly plain goes directly).
  size_t stored = 0;
  for (size_t g = 0; g < chunks.size(); g++)
    stored += (chunks[g].encoded ? chunks[g].plan.bytes : (size_t)chunks[g].ch->count * w + 32) + remap_bytes(g);
  if (stored * 10 > (size_t)c.rows * w * 9) return false;
  // The scratch buffer: a table (per chunk its stream's offset, its first row and its code
  // map's offset or 0, the first decoding block of each chunk, the corruption flag), then
  // the streams and the code maps, 16-byte aligned.
  const size_t n = chunks.size();
  const size_t table_words = n * 3 + (n + 1 + 1 + 1) / 2;  // u64 src, row, remap; u32 first_block[n + 1], bad
  std::vector<uint64_t> table(gpustream::Pad16(table_words * 8) / 8, 0);
  uint64_t* src = table.data();
  uint64_t* row = src + n;
  uint64_t* remap = row + n;
  uint32_t* first_block = reinterpret_cast<uint32_t*>(remap + n);
  const size_t bad_at = (size_t)(n * 3) * 8 + (n + 1) * 4;
  std::vector<std::array<uint32_t, 4>> remap_headers(n);
  std::vector<std::array<uint32_t, 4>> headers(n);
  static const uint8_t zeros[16] = {};
  std::vector<UploadItem> items;
  items.push_back({table.size() * 8, table.data(), nullptr});
  size_t at = table.size() * 8;
  uint64_t r = 0, blocks = 0;
  for (size_t i = 0; i < n; i++) {
    const Chunk& k = chunks[i];
    const uint32_t cnt = k.ch->count;
    src[i] = at;
    row[i] = r;
    first_block[i] = (uint32_t)blocks;
    r += cnt;
    blocks += (cnt + 1023) / 1024;
    if (k.encoded) {
      items.push_back({k.plan.bytes, nullptr, [ch = k.ch, plan = k.plan, &c](void* out) {
                         const uint8_t* p;
                         size_t len;
                         if (!ch->EncodedBlob(true, &p, &len)) throw InternalError("column cache: encoded chunk vanished");
                         try {
                           codec::WriteGpuStream(p, plan, static_cast<uint8_t*>(out));
                         } catch (const codec::DecodeError& e) {
                           throw UserError(ErrorKind::IO, "database file of table " + c.table + " is corrupt (" + e.what() + ")");
                         }
                       }});
      at += k.plan.bytes;
      continue;
    }
    // Values as they are: a header, the values, zeros to the next 16 bytes.
    headers[i] = {gpustream::kValues, w, cnt, 0};
    items.push_back({gpustream::kHeaderBytes, headers[i].data(), nullptr});
    const size_t vb = (size_t)cnt * w;
    if (strings) {  // the column's codes of a loaded or plain chunk, written by the host
      items.push_back({vb, nullptr, [ch = k.ch, i, strings, &c](void* out) {
                         ch->EnsureVerified();
                         try {
                           strings->ChunkCodes(i, *ch, static_cast<int32_t*>(out));
                         } catch (const std::runtime_error& e) {
                           throw UserError(ErrorKind::IO, "database file of table " + c.table + " is corrupt (" + e.what() + ")");
                         }
                       }});
    } else if (k.ch->Loaded() || !k.ch->CanDecodeInto() || vb > StagedUploader::SlotBytes()) {
      k.ch->EnsureVerified();
      items.push_back({vb, k.ch->data, nullptr});
    } else {
      items.push_back({vb, nullptr, [ch = k.ch, vb](void* out) {
                         if (ch->DecodeInto(out)) return;
                         ch->EnsureVerified();
                         std::memcpy(out, ch->data, vb);
                       }});
    }
    const size_t pad = gpustream::Pad16(vb) - vb;
    if (pad) items.push_back({pad, zeros, nullptr});
    at += gpustream::kHeaderBytes + gpustream::Pad16(vb);
  }
  for (size_t i = 0; strings && i < n; i++) {
    if (!chunks[i].encoded) continue;
    const uint32_t k = chunks[i].ch->dict_size;
    remap[i] = at;
    remap_headers[i] = {k, 0, 0, 0};
    items.push_back({16, remap_headers[i].data(), nullptr});
    items.push_back({(size_t)k * 4, strings->slot_codes.data() + strings->slot_base[i], nullptr});
    const size_t pad = gpustream::Pad16((size_t)k * 4) - (size_t)k * 4;
    if (pad) items.push_back({pad, zeros, nullptr});
    at += remap_bytes(i);
  }
  first_block[n] = (uint32_t)blocks;
  if (blocks > 0x7fffffffull) return false;
  const auto t0 = std::chrono::steady_clock::now();
  const LibraryKernels& lib = KernelCache::Instance().Library(ctx);
  DeviceBuffer scratch = ctx.AllocateUnpooled(at);
  const auto t1 = std::chrono::steady_clock::now();
  uploader_.Upload(ctx, items, scratch);
  const auto t2 = std::chrono::steady_clock::now();
  const CUdeviceptr base = scratch.ptr();
  if (blocks)
    ctx.LaunchKernel(lib.decode_streams, (unsigned)blocks, 256, 0, nullptr, base, base, base + n * 8, base + n * 16,
                     base + n * 24, (unsigned)n, dst.ptr(), (int)w, base + bad_at);
  uint32_t bad = 0;
  scratch.CopyToHost(&bad, 4, bad_at);  // waits for the kernel (legacy default stream)
  if (UploadTrace()) {
    const auto t3 = std::chrono::steady_clock::now();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::fprintf(stderr, "upload %s.%s: %zu chunks, %.1f MB copied for %.1f MB; library + scratch %.2f ms, staged copy %.2f ms, decode %.2f ms\n",
                 c.table.c_str(), c.name.c_str(), n, at / 1e6, (double)c.rows * w / 1e6, ms(t0, t1), ms(t1, t2), ms(t2, t3));
  }
  if (bad) throw UserError(ErrorKind::IO, "database file of table " + c.table + " is corrupt (dictionary code out of range)");
  *moved = at;
  for (const Chunk& k : chunks) counts_.device_decoded_chunks += k.encoded;
  if (strings)
    for (const Chunk& k : chunks) counts_.device_decoded_string_chunks += k.encoded;
  return true;
}

std::string CachedColumn::SizeText() const {
  char size[96];
  if (packed)
    std::snprintf(size, sizeof size, "%.1f MiB packed, %d byte%s a value (%.1f MiB plain)", device_bytes() / 1048576.0,
                  packed_bytes_per_value, packed_bytes_per_value == 1 ? "" : "s", plain_bytes() / 1048576.0);
  else
    std::snprintf(size, sizeof size, "%.1f MiB", device_bytes() / 1048576.0);
  return size;
}

std::vector<std::string> ColumnCache::Describe() {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<std::string> out;
  for (auto& e : entries_) {
    char buf[320];
    std::snprintf(buf, sizeof buf, "%s.%s  %s  %llu rows  %s  %s  (last used by query %llu of %llu)",
                  e->table.c_str(), e->name.c_str(), (e->type.ToString() + (e->raw ? " (bytes)" : "")).c_str(), (unsigned long long)e->rows,
                  e->SizeText().c_str(),
                  !e->unsupported.empty() ? ("not on the GPU: " + e->unsupported).c_str()
                                          : (e->data.empty() ? "not resident" : "resident"),
                  (unsigned long long)e->last_use, (unsigned long long)epoch_);
    out.push_back(buf);
  }
  return out;
}

UploadCounts ColumnCache::upload_counts() {
  std::lock_guard<std::mutex> g(mu_);
  return counts_;
}

size_t ColumnCache::resident_bytes() {
  std::lock_guard<std::mutex> g(mu_);
  return resident_;
}

void ColumnCache::Clear() {
  std::lock_guard<std::mutex> g(mu_);
  entries_.clear();
  resident_ = 0;
}

}  // namespace tessera::gpu
