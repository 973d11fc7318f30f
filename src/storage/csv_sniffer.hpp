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
#pragma once
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

}  // namespace tessera::csv
