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

namespace tessera {

namespace {

// Reads 1..max_digits digits at s[*i]; false when there are none.
bool Digits(std::string_view s, size_t* i, int max_digits, int64_t* v) {
  int n = 0;
  *v = 0;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9' && n < max_digits) *v = *v * 10 + (s[(*i)++] - '0'), n++;
  return n > 0;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// ".ffffff" without trailing zeros (empty for a whole second).
void AppendFraction(std::string& out, int64_t micros) {
  if (micros == 0) return;
  char buf[24];
  std::snprintf(buf, sizeof buf, ".%06lld", (long long)micros);
  size_t n = 7;
  while (buf[n - 1] == '0') n--;
  out.append(buf, n);
}

void AppendTimeOfDay(std::string& out, int64_t us) {
  char buf[48];
  const int64_t secs = us / kMicrosPerSecond;
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", (long long)(secs / 3600), (long long)(secs / 60 % 60),
                (long long)(secs % 60));
  out += buf;
  AppendFraction(out, us % kMicrosPerSecond);
}

}  // namespace

size_t ParseTimeOfDay(std::string_view s, int64_t* us) {
  size_t i = 0;
  int64_t h, m, sec = 0, frac = 0;
  if (!Digits(s, &i, 2, &h) || i >= s.size() || s[i] != ':') return 0;
  i++;
  if (!Digits(s, &i, 2, &m)) return 0;
  if (i < s.size() && s[i] == ':') {
    i++;
    if (!Digits(s, &i, 2, &sec)) return 0;
    if (i < s.size() && s[i] == '.') {
      i++;
      int n = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (n < 6) frac = frac * 10 + (s[i] - '0'), n++;  // digits past microseconds are dropped
        i++;
      }
      if (n == 0) return 0;
      while (n < 6) frac *= 10, n++;
    }
  }
  if (h > 24 || m > 59 || sec > 59 || (h == 24 && (m || sec || frac))) return 0;
  *us = ((h * 60 + m) * 60 + sec) * kMicrosPerSecond + frac;
  return i;
}

std::optional<int64_t> ParseTimestamp(std::string_view s) {
  s = Trim(s);
  size_t date_end = 0;
  while (date_end < s.size() && s[date_end] != ' ' && s[date_end] != 'T') date_end++;
  auto day = ParseDate(s.substr(0, date_end));
  if (!day) return std::nullopt;
  int64_t us = (int64_t)*day * kMicrosPerDay;
  if (date_end == s.size()) return us;
  std::string_view rest = s.substr(date_end + 1);
  int64_t tod;
  size_t n = ParseTimeOfDay(rest, &tod);
  if (n == 0) return std::nullopt;
  us += tod;
  rest = Trim(rest.substr(n));
  if (rest == "Z" || rest == "UTC") return us;
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {  // a UTC offset +HH[:MM]
    size_t i = 1;
    int64_t oh, om = 0;
    if (!Digits(rest, &i, 2, &oh)) return std::nullopt;
    if (i < rest.size() && rest[i] == ':') {
      i++;
      if (!Digits(rest, &i, 2, &om)) return std::nullopt;
    }
    if (i != rest.size() || oh > 23 || om > 59) return std::nullopt;
    return us;  // DuckDB's TIMESTAMP (without time zone) ignores the offset
  }
  if (!rest.empty()) return std::nullopt;
  return us;
}

std::string FormatTimestamp(int64_t us) {
  std::string out = FormatDate(TimestampDay(us));
  out += ' ';
  AppendTimeOfDay(out, TimestampTimeOfDay(us));
  return out;
}

std::optional<int64_t> ParseTime(std::string_view s) {
  s = Trim(s);
  int64_t us;
  size_t n = ParseTimeOfDay(s, &us);
  if (n == 0 || n != s.size()) return std::nullopt;
  return us;
}

std::string FormatTime(int64_t us) {
  std::string out;
  AppendTimeOfDay(out, us);
  return out;
}

}  // namespace tessera
