#include "common/interval.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/date.hpp"

namespace tessera {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The interval unit a word names: months per unit (month-like) or microseconds per unit.
bool IntervalUnit(std::string w, bool* months, int64_t* per) {
  for (auto& c : w) c = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  struct U { const char* name; bool months; int64_t per; };
  static const U k[] = {
      {"millennium", true, 12000}, {"millennia", true, 12000}, {"century", true, 1200}, {"centuries", true, 1200},
      {"decade", true, 120},       {"decades", true, 120},     {"year", true, 12},      {"years", true, 12},
      {"y", true, 12},             {"yr", true, 12},           {"yrs", true, 12},       {"quarter", true, 3},
      {"quarters", true, 3},       {"month", true, 1},         {"months", true, 1},     {"mon", true, 1},
      {"mons", true, 1},           {"week", false, 7 * kMicrosPerDay}, {"weeks", false, 7 * kMicrosPerDay},
      {"w", false, 7 * kMicrosPerDay}, {"day", false, kMicrosPerDay}, {"days", false, kMicrosPerDay},
      {"d", false, kMicrosPerDay}, {"hour", false, 3600 * kMicrosPerSecond}, {"hours", false, 3600 * kMicrosPerSecond},
      {"h", false, 3600 * kMicrosPerSecond}, {"hr", false, 3600 * kMicrosPerSecond}, {"hrs", false, 3600 * kMicrosPerSecond},
      {"minute", false, 60 * kMicrosPerSecond}, {"minutes", false, 60 * kMicrosPerSecond}, {"m", false, 60 * kMicrosPerSecond},
      {"min", false, 60 * kMicrosPerSecond}, {"mins", false, 60 * kMicrosPerSecond}, {"second", false, kMicrosPerSecond},
      {"seconds", false, kMicrosPerSecond}, {"s", false, kMicrosPerSecond}, {"sec", false, kMicrosPerSecond},
      {"secs", false, kMicrosPerSecond}, {"millisecond", false, 1000}, {"milliseconds", false, 1000},
      {"ms", false, 1000}, {"msec", false, 1000}, {"msecs", false, 1000}, {"microsecond", false, 1},
      {"microseconds", false, 1}, {"us", false, 1}, {"usec", false, 1}, {"usecs", false, 1},
  };
  for (const U& u : k)
    if (w == u.name) {
      *months = u.months;
      *per = u.per;
      return true;
    }
  return false;
}

bool Fits32(long double v) { return v >= INT32_MIN && v <= INT32_MAX; }

}  // namespace

std::optional<IntervalParts> ParseInterval(std::string_view s) {
  IntervalParts r;
  long double months = 0, days = 0, micros = 0;
  size_t i = 0;
  bool any = false;
  auto space = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) i++;
  };
  space();
  while (i < s.size()) {
    bool neg = false;
    if (s[i] == '-' || s[i] == '+') neg = s[i++] == '-';
    const size_t b = i;
    while (i < s.size() && IsDigit(s[i])) i++;
    if (i < s.size() && s[i] == ':') {  // a time: [-]H..:MM[:SS[.ffffff]] (hours past 24 allowed)
      if (i == b || i - b > 9) return std::nullopt;
      int64_t h = 0, m = 0, sec = 0, frac = 0;
      for (size_t k = b; k < i; k++) h = h * 10 + (s[k] - '0');
      auto two = [&](int64_t* v) {
        if (i + 2 > s.size() || !IsDigit(s[i]) || !IsDigit(s[i + 1])) return false;
        *v = (s[i] - '0') * 10 + (s[i + 1] - '0');
        i += 2;
        return *v < 60;
      };
      i++;
      if (!two(&m)) return std::nullopt;
      if (i < s.size() && s[i] == ':') {
        i++;
        if (!two(&sec)) return std::nullopt;
        if (i < s.size() && s[i] == '.') {
          i++;
          int n = 0;
          while (i < s.size() && IsDigit(s[i])) {
            if (n < 6) frac = frac * 10 + (s[i] - '0'), n++;
            i++;
          }
          if (n == 0) return std::nullopt;
          while (n < 6) frac *= 10, n++;
        }
      }
      const long double t = (long double)((h * 60 + m) * 60 + sec) * kMicrosPerSecond + (long double)frac;
      micros += neg ? -t : t;
      any = true;
      space();
      continue;
    }
    if (i < s.size() && s[i] == '.') {
      i++;
      while (i < s.size() && IsDigit(s[i])) i++;
    }
    if (i == b || (i == b + 1 && s[b] == '.')) return std::nullopt;
    const long double v = std::strtold(std::string(s.substr(b, i - b)).c_str(), nullptr) * (neg ? -1 : 1);
    space();
    const size_t ub = i;
    while (i < s.size() && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) i++;
    bool in_months;
    int64_t per;
    if (ub == i || !IntervalUnit(std::string(s.substr(ub, i - ub)), &in_months, &per)) return std::nullopt;
    if (in_months) {
      const long double m = v * per;
      const long double whole = std::trunc(m);
      months += whole;
      days += (m - whole) * 30;  // a fraction of a month is 30-day days (DuckDB's)
    } else if (per >= kMicrosPerDay) {
      const long double d = v * (per / kMicrosPerDay);
      const long double whole = std::trunc(d);
      days += whole;
      micros += (d - whole) * kMicrosPerDay;
    } else {
      micros += v * per;
    }
    any = true;
    space();
  }
  if (!any) return std::nullopt;
  // Fractional days from months: whole days, the rest microseconds.
  const long double whole_days = std::trunc(days);
  micros += (days - whole_days) * kMicrosPerDay;
  if (!Fits32(months) || !Fits32(whole_days) || std::fabs(micros) > 9.2e18L) return std::nullopt;
  r.months = (int32_t)months;
  r.days = (int32_t)whole_days;
  r.micros = (int64_t)std::llroundl(micros);
  return r;
}

