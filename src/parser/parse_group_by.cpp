// GROUP BY: expressions, the empty set (), GROUPING SETS (...), ROLLUP (...) and CUBE (...),
// expanded here into the grouping sets they stand for (SelectStmt::grouping_sets).
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

namespace {

constexpr size_t kMaxGroupingSets = 4096;

void CheckCount(size_t n, SourcePos pos) {
  if (n > kMaxGroupingSets)
    throw UserError(ErrorKind::Syntax, "GROUP BY has more than " + std::to_string(kMaxGroupingSets) + " grouping sets",
                    pos);
}

// a's set with b's indices added (each index once, in order of appearance).
std::vector<uint32_t> Union(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> r = a;
  for (uint32_t i : b)
    if (std::find(r.begin(), r.end(), i) == r.end()) r.push_back(i);
  return r;
}

}  // namespace

void Parser::ParseGroupBy(SelectStmt& s) {
  GroupingSets total{{}};
  bool special = false;
  do {
    SourcePos pos = Cur().pos;
    GroupingSets item = ParseGroupingElement(s, special);
    CheckCount(total.size() * item.size(), pos);
    GroupingSets product;
    for (auto& a : total)
      for (auto& b : item) product.push_back(Union(a, b));
    total = std::move(product);
  } while (AcceptOp(","));
  if (special) s.grouping_sets = std::move(total);
}

// At "(" opening a list of two or more expressions, "(a, b)", not a parenthesised
// expression "(a + b) * 2".
bool Parser::AtCompositeGroup() const {
  if (!AtOp("(")) return false;
  int depth = 0;
  for (size_t k = 0;; k++) {
    const Token& t = Peek(k);
    if (t.kind == TokenKind::End) return false;
    if (IsOp(t, "(") || IsOp(t, "[")) depth++;
    else if (IsOp(t, ")") || IsOp(t, "]")) {
      if (--depth == 0) return false;
    } else if (depth == 1 && IsOp(t, ",")) {
      return true;
    }
  }
}

// One column of ROLLUP/CUBE or one set of GROUPING SETS written as (a, b): its
// expressions' indices.
std::vector<uint32_t> Parser::ParseGroupingColumns(SelectStmt& s) {
  std::vector<uint32_t> cols;
  if (AtOp("(") && IsOp(Peek(), ")")) {
    Next();
    Next();
    return cols;
  }
  const bool composite = AtCompositeGroup();
  if (composite) Next();
  do {
    s.group_by.push_back(ParseExpr());
    cols.push_back((uint32_t)s.group_by.size() - 1);
  } while (composite && AcceptOp(","));
  if (composite) ExpectOp(")");
  return cols;
}

Parser::GroupingSets Parser::ParseGroupingElement(SelectStmt& s, bool& special) {
  DepthGuard guard(*this, Cur().pos);
  SourcePos pos = Cur().pos;
  if (AtKw("grouping") && IsKw(Peek(), "sets") && IsOp(Peek(2), "(")) {
    special = true;
    Next();
    Next();
    ExpectOp("(");
    GroupingSets sets;
    do {
      for (auto& g : ParseGroupingElement(s, special)) sets.push_back(std::move(g));
      CheckCount(sets.size(), pos);
    } while (AcceptOp(","));
    ExpectOp(")");
    return sets;
  }
  if ((AtKw("rollup") || AtKw("cube")) && IsOp(Peek(), "(")) {
    special = true;
    const bool cube = AtKw("cube");
    Next();
    ExpectOp("(");
    std::vector<std::vector<uint32_t>> cols;
    do {
      cols.push_back(ParseGroupingColumns(s));
    } while (AcceptOp(","));
    ExpectOp(")");
    GroupingSets sets;
    if (cube) {
      // Every subset, the full set first (as DuckDB lists them).
      if (cols.size() > 12) throw UserError(ErrorKind::Syntax, "CUBE takes at most 12 columns", pos);
      const uint32_t n = (uint32_t)cols.size();
      for (uint32_t m = (1u << n); m-- > 0;) {
        std::vector<uint32_t> set;
        for (uint32_t c = 0; c < n; c++)
          if (m & (1u << (n - 1 - c))) set = Union(set, cols[c]);
        sets.push_back(std::move(set));
      }
    } else {
      // The prefixes, longest first: ROLLUP (a, b) is (a, b), (a), ().
      for (size_t len = cols.size() + 1; len-- > 0;) {
        std::vector<uint32_t> set;
        for (size_t c = 0; c < len; c++) set = Union(set, cols[c]);
        sets.push_back(std::move(set));
      }
    }
    return sets;
  }
  if (AtOp("(") && IsOp(Peek(), ")")) special = true;  // GROUP BY (): one group of all rows
  return {ParseGroupingColumns(s)};
}

}  // namespace tessera::parser_internal
