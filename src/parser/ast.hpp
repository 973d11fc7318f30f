// Abstract syntax tree produced by the parser. Every node carries the source position of
// its first token so that the binder can report errors as "line L, column C: ...".
// Identifiers are stored lower-cased unless they were double-quoted.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/types.hpp"

namespace tessera::ast {

struct SelectStmt;
struct Expr;
struct WindowSpec;
using ExprPtr = std::unique_ptr<Expr>;

// Limits enforced by the parser so that recursive passes over the AST stay bounded:
// parentheses/subqueries/unary operators nest at most kMaxNestingDepth deep, and no tree
// (expressions, joins, set-operation chains, subqueries included) is taller than
// kMaxTreeHeight nodes.
inline constexpr int kMaxNestingDepth = 1000;
inline constexpr int kMaxTreeHeight = 4000;

enum class ExprKind {
  Column,     // [table.]name                       (table, name)
  Star,       // * or table.*                      (table)
  Literal,    // constant                           (lit, text)
  Unary,      // op child                           (op, children[0])
  Binary,     // left op right                      (op, children[0..1])
  Between,    // c0 [NOT] BETWEEN c1 AND c2         (negated)
  InList,     // c0 [NOT] IN (c1, c2, ...)          (negated)
  InSubquery, // c0 [NOT] IN (SELECT ...)           (negated, subquery)
  Exists,     // [NOT] EXISTS (SELECT ...)          (negated, subquery)
  Subquery,   // (SELECT ...) as a scalar           (subquery)
  Like,       // c0 [NOT] LIKE c1 [ESCAPE c2]       (negated; text "ilike": ILIKE, c0 and c1 wrapped in lower())
  Case,       // CASE [operand] WHEN.. THEN.. [ELSE] (has_operand, has_else, children)
  Cast,       // CAST(c0 AS type) or c0::type       (cast_type; negated: TRY_CAST)
  Function,   // name([DISTINCT] args) or COUNT(*)  (name, distinct, star_arg, children)
  Extract,    // EXTRACT(field FROM c0)             (name = field, lower-case)
  Interval,   // INTERVAL 'n' unit                  (text = n, name = unit, lower-case; or
              //   text = the whole string and no name: INTERVAL '1 day 02:00:00')
  IsNull,     // c0 IS [NOT] NULL                   (negated); with text "true"/"false":
              //   c0 IS [NOT] TRUE/FALSE; with text "distinct": c0 IS [NOT] DISTINCT FROM c1
};

// SQL's functions written without parentheses (CURRENT_DATE, CURRENT_TIMESTAMP,
// LOCALTIMESTAMP): the parser makes Function nodes of them, and a result column is named
// by the bare word, as DuckDB names it.
inline bool IsKeywordFunction(std::string_view lower_name) {
  return lower_name == "current_date" || lower_name == "current_timestamp" || lower_name == "localtimestamp";
}

enum class LiteralKind { Null, Integer, Decimal, Float, String, Boolean, Date };

enum class Op {
  // unary
  Not, Neg, Plus,
  // binary
  And, Or, Eq, Ne, Lt, Le, Gt, Ge, Add, Sub, Mul, Div, IntDiv, Mod, Concat,
};

// A binary arithmetic, comparison or concatenation operator's SQL symbol ("<>" for Ne);
// "?" for the others.
inline const char* OpSymbol(Op op) {
  switch (op) {
    case Op::Eq: return "=";
    case Op::Ne: return "<>";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Mod: return "%";
    case Op::IntDiv: return "//";
    case Op::Concat: return "||";
    default: return "?";
  }
}

struct OrderItem {
  ExprPtr expr;
  bool desc = false;
  std::optional<bool> nulls_first;  // default: NULLS LAST, for ASC and DESC (as DuckDB)
};

struct Expr {
  ExprKind kind;
  SourcePos pos;
  std::string table;  // Column/Star qualifier
  // Column name (as written, like every identifier in the AST: names are compared ignoring
  // case, common/identifier.hpp); Function name (lower-case); Extract field; Interval unit
  std::string name;
  LiteralKind lit = LiteralKind::Null;
  std::string text;   // Literal text: digits as written, string contents unescaped,
                      // "true"/"false", date string for DATE 'yyyy-mm-dd'
  Op op = Op::Not;
  bool negated = false;
  bool distinct = false;
  bool star_arg = false;
  bool has_filter = false;   // Function: an aggregate's FILTER (WHERE cond) is the last child
  std::vector<OrderItem> order_by;  // Function: an aggregate's ORDER BY inside its parentheses
  bool has_operand = false;  // CASE x WHEN ...: children[0] is the operand
  bool has_else = false;     // last child is the ELSE result
  Type cast_type;
  std::vector<ExprPtr> children;  // CASE: [operand], when1, then1, when2, then2, ..., [else]
                                  // Star: the REPLACE expressions (star_replace[i] names children[i])
  // Star: * EXCLUDE (cols) REPLACE (expr AS col, ...) (parse_star.cpp). An EXCLUDE entry
  // may be qualified (t.a): {qualifier or "", name}.
  std::vector<std::pair<std::string, std::string>> star_exclude;
  std::vector<std::string> star_replace;
  // Star written as COLUMNS(...) (parse_star.cpp), which may stand inside an expression
  // (`max(COLUMNS('p.*')) + 1`): COLUMNS(*) / COLUMNS(t.*) with the modifiers above,
  // COLUMNS('regex') (columns_regex, the pattern in `text`), COLUMNS(['a', 'b'])
  // (columns_list, the names in columns_names), COLUMNS(c -> cond) (columns_lambda). The binder repeats the expression around
  // it once per column it selects (bind_columns_star.cpp).
  bool columns = false;
  bool columns_regex = false;
  bool columns_list = false;
  // COLUMNS(c -> cond) / COLUMNS(lambda c: cond): the columns whose name makes cond true,
  // the parameter in `name`, cond the only child.
  bool columns_lambda = false;
  std::vector<std::string> columns_names;
  std::unique_ptr<SelectStmt> subquery;
  // Function: a window function call, name(args) OVER (...) (parse_window.cpp); with
  // IGNORE NULLS written inside the call's parentheses.
  std::shared_ptr<WindowSpec> over;
  bool ignore_nulls = false;
  int height = 1;  // set by the parser: height of this subtree incl. subqueries (leaf = 1)

