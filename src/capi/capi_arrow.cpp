// C API: a result's rows as an Arrow C stream (tessera_result_arrow_stream), and Arrow
// C streams as temporary tables (tessera_register_arrow_stream, arrow_import.hpp).
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <mutex>
#include <exception>
#include <vector>

#include "capi/arrow_import.hpp"
#include "capi/capi_handles.hpp"
#include "common/interval.hpp"
#include "main/plan_cache.hpp"

using namespace tessera;

namespace {

// ---- schemas -----------------------------------------------------------------------------

struct SchemaData {
  std::string format, name;
  std::vector<std::unique_ptr<ArrowSchema>> child_storage;
  std::vector<ArrowSchema*> children;
};

void ReleaseSchema(ArrowSchema* s) {
  if (!s || !s->release) return;
  auto* d = static_cast<SchemaData*>(s->private_data);
  for (auto* c : d->children)
    if (c->release) c->release(c);
  delete d;
  s->release = nullptr;
}

std::string FormatOf(const Type& t) {
  switch (t.id) {
    case TypeId::Null: return "n";
    case TypeId::Boolean: return "b";
    case TypeId::Integer: return "i";
    case TypeId::BigInt: return "l";
    case TypeId::Double: return "g";
    case TypeId::Decimal: return "d:" + std::to_string(t.precision) + "," + std::to_string(t.scale);
    case TypeId::Date: return "tdD";
    case TypeId::Timestamp: return "tsu:";  // microseconds, no time zone
    case TypeId::Time: return "ttu";        // time64, microseconds
    case TypeId::Blob: return "z";          // binary
    case TypeId::Interval: return "tin";    // month_day_nano
    case TypeId::Varchar: return "u";
  }
  throw InternalError("no Arrow format for type " + t.ToString());
}

void FillSchema(ArrowSchema* out, std::string format, std::string name, int64_t flags, SchemaData* d) {
  d->format = std::move(format);
  d->name = std::move(name);
  out->format = d->format.c_str();
  out->name = d->name.c_str();
  out->metadata = nullptr;
  out->flags = flags;
  out->n_children = (int64_t)d->children.size();
  out->children = d->children.empty() ? nullptr : d->children.data();
  out->dictionary = nullptr;
  out->release = ReleaseSchema;
  out->private_data = d;
}

void ExportSchema(const QueryResult& r, ArrowSchema* out) {
  auto d = std::make_unique<SchemaData>();
  const size_t ncols = r.has_rows ? r.types.size() : 0;
  try {
    for (size_t c = 0; c < ncols; c++) {
      auto child = std::make_unique<ArrowSchema>();
      child->release = nullptr;
      d->children.push_back(child.get());
      d->child_storage.push_back(std::move(child));
      std::string format = FormatOf(r.types[c]);
      FillSchema(d->children.back(), std::move(format), c < r.names.size() ? r.names[c] : "", ARROW_FLAG_NULLABLE,
                 new SchemaData());
    }
  } catch (...) {
    for (auto* child : d->children)
      if (child->release) child->release(child);
    throw;
  }
  FillSchema(out, "+s", "", 0, d.release());
}

// ---- arrays ------------------------------------------------------------------------------
//
// A batch covers consecutive result chunks, up to kBatchRows rows (DuckDB's default Arrow
// batch size). A fixed-width column of a batch of one chunk points into the chunk's vector
// (zero-copy; the array keeps the result alive); otherwise its chunks are copied one after
// another into one 64-byte aligned buffer, once, without zero-filling it first.

constexpr uint64_t kBatchRows = 1u << 20;

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};

struct ArrayData {
  std::vector<std::unique_ptr<uint8_t, FreeDeleter>> storage;  // the buffers we made
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<ArrowArray>> child_storage;
  std::vector<ArrowArray*> children;
  std::shared_ptr<const QueryResult> result;  // set when a buffer points into its chunks
};

