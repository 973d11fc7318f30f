// Text-to-value conversions of CSV fields, shared by the reader (csv_reader.cpp) and the
// sniffer (csv_sniffer.cpp), so that "this field fits the column" means the same in both.
#pragma once
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "common/date.hpp"
#include "common/decimal.hpp"
#include "common/interval.hpp"
#include "common/string_cast.hpp"
#include "common/types.hpp"

namespace tessera::csv {

enum class Conv { Ok, Bad, Range };

inline void TrimSpaces(const char*& s, const char*& e) {
  while (s < e && *s == ' ') s++;
  while (e > s && e[-1] == ' ') e--;
}

inline Conv ParseInt(const char* s, const char* e, int64_t lo, int64_t hi, int64_t* out) {
  TrimSpaces(s, e);
  bool neg = false;
  if (s < e && (*s == '-' || *s == '+')) {
    neg = *s == '-';
    s++;
  }
  if (s == e) return Conv::Bad;
  uint64_t v = 0;
  bool overflow = false;
  for (; s < e; s++) {
    unsigned d = (unsigned)(unsigned char)*s - '0';
    if (d > 9) return Conv::Bad;
    if (__builtin_mul_overflow(v, (uint64_t)10, &v) || __builtin_add_overflow(v, (uint64_t)d, &v))
      overflow = true;
  }
  uint64_t limit = neg ? (uint64_t)(-(lo + 1)) + 1 : (uint64_t)hi;
  if (overflow || v > limit) return Conv::Range;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return Conv::Ok;
}

// Decimal fast path for plain literals ("-123.45" with at most `scale` fraction digits and
// at most 18 integer digits). Returns false when the general parser must decide.
inline bool FastDecimal(const char* s, const char* e, int scale, int128_t* out) {
  TrimSpaces(s, e);
  bool neg = false;
  if (s < e && (*s == '-' || *s == '+')) {
    neg = *s == '-';
    s++;
  }
  uint64_t ip = 0, fp = 0;
  int nd = 0, nf = 0;
  while (s < e && (unsigned)(*s - '0') <= 9) {
    if (++nd > 18) return false;
    ip = ip * 10 + (uint64_t)(*s++ - '0');
  }
  if (s < e && *s == '.') {
    s++;
    while (s < e && (unsigned)(*s - '0') <= 9) {
      if (nf == scale) return false;  // needs rounding
      fp = fp * 10 + (uint64_t)(*s++ - '0');
      nf++;
    }
  }
  if (s != e || nd + nf == 0 || nd + scale > 38) return false;
  int128_t v = (int128_t)ip * Pow10(scale) + (int128_t)fp * Pow10(scale - nf);
  *out = neg ? -v : v;
  return true;
}

inline Conv ParseDecimalField(const char* s, const char* e, const Type& t, int128_t* out) {
  int128_t x;
  if (!FastDecimal(s, e, t.scale, &x)) {
    std::string_view text(s, (size_t)(e - s));
    auto r = ParseDecimal(text, t.precision, t.scale);
    if (!r) return ParseDecimal(text, 38, t.scale).has_value() ? Conv::Range : Conv::Bad;
    x = *r;
  }
  int128_t lim = Pow10(t.precision);
  if (x >= lim || x <= -lim) return Conv::Range;
  *out = x;
  return Conv::Ok;
}

inline Conv ParseDoubleField(const char* s, const char* e, double* out) {
  TrimSpaces(s, e);
  if (s < e && *s == '+') s++;
  auto r = std::from_chars(s, e, *out);
  if (s == e || r.ptr != e) return Conv::Bad;
  if (r.ec == std::errc::result_out_of_range) return Conv::Range;
  return Conv::Ok;
}

inline bool FastDate(const char* s, const char* e, int32_t* out) {
  if (e - s != 10 || s[4] != '-' || s[7] != '-') return false;
  int v[8];
  static const int pos[8] = {0, 1, 2, 3, 5, 6, 8, 9};
  for (int i = 0; i < 8; i++) {
    v[i] = s[pos[i]] - '0';
    if ((unsigned)v[i] > 9) return false;
  }
  int y = v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3];
  int m = v[4] * 10 + v[5];
  int d = v[6] * 10 + v[7];
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *out = DaysFromCivil(y, (unsigned)m, (unsigned)d);
  return true;
}

inline Conv ParseDateField(const char* s, const char* e, int32_t* out) {
  if (FastDate(s, e, out)) return Conv::Ok;
  auto r = ParseDate(std::string_view(s, (size_t)(e - s)));
  if (!r) return Conv::Bad;
  *out = *r;
  return Conv::Ok;
}

// As CAST(text AS TIMESTAMP) / CAST(text AS TIME) (common/date.hpp).
inline Conv ParseTimestampField(const char* s, const char* e, int64_t* out) {
  auto r = ParseTimestamp(std::string_view(s, (size_t)(e - s)));
  if (!r) return Conv::Bad;
  *out = *r;
  return Conv::Ok;
}
inline Conv ParseTimeField(const char* s, const char* e, int64_t* out) {
  auto r = ParseTime(std::string_view(s, (size_t)(e - s)));
  if (!r) return Conv::Bad;
  *out = *r;
  return Conv::Ok;
}

inline Conv ParseIntervalField(const char* s, const char* e, int128_t* out) {
  auto r = ParseInterval(std::string_view(s, (size_t)(e - s)));
  if (!r) return Conv::Bad;
  *out = PackInterval(*r);
  return Conv::Ok;
}

// As CAST(text AS BOOLEAN) (common/string_cast.hpp: true/t/yes/y/1, false/f/no/n/0, any
// case), spaces around allowed.
inline Conv ParseBoolField(const char* s, const char* e, bool* out) {
  TrimSpaces(s, e);
  auto b = ParseBoolean(std::string_view(s, (size_t)(e - s)));
  if (!b) return Conv::Bad;
  *out = *b;
  return Conv::Ok;
}

// Whether the (non-empty, unescaped) text converts to a value of type t.
inline bool FieldFits(const Type& t, std::string_view text) {
  const char* s = text.data();
  const char* e = s + text.size();
  int64_t i;
  int128_t x;
  double d;
  int32_t day;
  bool b;
  switch (t.id) {
    case TypeId::Varchar: return true;
    case TypeId::Integer: return ParseInt(s, e, INT32_MIN, INT32_MAX, &i) == Conv::Ok;
    case TypeId::BigInt: return ParseInt(s, e, INT64_MIN, INT64_MAX, &i) == Conv::Ok;
    case TypeId::Decimal: return ParseDecimalField(s, e, t, &x) == Conv::Ok;
    case TypeId::Double: return ParseDoubleField(s, e, &d) == Conv::Ok;
    case TypeId::Date: return ParseDateField(s, e, &day) == Conv::Ok;
    case TypeId::Timestamp: return ParseTimestampField(s, e, &i) == Conv::Ok;
    case TypeId::Time: return ParseTimeField(s, e, &i) == Conv::Ok;
    case TypeId::Interval: return ParseIntervalField(s, e, &x) == Conv::Ok;
    case TypeId::Blob: return ParseBlob(text).has_value();
    case TypeId::Boolean: return ParseBoolField(s, e, &b) == Conv::Ok;
    case TypeId::Null: return false;
  }
  return false;
}

}  // namespace tessera::csv
