#include "cli/result_format.hpp"

#include "common/ascii.hpp"
#include <algorithm>
#include <cctype>

namespace tessera::cli {

bool ParseOutputMode(std::string_view name, OutputMode* mode) {
  if (name == "table") *mode = OutputMode::Table;
  else if (name == "csv") *mode = OutputMode::Csv;
  else if (name == "json") *mode = OutputMode::Json;
  else return false;
  return true;
}

const char* OutputModeName(OutputMode mode) {
  switch (mode) {
    case OutputMode::Table: return "table";
    case OutputMode::Csv: return "csv";
    case OutputMode::Json: return "json";
  }
  return "?";
}

namespace {

// Display width of UTF-8 text: one column per code point (continuation bytes skipped).
size_t DisplayWidth(std::string_view s) {
  size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

// Cuts `s` to at most `width` code points, ending in "…" when cut.
std::string Clip(const std::string& s, size_t width) {
  if (width == 0 || DisplayWidth(s) <= width) return s;
  size_t keep = width - 1, seen = 0, i = 0;
  for (; i < s.size(); i++) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (seen == keep) break;
      seen++;
    }
  }
  return s.substr(0, i) + "…";
}

// Table cells are one line each: control characters are shown escaped.
std::string Printable(const std::string& s) {
  if (std::none_of(s.begin(), s.end(), [](char c) { return (unsigned char)c < 0x20; })) return s;
  std::string r;
  for (char c : s) {
    if (c == '\n') r += "\\n";
    else if (c == '\t') r += "\\t";
    else if (c == '\r') r += "\\r";
    else if ((unsigned char)c < 0x20) r += '?';
    else r += c;
  }
  return r;
}

std::string Repeat(std::string_view piece, size_t n) {
  std::string r;
  r.reserve(piece.size() * n);
  for (size_t i = 0; i < n; i++) r += piece;
  return r;
}

}  // namespace

void PrintTextTable(std::ostream& out, const TextTable& t, const TableStyle& style) {
  const size_t ncols = t.headers.size();
  const size_t nrows = t.rows.size();
  // Rows shown: all, or the first and last halves around a gap.
  bool cut = style.max_rows > 0 && nrows > style.max_rows;
  size_t head = cut ? (style.max_rows + 1) / 2 : nrows;
  size_t tail = cut ? style.max_rows / 2 : 0;

  auto cell = [&](const std::string& s) { return Clip(Printable(s), style.max_cell_width); };
  std::vector<std::string> headers, subheaders;
  for (auto& h : t.headers) headers.push_back(style.headers ? cell(h) : "");
  if (style.headers)
    for (auto& h : t.subheaders) subheaders.push_back(cell(h));
  std::vector<size_t> shown;
  for (size_t r = 0; r < head; r++) shown.push_back(r);
  for (size_t r = nrows - tail; r < nrows && cut; r++) shown.push_back(r);
  std::vector<std::vector<std::string>> body;
  body.reserve(shown.size());
  for (size_t r : shown) {
    std::vector<std::string> line;
    for (size_t c = 0; c < ncols; c++) line.push_back(c < t.rows[r].size() ? cell(t.rows[r][c]) : "");
    body.push_back(std::move(line));
  }

  std::vector<size_t> width(ncols, 1);
  for (size_t c = 0; c < ncols; c++) {
    width[c] = std::max(width[c], DisplayWidth(headers[c]));
    if (c < subheaders.size()) width[c] = std::max(width[c], DisplayWidth(subheaders[c]));
    for (auto& line : body) width[c] = std::max(width[c], DisplayWidth(line[c]));
  }

  auto rule = [&](const char* left, const char* mid, const char* right) {
    out << left;
    for (size_t c = 0; c < ncols; c++) {
      out << Repeat("─", width[c] + 2) << (c + 1 < ncols ? mid : right);
    }
    out << '\n';
  };
  auto line = [&](const std::vector<std::string>& cells, bool align_numbers) {
    out << "│";
    for (size_t c = 0; c < ncols; c++) {
      const std::string& s = c < cells.size() ? cells[c] : std::string();
      std::string pad(width[c] - DisplayWidth(s), ' ');
      bool right = align_numbers && c < t.right_align.size() && t.right_align[c];
      out << ' ' << (right ? pad + s : s + pad) << " │";
    }
    out << '\n';
  };

  if (ncols == 0) {
    if (style.footer) out << nrows << (nrows == 1 ? " row\n" : " rows\n");
    return;
  }
  rule("┌", "┬", "┐");
  if (style.headers) {
    line(headers, false);
    if (!subheaders.empty()) line(subheaders, false);
    rule("├", "┼", "┤");
  }
  for (size_t i = 0; i < body.size(); i++) {
    if (cut && i == head) {
      std::vector<std::string> gap(ncols, "·");
      line(gap, false);
    }
    if (std::find(t.separators_before.begin(), t.separators_before.end(), shown[i]) !=
            t.separators_before.end() && i > 0) {
      rule("├", "┼", "┤");
    }
    line(body[i], true);
  }
  rule("└", "┴", "┘");
  if (style.footer) {
    out << nrows << (nrows == 1 ? " row" : " rows");
    if (cut) out << " (" << shown.size() << " shown)";
    out << '\n';
  }
}

