#include "storage/csv_reader.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>

#include "common/parallel.hpp"
#include "storage/csv_convert.hpp"
#include "storage/csv_scan.hpp"
#include "storage/csv_sniffer.hpp"
#include "storage/file_input.hpp"

namespace tessera {

namespace {

using csv::Conv;

struct ColumnInfo {
  Type type;
  bool not_null = false;
  std::string name;
};

struct LineError {
  std::string msg;  // without "file:line: "
};

struct RangeResult {
  std::vector<std::shared_ptr<const RowGroup>> groups;
  uint64_t lines = 0;
  uint64_t rows = 0;
  bool failed = false;
  uint64_t err_line = 0;  // 1-based, within the range
  std::string err;
  std::exception_ptr exc;  // a failure other than a malformed line
};

struct Shared {
  std::vector<ColumnInfo> cols;
  std::vector<Type> types;
  CsvOptions opt;
  bool trailing = false;  // lines end with a delimiter (decided from the first line)
  std::atomic<size_t> first_failed{SIZE_MAX};
  // Progress.
  const std::function<void(uint64_t, uint64_t)>* progress = nullptr;
  std::atomic<uint64_t> done{0};
  uint64_t total = 0;
  std::mutex progress_mu;
  uint64_t last_reported = 0;

  void AddProgress(uint64_t bytes) {
    uint64_t d = done.fetch_add(bytes) + bytes;
    if (!progress || !*progress) return;
    std::unique_lock<std::mutex> g(progress_mu, std::try_to_lock);
    if (!g.owns_lock()) return;
    if (d - last_reported < std::max<uint64_t>(total / 100, 1 << 20) && d < total) return;
    last_reported = d;
    (*progress)(std::min(d, total), total);
  }
};

std::string ShowValue(std::string_view v) {
  std::string s = v.size() > 100 ? std::string(v.substr(0, 100)) + "..." : std::string(v);
  return "\"" + s + "\"";
}

class RangeParser {
 public:
  RangeParser(Shared& sh, const char* file_end)
      : sh_(sh), ncols_(sh.cols.size()), end_(file_end), writer_(sh.types) {
    chunk_.Init(sh.types);
  }

  // Parses the records starting in [begin, end); a record starting before `end` is read
  // to its end (range ends are record starts, so it ends there).
  void Run(const char* begin, const char* end, size_t idx, RangeResult& out) {
    const char* p = begin;
    const char* last_progress = begin;
    uint32_t row = 0;
    uint64_t line = 1;  // the current record's first line, 1-based within the range
    try {
      while (p < end) {
        record_lines_ = 1;
        p = ParseRecord(p, row);
        line += record_lines_;
        if (++row == kVectorSize) {
          Flush(row);
          row = 0;
          if (sh_.first_failed.load(std::memory_order_relaxed) < idx) return;  // moot
          if ((size_t)(p - last_progress) >= (1u << 22)) {
            sh_.AddProgress((uint64_t)(p - last_progress));
            last_progress = p;
          }
        }
      }
      Flush(row);
      out.groups = writer_.Finish();
      out.lines = line - 1;
      sh_.AddProgress((uint64_t)(end - last_progress));
    } catch (LineError& e) {
      out.failed = true;
      out.err_line = line;
      out.err = std::move(e.msg);
      Fail(idx);
    } catch (...) {
      out.failed = true;
      out.err_line = line;
      out.exc = std::current_exception();
      Fail(idx);
    }
  }

 private:
  void Fail(size_t idx) {
    size_t cur = sh_.first_failed.load();
    while (idx < cur && !sh_.first_failed.compare_exchange_weak(cur, idx)) {
    }
  }

  void Flush(uint32_t rows) {
    if (rows == 0) return;
    chunk_.size = rows;
    writer_.Append(chunk_);
    for (auto& v : chunk_.cols) v.ClearNulls();
    if (heap_used_) {
      for (auto& v : chunk_.cols) v.ResetOwnership();
      heap_used_ = false;
    }
    chunk_.size = 0;
  }

