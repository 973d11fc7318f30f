// Queries: WITH, set operations (UNION/INTERSECT/EXCEPT), ORDER BY/LIMIT/OFFSET, the
// SELECT core (select list, FROM with joins, WHERE, GROUP BY, HAVING).
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

// ---------------------------------------------------------------- queries
std::unique_ptr<SelectStmt> Parser::ParseQuery() {
  DepthGuard guard(*this, Cur().pos);
  SourcePos pos = Cur().pos;
  int saved = sel_max_;
  sel_max_ = 0;
  std::vector<CommonTableExpr> ctes;
  if (AcceptKw("with")) {
    const bool recursive = AcceptKw("recursive");
    do {
      CommonTableExpr cte;
      cte.recursive = recursive;
      cte.pos = Cur().pos;
      cte.name = ParseIdent();
      for (auto& other : ctes)  // (names ignoring case, as DuckDB)
        if (IdentEquals(other.name, cte.name))
          throw UserError(ErrorKind::Syntax, "Duplicate CTE name \"" + cte.name + "\"", cte.pos);
      if (AtOp("(")) cte.column_aliases = ParseIdentList();
      ExpectKw("as");
      ExpectOp("(");
      cte.query = ParseQuery();
      ExpectOp(")");
      ctes.push_back(std::move(cte));
    } while (AcceptOp(","));
  }
  auto head = ParseSetOperand();
  auto q = ParseQueryRest(std::move(head), std::move(ctes), pos);
  sel_max_ = std::max(saved, last_query_height_);
  return q;
}

// One operand of a set operation: SELECT ..., VALUES ... or ( query ).
std::unique_ptr<SelectStmt> Parser::ParseSetOperand() {
  if (AtOp("(")) {
    Next();
    auto q = ParseQuery();
    ExpectOp(")");
    return q;
  }
  if (AtKw("select") || AtKw("from")) return ParseSelectCore();
  if (AtKw("values")) return ParseValues();
  if (StartsSummarize(0)) return ParseSummarize();
  if (StartsPivot(0)) return ParsePivotStatement();
  SyntaxError(Cur());
}

// VALUES (expr, ...), (expr, ...) as a query node.
std::unique_ptr<SelectStmt> Parser::ParseValues() {
  auto s = std::make_unique<SelectStmt>();
  s->pos = Cur().pos;
  ExpectKw("values");
  s->values = ParseValuesRows();
  return s;
}

// (expr, ...), (expr, ...): the rows of VALUES (a query, or INSERT's), all of one length.
std::vector<std::vector<ExprPtr>> Parser::ParseValuesRows() {
  std::vector<std::vector<ExprPtr>> rows;
  do {
    SourcePos pos = Cur().pos;
    ExpectOp("(");
    std::vector<ExprPtr> row;
    do {
      row.push_back(ParseExpr());
    } while (AcceptOp(","));
    ExpectOp(")");
    if (!rows.empty() && row.size() != rows[0].size())
      throw UserError(ErrorKind::Syntax, "VALUES lists must all be the same length", pos);
    rows.push_back(std::move(row));
  } while (AcceptOp(","));
  return rows;
}

bool Parser::HasTail(const SelectStmt& s) {
  return !s.order_by.empty() || s.order_by_all.has_value() || s.limit.has_value() || s.limit_percent.has_value() ||
         s.offset.has_value();
}

// SELECT * FROM (q): used where q cannot be merged into the enclosing query node.
std::unique_ptr<SelectStmt> Parser::Wrap(std::unique_ptr<SelectStmt> q) {
  SourcePos pos = q->pos;
  auto ref = std::make_unique<TableRef>(TableRefKind::Subquery, pos);
  ref->subquery = std::move(q);
  Note(sel_max_ + 2, pos);
  return SelectStarFrom(std::move(ref), pos);
}

// SELECT * FROM ref.
std::unique_ptr<SelectStmt> SelectStarFrom(std::unique_ptr<TableRef> ref, SourcePos pos) {
  auto q = std::make_unique<SelectStmt>();
  q->pos = pos;
  SelectItem item;
  item.expr = std::make_unique<Expr>(ExprKind::Star, pos);
  q->select_list.push_back(std::move(item));
  q->from.push_back(std::move(ref));
  return q;
}

// How tightly the set operator at the current token binds (0: none there).
int Parser::SetOpLevel() const {
  if (AtKw("union") || AtKw("except")) return 1;
  if (AtKw("intersect")) return 2;
  return 0;
}

