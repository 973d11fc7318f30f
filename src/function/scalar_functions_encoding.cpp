// Encodings and digests of the registry, with DuckDB's types and errors: to_hex / hex
// (VARCHAR or BLOB: two upper-case hex digits per byte; INTEGER or BIGINT: the 64-bit
// two's complement without leading zeros) -> VARCHAR; from_hex / unhex (VARCHAR -> BLOB; an
// odd count of digits: the first one alone is a byte); to_base64 / base64 (BLOB, a VARCHAR
// cast to BLOB -> VARCHAR, padded with '='); from_base64 (VARCHAR -> BLOB); sha256
// (VARCHAR or BLOB -> 64 lower-case hex digits).
#include <algorithm>
#include <array>
#include <string>

#include "common/error.hpp"
#include "function/scalar_function_sets.hpp"
#include "function/sha256.hpp"
#include "planner/binder.hpp"

namespace tessera {

namespace {

constexpr const char* kUpperHex = "0123456789ABCDEF";
constexpr const char* kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

[[noreturn]] void NoMatch(const ScalarCall& c, const char* takes) {
  throw UserError(ErrorKind::Type,
                  "no function matches " + std::string(c.written) + "(" + c.args[0]->type.ToString() + "): it takes " +
                      takes + " (add an explicit cast)",
                  c.pos);
}

// One argument that must be a VARCHAR or a BLOB (a NULL is read as `null_as`).
void NeedTextOrBlob(ScalarCall& c, Type null_as) {
  ExpectScalarArgs(c, 1, 1);
  const TypeId id = c.args[0]->type.id;
  if (id == TypeId::Null) c.args[0] = Binder::Coerce(std::move(c.args[0]), null_as, c.pos);
  else if (id != TypeId::Varchar && id != TypeId::Blob) NoMatch(c, "VARCHAR or BLOB");
}

Type BindToHex(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  const TypeId id = c.args[0]->type.id;
  if (id == TypeId::Integer || id == TypeId::BigInt) {
    c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::BigInt(), c.pos);
    return Type::Varchar();
  }
  if (id != TypeId::Varchar && id != TypeId::Blob && id != TypeId::Null)
    NoMatch(c, "VARCHAR, BLOB, INTEGER or BIGINT");
  NeedTextOrBlob(c, Type::Varchar());
  return Type::Varchar();
}

void ToHexCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const bool integer = args[0].type().id == TypeId::BigInt;
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.clear();
    if (integer) {
      const uint64_t v = (uint64_t)args[0].data<int64_t>()[i];
      int shift = 60;
      while (shift > 0 && ((v >> shift) & 15) == 0) shift -= 4;
      for (; shift >= 0; shift -= 4) tmp += kUpperHex[(v >> shift) & 15];
    } else {
      for (unsigned char b : std::string_view(args[0].data<StrRef>()[i])) {
        tmp += kUpperHex[b >> 4];
        tmp += kUpperHex[b & 15];
      }
    }
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

int HexDigit(std::string_view s, size_t k) {
  const char c = s[k];
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  // The offending character (all of its UTF-8 bytes, where DuckDB shows the first alone).
  size_t len = 1;
  while (k + len < s.size() && ((unsigned char)s[k + len] & 0xC0) == 0x80 && (unsigned char)c >= 0xC0) len++;
  throw UserError(ErrorKind::Input, "Invalid input for hex digit: " + std::string(s.substr(k, len)));
}

void FromHexCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const std::string_view s = args[0].data<StrRef>()[i];
    tmp.clear();
    size_t k = 0;
    if (s.size() % 2) tmp += (char)HexDigit(s, k++);
    for (; k < s.size(); k += 2) {
      const int hi = HexDigit(s, k);
      tmp += (char)(hi << 4 | HexDigit(s, k + 1));
    }
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

Type BindToBase64(ScalarCall& c) {
  NeedTextOrBlob(c, Type::Blob());
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Blob(), c.pos);
  return Type::Varchar();
}

void ToBase64Cpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const std::string_view s = args[0].data<StrRef>()[i];
    tmp.clear();
    for (size_t k = 0; k < s.size(); k += 3) {
      const size_t got = std::min<size_t>(3, s.size() - k);
      uint32_t v = 0;
      for (size_t j = 0; j < 3; j++) v = v << 8 | (j < got ? (unsigned char)s[k + j] : 0);
      for (size_t j = 0; j < 4; j++) tmp += j <= got ? kBase64[(v >> (18 - 6 * j)) & 63] : '=';
    }
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

// from_base64: groups of four characters; '=' may end the last group only (after its
// first two characters: then what follows it is not read), as DuckDB decodes.
void FromBase64Cpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  static const auto table = [] {
    std::array<int8_t, 256> t;
    t.fill(-1);
    for (int k = 0; k < 64; k++) t[(unsigned char)kBase64[k]] = (int8_t)k;
    return t;
  }();
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const std::string_view s = args[0].data<StrRef>()[i];
    auto fail = [&](const std::string& why) {
      throw UserError(ErrorKind::Conversion, "Could not decode string \"" + std::string(s) + "\" as base64: " + why);
    };
    if (s.size() % 4) fail("length must be a multiple of 4");
    auto sextet = [&](size_t k) -> uint32_t {
      const int v = table[(unsigned char)s[k]];
      if (v < 0) fail("invalid byte value '" + std::to_string((unsigned char)s[k]) + "' at position " + std::to_string(k));
      return (uint32_t)v;
    };
    tmp.clear();
    for (size_t k = 0; k < s.size(); k += 4) {
      const bool last = k + 4 == s.size();
      const uint32_t a = sextet(k), b = sextet(k + 1);
      tmp += (char)(a << 2 | b >> 4);
      if (last && s[k + 2] == '=') break;
      const uint32_t c = sextet(k + 2);
      tmp += (char)((b & 15) << 4 | c >> 2);
      if (last && s[k + 3] == '=') break;
      tmp += (char)((c & 3) << 6 | sextet(k + 3));
    }
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

Type BindSha256(ScalarCall& c) {
  NeedTextOrBlob(c, Type::Varchar());
  return Type::Varchar();
}

void Sha256Cpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<StrRef>()[i] = out.heap().Add(ops::Sha256Hex(args[0].data<StrRef>()[i]));
}

}  // namespace

std::vector<ScalarFunction> EncodingFunctions() {
  return {
      {"to_hex", {"to_hex", "hex"}, BindToHex, false, ToHexCpu},
      {"from_hex", {"from_hex", "unhex"}, BindFixed<Type::Blob, Type::Varchar>, false, FromHexCpu},
      {"to_base64", {"to_base64", "base64"}, BindToBase64, false, ToBase64Cpu},
      {"from_base64", {"from_base64"}, BindFixed<Type::Blob, Type::Varchar>, false, FromBase64Cpu},
      {"sha256", {"sha256"}, BindSha256, false, Sha256Cpu},
  };
}

}  // namespace tessera
