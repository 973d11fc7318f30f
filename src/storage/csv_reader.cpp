#include "storage/csv_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <mutex>

#include "common/date.hpp"
#include "common/decimal.hpp"
#include "common/parallel.hpp"

namespace tessera {

namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

// Option values may arrive with their SQL quotes ('|'); strip them.
std::string Unquote(const std::string& v) {
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
    std::string r;
    for (size_t i = 1; i + 1 < v.size(); i++) {
      r.push_back(v[i]);
      if (v[i] == '\'' && i + 2 < v.size() && v[i + 1] == '\'') i++;
    }
    return r;
  }
  return v;
}

char SingleChar(const std::string& v, const char* option, bool allow_empty) {
  if (v.size() == 1) return v[0];
  if (v == "\\t" || Lower(v) == "tab") return '\t';
  if (v.empty() && allow_empty) return '\0';
  throw UserError(ErrorKind::Input,
                  std::string("COPY option ") + option + " must be a single character, got '" + v + "'");
}

bool IsTblPath(const std::string& path) {
  std::string p = Lower(path);
  size_t dot = p.rfind(".tbl");
  if (dot == std::string::npos) return false;
  size_t rest = dot + 4;
  if (rest == p.size()) return true;
  if (p[rest] != '.' || rest + 1 == p.size()) return false;
  for (size_t i = rest + 1; i < p.size(); i++)
    if (p[i] < '0' || p[i] > '9') return false;
  return true;
}

// ---------------------------------------------------------------------------------------

struct ColumnInfo {
  Type type;
  bool not_null = false;
  std::string name;
};

// The input, memory-mapped (or read into memory when it cannot be mapped).
struct Input {
  const char* data = nullptr;
  size_t size = 0;
  void* map = nullptr;
  std::string copy;
  ~Input() {
    if (map) ::munmap(map, size);
  }
};

void OpenInput(const std::string& path, Input& in) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    throw UserError(ErrorKind::IO, "could not open file \"" + path + "\": " + std::strerror(e));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw UserError(ErrorKind::IO, "could not read file \"" + path + "\": " + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw UserError(ErrorKind::IO, "could not read file \"" + path + "\": it is a directory");
  }
  if (S_ISREG(st.st_mode)) {
    if (st.st_size > 0) {
      void* m = ::mmap(nullptr, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) {
        int e = errno;
        ::close(fd);
        throw UserError(ErrorKind::IO, "could not map file \"" + path + "\": " + std::strerror(e));
      }
      ::madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
      in.map = m;
      in.data = static_cast<const char*>(m);
      in.size = (size_t)st.st_size;
    }
    ::close(fd);
    return;
  }
  // Pipes and devices: read everything.
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      throw UserError(ErrorKind::IO, "could not read file \"" + path + "\": " + std::strerror(e));
    }
    if (n == 0) break;
    in.copy.append(buf, (size_t)n);
  }
  ::close(fd);
  in.data = in.copy.data();
  in.size = in.copy.size();
}

// Counts the fields of a line; sets *last_empty when the last field is empty and unquoted.
size_t CountFields(const char* p, const char* le, char delim, char quote, bool* last_empty) {
  size_t n = 0;
  const char* q = p;
  for (;;) {
    n++;
    const char* fs = q;
    bool quoted = false;
    if (quote && q < le && *q == quote) {
      quoted = true;
      q++;
      while (q < le) {
        if (*q == quote) {
          if (q + 1 < le && q[1] == quote) {
            q += 2;
            continue;
          }
          q++;
          break;
        }
        q++;
      }
    }
    while (q < le && *q != delim) q++;
    *last_empty = !quoted && q == fs;
    if (q >= le) return n;
    q++;
  }
}

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

inline void TrimSpaces(const char*& s, const char*& e) {
  while (s < e && *s == ' ') s++;
  while (e > s && e[-1] == ' ') e--;
}

enum class Conv { Ok, Bad, Range };

