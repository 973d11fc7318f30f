// Planner/optimizer checks through EXPLAIN: star-join order (the fact table probes the
// filtered dimensions, the smaller side of each join builds), pipelines, projection pruning, filter pushdown, and the
// DuckDB-compatible typing of results.
#include "check.hpp"
#include "gen/ssb_gen.hpp"
#include "main/database.hpp"

using namespace tessera;

static std::string Explain(Connection& con, const std::string& sql) {
  auto r = con.Query("EXPLAIN " + sql);
  std::string s;
  for (auto& row : r.ToStrings()) s += row[0] + "\n";
  return s;
}

static Database& SsbDb() {
  static Database db;
  static bool init = [] {
    SsbOptions o;
    o.sf = 0.01;
    GenerateSsb(db.catalog(), o);
    return true;
  }();
  (void)init;
  return db;
}

TEST(star_join_probes_with_the_fact_table) {
  Connection con(SsbDb());
  std::string p = Explain(con,
      "select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier "
      "where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey "
      "and p_category = 'MFGR#12' and s_region = 'AMERICA' group by d_year, p_brand1");
  // lineorder probes the two filtered dimensions; at SF 0.01 their result (~600 rows) is
  // smaller than date (2556), so it builds and date probes it (the smaller side builds)
  CHECK(p.find("TABLE_SCAN -> HASH_JOIN -> HASH_JOIN -> HASH_JOIN (build)") != std::string::npos);
  CHECK(p.find("TABLE_SCAN -> HASH_JOIN -> HASH_GROUP_BY") != std::string::npos);
  CHECK(p.find("TABLE_SCAN date") < p.find("TABLE_SCAN lineorder"));
  size_t builds = 0;
  for (size_t at = 0; (at = p.find("HASH_JOIN (build)", at)) != std::string::npos; at++) builds++;
  CHECK_EQ(builds, (size_t)3);
  // filters are pushed into the dimension scans
  CHECK(p.find("TABLE_SCAN part [p_partkey, p_category, p_brand1] WHERE (p_category = 'MFGR#12')") != std::string::npos);
  CHECK(p.find("WHERE (s_region = 'AMERICA')") != std::string::npos);
  // only the referenced lineorder columns are read
  CHECK(p.find("TABLE_SCAN lineorder [lo_partkey, lo_suppkey, lo_orderdate, lo_revenue]") != std::string::npos ||
        p.find("TABLE_SCAN lineorder [lo_orderdate, lo_partkey, lo_suppkey, lo_revenue]") != std::string::npos);
  CHECK(p.find("d_datekey = lo_orderdate") != std::string::npos);
  // after execution on the CPU (also where a GPU exists), dense dimension keys (1..N,
  // yyyymmdd dates) use the perfect hash
  auto a = con.Query("EXPLAIN (ANALYZE, DEVICE cpu) select count(*) from lineorder, date where lo_orderdate = d_datekey");
  std::string text;
  for (auto& row : a.ToStrings()) text += row[0] + "\n";
  CHECK(text.find("(perfect hash)") != std::string::npos);
}

