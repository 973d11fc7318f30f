#include "execution/expression_executor.hpp"

#include "function/arith_errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/decimal.hpp"
#include "function/function_registry.hpp"
#include "function/like_pattern.hpp"
#include "function/scalar_ops.hpp"
#include "function/string_ops.hpp"

namespace tessera {

namespace {

uint32_t Cap(uint32_t n) { return std::max<uint32_t>(n, 1); }

// Marks out[i] NULL where any of the given vectors is NULL at i.
void MergeNulls(Vector& out, uint32_t n, std::initializer_list<const Vector*> in) {
  for (const Vector* v : in) {
    if (!v->has_nulls()) continue;
    uint8_t* o = out.validity();
    const uint8_t* s = v->validity_or_null();
    for (uint32_t i = 0; i < n; i++) o[i] &= s[i];
  }
}

int CompareOpCode(ast::Op op) {
  switch (op) {
    case ast::Op::Eq: return 0;
    case ast::Op::Ne: return 1;
    case ast::Op::Lt: return 2;
    case ast::Op::Le: return 3;
    case ast::Op::Gt: return 4;
    default: return 5;
  }
}

// Reads an integral-physical value (bool/int/decimal) as int128.
inline int128_t ReadInt(const Vector& v, uint32_t i) {
  switch (v.type().physical()) {
    case PhysType::Bool: return v.data<uint8_t>()[i];
    case PhysType::I32: return v.data<int32_t>()[i];
    case PhysType::I64: return v.data<int64_t>()[i];
    case PhysType::I128: return v.data<int128_t>()[i];
    default: return 0;
  }
}
inline void WriteInt(Vector& v, uint32_t i, int128_t x) {
  switch (v.type().physical()) {
    case PhysType::Bool: v.data<uint8_t>()[i] = x != 0; break;
    case PhysType::I32: v.data<int32_t>()[i] = (int32_t)x; break;
    case PhysType::I64: v.data<int64_t>()[i] = (int64_t)x; break;
    case PhysType::I128: v.data<int128_t>()[i] = x; break;
    default: break;
  }
}

[[noreturn]] void CastFail(const Value& v, const Type& t) {
  throw UserError(ErrorKind::Conversion, "could not convert " + v.type().ToString() + " value '" +
                                             v.ToString() + "' to " + t.ToString());
}

}  // namespace

namespace {

// Casts between exact types (BOOLEAN, INTEGER, BIGINT, DECIMAL) a vector at a time: the
// power of ten and the limit are computed once, and W is 64 bits when source, target and
// scale factor all fit there (DECIMAL(p <= 18), INTEGER, BIGINT), else 128 bits.
// Digits left of the point a value of an exact type can have (INTEGER: 10, BIGINT: 19).
int IntegerDigits(const Type& t) {
  switch (t.id) {
    case TypeId::Boolean: return 1;
    case TypeId::Integer: return 10;
    case TypeId::BigInt: return 19;
    default: return t.precision - t.scale;
  }
}

template <class S, class D, class W>
void CastExactLoop(const Vector& src, Vector& out, uint32_t n, int fs, int ts, const Type& to) {
  const S* x = src.data<S>();
  D* r = out.data<D>();
  const bool up = ts >= fs;
  const W p = (W)Pow10(up ? ts - fs : fs - ts);
  if (up && to.id == TypeId::Decimal && IntegerDigits(src.type()) <= to.precision - to.scale) {
    // Widening (DECIMAL(15,2) to DECIMAL(31,2) before a multiply): every value fits, no
    // check; NULL slots are scaled too, harmlessly.
    for (uint32_t i = 0; i < n; i++) r[i] = (D)((W)x[i] * p);
    return;
  }
  const bool decimal = to.id == TypeId::Decimal;
  // A 64-bit BIGINT target needs no limit: the 64-bit arithmetic fails on overflow itself.
  const bool check = sizeof(W) == 16 || to.id != TypeId::BigInt;
  const W lim = check ? (W)ops::ExactCastLimit(to) : 0;
  const bool nulls = src.has_nulls();
  for (uint32_t i = 0; i < n; i++) {
    if (nulls && !src.IsValid(i)) continue;
    W v;
    if (!ops::RescaleByChecked((W)x[i], p, up, v) || (check && !ops::WithinCastLimit(v, lim, decimal)))
      CastFail(src.GetValue(i), to);
    r[i] = (D)v;
  }
}

template <class S>
void CastExactFrom(const Vector& src, Vector& out, uint32_t n, int fs, int ts, const Type& to) {
  const bool narrow = sizeof(S) <= 8 && to.physical() != PhysType::I128 && std::abs(ts - fs) <= 18;
  switch (to.physical()) {
    case PhysType::I32:
      narrow ? CastExactLoop<S, int32_t, int64_t>(src, out, n, fs, ts, to)
             : CastExactLoop<S, int32_t, int128_t>(src, out, n, fs, ts, to);
      break;
    case PhysType::I64:
      narrow ? CastExactLoop<S, int64_t, int64_t>(src, out, n, fs, ts, to)
             : CastExactLoop<S, int64_t, int128_t>(src, out, n, fs, ts, to);
      break;
    case PhysType::I128: CastExactLoop<S, int128_t, int128_t>(src, out, n, fs, ts, to); break;
    default: throw InternalError("exact cast to " + to.ToString());
  }
}

template <class S>
void CastToDoubleLoop(const Vector& src, Vector& out, uint32_t n, int fs) {
  const S* x = src.data<S>();
  double* r = out.data<double>();
  const int128_t p = Pow10(fs);
  const double pd = ops::Pow10Double(fs);
  for (uint32_t i = 0; i < n; i++) r[i] = ops::DecimalToDoubleBy((int128_t)x[i], p, pd);
  if (src.has_nulls())
    for (uint32_t i = 0; i < n; i++)
      if (!src.IsValid(i)) r[i] = 0;  // NULL slots hold 0, as everywhere
}

}  // namespace

void CastVector(const Vector& src, Vector& out, uint32_t n) {
  const Type& from = src.type();
  const Type& to = out.type();
  MergeNulls(out, n, {&src});
  auto valid = [&](uint32_t i) { return src.IsValid(i); };
  bool from_int = from.id == TypeId::Integer || from.id == TypeId::BigInt ||
                  from.id == TypeId::Decimal || from.id == TypeId::Boolean;
  bool to_int = to.id == TypeId::Integer || to.id == TypeId::BigInt || to.id == TypeId::Decimal;
  int fs = from.id == TypeId::Decimal ? from.scale : 0;
  if (from_int && to_int) {
    int ts = to.id == TypeId::Decimal ? to.scale : 0;
    switch (from.physical()) {
      case PhysType::Bool: CastExactFrom<uint8_t>(src, out, n, fs, ts, to); break;
      case PhysType::I32: CastExactFrom<int32_t>(src, out, n, fs, ts, to); break;
      case PhysType::I64: CastExactFrom<int64_t>(src, out, n, fs, ts, to); break;
      default: CastExactFrom<int128_t>(src, out, n, fs, ts, to); break;
    }
    return;
  }
  if (from_int && to.id == TypeId::Double) {
    switch (from.physical()) {
      case PhysType::Bool: CastToDoubleLoop<uint8_t>(src, out, n, fs); break;
      case PhysType::I32: CastToDoubleLoop<int32_t>(src, out, n, fs); break;
      case PhysType::I64: CastToDoubleLoop<int64_t>(src, out, n, fs); break;
      default: CastToDoubleLoop<int128_t>(src, out, n, fs); break;
    }
    return;
  }
  if (from_int && to.id == TypeId::Boolean) {
    for (uint32_t i = 0; i < n; i++) out.data<uint8_t>()[i] = valid(i) && ReadInt(src, i) != 0;
    return;
  }
  // Everything else (strings, dates, doubles to exact types) goes through Value.
  for (uint32_t i = 0; i < n; i++) {
    if (!valid(i)) continue;
    out.SetValue(i, src.GetValue(i).CastTo(to));
  }
}

void TryCastVector(const Vector& src, Vector& out, uint32_t n) {
  try {
    CastVector(src, out, n);
    return;
  } catch (const UserError&) {
  }
  // Some row cannot convert: row by row, with CAST's rule, a failing row NULL.
  Vector one(src.type(), 1), result(out.type(), 1);
  const uint32_t first = 0;
  const size_t width = (size_t)out.type().width();
  auto set_null = [&](uint32_t i) {  // NULL slots hold 0, as everywhere
    std::memset(out.raw() + i * width, 0, width);
    out.SetNull(i);
  };
  for (uint32_t i = 0; i < n; i++) {
    if (!src.IsValid(i)) {
      set_null(i);
      continue;
    }
    CopyRows(src, &i, 1, one, 0);
    result.Init(out.type(), 1);
    try {
      CastVector(one, result, 1);
    } catch (const UserError&) {
      set_null(i);
      continue;
    }
    CopyRows(result, &first, 1, out, i);
  }
}

namespace {

// a <opc> b row by row; `ca` / `cb`: that operand is a constant held in its row 0 only.
template <class T>
void CompareLoop(int opc, const Vector& a, const Vector& b, bool ca, bool cb, uint8_t* r, uint32_t n) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  auto run = [&]<int OP>() {
    if (cb && !ca) {
      const T c = y[0];
      for (uint32_t i = 0; i < n; i++) r[i] = ops::Compare<T>(OP, x[i], c);
    } else if (ca && !cb) {
      const T c = x[0];
      for (uint32_t i = 0; i < n; i++) r[i] = ops::Compare<T>(OP, c, y[i]);
    } else {
      for (uint32_t i = 0; i < n; i++) r[i] = ops::Compare<T>(OP, x[ca ? 0 : i], y[cb ? 0 : i]);
    }
  };
  switch (opc) {  // the operator outside the loop
    case ops::kEq: run.template operator()<ops::kEq>(); break;
    case ops::kNe: run.template operator()<ops::kNe>(); break;
    case ops::kLt: run.template operator()<ops::kLt>(); break;
    case ops::kLe: run.template operator()<ops::kLe>(); break;
    case ops::kGt: run.template operator()<ops::kGt>(); break;
    default: run.template operator()<ops::kGe>(); break;
  }
}

// out's rows NULL where the operand is (a constant operand: all of them or none).
void MergeOperandNulls(Vector& out, uint32_t n, const Vector& v, bool is_const) {
  if (!is_const) MergeNulls(out, n, {&v});
  else if (!v.IsValid(0)) std::memset(out.validity(), 0, Cap(n));
}

[[noreturn]] void Overflow(const char* what, const Type& t) {
  throw UserError(ErrorKind::Conversion, ops::OverflowMessage(what, t));
}

// +, - and * over whole vectors: the loop only notes whether some row failed (the 64-bit
// or 128-bit result overflowed, or a DECIMAL result left its precision: |r| < `limit`,
// 0 for no such check); only then are the rows looked at again, in order, for the first
// one that is not NULL, whose error is raised (the operation's overflow before the
// precision's, as the checks come). A constant operand (`ca`, `cb`) is read once.
template <class T, class F>
void CheckedLoop(F f, const char* what, const Vector& a, const Vector& b, bool ca, bool cb, Vector& out,
                 uint32_t n, T limit) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* r = out.data<T>();
  bool bad = false;
  auto run = [&]<bool CA, bool CB>() {
    const T x0 = x[0], y0 = y[0];
    for (uint32_t i = 0; i < n; i++) {
      bad |= !f(CA ? x0 : x[i], CB ? y0 : y[i], r[i]);
      if constexpr (!std::is_same_v<T, double>)
        if (limit != 0) bad |= !ops::WithinPrecision(r[i], limit);
    }
  };
  if (ca && cb) run.template operator()<true, true>();
  else if (ca) run.template operator()<true, false>();
  else if (cb) run.template operator()<false, true>();
  else run.template operator()<false, false>();
  if (!bad) return;
  auto valid = [&](uint32_t i) { return a.IsValid(ca ? 0 : i) && b.IsValid(cb ? 0 : i); };
  for (uint32_t i = 0; i < n; i++) {
    T t;
    if (!f(x[ca ? 0 : i], y[cb ? 0 : i], t) && valid(i)) Overflow(what, out.type());
  }
  if constexpr (!std::is_same_v<T, double>)
    for (uint32_t i = 0; i < n; i++)
      if (limit != 0 && !ops::WithinPrecision(r[i], limit) && valid(i)) Overflow("arithmetic", out.type());
}

