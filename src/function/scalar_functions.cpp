// The scalar functions: for each, how a call binds (arity, coercions, result type), its
// CPU loop and, where it has one, its GPU expression and result range. The loops and the
// device expressions call the same core (function/date_core.hpp, scalar_core.hpp,
// string_ops.hpp).
#include "common/date.hpp"
#include "execution/expression_executor.hpp"
#include "function/function_registry.hpp"
#include "function/scalar_function_sets.hpp"
#include "function/scalar_ops.hpp"
#include "function/string_ops.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

namespace {

// ---------------------------------------------------------------------------------------
// Binding


Type BindSubstring(ScalarCall& c) {
  ExpectScalarArgs(c, 2, 3);
  c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::Varchar(), c.pos);
  for (size_t i = 1; i < c.args.size(); i++) c.args[i] = Binder::Coerce(std::move(c.args[i]), Type::BigInt(), c.pos);
  return Type::Varchar();
}

Type BindAbs(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  // abs(NULL) is a BIGINT NULL, as DuckDB types it.
  if (c.args[0]->type.id == TypeId::Null) c.args[0] = Binder::Coerce(std::move(c.args[0]), Type::BigInt(), c.pos);
  if (!c.args[0]->type.IsNumeric()) throw UserError(ErrorKind::Type, "abs() needs a numeric argument", c.pos);
  return c.args[0]->type;
}

// coalesce(a, ...); ifnull(a, b) is coalesce of exactly two.
Type BindCoalesce(ScalarCall& c) {
  if (c.written == "ifnull") ExpectScalarArgs(c, 2, 2);
  if (c.args.empty()) throw BindError("coalesce needs at least one argument", c.pos);
  Type t = c.args[0]->type;
  for (auto& a : c.args) t = Binder::CommonType(t, a->type, c.pos);
  for (auto& a : c.args) a = Binder::Coerce(std::move(a), t, c.pos);
  return t;
}

// ---------------------------------------------------------------------------------------
// CPU loops: rows with a NULL argument are already NULL in `out` (coalesce has none: the
// executor takes each row's first non-NULL argument, ScalarFunction::first_non_null).

// typeof(x): the name of x's type (DuckDB's; 'NULL' for an untyped NULL), for every row.
Type BindTypeof(ScalarCall& c) {
  ExpectScalarArgs(c, 1, 1);
  // Only the argument's type counts: as in DuckDB, a volatile argument (nextval) is not
  // evaluated.
  if (c.args[0]->CallsVolatile()) c.args[0] = MakeConstant(Value::Null(c.args[0]->type));
  return Type::Varchar();
}

void TypeofCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const StrRef name = out.heap().Add(args[0].type().ToString());
  uint8_t* ov = out.validity();
  for (uint32_t i = 0; i < n; i++) {
    ov[i] = 1;
    out.data<StrRef>()[i] = name;
  }
}

void SubstringCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const bool has_len = args.size() > 2;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    out.data<StrRef>()[i] = ops::Substring(args[0].data<StrRef>()[i], args[1].data<int64_t>()[i],
                                           has_len ? args[2].data<int64_t>()[i] : 0, has_len);
  }
  out.ShareStrings(args[0]);
}

template <bool Upper>
void CaseMapCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.clear();
    ops::AppendCaseMapped(args[0].data<StrRef>()[i], Upper, tmp);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

void LengthCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) out.data<int64_t>()[i] = ops::CharLength(args[0].data<StrRef>()[i]);
}

void ConcatCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    tmp.assign(args[0].data<StrRef>()[i]);
    tmp.append(args[1].data<StrRef>()[i]);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

void AbsCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  DispatchPhys(out.type().physical(), [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, int128_t>) {
      for (uint32_t i = 0; i < n; i++)
        if (!ops::AbsChecked(args[0].data<T>()[i], out.data<T>()[i]) && out.IsValid(i))
          throw UserError(ErrorKind::Conversion, "Overflow on abs(" + args[0].GetValue(i).ToString() + ")");
    }
  });
}

// ---------------------------------------------------------------------------------------
// GPU expressions and result ranges

const std::vector<ScalarFunction>& Table() {
  static std::vector<ScalarFunction> table = {
      {"substring", {"substring", "substr"}, BindSubstring, false, SubstringCpu},
      {"upper", {"upper", "ucase"}, BindFixed<Type::Varchar, Type::Varchar>, false, CaseMapCpu<true>},
      {"lower", {"lower", "lcase"}, BindFixed<Type::Varchar, Type::Varchar>, false, CaseMapCpu<false>},
      {"length", {"length", "len", "char_length", "character_length"}, BindFixed<Type::BigInt, Type::Varchar>, false, LengthCpu},
      {"||", {}, BindFixed<Type::Varchar, Type::Varchar, Type::Varchar>, false, ConcatCpu},
      {"abs", {"abs"}, BindAbs, false, AbsCpu},
      {"coalesce", {"coalesce", "ifnull"}, BindCoalesce, true, /*cpu: the executor (first_non_null)*/ nullptr, nullptr, nullptr, false,
       /*first_non_null=*/true},
      {"typeof", {"typeof"}, BindTypeof, true, TypeofCpu},
  };
  static const bool families = [] {
    for (auto* family : {TextFunctions, NumericFunctions, DateFunctions, TimestampFunctions, MathFunctions,
                         RegexFunctions, RandomFunctions, SequenceFunctions, BitwiseFunctions, FormatFunctions,
                         DistanceFunctions, EncodingFunctions})
      for (ScalarFunction& f : family()) table.push_back(std::move(f));
    return true;
  }();
  (void)families;
  return table;
}

}  // namespace

void ExpectScalarArgs(const ScalarCall& c, size_t lo, size_t hi) {
  if (c.args.size() < lo || c.args.size() > hi)
    throw BindError("wrong number of arguments to function " + std::string(c.written), c.pos);
}

std::span<const ScalarFunction> AllScalarFunctions() { return Table(); }

}  // namespace tessera
