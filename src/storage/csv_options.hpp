// Options of COPY ... FROM and COPY ... TO (CSV), parsed from the statement's option list.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace tessera {

// Reading (COPY ... FROM).
struct CsvOptions {
  char delimiter = ',';
  bool delimiter_given = false;  // false: the sniffer picks one of , | ; \t (csv_sniffer)
  bool header = false;           // skip the first line
  bool header_given = false;     // false: the sniffer decides whether line 1 is a header
  char quote = '"';              // '\0': no quoting
  // A field equal to null_str is NULL, quoted or not (DuckDB's allow_quoted_nulls). An
  // unquoted empty field is NULL, except for VARCHAR columns when null_str is non-empty
  // (then it is the empty string).
  std::string null_str;
};

// Writing (COPY ... TO).
struct CsvWriteOptions {
  char delimiter = ',';
  bool header = true;  // DuckDB writes the column names by default
  char quote = '"';
  std::string null_str;  // written for NULL (default: nothing)
};

using CopyOptionList = std::vector<std::pair<std::string, std::string>>;

// COPY ... FROM options (names case-insensitive): DELIMITER/DELIM/SEP, HEADER, NULL, QUOTE,
// FORMAT (csv). Without DELIMITER, paths ending in .tbl or .tbl.<n> use '|' and other
// files are sniffed. Throws UserError(Input) for an unknown option or a bad value.
CsvOptions ParseCopyOptions(const CopyOptionList& opts, const std::string& path);

// COPY ... TO options: FORMAT (csv; parquet and others: "not supported yet"), HEADER,
// DELIMITER/DELIM/SEP, QUOTE, NULL.
CsvWriteOptions ParseCopyToOptions(const CopyOptionList& opts);

}  // namespace tessera
