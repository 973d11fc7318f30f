// Tables made from the catalog when a query is bound, with DuckDB's columns and values:
//
//   SHOW TABLES                  name                            (ORDER BY name, by the parser)
//   DESCRIBE t, SHOW t,          column_name, column_type, null, key, default, extra
//     DESCRIBE query
//   information_schema.tables    table_catalog, table_schema, table_name, table_type
//                                ('BASE TABLE', 'VIEW', 'LOCAL TEMPORARY'), ... (13 columns)
//   information_schema.columns   table_catalog, table_schema, table_name, column_name,
//                                ordinal_position, column_default, is_nullable, data_type,
//                                ..., numeric_precision, numeric_precision_radix,
//                                numeric_scale, ... (45 columns)
//
// Each is an in-memory table snapshot (TableData built by a RowGroupWriter) scanned by an
// ordinary Get, so WHERE, ORDER BY, joins and filter pushdown work on it as on any table.
// The rows are those of the catalog snapshot at bind time; a cached plan of such a query
// stays valid while the catalog's version does, as for every other plan.
//
// A view's columns are those of its query, bound here (a view that no longer binds, e.g.
// over a dropped table, is left out of information_schema.columns). DESCRIBE says a column
// is NOT NULL ("null" = 'NO') when it is a base table's NOT NULL column passed through
// projections, filters and joins unchanged, as DuckDB does; information_schema.columns
// says 'YES' for every view column, as DuckDB does.
#include <algorithm>

#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

namespace {

// Rows of VARCHAR/INTEGER/BIGINT/BOOLEAN values for a table of the given columns.
std::shared_ptr<const TableEntry> MakeTable(std::string name, std::vector<ColumnDef> columns,
                                            const std::vector<std::vector<Value>>& rows) {
  auto entry = std::make_shared<TableEntry>();
  entry->schema.name = std::move(name);
  entry->schema.columns = std::move(columns);
  const std::vector<Type> types = entry->schema.types();
  RowGroupWriter writer(types);
  for (size_t from = 0; from < rows.size(); from += kVectorSize) {
    uint32_t n = (uint32_t)std::min<size_t>(kVectorSize, rows.size() - from);
    DataChunk chunk;
    chunk.Init(types, n);
    for (uint32_t i = 0; i < n; i++)
      for (size_t c = 0; c < types.size(); c++) chunk.cols[c].SetValue(i, rows[from + i][c]);
    chunk.size = n;
    writer.Append(chunk);
  }
  auto data = std::make_shared<TableData>();
  data->row_groups = writer.Finish();
  data->row_count = rows.size();
  entry->data = std::move(data);
  return entry;
}

std::vector<ColumnDef> VarcharColumns(std::initializer_list<const char*> names) {
  std::vector<ColumnDef> cols;
  for (const char* n : names) cols.push_back({n, Type::Varchar()});
  return cols;
}

Value Text(std::string s) { return Value::Varchar(std::move(s)); }

// Whether output column `b` of `op` is a NOT NULL column of a base table, passed up
// unchanged (DESCRIBE's "null" column for views and queries).
bool PassesNotNullColumn(const LogicalOp& op, ColumnBinding b) {
  switch (op.kind) {
    case LogicalKind::Get:
      return b.table == op.table_index && op.table->schema.columns[op.column_ids[b.column]].not_null;
    case LogicalKind::Projection: {
      if (b.table != op.table_index) return false;
      const BoundExpr& e = *op.exprs[b.column];
      return e.kind == BExpr::Column && PassesNotNullColumn(*op.children[0], e.binding);
    }
    case LogicalKind::Filter:
    case LogicalKind::Order:
    case LogicalKind::Limit:
    case LogicalKind::Join:
      for (auto& child : op.children) {
        auto bs = child->Bindings();
        if (std::find(bs.begin(), bs.end(), b) != bs.end()) return PassesNotNullColumn(*child, b);
      }
      return false;
    default: return false;  // aggregates, set operations, VALUES
  }
}

// information_schema.columns' numeric_precision, _radix and _scale of a type (DuckDB's).
void NumericFacts(const Type& t, Value* precision, Value* radix, Value* scale) {
  int p = 0, r = 2, s = 0;
  switch (t.id) {
    case TypeId::Integer: p = 32; break;
    case TypeId::BigInt: p = 64; break;
    case TypeId::Double: p = 53; break;
    case TypeId::Decimal:
      p = t.precision;
      r = 10;
      s = t.scale;
      break;
    default: return;  // NULLs
  }
  *precision = Value::Integer(p);
  *radix = Value::Integer(r);
  *scale = Value::Integer(s);
}

}  // namespace

