// COPY ... FROM: parallel CSV / TPC .tbl loader.
//
// The file is memory-mapped, split into byte ranges at line boundaries and the ranges are
// parsed in parallel into row groups; the table is appended to exactly once at the end, so
// any error leaves it unchanged. Records are single lines (LF or CRLF); fields may be
// quoted ("a ""b"" c"), but a field cannot contain a line break. A delimiter at the end of
// each line (TPC .tbl style) is accepted.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "storage/catalog.hpp"

namespace tessera {

struct CsvOptions {
  char delimiter = ',';
  bool header = false;  // skip the first line
  char quote = '"';     // '\0': no quoting
  // An unquoted field equal to null_str is NULL. An unquoted empty field is NULL, except
  // for VARCHAR columns when null_str is non-empty (then it is the empty string).
  std::string null_str;
};

// COPY options (names lower-case): DELIMITER/DELIM/SEP, HEADER, NULL, QUOTE, FORMAT (csv).
// The delimiter defaults to '|' for paths ending in .tbl or .tbl.<n>, ',' otherwise.
// Throws UserError(Input) for an unknown option or a bad value.
CsvOptions ParseCopyOptions(const std::vector<std::pair<std::string, std::string>>& opts,
                            const std::string& path);

// Loads `path` into `table` with `threads` workers (0: all hardware threads); returns the
// number of rows loaded. `progress` (optional) is called now and then, from one thread at a
// time, with the bytes parsed so far. Errors are UserError(Input) "file:line: message".
uint64_t CopyFromFile(Catalog& catalog, const std::string& table, const std::string& path,
                      const CsvOptions& opt, unsigned threads,
                      const std::function<void(uint64_t bytes_done, uint64_t bytes_total)>&
                          progress = {});

}  // namespace tessera
