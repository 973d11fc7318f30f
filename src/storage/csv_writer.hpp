// COPY ... TO: a query result written as CSV, the way DuckDB writes it: a header line with
// the column names (unless HEADER false), LF line ends, a field quoted (quotes doubled)
// when it holds the delimiter, the quote, CR or LF, or equals the NULL string, and the
// empty string as ""; NULL as the NULL string (default: nothing). Numbers, decimals,
// dates and booleans print as SELECT shows them (DOUBLE 2 as 2.0, 1e+20, nan, inf).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "common/vector.hpp"
#include "storage/csv_options.hpp"

namespace tessera {

// Writes the rows to `path`: to a new file beside it first, renamed over `path` once
// complete, so a failure (UserError(IO) naming the file) leaves no partial file and an
// existing `path` untouched. Returns the number of rows written.
uint64_t WriteCsvFile(const std::string& path, const std::vector<std::string>& names,
                      const std::vector<Type>& types, const std::vector<DataChunk>& chunks,
                      const CsvWriteOptions& opt);

}  // namespace tessera