void ReleaseArray(ArrowArray* a) {
  if (!a || !a->release) return;
  auto* d = static_cast<ArrayData*>(a->private_data);
  for (auto* c : d->children)
    if (c->release) c->release(c);  // a child the consumer moved away has release == NULL
  delete d;
  a->release = nullptr;
}

void FillArray(ArrowArray* out, int64_t length, int64_t null_count, ArrayData* d) {
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = (int64_t)d->buffers.size();
  out->n_children = (int64_t)d->children.size();
  out->buffers = d->buffers.empty() ? nullptr : d->buffers.data();
  out->children = d->children.empty() ? nullptr : d->children.data();
  out->dictionary = nullptr;
  out->release = ReleaseArray;
  out->private_data = d;
}

// Adds an uninitialised buffer of `bytes` bytes (64-byte aligned and padded, as Arrow
// recommends) and returns it.
uint8_t* AddBuffer(ArrayData& d, size_t bytes) {
  size_t padded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, padded));
  if (!p) throw std::bad_alloc();
  d.storage.emplace_back(p);
  d.buffers.push_back(p);
  return p;
}
uint8_t* AddZeroedBuffer(ArrayData& d, size_t bytes) {
  uint8_t* p = AddBuffer(d, bytes);
  std::memset(p, 0, (std::max<size_t>(bytes, 1) + 63) / 64 * 64);
  return p;
}

// Rows of column `col` in chunks [first, last) of `r`; chunk k's rows start at row
// start[k - first] of the batch.
struct Span {
  const QueryResult& r;
  size_t first, last, col;
  const std::vector<uint64_t>& start;
  unsigned threads;
  uint64_t rows() const { return start.back(); }
  const Vector& vec(size_t k) const { return r.chunks[k].cols[col]; }
  uint32_t size(size_t k) const { return r.chunks[k].size; }
  uint64_t at(size_t k) const { return start[k - first]; }
};

