// Text functions of the registry, with DuckDB's semantics and result types; the string
// semantics themselves are function/string_ops (characters are UTF-8 code points).
#include "common/error.hpp"
#include "function/scalar_function_sets.hpp"
#include "function/md5.hpp"
#include "function/string_ops.hpp"
#include "planner/binder.hpp"

namespace tessera {

namespace {

// Results longer than this are refused rather than built (repeat, lpad, rpad).
constexpr int64_t kMaxResultChars = int64_t(1) << 30;

Type BindStrings(ScalarCall& c, size_t lo, size_t hi, Type result) {
  ExpectScalarArgs(c, lo, hi);
  for (auto& a : c.args) a = Binder::Coerce(std::move(a), Type::Varchar(), c.pos);
  return result;
}
// concat(x, ...): every argument as text, NULLs skipped (DuckDB's; `||` is NULL on a NULL).
Type BindConcat(ScalarCall& c) {
  if (c.args.empty()) throw UserError(ErrorKind::Binder, "concat needs at least one argument", c.pos);
  for (auto& a : c.args) a = MakeCast(std::move(a), Type::Varchar());
  return Type::Varchar();
}
// concat_ws(sep, x, ...): the arguments as text joined by sep, NULL arguments skipped; a
// NULL separator gives NULL (DuckDB's). The separator must be VARCHAR (or NULL).
Type BindConcatWs(ScalarCall& c) {
  if (c.args.size() < 2)
    throw UserError(ErrorKind::Binder, "concat_ws needs a separator and at least one more argument", c.pos);
  const TypeId sep = c.args[0]->type.id;
  if (sep != TypeId::Varchar && sep != TypeId::Null)
    throw UserError(ErrorKind::Type,
                    "no function matches concat_ws(" + c.args[0]->type.ToString() +
                        ", ...): the separator must be VARCHAR (add an explicit cast)",
                    c.pos);
  for (auto& a : c.args) a = MakeCast(std::move(a), Type::Varchar());
  return Type::Varchar();
}
Type BindTrim(ScalarCall& c) { return BindStrings(c, 1, 2, Type::Varchar()); }
Type BindReplace(ScalarCall& c) { return BindStrings(c, 3, 3, Type::Varchar()); }
Type BindPredicate(ScalarCall& c) { return BindStrings(c, 2, 2, Type::Boolean()); }
Type BindStrPos(ScalarCall& c) { return BindStrings(c, 2, 2, Type::BigInt()); }
// (VARCHAR, BIGINT) -> VARCHAR: left, right, repeat; (VARCHAR, INTEGER, VARCHAR) ->
// VARCHAR: lpad, rpad (DuckDB's signatures).
template <size_t Args>
Type BindStringCount(ScalarCall& c) {
  ExpectScalarArgs(c, Args, Args);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Varchar(), c.pos);
  c.args[1] = Binder::Coerce(std::move(c.args[1]), Args == 3 ? Type::Integer() : Type::BigInt(), c.pos);
  if (Args == 3) c.args[2] = Binder::Coerce(std::move(c.args[2]), Type::Varchar(), c.pos);
  return Type::Varchar();
}

StrRef Str(const std::vector<Vector>& args, size_t k, uint32_t i) { return args[k].data<StrRef>()[i]; }

void ConcatCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  uint8_t* ov = out.validity();
  for (uint32_t i = 0; i < n; i++) {
    tmp.clear();
    for (auto& a : args)
      if (a.IsValid(i)) tmp.append(a.data<StrRef>()[i]);
    ov[i] = 1;
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

void ConcatWsCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  uint8_t* ov = out.validity();
  for (uint32_t i = 0; i < n; i++) {
    ov[i] = args[0].IsValid(i);
    if (!ov[i]) continue;
    const std::string_view sep = Str(args, 0, i);
    tmp.clear();
    bool first = true;
    for (size_t k = 1; k < args.size(); k++) {
      if (!args[k].IsValid(i)) continue;
      if (!first) tmp.append(sep);
      tmp.append(Str(args, k, i));
      first = false;
    }
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

template <bool Left, bool Right>
void TrimCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<StrRef>()[i] = ops::Trim(Str(args, 0, i), args.size() > 1 ? Str(args, 1, i) : " ", Left, Right);
  out.ShareStrings(args[0]);
}

void ReplaceCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.clear();
    ops::AppendReplaced(Str(args, 0, i), Str(args, 1, i), Str(args, 2, i), tmp);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

enum class Test { Starts, Ends, Contains };
template <Test T>
void PredicateCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    std::string_view s = Str(args, 0, i), x = Str(args, 1, i);
    out.data<uint8_t>()[i] = T == Test::Starts ? s.starts_with(x) : T == Test::Ends ? s.ends_with(x)
                                                                                   : s.find(x) != std::string_view::npos;
  }
}

void StrPosCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<int64_t>()[i] = ops::StrPos(Str(args, 0, i), Str(args, 1, i));
}

template <bool FromLeft>
void LeftRightCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<StrRef>()[i] = ops::LeftRight(Str(args, 0, i), args[1].data<int64_t>()[i], FromLeft);
  out.ShareStrings(args[0]);
}

void CheckLength(const char* fn, int64_t chars) {
  if (chars > kMaxResultChars)
    throw UserError(ErrorKind::Input, std::string(fn) + ": a result of more than 2^30 characters is not supported");
}

void RepeatCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    std::string_view s = Str(args, 0, i);
    const int64_t k = args[1].data<int64_t>()[i];
    if (k > 0 && !s.empty()) CheckLength("repeat", ops::CharLength(s) * std::min(k, kMaxResultChars + 1));
    tmp.clear();
    for (int64_t r = 0; r < k && !s.empty(); r++) tmp.append(s);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

template <bool Left>
void PadCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    const int64_t len = args[1].data<int32_t>()[i];
    CheckLength(Left ? "lpad" : "rpad", len);
    tmp.clear();
    if (!ops::AppendPadded(Str(args, 0, i), len, Str(args, 2, i), Left, tmp))
      throw UserError(ErrorKind::Input, Left ? "Insufficient padding in LPAD." : "Insufficient padding in RPAD.");
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

// split_part(s, delimiter, index): (VARCHAR, VARCHAR, BIGINT) -> VARCHAR.
Type BindSplitPart(ScalarCall& c) {
  ExpectScalarArgs(c, 3, 3);
  for (size_t k = 0; k < 2; k++) c.args[k] = Binder::Coerce(std::move(c.args[k]), Type::Varchar(), c.pos);
  c.args[2] = Binder::Coerce(std::move(c.args[2]), Type::BigInt(), c.pos);
  return Type::Varchar();
}
void SplitPartCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<StrRef>()[i] = ops::SplitPart(Str(args, 0, i), Str(args, 1, i), args[2].data<int64_t>()[i]);
  out.ShareStrings(args[0]);
}

// A row loop building each result from a VARCHAR's characters.
template <void (*F)(std::string_view, std::string&)>
void StringMapCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.clear();
    F(Str(args, 0, i), tmp);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

// ascii(s): 0 for ''; unicode(s) / ord(s): -1 for '' (DuckDB's).
template <int32_t Empty>
void FirstCodePointCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<int32_t>()[i] = ops::FirstCodePoint(Str(args, 0, i), Empty);
}

void ChrCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.clear();
    const int32_t c = args[0].data<int32_t>()[i];
    if (!ops::AppendCodePoint(c, tmp)) throw UserError(ErrorKind::Input, "Invalid UTF8 Codepoint " + std::to_string(c));
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

void TranslateCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.clear();
    ops::AppendTranslated(Str(args, 0, i), Str(args, 1, i), Str(args, 2, i), tmp);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

void Md5Cpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<StrRef>()[i] = out.heap().Add(ops::Md5Hex(Str(args, 0, i)));
}