std::vector<Binder::RelationColumn> Binder::DescribeRelation(const ast::TableRef& ref) {
  std::vector<RelationColumn> out;
  const bool temp_only = IdentEquals(ref.schema, "temp");
  if (!ref.subquery && (ref.schema.empty() || IdentEquals(ref.schema, "main") || temp_only)) {
    auto entry = temp_only ? catalog_.GetTempEntry(ref.name) : catalog_.GetEntry(ref.name);
    if (entry && !entry->is_view()) {
      for (auto& c : entry->schema.columns) out.push_back({c.name, c.type, c.not_null, c.default_sql});
      for (const KeyConstraint& key : entry->schema.keys)
        for (uint32_t c : key.columns)
          if (key.primary || !out[c].key) out[c].key = key.primary ? "PRI" : "UNI";
      return out;
    }
  }
  // A view, a CTE or a query: bind it and read its columns off the plan.
  Scope scope;
  LogicalOpPtr plan;
  if (ref.subquery) {
    plan = BindSubqueryRef(*ref.subquery, "", {}, ref.pos, scope, false);
  } else {
    ast::TableRef base(ast::TableRefKind::Base, ref.pos);
    base.name = ref.name;
    base.schema = ref.schema;
    plan = BindBaseTable(base, scope);
  }
  // A query's columns are named as its select list names them (the scope entry's names
  // are made unique, as a subquery's in FROM are; a view's stay so, as in DuckDB).
  const ScopeEntry& se = scope.entries.at(0);
  for (size_t i = 0; i < se.names.size(); i++)
    out.push_back({ref.subquery ? plan->exprs.at(i)->name : se.names[i], se.types[i],
                   PassesNotNullColumn(*plan, se.bindings[i]), {}, nullptr});
  return out;
}

