// Hashing and equality of single vector cells (joins, aggregation, DISTINCT).
#pragma once
#include <cstring>

#include "common/vector.hpp"
#include "function/scalar_ops.hpp"

namespace tessera {

inline uint64_t HashMix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
inline uint64_t HashCombine(uint64_t h, uint64_t v) { return HashMix(h * 31 + v + 0x9e3779b97f4a7c15ULL); }

inline uint64_t HashBytes(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
  return HashMix(h);
}

inline uint64_t HashValue(const Vector& v, uint32_t i) {
  if (!v.IsValid(i)) return 0x1234567ULL;
  switch (v.type().physical()) {
    case PhysType::Bool: return HashMix(v.data<uint8_t>()[i]);
    case PhysType::I32: return HashMix((uint64_t)(int64_t)v.data<int32_t>()[i]);
    case PhysType::I64: return HashMix((uint64_t)v.data<int64_t>()[i]);
    case PhysType::I128: {
      int128_t x = v.data<int128_t>()[i];
      return HashCombine(HashMix((uint64_t)x), (uint64_t)(x >> 64));
    }
    case PhysType::F64: {
      double d = ops::CanonicalDouble(v.data<double>()[i]);  // -0.0 == 0.0, NaN == NaN
      uint64_t b;
      std::memcpy(&b, &d, 8);
      return HashMix(b);
    }
    case PhysType::Str: {
      StrRef s = v.data<StrRef>()[i];
      return HashBytes(s.data(), s.size());
    }
  }
  return 0;
}

// ---- Group keys: strings a word at a time ----

// A byte string's hash, 8 bytes a step (long string keys hash at word speed); the last
// (partial) word is read as overlapping loads inside the string, never past its end.
inline uint64_t HashBytesWide(const char* p, size_t n) {
  auto load32 = [](const char* q) {
    uint32_t w;
    std::memcpy(&w, q, 4);
    return (uint64_t)w;
  };
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
  uint64_t last;
  if (n <= 8) {
    if (n >= 4) last = load32(p) | load32(p + n - 4) << 32;
    else if (n > 0) last = (uint64_t)(unsigned char)p[0] | (uint64_t)(unsigned char)p[n / 2] << 8 | (uint64_t)(unsigned char)p[n - 1] << 16;
    else last = 0;
  } else {
    size_t i = 0;
    for (; i + 8 < n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
      h = (h << 29) | (h >> 35);
    }
    std::memcpy(&last, p + n - 8, 8);
  }
  return HashMix((h ^ last) * 0xc4ceb9fe1a85ec53ULL);
}

// NULLs compare equal here (grouping semantics); joins filter NULL keys beforehand.
inline bool ValuesEqual(const Vector& a, uint32_t i, const Vector& b, uint32_t j) {
  bool va = a.IsValid(i), vb = b.IsValid(j);
  if (!va || !vb) return va == vb;
  switch (a.type().physical()) {
    case PhysType::Bool: return a.data<uint8_t>()[i] == b.data<uint8_t>()[j];
    case PhysType::I32: return a.data<int32_t>()[i] == b.data<int32_t>()[j];
    case PhysType::I64: return a.data<int64_t>()[i] == b.data<int64_t>()[j];
    case PhysType::I128: return a.data<int128_t>()[i] == b.data<int128_t>()[j];
    case PhysType::F64: return ops::Equals(a.data<double>()[i], b.data<double>()[j]);
    case PhysType::Str: return a.data<StrRef>()[i] == b.data<StrRef>()[j];
  }
  return false;
}

// ---- Column-at-a-time hashing (the join table and the group table) ----

// Mixes column `v`'s rows into h: row i of the batch is physical row sel[i] of v (row i
// where sel is null: WithRows, common/vector.hpp); h[i] = the cell's hash when `first`, else
// HashCombine(h[i], the cell's hash), in one typed loop per column (one type switch a
// column, none a row). NULL hashes as a constant; DOUBLE as its canonical value (-0.0 is
// 0.0, NaNs one value), so equal keys hash alike. Strings: HashValue's HashBytes, or with
// kWideStrings HashBytesWide (a word at a time; the group table's, whose hashes only need
// to agree within one table).
template <bool kWideStrings>
inline void HashColumnCells(const Vector& v, const uint32_t* sel, uint32_t n, bool first, uint64_t* h) {
  const uint8_t* valid = v.validity_or_null();
  WithRows(sel, [&](auto at) {
    // cell(r): the hash of physical row r; ahead(i): before row i (strings prefetch).
    auto loop = [&](auto cell, auto ahead) {
      if (first) {
        if (valid) {
          for (uint32_t i = 0; i < n; i++) {
            ahead(i);
            const uint32_t r = at[i];
            h[i] = valid[r] ? cell(r) : 0x1234567ULL;
          }
        } else {
          for (uint32_t i = 0; i < n; i++) {
            ahead(i);
            h[i] = cell(at[i]);
          }
        }
      } else if (valid) {
        for (uint32_t i = 0; i < n; i++) {
          ahead(i);
          const uint32_t r = at[i];
          h[i] = HashCombine(h[i], valid[r] ? cell(r) : 0x1234567ULL);
        }
      } else {
        for (uint32_t i = 0; i < n; i++) {
          ahead(i);
          h[i] = HashCombine(h[i], cell(at[i]));
        }
      }
    };
    auto none = [](uint32_t) {};
    switch (v.type().physical()) {
      case PhysType::Bool: { const uint8_t* x = v.data<uint8_t>(); loop([&](uint32_t i) { return HashMix(x[i]); }, none); break; }
      case PhysType::I32: { const int32_t* x = v.data<int32_t>(); loop([&](uint32_t i) { return HashMix((uint64_t)(int64_t)x[i]); }, none); break; }
      case PhysType::I64: { const int64_t* x = v.data<int64_t>(); loop([&](uint32_t i) { return HashMix((uint64_t)x[i]); }, none); break; }
      case PhysType::I128: {
        const int128_t* x = v.data<int128_t>();
        loop([&](uint32_t i) { return HashCombine(HashMix((uint64_t)x[i]), (uint64_t)(x[i] >> 64)); }, none);
        break;
      }
      case PhysType::F64: {
        const double* x = v.data<double>();
        loop([&](uint32_t i) {
          double d = ops::CanonicalDouble(x[i]);
          uint64_t b;
          std::memcpy(&b, &d, 8);
          return HashMix(b);
        }, none);
        break;
      }
      case PhysType::Str: {
        // A vector larger than a chunk (a join's build column handed on as a view) is read
        // at scattered rows, and each string's bytes lie wherever its row's storage put
        // them; a hash waits on both. There the cells a few rows ahead are prefetched (their
        // StrRef, then their first bytes), so the misses of several rows overlap; a chunk's
        // own vector (sequential, or small and cached) is read without. (`ahead` is inlined
        // by force: GCC takes a call to a function of only loads and prefetches as free of
        // effects and drops it.)
        const StrRef* x = v.data<StrRef>();
        auto ahead = [&](uint32_t i) __attribute__((always_inline)) {
          if (i + 16 < n) __builtin_prefetch(&x[at[i + 16]]);
          if (i + 8 < n) __builtin_prefetch(x[at[i + 8]].data());
        };
        auto cell = [&](uint32_t i) {
          if constexpr (kWideStrings) return HashBytesWide(x[i].data(), x[i].size());
          else return HashBytes(x[i].data(), x[i].size());
        };
        if (v.capacity() > kVectorSize) loop(cell, ahead);
        else loop(cell, none);
        break;
      }
    }
  });
}

// The join table's key hashes: a cell hashes as HashValue does.
inline void HashColumn(const Vector& v, uint32_t n, bool first, uint64_t* h) {
  HashColumnCells<false>(v, nullptr, n, first, h);
}

// h[i] = the hash of row i of the group keys keys[0..nk) (strings a word at a time), key k
// read through sels[k] (sels, or an entry, null: dense).
inline void HashGroupKeys(const Vector* const* keys, const uint32_t* const* sels, size_t nk, uint32_t n,
                          uint64_t* h) {
  for (size_t k = 0; k < nk; k++) HashColumnCells<true>(*keys[k], sels ? sels[k] : nullptr, n, k == 0, h);
}

// ---- Join keys (the hash join's table, operators/join_hash_table.hpp) ----

// Keys that pack into one 64-bit word: one integer column (BOOLEAN, INTEGER, BIGINT and the
// types stored as them), or two 32-bit integer columns. Two rows' words are equal exactly
// when their (non-NULL) keys are, so a join table keeps the word itself and compares words.
inline bool PackableKeys(const std::vector<PhysType>& p) {
  auto small = [](PhysType t) { return t == PhysType::I32 || t == PhysType::Bool; };
  if (p.size() == 1) return small(p[0]) || p[0] == PhysType::I64;
  return p.size() == 2 && small(p[0]) && small(p[1]);
}
// w[i] = the packed key of row i (NULL rows get some word: callers skip them).
inline void PackKeys(const Vector* const* keys, size_t nk, uint32_t n, uint64_t* w) {
  auto word = [](const Vector& v, uint32_t n, uint64_t* out, bool low32) {
    switch (v.type().physical()) {
      case PhysType::Bool: { const uint8_t* x = v.data<uint8_t>(); for (uint32_t i = 0; i < n; i++) out[i] = x[i]; break; }
      case PhysType::I32: {
        const int32_t* x = v.data<int32_t>();
        if (low32) for (uint32_t i = 0; i < n; i++) out[i] = (uint32_t)x[i];
        else for (uint32_t i = 0; i < n; i++) out[i] = (uint64_t)(int64_t)x[i];
        break;
      }
      case PhysType::I64: { const int64_t* x = v.data<int64_t>(); for (uint32_t i = 0; i < n; i++) out[i] = (uint64_t)x[i]; break; }
      default: break;
    }
  };
  if (nk == 1) {
    word(*keys[0], n, w, false);
    return;
  }
  word(*keys[1], n, w, true);
  const Vector& a = *keys[0];
  if (a.type().physical() == PhysType::Bool) {
    const uint8_t* x = a.data<uint8_t>();
    for (uint32_t i = 0; i < n; i++) w[i] |= (uint64_t)x[i] << 32;
  } else {
    const int32_t* x = a.data<int32_t>();
    for (uint32_t i = 0; i < n; i++) w[i] |= (uint64_t)(uint32_t)x[i] << 32;
  }
}

}  // namespace tessera