template <class T>
void ArithLoop(ast::Op op, const Vector& a, const Vector& b, bool ca, bool cb, Vector& out, uint32_t n, T limit) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* r = out.data<T>();
  auto valid = [&](uint32_t i) { return a.IsValid(ca ? 0 : i) && b.IsValid(cb ? 0 : i); };
  switch (op) {
    case ast::Op::Add:
      CheckedLoop<T>([](T p, T q, T& t) { return ops::AddChecked(p, q, t); }, "addition", a, b, ca, cb, out, n, limit);
      break;
    case ast::Op::Sub:
      CheckedLoop<T>([](T p, T q, T& t) { return ops::SubChecked(p, q, t); }, "subtraction", a, b, ca, cb, out, n, limit);
      break;
    case ast::Op::Mul:
      CheckedLoop<T>([](T p, T q, T& t) { return ops::MulChecked(p, q, t); }, "multiplication", a, b, ca, cb, out, n,
                     limit);
      break;
    case ast::Op::Mod:
    case ast::Op::IntDiv:
      for (uint32_t i = 0; i < n; i++) {
        const T p = x[ca ? 0 : i], q = y[cb ? 0 : i];
        bool overflow = false;
        bool ok = op == ast::Op::Mod ? ops::Mod(p, q, r[i], overflow) : ops::IntDiv(p, q, r[i], overflow);
        if (!ok) out.SetNull(i);
        else if (overflow && valid(i))
          throw UserError(ErrorKind::Conversion, "Overflow in division of " + a.GetValue(ca ? 0 : i).ToString() +
                                                     " / " + b.GetValue(cb ? 0 : i).ToString());
      }
      break;
    case ast::Op::Div:
      if constexpr (std::is_same_v<T, double>) {
        for (uint32_t i = 0; i < n; i++)
          if (!ops::Div(x[ca ? 0 : i], y[cb ? 0 : i], r[i])) out.SetNull(i);
      }
      break;
    default: throw InternalError("bad arithmetic operator");
  }
}

