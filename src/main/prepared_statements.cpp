#include "main/prepared_statements.hpp"

#include "main/prepared_query.hpp"
#include "main/statement_executor.hpp"
#include "parser/parser.hpp"

namespace tessera {

namespace {

// A position in `sub`'s text (the body with literals written in) as one in the text the
// body was written in (starting at `body_pos`).
SourcePos OriginalPosition(const Substitution& sub, std::string_view body, SourcePos body_pos, SourcePos pos) {
  int64_t off = ByteOffset(sub.sql(), pos);
  if (off < 0) return body_pos;
  SourcePos in_body = PositionAt(body, sub.OriginalOffset(off));
  if (in_body.line == 1) return {body_pos.line, body_pos.col + in_body.col - 1};
  return {body_pos.line + in_body.line - 1, in_body.col};
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool Preparable(ast::StmtKind k) {
  return k == ast::StmtKind::Select || k == ast::StmtKind::Insert || k == ast::StmtKind::Update ||
         k == ast::StmtKind::Delete;
}

}  // namespace

QueryResult PreparedStatements::Prepare(Database& db, const ast::PrepareStatement& stmt) {
  Entry e{stmt.body, stmt.body_pos, FindPlaceholders(stmt.body)};
  if (!e.placeholders.error.empty()) {
    SourcePos at = PositionAt(stmt.body, (int64_t)e.placeholders.error_offset);
    at = at.line == 1 ? SourcePos{stmt.body_pos.line, stmt.body_pos.col + at.col - 1}
                      : SourcePos{stmt.body_pos.line + at.line - 1, at.col};
    throw UserError(ErrorKind::Syntax, e.placeholders.error, at);
  }
  // Checked with 1 for every parameter (a literal that stands wherever a value may, LIMIT
  // too): the syntax, and the tables, columns and functions a SELECT names.
  std::vector<std::string> ones(e.placeholders.count, "1");
  Substitution sub(stmt.body, e.placeholders, ones);
  try {
    auto parsed = ParseSQL(sub.sql());
    if (parsed.size() != 1) throw UserError(ErrorKind::Syntax, "PREPARE takes one statement", stmt.body_pos);
    if (!Preparable(parsed[0]->kind))
      throw UserError(ErrorKind::Syntax, "only SELECT, INSERT, UPDATE and DELETE can be prepared", parsed[0]->pos);
    if (parsed[0]->kind == ast::StmtKind::Select) {
      try {
        PrepareSelect(db, *static_cast<const ast::SelectStatement&>(*parsed[0]).select, /*allow_gpu=*/false);
      } catch (const UserError& err) {
        // Only names that do not exist (tables, columns, functions) are errors before the
        // values are known: 1 stands where a value of another type may be needed.
        if (err.kind() == ErrorKind::Catalog ||
            (err.kind() == ErrorKind::Binder && err.raw().find("does not exist") != std::string::npos))
          throw;
      }
    }
  } catch (const UserError& err) {
    throw UserError(err.kind(), err.raw(), OriginalPosition(sub, stmt.body, stmt.body_pos, err.pos()));
  }
  statements_[stmt.name] = std::move(e);
  return Status("PREPARE");
}

ast::StatementPtr PreparedStatements::Bind(Database& db, const ast::ExecuteStatement& stmt) const {
  auto it = statements_.find(stmt.name);
  if (it == statements_.end())
    throw UserError(ErrorKind::Binder, "Prepared statement \"" + stmt.name + "\" does not exist", stmt.pos);
  const Entry& e = it->second;
  const Placeholders& ph = e.placeholders;
  const size_t given = stmt.args ? stmt.args->select_list.size() : 0;
  bool any_named = false, any_positional = false;
  for (auto& n : stmt.arg_names) (n.empty() ? any_positional : any_named) = true;
  if (any_named && any_positional)
    throw UserError(ErrorKind::Unsupported, "mixing named and positional parameters in EXECUTE is not supported",
                    stmt.pos);
  // Which argument each parameter takes (-1: none given), and the arguments no parameter takes.
  std::vector<int> source(ph.count, -1);
  std::vector<std::string> excess;
  for (size_t a = 0; a < given; a++) {
    if (any_named) {
      const int k = IdentFind(ph.names, stmt.arg_names[a]);
      if (k >= 0) source[k] = (int)a;  // the last of repeated names wins, as in DuckDB
      else excess.push_back(stmt.arg_names[a]);
    } else if (a < ph.count && ph.names.empty()) {
      source[a] = (int)a;
    } else {
      excess.push_back(std::to_string(a + 1));
    }
  }
  std::vector<std::string> missing;
  for (size_t k = 0; k < ph.count; k++)
    if (source[k] < 0) missing.push_back(ph.names.empty() ? std::to_string(k + 1) : ph.names[k]);
  if (!missing.empty())
    throw UserError(ErrorKind::Input,
                    "Values were not provided for the following prepared statement parameters: " + JoinNames(missing),
                    stmt.pos);
  if (!excess.empty())
    throw UserError(ErrorKind::Input,
                    "Parameter argument/count mismatch, identifiers of the excess parameters: " + JoinNames(excess),
                    stmt.pos);
  std::vector<std::string> literals(ph.count);
  if (given > 0) {
    // The arguments, evaluated as one row: SELECT arg, ...
    QueryResult values = RunSelect(db, *stmt.args);
    if (values.row_count != 1) throw InternalError("EXECUTE's arguments gave no row");
    for (size_t k = 0; k < ph.count; k++) {
      try {
        literals[k] = SqlLiteral(values.GetValue((size_t)source[k], 0));
      } catch (const UserError& err) {
        throw UserError(err.kind(), err.raw(), stmt.arg_pos[(size_t)source[k]]);
      }
    }
  }
  Substitution sub(e.body, ph, literals);
  try {
    auto parsed = ParseSQL(sub.sql());
    if (parsed.size() != 1) throw InternalError("a prepared statement became several");
    return std::move(parsed[0]);
  } catch (const UserError& err) {
    throw UserError(err.kind(), err.raw(), stmt.pos);
  }
}

QueryResult PreparedStatements::Deallocate(const ast::DeallocateStatement& stmt) {
  statements_.erase(stmt.name);
  return Status("DEALLOCATE");
}

}  // namespace tessera