inline Conv ParseInt(const char* s, const char* e, int64_t lo, int64_t hi, int64_t* out) {
  TrimSpaces(s, e);
  bool neg = false;
  if (s < e && (*s == '-' || *s == '+')) {
    neg = *s == '-';
    s++;
  }
  if (s == e) return Conv::Bad;
  uint64_t v = 0;
  bool overflow = false;
  for (; s < e; s++) {
    unsigned d = (unsigned)(unsigned char)*s - '0';
    if (d > 9) return Conv::Bad;
    if (__builtin_mul_overflow(v, (uint64_t)10, &v) || __builtin_add_overflow(v, (uint64_t)d, &v))
      overflow = true;
  }
  uint64_t limit = neg ? (uint64_t)(-(lo + 1)) + 1 : (uint64_t)hi;
  if (overflow || v > limit) return Conv::Range;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return Conv::Ok;
}

// Decimal fast path for plain literals ("-123.45" with at most `scale` fraction digits and
// at most 18 integer digits). Returns false when the general parser must decide.
inline bool FastDecimal(const char* s, const char* e, int scale, int128_t* out) {
  TrimSpaces(s, e);
  bool neg = false;
  if (s < e && (*s == '-' || *s == '+')) {
    neg = *s == '-';
    s++;
  }
  uint64_t ip = 0, fp = 0;
  int nd = 0, nf = 0;
  while (s < e && (unsigned)(*s - '0') <= 9) {
    if (++nd > 18) return false;
    ip = ip * 10 + (uint64_t)(*s++ - '0');
  }
  if (s < e && *s == '.') {
    s++;
    while (s < e && (unsigned)(*s - '0') <= 9) {
      if (nf == scale) return false;  // needs rounding
      fp = fp * 10 + (uint64_t)(*s++ - '0');
      nf++;
    }
  }
  if (s != e || nd + nf == 0 || nd + scale > 38) return false;
  int128_t v = (int128_t)ip * Pow10(scale) + (int128_t)fp * Pow10(scale - nf);
  *out = neg ? -v : v;
  return true;
}

inline bool FastDate(const char* s, const char* e, int32_t* out) {
  if (e - s != 10 || s[4] != '-' || s[7] != '-') return false;
  int v[8];
  static const int pos[8] = {0, 1, 2, 3, 5, 6, 8, 9};
  for (int i = 0; i < 8; i++) {
    v[i] = s[pos[i]] - '0';
    if ((unsigned)v[i] > 9) return false;
  }
  int y = v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3];
  int m = v[4] * 10 + v[5];
  int d = v[6] * 10 + v[7];
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *out = DaysFromCivil(y, (unsigned)m, (unsigned)d);
  return true;
}

std::string ShowValue(std::string_view v) {
  std::string s = v.size() > 100 ? std::string(v.substr(0, 100)) + "..." : std::string(v);
  return "\"" + s + "\"";
}

class RangeParser {
 public:
  explicit RangeParser(Shared& sh) : sh_(sh), ncols_(sh.cols.size()), writer_(sh.types) {
    chunk_.Init(sh.types);
  }