// a <op> b; `ca` / `cb`: that operand is a constant held in its row 0 only.
void EvalArith(const BoundExpr& e, const Vector& a, const Vector& b, bool ca, bool cb, Vector& out, uint32_t n) {
  MergeOperandNulls(out, n, a, ca);
  MergeOperandNulls(out, n, b, cb);
  if (a.type().id == TypeId::Date && b.type().id == TypeId::Date) {  // DATE - DATE (days)
    for (uint32_t i = 0; i < n; i++)
      out.data<int64_t>()[i] = (int64_t)a.data<int32_t>()[ca ? 0 : i] - b.data<int32_t>()[cb ? 0 : i];
    return;
  }
  // A DECIMAL result must fit its precision (DECIMAL(18, s) of 64 bits too: the binder
  // narrows wider results of narrow operands to it, as DuckDB does), checked in the same
  // loop. DECIMAL(p <= 18) is 64-bit (or 32-bit) arithmetic throughout.
  const bool decimal = out.type().id == TypeId::Decimal;
  switch (out.type().physical()) {
    case PhysType::I32:
      ArithLoop<int32_t>(e.op, a, b, ca, cb, out, n, decimal ? (int32_t)Pow10(out.type().precision) : 0);
      break;
    case PhysType::I64:
      ArithLoop<int64_t>(e.op, a, b, ca, cb, out, n, decimal ? (int64_t)Pow10(out.type().precision) : 0);
      break;
    case PhysType::I128:
      ArithLoop<int128_t>(e.op, a, b, ca, cb, out, n, decimal ? Pow10(out.type().precision) : 0);
      break;
    case PhysType::F64: ArithLoop<double>(e.op, a, b, ca, cb, out, n, 0.0); break;
    default: throw InternalError("arithmetic on " + out.type().ToString());
  }
}

// An operand of arithmetic or a comparison, as bits: a CAST that changes no bit (a DECIMAL
// widened at the same scale in the same physical width, DECIMAL(15,2) to DECIMAL(18,2)) is
// its operand itself; a constant is evaluated into one row (`is_const`). The vector's type
// may be the narrower one: the caller reads only its physical values and validity.
const Vector& OperandBits(const BoundExpr& e, const DataChunk& in, Vector& scratch, bool& is_const) {
  const BoundExpr* x = &e;
  while (x->kind == BExpr::Cast && !x->negated && x->type.id == TypeId::Decimal &&
         x->children[0]->type.id == TypeId::Decimal && x->children[0]->type.scale == x->type.scale &&
         x->children[0]->type.precision <= x->type.precision &&
         x->children[0]->type.physical() == x->type.physical())
    x = x->children[0].get();
  is_const = x->kind == BExpr::Constant;
  if (is_const) {
    scratch.Init(x->type, 1);
    if (x->value.is_null()) scratch.SetNull(0);
    else scratch.SetValue(0, x->value);
    return scratch;
  }
  return EvaluateOperand(*x, in, scratch);
}

}  // namespace

