// Bitwise functions of the registry, with DuckDB's results, types and errors: the operators
// a & b, a | b, a << b, a >> b, ~a (bit_and, bit_or, shift_left, shift_right, bit_not), xor(a, b)
// and bit_count(a), over INTEGER and BIGINT (both arguments widened to the wider one;
// DECIMAL, DOUBLE and BOOLEAN are type errors, as in DuckDB). A left shift by a negative
// amount or by the type's width or more, of a negative number, or one that overflows is an
// error; a right shift by a negative amount or the width or more gives 0. bit_count is
// DuckDB's TINYINT, here INTEGER (tessera has no TINYINT; the values agree).
#include <bit>
#include <type_traits>

#include "common/error.hpp"
#include "execution/expression_executor.hpp"
#include "function/scalar_function_sets.hpp"

namespace tessera {

namespace {

// The common integer type of the arguments (a NULL literal takes the other's type).
Type BindIntegers(ScalarCall& c, size_t n) {
  ExpectScalarArgs(c, n, n);
  Type t = Type::Integer();
  for (auto& a : c.args) {
    NeedIntegerArg(c, a->type, "bitwise operations take INTEGER or BIGINT arguments (add an explicit cast)");
    if (a->type.id == TypeId::BigInt) t = Type::BigInt();
  }
  for (auto& a : c.args) a = Binder::Coerce(std::move(a), t, c.pos);
  return t;
}
Type BindUnary(ScalarCall& c) { return BindIntegers(c, 1); }
Type BindBinary(ScalarCall& c) { return BindIntegers(c, 2); }
Type BindBitCount(ScalarCall& c) {
  BindIntegers(c, 1);
  return Type::Integer();
}

enum class Op { And, Or, Xor, Shl, Shr };

template <class T>
T ShiftLeft(T a, T s) {
  constexpr T bits = sizeof(T) * 8;
  if (s < 0) throw UserError(ErrorKind::Conversion, "Cannot left-shift by negative number " + std::to_string(s));
  if (s >= bits) throw UserError(ErrorKind::Conversion, "Left-shift value " + std::to_string(s) + " is out of range");
  if (a < 0) throw UserError(ErrorKind::Conversion, "Cannot left-shift negative number " + std::to_string(a));
  if (s == 0) return a;
  const T limit = (T)((std::make_unsigned_t<T>)1 << (bits - s - 1));
  if (a >= limit)
    throw UserError(ErrorKind::Conversion,
                    "Overflow in left shift (" + std::to_string(a) + " << " + std::to_string(s) + ")");
  return (T)(a << s);
}
template <class T>
T ShiftRight(T a, T s) {
  constexpr T bits = sizeof(T) * 8;
  return s < 0 || s >= bits ? T(0) : (T)(a >> s);
}

template <Op O>
void BinaryCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  auto run = [&]<class T>() {
    const T* a = args[0].data<T>();
    const T* b = args[1].data<T>();
    T* r = out.data<T>();
    for (uint32_t i = 0; i < n; i++) {
      if (!out.IsValid(i)) continue;
      if constexpr (O == Op::And) r[i] = a[i] & b[i];
      else if constexpr (O == Op::Or) r[i] = a[i] | b[i];
      else if constexpr (O == Op::Xor) r[i] = a[i] ^ b[i];
      else if constexpr (O == Op::Shl) r[i] = ShiftLeft<T>(a[i], b[i]);
      else r[i] = ShiftRight<T>(a[i], b[i]);
    }
  };
  if (out.type().id == TypeId::BigInt) run.template operator()<int64_t>();
  else run.template operator()<int32_t>();
}

void NotCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  auto run = [&]<class T>() {
    for (uint32_t i = 0; i < n; i++)
      if (out.IsValid(i)) out.data<T>()[i] = (T)~args[0].data<T>()[i];
  };
  if (out.type().id == TypeId::BigInt) run.template operator()<int64_t>();
  else run.template operator()<int32_t>();
}

void BitCountCpu(std::vector<Vector>& args, Vector& out, uint32_t n) {
  const bool wide = args[0].type().id == TypeId::BigInt;
  for (uint32_t i = 0; i < n; i++) {
    if (!out.IsValid(i)) continue;
    out.data<int32_t>()[i] = wide ? std::popcount((uint64_t)args[0].data<int64_t>()[i])
                                  : std::popcount((uint32_t)args[0].data<int32_t>()[i]);
  }
}

}  // namespace

std::vector<ScalarFunction> BitwiseFunctions() {
  return {
      {"&", {"&"}, BindBinary, false, BinaryCpu<Op::And>},
      {"|", {"|"}, BindBinary, false, BinaryCpu<Op::Or>},
      {"xor", {"xor"}, BindBinary, false, BinaryCpu<Op::Xor>},
      {"<<", {"<<"}, BindBinary, false, BinaryCpu<Op::Shl>},
      {">>", {">>"}, BindBinary, false, BinaryCpu<Op::Shr>},
      {"~", {"~"}, BindUnary, false, NotCpu},
      {"bit_count", {"bit_count"}, BindBitCount, false, BitCountCpu},
  };
}

}  // namespace tessera
