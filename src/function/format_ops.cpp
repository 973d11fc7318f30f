// format() and printf() (see format_ops.hpp): both parse their format string into the same
// conversion specification (fill, alignment, sign, '#', zero padding, width, thousands
// separators, precision, presentation type) and render one argument by it.
#include "function/format_ops.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <optional>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"

namespace tessera::ops {

namespace {

[[noreturn]] void Fail(const std::string& msg) { throw UserError(ErrorKind::Input, msg); }
[[noreturn]] void InvalidFormat() { Fail("invalid format string"); }
[[noreturn]] void OutOfRange(size_t index) { Fail("Argument index \"" + std::to_string(index) + "\" out of range"); }

struct Spec {
  std::string fill = " ";
  char align = 0;   // '<', '>', '^' or 0 (the kind's default)
  char sign = '-';  // '-', '+' or ' '
  bool alt = false;
  bool zero = false;
  int64_t width = 0;
  bool grouping = false;  // ',': thousands separators
  int64_t precision = -1;
  char type = 0;
};

const char* KindName(FormatArg::Kind k) {
  switch (k) {
    case FormatArg::Int: return "int";
    case FormatArg::Float: return "float";
    case FormatArg::Str: return "string";
  }
  return "";
}

[[noreturn]] void BadType(char type, FormatArg::Kind k) {
  Fail(std::string("Invalid type specifier \"") + type + "\" for formatting a value of type " + KindName(k));
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The first `count` code points of s.
std::string_view Prefix(std::string_view s, size_t count) {
  size_t i = 0, seen = 0;
  for (; i < s.size(); i++) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (seen == count) break;
      seen++;
    }
  }
  return s.substr(0, i);
}

void AppendCodePoint(uint32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back((char)c);
  } else if (c < 0x800) {
    out.push_back((char)(0xC0 | (c >> 6)));
    out.push_back((char)(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back((char)(0xE0 | (c >> 12)));
    out.push_back((char)(0x80 | ((c >> 6) & 0x3F)));
    out.push_back((char)(0x80 | (c & 0x3F)));
  } else {
    out.push_back((char)(0xF0 | (c >> 18)));
    out.push_back((char)(0x80 | ((c >> 12) & 0x3F)));
    out.push_back((char)(0x80 | ((c >> 6) & 0x3F)));
    out.push_back((char)(0x80 | (c & 0x3F)));
  }
}

// Digits with a ',' between each group of three (the part before any '.', 'e').
std::string Group(std::string digits) {
  size_t end = 0;
  while (end < digits.size() && digits[end] >= '0' && digits[end] <= '9') end++;
  std::string r;
  for (size_t i = 0; i < end; i++) {
    if (i > 0 && (end - i) % 3 == 0) r.push_back(',');
    r.push_back(digits[i]);
  }
  return r + digits.substr(end);
}

// sign + prefix + body padded to the width: zero padding goes between the prefix and the body.
void Pad(const Spec& sp, std::string sign_prefix, std::string body, char default_align, std::string& out) {
  const size_t len = CodePoints(sign_prefix) + CodePoints(body);
  const size_t width = sp.width > 0 ? (size_t)sp.width : 0;
  if (len >= width) {
    out += sign_prefix;
    out += body;
    return;
  }
  size_t pad = width - len;
  if (sp.zero) {  // numbers: zero padding after the sign, whatever the alignment (DuckDB's)
    out += sign_prefix;
    out.append(pad, '0');
    out += body;
    return;
  }
  const char align = sp.align ? sp.align : default_align;
  size_t before = align == '>' ? pad : align == '^' ? pad / 2 : 0;
  for (size_t i = 0; i < before; i++) out += sp.fill;
  out += sign_prefix;
  out += body;
  for (size_t i = 0; i < pad - before; i++) out += sp.fill;
}

std::string SignOf(bool negative, const Spec& sp) {
  if (negative) return "-";
  if (sp.sign == '+') return "+";
  if (sp.sign == ' ') return " ";
  return "";
}

void RenderInt(int64_t v, const Spec& sp, bool printf_mode, std::string& out) {
  char type = sp.type;
  if (printf_mode && (type == 'i' || type == 'u')) type = 'd';
  if (type == 'c' && printf_mode) {
    std::string ch;
    AppendCodePoint((uint32_t)v, ch);
    Pad(sp, "", ch, '>', out);
    return;
  }
  if (sp.precision >= 0 && !printf_mode) Fail("precision not allowed for this argument type");
  int base = 10;
  std::string prefix;
  switch (type) {
    case 0: case 'd': break;
    case 'x': base = 16; prefix = "0x"; break;
    case 'X': base = 16; prefix = "0X"; break;
    case 'o': base = 8; prefix = "0"; break;
    case 'b': base = 2; prefix = "0b"; break;
    case 'B': base = 2; prefix = "0B"; break;
    default: BadType(type, FormatArg::Int);
  }
  if (type == 'b' || type == 'B') {
    if (printf_mode) BadType(type, FormatArg::Int);
  }
  // printf's %x, %o, %u read the bits as unsigned (C's), format's keep the sign ({fmt}'s)
  const bool as_unsigned = printf_mode && (base != 10 || sp.type == 'u');
  const bool negative = v < 0 && !as_unsigned;
  uint64_t mag = as_unsigned ? (uint64_t)v : negative ? 0 - (uint64_t)v : (uint64_t)v;
  char buf[72];
  auto r = std::to_chars(buf, buf + sizeof buf, mag, base);
  std::string digits(buf, r.ptr);
  if (type == 'X') for (char& c : digits) c = (char)std::toupper((unsigned char)c);
  if (printf_mode && sp.precision >= 0 && (int64_t)digits.size() < sp.precision)
    digits.insert(0, (size_t)(sp.precision - (int64_t)digits.size()), '0');
  if (sp.grouping && base == 10) digits = Group(digits);
  std::string sign_prefix = SignOf(negative, sp);
  if (sp.alt && base != 10 && !(base == 8 && digits[0] == '0')) sign_prefix += prefix;
  Pad(sp, sign_prefix, digits, '>', out);
}

void RenderFloat(double v, const Spec& sp, bool printf_mode, std::string& out) {
  char type = sp.type;
  switch (type) {
    case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': break;
    default: BadType(type, FormatArg::Float);
  }
  const bool negative = std::signbit(v);
  const double mag = std::fabs(v);
  const bool upper = type == 'E' || type == 'F' || type == 'G';
  std::string body;
  if (std::isnan(v) || std::isinf(v)) {
    body = std::isnan(v) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
  } else if (type == 0 && sp.precision < 0 && !printf_mode) {
    body = ShortestDouble(mag);
  } else {
    char conv = type ? type : 'g';
    const int precision = sp.precision >= 0 ? (int)std::min<int64_t>(sp.precision, 1000) : 6;
    std::string f = sp.alt ? "%#.*" : "%.*";
    f.push_back(conv);
    int len = std::snprintf(nullptr, 0, f.c_str(), precision, mag);
    body.resize((size_t)len + 1);
    std::snprintf(body.data(), body.size(), f.c_str(), precision, mag);
    body.resize((size_t)len);
  }
  if (sp.grouping) body = Group(body);
  std::string sign_prefix = SignOf(negative, sp);
  Spec s = sp;
  if (std::isnan(v) || std::isinf(v)) s.zero = false;
  Pad(s, sign_prefix, body, '>', out);
}

void RenderStr(std::string_view v, const Spec& sp, bool printf_mode, std::string& out) {
  if (sp.type != 0 && sp.type != 's') BadType(sp.type, FormatArg::Str);
  if (sp.grouping || (!printf_mode && (sp.sign != '-' || sp.alt))) BadType(sp.type ? sp.type : 's', FormatArg::Str);
  std::string_view body = sp.precision >= 0 ? Prefix(v, (size_t)sp.precision) : v;
  Spec s = sp;
  s.zero = false;
  Pad(s, "", std::string(body), printf_mode ? '>' : '<', out);
}

void Render(const FormatArg& a, const Spec& sp, bool printf_mode, std::string& out) {
  switch (a.kind) {
    case FormatArg::Int: return RenderInt(a.i, sp, printf_mode, out);
    case FormatArg::Float: return RenderFloat(a.d, sp, printf_mode, out);
    case FormatArg::Str: return RenderStr(a.s, sp, printf_mode, out);
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Digits at fmt[i...] as a number (capped), advancing i.
int64_t Number(std::string_view fmt, size_t& i) {
  int64_t v = 0;
  while (i < fmt.size() && IsDigit(fmt[i])) {
    v = std::min<int64_t>(v * 10 + (fmt[i] - '0'), int64_t(1) << 30);
    i++;
  }
  return v;
}

}  // namespace

std::string ShortestDouble(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // [-]d[.ddd]e[+-]XX
  const size_t e = sci.find('e');
  const int exp = std::atoi(sci.c_str() + e + 1);
  std::string sign = sci[0] == '-' ? "-" : "";
  std::string digits;
  for (size_t k = sign.size(); k < e; k++)
    if (sci[k] != '.') digits.push_back(sci[k]);
  if (exp < -4 || exp >= 16) {
    std::string m = digits.substr(0, 1);
    if (digits.size() > 1) m += "." + digits.substr(1);
    std::string x = std::to_string(std::abs(exp));
    if (x.size() < 2) x = "0" + x;
    return sign + m + "e" + (exp < 0 ? "-" : "+") + x;
  }
  std::string s;
  if (exp < 0) {
    s = "0." + std::string((size_t)(-exp - 1), '0') + digits;
  } else if ((size_t)exp + 1 >= digits.size()) {
    s = digits + std::string((size_t)exp + 1 - digits.size(), '0') + ".0";
  } else {
    s = digits.substr(0, (size_t)exp + 1) + "." + digits.substr((size_t)exp + 1);
  }
  return sign + s;
}

void AppendFmtFormatted(std::string_view fmt, std::span<const FormatArg> args, std::string& out) {
  size_t next_auto = 0;
  bool manual = false, automatic = false;
  for (size_t i = 0; i < fmt.size();) {
    const char c = fmt[i];
    if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
        out.push_back('}');
        i += 2;
        continue;
      }
      Fail("unmatched '}' in format string");
    }
    if (c != '{') {
      out.push_back(c);
      i++;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out.push_back('{');
      i += 2;
      continue;
    }
    i++;  // past '{'
    size_t index;
    if (i < fmt.size() && (std::isalpha((unsigned char)fmt[i]) || fmt[i] == '_')) {
      size_t k = i;
      while (k < fmt.size() && fmt[k] != '}' && fmt[k] != ':') k++;
      Fail("Argument with name \"" + std::string(fmt.substr(i, k - i)) +
           "\" not found, did you mean to use it as a format specifier (e.g. {:" + std::string(fmt.substr(i, k - i)) + "}");
    }
    if (i < fmt.size() && IsDigit(fmt[i])) {
      if (automatic) Fail("cannot switch from automatic to manual argument indexing");
      manual = true;
      index = (size_t)Number(fmt, i);
    } else {
      if (manual) Fail("cannot switch from manual to automatic argument indexing");
      automatic = true;
      index = next_auto++;
    }
    Spec sp;
    if (i < fmt.size() && fmt[i] == ':') {
      i++;
      // [[fill]align]: the fill is one code point
      auto is_align = [](char a) { return a == '<' || a == '>' || a == '^'; };
      size_t cp_end = i;
      if (cp_end < fmt.size()) {
        cp_end++;
        while (cp_end < fmt.size() && ((unsigned char)fmt[cp_end] & 0xC0) == 0x80) cp_end++;
      }
      if (cp_end < fmt.size() && is_align(fmt[cp_end]) && fmt[i] != '{' && fmt[i] != '}') {
        sp.fill = std::string(fmt.substr(i, cp_end - i));
        sp.align = fmt[cp_end];
        i = cp_end + 1;
      } else if (i < fmt.size() && is_align(fmt[i])) {
        sp.align = fmt[i++];
      }
      if (i < fmt.size() && (fmt[i] == '+' || fmt[i] == '-' || fmt[i] == ' ')) sp.sign = fmt[i++];
      if (i < fmt.size() && fmt[i] == '#') { sp.alt = true; i++; }
      if (i < fmt.size() && fmt[i] == '0') { sp.zero = true; i++; }
      sp.width = Number(fmt, i);
      if (i < fmt.size() && fmt[i] == ',') { sp.grouping = true; i++; }
      if (i < fmt.size() && fmt[i] == '.') {
        i++;
        if (i >= fmt.size() || !IsDigit(fmt[i])) InvalidFormat();
        sp.precision = Number(fmt, i);
      }
      if (i < fmt.size() && fmt[i] != '}') sp.type = fmt[i++];
    }
    if (i >= fmt.size() || fmt[i] != '}') InvalidFormat();
    i++;
    if (index >= args.size()) OutOfRange(index);
    Render(args[index], sp, false, out);
  }
}

void AppendPrintfFormatted(std::string_view fmt, std::span<const FormatArg> args, std::string& out) {
  size_t next = 0;
  bool manual = false, automatic = false;
  auto take = [&](size_t index) -> const FormatArg& {
    if (index >= args.size()) OutOfRange(index);
    return args[index];
  };
  auto take_next = [&]() -> const FormatArg& {
    if (manual) Fail("cannot switch from manual to automatic argument indexing");
    automatic = true;
    return take(next++);
  };
  for (size_t i = 0; i < fmt.size();) {
    const char c = fmt[i];
    if (c != '%') {
      out.push_back(c);
      i++;
      continue;
    }
    i++;
    if (i < fmt.size() && fmt[i] == '%') {
      out.push_back('%');
      i++;
      continue;
    }
    // %n$: an explicit argument (1-based)
    std::optional<size_t> explicit_index;
    {
      size_t k = i;
      if (k < fmt.size() && IsDigit(fmt[k]) && fmt[k] != '0') {
        const int64_t n = Number(fmt, k);
        if (k < fmt.size() && fmt[k] == '$') {
          if (automatic) Fail("cannot switch from automatic to manual argument indexing");
          manual = true;
          explicit_index = (size_t)(n - 1);
          i = k + 1;
        }
      }
    }
    Spec sp;
    for (; i < fmt.size(); i++) {
      const char f = fmt[i];
      if (f == '-') sp.align = '<';
      else if (f == '+') sp.sign = '+';
      else if (f == ' ') { if (sp.sign != '+') sp.sign = ' '; }
      else if (f == '#') sp.alt = true;
      else if (f == '0') sp.zero = true;
      else break;
    }
    if (i < fmt.size() && fmt[i] == '*') {
      i++;
      const FormatArg& w = take_next();
      if (w.kind != FormatArg::Int) Fail("width is not integer");
      sp.width = w.i;
      if (sp.width < 0) {
        sp.align = '<';
        sp.width = -sp.width;
      }
    } else {
      sp.width = Number(fmt, i);
    }
    if (i < fmt.size() && fmt[i] == '.') {
      i++;
      if (i < fmt.size() && fmt[i] == '*') {
        i++;
        const FormatArg& p = take_next();
        if (p.kind != FormatArg::Int) Fail("precision is not integer");
        sp.precision = p.i < 0 ? -1 : p.i;
      } else {
        sp.precision = Number(fmt, i);
      }
    }
    while (i < fmt.size() && (fmt[i] == 'h' || fmt[i] == 'l' || fmt[i] == 'L' || fmt[i] == 'z' || fmt[i] == 'j' ||
                              fmt[i] == 't'))
      i++;
    if (i >= fmt.size()) BadType('%', (explicit_index ? take(*explicit_index) : take_next()).kind);  // DuckDB's
    sp.type = fmt[i++];
    const FormatArg& a = explicit_index ? take(*explicit_index) : take_next();
    if (a.kind == FormatArg::Str && sp.type == 's') sp.type = 0;
    if (a.kind == FormatArg::Float && (sp.type == 'a' || sp.type == 'A')) BadType(sp.type, a.kind);
    if (a.kind == FormatArg::Int && sp.type != 'd' && sp.type != 'i' && sp.type != 'u' && sp.type != 'x' &&
        sp.type != 'X' && sp.type != 'o' && sp.type != 'c')
      BadType(sp.type, a.kind);
    Render(a, sp, true, out);
  }
}

}  // namespace tessera::ops
