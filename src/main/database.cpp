#include "main/database.hpp"
#include "common/stopwatch.hpp"
#include "main/sql_parameters.hpp"

#include <chrono>

#include "common/interrupt.hpp"
#include "common/parallel.hpp"
#include "gpu/gpu_executor.hpp"
#include "main/allocator_tuning.hpp"
#include "main/plan_cache.hpp"
#include "main/prepared_query.hpp"
#include "main/prepared_statements.hpp"
#include "main/statement_executor.hpp"
#include "main/transaction.hpp"
#include "parser/parser.hpp"
#include "storage/disk_backend.hpp"

namespace tessera {

Value QueryResult::GetValue(size_t col, uint64_t row) const {
  for (auto& c : chunks) {
    if (row < c.size) return c.cols[col].GetValue((uint32_t)row);
    row -= c.size;
  }
  throw InternalError("result row out of range");
}

std::vector<std::vector<std::string>> QueryResult::ToStrings() const {
  std::vector<std::vector<std::string>> rows;
  for (auto& c : chunks)
    for (uint32_t r = 0; r < c.size; r++) {
      std::vector<std::string> row;
      for (auto& col : c.cols) row.push_back(col.GetValue(r).ToString());
      rows.push_back(std::move(row));
    }
  return rows;
}

Database::Database(const std::string& path) : path_(path), plan_cache_(std::make_unique<PlanCache>()) {
  TuneAllocatorOnce();
  if (path.empty() || path == ":memory:") catalog_ = std::make_unique<Catalog>();
  else catalog_ = std::make_unique<Catalog>(OpenDiskBackend(path));
}

Database::~Database() = default;

unsigned Database::threads() const {
  const Settings& s = parent_ ? parent_->settings_ : settings_;
  return s.threads ? s.threads : HardwareThreads();
}

Database::Database(Database& parent, std::unique_ptr<Catalog> catalog, bool session)
    : path_(parent.path_),
      parent_(&parent),
      session_(session),
      catalog_(std::move(catalog)),
      plan_cache_(std::make_unique<PlanCache>()) {}

Connection::Connection(Database& db)
    : db_(db),
      temp_(Catalog::MakeTemp()),
      session_(std::make_unique<Database>(db, std::make_unique<Catalog>(&db.catalog(), temp_), true)),
      prepared_(std::make_unique<PreparedStatements>()) {}

Connection::~Connection() = default;

Database& Connection::database() { return txn_ ? txn_->db() : *session_; }

void Connection::PersistSequences() {
  if (!txn_) db_.catalog().PersistSequences();
}

QueryResult Connection::Execute(const ast::Statement& stmt, ResultConsumer* consumer) {
  // A streamed SELECT runs here; every other statement through ExecuteStatement.
  auto run = [&](Database& db) {
    if (consumer && stmt.kind == ast::StmtKind::Select)
      return RunSelect(db, *static_cast<const ast::SelectStatement&>(stmt).select, consumer);
    return ExecuteStatement(db, stmt);
  };
  if (stmt.kind == ast::StmtKind::Transaction) {
    switch (static_cast<const ast::TransactionStatement&>(stmt).op) {
      case ast::TransactionOp::Begin:
        if (txn_) {
          txn_->Abort();
          throw UserError(ErrorKind::Transaction, "cannot start a transaction within a transaction", stmt.pos);
        }
        txn_ = std::make_unique<Transaction>(db_, temp_);
        return Status("BEGIN");
      case ast::TransactionOp::Commit: {
        if (!txn_) throw UserError(ErrorKind::Transaction, "cannot commit - no transaction is active", stmt.pos);
        auto txn = std::move(txn_);  // over, whether COMMIT succeeds or not
        txn->Commit();
        PersistSequences();
        return Status("COMMIT");
      }
      case ast::TransactionOp::Rollback:
        if (!txn_) throw UserError(ErrorKind::Transaction, "cannot rollback - no transaction is active", stmt.pos);
        txn_->Rollback();
        txn_.reset();
        return Status("ROLLBACK");
    }
  }
  switch (stmt.kind) {
    case ast::StmtKind::Prepare:
      return prepared_->Prepare(database(), static_cast<const ast::PrepareStatement&>(stmt));
    case ast::StmtKind::Deallocate:
      return prepared_->Deallocate(static_cast<const ast::DeallocateStatement&>(stmt));
    case ast::StmtKind::Execute:
      return Execute(*prepared_->Bind(database(), static_cast<const ast::ExecuteStatement&>(stmt)), consumer);
    default:
      break;
  }
  if (!txn_) {
    QueryResult r = run(*session_);
    PersistSequences();
    return r;
  }
  if (txn_->aborted())
    throw UserError(ErrorKind::Transaction, "Current transaction is aborted (please ROLLBACK)", stmt.pos);
  try {
    return run(txn_->db());
  } catch (const UserError& e) {
    // As in DuckDB, mistakes found before anything runs (syntax, names, types) leave the
    // transaction usable; failures while changing data abort it.
    if (e.kind() != ErrorKind::Syntax && e.kind() != ErrorKind::Binder && e.kind() != ErrorKind::Type &&
        e.kind() != ErrorKind::Catalog && e.kind() != ErrorKind::Unsupported)
      txn_->Abort();
    throw;
  } catch (...) {
    txn_->Abort();
    throw;
  }
}

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

std::vector<QueryResult> Connection::ExecuteAll(std::string_view sql) { return ExecuteAll(sql, nullptr); }

std::vector<QueryResult> Connection::ExecuteAll(std::string_view sql, ResultConsumer* consumer) {
  auto t0 = Clock::now();
  interrupted_.store(false);
  InterruptScope interrupt_scope(&interrupted_);
  // A single SELECT is looked up in the plan cache by its text and the device setting;
  // the catalog's version tells whether the plan still holds.
  std::string key;
  std::unique_ptr<PlanCacheEntry> entry;
  double parse_ms = 0;
  std::vector<std::unique_ptr<ast::Statement>> stmts;
  Database& db = database();
  if (db.settings().plan_cache && !(txn_ && txn_->aborted())) {
    key = db.settings().device + (db.settings().join_filters ? "\n" : "\nno join filters\n") + std::string(sql);
    entry = db.plan_cache().Take(key, db.catalog().version());
  }
  if (!entry) {
    stmts = ParseSQL(sql);
    parse_ms = MsSince(t0);
    if (db.settings().plan_cache && stmts.size() == 1 && stmts[0]->kind == ast::StmtKind::Select &&
        !(txn_ && txn_->aborted())) {
      entry = std::make_unique<PlanCacheEntry>();
      entry->key = std::move(key);
      entry->catalog_version = db.catalog().version();  // before preparing: a change meanwhile makes it stale
      entry->statement = std::move(stmts[0]);
      entry->query = PrepareSelect(db, *static_cast<const ast::SelectStatement&>(*entry->statement).select);
    }
  }
  std::vector<QueryResult> results;
  if (entry) {
    const bool cached = !entry->fresh;
    QueryResult r = RunPrepared(db, *static_cast<const ast::SelectStatement&>(*entry->statement).select,
                                entry->query, true, consumer);  // throws: the entry is dropped
    r.phases.parse_ms = parse_ms;
    r.phases.plan_cached = cached;
    r.elapsed_ms = MsSince(t0);
    PersistSequences();
    if (entry->query.cacheable) db.plan_cache().Put(std::move(entry), db.catalog().version());
    results.push_back(std::move(r));
    return results;
  }
  for (auto& s : stmts) {
    CheckInterrupt(&interrupted_);
    auto t1 = Clock::now();
    QueryResult r = Execute(*s, &s == &stmts.back() ? consumer : nullptr);
    r.elapsed_ms = MsSince(t1);
    if (stmts.size() == 1) r.phases.parse_ms = parse_ms;
    results.push_back(std::move(r));
  }
  return results;
}

QueryResult Connection::Query(std::string_view sql) {
  auto results = ExecuteAll(sql);
  if (results.empty()) throw UserError(ErrorKind::Syntax, "no statement to execute");
  return std::move(results.back());
}

QueryResult Connection::Query(std::string_view sql, const std::vector<Value>& params) {
  const Placeholders ph = FindPlaceholders(sql);
  if (!ph.error.empty()) throw UserError(ErrorKind::Syntax, ph.error, PositionAt(sql, (int64_t)ph.error_offset));
  auto numbers = [](size_t from, size_t to) {  // "from+1, ..., to" (1-based)
    std::string s;
    for (size_t k = from; k < to; k++) s += (s.empty() ? "" : ", ") + std::to_string(k + 1);
    return s;
  };
  if (params.size() < ph.count)
    throw UserError(ErrorKind::Input,
                    "Values were not provided for the following prepared statement parameters: " +
                        numbers(params.size(), ph.count));
  if (params.size() > ph.count)
    throw UserError(ErrorKind::Input, "Parameter argument/count mismatch, identifiers of the excess parameters: " +
                                          numbers(ph.count, params.size()));
  std::vector<std::string> literals;
  for (const Value& v : params) literals.push_back(SqlLiteral(v));
  Substitution sub(sql, ph, literals);
  try {
    return Query(sub.sql());
  } catch (const UserError& err) {
    const int64_t off = ByteOffset(sub.sql(), err.pos());
    if (off < 0) throw;
    throw UserError(err.kind(), err.raw(), PositionAt(sql, sub.OriginalOffset(off)));
  }
}

QueryResult Connection::Stream(std::string_view sql, ResultConsumer& consumer) {
  // Tells a streamed SELECT (Begin called) from a statement whose rows come back whole.
  struct Tracking : ResultConsumer {
    ResultConsumer& to;
    bool begun = false;
    explicit Tracking(ResultConsumer& c) : to(c) {}
    void Begin(const std::vector<std::string>& n, const std::vector<Type>& t) override {
      begun = true;
      to.Begin(n, t);
    }
    bool Chunk(DataChunk& c) override { return to.Chunk(c); }
  } tracking(consumer);
  auto results = ExecuteAll(sql, &tracking);
  if (results.empty()) throw UserError(ErrorKind::Syntax, "no statement to execute");
  QueryResult r = std::move(results.back());
  if (r.has_rows && !tracking.begun) {  // a statement that does not stream: its rows now
    consumer.Begin(r.names, r.types);
    for (auto& c : r.chunks)
      if (c.size && !consumer.Chunk(c)) break;
  }
  r.chunks.clear();
  return r;
}

}  // namespace tessera
