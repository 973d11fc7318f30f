// format(fmt, ...) and printf(fmt, ...) (DuckDB's; the formatting itself is
// function/format_ops): a VARCHAR format string and any number of values of any type,
// passed as BIGINT (integers), DOUBLE (DOUBLE and DECIMAL, as DuckDB) or their text (every
// other type); a NULL anywhere makes the result NULL. CPU only.
#include <string>
#include <vector>

#include "common/error.hpp"
#include "function/format_ops.hpp"
#include "function/scalar_function_sets.hpp"
#include "planner/binder.hpp"

namespace tessera {

namespace {

Type BindFormat(ScalarCall& c) {
  if (c.args.empty() || (c.args[0]->type.id != TypeId::Varchar && c.args[0]->type.id != TypeId::Null)) {
    std::string types;
    for (auto& a : c.args) types += (types.empty() ? "" : ", ") + a->type.ToString();
    throw UserError(ErrorKind::Binder,
                    "No function matches the given name and argument types '" + std::string(c.written) + "(" + types +
                        ")'. You might need to add explicit type casts.\n\tCandidate functions:\n\t" +
                        std::string(c.written) + "(VARCHAR, [ANY...]) -> VARCHAR",
                    c.pos);
  }
  c.args[0] = MakeCast(std::move(c.args[0]), Type::Varchar());
  for (size_t k = 1; k < c.args.size(); k++) {
    const Type& t = c.args[k]->type;
    const Type to = t.IsIntegral() ? Type::BigInt()
                    : (t.id == TypeId::Double || t.id == TypeId::Decimal) ? Type::Double()
                                                                            : Type::Varchar();
    c.args[k] = MakeCast(std::move(c.args[k]), to);
  }
  return Type::Varchar();
}

template <bool Printf>
void FormatCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  std::vector<ops::FormatArg> values(args.size() - 1);
  std::string tmp;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    for (size_t k = 1; k < args.size(); k++) {
      ops::FormatArg& v = values[k - 1];
      switch (args[k].type().id) {
        case TypeId::BigInt: v.kind = ops::FormatArg::Int; v.i = args[k].data<int64_t>()[i]; break;
        case TypeId::Double: v.kind = ops::FormatArg::Float; v.d = args[k].data<double>()[i]; break;
        default: v.kind = ops::FormatArg::Str; v.s = args[k].data<StrRef>()[i]; break;
      }
    }
    tmp.clear();
    const StrRef fmt = args[0].data<StrRef>()[i];
    if (Printf) ops::AppendPrintfFormatted(fmt, values, tmp);
    else ops::AppendFmtFormatted(fmt, values, tmp);
    out.data<StrRef>()[i] = out.heap().Add(tmp);
  }
}

}  // namespace

std::vector<ScalarFunction> FormatFunctions() {
  return {
      {"format", {"format"}, BindFormat, false, FormatCpu<false>},
      {"printf", {"printf"}, BindFormat, false, FormatCpu<true>},
  };
}

}  // namespace tessera
