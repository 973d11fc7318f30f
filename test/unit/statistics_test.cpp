// Column statistics for the optimizer: the distinct-count sketch (accuracy, merging,
// packing), sketches persisted in row-group files and read back, databases of format
// version 2 (no sketches) opening and getting them from ANALYZE, the distinct counts and
// join estimates made from them, and EXPLAIN ANALYZE showing estimated and actual rows.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "check.hpp"
#include "main/database.hpp"
#include "optimizer/cardinality.hpp"
#include "storage/distinct_sketch.hpp"
#include "row_group_versions.hpp"
#include "temp_dir.hpp"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

// The HyperLogLog standard error with 1024 registers is 1.04 / 32 = 3.25%; four of them.
constexpr double kTolerance = 4 * 1.04 / 32;

double Estimate(uint64_t distinct, uint64_t repeats, uint64_t seed) {
  DistinctSketch s;
  std::mt19937_64 rng(seed);
  const uint64_t base = rng();
  for (uint64_t r = 0; r < repeats; r++)
    for (uint64_t i = 0; i < distinct; i++) s.Add(SketchHashInt((int64_t)(base + i * 7919)));
  return s.Estimate();
}

// Whether every chunk of every row group of `table` has a sketch.
bool AllSketched(Database& db, const std::string& table) {
  auto t = db.catalog().GetTable(table);
  for (auto& rg : t->data->row_groups)
    for (auto& c : rg->columns)
      if (!c->stats.sketch) return false;
  return true;
}

// The merged sketch's distinct count of a table column (the optimizer's DistinctValues).
double ColumnDistinct(Database& db, const std::string& table, uint32_t col) {
  LogicalOp get(LogicalKind::Get);
  get.table = db.catalog().GetTable(table);
  return DistinctValues(&get, col);
}

std::string ExplainText(Connection& c, const std::string& sql) {
  std::string s;
  for (auto& row : c.Query(sql).ToStrings()) s += row[0] + "\n";
  return s;
}

}  // namespace

TEST(sketch_estimates_are_within_the_hyperloglog_bound) {
  for (uint64_t n : {1ull, 7ull, 100ull, 1000ull, 5000ull, 20000ull, 200000ull, 1000000ull}) {
    for (uint64_t seed : {1ull, 2ull}) {
      double e = Estimate(n, n <= 1000 ? 3 : 1, seed);
      // Linear counting is near exact for small counts.
      double tol = n <= 100 ? 0.03 : kTolerance;
      if (std::fabs(e - (double)n) > tol * (double)n + 0.5)
        throw std::runtime_error("sketch of " + std::to_string(n) + " distinct values estimated " + std::to_string(e));
    }
  }
  CHECK(DistinctSketch().Estimate() == 0);
  CHECK(DistinctSketch().Empty());
}

TEST(sketches_merge_and_pack) {
  DistinctSketch a, b, all;
  for (int64_t i = 0; i < 60000; i++) {
    (i % 2 ? a : b).Add(SketchHashInt(i));
    all.Add(SketchHashInt(i));
  }
  // Overlap: a value in both halves counts once.
  for (int64_t i = 0; i < 30000; i++) b.Add(SketchHashInt(i));
  a.Merge(b);
  CHECK(a.registers() == all.registers());
  std::string packed;
  a.Pack(packed);
  CHECK_EQ(packed.size(), DistinctSketch::kPackedBytes);
  DistinctSketch back;
  CHECK(back.Unpack(packed));
  CHECK(back.registers() == a.registers());
  CHECK(!back.Unpack(packed.substr(1)));  // wrong size
  std::string bad = packed;
  bad[0] = (char)0xff;  // register 0 = 63: more than a 54-bit rank allows
  CHECK(!back.Unpack(bad));
  CHECK(DistinctSketch::PackedValid(packed) && !DistinctSketch::PackedValid(bad));
  // A sketch left packed (a database file's): unpacked once, on first use, shared by copies.
  auto keep = std::make_shared<std::string>(packed);
  SketchRef lazy = SketchRef::Packed(reinterpret_cast<const uint8_t*>(keep->data()), keep);
  const SketchRef copy = lazy;
  CHECK(lazy && copy);
  CHECK(copy->registers() == a.registers());
  CHECK(lazy.get() == copy.get());
  CHECK(!SketchRef());
  // Strings hash by value: a plain and a dictionary chunk of the same strings agree.
  CHECK_EQ(SketchHashBytes("abc"), SketchHashBytes(std::string("abc")));
  CHECK(SketchHashDouble(0.0) == SketchHashDouble(-0.0));
}

TEST(sketches_are_written_with_row_groups_and_read_back) {
  TempDir dir;
  {
    Database db(dir.path);
    Connection c(db);
    c.Query("CREATE TABLE t (k INTEGER, g INTEGER, s VARCHAR, d DOUBLE, n INTEGER)");
    c.Query("INSERT INTO t SELECT i, i % 37, 'v' || (i % 1000)::VARCHAR, (i % 250) / 4.0, CASE WHEN i % 3 = 0 THEN NULL "
            "ELSE i % 11 END FROM range(300000) r(i)");
    CHECK(AllSketched(db, "t"));
  }
  for (uint32_t v : RowGroupFileVersions(dir.path)) CHECK_EQ(v, 3u);
  Database db(dir.path);
  CHECK(AllSketched(db, "t"));
  auto near = [](double got, double want) { return std::fabs(got - want) <= kTolerance * want + 1; };
  CHECK(near(ColumnDistinct(db, "t", 0), 300000));
  CHECK(near(ColumnDistinct(db, "t", 1), 37));
  CHECK(near(ColumnDistinct(db, "t", 2), 1000));
  CHECK(near(ColumnDistinct(db, "t", 3), 250));
  CHECK(near(ColumnDistinct(db, "t", 4), 11));  // NULLs are not a value
}