  void Run(const char* begin, const char* end, size_t idx, RangeResult& out) {
    const char* p = begin;
    const char* last_progress = begin;
    uint32_t row = 0;
    uint64_t line = 0;
    try {
      while (p < end) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', (size_t)(end - p)));
        const char* le = nl ? nl : end;
        const char* next = nl ? nl + 1 : end;
        line++;
        if (le > p && le[-1] == '\r') le--;
        ParseLine(p, le, row);
        p = next;
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
      out.lines = line;
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

  // The column-count error for a line, or "" when its field count is acceptable.
  std::string CountMismatch(const char* p, const char* le) const {
    const auto& o = sh_.opt;
    bool last_empty = false;
    size_t f = CountFields(p, le, o.delimiter, o.quote, &last_empty);
    if (f == ncols_ + 1 && last_empty) return {};
    if (f == ncols_ && !(sh_.trailing && last_empty && ncols_ > 1)) return {};
    const std::string expected = "expected " + std::to_string(ncols_) + " columns, found ";
    if (p == le) return expected + "an empty line";
    if (sh_.trailing && last_empty) f--;
    return expected + std::to_string(f);
  }

  [[noreturn]] void CountError(const char* p, const char* le) const {
    std::string m = CountMismatch(p, le);
    if (m.empty()) m = "expected " + std::to_string(ncols_) + " columns";
    throw LineError{std::move(m)};
  }

  [[noreturn]] void ValueError(size_t c, const std::string& what, const char* p, const char* le) const {
    // A wrong field count explains a bad value better than the value itself.
    std::string m = CountMismatch(p, le);
    if (m.empty()) m = "column " + std::to_string(c + 1) + " (" + sh_.cols[c].name + "): " + what;
    throw LineError{std::move(m)};
  }

  void ParseLine(const char* p, const char* le, uint32_t row) {
    const char delim = sh_.opt.delimiter;
    const char quote = sh_.opt.quote;
    const char* q = p;
    for (size_t c = 0; c < ncols_; c++) {
      const char* fs;
      const char* fe;
      bool quoted = false, escaped = false;
      if (quote && q < le && *q == quote) {
        quoted = true;
        fs = ++q;
        for (;;) {
          if (q >= le)
            ValueError(c, "unterminated quoted field (fields cannot contain line breaks)", p, le);
          if (*q == quote) {
            if (q + 1 < le && q[1] == quote) {
              escaped = true;
              q += 2;
              continue;
            }
            break;
          }
          q++;
        }
        fe = q++;
        if (q < le && *q != delim)
          ValueError(c, "unexpected character after the closing quote of a quoted field", p, le);
      } else {
        fs = q;
        while (q < le && *q != delim) q++;
        fe = q;
      }
      if (q >= le) {
        if (c + 1 < ncols_) CountError(p, le);
        if (sh_.trailing && !quoted && fs == fe && ncols_ > 1) CountError(p, le);
      } else {
        if (c + 1 == ncols_ && q + 1 != le) CountError(p, le);
        q++;
      }
      if (escaped) {
        scratch_.clear();
        for (const char* s = fs; s < fe; s++) {
          scratch_.push_back(*s);
          if (*s == quote) s++;
        }
        fs = scratch_.data();
        fe = fs + scratch_.size();
      }
      Store(c, fs, fe, quoted, escaped, row, p, le);
    }
  }

  void Store(size_t c, const char* s, const char* e, bool quoted, bool escaped, uint32_t row,
             const char* p, const char* le) {
    const ColumnInfo& col = sh_.cols[c];
    Vector& v = chunk_.cols[c];
    if (!quoted) {
      const std::string& ns = sh_.opt.null_str;
      bool is_null = s == e ? (ns.empty() || col.type.id != TypeId::Varchar)
                            : (!ns.empty() && (size_t)(e - s) == ns.size() &&
                               std::memcmp(s, ns.data(), ns.size()) == 0);
      if (is_null) {
        if (col.not_null) ValueError(c, "NULL value in NOT NULL column", p, le);
        v.SetNull(row);
        return;
      }
    }
    switch (col.type.id) {
      case TypeId::Varchar:
        if (escaped) {
          v.data<StrRef>()[row] = v.heap().Add(std::string_view(s, (size_t)(e - s)));
          heap_used_ = true;
        } else {
          v.data<StrRef>()[row] = StrRef(s, (size_t)(e - s));  // bytes stay in the mapping
        }
        return;
      case TypeId::Integer: {
        int64_t x;
        Conv r = ParseInt(s, e, INT32_MIN, INT32_MAX, &x);
        if (r != Conv::Ok) ConvError(c, s, e, r, p, le);
        v.data<int32_t>()[row] = (int32_t)x;
        return;
      }
      case TypeId::BigInt: {
        int64_t x;
        Conv r = ParseInt(s, e, INT64_MIN, INT64_MAX, &x);
        if (r != Conv::Ok) ConvError(c, s, e, r, p, le);
        v.data<int64_t>()[row] = x;
        return;
      }
      case TypeId::Decimal: {
        const Type& t = col.type;
        int128_t x;
        bool ok = FastDecimal(s, e, t.scale, &x);
        if (!ok) {
          auto r = ParseDecimal(std::string_view(s, (size_t)(e - s)), t.precision, t.scale);
          if (!r) {
            bool wellformed = ParseDecimal(std::string_view(s, (size_t)(e - s)), 38, t.scale).has_value();
            ConvError(c, s, e, wellformed ? Conv::Range : Conv::Bad, p, le);
          }
          x = *r;
        }
        int128_t lim = Pow10(t.precision);
        if (x >= lim || x <= -lim) ConvError(c, s, e, Conv::Range, p, le);
        if (t.physical() == PhysType::I64) v.data<int64_t>()[row] = (int64_t)x;
        else v.data<int128_t>()[row] = x;
        return;
      }
      case TypeId::Double: {
        const char* a = s;
        const char* b = e;
        TrimSpaces(a, b);
        if (a < b && *a == '+') a++;
        double d = 0;
        auto r = std::from_chars(a, b, d);
        if (a == b || r.ptr != b) ConvError(c, s, e, Conv::Bad, p, le);
        if (r.ec == std::errc::result_out_of_range) ConvError(c, s, e, Conv::Range, p, le);
        v.data<double>()[row] = d;
        return;
      }
      case TypeId::Date: {
        int32_t d;
        if (!FastDate(s, e, &d)) {
          auto r = ParseDate(std::string_view(s, (size_t)(e - s)));
          if (!r) ConvError(c, s, e, Conv::Bad, p, le);
          d = *r;
        }
        v.data<int32_t>()[row] = d;
        return;
      }
      case TypeId::Boolean: {
        const char* a = s;
        const char* b = e;
        TrimSpaces(a, b);
        char buf[8] = {};
        size_t n = (size_t)(b - a);
        if (n > 0 && n < sizeof buf)
          for (size_t i = 0; i < n; i++) buf[i] = (char)std::tolower((unsigned char)a[i]);
        std::string_view w(buf, n < sizeof buf ? n : 0);
        if (w == "true" || w == "t" || w == "1") v.data<uint8_t>()[row] = 1;
        else if (w == "false" || w == "f" || w == "0") v.data<uint8_t>()[row] = 0;
        else ConvError(c, s, e, Conv::Bad, p, le);
        return;
      }
      case TypeId::Null: break;
    }
    ValueError(c, "unsupported column type " + col.type.ToString(), p, le);
  }

  [[noreturn]] void ConvError(size_t c, const char* s, const char* e, Conv r, const char* p,
                              const char* le) const {
    std::string m = "could not convert " + ShowValue(std::string_view(s, (size_t)(e - s))) +
                    " to " + sh_.cols[c].type.ToString();
    if (r == Conv::Range) m += ": value out of range";
    ValueError(c, m, p, le);
  }

  Shared& sh_;
  size_t ncols_;
  RowGroupWriter writer_;
  DataChunk chunk_;
  std::string scratch_;
  bool heap_used_ = false;
};

}  // namespace

CsvOptions ParseCopyOptions(const std::vector<std::pair<std::string, std::string>>& opts,
                            const std::string& path) {
  CsvOptions o;
  o.delimiter = IsTblPath(path) ? '|' : ',';
  for (auto& [key, raw] : opts) {
    std::string k = Lower(key);
    std::string v = Unquote(raw);
    if (k == "delimiter" || k == "delim" || k == "sep") {
      o.delimiter = SingleChar(v, "DELIMITER", false);
    } else if (k == "header") {
      std::string l = Lower(v);
      if (l.empty() || l == "true" || l == "on" || l == "1") o.header = true;
      else if (l == "false" || l == "off" || l == "0") o.header = false;
      else throw UserError(ErrorKind::Input, "COPY option HEADER must be true or false, got '" + v + "'");
    } else if (k == "null" || k == "nullstr") {
      o.null_str = v;
    } else if (k == "quote") {
      o.quote = SingleChar(v, "QUOTE", true);
    } else if (k == "format") {
      std::string l = Lower(v);
      if (l != "csv" && l != "tbl")
        throw UserError(ErrorKind::Input, "COPY format '" + v + "' is not supported (only csv)");
    } else {
      throw UserError(ErrorKind::Input, "unknown COPY option \"" + key + "\"");
    }
  }
  if (o.delimiter == '\n' || o.delimiter == '\r')
    throw UserError(ErrorKind::Input, "COPY delimiter cannot be a line break");
  if (o.quote && o.quote == o.delimiter)
    throw UserError(ErrorKind::Input, "COPY delimiter and quote must differ");
  return o;
}

uint64_t CopyFromFile(Catalog& catalog, const std::string& table, const std::string& path,
                      const CsvOptions& opt, unsigned threads,
                      const std::function<void(uint64_t, uint64_t)>& progress) {
  auto entry = catalog.GetTable(table);
  if (!entry) throw UserError(ErrorKind::Catalog, "table \"" + table + "\" does not exist");
  if (opt.quote && opt.quote == opt.delimiter)
    throw UserError(ErrorKind::Input, "COPY delimiter and quote must differ");
  Shared sh;
  sh.opt = opt;
  for (auto& c : entry->schema.columns) sh.cols.push_back({c.type, c.not_null, c.name});
  sh.types = entry->schema.types();
  const size_t ncols = sh.cols.size();
  TESSERA_ASSERT(ncols > 0, "COPY into a table without columns");

  auto in = std::make_unique<Input>();
  OpenInput(path, *in);
  const char* begin = in->data;
  const char* end = in->data + in->size;
  sh.total = in->size;
  sh.progress = &progress;
  // A UTF-8 byte order mark is skipped; trailing empty lines are ignored.
  if (end - begin >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) begin += 3;
  while (end > begin && (end[-1] == '\n' || end[-1] == '\r')) end--;
  uint64_t skipped_lines = 0;
  if (opt.header && begin < end) {
    const char* nl = static_cast<const char*>(std::memchr(begin, '\n', (size_t)(end - begin)));
    begin = nl ? nl + 1 : end;
    skipped_lines = 1;
  }
  if (begin < end) {
    const char* nl = static_cast<const char*>(std::memchr(begin, '\n', (size_t)(end - begin)));
    const char* le = nl ? nl : end;
    if (le > begin && le[-1] == '\r') le--;
    bool last_empty = false;
    size_t f = CountFields(begin, le, opt.delimiter, opt.quote, &last_empty);
    sh.trailing = f == ncols + 1 && last_empty;
  }

  // Byte ranges starting at line starts.
  if (threads == 0) threads = HardwareThreads();
  const uint64_t bytes = (uint64_t)(end - begin);
  uint64_t nranges = threads <= 1 ? 1 : std::min<uint64_t>(2 * threads, (bytes >> 22) + 1);
  std::vector<const char*> bounds{begin};
  for (uint64_t k = 1; k < nranges; k++) {
    const char* pos = begin + bytes * k / nranges;
    if (pos < bounds.back()) pos = bounds.back();
    const char* nl = static_cast<const char*>(std::memchr(pos, '\n', (size_t)(end - pos)));
    bounds.push_back(nl ? nl + 1 : end);
  }
  bounds.push_back(end);
  std::vector<RangeResult> results(nranges);
  ParallelFor(nranges, threads, [&](uint64_t i, unsigned) {
    if (sh.first_failed.load() < i) return;
    if (bounds[i] >= bounds[i + 1]) return;
    RangeParser parser(sh);
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
  uint64_t rows = 0;
  for (auto& r : results)
    for (auto& g : r.groups) {
      rows += g->count;
      groups.push_back(std::move(g));
    }
  results.clear();
  in.reset();  // unmap early: the row groups own copies of every value
  catalog.Append(table, std::move(groups));
  if (progress) progress(sh.total, sh.total);
  return rows;
}

}  // namespace tessera
