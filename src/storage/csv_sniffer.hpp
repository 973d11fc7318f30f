// What COPY ... FROM decides about a CSV file when the statement does not say: the
// delimiter and whether the first line is a header. Both follow what DuckDB's sniffer
// decides for COPY into an existing table (checked against DuckDB 1.5):
//
//  * Delimiter: of ',', '|', ';' and '\t', the one that splits the first records
//    (up to kSniffRecords) into the table's column count (a trailing empty field, the .tbl
//    style, allowed) on every record; among several, the first that occurs in the text, in
//    that order. When none fits, ','.
//  * Header: when the first record has the table's column count, it is a header
//      - for tables whose columns are all VARCHAR: unless every field of it is empty;
//      - otherwise: when a field of a non-VARCHAR column is non-empty and does not convert
//        to the column's type (as "id" does not convert to INTEGER).
//    So a header whose names are numbers over integer columns is taken for data, and any
//    first line over all-VARCHAR columns is taken for a header: give HEADER to decide.
//
// read_csv / FROM 'f.csv' know nothing about the columns; SniffCsv decides them from a
// sample of the first records, as DuckDB 1.5's sniffer does (checked with DESCRIBE):
//
//  * Delimiter: of ',', '|', ';' and '\t', the one that splits the sampled records (up to
//    kSniffRecords) into the same number (> 1) of fields, the most fields winning; ties go
//    to the earlier candidate (a trailing empty field on every record, .tbl style, not
//    counted). When none does, the one that splits the first record most (the reader then
//    reports the record that does not fit), else ','.
//  * Columns: the fields of the first record; a trailing delimiter on every line (.tbl
//    style) makes a last VARCHAR column of NULLs, as in DuckDB; an empty file has one,
//    column0 VARCHAR.
//  * Types: each column gets the first of BOOLEAN, BIGINT, DOUBLE, DATE, VARCHAR that all
//    its non-NULL sampled values convert to (SniffType); a column of NULLs only is VARCHAR.
//    The sniffer is stricter than the reader: BOOLEAN takes true/false/t/f/yes/no (not 1/0
//    or y/n), numbers take no '+' sign, no leading zero ("007", "00.5") and no inf/nan, an
//    integer beyond BIGINT is a DOUBLE. DuckDB's TIME and TIMESTAMP columns stay VARCHAR
//    (tessera has neither type); DATE takes ISO dates (2020-01-02, 2020-1-2) only, where
//    DuckDB also detects other date formats (2020/01/02, 01/02/2020); the quote is '"'
//    unless given (DuckDB also tries '\'' and escape characters).
//  * Header: the first record is a header when a field of it does not convert to the type
//    sniffed from the records after it, or when all those types are VARCHAR (so "1,2"
//    above "x,y" is a header); a file of one record is a header when its own types are all
//    VARCHAR. Header names: an empty one becomes column<i>, a repeat (case-insensitive)
//    gets _1, _2, ...; without a header the names are column0, column1, ... (zero-padded
//    to the width of the last index: column00 ... column10).
#pragma once
#include <string>
#include <vector>

#include "common/types.hpp"
#include "storage/csv_options.hpp"

namespace tessera::csv {

constexpr int kSniffRecords = 20;

// The delimiter for [begin, end) (BOM already skipped) and a table of `ncols` columns.
char SniffDelimiter(const char* begin, const char* end, size_t ncols, char quote);

// Whether the first record of [begin, end) is a header for columns of `types`.
bool SniffHeader(const char* begin, const char* end, const std::vector<Type>& types,
                 const CsvOptions& opt);

// The type of a column whose sampled values are `values` (read_csv's rules above; a value
// that is empty or opt.null_str is NULL). SniffCsv's rule, for any reader that sniffs.
Type SniffType(const std::vector<std::string>& values, const CsvOptions& opt = {});

// What SniffCsv decides. `opt` on return holds the delimiter and header (given or sniffed).
struct SniffedCsv {
  CsvOptions opt;
  std::vector<std::string> names;
  std::vector<Type> types;
};

// Sniffs [begin, end) (BOM and skipped lines already removed), reading at most
// `sample_size` records after the header. What `opt` gives (delimiter, header) is kept.
SniffedCsv SniffCsv(const char* begin, const char* end, const CsvOptions& opt, uint64_t sample_size);

}  // namespace tessera::csv
