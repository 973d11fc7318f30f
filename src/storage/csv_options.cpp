#include "storage/csv_options.hpp"

#include <cctype>

#include "common/ascii.hpp"
#include "common/identifier.hpp"
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

// An option's list or struct in the parser's canonical text ("['a', 'b']" or
// "{'a': 'INTEGER'}"): its strings in order (a struct's keys and values alternating);
// *is_struct says which. Anything else (a plain value) is not a collection: false.
bool OptionEntries(const std::string& v, std::vector<std::string>& out, bool* is_struct) {
  out.clear();
  if (v.size() < 2 || !((v.front() == '[' && v.back() == ']') || (v.front() == '{' && v.back() == '}'))) return false;
  *is_struct = v.front() == '{';
  for (size_t i = 1; i + 1 < v.size(); i++) {
    if (v[i] != '\'') continue;
    std::string x;
    for (i++; i + 1 < v.size(); i++) {
      if (v[i] == '\'') {
        if (v[i + 1] != '\'') break;
        i++;
      }
      x.push_back(v[i]);
    }
    out.push_back(std::move(x));
  }
  return true;
}

// A type written as text ('DECIMAL(10,2)', 'integer').
Type TypeFromText(const std::string& text, SourcePos pos) {
  std::string name = text;
  int p = -1, s = -1;
  size_t open = text.find('(');
  if (open != std::string::npos) {
    name = text.substr(0, open);
    size_t close = text.find(')', open);
    if (close == std::string::npos || close + 1 != text.size())
      throw UserError(ErrorKind::Type, "unknown type \"" + text + "\"", pos);
    std::string args = text.substr(open + 1, close - open - 1);
    size_t comma = args.find(',');
    auto number = [&](std::string a) {
      while (!a.empty() && a.front() == ' ') a.erase(a.begin());
      while (!a.empty() && a.back() == ' ') a.pop_back();
      if (a.empty() || a.size() > 4 || a.find_first_not_of("0123456789") != std::string::npos)
        throw UserError(ErrorKind::Type, "unknown type \"" + text + "\"", pos);
      return std::stoi(a);
    };
    p = number(comma == std::string::npos ? args : args.substr(0, comma));
    if (comma != std::string::npos) s = number(args.substr(comma + 1));
  }
  while (!name.empty() && name.back() == ' ') name.pop_back();
  while (!name.empty() && name.front() == ' ') name.erase(name.begin());
  return Type::FromName(name, p, s, pos);
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

ReadCsvOptions ParseReadCsvOptions(const CopyOptionList& opts, SourcePos pos) {
  static const char* kKnown =
      "all_varchar, auto_detect, column_names, column_types, columns, compression, delim, delimiter, dtypes, "
      "escape, filename, header, names, null, nullstr, quote, sample_size, sep, skip, types";
  ReadCsvOptions r;
  CsvOptions& o = r.csv;
  auto bad = [&](const std::string& key, const std::string& why) {
    return UserError(ErrorKind::Binder, "read_csv option " + key + " " + why, pos);
  };
  auto boolean = [&](const std::string& key, const std::string& v) {
    std::string l = AsciiLower(v);
    if (l == "true" || l == "1" || l == "on") return true;
    if (l == "false" || l == "0" || l == "off") return false;
    throw bad(key, "must be true or false, got '" + v + "'");
  };
  auto count = [&](const std::string& key, const std::string& v) {
    uint64_t n = 0;
    if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos)
      throw bad(key, "must be a non-negative integer, got '" + v + "'");
    for (char c : v) n = n * 10 + (uint64_t)(c - '0');
    return n;
  };
  auto single = [&](const std::string& key, const std::string& v, bool allow_empty) {
    if (v.size() == 1) return v[0];
    if (v == "\\t") return '\t';
    if (v.empty() && allow_empty) return '\0';
    throw bad(key, "must be a single character, got '" + v + "'");
  };
  bool delim_seen = false;
  std::string escape;
  bool escape_given = false;
  for (auto& [key, raw] : opts) {
    std::string k = AsciiLower(key);
    std::string v = Unquote(raw);
    if (k == "delim" || k == "delimiter" || k == "sep") {
      if (delim_seen) throw bad(k, "repeats the delimiter (delim, delimiter and sep are aliases)");
      delim_seen = true;
      o.delimiter = single(k, v, false);
      o.delimiter_given = true;
    } else if (k == "header") {
      o.header = boolean(k, v);
      o.header_given = true;
    } else if (k == "quote") {
      o.quote = single(k, v, true);
    } else if (k == "escape") {
      escape = v;
      escape_given = true;
    } else if (k == "nullstr" || k == "null") {
      o.null_str = v;
    } else if (k == "skip") {
      o.skip = count(k, v);
    } else if (k == "sample_size") {
      // DuckDB: -1 reads the whole file.
      r.sample_size = v == "-1" ? UINT64_MAX : count(k, v);
      if (r.sample_size == 0) throw bad(k, "must be positive (or -1 for the whole file)");
    } else if (k == "all_varchar") {
      r.all_varchar = boolean(k, v);
    } else if (k == "auto_detect") {
      if (!boolean(k, v))
        throw bad(k, "false is not supported (the dialect and header are always sniffed; columns, types and names "
                     "set the columns): leave auto_detect on");
    } else if (k == "filename") {
      r.filename = boolean(k, v);
    } else if (k == "compression") {
      std::string l = AsciiLower(v);
      if (l == "auto" || l == "infer") r.compression = ReadCsvOptions::Codec::Auto;
      else if (l == "none" || l == "uncompressed") r.compression = ReadCsvOptions::Codec::None;
      else if (l == "gzip") r.compression = ReadCsvOptions::Codec::Gzip;
      else if (l == "zstd") r.compression = ReadCsvOptions::Codec::Zstd;
      else throw bad(k, "must be auto, none, gzip or zstd, got '" + v + "'");
    } else if (k == "names" || k == "column_names") {
      std::vector<std::string> e;
      bool is_struct = false;
      if (!OptionEntries(raw, e, &is_struct) || is_struct) throw bad(k, "must be a list of names (['a', 'b'])");
      for (size_t i = 0; i < e.size(); i++)
        for (size_t j = 0; j < i; j++)
          if (IdentEquals(e[i], e[j])) throw bad(k, "must have unique values: \"" + e[i] + "\" is repeated");
      r.names = std::move(e);
    } else if (k == "types" || k == "dtypes" || k == "column_types") {
      std::vector<std::string> e;
      bool is_struct = false;
      if (!OptionEntries(raw, e, &is_struct))
        throw bad(k, "must be a list of types (['INTEGER', 'DATE']) or a struct ({'col': 'INTEGER'})");
      r.types_by_position.clear();
      r.types_by_name.clear();
      if (is_struct)
        for (size_t i = 0; i + 1 < e.size(); i += 2) r.types_by_name.emplace_back(e[i], TypeFromText(e[i + 1], pos));
      else
        for (auto& t : e) r.types_by_position.push_back(TypeFromText(t, pos));
    } else if (k == "columns") {
      std::vector<std::string> e;
      bool is_struct = false;
      if (!OptionEntries(raw, e, &is_struct) || !is_struct || e.empty())
        throw bad(k, "must be a struct of column names and types ({'a': 'INTEGER', 'b': 'VARCHAR'})");
      r.columns.clear();
      for (size_t i = 0; i + 1 < e.size(); i += 2) {
        for (auto& c : r.columns)
          if (IdentEquals(c.first, e[i])) throw bad(k, "names the column \"" + e[i] + "\" twice");
        r.columns.emplace_back(e[i], TypeFromText(e[i + 1], pos));
      }
    } else {
      throw UserError(ErrorKind::Binder,
                      "unknown read_csv option \"" + key + "\" (known: " + kKnown + ")", pos);
    }
  }
  // RFC 4180 escapes a quote by doubling it; another escape character is not supported.
  if (escape_given && !(escape.empty() || (escape.size() == 1 && escape[0] == o.quote)))
    throw bad("escape", "other than the quote character is not supported (quotes are escaped by doubling them)");
  if (o.delimiter == '\n' || o.delimiter == '\r') throw bad("delim", "cannot be a line break");
  if (o.quote && o.quote == o.delimiter) throw bad("quote", "must differ from the delimiter");
  return r;
}