  // The column-count error for the record at p, or "" when its field count is acceptable.
  std::string CountMismatch(const char* p) const {
    const auto& o = sh_.opt;
    bool last_empty = false;
    size_t f = csv::CountFields(p, end_, o.delimiter, o.quote, &last_empty);
    if (f == 0) return {};  // malformed quoting: the field's own error says more
    if (f == ncols_ + 1 && last_empty) return {};
    if (f == ncols_ && !(sh_.trailing && last_empty && ncols_ > 1)) return {};
    const std::string expected = "expected " + std::to_string(ncols_) + " columns, found ";
    if (p == end_ || *p == '\n' || (*p == '\r' && p + 1 < end_ && p[1] == '\n'))
      return expected + "an empty line";
    if (sh_.trailing && last_empty) f--;
    return expected + std::to_string(f);
  }

  [[noreturn]] void CountError(const char* p) const {
    std::string m = CountMismatch(p);
    if (m.empty()) m = "expected " + std::to_string(ncols_) + " columns";
    throw LineError{std::move(m)};
  }

  [[noreturn]] void ValueError(size_t c, const std::string& what, const char* p) const {
    // A wrong field count explains a bad value better than the value itself.
    std::string m = CountMismatch(p);
    if (m.empty()) m = "column " + std::to_string(c + 1) + " (" + sh_.cols[c].name + "): " + what;
    throw LineError{std::move(m)};
  }

  // Parses the record at p into `row`; returns the next record's start.
  const char* ParseRecord(const char* p, uint32_t row) {
    const char delim = sh_.opt.delimiter;
    const char quote = sh_.opt.quote;
    const char* q = p;
    const char* le = csv::LineEnd(p, end_);
    for (size_t c = 0; c < ncols_; c++) {
      csv::Field f;
      csv::FieldEnd fe = csv::ScanField(q, le, end_, delim, quote, f);
      record_lines_ += f.newlines;
      if (fe == csv::FieldEnd::Unterminated) {
        throw LineError{"column " + std::to_string(c + 1) + " (" + sh_.cols[c].name +
                        "): unterminated quoted field (no closing quote before the end of the file)"};
      }
      if (fe == csv::FieldEnd::JunkAfterQuote)
        ValueError(c, "unexpected character after the closing quote of a quoted field", p);
      if (fe != csv::FieldEnd::Delimiter) {
        if (c + 1 < ncols_) CountError(p);
        if (sh_.trailing && !f.quoted && f.begin == f.end && ncols_ > 1) CountError(p);
      } else if (c + 1 == ncols_) {
        // Only a trailing delimiter may follow the last column.
        q++;
        if (!(q == le || (q + 1 == le && *q == '\r'))) CountError(p);
        q = le;
      } else {
        q++;
      }
      const char* fs = f.begin;
      const char* fe_ = f.end;
      if (f.escaped) {
        csv::Unescape(f, quote, scratch_);
        fs = scratch_.data();
        fe_ = fs + scratch_.size();
      }
      Store(c, fs, fe_, f.quoted, f.escaped, row, p);
    }
    return le < end_ ? le + 1 : end_;
  }

