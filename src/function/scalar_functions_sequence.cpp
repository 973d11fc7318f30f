// nextval('seq') and currval('seq'): the next value of a sequence (moving it) and the value
// nextval gave last, BIGINT as in DuckDB. The binder resolves the sequence, whose name must
// be a constant (DuckDB's rule too), once per call (BoundExpr::sequence, planner/
// bind_expression.cpp); the loops read the position behind it (storage/sequence.hpp). Both
// are volatile: never folded, evaluated once per row (and nextval differs per row); no GPU
// definition, so a pipeline calling one stays on the CPU.
#include "function/scalar_function_sets.hpp"
#include "storage/sequence.hpp"

namespace tessera {

namespace {

void NextValCpu(const BoundExpr& call, std::vector<Vector>&, Vector& out, uint32_t n) {
  int64_t* r = out.data<int64_t>();
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) r[i] = call.sequence->counter->Next(call.sequence->def);
}

void CurrValCpu(const BoundExpr& call, std::vector<Vector>&, Vector& out, uint32_t n) {
  int64_t* r = out.data<int64_t>();
  for (uint32_t i = 0; i < n; i++)
    if (out.IsValid(i)) r[i] = call.sequence->counter->Current();
}

void Unbound(std::vector<Vector>&, Vector&, uint32_t) { throw InternalError("a sequence function without its sequence"); }

}  // namespace

std::vector<ScalarFunction> SequenceFunctions() {
  ScalarFunction nextval{"nextval", {"nextval"}, BindFixed<Type::BigInt, Type::Varchar>, false, Unbound};
  ScalarFunction currval{"currval", {"currval"}, BindFixed<Type::BigInt, Type::Varchar>, false, Unbound};
  nextval.is_volatile = currval.is_volatile = true;
  nextval.reads_sequence = currval.reads_sequence = true;
  nextval.cpu_call = NextValCpu;
  currval.cpu_call = CurrValCpu;
  return {std::move(nextval), std::move(currval)};
}

}  // namespace tessera
