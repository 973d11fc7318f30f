// The GPU backend against the CPU backend (needs a GPU; exits 77, skipped, without one).
// Every SSB query and a set of variations (other constants, other aggregates, other
// predicates and group keys, queries the GPU hands back) run on both backends at
// TESSERA_GPU_TEST_SF (default 0.1); the results must be identical, and every SSB query
// must have run all its table scans on the GPU. The CPU backend itself is checked against
// DuckDB by the differential test.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "check.hpp"
#include "gen/ssb_gen.hpp"
#include "gpu/column_cache.hpp"
#include "gpu/gpu_executor.hpp"
#include "main/database.hpp"
#include "main/plan_cache.hpp"

using namespace tessera;

namespace {

// In memory, or with TESSERA_GPU_TEST_ON_DISK=1 written to a database directory and opened
// again, so that its chunks are read as stored (encoded) and the GPU column cache uploads
// them encoded and decodes them on the device (gpu_stream_core.hpp).
bool OnDisk() {
  const char* e = std::getenv("TESSERA_GPU_TEST_ON_DISK");
  return e && std::string(e) == "1";
}

Database& Db() {
  static Database* db = [] {
    SsbOptions opt;
    const char* sf = std::getenv("TESSERA_GPU_TEST_SF");
    opt.sf = sf ? std::atof(sf) : 0.1;
    if (!OnDisk()) {
      auto* d = new Database();
      GenerateSsb(d->catalog(), opt);
      return d;
    }
    static std::string tmp;  // removed at exit
    char tmpl[] = "/tmp/tessera_gpu_ssb_XXXXXX";
    tmp = mkdtemp(tmpl);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(tmp, ec);
    });
    {
      Database w(tmp + "/ssb.tdb");
      GenerateSsb(w.catalog(), opt);
    }
    return new Database(tmp + "/ssb.tdb");
  }();
  return *db;
}

std::string ReadQuery(const std::string& name) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/queries/ssb/" + name + ".sql");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

QueryResult Run(const std::string& sql, const std::string& device) {
  Db().settings().device = device;
  Connection conn(Db());
  return conn.Query(sql);
}

// DOUBLE results are compared to 1e-12 relative: a floating-point sum depends on the order
// of its additions, which no backend fixes (the CPU's varies with its thread count too).
// Everything else must be identical.
bool SameResult(const QueryResult& x, const QueryResult& y) {
  auto a = x.ToStrings(), b = y.ToStrings();
  if (a.size() != b.size() || x.types != y.types) return false;
  for (size_t r = 0; r < a.size(); r++)
    for (size_t c = 0; c < a[r].size(); c++) {
      if (a[r][c] == b[r][c]) continue;
      if (x.types[c].id != TypeId::Double) return false;
      double u = std::atof(a[r][c].c_str()), v = std::atof(b[r][c].c_str());
      if (std::fabs(u - v) > 1e-12 * std::max(std::fabs(u), std::fabs(v))) return false;
    }
  return true;
}

// Runs `sql` on both backends; returns the GPU result's device label.
std::string Same(const std::string& sql) {
  QueryResult cpu = Run(sql, "cpu");
  QueryResult gpu = Run(sql, "gpu");
  auto a = cpu.ToStrings(), b = gpu.ToStrings();
  bool same = SameResult(cpu, gpu);
  if (!same) {
    std::cerr << "results differ for: " << sql << "\n  cpu rows " << a.size() << ", gpu rows " << b.size() << "\n";
    for (size_t i = 0; i < std::min<size_t>(5, std::max(a.size(), b.size())); i++) {
      std::string ra, rb;
      if (i < a.size()) for (auto& c : a[i]) ra += c + "|";
      if (i < b.size()) for (auto& c : b[i]) rb += c + "|";
      std::cerr << "  cpu: " << ra << "\n  gpu: " << rb << "\n";
    }
  }
  CHECK(same);
  // Again: the plan cache hands back the prepared query, whose kernels and buffers run a
  // second time; same rows, same device.
  QueryResult again = Run(sql, "gpu");
  CHECK(again.phases.plan_cached);
  CHECK(SameResult(gpu, again));
  CHECK_EQ(again.device, gpu.device);
  CHECK_EQ(again.note, gpu.note);
  return gpu.device + (gpu.note.empty() ? "" : " (" + gpu.note + ")");
}

}  // namespace