LogicalOpPtr Binder::BindSystemTable(const ast::TableRef& ref, Scope& scope) {
  // The main catalog's tables and views, then the connection's temporary ones (which may
  // share a name with one of them: a list, not a map).
  std::vector<std::shared_ptr<const TableEntry>> state;
  for (auto& [name, entry] : catalog_.Snapshot()) state.push_back(entry);
  for (auto& [name, entry] : catalog_.TempSnapshot()) state.push_back(entry);
  const std::string database = catalog_.Name();
  std::shared_ptr<const TableEntry> table;
  std::vector<std::vector<Value>> rows;

  if (ref.kind == ast::TableRefKind::ShowTables) {
    std::vector<std::string> names;
    for (auto& entry : state) names.push_back(entry->schema.name);
    std::stable_sort(names.begin(), names.end(), IdentLess{});  // temporary ones among them
    for (auto& name : names) rows.push_back({Text(name)});
    table = MakeTable("show_tables", VarcharColumns({"name"}), rows);
  } else if (ref.kind == ast::TableRefKind::Describe) {
    for (auto& c : DescribeRelation(ref))
      rows.push_back({Text(c.name), Text(c.type.ToString()), Text(c.not_null ? "NO" : "YES"),
                      c.key ? Text(c.key) : Value::Null(Type::Varchar()),
                      c.default_sql.empty() ? Value::Null(Type::Varchar()) : Text(c.default_sql),
                      Value::Null(Type::Varchar())});
    table = MakeTable("describe",
                      VarcharColumns({"column_name", "column_type", "null", "key", "default", "extra"}), rows);
  } else if (IdentEquals(ref.name, "tables")) {
    for (auto& entry : state) {
      std::vector<Value> row(13, Value::Null(Type::Varchar()));
      row[0] = Text(entry->temporary ? "temp" : database);
      row[1] = Text("main");
      row[2] = Text(entry->schema.name);
      row[3] = Text(entry->is_view() ? "VIEW" : entry->temporary ? "LOCAL TEMPORARY" : "BASE TABLE");
      row[9] = Text(entry->is_view() ? "NO" : "YES");  // is_insertable_into
      row[10] = Text("NO");                             // is_typed
      rows.push_back(std::move(row));
    }
    table = MakeTable("information_schema.tables",
                      VarcharColumns({"table_catalog", "table_schema", "table_name", "table_type",
                                      "self_referencing_column_name", "reference_generation",
                                      "user_defined_type_catalog", "user_defined_type_schema",
                                      "user_defined_type_name", "is_insertable_into", "is_typed",
                                      "commit_action", "TABLE_COMMENT"}),
                      rows);
  } else if (IdentEquals(ref.name, "columns")) {
    // DuckDB's 45 columns: VARCHAR unless listed here.
    std::vector<ColumnDef> cols = VarcharColumns(
        {"table_catalog", "table_schema", "table_name", "column_name", "ordinal_position",
         "column_default", "is_nullable", "data_type", "character_maximum_length",
         "character_octet_length", "numeric_precision", "numeric_precision_radix", "numeric_scale",
         "datetime_precision", "interval_type", "interval_precision", "character_set_catalog",
         "character_set_schema", "character_set_name", "collation_catalog", "collation_schema",
         "collation_name", "domain_catalog", "domain_schema", "domain_name", "udt_catalog",
         "udt_schema", "udt_name", "scope_catalog", "scope_schema", "scope_name",
         "maximum_cardinality", "dtd_identifier", "is_self_referencing", "is_identity",
         "identity_generation", "identity_start", "identity_increment", "identity_maximum",
         "identity_minimum", "identity_cycle", "is_generated", "generation_expression",
         "is_updatable", "COLUMN_COMMENT"});
    for (int i : {4, 8, 9, 10, 11, 12, 13, 15}) cols[i].type = Type::Integer();
    cols[31].type = Type::BigInt();
    for (int i : {33, 34, 40, 43}) cols[i].type = Type::Boolean();
    for (auto& entry : state) {
      std::vector<RelationColumn> rel;
      if (!entry->is_view()) {
        for (auto& c : entry->schema.columns) rel.push_back({c.name, c.type, c.not_null, c.default_sql});
      } else {
        ast::TableRef view(ast::TableRefKind::Base, ref.pos);
        view.name = entry->schema.name;
        view.schema = entry->temporary ? "temp" : "main";  // the catalog's view, not a CTE of that name
        try {
          rel = DescribeRelation(view);
        } catch (const UserError&) {
          continue;  // a view that does not bind any more
        }
        for (auto& c : rel) c.not_null = false;
      }
      for (size_t i = 0; i < rel.size(); i++) {
        std::vector<Value> row;
        for (auto& c : cols) row.push_back(Value::Null(c.type));
        row[0] = Text(entry->temporary ? "temp" : database);
        row[1] = Text("main");
        row[2] = Text(entry->schema.name);
        row[3] = Text(rel[i].name);
        row[4] = Value::Integer((int32_t)i + 1);
        if (!rel[i].default_sql.empty()) row[5] = Text(rel[i].default_sql);
        row[6] = Text(rel[i].not_null ? "NO" : "YES");
        row[7] = Text(rel[i].type.ToString());
        NumericFacts(rel[i].type, &row[10], &row[11], &row[12]);
        rows.push_back(std::move(row));
      }
    }
    table = MakeTable("information_schema.columns", std::move(cols), rows);
  } else {
    throw UserError(ErrorKind::Catalog, "table \"information_schema." + ref.name + "\" does not exist", ref.pos);
  }
  return BindTableEntry(std::move(table), ref, scope);
}

}  // namespace tessera
