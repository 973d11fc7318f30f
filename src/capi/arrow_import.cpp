#include "capi/arrow_import.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "common/parallel.hpp"

namespace tessera::capi {

namespace {

// How an Arrow column's values are read.
// Timestamps and times of any unit (TsScaled, Time32): the values times `mul` / `div` are
// tessera's microseconds.
enum class Source {
  Bool, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, Dec128, Date32, Date64, Utf8, LargeUtf8, Utf8View, Dict,
  TsScaled, Time32
};

// A record batch: released when the last column chunk pointing into it goes.
struct ArrowBatch {
  ArrowArray array{};
  ~ArrowBatch() {
    if (array.release) array.release(&array);
  }
};

// A chunk's buffers: those converted into tessera's layout, and the batch the others
// point into (null when nothing is shared).
struct ImportedBuffers {
  std::shared_ptr<const ArrowBatch> batch;
  bool shares = false;  // some pointer of the chunk goes into the batch
  std::vector<uint8_t> fixed;
  std::vector<uint64_t> validity;
  std::vector<uint32_t> offsets;
  std::string bytes;
};

[[noreturn]] void Unsupported(const std::string& col, const std::string& format) {
  throw UserError(ErrorKind::Unsupported,
                  "column \"" + col + "\" has the Arrow type \"" + format +
                      "\", which tessera cannot import (supported: bool, int8/16/32/64, uint8/16/32/64, float, "
                      "double, decimal128, date32, date64, timestamp, time32, time64, utf8, large_utf8, utf8_view, "
                      "dictionaries of these)");
}

[[noreturn]] void Malformed(const std::string& col, const std::string& what) {
  throw UserError(ErrorKind::Input, "column \"" + col + "\": malformed Arrow array (" + what + ")");
}

bool Aligned(const void* p, size_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

inline bool BitSet(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

// Arrow bitmap bits [base, base + n) as tessera validity words; returns the NULL count.
uint64_t CopyBitmap(const uint8_t* bits, int64_t base, uint32_t n, std::vector<uint64_t>& words) {
  words.assign(((size_t)n + 63) / 64, 0);
  if (base % 8 == 0) {
    std::memcpy(words.data(), bits + base / 8, ((size_t)n + 7) / 8);
    if (n % 64) words.back() &= ((uint64_t)1 << (n % 64)) - 1;
  } else {
    for (uint32_t i = 0; i < n; i++)
      if (BitSet(bits, base + i)) words[i >> 6] |= (uint64_t)1 << (i & 63);
  }
  uint64_t valid = 0;
  for (uint64_t w : words) valid += (uint64_t)std::popcount(w);
  return n - valid;
}

}  // namespace

struct ArrowTableImporter::Column {
  std::string name;
  Source src = Source::I32;
  Type type;
  int64_t mul = 1, div = 1;       // TsScaled, Time32: to microseconds
  Source index = Source::I32;     // Dict: the indices' type
  std::unique_ptr<Column> values;  // Dict: how the dictionary's values are read

  // Rows [base, base + n) of `a` (base counts a.offset in) as a column chunk.
  std::shared_ptr<const ColumnChunk> Chunk(const ArrowArray& a, int64_t base, uint32_t n,
                                           const std::shared_ptr<const ArrowBatch>& batch, bool copy,
                                           uint64_t& copied) const;

 private:
  void Validity(const ArrowArray& a, int64_t base, uint32_t n, bool copy, ColumnChunk& c, ImportedBuffers& b,
                uint64_t& copied) const;
  void Values(const ArrowArray& a, int64_t base, uint32_t n, bool copy, ColumnChunk& c, ImportedBuffers& b,
              uint64_t& copied) const;
  void Gather(const ArrowArray& a, int64_t base, uint32_t n, const std::shared_ptr<const ArrowBatch>& batch,
              ColumnChunk& c, ImportedBuffers& b, uint64_t& copied) const;
  const void* Buffer(const ArrowArray& a, int64_t i) const {
    if (a.n_buffers <= i) Malformed(name, "too few buffers");
    if (!a.buffers[i]) Malformed(name, "buffer " + std::to_string(i) + " is missing");
    return a.buffers[i];
  }
};

namespace {

std::unique_ptr<ArrowTableImporter::Column> Plan(const ArrowSchema& s, std::string name) {
  auto p = std::make_unique<ArrowTableImporter::Column>();
  p->name = std::move(name);
  std::string f = s.format ? s.format : "";
  auto set = [&](Source src, Type t) {
    p->src = src;
    p->type = t;
  };
  if (f == "b") set(Source::Bool, Type::Boolean());
  else if (f == "c") set(Source::I8, Type::Integer());
  else if (f == "C") set(Source::U8, Type::Integer());
  else if (f == "s") set(Source::I16, Type::Integer());
  else if (f == "S") set(Source::U16, Type::Integer());
  else if (f == "i") set(Source::I32, Type::Integer());
  else if (f == "I") set(Source::U32, Type::BigInt());
  else if (f == "l") set(Source::I64, Type::BigInt());
  else if (f == "L") set(Source::U64, Type::BigInt());
  else if (f == "f") set(Source::F32, Type::Double());
  else if (f == "g") set(Source::F64, Type::Double());
  else if (f == "tdD") set(Source::Date32, Type::Date());
  else if (f == "tdm") set(Source::Date64, Type::Date());
  else if (f.rfind("ts", 0) == 0 && f.size() >= 4 && f[3] == ':' && std::string("smun").find(f[2]) != std::string::npos) {
    // timestamp[unit, tz]: a zone is not applied (the UTC time), as for Parquet's
    const char u = f[2];
    p->mul = u == 's' ? 1000000 : u == 'm' ? 1000 : 1;
    p->div = u == 'n' ? 1000 : 1;
    set(u == 'u' ? Source::I64 : Source::TsScaled, Type::Timestamp());
  } else if (f == "tts" || f == "ttm") {
    p->mul = f == "tts" ? 1000000 : 1000;
    set(Source::Time32, Type::Time());
  } else if (f == "ttu" || f == "ttn") {
    p->div = f == "ttn" ? 1000 : 1;
    set(f == "ttu" ? Source::I64 : Source::TsScaled, Type::Time());
  }
  else if (f == "u") set(Source::Utf8, Type::Varchar());
  else if (f == "U") set(Source::LargeUtf8, Type::Varchar());
  else if (f == "vu") set(Source::Utf8View, Type::Varchar());
  else if (f.rfind("d:", 0) == 0) {
    int prec = 0, scale = 0, bits = 128;
    int n = std::sscanf(f.c_str() + 2, "%d,%d,%d", &prec, &scale, &bits);
    if (n < 2 || bits != 128 || prec < 1 || prec > kMaxDecimalPrecision || scale < 0 || scale > prec)
      Unsupported(p->name, f);
    set(Source::Dec128, Type::Decimal(prec, scale));
  } else {
    Unsupported(p->name, f);
  }
  if (s.dictionary) {
    // The format is the indices' (an integer type); the values come from the dictionary.
    switch (p->src) {
      case Source::I8: case Source::U8: case Source::I16: case Source::U16:
      case Source::I32: case Source::U32: case Source::I64: case Source::U64: break;
      default: Unsupported(p->name, "dictionary indexed by " + f);
    }
    if (s.dictionary->dictionary) Unsupported(p->name, "dictionary of dictionaries");
    p->index = p->src;
    p->values = Plan(*s.dictionary, p->name);
    p->src = Source::Dict;
    p->type = p->values->type;
  }
  return p;
}

// Index `i` of an integer array of Source `src`.
int64_t IndexAt(Source src, const void* buf, int64_t i) {
  switch (src) {
    case Source::I8: return static_cast<const int8_t*>(buf)[i];
    case Source::U8: return static_cast<const uint8_t*>(buf)[i];
    case Source::I16: return static_cast<const int16_t*>(buf)[i];
    case Source::U16: return static_cast<const uint16_t*>(buf)[i];
    case Source::I32: return static_cast<const int32_t*>(buf)[i];
    case Source::U32: return static_cast<const uint32_t*>(buf)[i];
    case Source::I64: return static_cast<const int64_t*>(buf)[i];
    case Source::U64: {
      uint64_t x = static_cast<const uint64_t*>(buf)[i];
      return x > (uint64_t)INT64_MAX ? -1 : (int64_t)x;
    }
    default: return -1;
  }
}

}  // namespace

void ArrowTableImporter::Column::Validity(const ArrowArray& a, int64_t base, uint32_t n, bool copy, ColumnChunk& c,
                                          ImportedBuffers& b, uint64_t& copied) const {
  const uint8_t* bits = a.null_count != 0 && a.n_buffers > 0 ? static_cast<const uint8_t*>(a.buffers[0]) : nullptr;
  if (!bits) return;
  const uint8_t* at = bits + base / 8;
  if (!copy && base % 64 == 0 && n % 64 == 0 && Aligned(at, 8)) {
    // The same layout: bit i of word i / 64 is row i; shared unless every row is valid.
    const uint64_t* words = reinterpret_cast<const uint64_t*>(at);
    uint64_t valid = 0;
    for (uint32_t w = 0; w < n / 64; w++) valid += (uint64_t)std::popcount(words[w]);
    c.stats.null_count = n - valid;
    if (c.stats.null_count) {
      c.validity = words;
      b.shares = true;
    }
    return;
  }
  c.stats.null_count = CopyBitmap(bits, base, n, b.validity);
  if (c.stats.null_count) {
    c.validity = b.validity.data();
    copied += b.validity.size() * 8;
  } else {
    b.validity.clear();
  }
}

void ArrowTableImporter::Column::Values(const ArrowArray& a, int64_t base, uint32_t n, bool copy, ColumnChunk& c,
                                        ImportedBuffers& b, uint64_t& copied) const {
  const size_t w = (size_t)type.width();
  // Shares the values at `p` (n values of tessera's physical form) when aligned to `align`.
  auto share_or_copy = [&](const uint8_t* p, size_t align) {
    if (!copy && Aligned(p, align)) {
      c.data = p;
      b.shares = true;
      return;
    }
    b.fixed.resize((size_t)n * w);
    std::memcpy(b.fixed.data(), p, (size_t)n * w);
    c.data = b.fixed.data();
    copied += (size_t)n * w;
  };
  // Converts each value with `f(row) -> physical value` into a buffer of our own.
  auto convert = [&](auto f) {
    using T = decltype(f(0));
    b.fixed.resize((size_t)n * sizeof(T));
    T* d = reinterpret_cast<T*>(b.fixed.data());
    for (uint32_t i = 0; i < n; i++) d[i] = f(i);
    c.data = b.fixed.data();
    copied += (size_t)n * sizeof(T);
  };
  auto values_at = [&](auto* type_tag) { return static_cast<decltype(type_tag)>(Buffer(a, 1)) + base; };
  switch (this->src) {
    case Source::I32:
    case Source::Date32: share_or_copy(reinterpret_cast<const uint8_t*>(values_at((const int32_t*)nullptr)), 4); break;
    case Source::I64: share_or_copy(reinterpret_cast<const uint8_t*>(values_at((const int64_t*)nullptr)), 8); break;
    case Source::F64: share_or_copy(reinterpret_cast<const uint8_t*>(values_at((const double*)nullptr)), 8); break;
    case Source::Bool: {
      auto* bits = static_cast<const uint8_t*>(Buffer(a, 1));
      convert([&](uint32_t i) { return (uint8_t)BitSet(bits, base + i); });
      break;
    }
    case Source::I8: { auto* s = values_at((const int8_t*)nullptr); convert([&](uint32_t i) { return (int32_t)s[i]; }); break; }
    case Source::U8: { auto* s = values_at((const uint8_t*)nullptr); convert([&](uint32_t i) { return (int32_t)s[i]; }); break; }
    case Source::I16: { auto* s = values_at((const int16_t*)nullptr); convert([&](uint32_t i) { return (int32_t)s[i]; }); break; }
    case Source::U16: { auto* s = values_at((const uint16_t*)nullptr); convert([&](uint32_t i) { return (int32_t)s[i]; }); break; }
    case Source::U32: { auto* s = values_at((const uint32_t*)nullptr); convert([&](uint32_t i) { return (int64_t)s[i]; }); break; }
    case Source::F32: { auto* s = values_at((const float*)nullptr); convert([&](uint32_t i) { return (double)s[i]; }); break; }
    case Source::U64: {
      auto* s = values_at((const uint64_t*)nullptr);
      for (uint32_t i = 0; i < n; i++)
        if (s[i] > (uint64_t)INT64_MAX && c.IsValid(i))
          throw UserError(ErrorKind::Conversion, "column \"" + name + "\": the uint64 value " + std::to_string(s[i]) +
                                                     " does not fit in BIGINT");
      convert([&](uint32_t i) { return (int64_t)s[i]; });
      break;
    }
    case Source::TsScaled: {
      auto* s = values_at((const int64_t*)nullptr);
      const int64_t mul = this->mul, div = this->div;
      convert([&](uint32_t i) { return (s[i] / div - (s[i] % div < 0)) * mul; });
      break;
    }
    case Source::Time32: {
      auto* s = values_at((const int32_t*)nullptr);
      const int64_t mul = this->mul;
      convert([&](uint32_t i) { return (int64_t)s[i] * mul; });
      break;
    }
    case Source::Date64: {
      auto* s = values_at((const int64_t*)nullptr);
      convert([&](uint32_t i) { return (int32_t)((s[i] >= 0 ? s[i] : s[i] - 86399999) / 86400000); });
      break;
    }
    case Source::Dec128: {
      auto* s = static_cast<const uint8_t*>(Buffer(a, 1)) + base * 16;
      if (type.physical() == PhysType::I128) {
        share_or_copy(s, alignof(int128_t));
      } else {  // p <= 18: the low half (little-endian two's complement)
        convert([&](uint32_t i) {
          int64_t x;
          std::memcpy(&x, s + (size_t)i * 16, 8);
          return x;
        });
      }
      break;
    }
    case Source::Utf8: {
      auto* off = values_at((const int32_t*)nullptr);
      auto* bytes = a.n_buffers > 2 && a.buffers[2] ? static_cast<const char*>(a.buffers[2]) : "";
      if (off[0] < 0 || off[n] < off[0]) Malformed(name, "bad offsets");
      if (!copy && Aligned(off, 4)) {  // absolute int32 offsets into the bytes: our plain layout
        c.offsets = reinterpret_cast<const uint32_t*>(off);
        c.bytes = bytes;
        b.shares = true;
        break;
      }
      b.offsets.resize((size_t)n + 1);
      for (uint32_t i = 0; i <= n; i++) b.offsets[i] = (uint32_t)(off[i] - off[0]);
      b.bytes.assign(bytes + off[0], (size_t)(off[n] - off[0]));
      copied += b.offsets.size() * 4 + b.bytes.size();
      c.offsets = b.offsets.data();
      c.bytes = b.bytes.data();
      break;
    }
    case Source::LargeUtf8: {
      auto* off = values_at((const int64_t*)nullptr);
      auto* bytes = a.n_buffers > 2 && a.buffers[2] ? static_cast<const char*>(a.buffers[2]) : "";
      if (off[0] < 0 || off[n] < off[0]) Malformed(name, "bad offsets");
      if (off[n] - off[0] > (int64_t)UINT32_MAX)
        throw UserError(ErrorKind::Conversion, "column \"" + name + "\": more than 4 GiB of strings in " +
                                                   std::to_string(n) + " rows");
      // int64 offsets narrowed to uint32 ones relative to the first; the bytes shared.
      b.offsets.resize((size_t)n + 1);
      for (uint32_t i = 0; i <= n; i++) b.offsets[i] = (uint32_t)(off[i] - off[0]);
      copied += b.offsets.size() * 4;
      if (copy) {
        b.bytes.assign(bytes + off[0], (size_t)(off[n] - off[0]));
        copied += b.bytes.size();
        c.bytes = b.bytes.data();
      } else {
        c.bytes = bytes + off[0];
        b.shares = true;
      }
      c.offsets = b.offsets.data();
      break;
    }
    case Source::Utf8View: {
      // 16-byte views: int32 length, then up to 12 bytes inline, or a 4-byte prefix, the
      // data buffer's index (buffers[2 + index]) and the offset in it.
      auto* views = static_cast<const uint8_t*>(Buffer(a, 1)) + base * 16;
      b.offsets.resize((size_t)n + 1);
      b.offsets[0] = 0;
      for (uint32_t i = 0; i < n; i++) {
        const uint8_t* v = views + (size_t)i * 16;
        int32_t len, index, offset;
        std::memcpy(&len, v, 4);
        if (c.IsValid(i) && len > 0) {
          if (len <= 12) {
            b.bytes.append(reinterpret_cast<const char*>(v + 4), (size_t)len);
          } else {
            std::memcpy(&index, v + 8, 4);
            std::memcpy(&offset, v + 12, 4);
            if (index < 0 || 2 + (int64_t)index >= a.n_buffers) Malformed(name, "bad string view");
            b.bytes.append(static_cast<const char*>(Buffer(a, 2 + index)) + offset, (size_t)len);
          }
        }
        if (b.bytes.size() > UINT32_MAX)
          throw UserError(ErrorKind::Conversion, "column \"" + name + "\": more than 4 GiB of strings in " +
                                                     std::to_string(n) + " rows");
        b.offsets[i + 1] = (uint32_t)b.bytes.size();
      }
      copied += b.offsets.size() * 4 + b.bytes.size();
      c.offsets = b.offsets.data();
      c.bytes = b.bytes.data();
      break;
    }
    case Source::Dict: break;  // Gather
  }
}

void ArrowTableImporter::Column::Gather(const ArrowArray& a, int64_t base, uint32_t n,
                                        const std::shared_ptr<const ArrowBatch>& batch, ColumnChunk& c,
                                        ImportedBuffers& b, uint64_t& copied) const {
  if (!a.dictionary) Malformed(name, "the dictionary is missing");
  const ArrowArray& d = *a.dictionary;
  uint64_t ignored = 0;
  auto dict = d.length > 0 ? values->Chunk(d, d.offset, (uint32_t)std::min<int64_t>(d.length, UINT32_MAX), batch, false, ignored)
                           : nullptr;
  const void* idx = Buffer(a, 1);
  // The rows' validity: the indices', less the rows whose dictionary value is NULL.
  if (!c.validity) b.validity.assign(((size_t)n + 63) / 64, ~(uint64_t)0);
  else if (b.validity.empty()) b.validity.assign(c.validity, c.validity + ((size_t)n + 63) / 64);
  b.shares = false;  // everything below is copied
  const bool strings = type.physical() == PhysType::Str;
  const size_t w = strings ? 0 : (size_t)type.width();
  if (strings) b.offsets.assign(1, 0);
  else b.fixed.assign((size_t)n * w, 0);
  for (uint32_t i = 0; i < n; i++) {
    bool valid = (b.validity[i >> 6] >> (i & 63)) & 1;
    if (valid) {
      int64_t k = IndexAt(index, idx, base + i);
      if (k < 0 || !dict || k >= (int64_t)dict->count) Malformed(name, "a dictionary index out of range");
      if (!dict->IsValid((uint32_t)k)) {
        b.validity[i >> 6] &= ~((uint64_t)1 << (i & 63));
      } else if (strings) {
        b.bytes.append(dict->GetString((uint32_t)k));
        if (b.bytes.size() > UINT32_MAX)
          throw UserError(ErrorKind::Conversion, "column \"" + name + "\": more than 4 GiB of strings in " +
                                                     std::to_string(n) + " rows");
      } else {
        std::memcpy(&b.fixed[(size_t)i * w], dict->data + (size_t)k * w, w);
      }
    }
    if (strings) b.offsets.push_back((uint32_t)b.bytes.size());
  }
  if (n % 64) b.validity.back() &= ((uint64_t)1 << (n % 64)) - 1;
  uint64_t valid = 0;
  for (uint64_t x : b.validity) valid += (uint64_t)std::popcount(x);
  c.stats.null_count = n - valid;
  if (c.stats.null_count) {
    c.validity = b.validity.data();
  } else {
    c.validity = nullptr;
    b.validity.clear();
  }
  if (strings) {
    c.offsets = b.offsets.data();
    c.bytes = b.bytes.data();
    copied += b.offsets.size() * 4 + b.bytes.size();
  } else {
    c.data = b.fixed.data();
    copied += b.fixed.size();
  }
  copied += b.validity.size() * 8;
}

std::shared_ptr<const ColumnChunk> ArrowTableImporter::Column::Chunk(const ArrowArray& a, int64_t base, uint32_t n,
                                                                     const std::shared_ptr<const ArrowBatch>& batch,
                                                                     bool copy, uint64_t& copied) const {
  auto chunk = std::make_shared<ColumnChunk>();
  auto owned = std::make_shared<ImportedBuffers>();
  chunk->type = type;
  chunk->count = n;
  Validity(a, base, n, copy, *chunk, *owned, copied);
  if (src == Source::Dict) Gather(a, base, n, batch, *chunk, *owned, copied);
  else Values(a, base, n, copy, *chunk, *owned, copied);
  if (owned->shares) owned->batch = batch;  // kept while a pointer goes into its memory
  chunk->owner = owned;
  ComputeStats(*chunk);
  return chunk;
}

ArrowTableImporter::ArrowTableImporter(const ArrowSchema& schema, std::string table_name, bool copy, unsigned threads)
    : copy_(copy), threads_(std::min(threads ? threads : HardwareThreads(), 16u)) {
  if (std::string_view(schema.format ? schema.format : "") != "+s")
    throw UserError(ErrorKind::Unsupported, "the Arrow stream's schema is not a struct (record batches)");
  schema_.name = std::move(table_name);
  for (int64_t i = 0; i < schema.n_children; i++) {
    const ArrowSchema& s = *schema.children[i];
    columns_.push_back(Plan(s, s.name && *s.name ? s.name : "column" + std::to_string(i)));
    schema_.columns.push_back(ColumnDef{columns_.back()->name, columns_.back()->type, false});
  }
  if (columns_.empty()) throw UserError(ErrorKind::Unsupported, "the Arrow data has no columns");
}

ArrowTableImporter::~ArrowTableImporter() = default;

void ArrowTableImporter::AddBatch(ArrowArray* in) {
  auto batch = std::make_shared<ArrowBatch>();
  batch->array = *in;
  in->release = nullptr;
  const ArrowArray& b = batch->array;
  if (b.n_children != (int64_t)columns_.size())
    throw UserError(ErrorKind::Input, "a record batch has " + std::to_string(b.n_children) + " columns, not " +
                                          std::to_string(columns_.size()));
  if (b.length <= 0) return;
  // One task per row group and column (statistics are a pass over the values): spread
  // over the importer's threads when the batch has more than one row group.
  const size_t ncols = columns_.size();
  const size_t ngroups = (size_t)((b.length + kRowGroupSize - 1) / kRowGroupSize);
  std::vector<std::shared_ptr<RowGroup>> groups(ngroups);
  for (size_t g = 0; g < ngroups; g++) {
    groups[g] = std::make_shared<RowGroup>();
    groups[g]->count = (uint32_t)std::min<int64_t>(kRowGroupSize, b.length - (int64_t)g * kRowGroupSize);
    groups[g]->columns.resize(ncols);
  }
  for (size_t c = 0; c < ncols; c++)
    if (b.children[c]->length < b.offset + b.length) Malformed(columns_[c]->name, "shorter than its record batch");
  std::vector<uint64_t> copied(ngroups * ncols, 0);
  ParallelFor(ngroups * ncols, ngroups > 1 ? threads_ : 1, [&](uint64_t task, unsigned) {
    size_t g = task / ncols, c = task % ncols;
    const ArrowArray& child = *b.children[c];
    int64_t at = (int64_t)g * kRowGroupSize;
    groups[g]->columns[c] = columns_[c]->Chunk(child, child.offset + b.offset + at, groups[g]->count, batch, copy_,
                                               copied[task]);
  });
  for (uint64_t x : copied) bytes_copied_ += x;
  std::vector<std::shared_ptr<const RowGroup>> made(groups.begin(), groups.end());
  rows_ += (uint64_t)b.length;
  if (b.length < kSmallBatch) {
    small_.push_back(made[0]);
    small_rows_ += (uint64_t)b.length;
    if (small_rows_ >= kRowGroupSize) FlushSmall();
    return;
  }
  FlushSmall();
  for (auto& rg : made) groups_.push_back(std::move(rg));
}

void ArrowTableImporter::FlushSmall() {
  if (small_.size() == 1) groups_.push_back(small_[0]);
  if (small_.size() > 1) {
    // Pack the small batches' rows into full row groups (a copy).
    RowGroupWriter writer(schema_.types());
    DataChunk chunk;
    chunk.Init(schema_.types());
    for (auto& rg : small_) {
      for (uint32_t at = 0; at < rg->count; at += kVectorSize) {
        uint32_t n = std::min<uint32_t>(kVectorSize, rg->count - at);
        for (size_t c = 0; c < columns_.size(); c++) rg->columns[c]->Read(at, n, chunk.cols[c]);
        chunk.size = n;
        writer.Append(chunk);
      }
      for (auto& col : rg->columns) bytes_copied_ += col->ByteSize();
    }
    for (auto& rg : writer.Finish()) groups_.push_back(std::move(rg));
  }
  small_.clear();
  small_rows_ = 0;
}

std::shared_ptr<TableData> ArrowTableImporter::Finish() {
  FlushSmall();
  auto data = std::make_shared<TableData>();
  data->row_groups = std::move(groups_);
  data->row_count = rows_;
  return data;
}

std::shared_ptr<TableData> ImportArrowStream(ArrowArrayStream* stream, const std::string& table_name, bool copy,
                                             TableSchema& schema, unsigned threads) {
  struct Guard {
    ArrowArrayStream* s;
    ArrowSchema schema{};
    ~Guard() {
      if (schema.release) schema.release(&schema);
      if (s->release) s->release(s);
    }
  } g{stream};
  auto fail = [&](const char* what, int rc) {
    const char* e = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
    throw UserError(ErrorKind::IO, std::string("the Arrow stream failed in ") + what + " (" + std::to_string(rc) +
                                       "): " + (e ? e : "no message"));
  };
  if (int rc = stream->get_schema(stream, &g.schema)) fail("get_schema", rc);
  ArrowTableImporter importer(g.schema, table_name, copy, threads);
  for (;;) {
    ArrowArray batch{};
    if (int rc = stream->get_next(stream, &batch)) fail("get_next", rc);
    if (!batch.release) break;
    importer.AddBatch(&batch);
  }
  schema = importer.schema();
  return importer.Finish();
}

}  // namespace tessera::capi
