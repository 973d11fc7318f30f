#include "storage/csv_sniffer.hpp"

#include "storage/csv_convert.hpp"
#include "storage/csv_scan.hpp"

namespace tessera::csv {

namespace {

bool FitsColumnCount(const Record& r, size_t ncols) {
  if (!r.ok) return false;
  if (r.values.size() == ncols) return true;
  return r.values.size() == ncols + 1 && !r.quoted.back() && r.values.back().empty();
}

}  // namespace

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