std::string FormatInterval(IntervalParts p) {
  std::string out;
  auto part = [&](int64_t v, const char* unit) {
    if (v == 0) return;
    if (!out.empty()) out += ' ';
    out += std::to_string(v) + " " + unit + (v == 1 || v == -1 ? "" : "s");
  };
  part(p.months / 12, "year");
  part(p.months % 12, "month");
  part(p.days, "day");
  if (p.micros != 0 || out.empty()) {
    if (!out.empty()) out += ' ';
    int64_t us = p.micros;
    if (us < 0) {
      out += '-';
      us = -us;  // INT64_MIN cannot come from a parse (|micros| <= 9.2e18)
    }
    const int64_t secs = us / kMicrosPerSecond;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", (long long)(secs / 3600), (long long)(secs / 60 % 60),
                  (long long)(secs % 60));
    out += buf;
    if (const int64_t frac = us % kMicrosPerSecond) {
      std::snprintf(buf, sizeof buf, ".%06lld", (long long)frac);
      std::string f = buf;
      while (f.back() == '0') f.pop_back();
      out += f;
    }
  }
  return out;
}

bool AddIntervals(IntervalParts a, IntervalParts b, IntervalParts* out) {
  return !__builtin_add_overflow(a.months, b.months, &out->months) &&
         !__builtin_add_overflow(a.days, b.days, &out->days) && !__builtin_add_overflow(a.micros, b.micros, &out->micros);
}

bool MultiplyInterval(IntervalParts a, int64_t k, IntervalParts* out) {
  int64_t m, d;
  return !__builtin_mul_overflow((int64_t)a.months, k, &m) && m >= INT32_MIN && m <= INT32_MAX &&
         !__builtin_mul_overflow((int64_t)a.days, k, &d) && d >= INT32_MIN && d <= INT32_MAX &&
         !__builtin_mul_overflow(a.micros, k, &out->micros) && ((out->months = (int32_t)m), (out->days = (int32_t)d), true);
}

std::string FormatBlob(std::string_view bytes) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c <= 0x7e && c != '\\') {
      out += (char)c;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::optional<std::string> ParseBlob(std::string_view t) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < t.size(); i++) {
    const unsigned char c = (unsigned char)t[i];
    if (c == '\\') {
      if (i + 3 >= t.size() || t[i + 1] != 'x') return std::nullopt;
      const int hi = nibble(t[i + 2]), lo = nibble(t[i + 3]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += (char)(hi * 16 + lo);
      i += 3;
    } else if (c >= 0x80) {
      return std::nullopt;
    } else {
      out += (char)c;
    }
  }
  return out;
}

}  // namespace tessera
