// Temporary tables, views and sequences belong to one connection (DuckDB's `temp` catalog):
// other connections do not see them, they are never written to the database directory and
// are gone after a reopen; inside a transaction they commit and roll back with it.
// Sequences persist with their position across a reopen and are shared by connections.
#include <filesystem>
#include <string>

#include "check.hpp"
#include "plan_helpers.hpp"
#include "temp_dir.hpp"
#include "main/database.hpp"

using namespace tessera;
using test::All;

TEST(temp_objects_are_per_connection) {
  Database db;
  Connection a(db), b(db);
  a.Query("CREATE TABLE t AS SELECT 1 AS i");
  a.Query("CREATE TEMP TABLE t AS SELECT 2 AS i");
  a.Query("CREATE TEMP VIEW v AS SELECT 'temp' AS s");
  a.Query("CREATE TEMP SEQUENCE s START 10");
  CHECK_EQ(All(a, "SELECT i FROM t"), std::string("2"));
  CHECK_EQ(All(b, "SELECT i FROM t"), std::string("1"));  // b sees the persistent table
  CHECK_EQ(All(a, "SELECT s FROM v"), std::string("temp"));
  CHECK_THROWS_WITH(b.Query("SELECT * FROM v"), "does not exist");
  CHECK_EQ(All(a, "SELECT nextval('s')"), std::string("10"));
  CHECK_THROWS_WITH(b.Query("SELECT nextval('s')"), "sequence \"s\" does not exist");
  // The same text planned in both connections: the plan cache must not hand b a's plan.
  for (int k = 0; k < 2; k++) {
    CHECK_EQ(All(a, "SELECT count(*), max(i) FROM t"), std::string("1|2"));
    CHECK_EQ(All(b, "SELECT count(*), max(i) FROM t"), std::string("1|1"));
  }
  // b's own temporary table of the name.
  b.Query("CREATE TEMP TABLE t (i INTEGER)");
  b.Query("INSERT INTO t VALUES (3), (4)");
  CHECK_EQ(All(b, "SELECT sum(i) FROM t"), std::string("7"));
  CHECK_EQ(All(a, "SELECT sum(i) FROM t"), std::string("2"));
  {
    Connection c(db);
    c.Query("CREATE TEMP TABLE gone (x INTEGER)");
  }
  CHECK_THROWS_WITH(a.Query("SELECT * FROM gone"), "does not exist");
}

TEST(temp_objects_in_transactions) {
  Database db;
  Connection a(db);
  a.Query("BEGIN");
  a.Query("CREATE TEMP TABLE bt (i INTEGER)");
  a.Query("INSERT INTO bt VALUES (1)");
  CHECK_EQ(All(a, "SELECT count(*) FROM bt"), std::string("1"));
  a.Query("ROLLBACK");
  CHECK_THROWS_WITH(a.Query("SELECT * FROM bt"), "does not exist");
  a.Query("BEGIN");
  a.Query("CREATE TEMP TABLE bt (i INTEGER)");
  a.Query("INSERT INTO bt VALUES (1)");
  a.Query("COMMIT");
  a.Query("BEGIN");
  a.Query("INSERT INTO bt VALUES (2)");
  a.Query("UPDATE bt SET i = i * 10");
  CHECK_EQ(All(a, "SELECT i FROM bt ORDER BY i"), std::string("10;20"));
  a.Query("ROLLBACK");
  CHECK_EQ(All(a, "SELECT i FROM bt ORDER BY i"), std::string("1"));
}

TEST(temp_objects_never_persist) {
  TempDir dir;
  const std::string path = dir / "db";
  {
    Database db(path);
    Connection c(db);
    c.Query("CREATE TABLE keep (i INTEGER)");
    c.Query("INSERT INTO keep VALUES (1)");
    c.Query("CREATE TEMP TABLE tmp AS SELECT * FROM range(100000) r(i)");
    c.Query("CREATE TEMP VIEW tv AS SELECT 1");
    c.Query("CREATE TEMP SEQUENCE ts");
    c.Query("INSERT INTO tmp SELECT * FROM keep");
    CHECK_EQ(All(c, "SELECT count(*) FROM tmp"), std::string("100001"));
    // Only `keep`'s one row group is on disk.
    int files = 0;
    for (auto& e : std::filesystem::directory_iterator(path))
      files += e.path().filename().string().rfind("rg-", 0) == 0;
    CHECK_EQ(files, 1);
  }
  Database db(path);
  Connection c(db);
  CHECK_EQ(All(c, "SELECT count(*) FROM keep"), std::string("1"));
  CHECK_THROWS_WITH(c.Query("SELECT * FROM tmp"), "does not exist");
  CHECK_THROWS_WITH(c.Query("SELECT * FROM tv"), "does not exist");
  CHECK_THROWS_WITH(c.Query("SELECT nextval('ts')"), "does not exist");
}

