// Transactions across connections (snapshot isolation, per-table write-write conflicts,
// ROLLBACK leaving no trace on disk), PRIMARY KEY / UNIQUE constraints surviving a reopen
// and a bulk load, and crashes during UPDATE, DELETE and the COMMIT of an explicit
// transaction: the database reopens with exactly the last committed state.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "check.hpp"
#include "plan_helpers.hpp"
#include "temp_dir.hpp"
#include "main/database.hpp"
#include "storage/disk_backend.hpp"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

// The single value of a one-row, one-column query, as text.
std::string One(Connection& c, const std::string& sql) {
  auto rows = c.Query(sql).ToStrings();
  if (rows.size() != 1 || rows[0].size() != 1) return "<" + std::to_string(rows.size()) + " rows>";
  return rows[0][0];
}

using test::All;

ErrorKind KindOf(Connection& c, const std::string& sql) {
  try {
    c.Query(sql);
  } catch (const UserError& e) {
    return e.kind();
  }
  return ErrorKind::Syntax;  // no error: callers expect another kind
}

}  // namespace

TEST(snapshot_isolation_between_connections) {
  Database db;
  Connection a(db), b(db);
  a.Query("CREATE TABLE t (id INTEGER PRIMARY KEY, v VARCHAR)");
  a.Query("INSERT INTO t VALUES (1, 'one')");
  a.Query("BEGIN");
  a.Query("INSERT INTO t VALUES (2, 'two')");
  a.Query("UPDATE t SET v = 'uno' WHERE id = 1");
  a.Query("CREATE TABLE fresh (x INTEGER)");
  CHECK_EQ(All(a, "SELECT id, v FROM t ORDER BY id"), std::string("1|uno;2|two"));
  CHECK_EQ(All(b, "SELECT id, v FROM t ORDER BY id"), std::string("1|one"));
  CHECK_THROWS_WITH(b.Query("SELECT * FROM fresh"), "does not exist");
  // b's own transaction keeps its snapshot even after a commits.
  b.Query("BEGIN TRANSACTION");
  CHECK_EQ(One(b, "SELECT count(*) FROM t"), std::string("1"));
  a.Query("COMMIT");
  CHECK_EQ(One(b, "SELECT count(*) FROM t"), std::string("1"));
  b.Query("END");
  CHECK_EQ(All(b, "SELECT id, v FROM t ORDER BY id"), std::string("1|uno;2|two"));
  CHECK_EQ(One(b, "SELECT count(*) FROM fresh"), std::string("0"));
}

TEST(rollback_and_abort_leave_no_trace) {
  Database db;
  Connection a(db);
  a.Query("CREATE TABLE t (id INTEGER)");
  a.Query("BEGIN; INSERT INTO t VALUES (1); DROP TABLE t; CREATE TABLE u (x INTEGER)");
  a.Query("ROLLBACK");
  CHECK_EQ(One(a, "SELECT count(*) FROM t"), std::string("0"));
  CHECK_THROWS_WITH(a.Query("SELECT * FROM u"), "does not exist");
  a.Query("BEGIN");
  a.Query("INSERT INTO t VALUES (5)");
  a.Query("ABORT");
  CHECK_EQ(One(a, "SELECT count(*) FROM t"), std::string("0"));
  // A connection closed in a transaction rolls it back.
  {
    Connection c(db);
    c.Query("BEGIN; INSERT INTO t VALUES (7)");
  }
  CHECK_EQ(One(a, "SELECT count(*) FROM t"), std::string("0"));
  a.Query("BEGIN; INSERT INTO t VALUES (8)");  // c's claim on t was released
  a.Query("COMMIT");
  CHECK_EQ(One(a, "SELECT count(*) FROM t"), std::string("1"));
}

TEST(write_write_conflict_fails_at_the_second_writer) {
  Database db;
  Connection a(db), b(db), c(db);
  a.Query("CREATE TABLE t (id INTEGER); CREATE TABLE other (id INTEGER)");
  a.Query("INSERT INTO t VALUES (1)");
  a.Query("BEGIN");
  b.Query("BEGIN");
  a.Query("UPDATE t SET id = 2");
  CHECK_THROWS_WITH(b.Query("UPDATE t SET id = 3"), "Transaction conflict");
  // b is aborted now: everything but ROLLBACK (or COMMIT, which rolls back) is refused.
  CHECK_THROWS_WITH(b.Query("SELECT 1"), "Current transaction is aborted");
  b.Query("COMMIT");
  // A statement outside transactions conflicts too, rather than losing a's change.
  CHECK(KindOf(c, "DELETE FROM t") == ErrorKind::Transaction);
  c.Query("INSERT INTO other VALUES (1)");  // another table is free
  a.Query("COMMIT");
  CHECK_EQ(One(c, "SELECT id FROM t"), std::string("2"));
  // A table committed by someone else after BEGIN cannot be changed by the transaction.
  a.Query("BEGIN");
  c.Query("INSERT INTO t VALUES (9)");
  CHECK_THROWS_WITH(a.Query("DELETE FROM t"), "was changed by another transaction");
  a.Query("ROLLBACK");
  CHECK_EQ(One(c, "SELECT count(*) FROM t"), std::string("2"));
}

