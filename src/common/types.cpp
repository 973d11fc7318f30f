#include "common/types.hpp"

#include <algorithm>
#include <cctype>

namespace tessera {

static std::string Upper(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = (char)std::toupper((unsigned char)c);
  return r;
}

Type Type::FromName(std::string_view name, int p, int s, SourcePos pos) {
  std::string n = Upper(name);
  auto no_params = [&](Type t) {
    if (p >= 0) throw UserError(ErrorKind::Type, "type " + n + " takes no parameters", pos);
    return t;
  };
  if (n == "INTEGER" || n == "INT" || n == "INT4" || n == "SMALLINT" || n == "TINYINT")
    return no_params(Integer());
  if (n == "BIGINT" || n == "INT8" || n == "LONG") return no_params(BigInt());
  if (n == "DOUBLE" || n == "FLOAT" || n == "REAL" || n == "FLOAT8") return no_params(Double());
  if (n == "DATE") return no_params(Date());
  if (n == "TIMESTAMP" || n == "DATETIME" || n == "TIMESTAMP_US") return no_params(Timestamp());
  if (n == "TIME") return no_params(Time());
  if (n == "INTERVAL") return no_params(Interval());
  if (n == "BLOB" || n == "BYTEA" || n == "BINARY" || n == "VARBINARY") return no_params(Blob());
  if (n == "BOOLEAN" || n == "BOOL") return no_params(Boolean());
  if (n == "VARCHAR" || n == "TEXT" || n == "STRING" || n == "CHAR" || n == "BPCHAR") {
    if (s >= 0) throw UserError(ErrorKind::Type, "type " + n + " takes at most one parameter", pos);
    return Varchar();  // length limits are accepted and not enforced (as DuckDB does)
  }
  if (n == "DECIMAL" || n == "NUMERIC") {
    if (p < 0) return Decimal(18, 3);
    if (s < 0) s = 0;
    if (p < 1 || p > kMaxDecimalPrecision)
      throw UserError(ErrorKind::Type, "DECIMAL precision must be between 1 and 38", pos);
    if (s > p) throw UserError(ErrorKind::Type, "DECIMAL scale must not exceed its precision", pos);
    return Decimal(p, s);
  }
  throw UserError(ErrorKind::Type, "unknown type \"" + std::string(name) + "\"", pos);
}

PhysType Type::physical() const {
  switch (id) {
    case TypeId::Boolean: return PhysType::Bool;
    case TypeId::Integer:
    case TypeId::Date: return PhysType::I32;
    case TypeId::BigInt:
    case TypeId::Timestamp:
    case TypeId::Time: return PhysType::I64;
    case TypeId::Decimal: return precision <= 18 ? PhysType::I64 : PhysType::I128;
    case TypeId::Double: return PhysType::F64;
    case TypeId::Varchar:
    case TypeId::Blob: return PhysType::Str;
    case TypeId::Interval: return PhysType::I128;
    case TypeId::Null: return PhysType::I32;
  }
  return PhysType::I32;
}

int Type::width() const {
  switch (physical()) {
    case PhysType::Bool: return 1;
    case PhysType::I32: return 4;
    case PhysType::I64: return 8;
    case PhysType::I128: return 16;
    case PhysType::F64: return 8;
    case PhysType::Str: return (int)sizeof(StrRef);
  }
  return 4;
}

std::string Type::ToString() const {
  switch (id) {
    case TypeId::Null: return "NULL";
    case TypeId::Boolean: return "BOOLEAN";
    case TypeId::Integer: return "INTEGER";
    case TypeId::BigInt: return "BIGINT";
    case TypeId::Decimal:
      return "DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    case TypeId::Double: return "DOUBLE";
    case TypeId::Date: return "DATE";
    case TypeId::Varchar: return "VARCHAR";
    case TypeId::Timestamp: return "TIMESTAMP";
    case TypeId::Time: return "TIME";
    case TypeId::Interval: return "INTERVAL";
    case TypeId::Blob: return "BLOB";
  }
  return "?";
}

int128_t Pow10(int n) {
  static const auto table = [] {
    struct T { int128_t v[39]; } t{};
    t.v[0] = 1;
    for (int i = 1; i < 39; i++) t.v[i] = t.v[i - 1] * 10;
    return t;
  }();
  return table.v[std::clamp(n, 0, 38)];
}

}  // namespace tessera
