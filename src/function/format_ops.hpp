// DuckDB's format(fmt, ...) and printf(fmt, ...): a format string with the {fmt} library's
// replacement fields (`{}`, `{1}`, `{:>10.2f}`, `{{`) or with C printf conversions (`%d`,
// `%-5s`, `%.2f`, `%1$s`, `%*d`, `%%`), applied to values of three kinds: integers,
// floating-point numbers (DECIMALs among them, as DuckDB passes them) and strings (every
// other type as its text). The errors are DuckDB's (a conversion the value's kind has no
// use for, an argument index out of range, an invalid format string).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tessera::ops {

struct FormatArg {
  enum Kind { Int, Float, Str } kind = Str;
  int64_t i = 0;
  double d = 0;
  std::string_view s;
};

// Appends fmt with its replacement fields replaced to out. Throws UserError(Input).
void AppendFmtFormatted(std::string_view fmt, std::span<const FormatArg> args, std::string& out);
// Appends fmt with its printf conversions replaced to out. Throws UserError(Input).
void AppendPrintfFormatted(std::string_view fmt, std::span<const FormatArg> args, std::string& out);

// The shortest text that reads back as d, as the {fmt} library writes a double by default
// (and Python's repr): fixed notation with at least one decimal for exponents -4 .. 15,
// else d.ddde+XX.
std::string ShortestDouble(double d);

}  // namespace tessera::ops
