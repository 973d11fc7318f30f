// Calendar arithmetic on DATE values (days since 1970-01-01, proleptic Gregorian).
// Header-only and free of std:: containers so the GPU code generator can embed it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/host_device.hpp"

namespace tessera {


// Days from civil (Howard Hinnant's algorithm, public domain description).
TESSERA_HD inline int32_t DaysFromCivil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = (unsigned)(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int)doe - 719468;
}

TESSERA_HD inline void CivilFromDays(int32_t z, int& y, unsigned& m, unsigned& d) {
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

TESSERA_HD inline int DateYear(int32_t days) {
  int y; unsigned m, d;
  CivilFromDays(days, y, m, d);
  return y;
}

inline bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
inline int DaysInMonth(int y, int m) {
  static const int k[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : k[m - 1];
}

// Parses 'YYYY-MM-DD' (1-4 digit year). Returns nullopt when malformed or out of range.
std::optional<int32_t> ParseDate(std::string_view s);
std::string FormatDate(int32_t days);
// Adds months, clamping the day to the end of the month (as SQL INTERVAL does).
int32_t AddMonths(int32_t days, int months);

}  // namespace tessera