// Join filters passed sideways (execution/operators/join_filter.hpp): joins that drop probe
// rows without a match hand their keys to the probe key's scan; anti and left joins keep
// such rows and pass none. The rows stay those of the plain join.
TEST(join_filters_reach_the_probe_scan) {
  Connection con(SsbDb());
  const std::string inner =
      "select count(*), sum(lo_revenue) from lineorder, part where lo_partkey = p_partkey and p_category = 'MFGR#12'";
  std::string p = Explain(con, inner);
  CHECK(p.find("JOIN FILTER lo_partkey IN build p_partkey") != std::string::npos);
  std::string anti = Explain(con, "select count(*) from lineorder where not exists "
                                  "(select 1 from part where p_partkey = lo_partkey and p_category = 'MFGR#12')");
  CHECK(anti.find("JOIN FILTER") == std::string::npos);
  std::string left = Explain(con, "select count(p_partkey) from lineorder left join part "
                                  "on lo_partkey = p_partkey and p_category = 'MFGR#12'");
  CHECK(left.find("JOIN FILTER") == std::string::npos);
  // through a filter and a projection, and the rows rejected before the join
  std::string nested = Explain(con, "select count(*) from (select lo_partkey + 0 as x, lo_partkey from lineorder "
                                    "where lo_quantity < 30) l, part where l.lo_partkey = p_partkey and p_category = 'MFGR#12'");
  CHECK(nested.find("JOIN FILTER lo_partkey") != std::string::npos);
  auto a = con.Query("EXPLAIN (ANALYZE, DEVICE cpu) " + inner);
  std::string text;
  for (auto& row : a.ToStrings()) text += row[0] + "\n";
  const size_t scan = text.find("TABLE_SCAN lineorder");
  CHECK(scan != std::string::npos);
  const size_t join = text.rfind("HASH_JOIN INNER", scan);
  CHECK(join != std::string::npos);
  // the scan's actual rows are those the join matched (each lineorder row has its part)
  auto actual = [&](size_t at) {
    const size_t a0 = text.find("actual ", at) + 7;
    return std::stoull(text.substr(a0, text.find(')', a0) - a0));
  };
  CHECK_EQ(actual(scan), actual(join));
}

TEST(result_types_follow_duckdb) {
  Database db;
  Connection con(db);
  auto r = con.Query("select sum(1), avg(2), 1.5 * 2.25, 7 / 2, 7 // 2, count(*), 1 + 1.5");
  CHECK_EQ(r.types[0].ToString(), std::string("BIGINT"));
  CHECK_EQ(r.types[1].ToString(), std::string("DOUBLE"));
  CHECK_EQ(r.types[2].ToString(), std::string("DECIMAL(5,3)"));
  CHECK_EQ(r.types[3].ToString(), std::string("DOUBLE"));
  CHECK_EQ(r.types[4].ToString(), std::string("INTEGER"));
  CHECK_EQ(r.types[5].ToString(), std::string("BIGINT"));
  CHECK_EQ(r.types[6].ToString(), std::string("DECIMAL(12,1)"));
  auto v = r.ToStrings()[0];
  CHECK_EQ(v[2], std::string("3.375"));
  CHECK_EQ(v[3], std::string("3.5"));
  CHECK_EQ(v[4], std::string("3"));
  CHECK_EQ(v[6], std::string("2.5"));
}

TEST(errors_carry_positions) {
  Connection con(SsbDb());
  CHECK_THROWS_WITH(con.Query("select lo_revenue\nfrom lineorder\nwhere lo_qty < 3"),
                    "line 3, column 7: column \"lo_qty\" does not exist");
  CHECK_THROWS_WITH(con.Query("select * from nosuch"), "table \"nosuch\" does not exist");
  CHECK_THROWS_WITH(con.Query("select 'abc' + 1"), "could not convert");
}

// Semi-join reduction (src/optimizer/semi_join_reduction.cpp): a correlated aggregate's
// input is filtered by the outer side's keys before it is grouped, and only when the outer
// side is much smaller than the groups.
TEST(correlated_aggregates_are_reduced_by_the_outer_keys) {
  Database db;
  Connection con(db);
  con.Query("CREATE TABLE big (k INTEGER, s INTEGER, q INTEGER)");
  con.Query("CREATE TABLE small (k INTEGER, tag VARCHAR)");
  con.Query("CREATE TABLE d (v INTEGER)");
  con.Query("INSERT INTO d VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)");
  // 20000 rows, 5000 keys; 40 outer keys
  con.Query("INSERT INTO big SELECT (a.v * 1000 + b.v * 100 + c.v * 10 + e.v) % 5000, a.v % 7, (b.v + c.v) % 11 "
            "FROM d a, d b, d c, d e, (VALUES (0), (1)) x(y)");
  con.Query("INSERT INTO small SELECT (a.v * 10 + b.v) * 97, 'x' FROM d a, d b WHERE a.v < 4");
  const std::string q =
      "SELECT small.k FROM small WHERE tag = 'x' AND 3 < (SELECT avg(q) FROM big WHERE big.k = small.k)";
  std::string p = Explain(con, q);
  // the aggregation's input probes a semi join built from a copy of the outer side
  size_t group = p.find("HASH_GROUP_BY");
  CHECK(group != std::string::npos);
  CHECK(p.find("HASH_JOIN SEMI k = k", group) != std::string::npos);
  // the outer side as large as the groups: no reduction
  con.Query("INSERT INTO small SELECT a.v * 1000 + b.v * 100 + c.v * 10 + e.v, 'x' FROM d a, d b, d c, d e");
  std::string p2 = Explain(con, q);
  CHECK(p2.find("HASH_JOIN SEMI") == std::string::npos);
}

