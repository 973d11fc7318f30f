// The catalog: table schemas and their data snapshots. Every change (create, drop, append)
// builds a new catalog state and commits it through the StorageBackend (atomic on disk)
// before it becomes visible; a failed commit leaves the old state in place.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/row_group.hpp"

namespace tessera {

struct ColumnDef {
  std::string name;
  Type type;
  bool not_null = false;
  // DEFAULT: the SQL text of a constant expression that INSERT gives the column when it
  // names no value for it ("" when none: NULL).
  std::string default_sql;
};

struct TableSchema {
  std::string name;
  std::vector<ColumnDef> columns;
  int Find(std::string_view col) const {
    for (size_t i = 0; i < columns.size(); i++)
      if (columns[i].name == col) return (int)i;
    return -1;
  }
  std::vector<Type> types() const {
    std::vector<Type> t;
    for (auto& c : columns) t.push_back(c.type);
    return t;
  }
};

// A table, or a view: a view keeps its query's SQL text (bound where it is used) and
// optional column names, and an empty schema and data.
struct TableEntry {
  TableSchema schema;
  std::shared_ptr<const TableData> data;
  std::string view_sql;
  std::vector<std::string> view_columns;
  // A temporary table lives in memory only, for the Database's lifetime: the storage
  // backend never sees it (Python's register(); Catalog::PutTemporaryTable).
  bool temporary = false;
  bool is_view() const { return !view_sql.empty(); }
};

using CatalogState = std::map<std::string, std::shared_ptr<const TableEntry>>;

// Persistence of a catalog state. The in-memory database has none.
class StorageBackend {
 public:
  virtual ~StorageBackend() = default;
  // Reads the committed state (column data may be mapped lazily).
  virtual CatalogState Load() = 0;
  // Durably and atomically makes `next` the committed state and returns it, with row
  // groups that were not yet persisted replaced by their persisted form. On failure it
  // throws and the previously committed state stays intact.
  virtual CatalogState Commit(const CatalogState& next) = 0;
  virtual std::string Describe() const = 0;
  // The database's name as information_schema shows it (table_catalog).
  virtual std::string Name() const = 0;
};

class Catalog {
 public:
  explicit Catalog(std::unique_ptr<StorageBackend> backend = nullptr);

  // A table (nullptr for a view or an unknown name).
  std::shared_ptr<const TableEntry> GetTable(const std::string& name) const;
  // A table or a view.
  std::shared_ptr<const TableEntry> GetEntry(const std::string& name) const;
  std::vector<std::string> TableNames() const;
  CatalogState Snapshot() const;

  void CreateTable(TableSchema schema, bool if_not_exists = false);
  // Returns false when the table did not exist and if_exists was set.
  bool DropTable(const std::string& name, bool if_exists = false);
  void CreateView(const std::string& name, std::string sql, std::vector<std::string> columns,
                  bool or_replace);
  bool DropView(const std::string& name, bool if_exists = false);
  // Creates, or with `replace` replaces, a temporary table (in memory only, never
  // persisted) holding `data`, in one change. Replacing works only on a temporary table;
  // a persistent table or a view of that name is an error.
  void PutTemporaryTable(TableSchema schema, std::shared_ptr<const TableData> data, bool replace);
  // Replaces the table `name`, which must still be `expected` (the entry the change was
  // computed from; another writer's commit in between is an error), by `next`, named
  // next->schema.name (a rename when that differs), in one commit. UPDATE, DELETE, TRUNCATE
  // and ALTER TABLE change tables this way.
  void ReplaceTable(const std::string& name, const TableEntry* expected, std::shared_ptr<const TableEntry> next);
  // Appends row groups to a table (built against its schema), atomically.
  void Append(const std::string& name, std::vector<std::shared_ptr<const RowGroup>> groups);
  bool persistent() const { return backend_ != nullptr; }
  std::string Describe() const;
  // The database's name (information_schema's table_catalog): "memory" in memory, as in
  // DuckDB; on disk the directory's name without its extension.
  std::string Name() const;
  // Counts committed changes (tables, views, appended rows): a plan made at one version is
  // valid while the version stays the same (the plan cache's check).
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

 private:
  void CommitLocked(CatalogState next);
  mutable std::mutex mu_;
  std::unique_ptr<StorageBackend> backend_;
  CatalogState state_;
  std::atomic<uint64_t> version_{0};
};

}  // namespace tessera