// Continues the set-operation expression whose first operand is `left` with the operators
// binding at least as tightly as `min_level` (precedence climbing: INTERSECT over UNION
// and EXCEPT, left-associative).
std::unique_ptr<SelectStmt> Parser::ParseSetOps(std::unique_ptr<SelectStmt> left, int min_level) {
  for (;;) {
    int level = SetOpLevel();
    if (level == 0 || level < min_level) return left;
    SourcePos op_pos = Cur().pos;
    bool all = false;
    const std::string word = Cur().text;
    Next();
    if (AcceptKw("all")) all = true;
    else AcceptKw("distinct");
    bool by_name = false;
    if (AtKw("by") && IsKw(Peek(), "name")) {
      if (word != "union") throw UserError(ErrorKind::Syntax, "BY NAME is only allowed with UNION", Cur().pos);
      Next();
      Next();
      by_name = true;
    }
    auto right = ParseSetOperand();
    while (SetOpLevel() > level) right = ParseSetOps(std::move(right), level + 1);
    auto node = std::make_unique<SelectStmt>();
    node->pos = left->pos;
    node->set_pos = op_pos;
    node->set_op = word == "union"      ? (all ? SetOpKind::UnionAll : SetOpKind::Union)
                   : word == "intersect" ? (all ? SetOpKind::IntersectAll : SetOpKind::Intersect)
                                         : (all ? SetOpKind::ExceptAll : SetOpKind::Except);
    node->set_by_name = by_name;
    node->set_left = std::move(left);
    node->set_right = std::move(right);
    Note(sel_max_ + 1, op_pos);
    left = std::move(node);
  }
}

// Given the first operand, parses [set-op operand]... [ORDER BY] [LIMIT] [OFFSET] and
// attaches `ctes`. Sets last_query_height_.
std::unique_ptr<SelectStmt> Parser::ParseQueryRest(std::unique_ptr<SelectStmt> head,
                                                   std::vector<CommonTableExpr> ctes,
                                                   SourcePos pos) {
  head = ParseSetOps(std::move(head), 1);

  std::vector<OrderItem> order;
  std::optional<OrderItem> order_all;
  std::optional<int64_t> limit, offset;
  std::optional<double> limit_percent;
  bool limit_seen = false, offset_seen = false;
  if (AcceptKw("order")) {
    ExpectKw("by");
    if (AcceptKw("all")) {  // ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST]
      order_all = ParseOrderDirection(OrderItem{});
    } else {
      do {
        order.push_back(ParseOrderItem());
      } while (AcceptOp(","));
    }
  }
  for (;;) {
    if (!limit_seen && AtKw("limit")) {
      Next();
      limit_seen = true;
      if (!AcceptKw("all")) {
        limit_percent = ParseLimitPercent();
        if (!limit_percent) limit = ParseCount("LIMIT");
      }
    } else if (!offset_seen && AtKw("offset")) {
      Next();
      offset_seen = true;
      offset = ParseCount("OFFSET");
      if (!AcceptKw("rows")) AcceptKw("row");
    } else {
      break;
    }
  }
  bool has_tail = !order.empty() || order_all || limit || limit_percent || offset;
  // A parenthesised query with its own tail or WITH: merge what can be merged without
  // changing meaning (a new set-operation node has neither).
  bool head_limited = head->limit.has_value() || head->limit_percent.has_value() || head->offset.has_value();
  if ((has_tail && head_limited) || (!ctes.empty() && !head->ctes.empty())) head = Wrap(std::move(head));
  if (!order.empty() || order_all) {
    head->order_by = std::move(order);
    head->order_by_all = std::move(order_all);
  }
  if (limit) head->limit = limit;
  if (limit_percent) head->limit_percent = limit_percent;
  if (offset) head->offset = offset;
  if (!ctes.empty()) head->ctes = std::move(ctes);
  head->pos = pos;
  last_query_height_ = sel_max_ + 1;
  Note(last_query_height_, pos);
  return head;
}

// LIMIT p% or LIMIT p PERCENT (DuckDB's): p a number from 0 to 100; nothing read (empty)
// when the count is not followed by % or PERCENT.
std::optional<double> Parser::ParseLimitPercent() {
  size_t k = 0;
  const bool negative = Peek(0).kind == TokenKind::Operator && Peek(0).text == "-";
  if (negative) k = 1;
  const Token& num = Peek(k);
  if (num.kind != TokenKind::Integer && num.kind != TokenKind::Decimal && num.kind != TokenKind::Float) return std::nullopt;
  const Token& after = Peek(k + 1);
  const bool percent = (after.kind == TokenKind::Operator && after.text == "%") || (after.kind == TokenKind::Word && after.text == "percent");
  if (!percent) return std::nullopt;
  const SourcePos pos = Cur().pos;
  double p = std::strtod(num.text.c_str(), nullptr);
  if (negative) p = -p;
  for (size_t i = 0; i <= k + 1; i++) Next();
  if (!(p >= 0 && p <= 100))
    throw UserError(ErrorKind::Conversion, "Limit percent out of range, should be between 0% and 100%", pos);
  return p;
}