void CopyRows(const Vector& src, const uint32_t* sel, uint32_t n, Vector& dst, uint32_t dst_off) {
  size_t w = (size_t)src.type().width();
  const uint8_t* s = src.raw();
  uint8_t* d = dst.raw() + dst_off * w;
  if (!sel) {
    std::memcpy(d, s, n * w);
  } else {
    switch (w) {
      case 1: for (uint32_t i = 0; i < n; i++) d[i] = s[sel[i]]; break;
      case 4: for (uint32_t i = 0; i < n; i++) ((uint32_t*)d)[i] = ((const uint32_t*)s)[sel[i]]; break;
      case 8: for (uint32_t i = 0; i < n; i++) ((uint64_t*)d)[i] = ((const uint64_t*)s)[sel[i]]; break;
      case 16:  // strings (StrRef) and 128-bit integers: a fixed-size copy, not a memcpy call a row
        for (uint32_t i = 0; i < n; i++) std::memcpy(d + (size_t)i * 16, s + (size_t)sel[i] * 16, 16);
        break;
      default: for (uint32_t i = 0; i < n; i++) std::memcpy(d + i * w, s + sel[i] * w, w);
    }
  }
  if (src.has_nulls()) {
    uint8_t* dv = dst.validity();
    const uint8_t* sv = src.validity_or_null();
    for (uint32_t i = 0; i < n; i++) dv[dst_off + i] = sv[sel ? sel[i] : i];
  } else if (dst.has_nulls()) {
    uint8_t* dv = dst.validity();
    for (uint32_t i = 0; i < n; i++) dv[dst_off + i] = 1;
  }
  if (src.type().physical() == PhysType::Str) dst.ShareStrings(src);
}

const Vector& EvaluateOperand(const BoundExpr& e, const DataChunk& in, Vector& scratch) {
  if (e.kind == BExpr::Column && e.index >= 0 && (size_t)e.index < in.cols.size() &&
      in.cols[e.index].type() == e.type)
    return in.cols[e.index];
  Evaluate(e, in, scratch);
  return scratch;
}

namespace {
void CollectColumnRefs(const BoundExpr& e, std::vector<uint8_t>& used) {
  if (e.kind == BExpr::Column && e.index >= 0 && (size_t)e.index < used.size()) used[e.index] = 1;
  for (auto& c : e.children) CollectColumnRefs(*c, used);
}
}  // namespace

// Whether evaluating `e` can raise an error on some row (a cast, checked arithmetic, a
// function): only then do CASE and COALESCE evaluate it over their rows alone; otherwise
// over the whole chunk, which costs no gather.
static bool MayFail(const BoundExpr& e) {
  switch (e.kind) {
    case BExpr::Column:
    case BExpr::Constant:
    case BExpr::Compare:
    case BExpr::And:
    case BExpr::Or:
    case BExpr::Not:
    case BExpr::IsNull:
    case BExpr::Case:
      break;
    case BExpr::Cast:
      if (!e.negated) return true;  // TRY_CAST never fails
      break;
    default:
      return true;
  }
  for (auto& c : e.children)
    if (MayFail(*c)) return true;
  return false;
}

// `e` over rows `rows` of `in` (ascending): out's row j is row rows[j]'s value. All rows:
// `in` itself; fewer: a chunk of those rows, holding only the columns `e` reads.
void EvaluateRows(const BoundExpr& e, const DataChunk& in, const std::vector<uint32_t>& rows, Vector& out) {
  if (rows.size() == in.size) return Evaluate(e, in, out);
  std::vector<uint8_t> used(in.cols.size(), 0);
  CollectColumnRefs(e, used);
  DataChunk sub;
  sub.cols.resize(in.cols.size());
  sub.size = (uint32_t)rows.size();
  for (size_t c = 0; c < in.cols.size(); c++) {
    if (!used[c]) continue;
    sub.cols[c].Init(in.cols[c].type(), Cap(sub.size));
    CopyRows(in.cols[c], rows.data(), sub.size, sub.cols[c], 0);
  }
  Evaluate(e, sub, out);
}

