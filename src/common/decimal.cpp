#include "common/decimal.hpp"

#include <charconv>
#include <cmath>

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
  int_digits = frac_digits = 0;
  bool frac = false, leading = true;
  for (char c : s) {
    if (c == '.') { frac = true; continue; }
    if (c < '0' || c > '9') continue;
    if (frac) frac_digits++;
    else if (!(leading && c == '0')) { int_digits++; leading = false; }
  }
}

std::optional<int128_t> ParseDecimal(std::string_view s, int precision, int scale) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) { neg = s[0] == '-'; s.remove_prefix(1); }
  if (s.empty()) return std::nullopt;
  int128_t v = 0;
  int frac = 0, digits = 0;
  bool seen_point = false, any = false, round_up = false, truncated = false;
  for (char c : s) {
    if (c == '.') {
      if (seen_point) return std::nullopt;
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    any = true;
    if (seen_point && frac >= scale) {
      if (!truncated) { round_up = c >= '5'; truncated = true; }
      continue;
    }
    v = v * 10 + (c - '0');
    if (v != 0) digits++;
    if (seen_point) frac++;
    if (digits > 38) return std::nullopt;
  }
  if (!any) return std::nullopt;
  while (frac < scale) { v *= 10; frac++; }
  if (round_up) v += 1;
  if (v >= Pow10(precision)) return std::nullopt;
  return neg ? -v : v;
}

int128_t RescaleDecimal(int128_t v, int from_scale, int to_scale) {
  if (to_scale >= from_scale) return v * Pow10(to_scale - from_scale);
  int128_t p = Pow10(from_scale - to_scale);
  int128_t q = v / p, r = v % p;
  if (r < 0) r = -r;
  if (r * 2 >= p) q += (v < 0 ? -1 : 1);
  return q;
}

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return d == 0 && std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  // Integral values print as "3.0" (DuckDB style), exponents left as to_chars gives them.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace tessera
