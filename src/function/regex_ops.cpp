// Regular expressions over RE2 (see regex_ops.hpp); without RE2 every compile fails with a
// clear error and nothing else can be reached.
#include "function/regex_ops.hpp"

#ifdef TESSERA_HAVE_RE2
#include <re2/re2.h>
#endif

#include <vector>

namespace tessera::ops {

RegexOptions ParseRegexOptions(std::string_view letters, bool allow_global, SourcePos pos) {
  RegexOptions o;
  for (char c : letters) {
    switch (c) {
      case 'c': o.case_insensitive = false; break;
      case 'i': o.case_insensitive = true; break;
      case 'l': o.literal = true; break;
      case 'm': case 'n': case 'p': o.dot_matches_newline = false; break;
      case 's': o.dot_matches_newline = true; break;
      case 'g':
        if (!allow_global)
          throw UserError(ErrorKind::Input, "Option 'g' (global replace) is only valid for regexp_replace", pos);
        o.global = true;
        break;
      default:
        throw UserError(ErrorKind::Input, std::string("Unrecognized Regex option ") + c, pos);
    }
  }
  return o;
}

#ifdef TESSERA_HAVE_RE2

bool HaveRegex() { return true; }

struct Regex::Impl {
  re2::RE2 re;
  Impl(std::string_view pattern, const re2::RE2::Options& o) : re(re2::StringPiece(pattern.data(), pattern.size()), o) {}
};

namespace {
re2::RE2::Options Re2Options(const RegexOptions& options) {
  re2::RE2::Options o;
  o.set_log_errors(false);
  o.set_case_sensitive(!options.case_insensitive);
  o.set_literal(options.literal);
  o.set_dot_nl(options.dot_matches_newline);
  return o;
}
re2::StringPiece Piece(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }
}  // namespace

Regex::Regex(std::string_view pattern, const RegexOptions& options)
    : impl_(std::make_unique<Impl>(pattern, Re2Options(options))) {
  if (!impl_->re.ok()) throw UserError(ErrorKind::Input, impl_->re.error());
}
Regex::~Regex() = default;

bool Regex::PartialMatch(std::string_view s) const { return re2::RE2::PartialMatch(Piece(s), impl_->re); }
bool Regex::FullMatch(std::string_view s) const { return re2::RE2::FullMatch(Piece(s), impl_->re); }

void Regex::AppendReplaced(std::string_view s, std::string_view rewrite, bool global, std::string& out) const {
  std::string r(s);
  if (global) re2::RE2::GlobalReplace(&r, impl_->re, Piece(rewrite));
  else re2::RE2::Replace(&r, impl_->re, Piece(rewrite));
  out.append(r);
}

std::string_view Regex::Extract(std::string_view s, int64_t group) const {
  if (group < 0 || group > impl_->re.NumberOfCapturingGroups()) return {};
  std::vector<re2::StringPiece> groups(group + 1);
  if (!impl_->re.Match(Piece(s), 0, s.size(), re2::RE2::UNANCHORED, groups.data(), (int)groups.size())) return {};
  const re2::StringPiece g = groups[group];
  return g.data() ? std::string_view(g.data(), g.size()) : std::string_view();
}

#else  // without RE2

bool HaveRegex() { return false; }

struct Regex::Impl {};

Regex::Regex(std::string_view, const RegexOptions&) {
  throw UserError(ErrorKind::Unsupported, "regular expressions are not supported: built without RE2");
}
Regex::~Regex() = default;
bool Regex::PartialMatch(std::string_view) const { return false; }
bool Regex::FullMatch(std::string_view) const { return false; }
void Regex::AppendReplaced(std::string_view, std::string_view, bool, std::string&) const {}
std::string_view Regex::Extract(std::string_view, int64_t) const { return {}; }

#endif

const Regex& RegexCache::Get(std::string_view pattern) {
  if (!regex_ || pattern != pattern_) {
    regex_.reset();
    regex_ = std::make_unique<Regex>(pattern, options_);
    pattern_.assign(pattern);
  }
  return *regex_;
}

}  // namespace tessera::ops
