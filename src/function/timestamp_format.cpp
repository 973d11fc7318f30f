#include "function/timestamp_format.hpp"

#include <cstdio>

#include "common/date.hpp"
#include "common/error.hpp"

namespace tessera {

namespace {

const char* const kDays[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                               "July",    "August",   "September", "October", "November", "December"};

[[noreturn]] void UnknownSpecifier(char c) {
  throw UserError(ErrorKind::Conversion, std::string("unsupported format specifier %") + c);
}

void Num(std::string& out, long long v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*lld", width, v);
  out += buf;
}

}  // namespace

void FormatTimestampAs(int64_t us, std::string_view f, std::string& out) {
  const int day = TimestampDay(us);
  const int64_t tod = TimestampTimeOfDay(us);
  int y;
  unsigned m, d;
  CivilFromDays(day, y, m, d);
  const int64_t hour = tod / (3600 * kMicrosPerSecond);
  for (size_t i = 0; i < f.size(); i++) {
    if (f[i] != '%' || i + 1 == f.size()) {
      out += f[i];
      continue;
    }
    const char c = f[++i];
    switch (c) {
      case 'Y': Num(out, y, 4); break;
      case 'y': Num(out, ((y % 100) + 100) % 100, 2); break;
      case 'm': Num(out, m, 2); break;
      case 'd': Num(out, d, 2); break;
      case 'e': {
        char buf[8];
        std::snprintf(buf, sizeof buf, "%2u", d);
        out += buf;
        break;
      }
      case 'H': Num(out, hour, 2); break;
      case 'I': Num(out, hour % 12 == 0 ? 12 : hour % 12, 2); break;
      case 'M': Num(out, ops::ExtractTimeField(tod, ops::kMinute), 2); break;
      case 'S': Num(out, ops::ExtractTimeField(tod, ops::kSecond), 2); break;
      case 'f': Num(out, tod % kMicrosPerSecond, 6); break;
      case 'g': Num(out, tod % kMicrosPerSecond / 1000, 3); break;
      case 'p': out += hour < 12 ? "AM" : "PM"; break;
      case 'j': Num(out, ops::ExtractDateField(day, ops::kDoy), 3); break;
      case 'a': out.append(kDays[ops::DayOfWeek(day)], 3); break;
      case 'A': out += kDays[ops::DayOfWeek(day)]; break;
      case 'w': Num(out, ops::DayOfWeek(day), 1); break;
      case 'u': Num(out, ops::ExtractDateField(day, ops::kIsoDow), 1); break;
      case 'b':
      case 'h': out.append(kMonths[m - 1], 3); break;
      case 'B': out += kMonths[m - 1]; break;
      case '%': out += '%'; break;
      default: UnknownSpecifier(c);
    }
  }
}

std::optional<int64_t> ParseTimestampAs(std::string_view t, std::string_view f) {
  int64_t y = 1900, mo = 1, d = 1, h = 0, mi = 0, s = 0, frac = 0;
  int pm = -1;  // %p: 0 AM, 1 PM
  bool hour12 = false;
  size_t p = 0;
  auto number = [&](int max_digits, int64_t* v) {
    int n = 0;
    bool neg = false;
    if (p < t.size() && (t[p] == '-' || t[p] == '+') && max_digits > 2) neg = t[p++] == '-';
    *v = 0;
    while (p < t.size() && t[p] >= '0' && t[p] <= '9' && n < max_digits) *v = *v * 10 + (t[p++] - '0'), n++;
    if (neg) *v = -*v;
    return n > 0;
  };
  auto name = [&](const char* const* names, int count, int64_t* index, bool abbreviated_ok) {
    for (int k = 0; k < count; k++) {
      const std::string_view full = names[k];
      for (size_t len : {full.size(), (size_t)3}) {
        if (len == 3 && !abbreviated_ok) continue;
        if (t.size() - p >= len) {
          bool same = true;
          for (size_t j = 0; j < len && same; j++) same = (t[p + j] | 0x20) == (full[j] | 0x20);
          if (same) {
            p += len;
            *index = k;
            return true;
          }
        }
      }
    }
    return false;
  };
  for (size_t i = 0; i < f.size(); i++) {
    if (f[i] != '%' || i + 1 == f.size()) {
      if (f[i] == ' ') {  // a space matches any run of spaces
        while (p < t.size() && t[p] == ' ') p++;
        continue;
      }
      if (p >= t.size() || t[p] != f[i]) return std::nullopt;
      p++;
      continue;
    }
    const char c = f[++i];
    bool ok = true;
    int64_t k;
    switch (c) {
      case 'Y': ok = number(6, &y); break;
      case 'y': ok = number(2, &y); y += y < 69 ? 2000 : 1900; break;
      case 'm': ok = number(2, &mo); break;
      case 'd':
      case 'e': while (p < t.size() && t[p] == ' ') p++; ok = number(2, &d); break;
      case 'H': ok = number(2, &h); break;
      case 'I': ok = number(2, &h); hour12 = true; break;
      case 'M': ok = number(2, &mi); break;
      case 'S': ok = number(2, &s); break;
      case 'f':
      case 'g': {
        const size_t b = p;
        ok = number(c == 'f' ? 6 : 3, &frac);
        for (size_t n = p - b; n < 6; n++) frac *= 10;
        break;
      }
      case 'p': {
        if (t.size() - p < 2) return std::nullopt;
        const char a = (char)(t[p] | 0x20), b = (char)(t[p + 1] | 0x20);
        if (b != 'm' || (a != 'a' && a != 'p')) return std::nullopt;
        pm = a == 'p';
        p += 2;
        break;
      }
      case 'j': ok = number(3, &k); if (ok) { mo = 1; d = k; } break;
      case 'a':
      case 'A': ok = name(kDays, 7, &k, true); break;
      case 'b':
      case 'h':
      case 'B': ok = name(kMonths, 12, &k, true); mo = k + 1; break;
      case '%': ok = p < t.size() && t[p++] == '%'; break;
      default: UnknownSpecifier(c);
    }
    if (!ok) return std::nullopt;
  }
  if (p != t.size()) return std::nullopt;
  if (hour12) {
    if (h < 1 || h > 12) return std::nullopt;
    if (h == 12) h = 0;
  }
  if (pm == 1) h += 12;
  if (mo < 1 || mo > 12 || y < -290000 || y > 290000 || h > 23 || mi > 59 || s > 59) return std::nullopt;
  const int days_in = DaysInMonth((int)y, (int)mo);
  int64_t day;
  if (d > days_in) {  // %j: the day of the year
    if (d > (IsLeapYear((int)y) ? 366 : 365)) return std::nullopt;
    day = DaysFromCivil((int)y, 1, 1) + d - 1;
  } else {
    if (d < 1) return std::nullopt;
    day = DaysFromCivil((int)y, (unsigned)mo, (unsigned)d);
  }
  return day * kMicrosPerDay + ((h * 60 + mi) * 60 + s) * kMicrosPerSecond + frac;
}

}  // namespace tessera
