// A single typed SQL value (constants, statistics, result cells).
#pragma once
#include <string>

#include "common/types.hpp"

namespace tessera {

class Value {
 public:
  Value() : type_(Type::Null()), null_(true) {}
  static Value Null(Type t = Type::Null()) { Value v; v.type_ = t; v.null_ = true; return v; }
  static Value Boolean(bool b) { Value v(Type::Boolean()); v.i_ = b; return v; }
  static Value Integer(int32_t x) { Value v(Type::Integer()); v.i_ = x; return v; }
  static Value BigInt(int64_t x) { Value v(Type::BigInt()); v.i_ = x; return v; }
  static Value Date(int32_t days) { Value v(Type::Date()); v.i_ = days; return v; }
  static Value Timestamp(int64_t micros) { Value v(Type::Timestamp()); v.i_ = micros; return v; }
  static Value Time(int64_t micros) { Value v(Type::Time()); v.i_ = micros; return v; }
  // months, days, microseconds packed (common/interval.hpp).
  static Value Interval(int128_t packed) { Value v(Type::Interval()); v.i_ = packed; return v; }
  static Value Blob(std::string bytes) { Value v(Type::Blob()); v.s_ = std::move(bytes); return v; }
  static Value Decimal(int128_t scaled, int p, int s) {
    Value v(Type::Decimal(p, s)); v.i_ = scaled; return v;
  }
  static Value Double(double d) { Value v(Type::Double()); v.d_ = d; return v; }
  static Value Varchar(std::string s) { Value v(Type::Varchar()); v.s_ = std::move(s); return v; }

  const Type& type() const { return type_; }
  bool is_null() const { return null_; }
  // Integral payload for BOOLEAN, INTEGER, BIGINT, DATE, TIMESTAMP, TIME and DECIMAL (scaled).
  int128_t int_value() const { return i_; }
  double double_value() const { return d_; }
  const std::string& str_value() const { return s_; }  // VARCHAR text, BLOB bytes

  // Converts to another type; throws UserError(Conversion) when it cannot.
  Value CastTo(const Type& target) const;
  // Numeric value as double (for DOUBLE arithmetic and statistics).
  double AsDouble() const;
  // Text form as printed in results ("NULL" for null).
  std::string ToString() const;
  // Total order within one type; NULLs first. Both values must have the same type id.
  int Compare(const Value& o) const;
  bool operator==(const Value& o) const { return Compare(o) == 0; }

 private:
  explicit Value(Type t) : type_(t), null_(false) {}
  Type type_;
  bool null_;
  int128_t i_ = 0;
  double d_ = 0;
  std::string s_;
};

}  // namespace tessera
