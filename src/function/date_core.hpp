// Calendar arithmetic on DATE values (days since 1970-01-01, proleptic Gregorian) and on
// TIMESTAMP (microseconds since 1970-01-01 00:00:00) and TIME (microseconds of the day), defined
// once for both backends: the CPU's loops call it (through common/date.hpp) and the GPU's
// kernels compile it (embedded with the scalar core, src/function/embed_core.cmake), so
// it includes nothing but common/host_device.hpp and uses no std::.
#pragma once
#include "common/host_device.hpp"

namespace tessera {

// Days from civil (Howard Hinnant's algorithm, public domain description).
TESSERA_HD inline int DaysFromCivil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = (unsigned)(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int)doe - 719468;
}

TESSERA_HD inline void CivilFromDays(int z, int& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = (unsigned)(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = (int)yoe + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += (m <= 2);
}

TESSERA_HD inline int DateYear(int days) {
  int y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  return y;
}

constexpr long long kMicrosPerSecond = 1000000LL;
constexpr long long kMicrosPerDay = 86400LL * kMicrosPerSecond;

// The day of a timestamp (floor division: before 1970 the day starts earlier).
TESSERA_HD inline int TimestampDay(long long us) {
  const long long d = us / kMicrosPerDay;
  return (int)(us % kMicrosPerDay < 0 ? d - 1 : d);
}
// The microseconds since midnight of a timestamp's day, 0 .. kMicrosPerDay - 1.
TESSERA_HD inline long long TimestampTimeOfDay(long long us) {
  const long long r = us % kMicrosPerDay;
  return r < 0 ? r + kMicrosPerDay : r;
}

namespace ops {

// EXTRACT(field FROM date) / date_part('field', date) as BIGINT, as DuckDB defines each
// field: dow 0 (Sunday) .. 6, isodow 1 (Monday) .. 7, doy 1 .. 366, week and isoyear the ISO
// 8601 week and its year, yearweek isoyear * 100 + week, decade year / 10, century and
// millennium counted from 1 (year 2000 is in the 20th century), era 1 (AD) or 0 (BC).
// The year and the fields marked monotone never decrease as the date grows, so a date range
// [lo, hi] gives the values [f(lo), f(hi)].
enum DateField {
  kYear = 0, kMonth = 1, kDay = 2, kQuarter = 3, kDow = 4, kIsoDow = 5, kDoy = 6, kWeek = 7,
  kIsoYear = 8, kYearWeek = 9, kDecade = 10, kCentury = 11, kMillennium = 12, kEra = 13,
  // The fields of the time of day (TIMESTAMP, TIME; 0 for a DATE): second 0 .. 59,
  // millisecond and microsecond count the seconds too (DuckDB: 1.5 s is 1500 ms).
  kHour = 14, kMinute = 15, kSecond = 16, kMillisecond = 17, kMicrosecond = 18,
};
TESSERA_HD inline bool IsTimeField(int field) { return field >= kHour; }
// A time-of-day field of `us` microseconds since midnight.
TESSERA_HD inline long long ExtractTimeField(long long us, int field) {
  switch (field) {
    case kHour: return us / (3600 * kMicrosPerSecond);
    case kMinute: return us / (60 * kMicrosPerSecond) % 60;
    case kSecond: return us / kMicrosPerSecond % 60;
    case kMillisecond: return us % (60 * kMicrosPerSecond) / 1000;
    default: return us % (60 * kMicrosPerSecond);  // kMicrosecond
  }
}
TESSERA_HD inline bool DateFieldMonotone(int field) {
  return field == kYear || field == kIsoYear || field == kYearWeek || field == kDecade || field == kCentury ||
         field == kMillennium || field == kEra;
}
// Day of the week, 0 = Sunday (1970-01-01 was a Thursday).
TESSERA_HD inline int DayOfWeek(int days) {
  const int r = (days + 4) % 7;
  return r < 0 ? r + 7 : r;
}
TESSERA_HD inline long long ExtractDateField(int days, int field) {
  int y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  switch (field) {
    case kYear: return y;
    case kMonth: return m;
    case kDay: return d;
    case kQuarter: return (m - 1) / 3 + 1;
    case kDow: return DayOfWeek(days);
    case kIsoDow: { const int w = DayOfWeek(days); return w == 0 ? 7 : w; }
    case kDoy: return days - DaysFromCivil(y, 1, 1) + 1;
    case kDecade: return y / 10;
    case kCentury: return y > 0 ? (y - 1) / 100 + 1 : y / 100 - 1;
    case kMillennium: return y > 0 ? (y - 1) / 1000 + 1 : y / 1000 - 1;
    case kEra: return y > 0 ? 1 : 0;
    default: break;
  }
  // ISO 8601: the week belongs to the year of its Thursday.
  const int w = DayOfWeek(days);
  const int thursday = days - (w == 0 ? 6 : w - 1) + 3;
  const int iso_year = DateYear(thursday);
  const long long week = (thursday - DaysFromCivil(iso_year, 1, 1)) / 7 + 1;
  if (field == kWeek) return week;
  if (field == kIsoYear) return iso_year;
  return (long long)iso_year * 100 + (iso_year < 0 ? -week : week);  // kYearWeek
}

// The fields of an INTERVAL (DuckDB's): year, month (of the months, 0 .. 11), quarter,
// decade, century and millennium of its months; day of its days; hour (not wrapped at 24),
// minute, second, millisecond and microsecond of its microseconds. Signed: truncated
// toward zero, as the interval's own parts. Other fields (dow, week, ...) are not parts
// of an interval.
TESSERA_HD inline bool IsIntervalField(int field) {
  return IsTimeField(field) || field == kYear || field == kMonth || field == kDay || field == kQuarter ||
         field == kDecade || field == kCentury || field == kMillennium;
}
TESSERA_HD inline long long ExtractIntervalField(int months, int days, long long us, int field) {
  if (IsTimeField(field)) return ExtractTimeField(us, field);
  switch (field) {
    case kYear: return months / 12;
    case kMonth: return months % 12;
    case kDay: return days;
    case kQuarter: return months % 12 / 3 + 1;
    case kDecade: return months / 120;
    case kCentury: return months / 1200;
    default: return months / 12000;  // kMillennium
  }
}

// A field of a TIMESTAMP: the date fields of its day, the time fields of its time of day.
TESSERA_HD inline long long ExtractTimestampField(long long us, int field) {
  return IsTimeField(field) ? ExtractTimeField(TimestampTimeOfDay(us), field)
                            : ExtractDateField(TimestampDay(us), field);
}

}  // namespace ops
}  // namespace tessera
