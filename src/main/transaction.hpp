// Explicit transactions (BEGIN ... COMMIT | ROLLBACK) of one Connection, with snapshot
// isolation: the transaction's statements run against a Database view whose catalog starts
// as the committed state at BEGIN and holds the transaction's changes (in memory; nothing
// reaches the disk before COMMIT). Other connections keep seeing the committed state.
// COMMIT publishes every changed table, view and DROP in one catalog commit (one manifest
// switch on disk); ROLLBACK drops the view. Conflicts are per table: a transaction that
// changes committed rows of a table another open transaction has changed, or that was
// committed by someone else after BEGIN, fails at that statement ("Transaction conflict",
// Catalog::Claim). Appends conflict with nothing: COMMIT adds them to the table as it is
// committed then.
#pragma once
#include <memory>

#include "main/database.hpp"

namespace tessera {

class Transaction {
 public:
  // `temp`: the connection's temporary objects; the transaction changes a copy of them,
  // which COMMIT makes the connection's (ROLLBACK drops it).
  Transaction(Database& db, std::shared_ptr<Catalog> temp);
  ~Transaction();  // rolls back when neither committed nor rolled back
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // The database the transaction's statements run against.
  Database& db() { return *view_; }
  // After a failed statement that may have got as far as changing data, DuckDB refuses
  // further statements until ROLLBACK (COMMIT then rolls back).
  bool aborted() const { return aborted_; }
  void Abort() { aborted_ = true; }
  // Publishes the changes (throws on a conflict, leaving the committed state as it was).
  void Commit();
  void Rollback();

 private:
  Database& parent_;
  std::shared_ptr<Catalog> temp_;
  uint64_t id_;
  std::unique_ptr<Database> view_;
  bool aborted_ = false;
  bool done_ = false;
};

}  // namespace tessera