TEST(ssb_queries_match_the_cpu_and_run_on_the_gpu) {
  // Read from disk, the GPU runs every query first, so that the columns it uploads come
  // from chunks no CPU scan has loaded (a dictionary chunk's strings read alone, its codes
  // decoded on the device); the comparisons below read those columns.
  if (OnDisk())
    for (const char* q : {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1", "q3.2", "q3.3", "q3.4", "q4.1",
                          "q4.2", "q4.3"})
      Run(ReadQuery(q), "gpu");
  for (const char* q : {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1", "q3.2", "q3.3", "q3.4", "q4.1",
                        "q4.2", "q4.3"}) {
    std::string dev = Same(ReadQuery(q));
    std::cout << "  " << q << ": " << dev << "\n";
    CHECK_EQ(dev, std::string("gpu"));
  }
  // Under TESSERA_GPU_PACK=1 (ctest unit.gpu_ssb_test_packed*) the lineorder columns the
  // queries read were lane-packed: the comparisons above read them decoded on the GPU.
  const char* pack = std::getenv("TESSERA_GPU_PACK");
  if (pack && std::string(pack) == "1") {
    int packed = 0;
    for (const std::string& line : gpu::ColumnCache::Instance().Describe())
      if (line.rfind("lineorder.", 0) == 0 && line.find(" packed, ") != std::string::npos) packed++;
    std::cout << "  lineorder columns lane-packed: " << packed << "\n";
    CHECK(packed >= 6);
  }
  // Read from disk, the columns' bit-packed and dictionary chunks were uploaded as stored
  // and decoded on the device: the comparisons above read what the device decoded.
  if (OnDisk()) {
    const gpu::UploadCounts n = gpu::ColumnCache::Instance().upload_counts();
    std::cout << "  chunks decoded on the device: " << n.device_decoded_chunks << " (VARCHAR codes: "
              << n.device_decoded_string_chunks << "), uploaded " << n.moved_bytes / 1e6 << " MB for "
              << n.column_bytes / 1e6 << " MB of columns\n";
    CHECK(n.device_decoded_chunks >= 5);
    CHECK(n.device_decoded_string_chunks >= 3);
    CHECK(n.moved_bytes < n.column_bytes);
  }
}