// Runs fn(k) for every chunk k of the span, split over up to s.threads threads when the
// work (`bytes` to copy) is large enough to pay for them; fn must only write the rows of
// chunk k.
template <class F>
void ForChunks(const Span& s, uint64_t bytes, F fn) {
  const size_t chunks = s.last - s.first;
  unsigned threads = s.threads;
  threads = (unsigned)std::min<uint64_t>({threads, bytes / (2u << 20), chunks});
  if (threads <= 1) {
    for (size_t k = s.first; k < s.last; k++) fn(k);
    return;
  }
  std::vector<std::thread> pool;
  std::exception_ptr error;
  std::mutex mu;
  for (unsigned t = 0; t < threads; t++) {
    size_t b = s.first + chunks * t / threads, e = s.first + chunks * (t + 1) / threads;
    pool.emplace_back([&, b, e] {
      try {
        for (size_t k = b; k < e; k++) fn(k);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu);
        error = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

void ExportColumn(const Span& s, const Type& t, const std::shared_ptr<const QueryResult>& keep, ArrowArray* out) {
  auto d = std::make_unique<ArrayData>();
  const int64_t n = (int64_t)s.rows();
  if (t.id == TypeId::Null) {  // the null type has no buffers
    FillArray(out, n, n, d.release());
    return;
  }
  // Validity: a bitmap (least significant bit first) when some row is NULL, else absent.
  int64_t nulls = 0;
  for (size_t k = s.first; k < s.last; k++) {
    const Vector& v = s.vec(k);
    if (!v.has_nulls()) continue;
    const uint8_t* valid = v.validity_or_null();
    for (uint32_t i = 0; i < s.size(k); i++) nulls += valid[i] == 0;
  }
  if (nulls == 0) {
    d->buffers.push_back(nullptr);
  } else {
    uint8_t* bits = AddZeroedBuffer(*d, ((size_t)n + 7) / 8);
    uint64_t at = 0;
    for (size_t k = s.first; k < s.last; k++) {
      const Vector& v = s.vec(k);
      for (uint32_t i = 0; i < s.size(k); i++, at++)
        if (v.IsValid(i)) bits[at / 8] |= (uint8_t)(1u << (at % 8));
    }
  }
  switch (t.id) {
    case TypeId::Boolean: {
      uint8_t* bits = AddZeroedBuffer(*d, ((size_t)n + 7) / 8);
      uint64_t at = 0;
      for (size_t k = s.first; k < s.last; k++) {
        const Vector& v = s.vec(k);
        const uint8_t* src = v.data<uint8_t>();
        for (uint32_t i = 0; i < s.size(k); i++, at++)
          if (v.IsValid(i) && src[i]) bits[at / 8] |= (uint8_t)(1u << (at % 8));
      }
      break;
    }
    case TypeId::Integer:
    case TypeId::Date:
    case TypeId::BigInt:
    case TypeId::Timestamp:
    case TypeId::Time:
    case TypeId::Double: {
      const size_t w = (size_t)t.width();
      if (s.last - s.first == 1) {  // the chunk's own buffer, shared
        d->buffers.push_back(s.vec(s.first).raw());
        d->result = keep;
        break;
      }
      uint8_t* dst = AddBuffer(*d, (size_t)n * w);
      ForChunks(s, (uint64_t)n * w, [&](size_t k) { std::memcpy(dst + s.at(k) * w, s.vec(k).raw(), s.size(k) * w); });
      break;
    }
    case TypeId::Decimal: {  // decimal128: 16-byte little-endian two's complement
      if (t.physical() == PhysType::I128 && s.last - s.first == 1) {
        d->buffers.push_back(s.vec(s.first).raw());
        d->result = keep;
        break;
      }
      auto* dst = AddBuffer(*d, (size_t)n * 16);
      ForChunks(s, (uint64_t)n * 16, [&](size_t k) {
        const Vector& v = s.vec(k);
        uint8_t* o = dst + s.at(k) * 16;
        if (t.physical() == PhysType::I128) {
          std::memcpy(o, v.raw(), s.size(k) * 16);
        } else {
          for (uint32_t i = 0; i < s.size(k); i++) {
            int128_t x = v.data<int64_t>()[i];
            std::memcpy(o + (size_t)i * 16, &x, 16);
          }
        }
      });
      break;
    }
    case TypeId::Interval: {  // month_day_nano: int32 months, int32 days, int64 nanoseconds
      uint8_t* dst = AddBuffer(*d, (size_t)n * 16);
      ForChunks(s, (uint64_t)n * 16, [&](size_t k) {
        const Vector& v = s.vec(k);
        uint8_t* o = dst + s.at(k) * 16;
        for (uint32_t i = 0; i < s.size(k); i++) {
          const IntervalParts p = UnpackInterval(v.data<int128_t>()[i]);
          const int64_t nanos = p.micros * 1000;  // |micros| <= 9.2e15 after parsing fits; larger wraps
          std::memcpy(o + (size_t)i * 16, &p.months, 4);
          std::memcpy(o + (size_t)i * 16 + 4, &p.days, 4);
          std::memcpy(o + (size_t)i * 16 + 8, &nanos, 8);
        }
      });
      break;
    }
    case TypeId::Blob:
    case TypeId::Varchar: {  // utf8 / binary: int32 offsets (n + 1), then the bytes
      // Each chunk's bytes, then their starts (a prefix sum), then the copies in parallel.
      std::vector<uint64_t> at(s.last - s.first + 1, 0);
      for (size_t k = s.first; k < s.last; k++) {
        const Vector& v = s.vec(k);
        const StrRef* str = v.data<StrRef>();
        uint64_t b = 0;
        for (uint32_t i = 0; i < s.size(k); i++)
          if (v.IsValid(i)) b += str[i].size();
        at[k - s.first + 1] = at[k - s.first] + b;
      }
      const uint64_t total = at.back();
      if (total > (uint64_t)INT32_MAX) throw UserError(ErrorKind::Unsupported, "a batch's strings exceed 2 GiB");
      auto* offsets = reinterpret_cast<int32_t*>(AddBuffer(*d, ((size_t)n + 1) * 4));
      uint8_t* bytes = AddBuffer(*d, (size_t)total);
      ForChunks(s, total + (uint64_t)n * 4, [&](size_t k) {
        const Vector& v = s.vec(k);
        const StrRef* str = v.data<StrRef>();
        int32_t pos = (int32_t)at[k - s.first];
        int32_t* off = offsets + s.at(k);
        for (uint32_t i = 0; i < s.size(k); i++) {
          off[i] = pos;
          if (v.IsValid(i) && !str[i].empty()) {
            std::memcpy(bytes + pos, str[i].data(), str[i].size());
            pos += (int32_t)str[i].size();
          }
        }
      });
      offsets[n] = (int32_t)total;
      break;
    }
    case TypeId::Null: break;
  }
  FillArray(out, n, nulls, d.release());
}

// String bytes of chunk k's VARCHAR columns (the largest of them), to keep a batch's
// strings under Arrow utf8's 2 GiB.
uint64_t MaxStringBytes(const QueryResult& r, size_t k) {
  uint64_t most = 0;
  for (size_t col = 0; col < r.types.size(); col++) {
    if (r.types[col].id != TypeId::Varchar) continue;
    const Vector& v = r.chunks[k].cols[col];
    const StrRef* str = v.data<StrRef>();
    uint64_t b = 0;
    for (uint32_t i = 0; i < r.chunks[k].size; i++)
      if (v.IsValid(i)) b += str[i].size();
    most = std::max(most, b);
  }
  return most;
}

// Chunks [first, last) of `r` as one struct array.
void ExportBatch(const std::shared_ptr<const QueryResult>& keep, size_t first, size_t last, unsigned threads,
                 ArrowArray* out) {
  const QueryResult& r = *keep;
  std::vector<uint64_t> start(last - first + 1, 0);
  for (size_t k = first; k < last; k++) start[k - first + 1] = start[k - first] + r.chunks[k].size;
  auto d = std::make_unique<ArrayData>();
  d->buffers.push_back(nullptr);  // the struct's rows are all valid
  try {
    for (size_t col = 0; col < r.types.size(); col++) {
      auto child = std::make_unique<ArrowArray>();
      child->release = nullptr;
      d->children.push_back(child.get());
      d->child_storage.push_back(std::move(child));
      ExportColumn(Span{r, first, last, col, start, threads}, r.types[col], keep, d->children.back());
    }
  } catch (...) {
    for (auto* child : d->children)
      if (child->release) child->release(child);
    throw;
  }
  FillArray(out, (int64_t)start.back(), 0, d.release());
}

// ---- the stream --------------------------------------------------------------------------

struct StreamData {
  std::shared_ptr<const QueryResult> result;
  unsigned threads = 1;  // for copying a batch's columns
  size_t next = 0;
  std::string error;
};

int Fail(StreamData* s, int code) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    s->error = "out of memory";
    return ENOMEM;
  } catch (const std::exception& e) {
    s->error = e.what();
  } catch (...) {
    s->error = "unknown error";
  }
  return code;
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  if (!stream || !stream->private_data || !out) return EINVAL;
  auto* s = static_cast<StreamData*>(stream->private_data);
  try {
    ExportSchema(*s->result, out);
    return 0;
  } catch (...) {
    return Fail(s, EIO);
  }
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  if (!stream || !stream->private_data || !out) return EINVAL;
  auto* s = static_cast<StreamData*>(stream->private_data);
  const QueryResult& r = *s->result;
  const size_t nchunks = r.has_rows ? r.chunks.size() : 0;
  while (s->next < nchunks && r.chunks[s->next].size == 0) s->next++;
  if (s->next >= nchunks) {  // the end: a released array
    std::memset(out, 0, sizeof *out);
    out->release = nullptr;
    return 0;
  }
  try {
    // Chunks up to kBatchRows rows (and 2 GiB of strings in a column), at least one.
    const bool strings = std::any_of(r.types.begin(), r.types.end(), [](const Type& t) { return t.id == TypeId::Varchar; });
    size_t last = s->next;
    uint64_t rows = 0, bytes = 0;
    while (last < nchunks) {
      uint64_t b = strings ? MaxStringBytes(r, last) : 0;
      if (last > s->next && (rows + r.chunks[last].size > kBatchRows || bytes + b > (uint64_t)INT32_MAX)) break;
      rows += r.chunks[last].size;
      bytes += b;
      last++;
    }
    ExportBatch(s->result, s->next, last, s->threads, out);
    s->next = last;
    return 0;
  } catch (...) {
    return Fail(s, EIO);
  }
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  if (!stream || !stream->private_data) return nullptr;
  auto* s = static_cast<StreamData*>(stream->private_data);
  return s->error.empty() ? nullptr : s->error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (!stream || !stream->release) return;
  delete static_cast<StreamData*>(stream->private_data);
  stream->private_data = nullptr;
  stream->release = nullptr;
}

}  // namespace

extern "C" {

tessera_state tessera_result_arrow_stream(tessera_result result, struct ArrowArrayStream* out_stream) {
  if (!out_stream) return TESSERA_MISUSE;
  std::memset(out_stream, 0, sizeof *out_stream);
  if (!result || !result->data) return TESSERA_MISUSE;
  if (result->error.failed) return capi::StateOf(result->error);
  try {
    auto s = std::make_unique<StreamData>();
    s->result = result->data;
    s->threads = std::min(result->threads ? result->threads : std::max(1u, std::thread::hardware_concurrency()), 16u);
    out_stream->get_schema = StreamGetSchema;
    out_stream->get_next = StreamGetNext;
    out_stream->get_last_error = StreamGetLastError;
    out_stream->release = StreamRelease;
    out_stream->private_data = s.release();
    return TESSERA_OK;
  } catch (...) {
    return TESSERA_ERROR;
  }
}

tessera_state tessera_register_arrow_stream(tessera_connection connection, const char* name,
                                            struct ArrowArrayStream* stream, bool replace, uint64_t* out_rows,
                                            char** out_error) {
  if (out_error) *out_error = nullptr;
  if (out_rows) *out_rows = 0;
  if (!stream) return TESSERA_MISUSE;
  auto fail = [&](const std::string& msg) {
    if (stream->release) stream->release(stream);
    if (out_error) *out_error = capi::CopyString(msg);
    return TESSERA_ERROR;
  };
  if (!connection || !connection->db || !name || !*name || !stream->release) return fail("bad arguments");
  try {
    TableSchema schema;
    auto data = capi::ImportArrowStream(stream, name, false, schema, connection->db->threads());
    uint64_t rows = data->row_count;
    connection->db->catalog().PutTemporaryTable(std::move(schema), std::move(data), replace);
    connection->db->plan_cache().Clear();  // cached plans (now stale) would keep replaced data alive
    if (out_rows) *out_rows = rows;
    return TESSERA_OK;
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

tessera_state tessera_unregister_arrow(tessera_connection connection, const char* name) {
  if (!connection || !connection->db || !name) return TESSERA_MISUSE;
  try {
    auto& cat = connection->db->catalog();
    auto e = cat.GetTable(name);
    if (!e || !e->temporary) return TESSERA_ERROR;
    cat.DropTable(name, true);
    connection->db->plan_cache().Clear();  // cached plans (now stale) would keep the data alive
    return TESSERA_OK;
  } catch (...) {
    return TESSERA_ERROR;
  }
}

}  // extern "C"
