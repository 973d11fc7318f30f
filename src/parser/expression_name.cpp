#include "parser/expression_name.hpp"

#include <cstdlib>

#include "common/decimal.hpp"

namespace tessera::ast {

namespace {

// Thrown inside the namer for a form it does not write; caught at the top.
struct NotNamed {};

std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

// An identifier as DuckDB prints it: bare when it is made of letters, digits and '_' (any
// case) and does not start with a digit; otherwise in double quotes.
std::string Identifier(const std::string& s) {
  bool bare = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) bare = false;
  if (bare) return s;
  std::string out = "\"";
  for (char c : s) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

// A cast's type: DuckDB quotes the names that are not SQL keywords in its grammar.
std::string TypeName(const Type& t) {
  switch (t.id) {
    case TypeId::Double: return "\"DOUBLE\"";
    case TypeId::Date: return "\"DATE\"";
    case TypeId::Blob: return "\"BLOB\"";
    case TypeId::Decimal: return "DECIMAL(" + std::to_string(t.precision) + ", " + std::to_string(t.scale) + ")";
    case TypeId::Null: throw NotNamed{};
    default: return t.ToString();
  }
}

// DuckDB's spelling: "!=" for Ne, AND and OR; the SQL symbol otherwise.
const char* BinaryOp(Op op) {
  if (op == Op::And) return "AND";
  if (op == Op::Or) return "OR";
  if (op == Op::Ne) return "!=";
  const char* s = OpSymbol(op);
  if (s[0] == '?') throw NotNamed{};
  return s;
}

bool IsComparison(Op op) {
  return op == Op::Eq || op == Op::Ne || op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge;
}
Op Negated(Op op) {
  switch (op) {
    case Op::Eq: return Op::Ne;
    case Op::Ne: return Op::Eq;
    case Op::Lt: return Op::Ge;
    case Op::Le: return Op::Gt;
    case Op::Gt: return Op::Le;
    default: return Op::Lt;  // Ge
  }
}

bool IsWord(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::string Name(const Expr& e);

std::string Args(const Expr& e, size_t from = 0, size_t to = SIZE_MAX) {
  std::string s;
  for (size_t i = from; i < e.children.size() && i < to; i++) s += (i > from ? ", " : "") + Name(*e.children[i]);
  return s;
}

// The operands of a chain of one conjunction (a AND b AND c): DuckDB prints it flat.
void Conjuncts(const Expr& e, Op op, std::string& out) {
  for (const auto& c : e.children) {
    if (c->kind == ExprKind::Binary && c->op == op) {
      Conjuncts(*c, op, out);
    } else {
      out += out.size() > 1 ? std::string(" ") + BinaryOp(op) + " " : "";
      out += Name(*c);
    }
  }
}

std::string Literal(const Expr& e) {
  switch (e.lit) {
    case LiteralKind::Null: return "NULL";
    case LiteralKind::Integer:
    case LiteralKind::Decimal: return e.text;
    case LiteralKind::Float: return FormatDouble(std::strtod(e.text.c_str(), nullptr));
    case LiteralKind::String: return Quoted(e.text);
    case LiteralKind::Boolean: return e.text == "true" ? "CAST('t' AS BOOLEAN)" : "CAST('f' AS BOOLEAN)";
    case LiteralKind::Date: return "CAST(" + Quoted(e.text) + " AS \"DATE\")";
  }
  throw NotNamed{};
}

std::string Function(const Expr& e) {
  if ((e.name == "&" || e.name == "|" || e.name == "<<" || e.name == ">>") && e.children.size() == 2 && !e.over)
    return "(" + Name(*e.children[0]) + " " + e.name + " " + Name(*e.children[1]) + ")";  // an operator
  if (e.over || !e.order_by.empty() || e.columns || !IsWord(e.name)) throw NotNamed{};
  if (IsKeywordFunction(e.name) && e.children.empty()) return e.name;  // CURRENT_DATE
  if (e.star_arg) {
    if (e.name != "count") throw NotNamed{};
    std::string s = "count_star()";
    if (e.has_filter) s += " FILTER (WHERE " + Name(*e.children.back()) + ")";
    return s;
  }
  const size_t nargs = e.children.size() - (e.has_filter ? 1 : 0);
  std::string name = e.name;
  if (name == "coalesce" || name == "ifnull") {
    name = "COALESCE";
  } else if (name == "nullif" || name == "year" || name == "month" || name == "day" || name == "hour" ||
             name == "minute" || name == "second" || name == "quarter" || name == "week" || name == "left" ||
             name == "right" || name == "replace") {
    // names that are keywords of DuckDB's grammar
    name = "\"" + name + "\"";
  } else if (name == "substring" || name == "trim") {
    name = "main.\"" + name + "\"";
  } else if (name == "position") {
    throw NotNamed{};  // POSITION(a IN b) is written with its arguments turned round
  }
  std::string s = name + "(" + (e.distinct ? "DISTINCT " : "") + Args(e, 0, nargs) + ")";
  if (e.has_filter) s += " FILTER (WHERE " + Name(*e.children.back()) + ")";
  return s;
}

std::string Case(const Expr& e) {
  size_t i = 0;
  const Expr* operand = e.has_operand ? e.children[i++].get() : nullptr;
  const size_t end = e.children.size() - (e.has_else ? 1 : 0);
  std::string s = "CASE ";
  for (; i + 1 < end; i += 2) {
    std::string when = Name(*e.children[i]);
    if (operand) when = "(" + Name(*operand) + " = " + when + ")";
    s += " WHEN (" + when + ") THEN (" + Name(*e.children[i + 1]) + ")";
  }
  s += " ELSE " + (e.has_else ? Name(*e.children.back()) : std::string("NULL")) + " END";
  return s;
}

std::string Name(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Column:
      return (e.table.empty() ? "" : Identifier(e.table) + ".") + Identifier(e.name);
    case ExprKind::Literal: return Literal(e);
    case ExprKind::Unary: {
      const Expr& c = *e.children[0];
      if (e.op == Op::Neg && c.kind == ExprKind::Literal &&
          (c.lit == LiteralKind::Integer || c.lit == LiteralKind::Decimal || c.lit == LiteralKind::Float))
        return "-" + Literal(c);  // folded into the constant by DuckDB's parser
      if (e.op == Op::Neg) return "-(" + Name(c) + ")";
      if (e.op == Op::Plus) return "+(" + Name(c) + ")";
      if (c.kind == ExprKind::Binary && IsComparison(c.op))  // NOT (a > b) is (a <= b)
        return "(" + Name(*c.children[0]) + " " + BinaryOp(Negated(c.op)) + " " + Name(*c.children[1]) + ")";
      return "(NOT " + Name(c) + ")";
    }
    case ExprKind::Binary: {
      if (e.op == Op::And || e.op == Op::Or) {
        std::string s = "(";
        Conjuncts(e, e.op, s);
        return s + ")";
      }
      return "(" + Name(*e.children[0]) + " " + BinaryOp(e.op) + " " + Name(*e.children[1]) + ")";
    }
    case ExprKind::Between: {
      std::string s = "(" + Name(*e.children[0]) + " BETWEEN " + Name(*e.children[1]) + " AND " + Name(*e.children[2]) + ")";
      return e.negated ? "(NOT " + s + ")" : s;
    }
    case ExprKind::InList:
      return "(" + Name(*e.children[0]) + (e.negated ? " NOT IN (" : " IN (") + Args(e, 1) + "))";
    case ExprKind::Like: {
      if (e.children.size() != 2) throw NotNamed{};  // with ESCAPE: like_escape(...)
      const bool ilike = e.text == "ilike";
      // ILIKE's operands were wrapped in lower() by the parser.
      auto operand = [&](const Expr& x) { return ilike ? Name(*x.children[0]) : Name(x); };
      const char* op = ilike ? (e.negated ? " !~~* " : " ~~* ") : (e.negated ? " !~~ " : " ~~ ");
      return "(" + operand(*e.children[0]) + op + operand(*e.children[1]) + ")";
    }
    case ExprKind::IsNull: {
      if (e.text.empty()) return "(" + Name(*e.children[0]) + (e.negated ? " IS NOT NULL)" : " IS NULL)");
      if (e.text == "distinct")
        return "(" + Name(*e.children[0]) + (e.negated ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ") +
               Name(*e.children[1]) + ")";
      throw NotNamed{};
    }
    case ExprKind::Cast:
      return std::string(e.negated ? "TRY_CAST(" : "CAST(") + Name(*e.children[0]) + " AS " + TypeName(e.cast_type) + ")";
    case ExprKind::Function: return Function(e);
    case ExprKind::Case: return Case(e);
    case ExprKind::Extract: return "main.date_part(" + Quoted(e.name) + ", " + Name(*e.children[0]) + ")";
    default: throw NotNamed{};
  }
}

}  // namespace

std::string DuckDbColumnName(const Expr& e) {
  try {
    return Name(e);
  } catch (const NotNamed&) {
    return "";
  }
}

}  // namespace tessera::ast