void Evaluate(const BoundExpr& e, const DataChunk& in, Vector& out) {
  const uint32_t n = in.size;
  out.Init(e.type, Cap(n));
  switch (e.kind) {
    case BExpr::Column: {
      TESSERA_ASSERT(e.index >= 0 && (size_t)e.index < in.cols.size(), "unresolved column " + e.ToString());
      CopyRows(in.cols[e.index], nullptr, n, out, 0);
      return;
    }
    case BExpr::Constant: {
      if (e.value.is_null()) {
        uint8_t* v = out.validity();
        std::memset(v, 0, Cap(n));
        return;
      }
      out.SetValue(0, e.value);
      size_t w = (size_t)e.type.width();
      for (uint32_t i = 1; i < n; i++) std::memcpy(out.raw() + i * w, out.raw(), w);
      return;
    }
    case BExpr::Cast: {
      Vector scratch;
      const Vector& c = EvaluateOperand(*e.children[0], in, scratch);
      if (e.negated) return TryCastVector(c, out, n);
      CastVector(c, out, n);
      return;
    }
    case BExpr::Compare: {
      Vector sa, sb;
      bool ca = false, cb = false;
      const Vector& a = OperandBits(*e.children[0], in, sa, ca);
      const Vector& b = OperandBits(*e.children[1], in, sb, cb);
      MergeOperandNulls(out, n, a, ca);
      MergeOperandNulls(out, n, b, cb);
      int opc = CompareOpCode(e.op);
      uint8_t* r = out.data<uint8_t>();
      DispatchPhys(a.type().physical(), [&]<class T>() { CompareLoop<T>(opc, a, b, ca, cb, r, n); });
      return;
    }
    case BExpr::And:
    case BExpr::Or: {
      bool is_and = e.kind == BExpr::And;
      uint8_t* r = out.data<uint8_t>();
      std::vector<uint8_t> null(n, 0);
      std::fill(r, r + n, is_and ? 1 : 0);
      for (auto& c : e.children) {
        Vector sv;
        const Vector& v = EvaluateOperand(*c, in, sv);
        const uint8_t* x = v.data<uint8_t>();
        if (!v.has_nulls()) {  // a term without NULLs: plain AND / OR (a FALSE / TRUE also clears NULL)
          uint8_t* nl = null.data();
          if (is_and)
            for (uint32_t i = 0; i < n; i++) {
              const uint8_t t = x[i] != 0;
              r[i] &= t;
              nl[i] &= t;
            }
          else
            for (uint32_t i = 0; i < n; i++) {
              const uint8_t t = x[i] != 0;
              r[i] |= t;
              nl[i] &= !t;
            }
          continue;
        }
        for (uint32_t i = 0; i < n; i++) {
          bool valid = v.IsValid(i);
          if (is_and) {
            if (valid && !x[i]) { r[i] = 0; null[i] = 0; }
            else if (!valid && r[i]) null[i] = 1;
          } else {
            if (valid && x[i]) { r[i] = 1; null[i] = 0; }
            else if (!valid && !r[i]) null[i] = 1;
          }
        }
      }
      for (uint32_t i = 0; i < n; i++)
        if (null[i] && (is_and ? r[i] : !r[i])) out.SetNull(i);
      return;
    }
    case BExpr::Not: {
      Vector scratch;
      const Vector& c = EvaluateOperand(*e.children[0], in, scratch);
      MergeNulls(out, n, {&c});
      for (uint32_t i = 0; i < n; i++) out.data<uint8_t>()[i] = !c.data<uint8_t>()[i];
      return;
    }
    case BExpr::IsNull: {
      Vector scratch;
      const Vector& c = EvaluateOperand(*e.children[0], in, scratch);
      for (uint32_t i = 0; i < n; i++) out.data<uint8_t>()[i] = c.IsValid(i) == e.negated;
      return;
    }
    case BExpr::Neg: {
      Vector scratch;
      const Vector& c = EvaluateOperand(*e.children[0], in, scratch);
      MergeNulls(out, n, {&c});
      DispatchPhys(e.type.physical(), [&]<class T>() {
        if constexpr (!std::is_same_v<T, StrRef> && !std::is_same_v<T, uint8_t>) {
          for (uint32_t i = 0; i < n; i++)
            if (!ops::NegChecked(c.data<T>()[i], out.data<T>()[i]) && c.IsValid(i)) Overflow("negation", e.type);
        }
      });
      return;
    }
    case BExpr::Arith: {
      Vector sa, sb;
      bool ca = false, cb = false;
      const Vector& a = OperandBits(*e.children[0], in, sa, ca);
      const Vector& b = OperandBits(*e.children[1], in, sb, cb);
      EvalArith(e, a, b, ca, cb, out, n);
      return;
    }
    case BExpr::Like: {
      std::shared_ptr<const ops::LikePattern> local;
      const ops::LikePattern* pat = e.like.get();
      if (!pat) {
        local = CompileLikePattern(e);
        pat = local.get();
      }
      if (pat) {  // a constant pattern: compiled once (like_pattern.hpp), no copies
        Vector sa;
        const Vector& a = EvaluateOperand(*e.children[0], in, sa);
        MergeNulls(out, n, {&a});
        const StrRef* x = a.data<StrRef>();
        uint8_t* r = out.data<uint8_t>();
        const bool neg = e.negated;
        if (!a.has_nulls()) {
          for (uint32_t i = 0; i < n; i++) r[i] = pat->Match(x[i].data(), x[i].size()) != neg;
        } else {
          for (uint32_t i = 0; i < n; i++)
            if (a.IsValid(i)) r[i] = pat->Match(x[i].data(), x[i].size()) != neg;
        }
        return;
      }
      Vector a, p, x;
      Evaluate(*e.children[0], in, a);
      Evaluate(*e.children[1], in, p);
      const bool has_escape = e.children.size() > 2;
      if (has_escape) Evaluate(*e.children[2], in, x);
      MergeNulls(out, n, {&a, &p});
      if (has_escape) MergeNulls(out, n, {&x});
      for (uint32_t i = 0; i < n; i++) {
        if (!out.IsValid(i)) continue;
        const int escape = has_escape ? ops::LikeEscapeByte(x.data<StrRef>()[i]) : -1;
        out.data<uint8_t>()[i] = ops::LikeMatch(a.data<StrRef>()[i], p.data<StrRef>()[i], escape) != e.negated;
      }
      return;
    }
    case BExpr::InList: {
      Vector sx;
      const Vector& x = EvaluateOperand(*e.children[0], in, sx);
      uint8_t* r = out.data<uint8_t>();
      if (std::all_of(e.children.begin() + 1, e.children.end(),
                      [](const BoundExprPtr& c) { return c->kind == BExpr::Constant; })) {
        // Constant items, read once: a row is TRUE when it equals one, NULL when it is
        // NULL or equals none and some item is NULL, else FALSE.
        bool null_item = false;
        for (size_t k = 1; k < e.children.size(); k++) null_item |= e.children[k]->value.is_null();
        DispatchPhys(x.type().physical(), [&]<class T>() {
          std::vector<T> items;
          std::vector<Vector> holders;  // the items' physical values (strings kept alive)
          holders.reserve(e.children.size());
          for (size_t k = 1; k < e.children.size(); k++) {
            if (e.children[k]->value.is_null()) continue;
            holders.emplace_back(e.children[k]->type, 1);
            holders.back().SetValue(0, e.children[k]->value);
            items.push_back(holders.back().template data<T>()[0]);
          }
          const T* a = x.data<T>();
          for (uint32_t i = 0; i < n; i++) {
            bool hit = false;
            for (const T& it : items)
              if (ops::Equals(a[i], it)) {
                hit = true;
                break;
              }
            r[i] = hit;
          }
        });
        for (uint32_t i = 0; i < n; i++) {
          if (!x.IsValid(i) || (!r[i] && null_item)) out.SetNull(i);
          else if (e.negated) r[i] = !r[i];
        }
        return;
      }
      std::vector<uint8_t> saw_null(n, 0);
      std::fill(r, r + n, 0);
      for (size_t k = 1; k < e.children.size(); k++) {
        Vector y;
        Evaluate(*e.children[k], in, y);
        DispatchPhys(x.type().physical(), [&]<class T>() {
          const T* a = x.data<T>();
          const T* b = y.data<T>();
          for (uint32_t i = 0; i < n; i++) {
            if (!y.IsValid(i)) saw_null[i] = 1;
            else if (ops::Equals(a[i], b[i])) r[i] = 1;
          }
        });
      }
      for (uint32_t i = 0; i < n; i++) {
        if (!x.IsValid(i) || (!r[i] && saw_null[i])) out.SetNull(i);
        else if (e.negated) r[i] = !r[i];
      }
      return;
    }
    case BExpr::Case: {
      // As DuckDB: a WHEN is evaluated only for the rows no earlier WHEN took, and a THEN
      // (or the ELSE) only for the rows it gives the result of, so a branch that would fail
      // elsewhere (CASE WHEN s ~ '^[0-9]+$' THEN CAST(s AS INTEGER) END) does not.
      uint8_t* ov = out.validity();
      std::fill(ov, ov + n, 1);
      const size_t pairs = (e.children.size() - 1) / 2, w = (size_t)e.type.width();
      std::vector<uint32_t> open(n);  // rows no WHEN has taken yet
      for (uint32_t i = 0; i < n; i++) open[i] = i;
      for (size_t k = 0; k <= pairs && !open.empty(); k++) {
        const bool is_else = k == pairs;
        std::vector<uint32_t> take;  // rows of `in` this branch gives the result of
        if (!is_else) {
          Vector c;
          const BoundExpr& when = *e.children[2 * k];
          const bool all = !MayFail(when);  // c's rows are in's, else open's
          if (all) Evaluate(when, in, c);
          else EvaluateRows(when, in, open, c);
          std::vector<uint32_t> rest;
          for (uint32_t j = 0; j < open.size(); j++) {
            const uint32_t r = all ? open[j] : j;
            (c.IsValid(r) && c.data<uint8_t>()[r] ? take : rest).push_back(open[j]);
          }
          open.swap(rest);
        } else {
          take.swap(open);
        }
        if (take.empty()) continue;
        Vector v;
        const BoundExpr& then = *e.children[is_else ? e.children.size() - 1 : 2 * k + 1];
        const bool all = !MayFail(then);  // v's rows are in's, else take's
        if (all) Evaluate(then, in, v);
        else EvaluateRows(then, in, take, v);
        for (uint32_t j = 0; j < take.size(); j++) {
          const uint32_t r = all ? take[j] : j;
          std::memcpy(out.raw() + take[j] * w, v.raw() + r * w, w);
          ov[take[j]] = v.IsValid(r);
        }
        if (e.type.physical() == PhysType::Str) out.ShareStrings(v);
      }
      return;
    }
    case BExpr::Func: {
      if (e.fn->first_non_null) {
        // COALESCE: each argument only over the rows still NULL.
        uint8_t* ov = out.validity();
        std::fill(ov, ov + n, 0);
        const size_t w = (size_t)e.type.width();
        std::vector<uint32_t> open(n);
        for (uint32_t i = 0; i < n; i++) open[i] = i;
        for (size_t k = 0; k < e.children.size() && !open.empty(); k++) {
          Vector v;
          const bool all = !MayFail(*e.children[k]);  // v's rows are in's, else open's
          if (all) Evaluate(*e.children[k], in, v);
          else EvaluateRows(*e.children[k], in, open, v);
          std::vector<uint32_t> rest;
          for (uint32_t j = 0; j < open.size(); j++) {
            const uint32_t r = all ? open[j] : j;
            if (!v.IsValid(r)) {
              rest.push_back(open[j]);
              continue;
            }
            std::memcpy(out.raw() + open[j] * w, v.raw() + r * w, w);
            ov[open[j]] = 1;
          }
          if (e.type.physical() == PhysType::Str) out.ShareStrings(v);
          open.swap(rest);
        }
        return;
      }
      std::vector<Vector> args(e.children.size());
      for (size_t k = 0; k < e.children.size(); k++) Evaluate(*e.children[k], in, args[k]);
      // The registry's function (function/scalar_functions.cpp); NULL in, NULL out
      // unless it reads NULLs itself.
      if (!e.fn->reads_nulls)
        for (auto& a : args) MergeNulls(out, n, {&a});
      if (e.fn->cpu_call) e.fn->cpu_call(e, args, out, n);
      else e.fn->cpu(args, out, n);
      return;
    }
    case BExpr::Agg: throw InternalError("aggregate evaluated as a scalar expression");
    case BExpr::Window: throw InternalError("window function evaluated as a scalar expression");
  }
}

