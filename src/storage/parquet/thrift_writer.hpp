// Thrift's compact protocol, encoding side (thrift/doc/specs/thrift-compact-protocol.md):
// what the Parquet writer needs to write page headers and the file footer. Fields are
// written in increasing id order; a field header holds the id as a delta from the previous
// field of the same struct when it fits in 4 bits. Integers are zigzag varints, binary is
// a varint length and the bytes, a bool field's value is its type code.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::parquet {

class ThriftWriter {
 public:
  // Compact protocol type codes.
  enum : uint8_t {
    kTrue = 1, kFalse = 2, kByte = 3, kI16 = 4, kI32 = 5, kI64 = 6, kDouble = 7, kBinary = 8,
    kList = 9, kSet = 10, kMap = 11, kStruct = 12,
  };

  void I16(int16_t id, int16_t v) {
    Header(id, kI16);
    Varint(ZigZag(v));
  }
  void I32(int16_t id, int32_t v) {
    Header(id, kI32);
    Varint(ZigZag(v));
  }
  void I64(int16_t id, int64_t v) {
    Header(id, kI64);
    Varint(ZigZag(v));
  }
  void Byte(int16_t id, int8_t v) {
    Header(id, kByte);
    out_.push_back((char)v);
  }
  void Bool(int16_t id, bool v) { Header(id, v ? kTrue : kFalse); }
  void Binary(int16_t id, std::string_view v) {
    Header(id, kBinary);
    Varint(v.size());
    out_.append(v);
  }
  // A struct field: its fields follow, then EndStruct().
  void BeginStruct(int16_t id) {
    Header(id, kStruct);
    last_.push_back(0);
  }
  void EndStruct() {
    out_.push_back(0);  // stop
    last_.pop_back();
  }
  // A list field of n elements of `elem_type`, written next with the element calls below.
  void BeginList(int16_t id, uint8_t elem_type, size_t n) {
    Header(id, kList);
    if (n < 15) {
      out_.push_back((char)((n << 4) | elem_type));
    } else {
      out_.push_back((char)(0xF0 | elem_type));
      Varint(n);
    }
  }
  void ElemI32(int32_t v) { Varint(ZigZag(v)); }
  void ElemBinary(std::string_view v) {
    Varint(v.size());
    out_.append(v);
  }
  // A struct list element: its fields follow, then EndStruct().
  void BeginElemStruct() { last_.push_back(0); }

  // Ends the top-level struct (its stop byte).
  void Finish() { out_.push_back(0); }

  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  static uint64_t ZigZag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back((char)(v | 0x80));
      v >>= 7;
    }
    out_.push_back((char)v);
  }
  void Header(int16_t id, uint8_t type) {
    int16_t delta = (int16_t)(id - last_.back());
    if (delta > 0 && delta <= 15) {
      out_.push_back((char)((delta << 4) | type));
    } else {
      out_.push_back((char)type);
      Varint(ZigZag(id));
    }
    last_.back() = id;
  }

  std::string out_;
  std::vector<int16_t> last_{0};  // the last field id of each open struct
};

}  // namespace tessera::parquet
