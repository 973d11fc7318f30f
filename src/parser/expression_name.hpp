#pragma once
// The name DuckDB gives a result column written as an expression without an alias: its
// parsed expression's text (DuckDB's ParsedExpression::ToString after its parser's own
// rewrites), e.g. `1/0` -> "(1 / 0)", `a::double` -> `CAST(a AS "DOUBLE")`,
// `s LIKE 'x%'` -> "(s ~~ 'x%')", `a BETWEEN 1 AND 2` -> "(a BETWEEN 1 AND 2)",
// `NOT (a > 1)` -> "(a <= 1)", `CASE WHEN c THEN x END` -> "CASE  WHEN (c) THEN (x) ELSE NULL END".
//
// Written from what DuckDB 1.5 returns for such expressions (test/duckdb/column_names.py
// checks each form against it). Forms whose text is not written here (subqueries, windows,
// intervals, star expressions, operators the parser turned into calls) give "": the caller
// then names the column by its bound expression.

#include <string>

#include "parser/ast.hpp"

namespace tessera::ast {

std::string DuckDbColumnName(const Expr& e);

}  // namespace tessera::ast
