// The binary encoding of the database files' metadata (row-group directories, manifest):
// little-endian fixed-width integers, strings as u32 length + bytes, types, statistics.
// A reader that runs past its end throws Corrupt.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/types.hpp"
#include "common/value.hpp"

namespace tessera::disk {

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
  std::string_view Bytes(size_t n) {
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

inline bool ValidTypeId(uint8_t id) { return id >= (uint8_t)TypeId::Boolean && id <= (uint8_t)TypeId::Blob; }

inline void WriteType(BufWriter& w, const Type& t) {
  w.U8((uint8_t)t.id);
  w.U8(t.precision);
  w.U8(t.scale);
}

inline Type ReadType(BufReader& r, const std::string& what) {
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

inline void WriteStatValue(BufWriter& w, const Type& t, const Value& v) {
  switch (t.physical()) {
    case PhysType::F64: w.F64(v.double_value()); break;
    case PhysType::Str: w.Str(v.str_value()); break;
    default: w.I128(v.int_value()); break;
  }
}

inline Value ReadStatValue(BufReader& r, const Type& t) {
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

}  // namespace tessera::disk
