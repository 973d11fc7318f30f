// The regular-expression functions of the registry, with DuckDB's semantics, types and
// errors (regex_ops.hpp: RE2 syntax, the option letters): regexp_matches(s, p [, options])
// (a match anywhere), regexp_full_match(s, p [, options]) (the whole string; `s ~ p` and
// `s SIMILAR TO p` bind to it), regexp_replace(s, p, rewrite [, options]) (the first match,
// every match with 'g') and regexp_extract(s, p [, group [, options]]) ('' when nothing
// matches). The options and the group index must be constants, as in DuckDB; a constant
// pattern is compiled while binding, so an invalid one is an error even over no rows.
#include <cstdint>

#include "execution/expression_executor.hpp"
#include "function/regex_ops.hpp"
#include "function/scalar_function_sets.hpp"

namespace tessera {

namespace {

StrRef Str(const std::vector<Vector>& args, size_t k, uint32_t i) { return args[k].data<StrRef>()[i]; }

// Coerces the strings, folds the options (argument `options_at`, if given) to a constant
// and checks them and a constant pattern.
void BindRegexArgs(ScalarCall& c, size_t strings, size_t options_at, bool allow_global) {
  if (!ops::HaveRegex())
    throw UserError(ErrorKind::Unsupported, std::string(c.written) + " is not supported: built without RE2", c.pos);
  for (size_t k = 0; k < strings; k++) c.args[k] = Binder::Coerce(std::move(c.args[k]), Type::Varchar(), c.pos);
  ops::RegexOptions options;
  if (options_at < c.args.size()) {
    if (!c.args[options_at]->IsConstant())
      throw UserError(ErrorKind::Input, "Regex options field must be a constant", c.pos);
    const Value v = EvaluateConstant(*Binder::Coerce(std::move(c.args[options_at]), Type::Varchar(), c.pos));
    if (v.is_null()) throw UserError(ErrorKind::Input, "Regex options field must not be NULL", c.pos);
    options = ops::ParseRegexOptions(v.str_value(), allow_global, c.pos);
    c.args[options_at] = MakeConstant(v);
  }
  if (c.args[1]->IsConstant()) {
    const Value p = EvaluateConstant(*c.args[1]);
    try {
      if (!p.is_null()) ops::Regex(p.str_value(), options);
    } catch (const UserError& e) {
      throw UserError(e.kind(), e.raw(), c.pos);
    }
  }
}

// The options of a row loop: the constant at `at`, or none.
ops::RegexOptions OptionsOf(const std::vector<Vector>& args, size_t at, bool allow_global, uint32_t n) {
  if (at >= args.size() || n == 0) return {};
  return ops::ParseRegexOptions(args[at].data<StrRef>()[0], allow_global);
}

Type BindMatches(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 3);
  BindRegexArgs(c, 2, 2, false);
  return Type::Boolean();
}

template <bool Full>
void MatchesCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  ops::RegexCache cache(OptionsOf(args, 2, false, n));
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const ops::Regex& re = cache.Get(Str(args, 1, i));
    out.data<uint8_t>()[i] = Full ? re.FullMatch(Str(args, 0, i)) : re.PartialMatch(Str(args, 0, i));
  }
}

Type BindReplace(ScalarCall& c) {
  ExpectScalarArgs(c, 3, 4);
  BindRegexArgs(c, 3, 3, true);
  return Type::Varchar();
}

void ReplaceCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  ops::RegexCache cache(OptionsOf(args, 3, true, n));
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.clear();
    cache.Get(Str(args, 1, i)).AppendReplaced(Str(args, 0, i), Str(args, 2, i), cache.options().global, tmp);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

// regexp_extract(s, p [, group [, options]]): the group is an INTEGER constant in 0..9; a
// NULL group extracts nothing ('', DuckDB's), here as a group no pattern has (-1).
Type BindExtract(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 4);
  BindRegexArgs(c, 2, 3, false);
  if (c.args.size() > 2) {
    if (!c.args[2]->IsConstant())
      throw UserError(ErrorKind::Input, "Group specification field must be a constant!", c.pos);
    if (!c.args[2]->type.IsNumeric() && c.args[2]->type.id != TypeId::Null)
      throw UserError(ErrorKind::Type, "regexp_extract: the group index must be an INTEGER", c.pos);
    const Value g = EvaluateConstant(*Binder::Coerce(std::move(c.args[2]), Type::BigInt(), c.pos));
    if (!g.is_null() && (g.int_value() < 0 || g.int_value() > 9))
      throw UserError(ErrorKind::Input, "Group index must be between 0 and 9!", c.pos);
    c.args[2] = MakeConstant(g.is_null() ? Value::BigInt(-1) : g);
  }
  return Type::Varchar();
}

void ExtractCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  ops::RegexCache cache(OptionsOf(args, 3, false, n));
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int64_t group = args.size() > 2 ? args[2].data<int64_t>()[i] : 0;
    out.data<StrRef>()[i] = cache.Get(Str(args, 1, i)).Extract(Str(args, 0, i), group);
  }
  out.ShareStrings(args[0]);
}

}  // namespace

std::vector<ScalarFunction> RegexFunctions() {
  return {
      {"regexp_matches", {"regexp_matches"}, BindMatches, false, MatchesCpu<false>},
      {"regexp_full_match", {"regexp_full_match"}, BindMatches, false, MatchesCpu<true>},
      {"regexp_replace", {"regexp_replace"}, BindReplace, false, ReplaceCpu},
      {"regexp_extract", {"regexp_extract"}, BindExtract, false, ExtractCpu},
  };
}

}  // namespace tessera
