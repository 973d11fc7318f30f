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
  const bool precut = t.gap_before != SIZE_MAX;
  const size_t nrows = t.rows.size();
  // Rows shown: all, or the first and last halves around a gap.
  bool cut = precut || (style.max_rows > 0 && nrows > style.max_rows);
  size_t head = precut ? t.gap_before : cut ? (style.max_rows + 1) / 2 : nrows;
  size_t tail = precut ? nrows - t.gap_before : cut ? style.max_rows / 2 : 0;

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

  const uint64_t total = precut ? t.total_rows : nrows;
  if (ncols == 0) {
    if (style.footer) out << total << (total == 1 ? " row\n" : " rows\n");
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
  if (cut && head == body.size() && ncols) line(std::vector<std::string>(ncols, "·"), false);  // rows follow
  rule("└", "┴", "┘");
  if (style.footer) {
    if (precut && t.total_unknown) out << "? rows (>" << total << " rows, " << shown.size() << " shown)";
    else {
      out << total << (total == 1 ? " row" : " rows");
      if (cut) out << " (" << shown.size() << " shown)";
    }
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

ResultPrinter::ResultPrinter(std::ostream& out, OutputMode mode, const TableStyle& style)
    : out_(out), mode_(mode), style_(style) {}

std::vector<std::string> ResultPrinter::RowText(const DataChunk& chunk, uint32_t r) const {
  std::vector<std::string> row(chunk.ColumnCount());
  for (size_t c = 0; c < chunk.ColumnCount(); c++) {
    const Vector& v = chunk.cols[c];
    if (!v.IsValid(r)) row[c] = style_.null_text ? *style_.null_text : "NULL";
    else row[c] = v.GetValue(r).ToString();
  }
  return row;
}

void ResultPrinter::Begin(const std::vector<std::string>& names, const std::vector<Type>& types) {
  names_ = names;
  types_ = types;
  if (mode_ == OutputMode::Csv && style_.headers) {
    for (size_t c = 0; c < names_.size(); c++) out_ << (c ? "," : "") << CsvField(names_[c]);
    out_ << '\n';
  }
  if (mode_ == OutputMode::Json) out_ << "[";
}

bool ResultPrinter::Chunk(DataChunk& chunk) {
  switch (mode_) {
    case OutputMode::Table: {
      const size_t max = style_.max_rows;
      const size_t half = (max + 1) / 2, tail = max / 2;
      for (uint32_t r = 0; r < chunk.size; r++, rows_++) {
        // Counting stops past count_limit rows (or max_rows when larger: those all show).
        if (max && style_.count_limit && rows_ >= std::max<uint64_t>(style_.count_limit, max)) {
          capped_ = true;
          return false;
        }
        if (!max || head_.size() < max) head_.push_back(RowText(chunk, r));
        if (!max || rows_ < half || tail == 0) continue;
        // The last max/2 rows after the first half: the table's bottom part when cut.
        if (tail_.size() < tail) tail_.push_back(RowText(chunk, r));
        else {
          tail_[tail_next_] = RowText(chunk, r);
          tail_next_ = (tail_next_ + 1) % tail;
        }
      }
      return true;
    }
    case OutputMode::Csv:
      for (uint32_t r = 0; r < chunk.size; r++, rows_++) {
        for (size_t c = 0; c < chunk.ColumnCount(); c++) {
          out_ << (c ? "," : "");
          const Vector& v = chunk.cols[c];
          if (v.IsValid(r)) out_ << CsvField(v.GetValue(r).ToString());
          else if (style_.null_text && !style_.null_text->empty()) out_ << CsvField(*style_.null_text);
        }
        out_ << '\n';
      }
      break;
    case OutputMode::Json:
      for (uint32_t r = 0; r < chunk.size; r++, rows_++) {
        out_ << (rows_ ? ",\n" : "\n") << "{";
        for (size_t c = 0; c < chunk.ColumnCount(); c++) {
          out_ << (c ? "," : "") << JsonString(c < names_.size() ? names_[c] : "") << ":";
          const Vector& v = chunk.cols[c];
          const Type type = c < types_.size() ? types_[c] : Type::Varchar();
          if (!v.IsValid(r)) {
            out_ << "null";
            continue;
          }
          std::string text = v.GetValue(r).ToString();
          if (type.id == TypeId::Boolean) {
            out_ << text;
          } else if (type.IsNumeric()) {
            // JSON has no NaN/Infinity: those print as null.
            bool finite = text.find_first_of("ni") == std::string::npos;
            out_ << (finite ? text : "null");
          } else {
            out_ << JsonString(text);
          }
        }
        out_ << "}";
      }
      break;
  }
  out_.flush();  // the rows show as they come
  return true;
}

void ResultPrinter::End() {
  if (mode_ == OutputMode::Json) out_ << (rows_ ? "\n]\n" : "]\n");
  if (mode_ != OutputMode::Table) return;
  TextTable t;
  t.headers = names_;
  for (auto& type : types_) {
    t.subheaders.push_back(AsciiLower(type.ToString()));
    t.right_align.push_back(type.IsNumeric());
  }
  t.rows = std::move(head_);
  if (style_.max_rows && (rows_ > style_.max_rows || capped_)) {
    // Cut: the first max_rows when counting stopped early, else the first and last halves.
    t.total_rows = rows_;
    t.total_unknown = capped_;
    if (capped_) {
      t.gap_before = t.rows.size();
    } else {
      t.rows.resize((style_.max_rows + 1) / 2);
      t.gap_before = t.rows.size();
      for (size_t i = 0; i < tail_.size(); i++) t.rows.push_back(std::move(tail_[(tail_next_ + i) % tail_.size()]));
    }
  }
  head_.clear();
  tail_.clear();
  PrintTextTable(out_, t, style_);
}

void PrintResult(std::ostream& out, const QueryResult& result, OutputMode mode,
                 const TableStyle& style) {
  if (!result.has_rows) {
    if (mode == OutputMode::Table && !result.message.empty()) out << result.message << '\n';
    return;
  }
  TableStyle whole = style;
  whole.count_limit = 0;  // the rows are all here: count them all
  ResultPrinter printer(out, mode, whole);
  printer.Begin(result.names, result.types);
  for (const DataChunk& c : result.chunks) printer.Chunk(const_cast<DataChunk&>(c));
  printer.End();
}

}  // namespace tessera::cli
