// Parameters bound through the C++ API (Connection::Query(sql, params)): the same
// placeholder machinery as the C API and SQL's EXECUTE (main/sql_parameters.hpp).
#include "check.hpp"
#include "main/database.hpp"

using namespace tessera;

TEST(positional_and_numbered_parameters) {
  Database db;
  db.settings().device = "cpu";
  Connection c(db);
  c.Query("create table t (k integer, s varchar, d decimal(10,2))");
  c.Query("insert into t values ($1, $2, $3), ($4, $5, $6)",
          {Value::Integer(1), Value::Varchar("it's"), Value::Double(1.25), Value::Integer(2), Value::Null(),
           Value::Double(-3.5)});
  auto rows = c.Query("select k, s, d from t where k >= $1 order by k", {Value::Integer(1)}).ToStrings();
  CHECK_EQ(rows.size(), (size_t)2);
  CHECK_EQ(rows[0][1], std::string("it's"));
  CHECK_EQ(rows[0][2], std::string("1.25"));
  CHECK_EQ(rows[1][1], std::string("NULL"));
  // A value is typed as the literal it becomes; LIMIT takes one.
  CHECK_EQ(c.Query("select k from t order by k limit ?", {Value::Integer(1)}).ToStrings().size(), (size_t)1);
  CHECK_EQ(c.Query("select $1 || $1", {Value::Varchar("ab")}).ToStrings()[0][0], std::string("abab"));
}

TEST(wrong_counts_and_positions) {
  Database db;
  db.settings().device = "cpu";
  Connection c(db);
  CHECK_THROWS_WITH(c.Query("select ? + ?", {Value::Integer(1)}), "were not provided");
  CHECK_THROWS_WITH(c.Query("select 1", {Value::Integer(1)}), "excess parameters");
  CHECK_THROWS_WITH(c.Query("select ? + $1", {Value::Integer(1)}), "");
  // An error in the statement names its position in the text the caller wrote.
  try {
    c.Query("select ?, nosuchcolumn", {Value::Varchar("a long string value")});
    CHECK(false);
  } catch (const UserError& e) {
    CHECK_EQ(e.pos().col, 11);
  }
}

TEST_MAIN()