TEST(variations_match_the_cpu) {
  const char* queries[] = {
      // other constants and predicates of the same shapes
      "select sum(lo_extendedprice * lo_discount) as revenue from lineorder, date where lo_orderdate = d_datekey "
      "and d_year = 1997 and lo_discount between 5 and 7 and lo_quantity < 30",
      "select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier where lo_orderdate = d_datekey "
      "and lo_partkey = p_partkey and lo_suppkey = s_suppkey and p_brand1 like 'MFGR#33%' and s_region <> 'ASIA' "
      "group by d_year, p_brand1 order by d_year, p_brand1",
      // other aggregates
      "select count(*), min(lo_quantity), max(lo_extendedprice), avg(lo_discount), sum(lo_tax) from lineorder "
      "where lo_quantity > 45",
      "select d_year, count(*), min(lo_revenue), max(lo_revenue), avg(lo_revenue) from lineorder, date "
      "where lo_orderdate = d_datekey group by d_year order by d_year",
      "select sum(lo_revenue * 1.5), sum(lo_revenue / 3.0) from lineorder where lo_discount = 2",
      // group keys from the fact table and from several dimensions
      "select lo_quantity, lo_discount, count(*), sum(lo_revenue) from lineorder group by lo_quantity, lo_discount "
      "order by lo_quantity, lo_discount",
      "select c_city, s_city, d_year, sum(lo_revenue) from lineorder, customer, supplier, date "
      "where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey "
      "and (c_nation in ('UNITED STATES', 'CHINA') or c_city = 'JAPAN    1') and s_nation <> 'CHINA' "
      "group by c_city, s_city, d_year order by c_city, s_city, d_year",
      // CASE, IN lists on numbers, OR across columns, NOT
      "select sum(case when lo_discount > 5 then lo_revenue else 0 end), count(*) from lineorder "
      "where lo_quantity in (1, 7, 13, 49) or (lo_tax = 0 and not lo_discount between 2 and 8)",
      // an empty input: SUM is NULL, COUNT is 0
      "select sum(lo_revenue), count(*), min(lo_quantity) from lineorder where lo_quantity > 1000",
      "select d_year, sum(lo_revenue) from lineorder, date where lo_orderdate = d_datekey and d_year = 2050 "
      "group by d_year",
      // joins whose key is not dense (open addressing) and a join on a non-key column
      "select s_nation, count(*) from lineorder, supplier where lo_suppkey * 7 = s_suppkey * 7 group by s_nation "
      "order by s_nation",
      // the CPU takes part of the query: GROUP BY a DOUBLE expression stays on the CPU
      "select lo_quantity / 10, count(*) from lineorder group by lo_quantity / 10 order by 1",
      // many groups: a direct-mapped table too large for one copy (compacted on the device),
      // and the open-addressing group hash table (an expression key; keys whose packed
      // range exceeds 16 M; a dictionary key beside an expression key after a join)
      "select lo_orderkey, count(*), sum(lo_revenue), min(lo_discount), max(lo_quantity) from lineorder "
      "where lo_orderkey < 100000 group by lo_orderkey order by 3 desc, 1 limit 20",
      "select lo_quantity + lo_discount, count(*), sum(lo_revenue) from lineorder group by lo_quantity + lo_discount "
      "order by 1",
      "select lo_custkey, lo_suppkey, lo_partkey, count(*), sum(lo_revenue), max(lo_tax) from lineorder "
      "where lo_discount = 0 and lo_quantity < 5 and lo_orderdate < 19920301 group by lo_custkey, lo_suppkey, lo_partkey "
      "order by 5 desc, 1, 2, 3 limit 50",
      // ORDER BY ... LIMIT over many groups: the groups that can be in the top n are
      // selected on the GPU (first key: COUNT with many ties, MIN ascending, a DOUBLE sum, a
      // group key descending, the second key of a hashed table); with HAVING it is not
      "select lo_orderkey, count(*) c from lineorder where lo_orderkey < 100000 group by lo_orderkey "
      "order by c desc, lo_orderkey limit 7",
      "select lo_orderkey, min(lo_extendedprice) m from lineorder where lo_orderkey < 100000 group by lo_orderkey "
      "order by m, lo_orderkey limit 15",
      "select lo_orderkey, sum(lo_revenue / 3.0) s from lineorder where lo_orderkey < 100000 group by lo_orderkey "
      "order by s desc limit 10",
      "select lo_orderkey, sum(lo_revenue) from lineorder where lo_orderkey < 100000 group by lo_orderkey "
      "order by lo_orderkey desc limit 12",
      "select lo_custkey, lo_orderdate - 19920000 as d, count(*) from lineorder where lo_quantity < 3 "
      "group by lo_custkey, lo_orderdate - 19920000 order by d desc, 1 limit 25",
      "select lo_orderkey, count(*) from lineorder where lo_orderkey < 100000 group by lo_orderkey "
      "having count(*) > 3 order by 2 desc, 1 limit 5",
      // LIMIT 0; ASC over a 128-bit SUM; a tie at the cut that spans every group (all
      // counts are 1: eight radix passes, every group kept)
      "select lo_orderkey, sum(lo_revenue) from lineorder where lo_orderkey < 100000 group by lo_orderkey "
      "order by 2 desc limit 0",
      "select lo_orderkey, sum(lo_revenue) s from lineorder where lo_orderkey < 100000 group by lo_orderkey "
      "order by s, lo_orderkey limit 9",
      "select lo_orderkey, lo_linenumber, count(*) c from lineorder where lo_orderkey < 100000 "
      "group by lo_orderkey, lo_linenumber order by c desc, 1, 2 limit 10",
      "select c_nation, lo_orderdate - 19920000, count(*), sum(lo_extendedprice) from lineorder, customer "
      "where lo_custkey = c_custkey and lo_quantity = 7 group by c_nation, lo_orderdate - 19920000 "
      "order by 4 desc, 1, 2 limit 30",
  };
  for (const char* q : queries) std::cout << "  " << Same(q) << "\n";
}