namespace {
template <class T, class P>
uint32_t SelectLoop(const Vector& v, const uint32_t* in_sel, uint32_t n, uint32_t* out, P pred) {
  const T* d = v.data<T>();
  uint32_t k = 0;
  if (in_sel) {
    for (uint32_t i = 0; i < n; i++) {
      uint32_t r = in_sel[i];
      out[k] = r;
      k += pred(d[r]) & v.IsValid(r);
    }
  } else if (!v.has_nulls()) {
    for (uint32_t i = 0; i < n; i++) {
      out[k] = i;
      k += pred(d[i]);
    }
  } else {
    for (uint32_t i = 0; i < n; i++) {
      out[k] = i;
      k += pred(d[i]) & v.IsValid(i);
    }
  }
  return k;
}

template <class T>
uint32_t SelectCompare(ast::Op op, const Vector& v, T c, const uint32_t* in_sel, uint32_t n, uint32_t* out) {
  switch (op) {
    case ast::Op::Eq: return SelectLoop<T>(v, in_sel, n, out, [c](const T& x) { return ops::Equals(x, c); });
    case ast::Op::Ne: return SelectLoop<T>(v, in_sel, n, out, [c](const T& x) { return !ops::Equals(x, c); });
    case ast::Op::Lt: return SelectLoop<T>(v, in_sel, n, out, [c](const T& x) { return ops::LessThan(x, c); });
    case ast::Op::Le: return SelectLoop<T>(v, in_sel, n, out, [c](const T& x) { return !ops::LessThan(c, x); });
    case ast::Op::Gt: return SelectLoop<T>(v, in_sel, n, out, [c](const T& x) { return ops::LessThan(c, x); });
    default: return SelectLoop<T>(v, in_sel, n, out, [c](const T& x) { return !ops::LessThan(x, c); });
  }
}
}  // namespace