// s[i] (array_extract) and s[a:b] (array_slice) over VARCHAR: integer positions only
// (DuckDB has no overload for other types; its LIST and STRUCT overloads are types tessera
// does not have).
Type BindSubscript(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 3);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Varchar(), c.pos);
  for (size_t k = 1; k < c.args.size(); k++) {
    NeedIntegerArg(c, c.args[k]->type, "string positions are INTEGER or BIGINT", "VARCHAR, " + c.args[k]->type.ToString());
    c.args[k] = Binder::Coerce(std::move(c.args[k]), Type::BigInt(), c.pos);
  }
  return Type::Varchar();
}
Type BindExtract(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 2);
  return BindSubscript(c);
}
Type BindSlice(ScalarCall& c) {
  ExpectScalarArgs(c, 3, 3);
  return BindSubscript(c);
}

void ExtractCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<StrRef>()[i] = ops::CharAt(args[0].data<StrRef>()[i], args[1].data<int64_t>()[i]);
  out.ShareStrings(args[0]);
}

void SliceCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i))
      out.data<StrRef>()[i] =
          ops::CharSlice(args[0].data<StrRef>()[i], args[1].data<int64_t>()[i], args[2].data<int64_t>()[i]);
  out.ShareStrings(args[0]);
}

}  // namespace

// strlen / octet_length: the bytes of the UTF-8 string or BLOB; bit_length: 8 per byte
// (BIGINT). A BLOB is measured as it is, not as its text form.
Type BindByteLength(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  if (c.args[0]->type.id != TypeId::Blob) c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Varchar(), c.pos);
  return Type::BigInt();
}
template <int BitsPerByte>
void ByteLengthCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<int64_t>()[i] = (int64_t)args[0].data<StrRef>()[i].size() * BitsPerByte;
}

std::vector<ScalarFunction> TextFunctions() {
  return {
      {"concat", {"concat"}, BindConcat, true, ConcatCpu},
      {"concat_ws", {"concat_ws"}, BindConcatWs, true, ConcatWsCpu},
      {"array_extract", {"array_extract"}, BindExtract, false, ExtractCpu},
      {"array_slice", {"array_slice"}, BindSlice, false, SliceCpu},
      {"trim", {"trim"}, BindTrim, false, TrimCpu<true, true>},
      {"ltrim", {"ltrim"}, BindTrim, false, TrimCpu<true, false>},
      {"rtrim", {"rtrim"}, BindTrim, false, TrimCpu<false, true>},
      {"replace", {"replace"}, BindReplace, false, ReplaceCpu},
      {"starts_with", {"starts_with", "prefix"}, BindPredicate, false, PredicateCpu<Test::Starts>},
      {"ends_with", {"ends_with", "suffix"}, BindPredicate, false, PredicateCpu<Test::Ends>},
      {"contains", {"contains"}, BindPredicate, false, PredicateCpu<Test::Contains>},
      {"strpos", {"strpos", "instr"}, BindStrPos, false, StrPosCpu},
      {"left", {"left"}, BindStringCount<2>, false, LeftRightCpu<true>},
      {"right", {"right"}, BindStringCount<2>, false, LeftRightCpu<false>},
      {"repeat", {"repeat"}, BindStringCount<2>, false, RepeatCpu},
      {"lpad", {"lpad"}, BindStringCount<3>, false, PadCpu<true>},
      {"rpad", {"rpad"}, BindStringCount<3>, false, PadCpu<false>},
      {"split_part", {"split_part"}, BindSplitPart, false, SplitPartCpu},
      {"reverse", {"reverse"}, BindFixed<Type::Varchar, Type::Varchar>, false, StringMapCpu<ops::AppendReversed>},
      {"ascii", {"ascii"}, BindFixed<Type::Integer, Type::Varchar>, false, FirstCodePointCpu<0>},
      {"unicode", {"unicode", "ord"}, BindFixed<Type::Integer, Type::Varchar>, false, FirstCodePointCpu<-1>},
      {"chr", {"chr"}, BindFixed<Type::Varchar, Type::Integer>, false, ChrCpu},
      {"translate", {"translate"}, BindReplace, false, TranslateCpu},
      {"md5", {"md5"}, BindFixed<Type::Varchar, Type::Varchar>, false, Md5Cpu},
      {"strlen", {"strlen", "octet_length"}, BindByteLength, false, ByteLengthCpu<1>},
      {"bit_length", {"bit_length"}, BindByteLength, false, ByteLengthCpu<8>},
  };
}

}  // namespace tessera
