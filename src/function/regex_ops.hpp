// Regular expressions (RE2 syntax), DuckDB's semantics: the option letters of
// regexp_matches / regexp_full_match / regexp_replace / regexp_extract and a compiled
// pattern with the four operations those functions need. Built without RE2
// (TESSERA_HAVE_RE2 unset), compiling a pattern raises "not supported: built without RE2".
// These run on the CPU only (RE2 has no device form): the functions calling them have no
// GPU definition, so a pipeline evaluating one stays on the CPU with that reason.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace tessera::ops {

// True when the engine was built with RE2.
bool HaveRegex();

struct RegexOptions {
  bool case_insensitive = false;  // 'i' (and 'c' back to case-sensitive)
  bool literal = false;           // 'l': the pattern is a literal string
  bool dot_matches_newline = false;  // 's'; 'm', 'n', 'p' set it back (the default)
  bool global = false;            // 'g': every match (regexp_replace only)
};

// DuckDB's option letters, later ones winning: c, i, l, m / n / p, s, and g where
// `allow_global` (regexp_replace). A UserError for any other letter, or for 'g' elsewhere.
RegexOptions ParseRegexOptions(std::string_view letters, bool allow_global, SourcePos pos = {});

class Regex {
 public:
  // Compiles `pattern`; a UserError (Input) with RE2's message when it is invalid.
  Regex(std::string_view pattern, const RegexOptions& options);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // A match anywhere in s (regexp_matches).
  bool PartialMatch(std::string_view s) const;
  // s matches as a whole (regexp_full_match, ~, SIMILAR TO).
  bool FullMatch(std::string_view s) const;
  // s with its first match (every match: `global`) replaced by `rewrite`, where \0 ... \9
  // stand for the groups and \\ for a backslash, appended to out. A rewrite naming a group
  // the pattern lacks replaces nothing (DuckDB's).
  void AppendReplaced(std::string_view s, std::string_view rewrite, bool global, std::string& out) const;
  // Group `group` (0: the whole match) of the first match in s, a view into s; empty when
  // nothing matches, the group took no part or the pattern has fewer groups.
  std::string_view Extract(std::string_view s, int64_t group) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A row loop's compiled pattern: recompiled only when the pattern differs from the last
// row's (a constant pattern compiles once per chunk).
class RegexCache {
 public:
  explicit RegexCache(RegexOptions options) : options_(options) {}
  const Regex& Get(std::string_view pattern);
  const RegexOptions& options() const { return options_; }

 private:
  RegexOptions options_;
  std::string pattern_;
  std::unique_ptr<Regex> regex_;
};

}  // namespace tessera::ops