std::shared_ptr<const ops::LikePattern> CompileLikePattern(const BoundExpr& e) {
  if (e.kind != BExpr::Like || e.children[1]->kind != BExpr::Constant || e.children[1]->value.is_null())
    return nullptr;
  int escape = -1;
  if (e.children.size() > 2) {
    const BoundExpr& x = *e.children[2];
    if (x.kind != BExpr::Constant || x.value.is_null()) return nullptr;
    const std::string& text = x.value.str_value();
    if (text.size() > 1) return nullptr;  // an invalid escape: the row loop raises the error
    escape = ops::LikeEscapeByte(text);
  }
  return std::make_shared<const ops::LikePattern>(e.children[1]->value.str_value(), escape);
}

namespace {

// Rows where a <op> b, both TRUE-valued (not NULL).
template <class T>
uint32_t SelectCompareColumns(ast::Op op, const Vector& a, const Vector& b, const uint32_t* in_sel, uint32_t n,
                              uint32_t* out) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  const bool nulls = a.has_nulls() || b.has_nulls();
  auto run = [&]<int OP>() {
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t r = in_sel ? in_sel[i] : i;
      out[k] = r;
      k += ops::Compare<T>(OP, x[r], y[r]) & (!nulls || (a.IsValid(r) & b.IsValid(r)));
    }
    return k;
  };
  switch (CompareOpCode(op)) {
    case ops::kEq: return run.template operator()<ops::kEq>();
    case ops::kNe: return run.template operator()<ops::kNe>();
    case ops::kLt: return run.template operator()<ops::kLt>();
    case ops::kLe: return run.template operator()<ops::kLe>();
    case ops::kGt: return run.template operator()<ops::kGt>();
    default: return run.template operator()<ops::kGe>();
  }
}

// column [NOT] IN (constants): the items read once. A NULL item makes a row that matches
// no item NULL, never TRUE: IN ignores it, NOT IN then passes no row.
bool FilterInList(const BoundExpr& e, const DataChunk& in, const uint32_t* in_sel, uint32_t n, uint32_t* out_sel,
                  uint32_t& count) {
  const BoundExpr* c = e.children[0].get();
  if (c->kind != BExpr::Column || c->index < 0) return false;
  bool null_item = false;
  for (size_t i = 1; i < e.children.size(); i++) {
    if (e.children[i]->kind != BExpr::Constant) return false;
    null_item |= e.children[i]->value.is_null();
  }
  if (e.negated && null_item) {
    count = 0;
    return true;
  }
  const Vector& v = in.cols[c->index];
  const bool neg = e.negated;
  auto items = [&]<class T>(auto get) {
    std::vector<T> r;
    for (size_t i = 1; i < e.children.size(); i++)
      if (!e.children[i]->value.is_null()) r.push_back(get(e.children[i]->value));
    return r;
  };
  switch (v.type().physical()) {
    case PhysType::I32: {
      auto xs = items.template operator()<int32_t>([](const Value& x) { return (int32_t)x.int_value(); });
      count = SelectLoop<int32_t>(v, in_sel, n, out_sel, [&xs, neg](int32_t x) {
        return (std::find(xs.begin(), xs.end(), x) != xs.end()) != neg;
      });
      return true;
    }
    case PhysType::I64: {
      auto xs = items.template operator()<int64_t>([](const Value& x) { return (int64_t)x.int_value(); });
      count = SelectLoop<int64_t>(v, in_sel, n, out_sel, [&xs, neg](int64_t x) {
        return (std::find(xs.begin(), xs.end(), x) != xs.end()) != neg;
      });
      return true;
    }
    case PhysType::Str: {
      // Strings kept alive by the expression's constants; compared by length first.
      auto xs = items.template operator()<StrRef>([](const Value& x) { return StrRef(x.str_value()); });
      count = SelectLoop<StrRef>(v, in_sel, n, out_sel, [&xs, neg](const StrRef& x) {
        bool hit = false;
        for (const StrRef& y : xs)
          if (y.size() == x.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size()) == 0)) {
            hit = true;
            break;
          }
        return hit != neg;
      });
      return true;
    }
    default: return false;
  }
}

}  // namespace

