#include "common/decimal.hpp"

#include "function/scalar_core.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tessera {

std::string FormatInt128(int128_t v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  char buf[48];
  int i = 47;
  buf[i] = 0;
  while (u > 0) {
    buf[--i] = char('0' + (int)(u % 10));
    u /= 10;
  }
  if (neg) buf[--i] = '-';
  return std::string(buf + i);
}

std::string FormatDecimal(int128_t v, int scale) {
  if (scale == 0) return FormatInt128(v);
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  unsigned __int128 p = (unsigned __int128)Pow10(scale);
  std::string ip = FormatInt128((int128_t)(u / p));
  std::string fp = FormatInt128((int128_t)(u % p));
  if ((int)fp.size() < scale) fp = std::string(scale - fp.size(), '0') + fp;
  return (neg ? "-" : "") + ip + "." + fp;
}

void DecimalLiteralShape(std::string_view s, int& int_digits, int& frac_digits) {
  // Every digit counts, leading zeros too: DuckDB types 0.06 as DECIMAL(3,2), 000.5 as
  // DECIMAL(4,1) and .5 as DECIMAL(1,1).
  int_digits = frac_digits = 0;
  bool frac = false;
  for (char c : s) {
    if (c == '.') { frac = true; continue; }
    if (c < '0' || c > '9') continue;
    (frac ? frac_digits : int_digits)++;
  }
}

std::optional<int128_t> ParseDecimal(std::string_view s, int precision, int scale) {
  // As DuckDB casts text: surrounding whitespace, a sign, digits with at most one point,
  // an optional exponent (1e3, 1.5E-1); extra fractional digits round half away from zero.
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) { neg = s[0] == '-'; s.remove_prefix(1); }
  std::string digits;  // significant digits, no leading zeros
  int64_t exp10 = 0;   // value = digits * 10^exp10
  bool seen_point = false, any = false;
  size_t i = 0;
  for (; i < s.size(); i++) {
    char c = s[i];
    if (c == '.') {
      if (seen_point) return std::nullopt;
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = true;
    if (seen_point) exp10--;
    if (digits.empty() && c == '0') continue;
    if (digits.size() > 80) {  // beyond any precision: only the magnitude matters
      if (!seen_point) exp10++;
      continue;
    }
    digits += c;
  }
  if (!any) return std::nullopt;
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return std::nullopt;
    i++;
    bool eneg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    if (i == s.size()) return std::nullopt;
    int64_t e = 0;
    for (; i < s.size(); i++) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      if (e < 100000) e = e * 10 + (s[i] - '0');
    }
    exp10 += eneg ? -e : e;
  }
  int64_t shift = exp10 + scale;  // digits * 10^shift is the scaled value
  bool round_up = false;
  if (shift < 0) {
    int64_t keep = (int64_t)digits.size() + shift;
    if (keep < 0) {
      digits.clear();
    } else {
      round_up = keep < (int64_t)digits.size() && digits[(size_t)keep] >= '5';
      digits.resize((size_t)keep);
    }
  } else if (!digits.empty()) {
    if ((int64_t)digits.size() + shift > 38) return std::nullopt;
    digits.append((size_t)shift, '0');
  }
  if (digits.size() > 38) return std::nullopt;
  int128_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  if (round_up) v += 1;
  if (v >= Pow10(precision)) return std::nullopt;
  return neg ? -v : v;
}

int128_t RescaleDecimal(int128_t v, int from_scale, int to_scale) {
  int128_t r;
  ops::RescaleChecked(v, from_scale, to_scale, r);  // wraps on overflow, as before
  return r;
}

// The shortest digits that read back as d, written as DuckDB (and Python's repr) write
// them: positional where the decimal exponent is in [-4, 16) ("1000000000000000.0",
// "0.0001", integral values with ".0"), otherwise scientific with a signed exponent of at
// least two digits ("1e+16", "1.5e-07", "1.2345678901234568e+17").
std::string FormatDouble(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);  // [-]d[.ddd]e(+|-)xx
  const size_t e = sci.find('e');
  const bool neg = sci[0] == '-';
  std::string digits;
  for (size_t i = neg ? 1 : 0; i < e; i++)
    if (sci[i] != '.') digits += sci[i];
  const int exp = std::atoi(sci.c_str() + e + 1);
  std::string out = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0." + std::string((size_t)(-exp - 1), '0') + digits;
    } else if ((size_t)exp + 1 >= digits.size()) {
      out += digits + std::string((size_t)exp + 1 - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, (size_t)exp + 1) + "." + digits.substr((size_t)exp + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char ex[8];
  std::snprintf(ex, sizeof ex, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return out + ex;
}

}  // namespace tessera
