// Join order over LEFT, semi, anti and mark joins (optimizer/join_order.cpp builds the
// graph, optimizer/join_enumerator.cpp places them as units), through EXPLAIN: a small
// subquery side filters its relation below the inner joins, a large one meets the rows
// a selective inner join left; a LEFT join runs after a selective inner join, and a WHERE
// term over its right side stays above it; the TPC-H queries with semi/anti joins (q04,
// q16, q18, q20, q21, q22, SF 0.01) keep the shapes the estimates call for and run wholly
// on the GPU. Results: test/sql/optimizer/join_units.test and the TPC-H differential tests.
#include <fstream>
#include <sstream>

#include "check.hpp"
#include "plan_helpers.hpp"
#include "gen/tpch_gen.hpp"
#include "main/database.hpp"

using namespace tessera;

namespace {

Database& SmallDb() {
  static Database* db = [] {
    auto* d = new Database();
    Connection con(*d);
    con.Query("CREATE TABLE f AS SELECT CAST(range AS INTEGER) AS k, CAST(range % 100 AS INTEGER) AS d FROM range(200000)");
    con.Query("CREATE TABLE dim AS SELECT CAST(range AS INTEGER) AS d, CAST(range % 50 AS INTEGER) AS r FROM range(100)");
    con.Query("CREATE TABLE few (k INTEGER)");
    con.Query("INSERT INTO few VALUES (7), (14), (19999)");
    con.Query("CREATE TABLE big AS SELECT CAST(range * 2 AS INTEGER) AS k FROM range(400000)");
    return d;
  }();
  return *db;
}

using test::Explain;
using test::TpchDb;

// The line (from 0) of the plan where `what` first appears; -1 when it does not. A line
// further down is an operator deeper in the tree (EXPLAIN prints parents first).
int LineOf(const std::string& plan, const std::string& what) {
  const size_t at = plan.find(what);
  if (at == std::string::npos) return -1;
  int line = 0;
  for (size_t i = 0; i < at; i++) line += plan[i] == '\n';
  return line;
}

using test::Has;

std::string TpchQuery(const std::string& name) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/queries/tpch/" + name + ".sql");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(small_subquery_side_filters_below_the_inner_join) {
  const std::string q = "SELECT count(*) FROM f, dim WHERE f.d = dim.d AND f.k IN (SELECT k FROM few)";
  for (const char* device : {"DEVICE cpu", "DEVICE gpu"}) {
    const std::string p = Explain(SmallDb(), device, q);
    CHECK(LineOf(p, "HASH_JOIN INNER") >= 0);
    CHECK(LineOf(p, "HASH_JOIN SEMI") > LineOf(p, "HASH_JOIN INNER"));  // below it, on f
    CHECK_EQ(LineOf(p, "TABLE_SCAN f"), LineOf(p, "HASH_JOIN SEMI") + 1);
  }
}

TEST(large_subquery_side_meets_the_joined_rows) {
  // dim's filter keeps 2 of 100 values: the inner join first, then the semi join (on the
  // CPU the joined rows build: RIGHT_SEMI; on the GPU the plain semi join).
  const std::string q =
      "SELECT count(*) FROM f, dim WHERE f.d = dim.d AND dim.r = 0 AND EXISTS (SELECT * FROM big WHERE big.k = f.k)";
  const std::string cpu = Explain(SmallDb(), "DEVICE cpu", q);
  CHECK(LineOf(cpu, "HASH_JOIN RIGHT_SEMI") >= 0);
  CHECK(LineOf(cpu, "HASH_JOIN INNER") > LineOf(cpu, "HASH_JOIN RIGHT_SEMI"));
  const std::string gpu = Explain(SmallDb(), "DEVICE gpu", q);
  CHECK(LineOf(gpu, "HASH_JOIN SEMI") >= 0);
  CHECK(LineOf(gpu, "HASH_JOIN INNER") > LineOf(gpu, "HASH_JOIN SEMI"));
  CHECK(!Has(gpu, "[cpu]"));
}

// The line of the LEFT join, or on the CPU of the RIGHT join it became where its preserved
// side is the smaller one (optimizer/semi_join_side.cpp): -1 when there is neither.
int LeftJoinLine(const std::string& plan) {
  const int left = LineOf(plan, "HASH_JOIN LEFT");
  return left >= 0 ? left : LineOf(plan, "HASH_JOIN RIGHT ");
}

