#include "common/json.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"

namespace tessera::json {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += (char)c;
        }
    }
  }
  return out + "\"";
}

std::string Number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  if (std::fabs(v) >= 1e6 && std::fabs(v) < 1e18 && v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

FlatObject ParseFlat(const std::string& t, const std::string& what) {
  FlatObject out;
  size_t i = 0;
  auto fail = [&](const std::string& msg) {
    throw UserError(ErrorKind::Conversion, what + ": " + msg + " at offset " + std::to_string(i));
  };
  auto ws = [&] { while (i < t.size() && std::isspace((unsigned char)t[i])) i++; };
  auto str = [&] {
    if (i >= t.size() || t[i] != '"') fail("expected a string");
    std::string s;
    for (i++; i < t.size() && t[i] != '"'; i++) {
      if (t[i] == '\\' && i + 1 < t.size()) {
        char e = t[++i];
        if (e == 'n') s += '\n';
        else if (e == 't') s += '\t';
        else if (e == 'r') s += '\r';
        else if (e == 'u' && i + 4 < t.size()) {
          unsigned cp = 0;
          auto r = std::from_chars(t.data() + i + 1, t.data() + i + 5, cp, 16);
          if (r.ec != std::errc() || r.ptr != t.data() + i + 5) fail("bad \\u escape");
          s += (char)cp;
          i += 4;
        }
        else s += e;
      } else {
        s += t[i];
      }
    }
    if (i >= t.size()) fail("unterminated string");
    i++;
    return s;
  };
  ws();
  if (i >= t.size() || t[i] != '{') fail("expected '{'");
  i++;
  ws();
  if (i < t.size() && t[i] == '}') return out;
  for (;;) {
    ws();
    std::string key = str();
    ws();
    if (i >= t.size() || t[i] != ':') fail("expected ':'");
    i++;
    ws();
    if (i < t.size() && t[i] == '"') {
      out[key] = str();
    } else {
      size_t s = i;
      while (i < t.size() && (std::isalnum((unsigned char)t[i]) || t[i] == '.' || t[i] == '-' || t[i] == '+')) i++;
      if (s == i) fail("expected a value");
      out[key] = t.substr(s, i - s);
    }
    ws();
    if (i < t.size() && t[i] == ',') { i++; continue; }
    if (i < t.size() && t[i] == '}') break;
    fail("expected ',' or '}'");
  }
  return out;
}

}  // namespace tessera::json