TEST(a_full_group_hash_table_grows_and_the_kernel_runs_again) {
  // 8 rows to start with (TESSERA_GPU_GROUP_ROWS, read when the kernel is planned): the
  // kernel finds the table full, the executor grows it fourfold and runs it again, until
  // the groups fit (about 20 at SF 0.01, 50 K at SF 20: two to seven times). The filters
  // keep the group counts (and the CPU's work) small at every scale factor.
  setenv("TESSERA_GPU_GROUP_ROWS", "8", 1);
  std::string q = "select lo_custkey, lo_partkey, lo_suppkey, lo_quantity, count(*), sum(lo_revenue) from lineorder "
                  "where lo_discount = 1 and lo_quantity < 10 and lo_orderdate < 19920301 "
                  "group by lo_custkey, lo_partkey, lo_suppkey, lo_quantity "
                  "order by 6 desc, 1, 2, 3 limit 40";
  std::string dev = Same(q);
  CHECK_EQ(dev, std::string("gpu"));
  // EXPLAIN ANALYZE plans anew (8 rows) and shows the table's size after the run.
  Db().settings().device = "gpu";
  Connection conn(Db());
  std::string all;
  for (auto& row : conn.Query("EXPLAIN ANALYZE " + q).ToStrings()) all += row[0] + "\n";
  unsetenv("TESSERA_GPU_GROUP_ROWS");
  size_t at = all.find("group hash table of ");
  CHECK(at != std::string::npos);
  if (at != std::string::npos) {
    long rows = std::atol(all.c_str() + at + 20);
    std::cout << "  grown to " << rows << " rows\n";
    CHECK(rows >= 32);
  }
}

TEST(top_n_over_many_groups_is_sorted_on_the_gpu) {
  std::string q = "select lo_orderkey, count(*), sum(lo_revenue) from lineorder where lo_orderkey < 100000 "
                  "group by lo_orderkey order by 3 desc, 1 limit 20";
  CHECK_EQ(Same(q), std::string("gpu"));
  Db().settings().device = "gpu";
  Connection conn(Db());
  auto text = conn.Query("EXPLAIN ANALYZE " + q).ToStrings();
  std::string all;
  for (auto& row : text) all += row[0] + "\n";
  std::cout << "  " << all.substr(all.find("device:")) << "\n";
  // Tens of thousands of groups (from SF 1): the many-block sort.
  CHECK(all.find("sorted on the GPU by") != std::string::npos);
  CHECK(all.find("the first 20 kept") != std::string::npos);
}

TEST(overflow_is_an_error_on_both_backends) {
  const char* q = "select sum(lo_extendedprice * lo_extendedprice) from lineorder";
  CHECK_THROWS_WITH(Run(q, "cpu"), "overflow");
  const uint64_t hits = Db().plan_cache().stats().hits;
  CHECK_THROWS_WITH(Run(q, "gpu"), "overflow");
  CHECK_THROWS_WITH(Run(q, "gpu"), "overflow");
  CHECK_EQ(Db().plan_cache().stats().hits, hits);  // a plan whose run threw is not kept
}

