// Window functions: a call's OVER clause (OVER name | OVER ([name] [PARTITION BY ...]
// [ORDER BY ...] [frame])), frames (ROWS | RANGE | GROUPS, BETWEEN bound AND bound or one
// bound, [EXCLUDE CURRENT ROW | GROUP | TIES | NO OTHERS]), the query's WINDOW clause, and ORDER BY items (shared with the query's ORDER BY).
// The frame checks are DuckDB's parser errors.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

// expr [ASC | DESC] [NULLS FIRST | NULLS LAST]
OrderItem Parser::ParseOrderItem() {
  OrderItem item;
  item.expr = ParseExpr();
  return ParseOrderDirection(std::move(item));
}

// [ASC|DESC] [NULLS FIRST|LAST] after an ORDER BY item (or ORDER BY ALL).
OrderItem Parser::ParseOrderDirection(OrderItem item) {
  if (AcceptKw("desc")) {
    item.desc = true;
  } else {
    AcceptKw("asc");
  }
  if (AcceptKw("nulls")) {
    if (AcceptKw("first")) {
      item.nulls_first = true;
    } else if (AcceptKw("last")) {
      item.nulls_first = false;
    } else {
      SyntaxError(Cur(), "expected FIRST or LAST");
    }
  }
  return item;
}

int Parser::WindowSpecHeight(const WindowSpec& w) const {
  int h = 0;
  for (auto& p : w.partitions) h = std::max(h, p->height);
  for (auto& o : w.orders) h = std::max(h, o.expr->height);
  if (w.start.offset) h = std::max(h, w.start.offset->height);
  if (w.end.offset) h = std::max(h, w.end.offset->height);
  return h;
}

// The call `call` followed by OVER ...: a window function call.
ExprPtr Parser::ParseOver(ExprPtr call) {
  ExpectKw("over");
  if (AtOp("(")) {
    call->over = ParseWindowSpec();
  } else {
    call->over = std::make_shared<WindowSpec>();
    call->over->pos = Cur().pos;
    call->over->name = ParseIdent();
  }
  int h = WindowSpecHeight(*call->over);
  return Done(std::move(call), h);
}

// ( [name] [PARTITION BY e, ...] [ORDER BY item, ...] [frame] )
std::shared_ptr<WindowSpec> Parser::ParseWindowSpec() {
  DepthGuard guard(*this, Cur().pos);
  auto w = std::make_shared<WindowSpec>();
  w->pos = Cur().pos;
  ExpectOp("(");
  if (IsIdentToken(Cur()) && !AtKw("partition") && !AtKw("rows") && !AtKw("range") && !AtKw("groups")) {
    w->name = Spelling(Cur());
    Next();
  }
  if (AcceptKw("partition")) {
    ExpectKw("by");
    do {
      w->partitions.push_back(ParseExpr());
    } while (AcceptOp(","));
  }
  if (AcceptKw("order")) {
    ExpectKw("by");
    do {
      w->orders.push_back(ParseOrderItem());
    } while (AcceptOp(","));
  }
  if (AtKw("rows") || AtKw("range") || AtKw("groups")) {
    w->unit = AtKw("rows") ? FrameUnit::Rows : AtKw("range") ? FrameUnit::Range : FrameUnit::Groups;
    Next();
    if (AcceptKw("between")) {
      w->start = ParseFrameBound();
      ExpectKw("and");
      w->end = ParseFrameBound();
    } else {
      w->start = ParseFrameBound();
      w->end.kind = FrameBoundKind::CurrentRow;
      w->end.pos = w->start.pos;
    }
    auto fail = [](const std::string& msg, SourcePos pos) {
      throw UserError(ErrorKind::Syntax, msg, pos);
    };
    if (w->start.kind == FrameBoundKind::UnboundedFollowing)
      fail("frame start cannot be UNBOUNDED FOLLOWING", w->start.pos);
    if (w->end.kind == FrameBoundKind::UnboundedPreceding)
      fail("frame end cannot be UNBOUNDED PRECEDING", w->end.pos);
    if (w->start.kind == FrameBoundKind::CurrentRow && w->end.kind == FrameBoundKind::Preceding)
      fail("frame starting from current row cannot have preceding rows", w->end.pos);
    if (w->start.kind == FrameBoundKind::Following &&
        (w->end.kind == FrameBoundKind::Preceding || w->end.kind == FrameBoundKind::CurrentRow))
      fail("frame starting from following row cannot have preceding rows", w->end.pos);
    if (AcceptKw("exclude")) {
      if (AcceptKw("current")) {
        ExpectKw("row");
        w->exclude = FrameExclude::CurrentRow;
      } else if (AcceptKw("group")) {
        w->exclude = FrameExclude::Group;
      } else if (AcceptKw("ties")) {
        w->exclude = FrameExclude::Ties;
      } else if (AcceptKw("no")) {
        ExpectKw("others");
      } else {
        SyntaxError(Cur(), "expected CURRENT ROW, GROUP, TIES or NO OTHERS");
      }
    }
  }
  ExpectOp(")");
  return w;
}

// UNBOUNDED PRECEDING | UNBOUNDED FOLLOWING | CURRENT ROW | expr PRECEDING | expr FOLLOWING
FrameBound Parser::ParseFrameBound() {
  FrameBound b;
  b.pos = Cur().pos;
  if (AtKw("unbounded") && (IsKw(Peek(), "preceding") || IsKw(Peek(), "following"))) {
    Next();
    b.kind = AtKw("preceding") ? FrameBoundKind::UnboundedPreceding : FrameBoundKind::UnboundedFollowing;
    Next();
    return b;
  }
  if (AtKw("current") && IsKw(Peek(), "row")) {
    Next();
    Next();
    b.kind = FrameBoundKind::CurrentRow;
    return b;
  }
  b.offset = ParseBoundOperand();
  if (AcceptKw("preceding")) {
    b.kind = FrameBoundKind::Preceding;
  } else if (AcceptKw("following")) {
    b.kind = FrameBoundKind::Following;
  } else {
    SyntaxError(Cur(), "expected PRECEDING or FOLLOWING");
  }
  return b;
}

// WINDOW name AS (spec), ...   (after the WINDOW keyword)
void Parser::ParseWindowClause(SelectStmt& s) {
  do {
    SourcePos pos = Cur().pos;
    std::string name = ParseIdent();
    for (auto& w : s.windows)
      if (IdentEquals(w.first, name)) throw UserError(ErrorKind::Syntax, "window \"" + name + "\" is already defined", pos);
    ExpectKw("as");
    auto spec = ParseWindowSpec();
    Note(WindowSpecHeight(*spec) + 1, pos);
    s.windows.emplace_back(std::move(name), std::move(spec));
  } while (AcceptOp(","));
}

}  // namespace tessera::parser_internal