  void Store(size_t c, const char* s, const char* e, bool quoted, bool escaped, uint32_t row,
             const char* p) {
    const ColumnInfo& col = sh_.cols[c];
    Vector& v = chunk_.cols[c];
    // As DuckDB (allow_quoted_nulls): a field equal to the NULL string is NULL, quoted or
    // not; an unquoted empty field is NULL except in VARCHAR columns with a NULL string.
    const std::string& ns = sh_.opt.null_str;
    bool is_null = s == e ? (ns.empty() || (!quoted && col.type.id != TypeId::Varchar))
                          : (!ns.empty() && (size_t)(e - s) == ns.size() &&
                             std::memcmp(s, ns.data(), ns.size()) == 0);
    if (is_null) {
      if (col.not_null) ValueError(c, "NULL value in NOT NULL column", p);
      v.SetNull(row);
      return;
    }
    Conv r = Conv::Ok;
    switch (col.type.id) {
      case TypeId::Varchar:
        if (escaped) {
          v.data<StrRef>()[row] = v.heap().Add(std::string_view(s, (size_t)(e - s)));
          heap_used_ = true;
        } else {
          v.data<StrRef>()[row] = StrRef(s, (size_t)(e - s));  // bytes stay in the input
        }
        return;
      case TypeId::Integer: {
        int64_t x = 0;
        r = csv::ParseInt(s, e, INT32_MIN, INT32_MAX, &x);
        v.data<int32_t>()[row] = (int32_t)x;
        break;
      }
      case TypeId::BigInt:
        r = csv::ParseInt(s, e, INT64_MIN, INT64_MAX, &v.data<int64_t>()[row]);
        break;
      case TypeId::Decimal: {
        int128_t x = 0;
        r = csv::ParseDecimalField(s, e, col.type, &x);
        if (col.type.physical() == PhysType::I64) v.data<int64_t>()[row] = (int64_t)x;
        else v.data<int128_t>()[row] = x;
        break;
      }
      case TypeId::Double:
        r = csv::ParseDoubleField(s, e, &v.data<double>()[row]);
        break;
      case TypeId::Date:
        r = csv::ParseDateField(s, e, &v.data<int32_t>()[row]);
        break;
      case TypeId::Timestamp:
        r = csv::ParseTimestampField(s, e, &v.data<int64_t>()[row]);
        break;
      case TypeId::Time:
        r = csv::ParseTimeField(s, e, &v.data<int64_t>()[row]);
        break;
      case TypeId::Interval:
        r = csv::ParseIntervalField(s, e, &v.data<int128_t>()[row]);
        break;
      case TypeId::Blob: {
        auto b = ParseBlob(std::string_view(s, (size_t)(e - s)));
        if (!b) {
          r = Conv::Bad;
          break;
        }
        v.data<StrRef>()[row] = v.heap().Add(*b);
        heap_used_ = true;
        break;
      }
      case TypeId::Boolean: {
        bool b = false;
        r = csv::ParseBoolField(s, e, &b);
        v.data<uint8_t>()[row] = b;
        break;
      }
      case TypeId::Null:
        ValueError(c, "unsupported column type " + col.type.ToString(), p);
    }
    if (r != Conv::Ok) ConvError(c, s, e, r, p);
  }

  [[noreturn]] void ConvError(size_t c, const char* s, const char* e, Conv r, const char* p) const {
    std::string m = "could not convert " + ShowValue(std::string_view(s, (size_t)(e - s))) +
                    " to " + sh_.cols[c].type.ToString();
    if (r == Conv::Range) m += ": value out of range";
    ValueError(c, m, p);
  }