TEST(duplicate_build_keys_chain_the_join_on_the_gpu) {
  // d_year repeats on the build side: the first GPU run finds the duplicate, the query is
  // planned again with that join's table chained and stays on the GPU (no note); the plan
  // cache keeps the chained plan.
  std::string q = "select count(*) from lineorder, date where lo_orderdate = d_year";
  QueryResult gpu = Run(q, "gpu");
  QueryResult cpu = Run(q, "cpu");
  CHECK(gpu.ToStrings() == cpu.ToStrings());
  std::string q2 = "select count(*) from date d1, date d2 where d1.d_year = d2.d_year";
  QueryResult g2 = Run(q2, "gpu");
  CHECK(g2.ToStrings() == Run(q2, "cpu").ToStrings());
  CHECK_EQ(g2.device, std::string("gpu"));
  CHECK_EQ(g2.note, std::string());
  QueryResult g3 = Run(q2, "gpu");  // the cached chained plan
  CHECK(g3.phases.plan_cached);
  CHECK_EQ(g3.device, std::string("gpu"));
  CHECK(g3.ToStrings() == g2.ToStrings());
}

TEST(join_key_ranges_skip_tiles_on_the_gpu) {
  // lineorder is stored in lo_orderkey order: a build side of keys 100-3097 lies in the
  // first row group, so the probing scan skips every tile of the others (RangeTests);
  // an empty build side skips them all. Results equal the CPU's either way.
  Db().settings().device = "cpu";
  Connection setup(Db());
  setup.Query("CREATE TABLE rk AS SELECT CAST(range * 3 + 100 AS INTEGER) AS k FROM range(1000)");
  const long lineorder_rows = std::atol(setup.Query("select count(*) from lineorder").ToStrings()[0][0].c_str());
  const std::vector<std::string> queries = {
      "select count(*), sum(lo_revenue) from lineorder where lo_orderkey in (select k from rk)",
      "select count(*), sum(lo_revenue) from lineorder, rk where lo_orderkey = k",
      "select count(*) from lineorder, rk where lo_orderkey = k and k < 0"};
  for (const std::string& q : queries) {
    CHECK_EQ(Same(q), std::string("gpu"));
    // One row group (TESSERA_GPU_TEST_SF=0.01, as under compute-sanitizer): nothing to skip
    // by, so the scan has no range test (SkipsByKeyRange) and EXPLAIN shows none.
    if (lineorder_rows <= 122880) continue;
    Db().settings().device = "gpu";
    Connection conn(Db());
    std::string all;
    for (auto& row : conn.Query("EXPLAIN ANALYZE " + q).ToStrings()) all += row[0] + "\n";
    const size_t at = all.find("(last run: ");
    CHECK(at != std::string::npos);
    if (at == std::string::npos) continue;
    const long skipped = std::atol(all.c_str() + at + 11);
    const size_t of = all.find(" of ", at);
    const long tiles = of == std::string::npos ? 0 : std::atol(all.c_str() + of + 4);
    std::cout << "  " << skipped << " of " << tiles << " tiles skipped: " << q << "\n";
    CHECK(tiles > 0);
    // At least the row groups after the first (122,880 rows, 240 tiles of 512 rows each).
    if (lineorder_rows > 2 * 122880) CHECK(skipped >= tiles / 2);
    if (q.find("k < 0") != std::string::npos) CHECK_EQ(skipped, tiles);
  }
  setup.Query("DROP TABLE rk");
}

int main() {
  try {
    gpu::UseGpu("gpu");
  } catch (const std::exception& e) {
    std::cout << "skipped: " << e.what() << "\n";
    return 77;
  }
  return tcheck::RunAll();
}