int64_t Parser::ParseCount(const char* what) {
  const Token& t = Cur();
  std::string msg = std::string(what) + " must be a non-negative integer";
  if (t.kind != TokenKind::Integer) throw UserError(ErrorKind::Syntax, msg, t.pos);
  int64_t v = 0;
  for (char c : t.text) {
    int d = c - '0';
    if (v > (INT64_MAX - d) / 10) throw UserError(ErrorKind::Syntax, msg, t.pos);
    v = v * 10 + d;
  }
  Next();
  return v;
}

// SELECT list [FROM ...] ..., or FROM-first: FROM ... [SELECT list] ... (no SELECT: *).
std::unique_ptr<SelectStmt> Parser::ParseSelectCore() {
  auto s = std::make_unique<SelectStmt>();
  s->pos = Cur().pos;
  auto parse_from = [&] {
    do {
      int h = 0;
      s->from.push_back(ParseFromItem(&h));
    } while (AcceptOp(","));
  };
  if (AcceptKw("from")) {
    parse_from();
    if (AcceptKw("select")) {
      if (Cur().kind == TokenKind::End || AtKw("where") || AtKw("group") || AtKw("order") || AtKw("limit"))
        throw UserError(ErrorKind::Syntax, "SELECT clause without selection list", Cur().pos);
      ParseSelectList(*s);
    } else {
      SelectItem star;
      star.expr = Done(std::make_unique<Expr>(ExprKind::Star, s->pos));
      s->select_list.push_back(std::move(star));
    }
  } else {
    ExpectKw("select");
    ParseSelectList(*s);
    if (AcceptKw("from")) parse_from();
  }
  if (AcceptKw("where")) s->where = ParseExpr();
  if (AcceptKw("group")) {
    ExpectKw("by");
    if (AtKw("all")) {  // GROUP BY ALL
      s->group_by_all = true;
      s->group_by_all_pos = Cur().pos;
      Next();
    } else {
      ParseGroupBy(*s);
    }
  }
  if (AcceptKw("having")) s->having = ParseExpr();
  if (AcceptKw("window")) ParseWindowClause(*s);
  if (AcceptKw("qualify")) s->qualify = ParseExpr();
  if (AtKw("using") && IsKw(Peek(), "sample")) {  // USING SAMPLE (parse_sample.cpp)
    SourcePos pos = Cur().pos;
    Next();
    Next();
    s->sample = ParseSampleSpec(pos);
  }
  return s;
}

// [DISTINCT [ON (exprs)] | ALL] item, ...
void Parser::ParseSelectList(SelectStmt& sel) {
  SelectStmt* s = &sel;
  if (AcceptKw("distinct")) {
    if (AcceptKw("on")) {
      ExpectOp("(");
      do {
        s->distinct_on.push_back(ParseExpr());
      } while (AcceptOp(","));
      ExpectOp(")");
    } else {
      s->distinct = true;
    }
  } else {
    AcceptKw("all");
  }
  do {
    s->select_list.push_back(ParseSelectItem());
  } while (AcceptOp(","));
}

SelectItem Parser::ParseSelectItem() {
  SelectItem item;
  if (AtOp("*")) {
    auto star = std::make_unique<Expr>(ExprKind::Star, Cur().pos);
    Next();
    ParseStarModifiers(*star);
    item.expr = Done(std::move(star));
    return item;
  }
  item.expr = ParseExpr();
  if (item.expr->kind == ExprKind::Star && !item.expr->columns) {
    ParseStarModifiers(*item.expr);
    item.expr = Done(std::move(item.expr));
    return item;
  }
  if (AcceptKw("as")) {
    item.alias = ParseAnyName();
  } else if (IsIdentToken(Cur())) {
    item.alias = Spelling(Cur());
    Next();
  }
  return item;
}

