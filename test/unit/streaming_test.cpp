// Streamed results (Connection::Stream, execution/result_consumer.hpp): the rows arrive in
// the result's order, chunk by chunk, the first before the last is produced; a consumer
// stops a query early or interrupts it; statements that do not stream hand their rows over
// whole; a cached plan streamed once runs unstreamed afterwards.
#include <string>
#include <vector>

#include "check.hpp"
#include "common/interrupt.hpp"
#include "main/database.hpp"

using namespace tessera;

namespace {

// Collects what it is handed; stops after `stop_after` chunks (0: never), or interrupts
// the connection at its first chunk.
struct Collector : ResultConsumer {
  std::vector<std::string> names;
  int begins = 0, chunks = 0;
  size_t stop_after = 0;
  Connection* interrupt = nullptr;
  std::vector<std::string> rows;
  void Begin(const std::vector<std::string>& n, const std::vector<Type>&) override {
    names = n;
    begins++;
  }
  bool Chunk(DataChunk& c) override {
    chunks++;
    for (uint32_t r = 0; r < c.size; r++) {
      std::string row;
      for (size_t i = 0; i < c.cols.size(); i++) row += (i ? "|" : "") + c.cols[i].GetValue(r).ToString();
      rows.push_back(std::move(row));
    }
    if (interrupt) interrupt->Interrupt();
    return !(stop_after && (size_t)chunks >= stop_after);
  }
};

std::vector<std::string> Rows(const QueryResult& r) {
  std::vector<std::string> out;
  for (auto& row : r.ToStrings()) {
    std::string s;
    for (size_t i = 0; i < row.size(); i++) s += (i ? "|" : "") + row[i];
    out.push_back(std::move(s));
  }
  return out;
}

constexpr uint64_t kRows = 400000;  // several row groups

void Fill(Database& db, unsigned threads) {
  db.settings().threads = threads;
  Connection c(db);
  c.Query("CREATE TABLE t AS SELECT i, i % 1000 AS g, 'v' || CAST(i AS VARCHAR) AS s FROM range(" +
          std::to_string(kRows) + ") r(i)");
}

}  // namespace

TEST(streamed_rows_match_the_materialised_result_in_order) {
  for (unsigned threads : {1u, 2u, 4u}) {
    Database db;
    Fill(db, threads);
    Connection c(db);
    for (const char* sql : {"SELECT i, s FROM t WHERE g % 7 <> 3",  // streams from the scan
                            "SELECT g, count(*) FROM t GROUP BY g ORDER BY g DESC",  // blocking: at the end
                            "SELECT * FROM t WHERE i > 100 LIMIT 5000 OFFSET 10",
                            "SELECT t.i, u.i FROM t JOIN t u ON t.i = u.i + 1 WHERE t.g = 5"}) {
      const auto expected = Rows(c.Query(sql));
      Collector got;
      QueryResult r = c.Stream(sql, got);
      CHECK(r.has_rows);
      CHECK(r.chunks.empty());
      CHECK_EQ(got.begins, 1);
      CHECK_EQ(r.row_count, (uint64_t)expected.size());
      CHECK(got.rows == expected);
      CHECK_EQ(got.names.size(), (size_t)(std::string(sql).find("SELECT *") == 0 ? 3 : 2));
    }
  }
}

TEST(the_first_chunk_arrives_before_the_last_is_produced) {
  // The table's last row makes the query fail when computed (a failing cast): run whole, it
  // fails; streamed to a consumer that stops at its first chunk, it does not, so that
  // chunk was handed over before the last row was produced and nothing after it ran.
  const std::string sql = "SELECT i, CAST(CASE WHEN i < " + std::to_string(kRows - 1) +
                          " THEN '1' ELSE 'x' END AS INTEGER) AS ok FROM t";
  for (unsigned threads : {1u, 2u}) {
    Database db;
    Fill(db, threads);
    Connection c(db);
    CHECK_THROWS_WITH(c.Query(sql), "x");
    Collector first;
    first.stop_after = 1;
    QueryResult r = c.Stream(sql, first);
    CHECK_EQ(first.chunks, 1);
    CHECK_EQ(r.row_count, (uint64_t)first.rows.size());
    CHECK(first.rows.size() > 0 && first.rows.size() < kRows);
    CHECK_EQ(first.rows[0], std::string("0|1"));
    // A consumer that takes everything is called once per chunk, many times.
    Collector all;
    c.Stream("SELECT i, s FROM t", all);
    CHECK(all.chunks > 10);
    CHECK_EQ(all.rows.size(), (size_t)kRows);
  }
}

TEST(a_consumer_may_interrupt_the_query) {
  Database db;
  Fill(db, 2);
  Connection c(db);
  Collector stopper;
  stopper.interrupt = &c;  // as Ctrl-C while the shell prints
  CHECK_THROWS_WITH(c.Stream("SELECT * FROM t", stopper), "interrupted");
  CHECK(stopper.chunks >= 1);
  CHECK(stopper.rows.size() < kRows);
  // The connection answers the next statement.
  CHECK_EQ(Rows(c.Query("SELECT count(*) FROM t"))[0], std::to_string(kRows));
}

TEST(statements_that_do_not_stream_hand_their_rows_over_whole) {
  Database db;
  Connection c(db);
  c.Query("CREATE TABLE x (a INTEGER)");
  Collector explain;
  QueryResult r = c.Stream("EXPLAIN SELECT * FROM x", explain);
  CHECK(r.has_rows);
  CHECK_EQ(explain.begins, 1);
  CHECK(explain.rows.size() > 1);
  CHECK_EQ(r.row_count, (uint64_t)explain.rows.size());
  Collector status;
  r = c.Stream("INSERT INTO x VALUES (1), (2)", status);
  CHECK(!r.has_rows);
  CHECK_EQ(r.message, std::string("INSERT 2"));
  CHECK_EQ(status.begins, 0);
  Collector empty;
  r = c.Stream("SELECT * FROM x WHERE a > 5", empty);
  CHECK_EQ(empty.begins, 1);
  CHECK_EQ(empty.chunks, 0);
  CHECK_EQ(r.row_count, (uint64_t)0);
  // Several statements: only the last one's rows are streamed.
  Collector last;
  r = c.Stream("SELECT 1; SELECT a FROM x ORDER BY a", last);
  CHECK(last.rows == std::vector<std::string>({"1", "2"}));
}

TEST(a_cached_plan_streamed_once_runs_unstreamed_afterwards) {
  Database db;
  Fill(db, 2);
  Connection c(db);
  const char* sql = "SELECT i FROM t WHERE g = 17";
  for (int run = 0; run < 2; run++) {  // the second run takes the plan from the cache
    Collector got;
    c.Stream(sql, got);
    CHECK_EQ(got.rows.size(), (size_t)(kRows / 1000));
  }
  QueryResult r = c.Query(sql);
  CHECK(r.phases.plan_cached);
  CHECK_EQ(r.row_count, (uint64_t)(kRows / 1000));
  CHECK_EQ(Rows(r).size(), (size_t)(kRows / 1000));
}

TEST(streaming_inside_a_transaction_sees_its_writes) {
  Database db;
  Connection c(db);
  c.Query("CREATE TABLE x (a INTEGER)");
  c.Query("BEGIN");
  c.Query("INSERT INTO x VALUES (7)");
  Collector got;
  c.Stream("SELECT a FROM x", got);
  CHECK(got.rows == std::vector<std::string>({"7"}));
  c.Query("ROLLBACK");
  Collector after;
  c.Stream("SELECT a FROM x", after);
  CHECK(after.rows.empty());
}

TEST_MAIN()