std::vector<std::vector<Cell>> ResultCells(const QueryResult& result) {
  std::vector<std::vector<Cell>> rows;
  rows.reserve(result.row_count);
  for (const DataChunk& chunk : result.chunks) {
    for (uint32_t r = 0; r < chunk.size; r++) {
      std::vector<Cell> row(chunk.ColumnCount());
      for (size_t c = 0; c < chunk.ColumnCount(); c++) {
        const Vector& v = chunk.cols[c];
        if (!v.IsValid(r)) {
          row[c] = {"NULL", true};
        } else {
          row[c].text = v.GetValue(r).ToString();
        }
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string CsvField(std::string_view text) {
  if (!text.empty() && text.find_first_of(",\"\r\n") == std::string_view::npos)
    return std::string(text);
  std::string r = "\"";
  for (char c : text) {
    if (c == '"') r += '"';
    r += c;
  }
  return r + "\"";
}

std::string JsonString(std::string_view text) {
  static const char* hex = "0123456789abcdef";
  std::string r = "\"";
  for (char c : text) {
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\r': r += "\\r"; break;
      case '\t': r += "\\t"; break;
      case '\b': r += "\\b"; break;
      case '\f': r += "\\f"; break;
      default:
        if ((unsigned char)c < 0x20) {
          r += "\\u00";
          r += hex[(c >> 4) & 0xF];
          r += hex[c & 0xF];
        } else {
          r += c;
        }
    }
  }
  return r + "\"";
}

namespace {

void PrintTable(std::ostream& out, const QueryResult& result, const TableStyle& style) {
  TextTable t;
  t.headers = result.names;
  for (auto& type : result.types) {
    t.subheaders.push_back(AsciiLower(type.ToString()));
    t.right_align.push_back(type.IsNumeric());
  }
  for (auto& row : ResultCells(result)) {
    std::vector<std::string> line;
    for (auto& c : row) line.push_back(c.is_null && style.null_text ? *style.null_text : std::move(c.text));
    t.rows.push_back(std::move(line));
  }
  PrintTextTable(out, t, style);
}

void PrintCsv(std::ostream& out, const QueryResult& result, const TableStyle& style) {
  if (style.headers) {
    for (size_t c = 0; c < result.names.size(); c++)
      out << (c ? "," : "") << CsvField(result.names[c]);
    out << '\n';
  }
  for (auto& row : ResultCells(result)) {
    for (size_t c = 0; c < row.size(); c++) {
      out << (c ? "," : "");
      if (!row[c].is_null) out << CsvField(row[c].text);
      else if (style.null_text && !style.null_text->empty()) out << CsvField(*style.null_text);
    }
    out << '\n';
  }
}

void PrintJson(std::ostream& out, const QueryResult& result) {
  auto rows = ResultCells(result);
  out << "[";
  for (size_t r = 0; r < rows.size(); r++) {
    out << (r ? ",\n" : "\n") << "{";
    for (size_t c = 0; c < rows[r].size(); c++) {
      out << (c ? "," : "") << JsonString(c < result.names.size() ? result.names[c] : "") << ":";
      const Cell& cell = rows[r][c];
      const Type type = c < result.types.size() ? result.types[c] : Type::Varchar();
      if (cell.is_null) {
        out << "null";
      } else if (type.id == TypeId::Boolean) {
        out << cell.text;
      } else if (type.IsNumeric()) {
        // JSON has no NaN/Infinity: those print as null.
        bool finite = cell.text.find_first_of("ni") == std::string::npos;
        out << (finite ? cell.text : "null");
      } else {
        out << JsonString(cell.text);
      }
    }
    out << "}";
  }
  out << (rows.empty() ? "]\n" : "\n]\n");
}

}  // namespace

void PrintResult(std::ostream& out, const QueryResult& result, OutputMode mode,
                 const TableStyle& style) {
  if (!result.has_rows) {
    if (mode == OutputMode::Table && !result.message.empty()) out << result.message << '\n';
    return;
  }
  switch (mode) {
    case OutputMode::Table: PrintTable(out, result, style); break;
    case OutputMode::Csv: PrintCsv(out, result, style); break;
    case OutputMode::Json: PrintJson(out, result); break;
  }
}

}  // namespace tessera::cli
