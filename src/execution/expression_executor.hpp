// Vectorized evaluation of bound expressions over a DataChunk (CPU backend).
#pragma once
#include "common/vector.hpp"
#include "planner/bound_expr.hpp"

namespace tessera {

// Evaluates `e` over the `in.size` rows of `in` into `out` (re-initialised to e.type).
// Column references must have been resolved to input positions (BoundExpr::index).
void Evaluate(const BoundExpr& e, const DataChunk& in, Vector& out);
// The value of `e` over `in` without copying where it can: a column reference of e's own
// type is the input chunk's vector itself; anything else is evaluated into `scratch`.
// The reference lives as long as both `in` and `scratch`.
const Vector& EvaluateOperand(const BoundExpr& e, const DataChunk& in, Vector& scratch);
// Evaluates a boolean predicate and writes the indices of rows where it is TRUE into
// `sel` (resized to at least in.size); returns their count. By selection: AND narrows the
// rows term by term, OR tests each term on the rows no earlier term passed, other terms
// take FilterColumnConstant's fast paths or are evaluated over the chunk.
uint32_t EvaluateFilter(const BoundExpr& e, const DataChunk& in, std::vector<uint32_t>& sel);
// Fast path for a filter term over columns of the chunk: `column <op> constant` over a
// fixed-width or string column, `column <op> column` of one type, `column [NOT] IN
// (constants)` (INTEGER, BIGINT, VARCHAR) and `column [NOT] LIKE constant`: tests rows in_sel[0..n) (all rows [0, n) when in_sel is null) of `in` and writes the
// passing row numbers to out_sel (which may alias in_sel). Returns false, doing nothing,
// when the term has another shape.
bool FilterColumnConstant(const BoundExpr& e, const DataChunk& in, const uint32_t* in_sel,
                          uint32_t n, uint32_t* out_sel, uint32_t& count);
// The compiled pattern of a LIKE whose pattern and escape are constants (NULL, or an
// invalid escape: null, the row loop then gives NULLs or raises the error).
std::shared_ptr<const ops::LikePattern> CompileLikePattern(const BoundExpr& e);
// Evaluates a constant expression (no column references) to a Value.
Value EvaluateConstant(const BoundExpr& e);
// Rows [0, n) of src converted to out's type (out initialised; CAST's rules and errors).
void CastVector(const Vector& src, Vector& out, uint32_t n);
// TRY_CAST: CastVector, but a row that cannot convert is NULL.
void TryCastVector(const Vector& src, Vector& out, uint32_t n);

// `e` over rows `rows` of `in` (ascending row numbers): out's row j is the value of row
// rows[j] (CASE's branches; all rows: Evaluate itself).
void EvaluateRows(const BoundExpr& e, const DataChunk& in, const std::vector<uint32_t>& rows, Vector& out);

// Copies rows sel[0..n) of `src` into `dst` rows [dst_off, dst_off+n); dst must be large
// enough and of the same type. sel == nullptr means rows [0, n).
void CopyRows(const Vector& src, const uint32_t* sel, uint32_t n, Vector& dst, uint32_t dst_off);

// Calls f.template operator()<T>() with T the C++ type of physical type p.
template <class F>
decltype(auto) DispatchPhys(PhysType p, F&& f) {
  switch (p) {
    case PhysType::Bool: return f.template operator()<uint8_t>();
    case PhysType::I32: return f.template operator()<int32_t>();
    case PhysType::I64: return f.template operator()<int64_t>();
    case PhysType::I128: return f.template operator()<int128_t>();
    case PhysType::F64: return f.template operator()<double>();
    case PhysType::Str: return f.template operator()<StrRef>();
  }
  return f.template operator()<int32_t>();
}

}  // namespace tessera
