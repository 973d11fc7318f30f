// Thrift's compact protocol, read side only: the encoding of Parquet's footer
// (FileMetaData) and page headers. Every read is bounds-checked; malformed input throws
// ThriftError (the caller turns it into a UserError naming the file).
//
// Encoding: a struct is a sequence of field headers (byte: high nibble = field id delta
// 1..15, or 0 and a zigzag i16 id; low nibble = type), ended by a 0 byte. Integers are
// zigzag varints, binary is a varint length and the bytes, a list is a header byte (size
// in the high nibble, 15 = a varint size follows; element type in the low nibble).
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tessera::parquet {

struct ThriftError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class TType : uint8_t {
  Stop = 0, True = 1, False = 2, Byte = 3, I16 = 4, I32 = 5, I64 = 6, Double = 7,
  Binary = 8, List = 9, Set = 10, Map = 11, Struct = 12,
};

class ThriftReader {
 public:
  ThriftReader(const uint8_t* p, size_t n) : p_(p), end_(p + n), begin_(p) {}
  size_t position() const { return (size_t)(p_ - begin_); }
  size_t remaining() const { return (size_t)(end_ - p_); }

  // Struct fields: call BeginStruct, then NextField until it returns false (the stop
  // byte), reading or Skip()ping each field's value, then EndStruct.
  void BeginStruct() {
    if (++depth_ > kMaxDepth) throw ThriftError("nested too deeply");
    last_id_stack_[depth_] = 0;
  }
  void EndStruct() { depth_--; }
  bool NextField(int16_t& id, TType& type) {
    uint8_t b = Byte();
    if (b == 0) return false;
    type = (TType)(b & 0x0f);
    int delta = b >> 4;
    id = delta ? (int16_t)(last_id_stack_[depth_] + delta) : (int16_t)ZigZag(Varint());
    last_id_stack_[depth_] = id;
    if (type == TType::True || type == TType::False) bool_ = type == TType::True;
    return true;
  }
  // A boolean field's value is in its header.
  bool FieldBool() const { return bool_; }

  int32_t I32() { return (int32_t)ZigZag(Varint()); }
  int64_t I64() { return ZigZag(Varint()); }
  int8_t I8() { return (int8_t)Byte(); }
  double Double() {
    double d;
    Need(8);
    std::memcpy(&d, p_, 8);
    p_ += 8;
    return d;
  }
  std::string_view Binary() {
    uint64_t n = Varint();
    Need(n);
    std::string_view s(reinterpret_cast<const char*>(p_), (size_t)n);
    p_ += n;
    return s;
  }
  // A list's element type and size (checked against the bytes left: every element
  // takes at least one byte, except booleans packed in lists take one each too).
  uint32_t BeginList(TType& elem) {
    uint8_t b = Byte();
    elem = (TType)(b & 0x0f);
    uint64_t n = b >> 4;
    if (n == 15) n = Varint();
    if (n > (uint64_t)(end_ - p_)) throw ThriftError("list size exceeds the data");
    return (uint32_t)n;
  }
  // Skips a value of type t.
  void Skip(TType t) {
    switch (t) {
      case TType::True:
      case TType::False: return;  // in the field header (list elements: see below)
      case TType::Byte: Byte(); return;
      case TType::I16:
      case TType::I32:
      case TType::I64: Varint(); return;
      case TType::Double: Need(8); p_ += 8; return;
      case TType::Binary: Binary(); return;
      case TType::List:
      case TType::Set: {
        TType e;
        uint32_t n = BeginList(e);
        if (++depth_ > kMaxDepth) throw ThriftError("nested too deeply");
        for (uint32_t i = 0; i < n; i++) {
          if (e == TType::True || e == TType::False) Byte();
          else Skip(e);
        }
        depth_--;
        return;
      }
      case TType::Map: {
        uint64_t n = Varint();
        if (n == 0) return;
        uint8_t kv = Byte();
        if (n > (uint64_t)(end_ - p_)) throw ThriftError("map size exceeds the data");
        if (++depth_ > kMaxDepth) throw ThriftError("nested too deeply");
        for (uint64_t i = 0; i < n; i++) {
          SkipElem((TType)(kv >> 4));
          SkipElem((TType)(kv & 0x0f));
        }
        depth_--;
        return;
      }
      case TType::Struct: {
        BeginStruct();
        int16_t id;
        TType ft;
        while (NextField(id, ft)) Skip(ft);
        EndStruct();
        return;
      }
      default: throw ThriftError("unknown field type " + std::to_string((int)t));
    }
  }

 private:
  static constexpr int kMaxDepth = 32;
  void SkipElem(TType t) {
    if (t == TType::True || t == TType::False) Byte();
    else Skip(t);
  }
  void Need(uint64_t n) {
    if (n > (uint64_t)(end_ - p_)) throw ThriftError("unexpected end of data");
  }
  uint8_t Byte() {
    Need(1);
    return *p_++;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      uint8_t b = Byte();
      v |= (uint64_t)(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw ThriftError("malformed varint");
  }
  static int64_t ZigZag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
  int depth_ = 0;
  int16_t last_id_stack_[kMaxDepth + 2] = {};
  bool bool_ = false;
};

}  // namespace tessera::parquet
