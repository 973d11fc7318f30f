// Printing query results: an aligned box table, CSV (RFC 4180) or JSON.
#pragma once
#include <cstddef>
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
};

struct TableStyle {
  // More rows than this: show the first and last max_rows/2 with a gap marker between.
  // 0 shows every row.
  size_t max_rows = 40;
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
