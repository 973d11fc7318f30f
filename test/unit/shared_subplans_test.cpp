// Copies of a subplan equal up to column pruning (optimizer/shared_subplans.cpp), through
// EXPLAIN and results on TPC-H SF 0.01: the DISTINCT rewrite's copies of a join, pruned to
// different columns, run once on the CPU (one MATERIALIZED computing the union of their
// columns, each reader reading its own); plans for the GPU keep both copies; the answers
// are those of the queries computed apart, also when the cached plan runs again. Results
// against DuckDB: test/sql/optimizer/shared_pruned_copies.test. Also the DISTINCT rewrite
// beside a semi-join reduction's copy (fresh bindings for the copy).
#include "check.hpp"
#include "plan_helpers.hpp"
#include "main/database.hpp"

using namespace tessera;

namespace {

using test::All;
using test::Explain;
using test::TpchDb;

using test::Count;
using test::Has;

const char* kTwoSets =
    "SELECT o_orderpriority, count(DISTINCT l_suppkey), count(DISTINCT c_nationkey) FROM lineitem "
    "JOIN orders ON l_orderkey = o_orderkey JOIN customer ON o_custkey = c_custkey GROUP BY 1 ORDER BY 1";

}  // namespace

TEST(distinct_copies_of_a_join_run_it_once_on_the_cpu) {
  std::string cpu = Explain(TpchDb(), "DEVICE cpu", kTwoSets);
  CHECK_EQ(Count(cpu, "TABLE_SCAN lineitem"), 1u);
  CHECK_EQ(Count(cpu, "TABLE_SCAN customer"), 1u);
  CHECK_EQ(Count(cpu, "  MATERIALIZED #1"), 1u);
  CHECK_EQ(Count(cpu, "SHARED_SCAN rows of MATERIALIZED #1"), 1u);
  // the scans read the union of the copies' columns
  CHECK(Has(cpu, "TABLE_SCAN lineitem [l_orderkey, l_suppkey]"));
  CHECK(Has(cpu, "TABLE_SCAN customer [c_custkey, c_nationkey]"));
  // collected: the two arguments and the grouping key, not the join keys
  CHECK(Has(cpu, "PROJECTION l_suppkey, o_orderpriority, c_nationkey"));
  CHECK(Has(cpu, "MATERIALIZED #1, columns 0, 1 of 3"));
  CHECK(Has(cpu, "SHARED_SCAN rows of MATERIALIZED #1, columns 1, 2 of 3"));
  std::string gpu = Explain(TpchDb(), "DEVICE gpu", kTwoSets);
  CHECK_EQ(Count(gpu, "TABLE_SCAN lineitem"), 2u);
  CHECK(!Has(gpu, "MATERIALIZED"));
  CHECK(!Has(gpu, "SHARED_SCAN"));
}

TEST(shared_copies_answer_as_the_queries_apart) {
  Connection con(TpchDb());
  con.Query("SET device = 'cpu'");
  const std::string from =
      " FROM lineitem JOIN orders ON l_orderkey = o_orderkey JOIN customer ON o_custkey = c_custkey GROUP BY 1";
  // one DISTINCT set each: no copies to share
  std::string a = All(con, "SELECT o_orderpriority, count(DISTINCT l_suppkey)" + from + " ORDER BY 1");
  std::string b = All(con, "SELECT o_orderpriority, count(DISTINCT c_nationkey)" + from + " ORDER BY 1");
  std::string expected;
  for (size_t i = 0, j = 0;;) {  // "p|x;..." and "p|y;..." -> "p|x|y;..."
    size_t ei = a.find(';', i), ej = b.find(';', j);
    expected += a.substr(i, ei == std::string::npos ? std::string::npos : ei - i);
    std::string rb = b.substr(j, ej == std::string::npos ? std::string::npos : ej - j);
    expected += rb.substr(rb.find('|'));
    if (ei == std::string::npos || ej == std::string::npos) break;
    expected += ";";
    i = ei + 1;
    j = ej + 1;
  }
  CHECK_EQ(Count(expected, ";"), 4u);  // five priorities
  CHECK_EQ(All(con, kTwoSets), expected);
  CHECK_EQ(All(con, kTwoSets), expected);  // the cached plan again: the collected rows refilled
  // without GROUP BY, with count(*) (a reader of no column but the row count) beside the sets
  const std::string ungrouped =
      "SELECT count(DISTINCT l_suppkey), count(DISTINCT c_nationkey), count(*), sum(l_quantity) FROM lineitem "
      "JOIN orders ON l_orderkey = o_orderkey JOIN customer ON o_custkey = c_custkey";
  std::string p = Explain(TpchDb(), "DEVICE cpu", ungrouped);
  CHECK_EQ(Count(p, "TABLE_SCAN lineitem"), 1u);
  CHECK_EQ(Count(p, "SHARED_SCAN rows of MATERIALIZED #1"), 2u);
  const std::string apart =
      "SELECT (SELECT count(DISTINCT l_suppkey) FROM lineitem), (SELECT count(DISTINCT c_nationkey) FROM customer "
      "WHERE c_custkey IN (SELECT o_custkey FROM orders)), (SELECT count(*) FROM lineitem), (SELECT sum(l_quantity) "
      "FROM lineitem)";
  CHECK_EQ(All(con, ungrouped), All(con, apart));
}

// The semi-join reduction (optimizer/semi_join_reduction.cpp) filters y's aggregation by a
// copy of x; the DISTINCT rewrite then rewrites x, y and that copy. The copy has bindings
// of its own: with x's, the rewrite pointed x's HAVING at the copy's branches ("column
// count(c_name) not found in its operator's input", random differential test, seed 21).
TEST(distinct_rewrite_beside_a_semi_join_reduction_copy) {
  Connection con(TpchDb());
  const std::string agg =
      "SELECT c_nationkey g0, bool_or(c_custkey > 10) a0, avg(DISTINCT c_acctbal) a2 FROM customer GROUP BY 1 "
      "HAVING count(c_name) >= 68";
  for (const char* device : {"cpu", "gpu"}) {
    std::string p = Explain(TpchDb(), std::string("DEVICE ") + device,
                            "SELECT x.g0, y.a2 FROM (" + agg + ") x JOIN (" + agg + ") y ON x.g0 = y.g0");
    CHECK(Has(p, "HASH_JOIN SEMI"));
  }
  con.Query("SET device = 'cpu'");
  CHECK_EQ(All(con, "SELECT x.g0, x.a0, x.a2, y.a2 FROM (" + agg + ") x JOIN (" + agg + ") y ON x.g0 = y.g0 ORDER BY 1"),
           All(con, "SELECT g0, a0, a2, a2 FROM (" + agg + ") ORDER BY 1"));
  CHECK_EQ(Count(All(con, "SELECT g0 FROM (" + agg + ")"), ";"), 1u);  // two nations
}

TEST_MAIN()
