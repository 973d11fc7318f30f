// Sort keys of the CPU backend: the order of two cells of an ORDER BY key (DESC, NULLS
// FIRST/LAST, DuckDB's order: NULLs placed by nulls_first whatever the direction, NaN after
// every other double, strings by their bytes) and the normalised key of a cell: one or two
// 64-bit words. One definition, used by ORDER BY (operators/order.*) and the window
// operator.
//
// The words are monotone in the key's order: Compare(a, b) < 0 implies words(a) <=
// words(b) (compared word by word), so rows whose words differ are ordered by the words
// alone and only ties are compared cell by cell. Where the words hold the whole value
// (`PrefixExact`), equal words mean equal cells.
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

  // How many 64-bit words of normalised key a column of this type has: strings their
  // first 16 bytes, 128-bit integers their two halves, others one.
  static int PrefixWords(PhysType p) { return p == PhysType::Str || p == PhysType::I128 ? 2 : 1; }
  // Whether equal words (all PrefixWords of them) mean equal cells, NULLs included where
  // the column `nulls` may hold them (a NULL's words clash with the extreme 64-bit values).
  static bool PrefixExact(PhysType p, bool nulls) {
    switch (p) {
      case PhysType::Bool:
      case PhysType::I32:
      case PhysType::F64: return true;
      case PhysType::I64:
      case PhysType::I128: return !nulls;
      default: return false;
    }
  }
  // Word `word` of row i's normalised key (see the file comment).
  uint64_t Prefix(uint32_t i, int word = 0) const {
    if (valid && !valid[i]) return nulls_first ? 0 : UINT64_MAX;
    uint64_t e;  // ascending encoding of the value
    switch (phys) {
      // Narrow integers land in [1, 2^32]: no clash with a NULL's 0 or ~0, either direction.
      case PhysType::Bool: e = 1 + data[i]; break;
      case PhysType::I32: e = (uint64_t)((int64_t)reinterpret_cast<const int32_t*>(data)[i] - INT32_MIN + 1); break;
      case PhysType::I64: e = (uint64_t)reinterpret_cast<const int64_t*>(data)[i] ^ (1ull << 63); break;
      case PhysType::I128: {
        const int128_t v = reinterpret_cast<const int128_t*>(data)[i];
        e = word == 0 ? (uint64_t)(v >> 64) ^ (1ull << 63) : (uint64_t)v;
        break;
      }
      case PhysType::F64: {  // never 0 or ~0 (NaN is one NaN): no clash with a NULL's
        double d = reinterpret_cast<const double*>(data)[i];
        if (d != d) d = __builtin_nan("");  // every NaN alike, after +inf
        if (d == 0) d = 0;                  // -0 == 0
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        e = (bits >> 63) ? ~bits : bits | (1ull << 63);
        break;
      }
      default: {  // bytes [8 word, 8 word + 8), big-endian, zero-padded
        StrRef s = reinterpret_cast<const StrRef*>(data)[i];
        const size_t from = (size_t)word * 8;
        uint8_t b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        if (s.size() > from) std::memcpy(b, s.data() + from, s.size() - from < 8 ? s.size() - from : 8);
        e = 0;
        for (int k = 0; k < 8; k++) e = (e << 8) | b[k];
        break;
      }
    }
    return desc ? ~e : e;
  }
};

}  // namespace tessera
