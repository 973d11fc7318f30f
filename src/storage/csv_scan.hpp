// Splitting CSV text into fields and records (RFC 4180): a field that starts with the
// quote character is quoted and may hold delimiters and line breaks, a doubled quote in it
// is one quote; records end at LF or CRLF outside quotes. Shared by the reader, the
// sniffer and the search for record starts where the parallel reader splits the input.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tessera::csv {

struct Field {
  const char* begin = nullptr;  // the text between the quotes when quoted
  const char* end = nullptr;
  bool quoted = false;
  bool escaped = false;  // holds doubled quotes: Unescape before use
  uint32_t newlines = 0;  // line breaks inside the (quoted) field
};

enum class FieldEnd { Delimiter, LineEnd, Eof, Unterminated, JunkAfterQuote };

// Where the line starting at p ends: its '\n', or end.
inline const char* LineEnd(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', (size_t)(end - p));
  return nl ? static_cast<const char*>(nl) : end;
}

// Scans the field at q. `le` is the end of q's line (LineEnd); a quoted field spanning
// lines moves it on. On return q is at the delimiter, at le (LineEnd/Eof), or, after an
// error, somewhere in the field. A CR before the line's LF is not part of the field.
inline FieldEnd ScanField(const char*& q, const char*& le, const char* end, char delim, char quote,
                          Field& f) {
  f.quoted = f.escaped = false;
  f.newlines = 0;
  if (quote && q < end && *q == quote) {
    f.quoted = true;
    const char* s = ++q;
    for (;;) {
      const void* x = std::memchr(q, quote, (size_t)(end - q));
      if (!x) return FieldEnd::Unterminated;
      q = static_cast<const char*>(x);
      if (q + 1 < end && q[1] == quote) {
        f.escaped = true;
        q += 2;
        continue;
      }
      break;
    }
    f.begin = s;
    f.end = q++;
    if (f.end > le) {
      for (const char* c = s; c < f.end; c++) f.newlines += *c == '\n';
      le = LineEnd(q, end);
    }
    if (q < le && *q == '\r' && q + 1 == le) q++;
    if (q == le) return q == end ? FieldEnd::Eof : FieldEnd::LineEnd;
    if (*q == delim) return FieldEnd::Delimiter;
    return FieldEnd::JunkAfterQuote;
  }
  f.begin = q;
  const void* x = std::memchr(q, delim, (size_t)(le - q));
  if (x) {
    q = static_cast<const char*>(x);
    f.end = q;
    return FieldEnd::Delimiter;
  }
  q = le;
  f.end = le;
  if (f.end > f.begin && f.end[-1] == '\r') f.end--;
  return le == end ? FieldEnd::Eof : FieldEnd::LineEnd;
}

// The field's text with doubled quotes made single.
inline void Unescape(const Field& f, char quote, std::string& out) {
  out.clear();
  for (const char* s = f.begin; s < f.end; s++) {
    out.push_back(*s);
    if (*s == quote) s++;
  }
}

// One record's fields, as the sniffer wants them.
struct Record {
  std::vector<std::string> values;  // unescaped
  std::vector<bool> quoted;
  bool ok = true;  // false: an unterminated quote or text after a closing quote
  const char* next = nullptr;  // the next record's start (or end)
  uint32_t lines = 1;          // physical lines it spans
};

// Reads the record at p (< end) into r.
inline void ReadRecord(const char* p, const char* end, char delim, char quote, Record& r) {
  r.values.clear();
  r.quoted.clear();
  r.ok = true;
  r.lines = 1;
  const char* q = p;
  const char* le = LineEnd(p, end);
  std::string text;
  for (;;) {
    Field f;
    FieldEnd fe = ScanField(q, le, end, delim, quote, f);
    if (fe == FieldEnd::Unterminated || fe == FieldEnd::JunkAfterQuote) {
      r.ok = false;
      r.next = LineEnd(q, end);
      r.next = r.next < end ? r.next + 1 : end;
      return;
    }
    r.lines += f.newlines;
    if (f.escaped) Unescape(f, quote, text);
    else text.assign(f.begin, f.end);
    r.values.push_back(std::move(text));
    r.quoted.push_back(f.quoted);
    if (fe != FieldEnd::Delimiter) break;
    q++;
  }
  r.next = le < end ? le + 1 : end;
}

// Counts the record's fields; sets *last_empty when the last one is empty and unquoted.
// Returns 0 when the record is malformed (see Record::ok).
inline size_t CountFields(const char* p, const char* end, char delim, char quote, bool* last_empty) {
  const char* q = p;
  const char* le = LineEnd(p, end);
  size_t n = 0;
  for (;;) {
    Field f;
    FieldEnd fe = ScanField(q, le, end, delim, quote, f);
    if (fe == FieldEnd::Unterminated || fe == FieldEnd::JunkAfterQuote) return 0;
    n++;
    *last_empty = !f.quoted && f.begin == f.end;
    if (fe != FieldEnd::Delimiter) return n;
    q++;
  }
}

// The first record start at or after each target (sorted, in [begin, end]), found by
// reading every record from begin, so quoted line breaks are never taken for record ends.
// Malformed quoting stops the search: the remaining targets get `end`, and the reader
// reports the error in the range that holds it.
inline std::vector<const char*> RecordStartsAfter(const char* begin, const char* end, char delim,
                                                   char quote, const std::vector<const char*>& targets) {
  std::vector<const char*> out;
  const char* p = begin;
  size_t t = 0;
  while (t < targets.size()) {
    while (t < targets.size() && p >= targets[t]) {
      out.push_back(p);
      t++;
    }
    if (t == targets.size()) break;
    if (p >= end) {
      out.push_back(end);
      t++;
      continue;
    }
    const char* q = p;
    const char* le = LineEnd(p, end);
    for (;;) {
      Field f;
      FieldEnd fe = ScanField(q, le, end, delim, quote, f);
      if (fe == FieldEnd::Unterminated || fe == FieldEnd::JunkAfterQuote) {
        while (out.size() < targets.size()) out.push_back(end);
        return out;
      }
      if (fe != FieldEnd::Delimiter) break;
      q++;
    }
    p = le < end ? le + 1 : end;
  }
  return out;
}

}  // namespace tessera::csv
