// The plan cache (src/main/plan_cache.hpp): a repeated SELECT reuses its prepared plan,
// gives the same rows as the first run, and is prepared again after any catalog change.
#include <chrono>
#include <thread>

#include "check.hpp"
#include "main/database.hpp"
#include "main/plan_cache.hpp"

using namespace tessera;

namespace {

std::vector<std::vector<std::string>> Rows(Connection& c, const std::string& sql) { return c.Query(sql).ToStrings(); }

void Setup(Connection& c) {
  c.Query("create table t (k integer, g varchar, v bigint)");
  c.Query("insert into t values (1, 'a', 10), (2, 'a', 20), (3, 'b', 30), (4, 'c', null), (5, 'b', 50)");
  c.Query("create table u (k integer, w integer)");
  c.Query("insert into u values (1, 100), (3, 300), (3, 301), (9, 900)");
}

}  // namespace

TEST(repeated_queries_hit_and_give_the_same_rows) {
  Database db;
  db.settings().device = "cpu";
  Connection c(db);
  Setup(c);
  // Every sink kind: join build, aggregation, order, limit, result; semi/anti/mark joins.
  const char* queries[] = {
      "select g, count(*), sum(v) from t group by g order by g",
      "select t.k, u.w from t join u on t.k = u.k order by t.k, u.w",
      "select k from t order by k desc limit 2",
      "select k from t order by k limit 2 offset 1",
      "select k from t where exists (select 1 from u where u.k = t.k) order by k",
      "select k from t where not exists (select 1 from u where u.k = t.k) order by k",
      "select k, k in (select k from u) from t order by k",
      "select k, (select max(w) from u where u.k = t.k) from t order by k",
      "select t.k, u.w from t left join u on t.k = u.k order by t.k, u.w",
      "select sum(v) from t",
  };
  for (const char* q : queries) {
    auto first = c.Query(q);
    CHECK(!first.phases.plan_cached);
    for (int i = 0; i < 3; i++) {
      auto again = c.Query(q);
      CHECK(again.phases.plan_cached);
      CHECK(again.ToStrings() == first.ToStrings());
      CHECK_EQ(again.row_count, first.row_count);
    }
  }
  auto st = db.plan_cache().stats();
  CHECK_EQ(st.hits, (uint64_t)30);
  CHECK_EQ(st.entries, (size_t)10);
}

TEST(catalog_changes_make_plans_stale) {
  Database db;
  db.settings().device = "cpu";
  Connection c(db);
  Setup(c);
  const std::string q = "select count(*), sum(v) from t";
  CHECK(Rows(c, q) == (std::vector<std::vector<std::string>>{{"5", "110"}}));
  CHECK(c.Query(q).phases.plan_cached);
  c.Query("insert into t values (6, 'd', 5)");  // new rows: the plan's scan snapshot is old
  auto r = c.Query(q);
  CHECK(!r.phases.plan_cached);
  CHECK(r.ToStrings() == (std::vector<std::vector<std::string>>{{"6", "115"}}));
  // A table dropped and created again with other types binds afresh.
  c.Query("drop table t");
  CHECK_THROWS_WITH(c.Query(q), "does not exist");
  c.Query("create table t (k integer, g varchar, v double)");
  c.Query("insert into t values (1, 'x', 0.5)");
  CHECK(Rows(c, q) == (std::vector<std::vector<std::string>>{{"1", "0.5"}}));
  // A view replaced: the query over it sees the new definition.
  c.Query("create view w as select k from t");
  CHECK(Rows(c, "select * from w") == (std::vector<std::vector<std::string>>{{"1"}}));
  c.Query("create or replace view w as select k + 1 as k from t");
  CHECK(Rows(c, "select * from w") == (std::vector<std::vector<std::string>>{{"2"}}));
}

TEST(errors_repeat_and_are_not_cached) {
  Database db;
  db.settings().device = "cpu";
  Connection c(db);
  Setup(c);
  // u.k = 3 matches two rows: a scalar subquery error at run time, every time.
  const std::string q = "select k, (select w from u where u.k = t.k) from t";
  for (int i = 0; i < 3; i++) CHECK_THROWS_WITH(c.Query(q), "More than one row");
  CHECK_EQ(db.plan_cache().stats().hits, (uint64_t)0);
  CHECK_EQ(db.plan_cache().stats().entries, (size_t)0);
  for (int i = 0; i < 2; i++) CHECK_THROWS_WITH(c.Query("select nope from t"), "nope");
}

// now() is bound as the statement's time: a plan holding it is not cached, so a later
// statement gets a later time.
TEST(the_statement_time_is_not_cached) {
  Database db;
  db.settings().device = "cpu";
  Connection c(db);
  const std::string q = "select now(), current_date";
  const auto first = Rows(c, q);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto second = Rows(c, q);
  CHECK(first.size() == 1 && second.size() == 1);
  CHECK(first[0][0] < second[0][0]);  // the text form sorts as the time does
  CHECK_EQ(db.plan_cache().stats().entries, (size_t)0);
}

TEST(setting_off_and_other_keys) {
  Database db;
  db.settings().device = "cpu";
  Connection c(db);
  Setup(c);
  const std::string q = "select max(k) from t";
  c.Query(q);
  CHECK(c.Query(q).phases.plan_cached);
  c.Query("set plan_cache = off");
  CHECK_EQ(db.plan_cache().stats().entries, (size_t)0);
  CHECK(!c.Query(q).phases.plan_cached);
  CHECK(!c.Query(q).phases.plan_cached);
  CHECK_THROWS_WITH(c.Query("set plan_cache = maybe"), "on or off");
  c.Query("set plan_cache = on");
  c.Query(q);
  CHECK(c.Query(q).phases.plan_cached);
  // Several statements in one text are not cached; the device setting is part of the key.
  auto all = c.ExecuteAll("select 1; select max(k) from t");
  CHECK(!all.back().phases.plan_cached);
  db.settings().device = "auto";
  CHECK(!c.Query(q).phases.plan_cached);
  CHECK(c.Query(q).phases.plan_cached);
}

TEST(least_recently_used_entries_go_first_and_stale_ones_all_go) {
  PlanCache cache(2);
  auto put = [&](const std::string& key, uint64_t version) {
    auto e = std::make_unique<PlanCacheEntry>();
    e->key = key;
    e->catalog_version = version;
    cache.Put(std::move(e), 7);
  };
  put("a", 7);
  put("b", 7);
  auto a = cache.Take("a", 7);  // a becomes the most recent when put back
  CHECK(a != nullptr);
  cache.Put(std::move(a), 7);
  put("c", 7);  // evicts b
  CHECK(cache.Take("b", 7) == nullptr);
  put("d", 6);  // prepared before the catalog changed: not kept
  CHECK(cache.Take("d", 7) == nullptr);
  CHECK_EQ(cache.stats().entries, (size_t)2);
  CHECK_EQ(cache.stats().evictions, (uint64_t)1);
  CHECK_EQ(cache.stats().prepared, (uint64_t)3);
  // The catalog moves on: the next lookup drops every entry of the old version, whatever
  // its key (their snapshots and GPU columns go with them).
  CHECK(cache.Take("zzz", 8) == nullptr);
  CHECK_EQ(cache.stats().entries, (size_t)0);
  CHECK_EQ(cache.stats().stale, (uint64_t)2);
}

TEST_MAIN()