// table_primary { [NATURAL | ASOF] [join_type] JOIN table_primary [ON expr | USING (cols)]
//                 | CROSS JOIN table_primary }
TableRefPtr Parser::ParseFromItem(int* height) {
  int lh = 0;
  size_t begin = Cur().begin;
  TableRefPtr left = ParseTablePrimary(&lh);
  while (AtPivotSuffix()) left = ParsePivotSuffix(std::move(left), begin);
  for (;;) {
    JoinType jt;
    bool natural = AcceptKw("natural");
    // ASOF [INNER | LEFT | RIGHT | FULL] [OUTER] JOIN, always with ON or USING (DuckDB's
    // grammar: no NATURAL or CROSS ASOF join).
    // `asof` here (an alias stands before it) starts one: anything but a join type after it
    // is an error at that token, as in DuckDB.
    const bool asof = !natural && AcceptKw("asof");
    if (asof && !AtKw("join") && !AtKw("inner") && !AtKw("left") && !AtKw("right") && !AtKw("full"))
      SyntaxError(Cur());
    if (!natural && !asof && AcceptKw("cross")) {
      ExpectKw("join");
      jt = JoinType::Cross;
    } else if (AcceptKw("join")) {
      jt = JoinType::Inner;
    } else if (AcceptKw("inner")) {
      ExpectKw("join");
      jt = JoinType::Inner;
    } else if (AtKw("left") || AtKw("right") || AtKw("full")) {
      jt = AtKw("left") ? JoinType::Left : AtKw("right") ? JoinType::Right : JoinType::Full;
      Next();
      AcceptKw("outer");
      ExpectKw("join");
    } else if (natural) {
      SyntaxError(Cur(), "expected JOIN after NATURAL");
    } else {
      break;
    }
    int rh = 0;
    begin = Cur().begin;
    TableRefPtr right = ParseTablePrimary(&rh);
    while (AtPivotSuffix()) right = ParsePivotSuffix(std::move(right), begin);
    auto j = std::make_unique<TableRef>(TableRefKind::Join, left->pos);
    j->join_type = jt;
    j->natural = natural;
    j->asof = asof;
    j->left = std::move(left);
    j->right = std::move(right);
    int h = std::max(lh, rh);
    if (jt != JoinType::Cross && !natural) {
      if (AcceptKw("using")) {
        j->using_columns = ParseIdentList();
      } else {
        ExpectKw("on");
        j->on = ParseExpr();
        h = std::max(h, j->on->height);
      }
    }
    lh = h + 1;
    Note(lh, j->pos);
    left = std::move(j);
  }
  *height = lh;
  return left;
}

TableRefPtr Parser::ParseTablePrimary(int* height) {
  DepthGuard guard(*this, Cur().pos);
  SourcePos pos = Cur().pos;
  if (AtOp("(")) {
    if (StartsQuery(1)) {
      Next();
      auto q = ParseQuery();
      ExpectOp(")");
      return SubqueryRef(std::move(q), pos, height);
    }
    Next();  // (
    int ih = 0;
    TableRefPtr inner = ParseFromItem(&ih);
    if (inner->kind == TableRefKind::Subquery && inner->alias.empty() && AtQueryTail()) {
      // ((SELECT ...) UNION (SELECT ...)) alias
      auto q = ParseQueryRest(std::move(inner->subquery), {}, inner->pos);
      ExpectOp(")");
      return SubqueryRef(std::move(q), pos, height);
    }
    ExpectOp(")");
    *height = ih;
    return inner;
  }
  if (AtKw("lateral") && IsOp(Peek(), "(") && StartsQuery(2)) {
    Next();
    Next();
    auto q = ParseQuery();
    ExpectOp(")");
    auto t = SubqueryRef(std::move(q), pos, height);
    t->lateral = true;
    return t;
  }
  if (Cur().kind == TokenKind::Word && (Cur().text == "lateral" || Cur().text == "values"))
    Unsupported(pos, Upper(Cur().text) + " in FROM without parentheses");
  if (Cur().kind == TokenKind::String) {
    // FROM 'file.parquet': the file read as a table, its reader chosen by the name.
    auto t = std::make_unique<TableRef>(TableRefKind::TableFunction, pos);
    t->func_paths.push_back(Cur().text);
    Next();
    ParseTableAlias(*t);
    ParseTableSample(*t);
    *height = 1;
    return t;
  }
  auto t = std::make_unique<TableRef>(TableRefKind::Base, pos);
  t->name = ParseIdent();
  if (AcceptOp(".")) {
    t->schema = std::move(t->name);
    t->name = ParseIdent();
    if (AtOp(".")) {
      // temp.main.name: the connection's temporary object (DuckDB's `temp` catalog).
      if (!IdentEquals(t->schema, "temp") || !IdentEquals(t->name, "main"))
        Unsupported(Cur().pos, "a table name qualified by a database");
      Next();
      t->name = ParseIdent();
    }
  }
  if (AtOp("(")) {
    if (!t->schema.empty()) Unsupported(Cur().pos, "a table function qualified by a schema");
    t->kind = TableRefKind::TableFunction;
    t->name = IdentFold(t->name);  // function names are matched in lower case
    ParseTableFunctionArgs(*t);
  }
  ParseTableAlias(*t);
  ParseTableSample(*t);
  *height = 1;
  return t;
}