  explicit Expr(ExprKind k, SourcePos p = {}) : kind(k), pos(p) {}
};

// Describe: the columns of a table, view or query (DESCRIBE/SHOW name, DESCRIBE query);
// ShowTables: the names of the tables and views (SHOW TABLES). Both are bound to rows
// made from the catalog (planner/bind_system_table.cpp).
// TableFunction: a file read as a table, FROM 'file' (name empty) or FROM name(args), e.g.
// read_parquet('dir/*.parquet'), read_csv('f.csv', header = true)
// (planner/bind_table_function.cpp, storage/file_table.hpp); also range(...) and
// generate_series(...).
// USING SAMPLE (a query's FROM items, before WHERE) and TABLESAMPLE (one FROM item):
// `size` rows (ROWS, or no unit) or percent of the rows (`%`, PERCENT), by a method
// (parse_sample.cpp; the default made explicit there: System for a percentage, Reservoir
// for a count) with an optional seed (REPEATABLE (n), or (method, n)).
enum class SampleMethod { System, Bernoulli, Reservoir };
struct SampleSpec {
  SourcePos pos;
  double size = 0;
  bool percent = false;
  SampleMethod method = SampleMethod::Reservoir;
  std::optional<int64_t> seed;
};

// Summarize: SUMMARIZE name | SUMMARIZE query (parse_summarize.cpp), DuckDB's statistics of
// each column (planner/bind_summarize.cpp).
// Pivot: PIVOT / UNPIVOT, as a statement or after a FROM item (parse_pivot.cpp); the binder
// rewrites it into a query over the pivoted item (planner/bind_pivot.cpp).
enum class TableRefKind { Base, Join, Subquery, Describe, ShowTables, TableFunction, Summarize, Pivot };

// PIVOT's and UNPIVOT's parts (parse_pivot.cpp). Every expression is kept parsed (for its
// column references) and as its source text (the binder writes the rewrite in SQL).
struct PivotValue {  // a value of a PIVOT ... IN list
  std::string text;   // the expression as written; a bare name (`IN (x, y)`) is its spelling
  bool name = false;  // a bare name: the value is the name as a string (as DuckDB reads it)
  std::string alias;  // IN (v AS alias): the column's name
  SourcePos pos;
};
struct PivotOn {  // PIVOT ... ON expr [IN (values)]
  ExprPtr expr;
  std::string text;
  bool has_in = false;  // without IN the binder finds the expression's distinct values
  std::vector<PivotValue> in;
  SourcePos pos;
};
struct PivotAggregate {  // USING agg [AS alias]
  ExprPtr expr;
  std::string text;
  std::string alias;
  SourcePos pos;
};
struct UnpivotEntry {  // UNPIVOT ... ON col | (c1, c2) [AS alias] | * | COLUMNS(...)
  std::vector<std::string> columns;
  std::string alias;  // the name column's value ("" : the column's name)
  ExprPtr star;       // `*` / COLUMNS(...) instead of columns
  SourcePos pos;
};
struct PivotSpec {
  bool unpivot = false;
  std::string source;  // the pivoted FROM item's text (a table, a query in parentheses, ...)
  SourcePos source_pos;
  // PIVOT: ON, USING (none: count(*)), GROUP BY (none: every column not in ON or USING).
  std::vector<PivotOn> on;
  std::vector<PivotAggregate> aggregates;
  std::vector<PivotAggregate> group_by;  // (alias unused)
  bool has_group_by = false;
  // UNPIVOT: the columns unpivoted, INTO NAME name VALUE value [, value2 ...], INCLUDE NULLS.
  std::vector<UnpivotEntry> entries;
  std::string name_column = "name";
  std::vector<std::string> value_columns = {"value"};
  bool include_nulls = false;
};
enum class JoinType { Inner, Left, Right, Full, Cross };

struct TableRef {
  TableRefKind kind;
  SourcePos pos;
  std::string name;   // Base: table name; Describe: the relation described (or subquery)
  std::string schema; // Base: the qualifier of schema.name ("" when none)
  std::string alias;  // optional alias (Base, Subquery)
  std::vector<std::string> column_aliases;  // alias(c1, c2, ...)
  JoinType join_type = JoinType::Inner;
  std::unique_ptr<TableRef> left, right;  // Join
  ExprPtr on;                             // Join condition (absent for CROSS/comma)
  // Join ... USING (c, ...): the columns both sides are joined on by name (set instead of
  // `on`); NATURAL JOIN: every column name the two sides share (`natural`, no list).
  std::vector<std::string> using_columns;
  bool natural = false;
  // Join: ASOF [LEFT | RIGHT | FULL] JOIN (`join_type` Inner, Left, Right or Full): each left
  // row joins the one right row with equal keys whose inequality column is nearest (the
  // binder splits `on` into equalities and exactly one inequality; USING's last column is
  // the inequality, left >= right).
  bool asof = false;
  // Subquery: LATERAL (it may refer to the FROM items before it)
  bool lateral = false;
  std::unique_ptr<SelectStmt> subquery;   // Subquery; Describe of a query
  // TableFunction: the file names or glob patterns (positional arguments: strings or
  // ['a', 'b'] lists) and the named arguments (name = value), values as written.
  std::vector<std::string> func_paths;
  std::vector<std::pair<std::string, std::string>> func_options;
  // Other positional arguments (expressions: range(1, 10)), in order.
  std::vector<ExprPtr> func_args;
  // FROM item TABLESAMPLE ... (Base, Subquery, TableFunction).
  std::optional<SampleSpec> sample;
  // Summarize of a query: the query's text as written.
  std::string query_text;
  // Pivot: what to pivot or unpivot.
  std::unique_ptr<PivotSpec> pivot;
  explicit TableRef(TableRefKind k, SourcePos p = {}) : kind(k), pos(p) {}
};
using TableRefPtr = std::unique_ptr<TableRef>;

struct SelectItem {
  ExprPtr expr;
  std::string alias;  // empty when none
};

// A window's frame bound: UNBOUNDED PRECEDING, n PRECEDING, CURRENT ROW, n FOLLOWING,
// UNBOUNDED FOLLOWING (offset: n, an expression).
enum class FrameBoundKind { UnboundedPreceding, Preceding, CurrentRow, Following, UnboundedFollowing };
enum class FrameUnit { Default, Rows, Range, Groups };  // Default: no frame clause written
enum class FrameExclude { NoOthers, CurrentRow, Group, Ties };  // EXCLUDE ... after a frame
struct FrameBound {
  FrameBoundKind kind = FrameBoundKind::UnboundedPreceding;
  ExprPtr offset;
  SourcePos pos;
};

// OVER ([name] [PARTITION BY ...] [ORDER BY ...] [frame]) or OVER name. `name` refers to a
// window of the query's WINDOW clause, which this one extends.
struct WindowSpec {
  SourcePos pos;
  std::string name;
  std::vector<ExprPtr> partitions;
  std::vector<OrderItem> orders;
  FrameUnit unit = FrameUnit::Default;
  FrameBound start, end;
  FrameExclude exclude = FrameExclude::NoOthers;
};

struct CommonTableExpr {
  // WITH RECURSIVE: the query (anchor UNION [ALL] recursive part) may refer to its own name.
  bool recursive = false;
  std::string name;
  std::vector<std::string> column_aliases;
  std::unique_ptr<SelectStmt> query;
  SourcePos pos;
};

// UNION [ALL], INTERSECT [ALL], EXCEPT [ALL] (DISTINCT, the default, is the plain kind).
enum class SetOpKind { None, UnionAll, Union, Intersect, IntersectAll, Except, ExceptAll };

// A query node is one of: a SELECT core (select_list non-empty), a set operation
// (set_op != None: set_left op set_right, nothing else but ctes and the tail), or a VALUES
// list (values non-empty). Any node may carry WITH (ctes) and ORDER BY/LIMIT/OFFSET, which
// apply to the node's whole result.

struct SelectStmt {
  SourcePos pos;
  std::vector<CommonTableExpr> ctes;
  bool distinct = false;
  // SELECT DISTINCT ON (exprs): the first row (in ORDER BY's order) of each distinct value
  // of exprs (`distinct` stays false).
  std::vector<ExprPtr> distinct_on;
  std::vector<SelectItem> select_list;
  std::vector<TableRefPtr> from;  // comma-separated items (cross product)
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  // GROUP BY with GROUPING SETS, ROLLUP, CUBE or (): the sets grouped by, each a list of
  // indices into group_by (the product of the items' sets, as SQL defines). Empty for a
  // plain GROUP BY (one set of every expression).
  std::vector<std::vector<uint32_t>> grouping_sets;
  // GROUP BY ALL: every select-list item without an aggregate (group_by empty).
  bool group_by_all = false;
  SourcePos group_by_all_pos;
  ExprPtr having;
  std::vector<std::pair<std::string, std::shared_ptr<WindowSpec>>> windows;  // WINDOW w AS (...)
  ExprPtr qualify;
  // USING SAMPLE ...: a sample of the FROM items' rows, taken before WHERE.
  std::optional<SampleSpec> sample;
  std::vector<OrderItem> order_by;
  // ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST]: every output column, left to right
  // (order_by empty; the item's expr is null).
  std::optional<OrderItem> order_by_all;
  std::optional<int64_t> limit;
  std::optional<double> limit_percent;  // LIMIT p% / LIMIT p PERCENT (0 to 100): the first floor(rows * p / 100) rows
  std::optional<int64_t> offset;
  // Set operation: set_left op set_right (INTERSECT binds tighter than UNION and EXCEPT,
  // which associate to the left); set_pos is the operator's position.
  SetOpKind set_op = SetOpKind::None;
  bool set_by_name = false;  // UNION [ALL] BY NAME: operands' columns matched by name
  std::unique_ptr<SelectStmt> set_left, set_right;
  SourcePos set_pos;
  // VALUES (...), (...): rows of equal length.
  std::vector<std::vector<ExprPtr>> values;
};

struct ColumnDefAst {
  std::string name;
  Type type;
  bool not_null = false;
  SourcePos pos;
  ExprPtr default_value;    // DEFAULT e (a constant expression), or null
  std::string default_sql;  // its text as written
};

enum class StmtKind {
  Select, CreateTable, DropTable, Insert, Copy, Explain, Set, CreateView, DropView, Update, Delete, AlterTable, Transaction,
  Analyze, Prepare, Execute, Deallocate, Checkpoint, CreateSequence, DropSequence
};

struct Statement {
  StmtKind kind;
  SourcePos pos;
  std::string sql;  // the statement's own text (for EXPLAIN, views, timing output)
  explicit Statement(StmtKind k, SourcePos p = {}) : kind(k), pos(p) {}
  virtual ~Statement() = default;
};
using StatementPtr = std::unique_ptr<Statement>;

struct SelectStatement : Statement {
  std::unique_ptr<SelectStmt> select;
  SelectStatement() : Statement(StmtKind::Select) {}
};

// PRIMARY KEY (cols) or UNIQUE (cols), written after a column or as a table constraint.
struct KeyConstraintAst {
  bool primary = false;
  std::vector<std::string> columns;
  SourcePos pos;
};

struct CreateTableStatement : Statement {
  std::string table;
  bool if_not_exists = false;
  bool or_replace = false;  // CREATE OR REPLACE TABLE: an existing table of the name is replaced
  std::vector<ColumnDefAst> columns;
  std::vector<KeyConstraintAst> keys;  // in the order written
  std::unique_ptr<SelectStmt> as_select;  // CREATE TABLE t AS SELECT ...
  bool temporary = false;  // CREATE TEMP[ORARY] TABLE (or a name qualified by `temp`)
  CreateTableStatement() : Statement(StmtKind::CreateTable) {}
};

enum class TransactionOp { Begin, Commit, Rollback };

// BEGIN / COMMIT / ROLLBACK and their synonyms (parse_transaction.cpp).
struct TransactionStatement : Statement {
  TransactionOp op = TransactionOp::Begin;
  TransactionStatement() : Statement(StmtKind::Transaction) {}
};

struct DropStatement : Statement {
  std::string name;
  bool if_exists = false;
  explicit DropStatement(StmtKind k) : Statement(k) {}  // DropTable, DropView or DropSequence
};

// ANALYZE [table]: refreshes the statistics (distinct-count sketches) of one table or all.
struct AnalyzeStatement : Statement {
  std::string table;  // empty: every table
  std::vector<std::string> columns;  // ANALYZE t (a, b): checked to exist
  SourcePos table_pos;
  AnalyzeStatement() : Statement(StmtKind::Analyze) {}
};

// Upserts (parse_insert.cpp, main/upsert.cpp): INSERT ... ON CONFLICT [(cols)] DO NOTHING |
// DO UPDATE SET c = e, ... [WHERE p]; INSERT OR IGNORE (DO NOTHING) and INSERT OR REPLACE
// (DO UPDATE of every inserted column to its new value).
enum class OnConflict { None, Nothing, Update, Replace };

// The table of the rows an upsert's DO UPDATE would have inserted, `EXCLUDED.c`, with the
// row number of the row each conflicts with as one more column (main/upsert.cpp).
inline constexpr const char* kExcludedTable = "excluded";
inline constexpr const char* kConflictRowColumn = "__tessera_conflict_row";

struct InsertStatement : Statement {
  std::string table;
  std::string alias;                          // INSERT INTO t AS a
  std::vector<std::string> columns;           // empty: all, in table order
  bool by_name = false;                       // INSERT INTO t BY NAME query: its columns by their names
  std::vector<std::vector<ExprPtr>> rows;     // VALUES (...), (...)
  std::unique_ptr<SelectStmt> select;         // INSERT INTO t SELECT ...
  OnConflict on_conflict = OnConflict::None;
  SourcePos conflict_pos;                     // ON CONFLICT, INSERT OR ...
  std::vector<std::string> conflict_columns;  // ON CONFLICT (cols): the constraint's columns
  // DO UPDATE: the SET targets, and the SELECT of the changes, like UPDATE's: SELECT
  // t.__tessera_row_id, e, ... FROM t [AS a], excluded WHERE t.__tessera_row_id =
  // excluded.__tessera_conflict_row [AND (p)].
  std::vector<std::string> set_columns;
  std::vector<SourcePos> set_pos;
  std::unique_ptr<SelectStmt> update_select;
  // RETURNING list: SELECT list FROM t (the table's name: DuckDB's RETURNING does not see
  // INSERT's alias), run over the rows inserted or updated (main/returning.cpp); or null.
  std::unique_ptr<SelectStmt> returning;
  InsertStatement() : Statement(StmtKind::Insert) {}
};

// COPY table FROM 'file', COPY table TO 'file', COPY (query) TO 'file'.
struct CopyStatement : Statement {
  bool to = false;                    // COPY ... TO (writes the file)
  std::string table;                  // empty for COPY (query) TO
  std::unique_ptr<SelectStmt> query;  // COPY (query) TO; COPY table TO is SELECT * FROM table
  std::string path;
  SourcePos path_pos;
  // Options, names lower-cased, values as written: delimiter, header, null, quote, ...
  std::vector<std::pair<std::string, std::string>> options;
  CopyStatement() : Statement(StmtKind::Copy) {}
};

struct ExplainStatement : Statement {
  bool analyze = false;
  std::vector<std::string> options;  // e.g. "kernels"
  std::vector<std::pair<std::string, std::string>> values;  // DEVICE gpu, FORMAT json (names lower-case)
  StatementPtr inner;
  ExplainStatement() : Statement(StmtKind::Explain) {}
};

struct SetStatement : Statement {
  std::string name;   // lower-case
  std::string value;  // literal text (string contents or identifier/number as written)
  SetStatement() : Statement(StmtKind::Set) {}
};

struct CreateViewStatement : Statement {
  std::string name;
  bool or_replace = false;
  std::vector<std::string> column_aliases;
  std::unique_ptr<SelectStmt> query;
  std::string query_sql;  // the SELECT's text, stored in the catalog
  bool temporary = false;  // CREATE TEMP[ORARY] VIEW
  CreateViewStatement() : Statement(StmtKind::CreateView) {}
};

// CREATE [OR REPLACE] [TEMP] SEQUENCE [IF NOT EXISTS] name [options] (parse_sequence.cpp):
// the options as written (unset: DuckDB's defaults, storage/sequence.hpp).
struct CreateSequenceStatement : Statement {
  std::string name;
  bool or_replace = false, if_not_exists = false, temporary = false;
  std::optional<int64_t> start, increment, min, max;
  bool cycle = false;
  CreateSequenceStatement() : Statement(StmtKind::CreateSequence) {}
};

// The name of the row number column UPDATE and DELETE read: their `select` scans the table
// with this column appended (main/data_change.cpp); no table may have a column of this name.
inline constexpr const char* kRowIdColumn = "__tessera_row_id";

// UPDATE t [AS a] SET c = e, ... [FROM items] [WHERE p] [RETURNING list]. The parser makes `select`, which the executor
// runs over the table with its row numbers: SELECT __tessera_row_id, e, ... FROM t [AS a]
// [WHERE p]; the rows it returns are the rows to change and their new values.
struct UpdateStatement : Statement {
  std::string table;
  std::vector<std::string> columns;  // SET targets, in order (the select's items after the row id)
  std::vector<SourcePos> column_pos;
  std::unique_ptr<SelectStmt> select;
  // RETURNING list: SELECT list FROM t [AS a], run over the changed rows' new values
  // (main/returning.cpp); or null.
  std::unique_ptr<SelectStmt> returning;
  UpdateStatement() : Statement(StmtKind::Update) {}
};

// DELETE FROM t [AS a] [USING items] [WHERE p] [RETURNING list] (select: SELECT __tessera_row_id FROM t [WHERE p]), and
// TRUNCATE [TABLE] t (truncate set, select null).
struct DeleteStatement : Statement {
  std::string table;
  bool truncate = false;
  std::unique_ptr<SelectStmt> select;
  // RETURNING list: SELECT list FROM t [AS a], run over the deleted rows
  // (main/returning.cpp); or null.
  std::unique_ptr<SelectStmt> returning;
  DeleteStatement() : Statement(StmtKind::Delete) {}
};

// ALTER TABLE t ADD [COLUMN] [IF NOT EXISTS] def [DEFAULT literal] | DROP [COLUMN] [IF
// EXISTS] c | RENAME [COLUMN] a TO b | RENAME TO n.
enum class AlterAction { AddColumn, DropColumn, RenameColumn, RenameTable };
struct AlterTableStatement : Statement {
  std::string table;
  AlterAction action = AlterAction::AddColumn;
  ColumnDefAst column;      // AddColumn (with its DEFAULT)
  std::string name;         // DropColumn, RenameColumn: the column
  std::string new_name;     // RenameColumn, RenameTable
  bool if_exists = false;   // ALTER TABLE IF EXISTS t; DROP COLUMN IF EXISTS; ADD COLUMN IF NOT EXISTS
  bool column_if = false;
  AlterTableStatement() : Statement(StmtKind::AlterTable) {}
};

// PREPARE name AS statement: the statement's text, its `?` / `$1` / `$name` placeholders
// left in it (main/prepared_statements.cpp finds them).
struct PrepareStatement : Statement {
  std::string name;  // as written (found ignoring case, as identifiers are)
  std::string body;  // the statement's text
  SourcePos body_pos;
  PrepareStatement() : Statement(StmtKind::Prepare) {}
};

// EXECUTE name [(value, ... | param := value, ...)].
struct ExecuteStatement : Statement {
  std::string name;
  // SELECT arg, ...: the arguments, evaluated once per EXECUTE (null without arguments).
  std::unique_ptr<SelectStmt> args;
  std::vector<std::string> arg_names;  // per argument: its parameter's name (`name := v`) or ""
  std::vector<SourcePos> arg_pos;
  ExecuteStatement() : Statement(StmtKind::Execute) {}
};

// DEALLOCATE [PREPARE] name.
struct DeallocateStatement : Statement {
  std::string name;
  DeallocateStatement() : Statement(StmtKind::Deallocate) {}
};

}  // namespace tessera::ast
