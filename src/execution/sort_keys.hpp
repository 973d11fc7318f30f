// Sort keys of the CPU backend: the order of two cells of an ORDER BY key (DESC, NULLS
// FIRST/LAST, DuckDB's order: NULLs placed by nulls_first whatever the direction, NaN after
// every other double, strings by their bytes) and a 64-bit normalised prefix of a cell.
// One definition, used by ORDER BY (operators/order.*) and the window operator.
//
// The prefix is monotone in the key's order: Compare(a, b) < 0 implies Prefix(a) <=
// Prefix(b), so rows whose prefixes differ are ordered by the prefixes alone and only ties
// are compared cell by cell. Where the prefix holds the whole value (`PrefixExact`), equal
// prefixes mean equal cells.
#pragma once
#include <cstdint>
#include <cstring>

#include "common/vector.hpp"
#include "function/scalar_ops.hpp"

namespace tessera {

template <class T>
inline int CompareValues(const T& a, const T& b) {
  return ops::LessThan(a, b) ? -1 : (ops::LessThan(b, a) ? 1 : 0);
}

// A sort key column read without dispatching on its type per comparison.
struct KeyColumn {
  PhysType phys;
  const uint8_t* data;
  const uint8_t* valid;  // null: no NULLs
  bool desc = false, nulls_first = false;

  KeyColumn(const Vector& v, bool d, bool nf)
      : phys(v.type().physical()), data(v.raw()), valid(v.validity_or_null()), desc(d), nulls_first(nf) {}

  template <class T>
  int CmpAs(uint32_t a, const KeyColumn& o, uint32_t b) const {
    return CompareValues(reinterpret_cast<const T*>(data)[a], reinterpret_cast<const T*>(o.data)[b]);
  }
  // <0, 0, >0: row a of this column before, with, after row b of `o` (a column of the same
  // type and order) in this key's order.
  int Compare(uint32_t a, const KeyColumn& o, uint32_t b) const {
    bool va = !valid || valid[a], vb = !o.valid || o.valid[b];
    if (!va || !vb) {
      if (va == vb) return 0;
      int r = va ? -1 : 1;  // NULLS LAST
      return nulls_first ? -r : r;
    }
    int c;
    switch (phys) {
      case PhysType::Bool: c = CmpAs<uint8_t>(a, o, b); break;
      case PhysType::I32: c = CmpAs<int32_t>(a, o, b); break;
      case PhysType::I64: c = CmpAs<int64_t>(a, o, b); break;
      case PhysType::I128: c = CmpAs<int128_t>(a, o, b); break;
      case PhysType::F64: c = CmpAs<double>(a, o, b); break;
      default: c = CmpAs<StrRef>(a, o, b); break;
    }
    return desc ? -c : c;
  }
  int Compare(uint32_t a, uint32_t b) const { return Compare(a, *this, b); }

  // Whether equal prefixes mean equal cells (NULLs included) for this column.
  bool PrefixExact() const {
    return phys == PhysType::Bool || phys == PhysType::I32 || (phys == PhysType::I64 && !valid);
  }
  // The normalised prefix of row i (see the file comment).
  uint64_t Prefix(uint32_t i) const {
    if (valid && !valid[i]) return nulls_first ? 0 : UINT64_MAX;
    uint64_t e;  // ascending encoding of the value
    switch (phys) {
      // Narrow integers land in [1, 2^32]: no clash with a NULL's 0 or ~0, either direction.
      case PhysType::Bool: e = 1 + data[i]; break;
      case PhysType::I32: e = (uint64_t)((int64_t)reinterpret_cast<const int32_t*>(data)[i] - INT32_MIN + 1); break;
      case PhysType::I64: e = (uint64_t)reinterpret_cast<const int64_t*>(data)[i] ^ (1ull << 63); break;
      case PhysType::I128:
        e = (uint64_t)(reinterpret_cast<const int128_t*>(data)[i] >> 64) ^ (1ull << 63);
        break;
      case PhysType::F64: {
        double d = reinterpret_cast<const double*>(data)[i];
        if (d != d) d = __builtin_nan("");  // every NaN alike, after +inf
        if (d == 0) d = 0;                  // -0 == 0
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        e = (bits >> 63) ? ~bits : bits | (1ull << 63);
        break;
      }
      default: {  // the first 8 bytes, big-endian, zero-padded
        StrRef s = reinterpret_cast<const StrRef*>(data)[i];
        uint8_t b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        std::memcpy(b, s.data(), s.size() < 8 ? s.size() : 8);
        e = 0;
        for (int k = 0; k < 8; k++) e = (e << 8) | b[k];
        break;
      }
    }
    return desc ? ~e : e;
  }
};

}  // namespace tessera