// A table function option's list of strings (['a', 'b']) or struct of strings
// ({'a': 'INTEGER', b: 'DATE'}), returned in the canonical text form that
// storage/csv_options.hpp's OptionEntries reads back: the strings single-quoted (quotes
// doubled), ", " between entries, ": " between a key and its value.
std::string Parser::ParseOptionCollection() {
  auto quoted = [](const std::string& x) {
    std::string q = "'";
    for (char c : x) {
      q.push_back(c);
      if (c == '\'') q.push_back(c);
    }
    return q + "'";
  };
  const bool is_struct = AtOp("{");
  Next();
  std::string out = is_struct ? "{" : "[";
  const char* close = is_struct ? "}" : "]";
  if (!AtOp(close)) {
    do {
      if (out.size() > 1) out += ", ";
      if (is_struct) {
        if (Cur().kind != TokenKind::String && !IsIdentToken(Cur())) SyntaxError(Cur(), "expected a field name");
        out += quoted(Cur().kind == TokenKind::String ? Cur().text : Spelling(Cur())) + ": ";
        Next();
        ExpectOp(":");
      }
      if (Cur().kind != TokenKind::String) SyntaxError(Cur(), "expected a string in single quotes");
      out += quoted(Cur().text);
      Next();
    } while (AcceptOp(","));
  }
  ExpectOp(close);
  return out + close;
}

// (arg, ...): each argument a file name or pattern ('f.csv'), a list of them (['a', 'b']), a
// named option (name = value, value a string, number or word such as true) or another
// expression (range(0, 10)).
void Parser::ParseTableFunctionArgs(TableRef& t) {
  ExpectOp("(");
  if (AcceptOp(")")) return;
  do {
    if (IsIdentToken(Cur()) && (IsOp(Peek(), "=") || IsOp(Peek(), ":="))) {
      std::string name = IdentFold(Cur().text);  // an option's name: any case
      Next();
      Next();  // = or :=
      // A number may be negative (sample_size = -1).
      bool minus = AcceptOp("-");
      const Token& v = Cur();
      bool number = v.kind == TokenKind::Integer || v.kind == TokenKind::Decimal || v.kind == TokenKind::Float;
      if (number || (!minus && (v.kind == TokenKind::String || v.kind == TokenKind::Word))) {
        t.func_options.emplace_back(name, minus ? "-" + v.text : v.text);
        Next();
      } else if (!minus && (AtOp("[") || AtOp("{"))) {
        t.func_options.emplace_back(name, ParseOptionCollection());
      } else {
        SyntaxError(v, "expected a string, number or word as the value of \"" + name + "\"");
      }
    } else if (AcceptOp("[")) {
      if (!AtOp("]")) {
        do {
          if (Cur().kind != TokenKind::String) SyntaxError(Cur(), "expected a file name in single quotes");
          t.func_paths.push_back(Cur().text);
          Next();
        } while (AcceptOp(","));
      }
      ExpectOp("]");
    } else if (Cur().kind == TokenKind::String && (IsOp(Peek(), ",") || IsOp(Peek(), ")"))) {
      t.func_paths.push_back(Cur().text);
      Next();
    } else {
      t.func_args.push_back(ParseExpr());
    }
  } while (AcceptOp(","));
  ExpectOp(")");
}

TableRefPtr Parser::SubqueryRef(std::unique_ptr<SelectStmt> q, SourcePos pos, int* height) {
  auto t = std::make_unique<TableRef>(TableRefKind::Subquery, pos);
  t->subquery = std::move(q);
  *height = last_query_height_ + 1;
  Note(*height, pos);
  ParseTableAlias(*t);
  ParseTableSample(*t);
  return t;
}

bool Parser::AtAsofJoin() const {
  if (!AtKw("asof")) return false;
  const Token& n = Peek();
  return IsKw(n, "join") || IsKw(n, "inner") || IsKw(n, "left") || IsKw(n, "right") || IsKw(n, "full");
}

void Parser::ParseTableAlias(TableRef& t) {
  if (AcceptKw("as")) {
    t.alias = ParseIdent();
  } else if (IsIdentToken(Cur()) && !AtKw("tablesample") && !AtPivotSuffix() && !AtAsofJoin()) {
    t.alias = Spelling(Cur());
    Next();
  } else {
    return;
  }
  if (AtOp("(")) t.column_aliases = ParseIdentList();
}

}  // namespace tessera::parser_internal