// A database written by format version 2 (test/fixtures/storage_v2, made by the build before
// sketches) opens and answers; its chunks have no sketches until ANALYZE writes them.
TEST(version_2_database_opens_and_gets_sketches_from_analyze) {
  const fs::path fixture = fs::path(TESSERA_SOURCE_DIR) / "test/fixtures/storage_v2";
  TempDir dir;
  for (auto& e : fs::directory_iterator(fixture))
    if (e.path().filename().string().rfind("rg-", 0) == 0 || e.path().filename() == "catalog.tsm")
      fs::copy_file(e.path(), fs::path(dir.path) / e.path().filename());
  const std::string totals =
      "SELECT count(*), count(DISTINCT grp), count(DISTINCT code), count(DISTINCT note), sum(price), min(day), max(day) "
      "FROM t";
  // What the version 2 build answered (test/fixtures/README.md).
  const std::vector<std::string> want = {"4000", "50", "300", "4000", "499500.00", "1992-01-01", "1997-06-22"};
  {
    Database db(dir.path);
    Connection c(db);
    CHECK(c.Query(totals).ToStrings()[0] == want);
    CHECK(!AllSketched(db, "t") && !AllSketched(db, "dim"));
    for (uint32_t v : RowGroupFileVersions(dir.path)) CHECK_EQ(v, 2u);
    c.Query("ANALYZE t");
    CHECK(AllSketched(db, "t") && !AllSketched(db, "dim"));
    c.Query("ANALYZE");
    CHECK(AllSketched(db, "dim"));
    CHECK(c.Query(totals).ToStrings()[0] == want);
  }
  for (uint32_t v : RowGroupFileVersions(dir.path)) CHECK_EQ(v, 3u);  // rewritten; the old files are gone
  Database db(dir.path);
  Connection c(db);
  CHECK(AllSketched(db, "t") && AllSketched(db, "dim"));
  CHECK(c.Query(totals).ToStrings()[0] == want);
  CHECK(std::fabs(ColumnDistinct(db, "t", 2) - 300) <= 10);
  CHECK(std::fabs(ColumnDistinct(db, "t", 3) - 4000) <= 4000 * kTolerance);
  // Nothing left to do: ANALYZE again changes no file.
  auto before = RowGroupFileVersions(dir.path).size();
  c.Query("ANALYZE");
  CHECK_EQ(RowGroupFileVersions(dir.path).size(), before);
}

// Distinct counts from sketches, not from min/max: a key/foreign-key join is estimated
// from the key side's distinct count, and EXPLAIN ANALYZE shows estimate and actual rows.
TEST(join_estimates_come_from_sketches_and_explain_analyze_shows_them) {
  Database db;
  Connection c(db);
  c.Query("CREATE TABLE dim (k BIGINT, name VARCHAR)");
  // Keys spread over a range 1000 times wider than their number: min/max would say 1 M.
  c.Query("INSERT INTO dim SELECT i * 1000, 'n' || i::VARCHAR FROM range(1000) r(i)");
  c.Query("CREATE TABLE fact (fk BIGINT, v INTEGER)");
  c.Query("INSERT INTO fact SELECT (i % 1000) * 1000, i % 7 FROM range(200000) r(i)");
  CHECK(std::fabs(ColumnDistinct(db, "dim", 0) - 1000) < 1000 * kTolerance);
  CHECK(std::fabs(ColumnDistinct(db, "fact", 0) - 1000) < 1000 * kTolerance);
  std::string text = ExplainText(c, "EXPLAIN ANALYZE SELECT count(*) FROM fact, dim WHERE fk = k AND name < 'n5'");
  text = text.substr(0, text.find("pipelines:"));  // the operator tree
  // The join line: "HASH_JOIN INNER ... (estimated N rows, actual M)".
  size_t at = text.find("HASH_JOIN");
  CHECK(at != std::string::npos);
  std::string line = text.substr(at, text.find('\n', at) - at);
  size_t e = line.find("estimated "), a = line.find("actual ");
  CHECK(e != std::string::npos && a != std::string::npos);
  double est = std::atof(line.c_str() + e + 10), act = std::atof(line.c_str() + a + 7);
  CHECK(act > 0);
  CHECK(std::max(est / act, act / est) < 2);  // within a factor 2
  // Every operator of the plan shows its estimate; those the CPU ran show the actual rows.
  size_t scans = 0, pos = 0;
  while ((pos = text.find("TABLE_SCAN", pos)) != std::string::npos) {
    std::string l = text.substr(pos, text.find('\n', pos) - pos);
    CHECK(l.find("estimated ") != std::string::npos && l.find("actual ") != std::string::npos);
    scans++;
    pos++;
  }
  CHECK(scans >= 2);
  // The run's joins are reported with the result (bench's q-errors).
  auto r = c.Query("SELECT count(*) FROM fact, dim WHERE fk = k AND name < 'n5'");
  CHECK_EQ(r.joins.size(), 1u);
  CHECK(r.joins[0].estimated > 0 && r.joins[0].actual > 0);
}

TEST_MAIN()