TEST(sequences_persist_across_reopen) {
  TempDir dir;
  const std::string path = dir / "db";
  {
    Database db(path);
    Connection c(db);
    c.Query("CREATE SEQUENCE s START WITH 5 INCREMENT BY 5 MAXVALUE 40 CYCLE");
    c.Query("CREATE SEQUENCE unused");
    c.Query("CREATE TABLE t (id BIGINT DEFAULT nextval('s'), v VARCHAR)");
    c.Query("INSERT INTO t (v) VALUES ('a'), ('b')");
    CHECK_EQ(All(c, "SELECT nextval('s')"), std::string("15"));
    c.Query("BEGIN");
    CHECK_EQ(All(c, "SELECT nextval('s')"), std::string("20"));
    c.Query("COMMIT");
  }
  {
    Database db(path);
    Connection c(db);
    CHECK_EQ(All(c, "SELECT currval('s')"), std::string("20"));
    CHECK_EQ(All(c, "SELECT nextval('s') FROM range(5)"), std::string("25;30;35;40;1"));
    CHECK_THROWS_WITH(c.Query("SELECT currval('unused')"), "currval: sequence is not yet defined in this session");
    c.Query("INSERT INTO t (v) VALUES ('c')");
    CHECK_EQ(All(c, "SELECT id, v FROM t ORDER BY v"), std::string("5|a;10|b;6|c"));
    c.Query("DROP SEQUENCE unused");
    c.Query("CREATE OR REPLACE SEQUENCE s INCREMENT -1");
  }
  Database db(path);
  Connection c(db);
  CHECK_EQ(All(c, "SELECT nextval('s'), nextval('s')"), std::string("-1|-2"));
  CHECK_THROWS_WITH(c.Query("SELECT nextval('unused')"), "does not exist");
}

TEST(sequences_shared_between_connections) {
  Database db;
  Connection a(db), b(db);
  a.Query("CREATE SEQUENCE s");
  CHECK_EQ(All(a, "SELECT nextval('s')"), std::string("1"));
  CHECK_EQ(All(b, "SELECT nextval('s')"), std::string("2"));
  // A transaction's nextval is not undone by ROLLBACK (as in DuckDB).
  b.Query("BEGIN");
  CHECK_EQ(All(b, "SELECT nextval('s')"), std::string("3"));
  b.Query("ROLLBACK");
  CHECK_EQ(All(a, "SELECT nextval('s')"), std::string("4"));
  // A sequence created in a transaction exists for others after COMMIT only.
  a.Query("BEGIN");
  a.Query("CREATE SEQUENCE s2");
  CHECK_THROWS_WITH(b.Query("SELECT nextval('s2')"), "does not exist");
  a.Query("COMMIT");
  CHECK_EQ(All(b, "SELECT nextval('s2')"), std::string("1"));
  a.Query("BEGIN");
  a.Query("DROP SEQUENCE s2");
  a.Query("ROLLBACK");
  CHECK_EQ(All(b, "SELECT nextval('s2')"), std::string("2"));
}

TEST(nextval_stays_on_the_cpu) {
  Database db;
  Connection c(db);
  c.Query("CREATE TABLE n AS SELECT range::INTEGER AS i FROM range(10)");
  c.Query("CREATE SEQUENCE s");
  const std::string plan = All(c, "EXPLAIN (DEVICE gpu) SELECT nextval('s'), i FROM n WHERE i > 3");
  CHECK(plan.find("function nextval has no GPU definition yet") != std::string::npos);
  // Planning ran nothing: the sequence has not moved.
  CHECK_EQ(All(c, "SELECT nextval('s'), i FROM n WHERE i > 7 ORDER BY i"), std::string("1|8;2|9"));
}

TEST_MAIN()
