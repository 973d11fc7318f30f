// The catalog: table schemas and their data snapshots. Every change (create, drop, append)
// builds a new catalog state and commits it through the StorageBackend (atomic on disk)
// before it becomes visible; a failed commit leaves the old state in place.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/identifier.hpp"
#include "storage/row_group.hpp"

namespace tessera {

class KeyIndex;

struct ColumnDef {
  std::string name;
  Type type;
  bool not_null = false;
  // DEFAULT: the SQL text of a constant expression that INSERT gives the column when it
  // names no value for it ("" when none: NULL).
  std::string default_sql;
  ColumnDef() = default;
  ColumnDef(std::string name, Type type, bool not_null = false, std::string default_sql = {})
      : name(std::move(name)), type(type), not_null(not_null), default_sql(std::move(default_sql)) {}
};

// PRIMARY KEY or UNIQUE over one or more columns (indexes into TableSchema::columns):
// no two rows have equal values in them, rows with a NULL in them excepted (a PRIMARY
// KEY's columns are NOT NULL). Enforced when a change commits (storage/key_index.hpp).
struct KeyConstraint {
  bool primary = false;
  std::vector<uint32_t> columns;
  bool operator==(const KeyConstraint&) const = default;
};

// Table and column names are kept as created and found ignoring case
// (common/identifier.hpp); no two columns of a table have equal names.
struct TableSchema {
  std::string name;
  std::vector<ColumnDef> columns;
  std::vector<KeyConstraint> keys = {};  // as declared
  // The column named `col` (in any case), or -1.
  int Find(std::string_view col) const {
    for (size_t i = 0; i < columns.size(); i++)
      if (IdentEquals(columns[i].name, col)) return (int)i;
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
  // A temporary table lives in memory only: the storage backend never sees it. Python's
  // register() (Catalog::PutTemporaryTable) puts one in the shared catalog for the
  // Database's lifetime; CREATE TEMP TABLE / VIEW one in a connection's `temp` catalog.
  bool temporary = false;
  bool is_view() const { return !view_sql.empty(); }
};

// CREATE SEQUENCE's definition, DuckDB's defaults filled in (storage/sequence.hpp checks it):
// values from `start` by `increment` within [min, max], starting over at the other end with
// `cycle`.
struct SequenceDef {
  std::string name;
  int64_t start = 1, increment = 1, min = 1, max = INT64_MAX;
  bool cycle = false;
};

class SequenceCounter;  // storage/sequence.hpp

// A sequence: its definition, and its position, which every catalog state holding the
// entry shares (nextval is not transactional, as in DuckDB: a rolled back transaction's
// values stay used).
struct SequenceEntry {
  SequenceDef def;
  std::shared_ptr<SequenceCounter> counter;
  bool temporary = false;  // CREATE TEMP SEQUENCE: a connection's, never persisted
};
using SequenceMap = IdentMap<std::shared_ptr<const SequenceEntry>>;

// Tables and views by name, found in any case; an entry's spelling is its schema.name.
// Sequences are a namespace of their own beside them (a table and a sequence may share a
// name, as in DuckDB).
struct CatalogState : IdentMap<std::shared_ptr<const TableEntry>> {
  SequenceMap sequences;
};

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
  // A transaction's catalog (main/transaction.hpp): starts as `snapshot`, the committed
  // state of `parent` (the shared catalog) at BEGIN, and keeps the transaction's changes in
  // memory. Each change first claims the tables it touches in the parent (Claim).
  // `temp`: the connection's temporary objects as the transaction sees them (a copy of
  // its `temp` catalog made at BEGIN, published back at COMMIT: main/transaction.cpp).
  Catalog(Catalog* parent, uint64_t txn, CatalogState snapshot, std::shared_ptr<Catalog> temp = nullptr);
  // A connection's catalog (main/database.cpp): its temporary objects (CREATE TEMP TABLE,
  // VIEW, SEQUENCE) in `temp`, an in-memory catalog of their own that is searched first, as
  // DuckDB's `temp` catalog is; every other name and change goes to `shared`.
  Catalog(Catalog* shared, std::shared_ptr<Catalog> temp);

  // A connection's `temp` catalog: in memory, its entries marked temporary; `state` its
  // objects to start with (a transaction's copy).
  static std::shared_ptr<Catalog> MakeTemp(CatalogState state = {});
  // The connection's temporary objects (null for the shared catalog and an in-memory one).
  const std::shared_ptr<Catalog>& temp() const { return temp_; }
  // A table or view of the main catalog (the connection's temporary objects not searched).
  std::shared_ptr<const TableEntry> GetMainEntry(const std::string& name) const;
  // A temporary table or view of the connection (`temp.name`), or null.
  std::shared_ptr<const TableEntry> GetTempEntry(const std::string& name) const;
  // Whether the connection has temporary tables, views or sequences.
  bool HasTempObjects() const;
  // The connection's temporary tables and views (empty when it has none).
  CatalogState TempSnapshot() const;
  // Makes `state` this catalog's state (a connection's `temp` catalog at its
  // transaction's COMMIT).
  void ResetState(CatalogState state);

