// Printing query results: an aligned box table, CSV (RFC 4180) or JSON.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "main/database.hpp"

namespace tessera::cli {

enum class OutputMode { Table, Csv, Json };

// "table" | "csv" | "json"; false for anything else.
bool ParseOutputMode(std::string_view name, OutputMode* mode);
const char* OutputModeName(OutputMode mode);

// A grid of text cells with a header row, printed as a box table. Cells flagged numeric
// are right-aligned, the rest left-aligned.
struct TextTable {
  std::vector<std::string> headers;
  std::vector<std::string> subheaders;  // optional second header line (column types)
  std::vector<bool> right_align;        // per column
  std::vector<std::vector<std::string>> rows;
  std::vector<size_t> separators_before;  // row indexes preceded by a horizontal rule
  // Rows the caller already cut (a streamed result, ResultPrinter): `rows` are all shown,
  // with the gap marker before row `gap_before`; the footer says `total_rows`, or with
  // `total_unknown` "? rows (>total_rows rows, N shown)".
  size_t gap_before = SIZE_MAX;
  uint64_t total_rows = 0;
  bool total_unknown = false;
};

struct TableStyle {
  // More rows than this: show the first and last max_rows/2 with a gap marker between.
  // 0 shows every row.
  size_t max_rows = 40;
  // A streamed result in table mode is counted up to this many rows (or max_rows, when
  // larger) only: past it the query stops and the footer says "? rows (>N rows, M
  // shown)". 0: count every row.
  uint64_t count_limit = 10000;
  // Cells wider than this (in characters) are cut and end in "…". 0: no limit.
  size_t max_cell_width = 200;
  bool footer = true;  // "N rows" below the table
  // The column names (and types) above the rows: table and csv modes (.headers on|off).
  bool headers = true;
  // What a NULL prints as (.nullvalue TEXT): table mode "NULL" and csv mode an empty
  // field unless set; JSON always writes null.
  std::optional<std::string> null_text;
};

void PrintTextTable(std::ostream& out, const TextTable& table, const TableStyle& style = {});

// Prints a statement's result in the given mode. Results without rows print their status
// message in table mode and nothing in csv/json mode.
void PrintResult(std::ostream& out, const QueryResult& result, OutputMode mode,
                 const TableStyle& style = {});

// Prints a result as it streams in (Connection::Stream): csv and json rows chunk by chunk
// as they arrive; table mode, whose column widths depend on the rows shown, keeps only the
// rows it will show (the first and last max_rows/2) and prints at End. Table mode stops
// the query once it has counted more than style.count_limit rows (then the rows shown are
// the first max_rows, and the footer says "? rows (>N rows, M shown)"); .maxrows 0 keeps
// every row.
class ResultPrinter : public ResultConsumer {
 public:
  ResultPrinter(std::ostream& out, OutputMode mode, const TableStyle& style);
  void Begin(const std::vector<std::string>& names, const std::vector<Type>& types) override;
  bool Chunk(DataChunk& chunk) override;
  // After the last chunk: the table, or json's closing bracket.
  void End();
  uint64_t rows() const { return rows_; }

 private:
  std::vector<std::string> RowText(const DataChunk& chunk, uint32_t r) const;
  std::ostream& out_;
  OutputMode mode_;
  TableStyle style_;
  std::vector<std::string> names_;
  std::vector<Type> types_;
  uint64_t rows_ = 0;
  bool capped_ = false;  // table mode stopped counting at style_.count_limit
  // Table mode: the first rows and a ring of the last ones (tail_next_: the oldest).
  std::vector<std::vector<std::string>> head_, tail_;
  size_t tail_next_ = 0;
};

// A result cell as text ("NULL" for nulls, flagged so that CSV/JSON can tell them apart).
struct Cell {
  std::string text;
  bool is_null = false;
  bool operator==(const Cell&) const = default;
};
std::vector<std::vector<Cell>> ResultCells(const QueryResult& result);

// RFC 4180 field quoting (quotes a field holding ',', '"', CR or LF, or an empty string so
// that it differs from NULL, which is written as an empty field).
std::string CsvField(std::string_view text);
// JSON string literal with escapes.
std::string JsonString(std::string_view text);

}  // namespace tessera::cli
