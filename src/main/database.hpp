// Public API: a Database (in memory, or a directory on disk) and Connections that run SQL.
// The CLI is a thin client of this API.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/value.hpp"
#include "common/vector.hpp"
#include "execution/result_consumer.hpp"
#include "model/pipeline_run.hpp"
#include "storage/catalog.hpp"

namespace tessera {

struct QueryResult {
  std::vector<std::string> names;
  std::vector<Type> types;
  std::vector<DataChunk> chunks;  // result rows, in order
  uint64_t row_count = 0;
  // For statements without a result set: a status line such as "COPY 6001171".
  std::string message;
  bool has_rows = false;  // true for SELECT/EXPLAIN results (even with zero rows)
  double elapsed_ms = 0;
  // Where a SELECT ran: "cpu", "gpu" (every table scan on the GPU) or "gpu+cpu"; with the
  // GPU's cold costs and device time (ms), and a note when the GPU handed a query back.
  std::string device = "cpu";
  double gpu_compile_ms = 0, gpu_transfer_ms = 0, gpu_kernel_ms = 0;
  uint64_t gpu_transfer_bytes = 0;  // bytes copied to the device for the columns this run uploaded
  uint64_t gpu_column_bytes = 0;    // those columns' device bytes (more: stored encodings decoded there)
  double gpu_open_ms = 0;           // waiting for the GPU to open (its first query only)
  std::string note;
  // Per pipeline of a SELECT: device, rows, time and memory traffic (the cost model's input).
  std::vector<model::PipelineRun> pipelines;
  // Per hash join of a SELECT whose rows the CPU counted (not those the GPU ran): the
  // optimizer's estimate of its output rows and the rows it produced (EXPLAIN ANALYZE and
  // bench's q-errors). Joins whose inputs a join filter from a join above reduced (the CPU's
  // scans drop rows that join would drop) are left out: their counts are not the plan's;
  // where a join's own filter reduced its probe side, that side is not reported (-1, 0).
  // With `SET join_filters = false` every join is reported (bench's q-error pass).
  struct JoinRows {
    std::string join;  // the join's type and keys, as EXPLAIN shows them
    double estimated = -1;
    uint64_t actual = 0;
    bool inner = false;  // an inner join (either side could build)
    // Its inputs: the probe side (children[0]) and the build side, estimated and counted.
    double probe_estimated = -1, build_estimated = -1;
    uint64_t probe_actual = 0, build_actual = 0;
  };
  std::vector<JoinRows> joins;
  // Host-side phases of a SELECT (ms). With `plan_cached` the statement's prepared plan came
  // from the plan cache: parse_ms is 0 and plan_ms/gpu_plan_ms are those of its first run.
  struct Phases {
    double parse_ms = 0;     // SQL text -> syntax tree
    double plan_ms = 0;      // bind, optimise, physical plan, pipelines
    double gpu_plan_ms = 0;  // GPU code generation
    double run_ms = 0;       // pipelines (kernels, CPU work, result download)
    double collect_ms = 0;   // result and per-pipeline figures
    double release_ms = 0;   // freeing a plan that is not cached
    bool plan_cached = false;
  } phases;

  Value GetValue(size_t col, uint64_t row) const;
  // Every cell as text, "NULL" for nulls (result formatting, tests).
  std::vector<std::vector<std::string>> ToStrings() const;
};

struct Settings {
  unsigned threads = 0;        // 0: all hardware threads
  std::string device = "auto"; // auto | cpu | gpu
  bool progress = false;       // progress lines on stderr for long COPY/gen work
  bool plan_cache = true;      // reuse prepared SELECTs by their text (main/plan_cache.hpp)
  // Hash joins pass their build keys sideways to the probe side's scans
  // (execution/operators/join_filter.hpp). Off: every join counts the rows the plan's
  // estimates are about (bench's q-error pass), and a way to debug a join filter.
  bool join_filters = true;
};

class PlanCache;
namespace ast {
struct Statement;
}
class Transaction;
class PreparedStatements;

class Database {
 public:
  // Opens (creating if needed) the database directory at `path`; "" or ":memory:" for an
  // in-memory database.
  explicit Database(const std::string& path = "");
  // A transaction's view of `parent` (main/transaction.hpp): `catalog` is the transaction's,
  // settings are the parent's.
  // `session`: a connection's view (its catalog searches the connection's temporary
  // objects first), which shares the parent's plan cache while it has none.
  Database(Database& parent, std::unique_ptr<Catalog> catalog, bool session = false);
  ~Database();
  Catalog& catalog() { return *catalog_; }
  Settings& settings() { return parent_ ? parent_->settings() : settings_; }
  unsigned threads() const;
  const std::string& path() const { return path_; }
  // A connection with temporary objects keeps its plans to itself: a temporary table may
  // shadow the table another connection's plan of the same text reads.
  PlanCache& plan_cache() {
    return session_ && !catalog_->HasTempObjects() ? parent_->plan_cache() : *plan_cache_;
  }

