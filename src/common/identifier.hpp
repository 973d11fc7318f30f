// SQL identifiers (names of tables, views, columns, aliases, CTEs, schemas, windows,
// prepared statements): kept as written, compared ignoring ASCII case, as DuckDB does
// (its default `preserve_identifier_case = true`). `SELECT X FROM t` finds a column created
// as "x" and shows it as the catalog spells it. Every comparison, map and set of names
// goes through these definitions; nothing else folds the case of a name.
#pragma once
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera {

// The case-folded character: ASCII upper case to lower case, every other byte (UTF-8
// included) as it is. DuckDB folds identifiers the same way.
constexpr char IdentFoldChar(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

// Whether two names denote the same identifier.
constexpr bool IdentEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (IdentFoldChar(a[i]) != IdentFoldChar(b[i])) return false;
  return true;
}

// The name's case-folded form: the canonical spelling of names that are not shown as
// written (function names, settings).
inline std::string IdentFold(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = IdentFoldChar(c);
  return r;
}

// Orders names as their folded forms (for std::map / std::set keyed by name).
struct IdentLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const {
    const size_t n = a.size() < b.size() ? a.size() : b.size();
    for (size_t i = 0; i < n; i++) {
      const unsigned char x = (unsigned char)IdentFoldChar(a[i]), y = (unsigned char)IdentFoldChar(b[i]);
      if (x != y) return x < y;
    }
    return a.size() < b.size();
  }
};

// Hash and equality for unordered containers keyed by name.
struct IdentHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    size_t h = 1469598103934665603ull;  // FNV-1a over the folded bytes
    for (char c : s) h = (h ^ (unsigned char)IdentFoldChar(c)) * 1099511628211ull;
    return h;
  }
};
struct IdentEqualTo {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return IdentEquals(a, b); }
};

// Maps and sets keyed by name: a key keeps the spelling it was first inserted with, and
// any spelling of it finds it.
template <class V>
using IdentMap = std::map<std::string, V, IdentLess>;
using IdentSet = std::set<std::string, IdentLess>;
template <class V>
using IdentHashMap = std::unordered_map<std::string, V, IdentHash, IdentEqualTo>;

// The position of the first of `names` equal to `name`, or -1.
inline int IdentFind(const std::vector<std::string>& names, std::string_view name) {
  for (size_t i = 0; i < names.size(); i++)
    if (IdentEquals(names[i], name)) return (int)i;
  return -1;
}

}  // namespace tessera
