// COPY ... FROM: parallel CSV / TPC .tbl loader.
//
// The input (file_input.hpp: memory-mapped, or decompressed into memory when gzip or zstd)
// is split into byte ranges at record starts and the ranges are parsed in parallel into
// row groups; the table is appended to exactly once at the end, so any error leaves it
// unchanged. Records end at LF or CRLF; fields may be quoted (RFC 4180: "a ""b"" c", line
// breaks inside quotes are part of the field). A delimiter at the end of each line (TPC
// .tbl style) is accepted. A UTF-8 byte order mark is skipped. Without DELIMITER or HEADER
// the sniffer (csv_sniffer.hpp) decides them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "storage/catalog.hpp"
#include "storage/csv_options.hpp"

namespace tessera {

// Loads `path` into `table` with `threads` workers (0: all hardware threads); returns the
// number of rows loaded. `progress` (optional) is called now and then, from one thread at a
// time, with the bytes parsed so far. Errors are UserError(Input) "file:line: message",
// line counting physical lines (the line where the bad record starts).
uint64_t CopyFromFile(Catalog& catalog, const std::string& table, const std::string& path,
                      const CsvOptions& opt, unsigned threads,
                      const std::function<void(uint64_t bytes_done, uint64_t bytes_total)>&
                          progress = {});

class FileInput;

// The CSV text of a file: after a UTF-8 byte order mark and `skip` lines, without its
// trailing line breaks.
struct CsvText {
  const char* begin;
  const char* end;
  uint64_t skipped_lines;
};
CsvText CsvTextOf(const FileInput& in, uint64_t skip);

// Parses the CSV file `in` (named `path` in errors) into row groups of `columns`' types,
// in parallel, in file order; what `opt` leaves open (delimiter, header) is sniffed for
// these columns as COPY does. Errors as CopyFromFile's.
std::vector<std::shared_ptr<const RowGroup>> ReadCsvRowGroups(
    const std::string& path, const FileInput& in, const std::vector<ColumnDef>& columns,
    const CsvOptions& opt, unsigned threads,
    const std::function<void(uint64_t bytes_done, uint64_t bytes_total)>& progress = {});

}  // namespace tessera
