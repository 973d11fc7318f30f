#include "storage/csv_sniffer.hpp"

#include <algorithm>

#include "common/ascii.hpp"
#include "storage/column_names.hpp"

#include "storage/csv_convert.hpp"
#include "storage/csv_scan.hpp"

namespace tessera::csv {

namespace {

bool FitsColumnCount(const Record& r, size_t ncols) {
  if (!r.ok) return false;
  if (r.values.size() == ncols) return true;
  return r.values.size() == ncols + 1 && !r.quoted.back() && r.values.back().empty();
}

// A number as the sniffer takes it: optional '-', digits without a leading zero (but "0"),
// for DOUBLE also a fraction and an exponent ("1.5", ".5", "5.", "1e3"); spaces around.
bool PlainNumber(std::string_view t, bool integer) {
  size_t i = 0, n = t.size();
  while (i < n && t[i] == ' ') i++;
  while (n > i && t[n - 1] == ' ') n--;
  if (i < n && t[i] == '-') i++;
  auto digit = [&](size_t k) { return k < n && t[k] >= '0' && t[k] <= '9'; };
  size_t int_start = i;
  while (digit(i)) i++;
  size_t int_digits = i - int_start;
  if (int_digits > 1 && t[int_start] == '0') return false;
  if (integer) return int_digits > 0 && i == n;
  size_t frac_digits = 0;
  if (i < n && t[i] == '.') {
    i++;
    while (digit(i)) i++, frac_digits++;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    i++;
    if (i < n && (t[i] == '+' || t[i] == '-')) i++;
    if (!digit(i)) return false;
    while (digit(i)) i++;
  }
  return i == n;
}

// The candidates in DuckDB's order; a column moves past those a value does not fit.
enum Candidate { kBoolean, kBigInt, kDouble, kTime, kDate, kTimestamp, kVarchar };

bool Fits(Candidate c, std::string_view v) {
  const char* s = v.data();
  const char* e = s + v.size();
  switch (c) {
    case kBoolean: {
      const char* ts = s;
      const char* te = e;
      TrimSpaces(ts, te);
      std::string l = AsciiLower(std::string(ts, te));
      return l == "true" || l == "false" || l == "t" || l == "f" || l == "yes" || l == "no";
    }
    case kBigInt: {
      int64_t x;
      return PlainNumber(v, true) && ParseInt(s, e, INT64_MIN, INT64_MAX, &x) == Conv::Ok;
    }
    case kDouble: {
      double d;
      return PlainNumber(v, false) && ParseDoubleField(s, e, &d) == Conv::Ok;
    }
    case kDate: {
      int32_t day;
      return ParseDateField(s, e, &day) == Conv::Ok;
    }
    case kTime: {
      int64_t us;
      return ParseTimeField(s, e, &us) == Conv::Ok;
    }
    case kTimestamp: {
      int64_t us;
      return ParseTimestampField(s, e, &us) == Conv::Ok;
    }
    case kVarchar: return true;
  }
  return true;
}

Type CandidateType(Candidate c) {
  switch (c) {
    case kBoolean: return Type::Boolean();
    case kBigInt: return Type::BigInt();
    case kDouble: return Type::Double();
    case kDate: return Type::Date();
    case kTime: return Type::Time();
    case kTimestamp: return Type::Timestamp();
    case kVarchar: return Type::Varchar();
  }
  return Type::Varchar();
}

bool IsNullText(const std::string& v, const CsvOptions& opt) {
  return v.empty() || (!opt.null_str.empty() && v == opt.null_str);
}

// One column's sniffing state: the first candidate every value so far fits.
struct ColumnSniff {
  Candidate cand = kBoolean;
  bool any = false;  // a non-NULL value seen
  void Add(const std::string& v, const CsvOptions& opt) {
    if (IsNullText(v, opt)) return;
    const Candidate before = cand;
    const bool seen = any;
    any = true;
    while (!Fits(cand, v)) cand = (Candidate)(cand + 1);
    // The values seen so far fit `before` but (but for integers, which are doubles too)
    // not the new candidate: the column is text. (Dates, which read as midnight
    // timestamps, too: DuckDB's sniffer wants one timestamp format for all values.)
    if (seen && cand != before && !(before == kBigInt && cand == kDouble)) cand = kVarchar;
  }
  Type type() const { return any ? CandidateType(cand) : Type::Varchar(); }
};

std::vector<Type> TypesOf(const std::vector<ColumnSniff>& cols) {
  std::vector<Type> t;
  for (const auto& c : cols) t.push_back(c.type());
  return t;
}

// Field counts of up to kSniffRecords records split at `delim`; 0 for a malformed one.
std::vector<size_t> FieldCounts(const char* begin, const char* end, char delim, char quote, bool* all_trailing) {
  std::vector<size_t> counts;
  *all_trailing = true;
  const char* p = begin;
  Record r;
  for (int i = 0; i < kSniffRecords && p < end; i++) {
    ReadRecord(p, end, delim, quote, r);
    counts.push_back(r.ok ? r.values.size() : 0);
    if (!r.ok || r.values.size() < 2 || r.quoted.back() || !r.values.back().empty()) *all_trailing = false;
    p = r.next;
  }
  return counts;
}

std::string ColumnName(size_t i, size_t ncols) {
  std::string digits = std::to_string(i);
  size_t width = std::to_string(ncols == 0 ? 0 : ncols - 1).size();
  return "column" + std::string(width - std::min(width, digits.size()), '0') + digits;
}

}  // namespace

Type SniffType(const std::vector<std::string>& values, const CsvOptions& opt) {
  ColumnSniff col;
  for (const auto& v : values) col.Add(v, opt);
  return col.type();
}

SniffedCsv SniffCsv(const char* begin, const char* end, const CsvOptions& given, uint64_t sample_size) {
  SniffedCsv out;
  out.opt = given;
  CsvOptions& opt = out.opt;
  if (!opt.delimiter_given) {
    // The consistent candidate with the most fields; failing one of more than one field,
    // the candidate that splits the first record most (the reader then reports the record
    // that does not fit); failing that, ','.
    size_t best_consistent = 1, best_first = 1;
    char consistent = 0, first = 0;
    for (char d : {',', '|', ';', '\t'}) {
      if (d == opt.quote) continue;
      bool trailing = false;
      auto counts = FieldCounts(begin, end, d, opt.quote, &trailing);
      if (counts.empty() || counts[0] == 0) continue;
      bool same = std::all_of(counts.begin(), counts.end(), [&](size_t n) { return n == counts[0]; });
      size_t fields = counts[0] - (trailing ? 1 : 0);
      if (same && fields > best_consistent) {
        consistent = d;
        best_consistent = fields;
      }
      if (fields > best_first) {
        first = d;
        best_first = fields;
      }
    }
    opt.delimiter = consistent ? consistent : first ? first : ',';
    opt.delimiter_given = true;
  }
  // The sample: the first record, then up to sample_size records after it, streamed
  // into per-column states (the first record's own kept apart).
  const char* p = begin;
  Record first;
  if (begin < end) {
    ReadRecord(p, end, opt.delimiter, opt.quote, first);
    p = first.next;
  }
  if (begin >= end || !first.ok) {
    if (!opt.header_given) opt.header = false;
    opt.header_given = true;
    out.names = {"column0"};  // an empty file: one VARCHAR column, as in DuckDB
    out.types = {Type::Varchar()};
    return out;
  }
  // The first record's fields are the columns (a trailing delimiter on every line, .tbl
  // style, makes a last column of NULLs, as in DuckDB).
  const size_t ncols = first.values.size();
  std::vector<ColumnSniff> rest(ncols);
  uint64_t sampled = 0;
  Record r;
  while (p < end && sampled < sample_size) {
    ReadRecord(p, end, opt.delimiter, opt.quote, r);
    if (!r.ok) break;  // the reader reports it
    p = r.next;
    sampled++;
    if (r.values.size() < ncols) continue;  // the reader reports it
    for (size_t c = 0; c < ncols; c++) rest[c].Add(r.values[c], opt);
  }
  std::vector<ColumnSniff> all = rest;
  for (size_t c = 0; c < ncols; c++) all[c].Add(first.values[c], opt);
  const std::vector<Type> rest_types = TypesOf(sampled > 0 ? rest : all);
  if (!opt.header_given) {
    bool all_varchar =
        std::all_of(rest_types.begin(), rest_types.end(), [](const Type& t) { return t.id == TypeId::Varchar; });
    bool misfit = false;
    if (sampled > 0)
      for (size_t c = 0; c < ncols; c++) {
        const std::string& v = first.values[c];
        if (!IsNullText(v, opt) && !FieldFits(rest_types[c], v)) misfit = true;
      }
    opt.header = misfit || all_varchar;
    opt.header_given = true;
  }
  if (opt.header) {
    out.types = sampled > 0 ? rest_types : std::vector<Type>(ncols, Type::Varchar());
    for (size_t c = 0; c < ncols; c++)
      out.names.push_back(first.values[c].empty() ? ColumnName(c, ncols) : first.values[c]);
    out.names = UniqueColumnNames(std::move(out.names));
  } else {
    out.types = TypesOf(all);
    for (size_t c = 0; c < ncols; c++) out.names.push_back(ColumnName(c, ncols));
  }
  return out;
}

char SniffDelimiter(const char* begin, const char* end, size_t ncols, char quote) {
  static const char kCandidates[] = {',', '|', ';', '\t'};
  char best = ',';
  bool best_occurs = false, found = false;
  for (char d : kCandidates) {
    if (d == quote) continue;
    const char* p = begin;
    Record r;
    bool fits = p < end, occurs = false;
    for (int i = 0; i < kSniffRecords && p < end && fits; i++) {
      ReadRecord(p, end, d, quote, r);
      fits = FitsColumnCount(r, ncols);
      occurs = occurs || r.values.size() > 1;
      p = r.next;
    }
    if (!fits) continue;
    if (!found || (occurs && !best_occurs)) {
      best = d;
      best_occurs = occurs;
      found = true;
    }
  }
  return best;
}

bool SniffHeader(const char* begin, const char* end, const std::vector<Type>& types,
                 const CsvOptions& opt) {
  if (begin >= end) return false;
  Record r;
  ReadRecord(begin, end, opt.delimiter, opt.quote, r);
  if (!FitsColumnCount(r, types.size())) return false;
  bool all_varchar = true, all_empty = true;
  for (size_t c = 0; c < types.size(); c++) {
    const std::string& v = r.values[c];
    const std::string& ns = opt.null_str;
    bool is_null = v.empty() ? (ns.empty() || !r.quoted[c]) : (!ns.empty() && v == ns);
    if (!is_null) all_empty = false;
    if (types[c].id == TypeId::Varchar) continue;
    all_varchar = false;
    if (!is_null && !FieldFits(types[c], v)) return true;
  }
  return all_varchar && !all_empty;
}

}  // namespace tessera::csv
