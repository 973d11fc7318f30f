#include "common/date.hpp"

#include <cstdio>

namespace tessera {

std::optional<int32_t> ParseDate(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  int parts[3] = {0, 0, 0};
  int idx = 0, digits = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      parts[idx] = parts[idx] * 10 + (c - '0');
      if (++digits > (idx == 0 ? 4 : 2)) return std::nullopt;
    } else if (c == '-' && idx < 2 && digits > 0) {
      idx++;
      digits = 0;
    } else {
      return std::nullopt;
    }
  }
  if (idx != 2 || digits == 0) return std::nullopt;
  int y = parts[0], m = parts[1], d = parts[2];
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return std::nullopt;
  return DaysFromCivil(y, (unsigned)m, (unsigned)d);
}

std::string FormatDate(int32_t days) {
  int y; unsigned m, d;
  CivilFromDays(days, y, m, d);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", y, m, d);
  return buf;
}

int32_t AddMonths(int32_t days, int months) {
  int y; unsigned m, d;
  CivilFromDays(days, y, m, d);
  int total = y * 12 + (int)m - 1 + months;
  int ny = total >= 0 ? total / 12 : (total - 11) / 12;
  int nm = total - ny * 12 + 1;
  int nd = (int)d;
  if (nd > DaysInMonth(ny, nm)) nd = DaysInMonth(ny, nm);
  return DaysFromCivil(ny, (unsigned)nm, (unsigned)nd);
}

}  // namespace tessera
