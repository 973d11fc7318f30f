// Result rows as Arrow C data: schemas, and record batches built chunk by chunk
// (arrow_export.hpp).
#include "capi/arrow_export.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/error.hpp"
#include "common/interval.hpp"

namespace tessera::capi {

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

// ---- arrays ------------------------------------------------------------------------------

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};

struct ArrayData {
  std::vector<std::unique_ptr<uint8_t, FreeDeleter>> storage;  // the buffers we made
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<ArrowArray>> child_storage;
  std::vector<ArrowArray*> children;
  std::shared_ptr<const void> keep;  // set when a buffer points into result memory
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

// An uninitialised buffer of `bytes` bytes, 64-byte aligned and padded (as Arrow
// recommends). Pages are not touched: a batch's buffers sized for its capacity cost only
// the pages its rows are written to. (Transparent huge pages, madvise'd, were tried for
// the page faults of first writes: no gain measured, and compaction stalls under memory
// pressure.)
uint8_t* Allocate(size_t bytes) {
  const size_t padded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, padded));
  if (!p) throw std::bad_alloc();
  return p;
}

// Bytes of the valid strings of `v`'s first `n` rows.
uint64_t StringBytes(const Vector& v, uint32_t n) {
  const StrRef* str = v.data<StrRef>();
  uint64_t b = 0;
  for (uint32_t i = 0; i < n; i++)
    if (v.IsValid(i)) b += str[i].size();
  return b;
}

bool Shareable(const Type& t) {
  switch (t.id) {
    case TypeId::Integer:
    case TypeId::Date:
    case TypeId::BigInt:
    case TypeId::Timestamp:
    case TypeId::Time:
    case TypeId::Double: return true;
    case TypeId::Decimal: return t.physical() == PhysType::I128;
    default: return false;
  }
}

}  // namespace

void ExportArrowSchema(const std::vector<std::string>& names, const std::vector<Type>& types, ArrowSchema* out) {
  auto d = std::make_unique<SchemaData>();
  try {
    for (size_t c = 0; c < types.size(); c++) {
      auto child = std::make_unique<ArrowSchema>();
      child->release = nullptr;
      d->children.push_back(child.get());
      d->child_storage.push_back(std::move(child));
      std::string format = FormatOf(types[c]);
      FillSchema(d->children.back(), std::move(format), c < names.size() ? names[c] : "", ARROW_FLAG_NULLABLE,
                 new SchemaData());
    }
  } catch (...) {
    for (auto* child : d->children)
      if (child->release) child->release(child);
    throw;
  }
  FillSchema(out, "+s", "", 0, d.release());
}

// ---- the batch builder -------------------------------------------------------------------

// One column of the batch: its buffers (owned until Finish) and where appends go.
struct ArrowBatchBuilder::Column {
  Type type;
  std::vector<std::unique_ptr<uint8_t, FreeDeleter>> storage;
  uint8_t* valid = nullptr;   // the validity bitmap, made at the first NULL
  int64_t nulls = 0;
  uint8_t* values = nullptr;  // values, boolean bits or (strings) int32 offsets
  const void* shared = nullptr;  // the shared chunk's values (share mode)
  uint8_t* bytes = nullptr;   // strings: their bytes
  uint64_t bytes_len = 0, bytes_cap = 0;

  uint8_t* Own(size_t n) {
    uint8_t* p = Allocate(n);
    storage.emplace_back(p);
    return p;
  }
  // Grows the string bytes to hold `need` bytes (doubling; the bytes so far move once).
  void Reserve(uint64_t need) {
    if (need <= bytes_cap && bytes) return;
    const uint64_t cap = std::max<uint64_t>({need, bytes_cap * 2, 1u << 16});
    std::unique_ptr<uint8_t, FreeDeleter> p(Allocate((size_t)cap));
    if (bytes_len) std::memcpy(p.get(), bytes, bytes_len);
    bytes_owner = std::move(p);
    bytes = bytes_owner.get();
    bytes_cap = cap;
  }
  std::unique_ptr<uint8_t, FreeDeleter> bytes_owner;
};

ArrowBatchBuilder::ArrowBatchBuilder(const std::vector<Type>& types, uint64_t capacity, std::shared_ptr<const void> share)
    : types_(types), capacity_(capacity), share_(std::move(share)) {
  for (const Type& t : types_) {
    auto c = std::make_unique<Column>();
    c->type = t;
    const size_t n = (size_t)capacity_;
    switch (t.id) {
      case TypeId::Null: break;
      case TypeId::Boolean:
        c->values = c->Own((n + 7) / 8);
        std::memset(c->values, 0, (n + 7) / 8);
        break;
      case TypeId::Varchar:
      case TypeId::Blob: c->values = c->Own((n + 1) * 4); break;
      case TypeId::Decimal:
      case TypeId::Interval:
        if (!(share_ && Shareable(t))) c->values = c->Own(n * 16);
        break;
      default:
        if (!(share_ && Shareable(t))) c->values = c->Own(n * (size_t)t.width());
        break;
    }
    cols_.push_back(std::move(c));
  }
}

ArrowBatchBuilder::~ArrowBatchBuilder() = default;

bool ArrowBatchBuilder::FitsStrings(const DataChunk& c) const {
  for (size_t k = 0; k < cols_.size(); k++) {
    const Column& col = *cols_[k];
    if (col.type.id != TypeId::Varchar && col.type.id != TypeId::Blob) continue;
    const uint64_t b = StringBytes(c.cols[k], c.size);
    if (b > (uint64_t)INT32_MAX) throw UserError(ErrorKind::Unsupported, "a chunk's strings exceed 2 GiB");
    if (rows_ > 0 && col.bytes_len + b > (uint64_t)INT32_MAX) return false;
  }
  return true;
}