TEST(left_join_runs_after_a_selective_inner_join) {
  const std::string q =
      "SELECT count(*), count(big.k) FROM f LEFT JOIN big ON f.k = big.k JOIN dim ON f.d = dim.d WHERE dim.r = 0";
  for (const char* device : {"DEVICE cpu", "DEVICE gpu"}) {
    const std::string p = Explain(SmallDb(), device, q);
    CHECK(LeftJoinLine(p) >= 0);
    CHECK(LineOf(p, "HASH_JOIN INNER") > LeftJoinLine(p));
  }
}

TEST(where_term_over_a_left_joins_right_side_stays_above_it) {
  const std::string q =
      "SELECT count(*) FROM f LEFT JOIN big ON f.k = big.k JOIN dim ON f.d = dim.d WHERE big.k IS NULL AND dim.r < 10";
  const std::string p = Explain(SmallDb(), "DEVICE cpu", q);
  CHECK(LeftJoinLine(p) >= 0);
  CHECK(LineOf(p, "IS NULL") >= 0);
  CHECK(LineOf(p, "IS NULL") < LeftJoinLine(p));  // a filter above the join
  // nothing pushed into its scan (as the probe side of a RIGHT join it gets the join filter)
  CHECK(Has(p, "TABLE_SCAN big [k]  ") || Has(p, "TABLE_SCAN big [k] JOIN FILTER k IN build k  "));
}

TEST(left_join_right_side_is_never_split) {
  // The right side (big JOIN few) is joined whole: its inner join stays under the LEFT join.
  const std::string q =
      "SELECT count(*) FROM f LEFT JOIN (big JOIN few ON big.k = few.k) ON f.k = big.k JOIN dim ON f.d = dim.d";
  const std::string p = Explain(SmallDb(), "DEVICE cpu", q);
  const int left = LineOf(p, "HASH_JOIN LEFT");
  CHECK(left >= 0);
  CHECK(LineOf(p, "TABLE_SCAN few") > left);
  CHECK(LineOf(p, "TABLE_SCAN big") > left);
}

TEST(tpch_semi_anti_plans) {
  Database& db = TpchDb();
  // q18: the IN (... HAVING ...) filters orders directly, below its joins.
  {
    const std::string p = Explain(db, "DEVICE cpu", TpchQuery("q18"));
    const int semi = LineOf(p, "HASH_JOIN SEMI o_orderkey");
    CHECK(semi >= 0);
    CHECK_EQ(LineOf(p, "TABLE_SCAN orders"), semi + 1);
  }
  // q21: both subqueries (all of lineitem) build on the joined rows on the CPU: the NOT
  // EXISTS on l1 joined to supplier and nation (below the join with orders at SF 0.01),
  // the EXISTS last, above every inner join.
  {
    const std::string p = Explain(db, "DEVICE cpu", TpchQuery("q21"));
    const int semi = LineOf(p, "HASH_JOIN RIGHT_SEMI"), anti = LineOf(p, "HASH_JOIN RIGHT_ANTI");
    CHECK(semi >= 0 && anti >= 0);
    CHECK(LineOf(p, "HASH_JOIN INNER") > semi);
    CHECK(LineOf(p, "HASH_JOIN INNER l_suppkey = s_suppkey") > anti);
  }
  // q04: orders (filtered) builds, lineitem probes.
  CHECK(Has(Explain(db, "DEVICE cpu", TpchQuery("q04")), "HASH_JOIN RIGHT_SEMI"));
  // q22: the NOT EXISTS meets the customers the scalar subquery's filter kept.
  {
    const std::string p = Explain(db, "DEVICE cpu", TpchQuery("q22"));
    CHECK(LineOf(p, "HASH_JOIN RIGHT_ANTI") >= 0);
    CHECK(LineOf(p, "FILTER (CAST(c_acctbal") > LineOf(p, "HASH_JOIN RIGHT_ANTI"));
  }
  // Every pipeline of these queries stays on the GPU in GPU plans.
  for (const char* q : {"q04", "q16", "q18", "q20", "q21", "q22"}) {
    const std::string p = Explain(db, "DEVICE gpu", TpchQuery(q));
    CHECK(Has(p, "[gpu]"));
    CHECK(!Has(p, "[cpu]"));
  }
}

TEST_MAIN()