CopyToOptions ParseCopyToOptions(const CopyOptionList& opts, const std::string& path) {
  CopyToOptions r;
  std::string lpath = AsciiLower(path);
  r.parquet = lpath.size() >= 8 && lpath.compare(lpath.size() - 8, 8, ".parquet") == 0;
  for (auto& [key, raw] : opts) {
    if (AsciiLower(key) != "format") continue;
    std::string l = AsciiLower(Unquote(raw));
    if (l == "csv") r.parquet = false;
    else if (l == "parquet") r.parquet = true;
    else throw UserError(ErrorKind::Unsupported, "COPY ... TO with FORMAT " + Unquote(raw) + " is not supported (csv or parquet)");
  }
  CsvWriteOptions& o = r.csv;
  ParquetWriteOptions& q = r.parquet_opt;
  const char* format = r.parquet ? "parquet" : "csv";
  auto other_format = [&](const std::string& key) {
    return UserError(ErrorKind::Input, "COPY option " + key + " does not apply to FORMAT " + format);
  };
  for (auto& [key, raw] : opts) {
    std::string k = AsciiLower(key);
    std::string v = Unquote(raw);
    bool csv_option = k == "delimiter" || k == "delim" || k == "sep" || k == "header" || k == "null" ||
                      k == "nullstr" || k == "quote";
    bool parquet_option = k == "compression" || k == "codec" || k == "row_group_size";
    if (csv_option && r.parquet) throw other_format(key);
    if (parquet_option && !r.parquet) throw other_format(key);
    if (k == "delimiter" || k == "delim" || k == "sep") {
      o.delimiter = SingleChar(v, "DELIMITER", false);
    } else if (k == "header") {
      o.header = ParseBoolOption(v, "HEADER");
    } else if (k == "null" || k == "nullstr") {
      o.null_str = v;
    } else if (k == "quote") {
      o.quote = SingleChar(v, "QUOTE", false);
    } else if (k == "compression" || k == "codec") {
      std::string l = AsciiLower(v);
      if (l == "snappy") q.codec = ParquetWriteOptions::Codec::Snappy;
      else if (l == "uncompressed" || l == "none") q.codec = ParquetWriteOptions::Codec::Uncompressed;
      else if (l == "gzip") q.codec = ParquetWriteOptions::Codec::Gzip;
      else if (l == "zstd") q.codec = ParquetWriteOptions::Codec::Zstd;
      else throw UserError(ErrorKind::Input, "COPY option COMPRESSION must be snappy, uncompressed, gzip or zstd, got '" + v + "'");
    } else if (k == "row_group_size") {
      uint64_t n = 0;
      bool ok = !v.empty() && v.size() <= 12 && v.find_first_not_of("0123456789") == std::string::npos;
      if (ok)
        for (char c : v) n = n * 10 + (uint64_t)(c - '0');
      if (!ok || n == 0) throw UserError(ErrorKind::Input, "COPY option ROW_GROUP_SIZE must be a positive integer, got '" + v + "'");
      q.row_group_size = n;
    } else if (k == "format") {
      // handled above
    } else {
      throw UserError(ErrorKind::Input, "unknown COPY option \"" + key + "\"");
    }
  }
  if (!r.parquet) CheckDelimiterAndQuote(o.delimiter, o.quote);
  return r;
}

}  // namespace tessera
