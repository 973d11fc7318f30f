// Options of COPY ... FROM and COPY ... TO (CSV), parsed from the statement's option list.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/types.hpp"

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
  uint64_t skip = 0;  // lines skipped before anything else (read_csv's skip)
};

// read_csv(...): the CSV options plus what only the table function has.
struct ReadCsvOptions {
  CsvOptions csv;
  uint64_t sample_size = 20480;  // records the type sniffer reads (DuckDB's default)
  bool all_varchar = false;
  bool filename = false;         // a last column "filename" with each row's file name
  enum class Codec { Auto, None, Gzip, Zstd } compression = Codec::Auto;
  // names = ['a', ...]: the first columns' names (the rest keep the header's or columnN).
  std::vector<std::string> names;
  // types / dtypes = ['INTEGER', ...] (by position) or {'col': 'INTEGER', ...} (by name):
  // these columns' types instead of the sniffed ones.
  std::vector<Type> types_by_position;
  std::vector<std::pair<std::string, Type>> types_by_name;
  // columns = {'name': 'TYPE', ...}: every column's name and type (the file must have that
  // many columns); the dialect and the header are still sniffed.
  std::vector<std::pair<std::string, Type>> columns;
};

// Writing (COPY ... TO).
struct CsvWriteOptions {
  char delimiter = ',';
  bool header = true;  // DuckDB writes the column names by default
  char quote = '"';
  std::string null_str;  // written for NULL (default: nothing)
};

// Writing Parquet (COPY ... TO 'f.parquet').
struct ParquetWriteOptions {
  enum class Codec { Uncompressed, Snappy, Gzip, Zstd } codec = Codec::Snappy;  // DuckDB's default
  uint64_t row_group_size = 122880;  // rows per row group (DuckDB's default)
};

// COPY ... TO: the format and its options.
struct CopyToOptions {
  bool parquet = false;
  CsvWriteOptions csv;
  ParquetWriteOptions parquet_opt;
};

using CopyOptionList = std::vector<std::pair<std::string, std::string>>;

// COPY ... FROM options (names case-insensitive): DELIMITER/DELIM/SEP, HEADER, NULL, QUOTE,
// FORMAT (csv). Without DELIMITER, paths ending in .tbl or .tbl.<n> use '|' and other
// files are sniffed. Throws UserError(Input) for an unknown option or a bad value.
CsvOptions ParseCopyOptions(const CopyOptionList& opts, const std::string& path);

// read_csv's named arguments (names lower-case): header, delim/sep/delimiter, quote,
// escape (only the quote itself), nullstr/null, skip, sample_size, all_varchar,
// auto_detect (true only), compression (auto, none, gzip, zstd), filename, names /
// column_names (a list), types / dtypes / column_types (a list or a struct), columns (a
// struct); lists and structs in the parser's canonical text (parse_select.cpp:
// ParseOptionCollection). Throws
// UserError(Binder) at `pos` for an unknown name, listing the known ones, or a bad value.
ReadCsvOptions ParseReadCsvOptions(const CopyOptionList& opts, SourcePos pos);

// COPY ... TO options: FORMAT (csv or parquet; without it, a path ending in .parquet means
// parquet, as in DuckDB). CSV: HEADER, DELIMITER/DELIM/SEP, QUOTE, NULL. Parquet:
// COMPRESSION/CODEC (snappy, uncompressed, gzip, zstd), ROW_GROUP_SIZE. Throws
// UserError(Input) for an unknown option, one of the other format, or a bad value.
CopyToOptions ParseCopyToOptions(const CopyOptionList& opts, const std::string& path);

}  // namespace tessera