void ArrowBatchBuilder::Append(const DataChunk& c) {
  if (rows_ + c.size > capacity_ || (share_ && rows_ > 0)) throw InternalError("an Arrow batch overflows");
  const uint64_t at = rows_;
  const uint32_t n = c.size;
  for (size_t k = 0; k < cols_.size(); k++) {
    Column& col = *cols_[k];
    const Vector& v = c.cols[k];
    const Type& t = col.type;
    if (t.id == TypeId::Null) continue;
    // Validity: bits set for every row until the first NULL, then cleared per NULL row.
    if (const uint8_t* valid = v.validity_or_null()) {
      for (uint32_t i = 0; i < n; i++) {
        if (valid[i]) continue;
        if (!col.valid) {
          const size_t b = ((size_t)capacity_ + 7) / 8;
          col.valid = col.Own(b);
          std::memset(col.valid, 0xFF, b);
        }
        const uint64_t r = at + i;
        col.valid[r / 8] &= (uint8_t)~(1u << (r % 8));
        col.nulls++;
      }
    }
    switch (t.id) {
      case TypeId::Boolean: {
        const uint8_t* src = v.data<uint8_t>();
        for (uint32_t i = 0; i < n; i++)
          if (src[i] && v.IsValid(i)) col.values[(at + i) / 8] |= (uint8_t)(1u << ((at + i) % 8));
        break;
      }
      case TypeId::Integer:
      case TypeId::Date:
      case TypeId::BigInt:
      case TypeId::Timestamp:
      case TypeId::Time:
      case TypeId::Double: {
        if (!col.values) {  // shared
          col.shared = v.raw();
          break;
        }
        const size_t w = (size_t)t.width();
        std::memcpy(col.values + at * w, v.raw(), (size_t)n * w);
        break;
      }
      case TypeId::Decimal: {  // decimal128: 16-byte little-endian two's complement
        if (!col.values) {
          col.shared = v.raw();
          break;
        }
        uint8_t* o = col.values + at * 16;
        if (t.physical() == PhysType::I128) {
          std::memcpy(o, v.raw(), (size_t)n * 16);
        } else {
          const int64_t* src = v.data<int64_t>();
          for (uint32_t i = 0; i < n; i++) {
            int128_t x = src[i];
            std::memcpy(o + (size_t)i * 16, &x, 16);
          }
        }
        break;
      }
      case TypeId::Interval: {  // month_day_nano: int32 months, int32 days, int64 nanoseconds
        uint8_t* o = col.values + at * 16;
        for (uint32_t i = 0; i < n; i++) {
          const IntervalParts p = UnpackInterval(v.data<int128_t>()[i]);
          const int64_t nanos = p.micros * 1000;  // |micros| <= 9.2e15 after parsing fits; larger wraps
          std::memcpy(o + (size_t)i * 16, &p.months, 4);
          std::memcpy(o + (size_t)i * 16 + 4, &p.days, 4);
          std::memcpy(o + (size_t)i * 16 + 8, &nanos, 8);
        }
        break;
      }
      case TypeId::Blob:
      case TypeId::Varchar: {  // utf8 / binary: int32 offsets (n + 1), then the bytes
        col.Reserve(col.bytes_len + StringBytes(v, n));
        const StrRef* str = v.data<StrRef>();
        auto* off = reinterpret_cast<int32_t*>(col.values) + at;
        uint64_t pos = col.bytes_len;
        for (uint32_t i = 0; i < n; i++) {
          off[i] = (int32_t)pos;
          if (v.IsValid(i) && !str[i].empty()) {
            std::memcpy(col.bytes + pos, str[i].data(), str[i].size());
            pos += str[i].size();
          }
        }
        col.bytes_len = pos;
        break;
      }
      case TypeId::Null: break;
    }
  }
  rows_ += n;
}

void ArrowBatchBuilder::Finish(ArrowArray* out) {
  const int64_t n = (int64_t)rows_;
  auto d = std::make_unique<ArrayData>();
  d->buffers.push_back(nullptr);  // the struct's rows are all valid
  try {
    for (auto& cp : cols_) {
      Column& col = *cp;
      auto child = std::make_unique<ArrowArray>();
      child->release = nullptr;
      auto cd = std::make_unique<ArrayData>();
      int64_t nulls = col.nulls;
      if (col.type.id == TypeId::Null) {
        nulls = n;  // the null type has no buffers
      } else {
        cd->buffers.push_back(col.nulls ? col.valid : nullptr);
        if (col.type.id == TypeId::Varchar || col.type.id == TypeId::Blob) {
          if (!col.bytes) col.Reserve(1);
          reinterpret_cast<int32_t*>(col.values)[n] = (int32_t)col.bytes_len;
          cd->buffers.push_back(col.values);
          cd->buffers.push_back(col.bytes);
        } else if (col.values) {
          cd->buffers.push_back(col.values);
        } else {
          cd->buffers.push_back(col.shared);
          cd->keep = share_;
        }
      }
      cd->storage = std::move(col.storage);
      if (col.bytes_owner) cd->storage.push_back(std::move(col.bytes_owner));
      FillArray(child.get(), n, nulls, cd.release());
      d->children.push_back(child.get());
      d->child_storage.push_back(std::move(child));
    }
  } catch (...) {
    for (auto* child : d->children)
      if (child->release) child->release(child);
    throw;
  }
  cols_.clear();
  rows_ = 0;
  FillArray(out, n, 0, d.release());
}

}  // namespace tessera::capi
