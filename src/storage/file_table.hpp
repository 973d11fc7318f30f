// Files read as tables: FROM 'data.parquet', read_parquet('dir/*.parquet'),
// read_csv('f.csv.gz', header = true), FROM 'f.csv'.
//
// A file table is a temporary TableEntry (schema + TableData) made at bind time and
// scanned like any table, so the CPU scans, the optimizer's statistics and the GPU column
// cache treat it as a native one. Which reader: the function's name (read_parquet,
// parquet_scan; read_csv, read_csv_auto), else the first file's name (.parquet; .csv,
// .tsv, .tbl, .txt, also with .gz or .zst), else its first bytes ("PAR1" is Parquet).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "storage/catalog.hpp"

namespace tessera {

using FileOptionList = std::vector<std::pair<std::string, std::string>>;

struct FileTableRequest {
  std::string function;             // "" for FROM 'path'
  std::vector<std::string> patterns;  // file names or glob patterns, as written
  FileOptionList options;           // named arguments (name lower-case, value as written)
  SourcePos pos;
  unsigned threads = 0;             // 0: all hardware threads
};

// The files `patterns` name, globs expanded (sorted per pattern, in pattern order). Throws
// UserError(IO) at `pos` when a pattern matches nothing or a file cannot be opened.
std::vector<std::string> ExpandFilePatterns(const std::vector<std::string>& patterns, SourcePos pos);

// Throws UserError(Catalog) at `pos` unless `function` names a file reader (or is empty).
void CheckFileTableFunction(const std::string& function, SourcePos pos);

// Opens the files as one table (their schemas must agree). Throws UserError with `pos`.
std::shared_ptr<const TableEntry> OpenFileTable(const FileTableRequest& req);

// Whether `path` is a Parquet file: by its name (.parquet, .parq), else its first bytes.
bool IsParquetFile(const std::string& path);

// The readers (storage/parquet/parquet_table.cpp, storage/csv_table.cpp).
std::shared_ptr<const TableEntry> OpenParquetTable(const std::vector<std::string>& files,
                                                   const FileOptionList& options, SourcePos pos,
                                                   unsigned threads);
std::shared_ptr<const TableEntry> OpenCsvTable(const std::vector<std::string>& files,
                                               const FileOptionList& options, SourcePos pos,
                                               unsigned threads);

}  // namespace tessera
