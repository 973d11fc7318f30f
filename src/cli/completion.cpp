#include "cli/completion.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "function/function_registry.hpp"

namespace tessera::cli {

namespace {

// The SQL words the shell suggests (lower case).
constexpr const char* kKeywords[] = {
    "select", "from", "where", "group", "by", "having", "order", "limit", "offset", "as", "and", "or",
    "not", "null", "is", "in", "between", "like", "ilike", "similar", "to", "escape", "case", "when",
    "then", "else", "end", "distinct", "all", "union", "intersect", "except", "join", "inner", "left",
    "right", "full", "outer", "cross", "on", "using", "with", "recursive", "insert", "into", "values",
    "update", "set", "delete", "create", "table", "view", "drop", "alter", "add", "column", "rename",
    "primary", "key", "default", "copy", "explain", "analyze", "describe", "show", "tables", "cast",
    "try_cast", "interval", "true", "false", "asc", "desc", "nulls", "first", "last", "over",
    "partition", "rows", "range", "qualify", "exists", "if", "integer", "bigint", "double", "decimal",
    "varchar", "boolean", "date", "begin", "commit", "rollback", "checkpoint", "vacuum",
};

constexpr const char* kDotCommands[] = {".help", ".tables", ".schema", ".timer", ".mode", ".maxrows", ".read",
                                        ".output", ".headers", ".nullvalue", ".bail", ".echo", ".gpu",
                                        ".quit", ".exit"};

bool IsWordByte(char c) { return std::isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80; }

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = (char)std::tolower((unsigned char)c);
  return r;
}

}  // namespace

std::vector<std::string> CompletionWords(Database& db) {
  std::set<std::string> words(std::begin(kKeywords), std::end(kKeywords));
  words.insert(std::begin(kDotCommands), std::end(kDotCommands));
  for (const ScalarFunction& f : AllScalarFunctions())
    for (std::string_view n : f.sql_names) words.emplace(n);
  for (const AggregateFunction& a : AllAggregateFunctions())
    if (a.sql_callable) words.emplace(a.name);
  for (const std::string& table : db.catalog().TableNames()) {
    words.insert(table);
    if (auto entry = db.catalog().GetEntry(table)) {
      for (const ColumnDef& c : entry->schema.columns) words.insert(c.name);
      for (const std::string& c : entry->view_columns) words.insert(c);
    }
  }
  return {words.begin(), words.end()};
}

Completion Complete(std::string_view line, size_t pos, const std::vector<std::string>& words) {
  pos = std::min(pos, line.size());
  size_t start = pos;
  while (start > 0 && IsWordByte(line[start - 1])) start--;
  if (start == 1 && line[0] == '.') start = 0;  // a dot command
  const std::string typed(line.substr(start, pos - start));
  Completion r{std::string(line), pos, {}};
  if (typed.empty()) return r;
  const std::string key = Lower(typed);
  std::vector<std::string> matches;
  for (const std::string& w : words)
    if (Lower(w).starts_with(key) && (w[0] == '.') == (start == 0 && typed[0] == '.')) matches.push_back(w);
  if (matches.empty()) return r;
  // Upper-case typing gets upper-case words.
  const bool upper = std::any_of(typed.begin(), typed.end(), [](char c) { return std::isupper((unsigned char)c); }) &&
                     std::none_of(typed.begin(), typed.end(), [](char c) { return std::islower((unsigned char)c); });
  auto cased = [&](std::string w) {
    if (upper)
      for (char& c : w) c = (char)std::toupper((unsigned char)c);
    return w;
  };
  std::string common = matches[0];
  for (const std::string& m : matches) {
    size_t k = 0;
    while (k < common.size() && k < m.size() && std::tolower((unsigned char)common[k]) == std::tolower((unsigned char)m[k])) k++;
    common.resize(k);
  }
  std::string insert = cased(common);
  if (matches.size() == 1) insert += ' ';
  if (matches.size() > 1 && common.size() <= typed.size()) {
    for (const std::string& m : matches) r.choices.push_back(cased(m));
    return r;
  }
  r.line = std::string(line.substr(0, start)) + insert + std::string(line.substr(pos));
  r.pos = start + insert.size();
  return r;
}

}  // namespace tessera::cli