// Window functions: one WINDOW operator for the query's window functions, between the
// aggregation and QUALIFY's filter; on the GPU both its pipelines fall back to the CPU,
// with the reason in EXPLAIN.
TEST(window_operator_in_plans) {
  Database db;
  Connection con(db);
  con.Query("CREATE TABLE t (g INTEGER, x INTEGER)");
  const std::string q =
      "SELECT g, sum(sum(x)) OVER (ORDER BY g), rank() OVER (ORDER BY count(*) DESC) AS r FROM t GROUP BY g "
      "QUALIFY r <= 3";
  std::string p = Explain(con, q);
  size_t filter = p.find("FILTER");
  size_t window = p.find("WINDOW sum(");
  size_t group = p.find("HASH_GROUP_BY");
  CHECK(filter != std::string::npos && window != std::string::npos && group != std::string::npos);
  CHECK(filter < window && window < group);
  CHECK(p.find("rank() OVER (ORDER BY") != std::string::npos);
  std::string g = Explain(con, "(DEVICE gpu) " + q);
  CHECK(g.find("its sink WINDOW is not on the GPU yet") != std::string::npos);
  CHECK(g.find("intermediate result (WINDOW)") != std::string::npos);
}

// FULL joins: the hash join probes as a LEFT join, then a source emits the build rows it
// left unmatched (a pipeline after the probe's), both into a UNION ALL; the GPU leaves
// them to the CPU and says why. A filter rejecting one side's NULL padding makes a LEFT
// join (RIGHT: the sides swapped), rejecting both an inner join.
TEST(full_and_right_joins_in_plans) {
  Database db;
  Connection con(db);
  con.Query("CREATE TABLE a (k INTEGER, v INTEGER)");
  con.Query("CREATE TABLE b (k INTEGER, w INTEGER)");
  std::string p = Explain(con, "SELECT * FROM a FULL JOIN b ON a.k = b.k");
  CHECK(p.find("HASH_JOIN FULL k = k") != std::string::npos);
  CHECK(p.find("FULL_JOIN_UNMATCHED") != std::string::npos);
  CHECK(p.find("TABLE_SCAN -> HASH_JOIN -> UNION_ALL   (after 1)") != std::string::npos);
  CHECK(p.find("FULL_JOIN_UNMATCHED -> UNION_ALL   (after 2)") != std::string::npos);
  std::string g = Explain(con, "(DEVICE gpu) SELECT * FROM a FULL JOIN b ON a.k = b.k");
  CHECK(g.find("FULL OUTER joins do not run on the GPU yet") != std::string::npos);
  // A LEFT join keeps its preserved side first (it probes); on the CPU it may become a RIGHT
  // join, which keeps it second (it builds), when that side is estimated the smaller one.
  auto preserved_first = [](const std::string& p, const char* preserved, const char* other) {
    size_t join = p.find("HASH_JOIN LEFT");
    bool left = join != std::string::npos;
    if (!left) join = p.find("HASH_JOIN RIGHT ");
    if (join == std::string::npos || p.find("FULL") != std::string::npos) return false;
    return (p.find(std::string("TABLE_SCAN ") + preserved, join) < p.find(std::string("TABLE_SCAN ") + other, join)) == left;
  };
  std::string l = Explain(con, "SELECT * FROM a FULL JOIN b ON a.k = b.k WHERE a.v > 1");
  CHECK(preserved_first(l, "a", "b"));
  std::string r = Explain(con, "SELECT * FROM a FULL JOIN b ON a.k = b.k WHERE b.w > 1");
  CHECK(preserved_first(r, "b", "a"));
  size_t join;
  std::string i = Explain(con, "SELECT * FROM a FULL JOIN b ON a.k = b.k WHERE b.w > 1 AND a.v > 1");
  CHECK(i.find("HASH_JOIN INNER") != std::string::npos && i.find("LEFT") == std::string::npos);
  std::string rj = Explain(con, "SELECT * FROM a RIGHT JOIN b ON a.k = b.k");
  join = rj.find("HASH_JOIN LEFT");
  CHECK(join != std::string::npos && rj.find("TABLE_SCAN b", join) < rj.find("TABLE_SCAN a", join));
}

