#include "storage/column_chunk.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "function/scalar_ops.hpp"

namespace tessera {

void ColumnChunk::Read(uint32_t start, uint32_t n, Vector& out) const {
  TESSERA_ASSERT(start + n <= count && n <= out.capacity(), "column chunk read out of range");
  EnsureVerified();
  out.ClearNulls();
  if (validity) {
    uint8_t* v = out.validity();
    bool any_null = false;
    for (uint32_t i = 0; i < n; i++) {
      v[i] = IsValid(start + i);
      any_null |= !v[i];
    }
    if (!any_null) out.ClearNulls();
  }
  if (type.physical() == PhysType::Str) {
    StrRef* o = out.data<StrRef>();
    if (str_enc == StringEncoding::Dictionary) {
      const uint32_t* codes = reinterpret_cast<const uint32_t*>(data) + start;
      for (uint32_t i = 0; i < n; i++) o[i] = DictEntry(codes[i]);
      out.KeepAlive(owner);
      if (owner) out.SetDict(Dict(), owner, codes);  // the codes in place, no copy
      return;
    }
    for (uint32_t i = 0; i < n; i++)
      o[i] = {bytes + offsets[start + i], offsets[start + i + 1] - offsets[start + i]};
    out.KeepAlive(owner);
    return;
  }
  size_t w = (size_t)type.width();
  std::memcpy(out.raw(), data + (size_t)start * w, (size_t)n * w);
  if (const uint8_t* v = out.validity_or_null()) {  // NULL rows read as zero (see the header)
    for (uint32_t i = 0; i < n; i++)
      if (!v[i]) std::memset(out.raw() + (size_t)i * w, 0, w);
  }
}

size_t ColumnChunk::ByteSize() const {
  size_t s = validity ? ((count + 63) / 64) * 8 : 0;
  if (type.physical() != PhysType::Str) return s + (size_t)count * type.width();
  if (str_enc == StringEncoding::Dictionary)
    return s + (size_t)count * 4 + (size_t)(dict_size + 1) * 4 + offsets[dict_size] - offsets[0];
  return s + (size_t)(count + 1) * 4 + offsets[count] - offsets[0];  // a slice's offsets[0] may be > 0
}

void ColumnChunkBuilder::AppendValidity(bool valid) {
  if (count_ % 64 == 0) validity_.push_back(0);
  if (valid) validity_.back() |= (uint64_t)1 << (count_ % 64);
  else { any_null_ = true; nulls_++; }
}

void ColumnChunkBuilder::AppendValidRun(uint32_t n) {
  // Sets the validity bits of rows [count_, count_ + n) a word at a time.
  validity_.resize((count_ + n + 63) / 64, 0);
  for (uint32_t i = count_, end = count_ + n; i < end;) {
    uint32_t bit = i & 63, take = std::min<uint32_t>(64 - bit, end - i);
    validity_[i >> 6] |= (take == 64 ? ~(uint64_t)0 : (((uint64_t)1 << take) - 1)) << bit;
    i += take;
  }
}

void ColumnChunkBuilder::ReserveRowGroup() {
  const size_t rows = kRowGroupSize;
  validity_.reserve(rows / 64 + 1);
  if (type_.physical() == PhysType::Str) {
    offsets_.reserve(rows + 1);
    size_t avg = count_ ? bytes_.size() / count_ + 1 : 16;
    bytes_.reserve(avg * rows + avg * rows / 8);
  } else {
    fixed_.reserve(rows * (size_t)type_.width());
  }
}

void ColumnChunkBuilder::Append(const Vector& v, uint32_t offset, uint32_t n) {
  // A bulk load (a few vectors in): reserve a full row group up front instead of growing
  // by doubling; Finish trims what a short last group leaves unused.
  if (count_ < kBulkRows && count_ + n >= kBulkRows) ReserveRowGroup();
  const uint8_t* valid = v.validity_or_null();
  if (valid) {
    uint32_t c = count_;
    for (uint32_t i = offset; i < offset + n; i++) {
      AppendValidity(valid[i] != 0);
      count_++;
    }
    count_ = c;
  } else {
    AppendValidRun(n);
  }
  if (type_.physical() == PhysType::Str) {
    const StrRef* s = v.data<StrRef>();
    for (uint32_t i = offset; i < offset + n; i++) {
      if (!valid || valid[i]) bytes_.append(s[i]);
      offsets_.push_back((uint32_t)bytes_.size());
    }
  } else {
    // Bulk copy, then zero the slots of NULL rows.
    size_t w = (size_t)type_.width();
    size_t pos = fixed_.size();
    fixed_.resize(pos + (size_t)n * w);
    std::memcpy(&fixed_[pos], v.raw() + (size_t)offset * w, (size_t)n * w);
    if (valid)
      for (uint32_t i = 0; i < n; i++)
        if (!valid[offset + i]) std::memset(&fixed_[pos + (size_t)i * w], 0, w);
  }
  count_ += n;
}

void ColumnChunkBuilder::AppendValue(const Value& val) {
  Vector tmp(type_, 1);
  tmp.SetValue(0, val);
  Append(tmp, 0, 1);
}

namespace {
struct OwnedChunk {
  std::vector<uint8_t> fixed;
  std::vector<uint64_t> validity;
  std::vector<uint32_t> offsets;
  std::string bytes;
};

template <class T>
void FixedStats(const ColumnChunk& c, ColumnStats& st) {
  const T* d = reinterpret_cast<const T*>(c.data);
  bool first = true;
  T mn{}, mx{};
  for (uint32_t i = 0; i < c.count; i++) {
    if (!c.IsValid(i)) continue;
    if (first) { mn = mx = d[i]; first = false; continue; }
    if (ops::LessThan(d[i], mn)) mn = d[i];
    if (ops::LessThan(mx, d[i])) mx = d[i];
  }
  if (first) return;
  st.has_stats = true;
  auto make = [&](T x) -> Value {
    switch (c.type.id) {
      case TypeId::Boolean: return Value::Boolean(x != 0);
      case TypeId::Integer: return Value::Integer((int32_t)x);
      case TypeId::Date: return Value::Date((int32_t)x);
      case TypeId::BigInt: return Value::BigInt((int64_t)x);
      case TypeId::Timestamp: return Value::Timestamp((int64_t)x);
      case TypeId::Time: return Value::Time((int64_t)x);
      case TypeId::Interval: return Value::Interval((int128_t)x);
      case TypeId::Double: return Value::Double((double)x);
      case TypeId::Decimal: return Value::Decimal((int128_t)x, c.type.precision, c.type.scale);
      default: return Value();
    }
  };
  st.min = make(mn);
  st.max = make(mx);
}
}  // namespace

std::shared_ptr<const ColumnChunk> ColumnChunkBuilder::Finish() {
  if (fixed_.capacity() > 2 * fixed_.size() + 4096) fixed_.shrink_to_fit();
  if (offsets_.capacity() > 2 * offsets_.size() + 1024) offsets_.shrink_to_fit();
  if (bytes_.capacity() > 2 * bytes_.size() + 4096) bytes_.shrink_to_fit();
  auto owned = std::make_shared<OwnedChunk>();
  auto chunk = std::make_shared<ColumnChunk>();
  chunk->type = type_;
  chunk->count = count_;
  if (any_null_) owned->validity = std::move(validity_);
  chunk->stats.null_count = nulls_;
  if (type_.physical() == PhysType::Str) {
    // Dictionary-encode when the distinct count is low relative to the row count.
    std::unordered_map<std::string_view, uint32_t> distinct;
    const uint32_t limit = std::max<uint32_t>(16, count_ / 4);
    bool dict = true;
    for (uint32_t i = 0; i < count_ && dict; i++) {
      std::string_view s(bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
      distinct.emplace(s, 0);
      if (distinct.size() > limit) dict = false;
    }
    if (dict && count_ > 0) {
      std::vector<std::string_view> keys;
      keys.reserve(distinct.size());
      for (auto& [k, _] : distinct) keys.push_back(k);
      std::sort(keys.begin(), keys.end());
      owned->offsets.push_back(0);
      for (uint32_t i = 0; i < keys.size(); i++) {
        distinct[keys[i]] = i;
        owned->bytes.append(keys[i]);
        owned->offsets.push_back((uint32_t)owned->bytes.size());
      }
      owned->fixed.resize((size_t)count_ * 4);
      uint32_t* codes = reinterpret_cast<uint32_t*>(owned->fixed.data());
      for (uint32_t i = 0; i < count_; i++) {
        std::string_view s(bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
        codes[i] = distinct[s];
      }
      chunk->str_enc = StringEncoding::Dictionary;
      chunk->dict_size = (uint32_t)keys.size();
    } else {
      owned->offsets = std::move(offsets_);
      owned->bytes = std::move(bytes_);
      chunk->str_enc = StringEncoding::Plain;
    }
    chunk->data = owned->fixed.empty() ? nullptr : owned->fixed.data();
    chunk->offsets = owned->offsets.data();
    chunk->bytes = owned->bytes.data();
  } else {
    owned->fixed = std::move(fixed_);
    chunk->data = owned->fixed.data();
  }
  chunk->validity = owned->validity.empty() ? nullptr : owned->validity.data();
  chunk->owner = owned;
  ComputeStats(*chunk);
  fixed_.clear();
  validity_.clear();
  offsets_.assign(1, 0);
  bytes_.clear();
  count_ = 0;
  any_null_ = false;
  nulls_ = 0;
  return chunk;
}

std::shared_ptr<const DistinctSketch> BuildSketch(const ColumnChunk& c) {
  c.EnsureVerified();
  auto sk = std::make_shared<DistinctSketch>();
  auto each = [&](auto hash) {
    if (!c.validity) {
      for (uint32_t i = 0; i < c.count; i++) sk->Add(hash(i));
    } else {
      for (uint32_t i = 0; i < c.count; i++)
        if (c.IsValid(i)) sk->Add(hash(i));
    }
  };
  auto ints = [&](auto* d) { each([&](uint32_t i) { return SketchHashInt((int64_t)d[i]); }); };
  switch (c.type.physical()) {
    case PhysType::Bool: ints(reinterpret_cast<const uint8_t*>(c.data)); break;
    case PhysType::I32: ints(reinterpret_cast<const int32_t*>(c.data)); break;
    case PhysType::I64: ints(reinterpret_cast<const int64_t*>(c.data)); break;
    case PhysType::I128: {
      const int128_t* d = reinterpret_cast<const int128_t*>(c.data);
      each([&](uint32_t i) { return SketchHashInt128(d[i]); });
      break;
    }
    case PhysType::F64: {
      const double* d = reinterpret_cast<const double*>(c.data);
      each([&](uint32_t i) { return SketchHashDouble(d[i]); });
      break;
    }
    case PhysType::Str:
      if (c.str_enc == StringEncoding::Dictionary) {
        // Every dictionary entry is referenced by a valid row (see ComputeStats).
        for (uint32_t k = 0; k < c.dict_size; k++) sk->Add(SketchHashBytes(c.DictEntry(k)));
      } else {
        each([&](uint32_t i) { return SketchHashBytes(c.GetString(i)); });
      }
      break;
  }
  return sk;
}

void ComputeStats(ColumnChunk& c) {
  ColumnStats& st = c.stats;
  uint64_t nulls = st.null_count;
  st = ColumnStats{};
  st.null_count = nulls;
  st.sketch = BuildSketch(c);
  switch (c.type.physical()) {
    case PhysType::Bool: FixedStats<uint8_t>(c, st); break;
    case PhysType::I32: FixedStats<int32_t>(c, st); break;
    case PhysType::I64: FixedStats<int64_t>(c, st); break;
    case PhysType::I128: FixedStats<int128_t>(c, st); break;
    case PhysType::F64: FixedStats<double>(c, st); break;
    case PhysType::Str: {
      bool first = true;
      std::string_view mn, mx;
      if (c.str_enc == StringEncoding::Dictionary) {
        // Dictionary is sorted; only entries actually referenced by valid rows count,
        // and every entry is referenced by construction.
        if (c.dict_size > 0) {
          mn = c.DictEntry(0);
          mx = c.DictEntry(c.dict_size - 1);
          first = false;
        }
      } else {
        for (uint32_t i = 0; i < c.count; i++) {
          if (!c.IsValid(i)) continue;
          std::string_view s = c.GetString(i);
          if (first) { mn = mx = s; first = false; continue; }
          if (s < mn) mn = s;
          if (s > mx) mx = s;
        }
      }
      if (!first) {
        st.has_stats = true;
        const bool blob = c.type.id == TypeId::Blob;
        st.min = blob ? Value::Blob(std::string(mn)) : Value::Varchar(std::string(mn));
        st.max = blob ? Value::Blob(std::string(mx)) : Value::Varchar(std::string(mx));
      }
      break;
    }
  }
}

}  // namespace tessera
