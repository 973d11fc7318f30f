// SQL types and their physical representation.
//
// Logical type      physical          notes
// BOOLEAN           uint8_t (0/1)
// INTEGER           int32_t
// BIGINT            int64_t
// DECIMAL(p,s)      int64_t  (p<=18)  scaled integer: value * 10^s, exact arithmetic
//                   __int128 (p<=38)
// DOUBLE            double
// DATE              int32_t           days since 1970-01-01
// VARCHAR           StrRef            (pointer,length); bytes owned by the storage/arena
// TIMESTAMP         int64_t           microseconds since 1970-01-01 00:00:00 (as DuckDB)
// TIME              int64_t           microseconds since midnight
// INTERVAL          __int128          months (int32), days (int32), microseconds (int64) as
//                                     DuckDB keeps them, packed by PackInterval (interval.hpp)
// BLOB              StrRef            the bytes
//
// The ids are stored on disk (the manifest's column types): new ids are appended, never
// renumbered.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace tessera {

using int128_t = __int128;

enum class TypeId : uint8_t {
  Null, Boolean, Integer, BigInt, Decimal, Double, Date, Varchar, Timestamp, Time, Interval, Blob
};
enum class PhysType : uint8_t { Bool, I32, I64, I128, F64, Str };

using StrRef = std::string_view;

struct Type {
  TypeId id = TypeId::Null;
  uint8_t precision = 0;  // DECIMAL only
  uint8_t scale = 0;      // DECIMAL only

  static Type Null() { return {TypeId::Null}; }
  static Type Boolean() { return {TypeId::Boolean}; }
  static Type Integer() { return {TypeId::Integer}; }
  static Type BigInt() { return {TypeId::BigInt}; }
  static Type Double() { return {TypeId::Double}; }
  static Type Date() { return {TypeId::Date}; }
  static Type Varchar() { return {TypeId::Varchar}; }
  static Type Timestamp() { return {TypeId::Timestamp}; }
  static Type Time() { return {TypeId::Time}; }
  static Type Interval() { return {TypeId::Interval}; }
  static Type Blob() { return {TypeId::Blob}; }
  static Type Decimal(int p, int s) { return {TypeId::Decimal, (uint8_t)p, (uint8_t)s}; }

  // Parses a SQL type name with optional parameters ("DECIMAL", p, s). p/s < 0: absent.
  // Throws UserError(Type) for unknown names or bad parameters.
  static Type FromName(std::string_view name, int p = -1, int s = -1, SourcePos pos = {});

  PhysType physical() const;
  int width() const;  // bytes per value in physical form
  bool IsNumeric() const {
    return id == TypeId::Integer || id == TypeId::BigInt || id == TypeId::Decimal ||
           id == TypeId::Double;
  }
  // DATE, TIMESTAMP, TIME: ordered integers on a time axis (not numbers to arithmetic).
  bool IsTemporal() const { return id == TypeId::Date || id == TypeId::Timestamp || id == TypeId::Time; }
  bool IsIntegral() const { return id == TypeId::Integer || id == TypeId::BigInt; }
  std::string ToString() const;
  bool operator==(const Type& o) const {
    return id == o.id && (id != TypeId::Decimal || (precision == o.precision && scale == o.scale));
  }
  bool operator!=(const Type& o) const { return !(*this == o); }
};

inline constexpr int kMaxDecimalPrecision = 38;

// 10^n for n in [0, 38].
int128_t Pow10(int n);

}  // namespace tessera
