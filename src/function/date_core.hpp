// Calendar arithmetic on DATE values (days since 1970-01-01, proleptic Gregorian), defined
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

namespace ops {

// EXTRACT(field FROM date) as BIGINT, as DuckDB types it. The year is monotone in the
// date, so a date range [lo, hi] gives the years [ExtractYear(lo), ExtractYear(hi)].
enum DateField { kYear = 0, kMonth = 1, kDay = 2 };
TESSERA_HD inline long long ExtractDateField(int days, int field) {
  int y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  return field == kYear ? (long long)y : field == kMonth ? (long long)m : (long long)d;
}

}  // namespace ops
}  // namespace tessera