// GROUPING SETS: one aggregation per set under a UNION ALL.
TEST(grouping_sets_in_plans) {
  Database db;
  Connection con(db);
  con.Query("CREATE TABLE t (a INTEGER, b INTEGER, x INTEGER)");
  std::string p = Explain(con, "SELECT a, b, sum(x) FROM t GROUP BY ROLLUP (a, b)");
  size_t aggs = 0;
  for (size_t at = 0; (at = p.find("-> UNION_ALL", at)) != std::string::npos; at++) aggs++;
  CHECK_EQ(aggs, (size_t)3);
  CHECK(p.find("UNGROUPED_AGGREGATE") != std::string::npos);
}

// WITH RECURSIVE: a source running its own plans (the working table scanned by the
// recursive part's); not on the GPU; a recursion that never ends is an error.
TEST(recursive_cte_in_plans) {
  Database db;
  Connection con(db);
  const std::string q = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t";
  std::string p = Explain(con, q);
  CHECK(p.find("RECURSIVE_CTE UNION ALL") != std::string::npos);
  CHECK(p.find("WORKING_TABLE_SCAN") != std::string::npos);
  std::string g = Explain(con, "(DEVICE gpu) " + q);
  CHECK(g.find("intermediate result (RECURSIVE_CTE)") != std::string::npos);
  bool failed = false;
  try {
    con.Query("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t");
  } catch (const UserError& e) {
    failed = std::string(e.what()).find("did not finish") != std::string::npos;
  }
  CHECK(failed);
}

// DATE +/- INTERVAL is a TIMESTAMP; a DATE column compared with it is compared with a DATE
// constant again (optimizer/date_comparison.cpp): the scan's filter is `column CMP
// constant` (what zone maps prune by, and the GPU's kernels read), with the day's floor or
// ceiling where the constant is not a midnight.
TEST(date_compared_with_timestamp_constant_stays_a_date_filter) {
  Database db;
  Connection con(db);
  con.Query("CREATE TABLE t (d DATE)");
  std::string p = Explain(con, "SELECT count(*) FROM t WHERE d <= DATE '1998-12-01' - INTERVAL '90' DAY");
  CHECK(p.find("WHERE (d <= 1998-09-02)") != std::string::npos);
  CHECK(p.find("CAST") == std::string::npos);
  p = Explain(con, "SELECT count(*) FROM t WHERE d < TIMESTAMP '1998-09-02 00:00:01'");
  CHECK(p.find("WHERE (d < 1998-09-03)") != std::string::npos);
  p = Explain(con, "SELECT count(*) FROM t WHERE TIMESTAMP '1998-09-02 12:00' <= d");
  CHECK(p.find("WHERE (d >= 1998-09-03)") != std::string::npos);
  // = against a time that is not a midnight stays as written
  p = Explain(con, "SELECT count(*) FROM t WHERE d = TIMESTAMP '1998-09-02 12:00'");
  CHECK(p.find("CAST(d AS TIMESTAMP)") != std::string::npos);
}

TEST_MAIN()
