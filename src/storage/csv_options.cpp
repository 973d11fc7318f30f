#include "storage/csv_options.hpp"

#include <cctype>

#include "common/ascii.hpp"
#include "common/error.hpp"

namespace tessera {

namespace {

// Option values may arrive with their SQL quotes ('|'); strip them.
std::string Unquote(const std::string& v) {
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
    std::string r;
    for (size_t i = 1; i + 1 < v.size(); i++) {
      r.push_back(v[i]);
      if (v[i] == '\'' && i + 2 < v.size() && v[i + 1] == '\'') i++;
    }
    return r;
  }
  return v;
}

char SingleChar(const std::string& v, const char* option, bool allow_empty) {
  if (v.size() == 1) return v[0];
  if (v == "\\t" || AsciiLower(v) == "tab") return '\t';
  if (v.empty() && allow_empty) return '\0';
  throw UserError(ErrorKind::Input,
                  std::string("COPY option ") + option + " must be a single character, got '" + v + "'");
}

bool ParseBoolOption(const std::string& v, const char* option) {
  std::string l = AsciiLower(v);
  if (l.empty() || l == "true" || l == "on" || l == "1") return true;
  if (l == "false" || l == "off" || l == "0") return false;
  throw UserError(ErrorKind::Input, std::string("COPY option ") + option + " must be true or false, got '" + v + "'");
}

bool IsTblPath(const std::string& path) {
  std::string p = AsciiLower(path);
  size_t dot = p.rfind(".tbl");
  if (dot == std::string::npos) return false;
  size_t rest = dot + 4;
  if (rest == p.size()) return true;
  if (p[rest] != '.' || rest + 1 == p.size()) return false;
  for (size_t i = rest + 1; i < p.size(); i++)
    if (p[i] < '0' || p[i] > '9') return false;
  return true;
}

void CheckDelimiterAndQuote(char delimiter, char quote) {
  if (delimiter == '\n' || delimiter == '\r')
    throw UserError(ErrorKind::Input, "COPY delimiter cannot be a line break");
  if (quote && quote == delimiter) throw UserError(ErrorKind::Input, "COPY delimiter and quote must differ");
}

}  // namespace

CsvOptions ParseCopyOptions(const CopyOptionList& opts, const std::string& path) {
  CsvOptions o;
  if (IsTblPath(path)) {
    o.delimiter = '|';
    o.delimiter_given = true;
  }
  for (auto& [key, raw] : opts) {
    std::string k = AsciiLower(key);
    std::string v = Unquote(raw);
    if (k == "delimiter" || k == "delim" || k == "sep") {
      o.delimiter = SingleChar(v, "DELIMITER", false);
      o.delimiter_given = true;
    } else if (k == "header") {
      o.header = ParseBoolOption(v, "HEADER");
      o.header_given = true;
    } else if (k == "null" || k == "nullstr") {
      o.null_str = v;
    } else if (k == "quote") {
      o.quote = SingleChar(v, "QUOTE", true);
    } else if (k == "format") {
      std::string l = AsciiLower(v);
      if (l != "csv" && l != "tbl")
        throw UserError(ErrorKind::Input, "COPY format '" + v + "' is not supported (only csv)");
    } else {
      throw UserError(ErrorKind::Input, "unknown COPY option \"" + key + "\"");
    }
  }
  CheckDelimiterAndQuote(o.delimiter, o.quote);
  return o;
}

CsvWriteOptions ParseCopyToOptions(const CopyOptionList& opts) {
  CsvWriteOptions o;
  for (auto& [key, raw] : opts) {
    std::string k = AsciiLower(key);
    std::string v = Unquote(raw);
    if (k == "delimiter" || k == "delim" || k == "sep") {
      o.delimiter = SingleChar(v, "DELIMITER", false);
    } else if (k == "header") {
      o.header = ParseBoolOption(v, "HEADER");
    } else if (k == "null" || k == "nullstr") {
      o.null_str = v;
    } else if (k == "quote") {
      o.quote = SingleChar(v, "QUOTE", false);
    } else if (k == "format") {
      std::string l = AsciiLower(v);
      if (l != "csv")
        throw UserError(ErrorKind::Unsupported, "COPY ... TO with FORMAT " + v + " is not supported yet (only csv)");
    } else {
      throw UserError(ErrorKind::Input, "unknown COPY option \"" + key + "\"");
    }
  }
  CheckDelimiterAndQuote(o.delimiter, o.quote);
  return o;
}

}  // namespace tessera
