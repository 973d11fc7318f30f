// DuckDB's samples: `USING SAMPLE spec` after a SELECT core's clauses (the sample of its
// FROM items' rows, taken before WHERE) and `TABLESAMPLE spec` after a FROM item (its alias
// first). spec is
//   size [unit] [(method [, seed])]
//   | [method] (size [unit]) [REPEATABLE (seed)]
// size a number, unit `%` / PERCENT (a percentage) or ROWS (the default: a count), method
// system, bernoulli or reservoir (the default: system for a percentage, reservoir for a
// count; system and bernoulli take only a percentage). The binder draws the sample
// (planner/bind_sample.cpp).
#include <cmath>
#include <cstdio>

#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

namespace {

const char* MethodName(SampleMethod m) {
  switch (m) {
    case SampleMethod::System: return "System";
    case SampleMethod::Bernoulli: return "Bernoulli";
    case SampleMethod::Reservoir: return "Reservoir";
  }
  return "";
}

}  // namespace

SampleSpec Parser::ParseSampleSpec(SourcePos pos) {
  SampleSpec spec;
  spec.pos = pos;
  std::optional<SampleMethod> method;
  auto parse_method = [&] {
    const Token& t = Cur();
    if (!IsIdentToken(t)) SyntaxError(t, "expected a sampling method");
    const std::string m = IdentFold(Spelling(t));
    if (m == "system") method = SampleMethod::System;
    else if (m == "bernoulli") method = SampleMethod::Bernoulli;
    else if (m == "reservoir") method = SampleMethod::Reservoir;
    else
      throw UserError(ErrorKind::Syntax, "Unrecognized sampling method " + m + ", expected system, bernoulli or reservoir",
                      t.pos);
    Next();
  };
  auto parse_size = [&] {
    const Token& t = Cur();
    if (t.kind != TokenKind::Integer && t.kind != TokenKind::Decimal && t.kind != TokenKind::Float)
      SyntaxError(t, "expected the sample size");
    spec.size = std::strtod(t.text.c_str(), nullptr);
    Next();
    if (AcceptOp("%") || AcceptKw("percent")) spec.percent = true;
    else AcceptKw("rows");
  };
  auto parse_seed = [&] { spec.seed = ParseCount("the sample's seed"); };
  if (AtOp("(") || (IsIdentToken(Cur()) && IsOp(Peek(), "("))) {  // [method] (size) [REPEATABLE (seed)]
    if (!AtOp("(")) parse_method();
    ExpectOp("(");
    parse_size();
    ExpectOp(")");
    if (AcceptKw("repeatable")) {
      ExpectOp("(");
      parse_seed();
      ExpectOp(")");
    }
  } else {  // size [unit] [(method [, seed])]
    parse_size();
    if (AcceptOp("(")) {
      parse_method();
      if (AcceptOp(",")) parse_seed();
      ExpectOp(")");
    }
  }
  spec.method = method ? *method : spec.percent ? SampleMethod::System : SampleMethod::Reservoir;
  if (spec.percent && !(spec.size >= 0 && spec.size <= 100)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%f", spec.size);
    throw UserError(ErrorKind::Syntax, std::string("Sample sample_size ") + buf + " out of range, must be between 0 and 100",
                    pos);
  }
  if (!spec.percent && spec.method != SampleMethod::Reservoir)
    throw UserError(ErrorKind::Syntax,
                    std::string("Sample method ") + MethodName(spec.method) +
                        " cannot be used with a discrete sample count, either switch to reservoir sampling or use a sample_size",
                    pos);
  return spec;
}

void Parser::ParseTableSample(TableRef& t) {
  if (!AtKw("tablesample")) return;
  SourcePos pos = Cur().pos;
  Next();
  t.sample = ParseSampleSpec(pos);
}

}  // namespace tessera::parser_internal