  // A table (nullptr for a view or an unknown name). Names are found ignoring case.
  std::shared_ptr<const TableEntry> GetTable(const std::string& name) const;
  // A table or a view.
  std::shared_ptr<const TableEntry> GetEntry(const std::string& name) const;
  // The tables' and views' names as created.
  std::vector<std::string> TableNames() const;
  CatalogState Snapshot() const;

  // Creates a table, holding `groups` (built against `schema`) from its first commit:
  // CREATE TABLE AS is one commit, so a crash leaves either no table or all of its rows.
  // With `or_replace` an existing table of the name is replaced in the same commit (a view
  // of the name is an error).
  // With `temporary` (CREATE TEMP TABLE) the table goes to the connection's `temp` catalog.
  void CreateTable(TableSchema schema, bool if_not_exists = false,
                   std::vector<std::shared_ptr<const RowGroup>> groups = {}, bool or_replace = false,
                   bool temporary = false);
  // Returns false when the table did not exist and if_exists was set.
  bool DropTable(const std::string& name, bool if_exists = false);
  void CreateView(const std::string& name, std::string sql, std::vector<std::string> columns,
                  bool or_replace, bool temporary = false);
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
  bool persistent() const {
    return parent_ ? parent_->persistent() : shared_ ? shared_->persistent() : backend_ != nullptr;
  }

  // Transactions, on the shared catalog. BeginTransaction returns the transaction's id and
  // the committed state it starts from.
  uint64_t BeginTransaction(CatalogState* snapshot);
  // Publishes the changes `txn_catalog` holds relative to its snapshot (tables, views,
  // drops) in one commit, then ends the transaction (also when it throws: a conflict, or
  // the storage's error, leaves the committed state as it was).
  void CommitTransaction(uint64_t txn, const Catalog& txn_catalog);
  // Ends a transaction without publishing anything (ROLLBACK): releases its claims.
  void EndTransaction(uint64_t txn);
  std::string Describe() const;
  // The database's name (information_schema's table_catalog): "memory" in memory, as in
  // DuckDB; on disk the directory's name without its extension.
  std::string Name() const;
  // Counts committed changes (tables, views, sequences, appended rows; a connection's
  // catalog adds its temporary objects' count): a plan made at one version is valid while
  // the version stays the same (the plan cache's check).
  uint64_t version() const;

  // Sequences (CREATE SEQUENCE): the connection's temporary ones searched first.
  std::shared_ptr<const SequenceEntry> GetSequence(const std::string& name) const;
  // Creates a sequence (`temporary`: in the connection's `temp` catalog); with
  // `if_not_exists` an existing one is kept, with `or_replace` replaced.
  void CreateSequence(const SequenceDef& def, bool temporary, bool if_not_exists, bool or_replace);
  // Returns false when the sequence did not exist and if_exists was set.
  bool DropSequence(const std::string& name, bool if_exists);
  // Writes the sequences' positions that nextval moved since the last commit (a manifest
  // switch; nothing without a storage backend or without such a move). Connection calls it
  // after each statement outside a transaction and after COMMIT.
  void PersistSequences();

 private:
  // Makes `next` the state (through the backend, if any). `txn`: the transaction whose
  // COMMIT this is (0 for a statement outside transactions): a change to a table another
  // open transaction has claimed is a conflict.
  void CommitLocked(CatalogState next, uint64_t txn = 0);
  // Shared catalog: records that transaction `txn` (whose snapshot is `base`) changes the
  // tables where `next` differs from `base` other than by appended row groups. Throws UserError(Transaction) when another
  // open transaction has claimed one of them or one was committed since `base`.
  void Claim(uint64_t txn, const CatalogState& base, const CatalogState& next);
  // The key index of table `name` for its committed snapshot `entry` (built on first use
  // and kept up to date by Append), for tables with PRIMARY KEY / UNIQUE constraints.
  std::shared_ptr<KeyIndex> KeyIndexLocked(const std::string& name, const TableEntry& entry);
  mutable std::mutex mu_;
  IdentMap<std::shared_ptr<KeyIndex>> key_indexes_;
  // A transaction's catalog: the shared one, the transaction, its snapshot at BEGIN.
  Catalog* parent_ = nullptr;
  uint64_t txn_ = 0;
  CatalogState base_;
  // The shared catalog: open transactions, and the tables each has changed.
  uint64_t next_txn_ = 1;
  IdentMap<uint64_t> claims_;
  // A connection's catalog: the shared catalog everything but temporary objects goes to.
  Catalog* shared_ = nullptr;
  // The connection's temporary objects (a connection's or a transaction's catalog).
  std::shared_ptr<Catalog> temp_;
  // temp_, when it holds a table or view `name` (those are found there first).
  Catalog* TempHolding(const std::string& name) const;
  // A `temp` catalog (MakeTemp): what it creates is marked temporary.
  bool holds_temporary_ = false;
  std::unique_ptr<StorageBackend> backend_;
  CatalogState state_;
  std::atomic<uint64_t> version_{0};
};

}  // namespace tessera
