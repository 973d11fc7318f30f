// Identifiers (common/identifier.hpp): kept as written, compared ignoring case. The
// comparison, maps and sets; DuckDB's suffixes for names equal ignoring case; a database
// of mixed-case names across a reopen; and a database written by a build that lower-cased
// unquoted identifiers (test/fixtures/identifiers_lowercase) opening and answering.
#include <filesystem>
#include <stdlib.h>

#include "check.hpp"
#include "plan_helpers.hpp"
#include "common/identifier.hpp"
#include "main/database.hpp"
#include "storage/column_names.hpp"
#include "temp_dir.hpp"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

using test::All;

// A query's column names joined by ','.
std::string Names(Connection& c, const std::string& sql) {
  std::string out;
  for (auto& n : c.Query(sql).names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

TEST(comparison_maps_and_sets) {
  CHECK(IdentEquals("MixedCase", "mixedcase"));
  CHECK(IdentEquals("", ""));
  CHECK(!IdentEquals("a", "ab"));
  CHECK(!IdentEquals("a_", "a-"));
  CHECK(!IdentEquals("\xc3\x89", "\xc3\xa9"));  // only ASCII folds (É, é), as in DuckDB
  CHECK_EQ(IdentFold("Sum_X9"), std::string("sum_x9"));
  IdentLess less;
  CHECK(!less("ABC", "abc") && !less("abc", "ABC"));
  CHECK(less("a", "B") && less("B", "c") && less("ab", "ABC"));
  IdentMap<int> m;
  m["Orders"] = 1;
  m["ORDERS"] = 2;  // the same key: its first spelling stays
  CHECK_EQ(m.size(), (size_t)1);
  CHECK_EQ(m.begin()->first, std::string("Orders"));
  CHECK_EQ(m.at("orders"), 2);
  IdentHashMap<int> h;
  h["Tab"] = 1;
  CHECK(h.count("TAB") == 1 && h.count("tab") == 1 && h.count("tabs") == 0);
  CHECK_EQ(IdentHash{}("Tab"), IdentHash{}("tAB"));
  CHECK_EQ(IdentFind({"a", "B", "b"}, "b"), 1);
  CHECK_EQ(IdentFind({"a"}, "c"), -1);
}

TEST(unique_column_names_ignore_case) {
  using V = std::vector<std::string>;
  CHECK(UniqueColumnNames(V{"a", "A"}) == (V{"a", "A_1"}));
  CHECK(UniqueColumnNames(V{"X", "Y", "x", "y"}) == (V{"X", "Y", "x_1", "y_1"}));
  CHECK(UniqueColumnNames(V{"a", "a_1", "A"}) == (V{"a", "a_1", "A_2"}));
}

TEST(mixed_case_names_persist_and_match_any_case) {
  TempDir dir;
  const std::string path = dir / "db";
  {
    Database db(path);
    Connection c(db);
    c.Query("CREATE TABLE Orders (Id INTEGER, \"Mixed Case\" VARCHAR)");
    c.Query("INSERT INTO orders (ID, \"MIXED CASE\") VALUES (1, 'x')");
    c.Query("CREATE VIEW Recent AS SELECT Id AS OrderId FROM ORDERS");
  }
  Database db(path);
  Connection c(db);
  CHECK_EQ(All(c, "SHOW TABLES"), std::string("Orders;Recent"));
  CHECK_EQ(Names(c, "SELECT * FROM orders"), std::string("Id,Mixed Case"));
  CHECK_EQ(Names(c, "SELECT id, \"mixed case\" FROM ORDERS"), std::string("Id,Mixed Case"));
  CHECK_EQ(All(c, "SELECT orderid FROM recent"), std::string("1"));
  CHECK_EQ(Names(c, "SELECT * FROM RECENT"), std::string("OrderId"));
  CHECK_THROWS_WITH(c.Query("CREATE TABLE ORDERS (a INTEGER)"), "already exists");
  c.Query("ALTER TABLE orders RENAME TO ORDERS");
  CHECK_EQ(All(c, "SHOW TABLES"), std::string("ORDERS;Recent"));
}

TEST(database_of_a_lower_casing_build_opens) {
  // Written by a build that lower-cased unquoted identifiers (test/fixtures/README.md):
  // tables orders, recent and totals; columns id, "Quoted", amount; the views' texts as
  // written.
  const fs::path fixture = fs::path(TESSERA_SOURCE_DIR) / "test/fixtures/identifiers_lowercase";
  TempDir dir;
  for (auto& e : fs::directory_iterator(fixture))
    if (e.path().filename().string().rfind("rg-", 0) == 0 || e.path().filename() == "catalog.tsm")
      fs::copy_file(e.path(), fs::path(dir.path) / e.path().filename());
  {
    Database db(dir.path);
    Connection c(db);
    CHECK_EQ(All(c, "SHOW TABLES"), std::string("orders;recent;totals"));
    CHECK_EQ(Names(c, "SELECT * FROM Orders"), std::string("id,Quoted,amount"));
    CHECK_EQ(All(c, "SELECT ID, QUOTED FROM ORDERS WHERE \"quoted\" = 'b'"), std::string("2|b"));
    CHECK_EQ(Names(c, "SELECT * FROM Recent"), std::string("orderid,q"));
    CHECK_EQ(All(c, "SELECT OrderId FROM RECENT ORDER BY 1"), std::string("2;3"));
    // A view's text is bound by this build's rules: its alias keeps its spelling now.
    CHECK_EQ(Names(c, "SELECT * FROM totals"), std::string("Total"));
    CHECK_EQ(All(c, "SELECT total FROM TOTALS"), std::string("7.75"));
    CHECK_THROWS_WITH(c.Query("INSERT INTO ORDERS (ID) VALUES (1)"), "Duplicate key");
    c.Query("INSERT INTO Orders (Id, Amount) VALUES (4, 1)");
    c.Query("CREATE TABLE NewTable (A INTEGER)");
  }
  Database db(dir.path);
  Connection c(db);
  CHECK_EQ(All(c, "SELECT count(*), sum(AMOUNT) FROM orders"), std::string("4|8.75"));
  CHECK_EQ(All(c, "SHOW TABLES"), std::string("NewTable;orders;recent;totals"));
}

TEST_MAIN()
