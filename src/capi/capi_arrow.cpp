// C API: a result's rows as an Arrow C stream (tessera_result_arrow_stream). Every array
// owns copies of its buffers (private_data); the stream shares the result's rows, so it
// outlives the result handle.
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "capi/capi_handles.hpp"

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

struct ArrayData {
  std::vector<std::vector<uint8_t>> storage;  // the buffers' bytes
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<ArrowArray>> child_storage;
  std::vector<ArrowArray*> children;
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

// Adds a buffer of `bytes` zeroed bytes (at least 8, so no buffer is empty) and returns it.
uint8_t* AddBuffer(ArrayData& d, size_t bytes) {
  d.storage.emplace_back(std::max<size_t>(bytes, 8), 0);
  d.buffers.push_back(d.storage.back().data());
  return d.storage.back().data();
}

void ExportColumn(const Vector& v, const Type& t, uint32_t n, ArrowArray* out) {
  auto d = std::make_unique<ArrayData>();
  if (t.id == TypeId::Null) {  // the null type has no buffers
    FillArray(out, n, n, d.release());
    return;
  }
  // Validity: a bitmap (least significant bit first) when some row is NULL, else absent.
  int64_t nulls = 0;
  for (uint32_t r = 0; r < n; r++) nulls += !v.IsValid(r);
  if (nulls == 0) {
    d->buffers.push_back(nullptr);
  } else {
    uint8_t* bits = AddBuffer(*d, (n + 7) / 8);
    for (uint32_t r = 0; r < n; r++)
      if (v.IsValid(r)) bits[r / 8] |= (uint8_t)(1u << (r % 8));
  }
  switch (t.id) {
    case TypeId::Boolean: {
      uint8_t* bits = AddBuffer(*d, (n + 7) / 8);
      const uint8_t* src = v.data<uint8_t>();
      for (uint32_t r = 0; r < n; r++)
        if (v.IsValid(r) && src[r]) bits[r / 8] |= (uint8_t)(1u << (r % 8));
      break;
    }
    case TypeId::Integer:
    case TypeId::Date:
    case TypeId::BigInt:
    case TypeId::Double: {
      const size_t w = (size_t)t.width();
      std::memcpy(AddBuffer(*d, n * w), v.raw(), n * w);
      break;
    }
    case TypeId::Decimal: {  // decimal128: 16-byte little-endian two's complement
      auto* dst = reinterpret_cast<int128_t*>(AddBuffer(*d, (size_t)n * 16));
      for (uint32_t r = 0; r < n; r++) {
        int128_t x = t.physical() == PhysType::I64 ? (int128_t)v.data<int64_t>()[r] : v.data<int128_t>()[r];
        std::memcpy(&dst[r], &x, 16);
      }
      break;
    }
    case TypeId::Varchar: {  // utf8: int32 offsets (n + 1), then the bytes
      const StrRef* s = v.data<StrRef>();
      uint64_t total = 0;
      for (uint32_t r = 0; r < n; r++)
        if (v.IsValid(r)) total += s[r].size();
      if (total > (uint64_t)INT32_MAX) throw UserError(ErrorKind::Unsupported, "a chunk's strings exceed 2 GiB");
      auto* offsets = reinterpret_cast<int32_t*>(AddBuffer(*d, ((size_t)n + 1) * 4));
      uint8_t* bytes = AddBuffer(*d, (size_t)total);
      int32_t at = 0;
      for (uint32_t r = 0; r < n; r++) {
        offsets[r] = at;
        if (v.IsValid(r) && !s[r].empty()) {
          std::memcpy(bytes + at, s[r].data(), s[r].size());
          at += (int32_t)s[r].size();
        }
      }
      offsets[n] = at;
      break;
    }
    case TypeId::Null: break;
  }
  FillArray(out, n, nulls, d.release());
}

void ExportChunk(const QueryResult& r, const DataChunk& c, ArrowArray* out) {
  auto d = std::make_unique<ArrayData>();
  d->buffers.push_back(nullptr);  // the struct's rows are all valid
  try {
    for (size_t col = 0; col < r.types.size(); col++) {
      auto child = std::make_unique<ArrowArray>();
      child->release = nullptr;
      d->children.push_back(child.get());
      d->child_storage.push_back(std::move(child));
      ExportColumn(c.cols[col], r.types[col], c.size, d->children.back());
    }
  } catch (...) {
    for (auto* child : d->children)
      if (child->release) child->release(child);
    throw;
  }
  FillArray(out, c.size, 0, d.release());
}

// ---- the stream --------------------------------------------------------------------------

struct StreamData {
  std::shared_ptr<const QueryResult> result;
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
    ExportChunk(r, r.chunks[s->next], out);
    s->next++;
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

}  // extern "C"