TEST(concurrent_appends_to_one_table_both_commit) {
  // As in DuckDB, transactions that only append to a table do not conflict: each COMMIT
  // appends its rows to what is committed then, checking keys against it.
  Database db;
  Connection a(db), b(db), c(db);
  a.Query("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  a.Query("BEGIN; INSERT INTO t VALUES (1), (2)");
  b.Query("BEGIN; INSERT INTO t VALUES (3)");
  c.Query("INSERT INTO t VALUES (4)");  // outside transactions
  CHECK_EQ(One(a, "SELECT count(*) FROM t"), std::string("2"));
  a.Query("COMMIT");
  b.Query("INSERT INTO t VALUES (5)");
  CHECK_EQ(One(b, "SELECT count(*) FROM t"), std::string("2"));  // its snapshot plus its rows
  b.Query("COMMIT");
  CHECK_EQ(All(c, "SELECT id FROM t ORDER BY id"), std::string("1;2;3;4;5"));
  // Equal keys appended by two transactions: the second COMMIT fails and changes nothing.
  a.Query("BEGIN; INSERT INTO t VALUES (10)");
  b.Query("BEGIN; INSERT INTO t VALUES (10), (11)");
  a.Query("COMMIT");
  CHECK_THROWS_WITH(b.Query("COMMIT"), "Duplicate key \"id: 10\"");
  CHECK_EQ(One(c, "SELECT count(*) FROM t"), std::string("6"));
  // An append after another transaction's UPDATE of the table committed: the rows go on top.
  a.Query("BEGIN; INSERT INTO t VALUES (20)");
  b.Query("BEGIN; UPDATE t SET id = id + 100 WHERE id < 3");
  b.Query("COMMIT");
  a.Query("COMMIT");
  CHECK_EQ(All(c, "SELECT id FROM t ORDER BY id"), std::string("3;4;5;10;20;101;102"));
  // Changing only its own new rows is still an append; changing committed rows claims the
  // table, so that another writer's change to it fails.
  a.Query("BEGIN; INSERT INTO t VALUES (30); UPDATE t SET id = 31 WHERE id = 30");
  c.Query("INSERT INTO t VALUES (40)");  // a has only appended: no conflict
  // Committed rows changed after a's snapshot (c's append): a cannot update them.
  CHECK_THROWS_WITH(a.Query("UPDATE t SET id = 33 WHERE id = 3"), "Transaction conflict");
  a.Query("ROLLBACK");
  a.Query("BEGIN; UPDATE t SET id = 33 WHERE id = 3");
  CHECK(KindOf(c, "INSERT INTO t VALUES (41)") == ErrorKind::Transaction);
  a.Query("COMMIT");
  CHECK_EQ(All(c, "SELECT id FROM t WHERE id >= 30 ORDER BY id"), std::string("33;40;101;102"));
}

TEST(transaction_misuse_errors) {
  Database db;
  Connection a(db);
  CHECK_THROWS_WITH(a.Query("COMMIT"), "cannot commit - no transaction is active");
  CHECK_THROWS_WITH(a.Query("ROLLBACK"), "cannot rollback - no transaction is active");
  a.Query("BEGIN");
  CHECK(KindOf(a, "BEGIN") == ErrorKind::Transaction);
  CHECK_THROWS_WITH(a.Query("SELECT 1"), "Current transaction is aborted (please ROLLBACK)");
  a.Query("ROLLBACK");
  // A binder error does not abort the transaction.
  a.Query("BEGIN");
  CHECK_THROWS(a.Query("SELECT nosuch"));
  CHECK_EQ(One(a, "SELECT 42"), std::string("42"));
  a.Query("COMMIT");
}

TEST(disk_commit_is_atomic_and_rollback_writes_nothing) {
  TempDir dir;
  const std::string path = dir.path + "/db";
  {
    Database db(path);
    Connection a(db);
    a.Query("CREATE TABLE t (id INTEGER PRIMARY KEY, s VARCHAR UNIQUE)");
    a.Query("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    size_t files_before = 0;
    for (auto& e : fs::directory_iterator(path)) files_before += e.path().extension() == ".trg";
    a.Query("BEGIN; INSERT INTO t SELECT i + 10, 'x' || i FROM range(50000) r(i); CREATE TABLE gone (x INTEGER)");
    a.Query("ROLLBACK");
    size_t files_after = 0;
    for (auto& e : fs::directory_iterator(path)) files_after += e.path().extension() == ".trg";
    CHECK_EQ(files_after, files_before);
    a.Query("BEGIN; INSERT INTO t VALUES (3, 'c'); CREATE TABLE kept (x INTEGER); INSERT INTO kept VALUES (1)");
    a.Query("COMMIT");
  }
  Database db(path);
  Connection a(db);
  CHECK_EQ(All(a, "SELECT id, s FROM t ORDER BY id"), std::string("1|a;2|b;3|c"));
  CHECK_EQ(One(a, "SELECT count(*) FROM kept"), std::string("1"));
  CHECK_THROWS_WITH(a.Query("SELECT * FROM gone"), "does not exist");
  // The constraints were persisted with the table.
  CHECK_THROWS_WITH(a.Query("INSERT INTO t VALUES (3, 'z')"), "Duplicate key \"id: 3\" violates primary key constraint");
  CHECK_THROWS_WITH(a.Query("INSERT INTO t VALUES (4, 'a')"), "Duplicate key \"s: a\" violates unique constraint");
  CHECK_THROWS_WITH(a.Query("INSERT INTO t VALUES (NULL, 'n')"), "NOT NULL");
  CHECK_EQ(All(a, "DESCRIBE t"), std::string("id|INTEGER|NO|PRI|NULL|NULL;s|VARCHAR|YES|UNI|NULL|NULL"));
}

TEST(bulk_load_with_primary_key_is_linear) {
  // 300,000 rows in 300 statements of 1,000: each statement checks its rows against the
  // table's key index (extended as rows are appended), not against a rescan.
  Database db;
  Connection a(db);
  a.Query("CREATE TABLE big (k BIGINT PRIMARY KEY, v INTEGER)");
  for (int i = 0; i < 300; i++)
    a.Query("INSERT INTO big SELECT i + " + std::to_string(i * 1000) + ", 1 FROM range(1000) r(i)");
  a.Query("INSERT INTO big SELECT i + 300000, 2 FROM range(200000) r(i)");
  CHECK_EQ(One(a, "SELECT count(*) FROM big"), std::string("500000"));
  CHECK_THROWS_WITH(a.Query("INSERT INTO big VALUES (123456, 0)"), "Duplicate key \"k: 123456\"");
  CHECK_EQ(One(a, "SELECT count(*) FROM big"), std::string("500000"));
}

// Crashes (storage_testing::SetCommitCrashPoint) during UPDATE, DELETE and the COMMIT of an
// explicit transaction changing two tables: reopened, the database holds either all of the
// change (crash after the manifest's rename) or none of it.
TEST(crash_during_update_delete_and_commit) {
  const char* const kChanges[] = {
      "UPDATE t SET v = v * 10 WHERE id % 2 = 0",
      "DELETE FROM t WHERE id < 1000",
      "BEGIN; UPDATE t SET v = -v; INSERT INTO u SELECT i FROM range(100) r(i); DELETE FROM t WHERE id >= 4000; COMMIT",
  };
  // Expected values computed by DuckDB for the same statements.
  const char* const kAfter[] = {"5000|0|68752500", "4000|0|12002000", "4000|100|-8002000"};
  const char* const kBefore = "5000|0|12502500";
  for (int change = 0; change < 3; change++) {
    for (int point = 1; point <= 5; point++) {
      TempDir dir;
      const std::string path = dir.path + "/db";
      {
        Database db(path);
        Connection a(db);
        a.Query("CREATE TABLE t (id INTEGER PRIMARY KEY, v BIGINT); CREATE TABLE u (x INTEGER)");
        a.Query("INSERT INTO t SELECT i, i + 1 FROM range(5000) r(i)");
        storage_testing::SetCommitCrashPoint(point);
        bool crashed = false;
        try {
          a.ExecuteAll(kChanges[change]);
        } catch (const storage_testing::SimulatedCrash& c) {
          crashed = c.point == point;
        }
        storage_testing::SetCommitCrashPoint(0);
        CHECK(crashed);
      }
      Database db(path);
      Connection a(db);
      std::string got = All(a, "SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM u), (SELECT sum(v) FROM t)");
      const bool committed = point >= 4;
      CHECK_EQ(got, std::string(committed ? kAfter[change] : kBefore));
      // The key index is rebuilt from the reopened table.
      CHECK_THROWS_WITH(a.Query("INSERT INTO t VALUES (1000, 0)"), "Duplicate key \"id: 1000\"");
    }
  }
}

TEST_MAIN()