bool FilterColumnConstant(const BoundExpr& e, const DataChunk& in, const uint32_t* in_sel,
                          uint32_t n, uint32_t* out_sel, uint32_t& count) {
  if (e.kind == BExpr::Like && e.children[0]->kind == BExpr::Column && e.children[0]->index >= 0 &&
      in.cols[e.children[0]->index].type().physical() == PhysType::Str) {
    // column LIKE constant: the compiled pattern over the rows still selected.
    std::shared_ptr<const ops::LikePattern> local;
    const ops::LikePattern* pat = e.like.get();
    if (!pat) {
      local = CompileLikePattern(e);
      pat = local.get();
    }
    if (!pat) return false;
    const bool neg = e.negated;
    count = SelectLoop<StrRef>(in.cols[e.children[0]->index], in_sel, n, out_sel,
                               [pat, neg](const StrRef& x) { return pat->Match(x.data(), x.size()) != neg; });
    return true;
  }
  if (e.kind == BExpr::InList) return FilterInList(e, in, in_sel, n, out_sel, count);
  if (e.kind != BExpr::Compare) return false;
  const BoundExpr* c = e.children[0].get();
  const BoundExpr* k = e.children[1].get();
  ast::Op op = e.op;
  if (c->kind == BExpr::Column && k->kind == BExpr::Column && c->index >= 0 && k->index >= 0) {
    // column <op> column of one type (q12: l_commitdate < l_receiptdate)
    const Vector& a = in.cols[c->index];
    const Vector& b = in.cols[k->index];
    if (a.type().physical() != b.type().physical()) return false;
    return DispatchPhys(a.type().physical(), [&]<class T>() {
      if constexpr (std::is_same_v<T, uint8_t>) {
        return false;
      } else {
        count = SelectCompareColumns<T>(op, a, b, in_sel, n, out_sel);
        return true;
      }
    });
  }
  if (c->kind != BExpr::Column) {
    std::swap(c, k);
    op = FlipComparison(op);
  }
  if (c->kind != BExpr::Column || k->kind != BExpr::Constant || c->index < 0) return false;
  if (k->value.is_null()) {  // comparison with NULL: no row passes
    count = 0;
    return true;
  }
  const Vector& v = in.cols[c->index];
  const Value& val = k->value;
  switch (v.type().physical()) {
    case PhysType::I32: count = SelectCompare<int32_t>(op, v, (int32_t)val.int_value(), in_sel, n, out_sel); return true;
    case PhysType::I64: count = SelectCompare<int64_t>(op, v, (int64_t)val.int_value(), in_sel, n, out_sel); return true;
    case PhysType::I128: count = SelectCompare<int128_t>(op, v, val.int_value(), in_sel, n, out_sel); return true;
    case PhysType::F64: count = SelectCompare<double>(op, v, val.double_value(), in_sel, n, out_sel); return true;
    case PhysType::Str: count = SelectCompare<StrRef>(op, v, StrRef(val.str_value()), in_sel, n, out_sel); return true;
    default: return false;
  }
}

namespace {

// Rows of in_sel[0..n) (all rows [0, n) when null) where `e` is TRUE, into out_sel (which
// may alias in_sel); returns their count. AND narrows the selection term by term; OR
// tests each term on the rows no earlier term passed. Other terms take the fast paths of
// FilterColumnConstant, else are evaluated over the chunk.
uint32_t SelectTrue(const BoundExpr& e, const DataChunk& in, const uint32_t* in_sel, uint32_t n, uint32_t* out_sel) {
  if (e.kind == BExpr::And) {
    const uint32_t* cur = in_sel;
    for (auto& c : e.children) {
      if (n == 0) break;
      n = SelectTrue(*c, in, cur, n, out_sel);
      cur = out_sel;
    }
    if (!cur && n > 0)  // no terms
      for (uint32_t i = 0; i < n; i++) out_sel[i] = i;
    return n;
  }
  if (e.kind == BExpr::Or) {
    std::vector<uint8_t> pass(in.size, 0);
    std::vector<uint32_t> rest(n), hit(n);
    for (uint32_t i = 0; i < n; i++) rest[i] = in_sel ? in_sel[i] : i;
    uint32_t m = n;
    for (auto& c : e.children) {
      if (m == 0) break;
      const uint32_t k = SelectTrue(*c, in, rest.data(), m, hit.data());
      if (k == 0) continue;
      for (uint32_t i = 0; i < k; i++) pass[hit[i]] = 1;
      uint32_t j = 0;
      for (uint32_t i = 0; i < m; i++) {
        rest[j] = rest[i];
        j += !pass[rest[i]];
      }
      m = j;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t r = in_sel ? in_sel[i] : i;
      out_sel[k] = r;
      k += pass[r];
    }
    return k;
  }
  uint32_t count = 0;
  if (FilterColumnConstant(e, in, in_sel, n, out_sel, count)) return count;
  Vector v;
  Evaluate(e, in, v);
  const uint8_t* d = v.data<uint8_t>();
  uint32_t k = 0;
  if (in_sel) {
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t r = in_sel[i];
      out_sel[k] = r;
      k += (d[r] != 0) & v.IsValid(r);
    }
  } else if (!v.has_nulls()) {
    for (uint32_t i = 0; i < n; i++) {
      out_sel[k] = i;
      k += d[i] != 0;
    }
  } else {
    for (uint32_t i = 0; i < n; i++) {
      out_sel[k] = i;
      k += (d[i] != 0) & v.IsValid(i);
    }
  }
  return k;
}

}  // namespace

uint32_t EvaluateFilter(const BoundExpr& e, const DataChunk& in, std::vector<uint32_t>& sel) {
  sel.resize(std::max<uint32_t>(in.size, 1));
  const uint32_t k = SelectTrue(e, in, nullptr, in.size, sel.data());
  return k;
}

Value EvaluateConstant(const BoundExpr& e) {
  DataChunk one;
  one.size = 1;
  Vector v;
  Evaluate(e, one, v);
  return v.GetValue(0);
}

}  // namespace tessera