 private:
  std::string path_;
  Database* parent_ = nullptr;
  bool session_ = false;
  std::unique_ptr<Catalog> catalog_;
  Settings settings_;
  std::unique_ptr<PlanCache> plan_cache_;  // declared last: its plans go before the catalog
};

class Connection {
 public:
  explicit Connection(Database& db);
  ~Connection();  // an open transaction is rolled back
  // Runs every ';'-separated statement; returns one result per statement. Stops at (and
  // throws) the first error; statements before it have taken effect.
  std::vector<QueryResult> ExecuteAll(std::string_view sql);
  // Runs a single statement (or the last of several) and returns its result.
  QueryResult Query(std::string_view sql);
  // As Query, with `params` bound to the statement's parameters (`?`, `$1`, `$name`; one
  // value per parameter, in their order: main/sql_parameters.hpp, the same binding as the C
  // API's and SQL's EXECUTE). Errors name positions in `sql`.
  QueryResult Query(std::string_view sql, const std::vector<Value>& params);
  // As Query, but the result's rows go to `consumer` (execution/result_consumer.hpp) as
  // they come instead of into the result: a SELECT's as its last pipeline produces them
  // (consumer.Chunk returning false stops the query early), any other statement's with
  // rows (EXPLAIN, SHOW ...) once it ran. The returned result has no chunks; when it
  // has_rows, consumer.Begin was called and row_count counts the rows handed over.
  QueryResult Stream(std::string_view sql, ResultConsumer& consumer);
  // The database statements run against: the connection's view (its temporary objects
  // first, then the database's), inside BEGIN ... COMMIT the transaction's view.
  Database& database();
  bool in_transaction() const { return txn_ != nullptr; }
  // Asks the statement running on this connection (from another thread) to stop: its CPU
  // pipelines stop before their next chunk, the GPU executor before its next pipeline,
  // and ExecuteAll throws QueryInterrupted (common/interrupt.hpp); later statements of the
  // text do not run. Pipelines run before any write (INSERT ... SELECT stops before it
  // appends); COPY's loading and DDL are not interrupted. The next ExecuteAll clears it.
  void Interrupt() { interrupted_.store(true); }

 private:
  // Runs one statement: BEGIN/COMMIT/ROLLBACK and PREPARE/EXECUTE/DEALLOCATE here, the rest by ExecuteStatement against
  // database(); a failure inside a transaction may abort it (Transaction::Abort).
  QueryResult Execute(const ast::Statement& stmt, ResultConsumer* consumer = nullptr);
  // ExecuteAll, the last statement streamed to `consumer` when not null (Stream).
  std::vector<QueryResult> ExecuteAll(std::string_view sql, ResultConsumer* consumer);
  // After a statement outside a transaction, and after COMMIT: the sequences' positions
  // that nextval moved are written (Catalog::PersistSequences).
  void PersistSequences();
  Database& db_;
  // The connection's temporary tables, views and sequences (CREATE TEMP ...: DuckDB's
  // `temp` catalog), gone with the connection, and the view of db_ that sees them first.
  std::shared_ptr<Catalog> temp_;
  std::unique_ptr<Database> session_;
  std::unique_ptr<Transaction> txn_;
  std::unique_ptr<PreparedStatements> prepared_;  // PREPARE ... / EXECUTE ...
  std::atomic<bool> interrupted_{false};
};

}  // namespace tessera