  Shared& sh_;
  size_t ncols_;
  const char* end_;  // end of the input: a quoted field may run past its range
  RowGroupWriter writer_;
  DataChunk chunk_;
  std::string scratch_;
  bool heap_used_ = false;
  uint64_t record_lines_ = 1;
};

}  // namespace

CsvText CsvTextOf(const FileInput& in, uint64_t skip) {
  CsvText t{in.data(), in.data() + in.size(), 0};
  // A UTF-8 byte order mark is skipped; trailing empty lines are ignored.
  if (t.end - t.begin >= 3 && std::memcmp(t.begin, "\xEF\xBB\xBF", 3) == 0) t.begin += 3;
  while (t.end > t.begin && (t.end[-1] == '\n' || t.end[-1] == '\r')) t.end--;
  for (; t.skipped_lines < skip && t.begin < t.end; t.skipped_lines++) {
    const char* nl = csv::LineEnd(t.begin, t.end);
    t.begin = nl < t.end ? nl + 1 : t.end;
  }
  return t;
}

std::vector<std::shared_ptr<const RowGroup>> ReadCsvRowGroups(
    const std::string& path, const FileInput& in, const std::vector<ColumnDef>& columns,
    const CsvOptions& opt, unsigned threads, const std::function<void(uint64_t, uint64_t)>& progress) {
  if (opt.quote && opt.quote == opt.delimiter)
    throw UserError(ErrorKind::Input, "COPY delimiter and quote must differ");
  Shared sh;
  sh.opt = opt;
  for (auto& c : columns) {
    sh.cols.push_back({c.type, c.not_null, c.name});
    sh.types.push_back(c.type);
  }
  const size_t ncols = sh.cols.size();
  TESSERA_ASSERT(ncols > 0, "CSV columns missing");

  CsvText text = CsvTextOf(in, opt.skip);
  const char* begin = text.begin;
  const char* end = text.end;
  sh.total = in.size();
  sh.progress = &progress;
  // What the statement left open, the sniffer decides.
  if (!sh.opt.delimiter_given) {
    sh.opt.delimiter = csv::SniffDelimiter(begin, end, ncols, sh.opt.quote);
    if (sh.opt.quote == sh.opt.delimiter) sh.opt.quote = '\0';
  }
  if (!sh.opt.header_given) sh.opt.header = csv::SniffHeader(begin, end, sh.types, sh.opt);
  const char delim = sh.opt.delimiter, quote = sh.opt.quote;
  uint64_t skipped_lines = text.skipped_lines;
  if (sh.opt.header && begin < end) {
    csv::Record header;
    csv::ReadRecord(begin, end, delim, quote, header);
    begin = header.next;
    skipped_lines += header.lines;
  }
  if (begin < end) {
    bool last_empty = false;
    size_t f = csv::CountFields(begin, end, delim, quote, &last_empty);
    sh.trailing = f == ncols + 1 && last_empty;
  }

  // Byte ranges starting at record starts. Without quotes in the text every line start is
  // one; otherwise the records are read from the start to find them.
  if (threads == 0) threads = HardwareThreads();
  const uint64_t bytes = (uint64_t)(end - begin);
  uint64_t nranges = threads <= 1 ? 1 : std::min<uint64_t>(2 * threads, (bytes >> 22) + 1);
  std::vector<const char*> bounds{begin};
  if (nranges > 1 && quote && std::memchr(begin, quote, bytes)) {
    std::vector<const char*> targets;
    for (uint64_t k = 1; k < nranges; k++) targets.push_back(begin + bytes * k / nranges);
    for (const char* b : csv::RecordStartsAfter(begin, end, delim, quote, targets)) bounds.push_back(b);
  } else {
    for (uint64_t k = 1; k < nranges; k++) {
      const char* pos = begin + bytes * k / nranges;
      if (pos < bounds.back()) pos = bounds.back();
      const char* nl = static_cast<const char*>(std::memchr(pos, '\n', (size_t)(end - pos)));
      bounds.push_back(nl ? nl + 1 : end);
    }
  }
  bounds.push_back(end);
  std::vector<RangeResult> results(nranges);
  ParallelFor(nranges, threads, [&](uint64_t i, unsigned) {
    if (sh.first_failed.load() < i) return;
    if (bounds[i] >= bounds[i + 1]) return;
    RangeParser parser(sh, end);
    parser.Run(bounds[i], bounds[i + 1], (size_t)i, results[i]);
  });

  // Report the first error in file order, with its absolute line number.
  uint64_t line_base = skipped_lines;
  for (auto& r : results) {
    if (r.failed) {
      if (r.exc) std::rethrow_exception(r.exc);
      throw UserError(ErrorKind::Input,
                      path + ":" + std::to_string(line_base + r.err_line) + ": " + r.err);
    }
    line_base += r.lines;
  }
  std::vector<std::shared_ptr<const RowGroup>> groups;
  for (auto& r : results)
    for (auto& g : r.groups) groups.push_back(std::move(g));
  if (progress) progress(sh.total, sh.total);
  return groups;
}

uint64_t CopyFromFile(Catalog& catalog, const std::string& table, const std::string& path,
                      const CsvOptions& opt, unsigned threads,
                      const std::function<void(uint64_t, uint64_t)>& progress) {
  auto entry = catalog.GetTable(table);
  if (!entry) throw UserError(ErrorKind::Catalog, "table \"" + table + "\" does not exist");
  auto in = std::make_unique<FileInput>(path);
  auto groups = ReadCsvRowGroups(path, *in, entry->schema.columns, opt, threads, progress);
  in.reset();  // unmap early: the row groups own copies of every value
  uint64_t rows = 0;
  for (auto& g : groups) rows += g->count;
  catalog.Append(table, std::move(groups));
  return rows;
}

}  // namespace tessera
