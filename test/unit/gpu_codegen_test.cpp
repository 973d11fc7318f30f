// GPU code generation without a GPU (runs in CI): every SSB query is planned for the GPU,
// each pipeline that scans a table becomes one kernel, and every kernel compiles with
// NVRTC for sm_90. Also: other constants give the same kernel source (constants are kernel
// parameters), and what the generator cannot express stays on the CPU with a reason.
// Exits 77 (skipped) only when NVRTC itself is missing.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "check.hpp"
#include "execution/physical_planner.hpp"
#include "gen/ssb_gen.hpp"
#include "gen/tpch_gen.hpp"
#include "gpu/gpu_executor.hpp"
#include "gpu/kernel_cache.hpp"
#include "gpu/nvrtc.hpp"
#include "gpu/tile_library.hpp"
#include "main/database.hpp"
#include "main/prepared_query.hpp"
#include "main/statement_executor.hpp"
#include "optimizer/optimizer.hpp"
#include "parser/parser.hpp"
#include "planner/binder.hpp"

using namespace tessera;

namespace {

Database& SsbDb() {
  static Database* db = [] {
    auto* d = new Database();
    SsbOptions opt;
    opt.sf = 0.01;
    GenerateSsb(d->catalog(), opt);
    return d;
  }();
  return *db;
}

struct Planned {
  BoundQuery bound;
  PhysicalOperatorPtr plan;
  std::unique_ptr<PipelineSet> pipelines;
  std::unique_ptr<gpu::GpuQuery> gpu;
};

Planned PlanForGpu(const std::string& sql) {
  Planned p;
  auto stmts = ParseSQL(sql);
  Binder binder(SsbDb().catalog());
  p.bound = binder.BindSelect(*static_cast<const ast::SelectStatement&>(*stmts.at(0)).select);
  p.bound.plan = Optimize(std::move(p.bound.plan));
  p.plan = CreatePhysicalPlan(*p.bound.plan);
  p.pipelines = std::make_unique<PipelineSet>(p.plan.get());
  p.gpu = std::make_unique<gpu::GpuQuery>(*p.pipelines);
  return p;
}

std::string ReadQuery(const std::string& name) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/queries/ssb/" + name + ".sql");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* kQueries[] = {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1",
                          "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"};

}  // namespace

TEST(every_ssb_query_runs_all_scans_on_the_gpu) {
  for (const char* q : kQueries) {
    auto p = PlanForGpu(ReadQuery(q));
    if (p.gpu->DeviceLabel() != "gpu") std::cerr << q << ":\n" << p.gpu->Describe();
    CHECK_EQ(p.gpu->DeviceLabel(), std::string("gpu"));
    CHECK(!p.gpu->Sources().empty());
  }
}

TEST(ssb_kernels_compile_for_sm90) {
  for (const char* q : kQueries) {
    auto p = PlanForGpu(ReadQuery(q));
    for (auto& src : p.gpu->Sources()) {
      double ms = 0;
      std::vector<char> cubin;
      try {
        cubin = gpu::KernelCache::Compile(src, 9, 0, &ms);
      } catch (const gpu::NvrtcCompileError& e) {
        std::cerr << q << ": " << e.log() << "\n" << p.gpu->Kernels();
        throw;
      }
      CHECK(cubin.size() > 4 && cubin[0] == 0x7f && cubin[1] == 'E');
    }
  }
}

// The library module (generic kernels: group state, compaction, top-N, the device sort)
// compiles on its own, and the pipeline kernels no longer carry its kernels.
TEST(library_module_compiles_for_sm90) {
  double ms = 0;
  std::vector<char> cubin = gpu::KernelCache::Compile(gpu::LibraryModuleSource(), 9, 0, &ms);
  CHECK(cubin.size() > 4 && cubin[0] == 0x7f && cubin[1] == 'E');
  for (const char* name : {"tsr_init_state", "tsr_compact_groups", "tsr_sort_small", "tsr_gather_rows", "tsr_decode_streams"})
    CHECK(std::string(gpu::LibraryModuleSource()).find(name) != std::string::npos);
  auto p = PlanForGpu(ReadQuery("q2.1"));
  for (auto& src : p.gpu->Sources()) {
    CHECK(src.find("__global__ void tsr_init_state") == std::string::npos);
    CHECK(src.find("tsr_sort_small(") == std::string::npos);
  }
}

// A kernel's source is the part of the tile library its body uses, then the body; every
// TPC-H query's kernels compile so (the SSB ones above), and carry less than the library.
TEST(tpch_kernels_compile_with_the_library_part_they_use) {
  static Database* tpch = [] {
    auto* d = new Database();
    TpchOptions opt;
    opt.sf = 0.01;
    GenerateTpch(d->catalog(), opt);
    return d;
  }();
  const size_t whole = std::string(gpu::TileLibrarySource()).size();
  int kernels = 0;
  for (int i = 1; i <= 22; i++) {
    const std::string q = (i < 10 ? "q0" : "q") + std::to_string(i);
    std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/queries/tpch/" + q + ".sql");
    std::stringstream sql;
    sql << in.rdbuf();
    for (auto& st : ParseSQL(sql.str())) {
      if (st->kind != ast::StmtKind::Select) {
        ExecuteStatement(*tpch, *st);  // q15's view
        continue;
      }
      PreparedQuery p = PrepareSelectForGpu(*tpch, *static_cast<const ast::SelectStatement&>(*st).select);
      CHECK(p.gpu != nullptr);
      if (!p.gpu) continue;
      auto sources = p.gpu->Sources();
      auto bodies = p.gpu->KernelBodies();
      CHECK_EQ(sources.size(), bodies.size());
      for (size_t k = 0; k < sources.size() && k < bodies.size(); k++) {
        kernels++;
        CHECK(sources[k] == gpu::TileLibrarySourceFor(bodies[k]) + bodies[k]);
        CHECK(sources[k].size() < whole);
        double ms = 0;
        std::vector<char> cubin;
        try {
          cubin = gpu::KernelCache::Compile(sources[k], 9, 0, &ms);
        } catch (const gpu::NvrtcCompileError& e) {
          std::cerr << "tpch/" << q << ": " << e.log() << "\n" << bodies[k];
          throw;
        }
        CHECK(cubin.size() > 4 && cubin[0] == 0x7f && cubin[1] == 'E');
      }
    }
  }
  CHECK(kernels > 100);
}

// Each declaration of the library compiles with the declarations it needs alone (the
// dependency table is complete), and a kernel that names few gets few.
TEST(every_library_declaration_compiles_with_what_it_needs) {
  // The library alone: the same under the packed and presence variants of this test, so once.
  if (std::getenv("TESSERA_GPU_PACK") || std::getenv("TESSERA_GPU_PRESENCE_MIN_BYTES")) return;
  const std::vector<std::string> names = gpu::TileLibraryNames();
  CHECK(names.size() > 80);
  for (const char* n : {"tsr_fail", "ht_find_open", "BlockReduce", "I128", "AddChecked", "kLt", "ExtractDateField",
                        "LikeMatch", "Field", "tsr_lane_load", "tsr_lane_unpack", "WordIndex", "u64"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  for (const std::string& n : names) {
    const std::string body = "#define TSR_NEEDS " + n + "\nextern \"C\" __global__ void tsr_pipeline() {}\n";
    const std::string src = gpu::TileLibrarySourceFor(body) + body;
    double ms = 0;
    try {
      std::vector<char> cubin = gpu::KernelCache::Compile(src, 9, 0, &ms);
      CHECK(cubin.size() > 4 && cubin[0] == 0x7f);
    } catch (const gpu::NvrtcCompileError& e) {
      std::cerr << n << ": " << e.log() << "\n";
      CHECK(false);
    }
  }
  const std::string probe = gpu::TileLibrarySourceFor("i64 s = ht_chain_first_open(keys, heads, mask, key);");
  for (const char* needed : {"ht_find_open(", "tsr_hash(", "typedef long long i64;", "typedef unsigned long long u64;"})
    CHECK(probe.find(needed) != std::string::npos);
  for (const char* unused : {"tsr_group_row_wide(", "BlockReduce(", "LikeMatch(", "DaysFromCivil("})
    CHECK(probe.find(unused) == std::string::npos);
}

TEST(constants_are_parameters) {
  auto a = PlanForGpu("select sum(lo_extendedprice * lo_discount) from lineorder, date where lo_orderdate = d_datekey "
                      "and d_year = 1993 and lo_discount between 1 and 3 and lo_quantity < 25");
  auto b = PlanForGpu("select sum(lo_extendedprice * lo_discount) from lineorder, date where lo_orderdate = d_datekey "
                      "and d_year = 1997 and lo_discount between 4 and 6 and lo_quantity < 35");
  CHECK(a.gpu->Sources() == b.gpu->Sources());
  // String constants become dictionary bitmaps: the kernel stays the same too.
  auto c = PlanForGpu("select count(*) from part where p_category = 'MFGR#12'");
  auto d = PlanForGpu("select count(*) from part where p_category = 'MFGR#35'");
  CHECK(c.gpu->Sources() == d.gpu->Sources());
  CHECK_EQ(c.gpu->DeviceLabel(), std::string("gpu"));
}

TEST(group_keys_without_a_small_domain_use_a_hash_table) {
  // An expression key (no statistics: 2^32 values) and keys whose packed range exceeds the
  // direct-mapped limit: both aggregate into the open-addressing group table.
  for (const char* sql : {"select lo_quantity + 1, count(*), sum(lo_revenue) from lineorder group by lo_quantity + 1",
                          "select lo_custkey, lo_partkey, lo_suppkey, lo_quantity, min(lo_tax), max(lo_revenue) from lineorder "
                          "group by lo_custkey, lo_partkey, lo_suppkey, lo_quantity"}) {
    auto p = PlanForGpu(sql);
    CHECK_EQ(p.gpu->DeviceLabel(), std::string("gpu"));
    if (p.gpu->Describe().find("group hash table of") == std::string::npos) std::cerr << p.gpu->Describe();
    CHECK(p.gpu->Describe().find("group hash table of") != std::string::npos);
    int hashed = 0;
    for (auto& src : p.gpu->Sources()) {
      // tsr_group_row (one key word) or tsr_group_row_wide (several), called by the
      // aggregation's kernel and defined in front of it (a source carries only the library
      // it uses).
      const size_t body = src.find("tsr_pipeline(");
      CHECK(body != std::string::npos);
      const bool one = src.find("tsr_group_row(", body) != std::string::npos;
      const bool wide = src.find("tsr_group_row_wide(", body) != std::string::npos;
      if (one) CHECK(src.find("u64* tsr_group_row(") < body);
      if (wide) CHECK(src.find("u64* tsr_group_row_wide(") < body);
      hashed += one || wide;
      double ms = 0;
      auto cubin = gpu::KernelCache::Compile(src, 9, 0, &ms);
      CHECK(cubin.size() > 4 && cubin[0] == 0x7f);
    }
    CHECK(hashed > 0);
  }
}

TEST(order_by_limit_over_groups_is_planned_for_the_gpu) {
  auto a = PlanForGpu("select lo_orderkey, count(*), sum(lo_revenue) as r from lineorder group by lo_orderkey "
                      "order by r desc, 1 limit 20");
  // The groups stay in device memory; the order pipeline sorts them there and keeps 20.
  CHECK(a.gpu->Describe().find("sorted on the GPU by r DESC, lo_orderkey (radix sort over 2 order words), the first 20 kept") !=
        std::string::npos);
  auto b = PlanForGpu("select lo_orderkey, count(*) from lineorder group by lo_orderkey order by 1 limit 5 offset 3");
  CHECK(b.gpu->Describe().find("the first 8 kept") != std::string::npos);  // the top 8 hold rows 4-8
  CHECK(b.gpu->Describe().find("rows kept from 3, at most 5 (in order)") != std::string::npos);
  // The pre-selection of groups for a top-N on the CPU is not planned when the GPU sorts:
  // with HAVING, without LIMIT, by an AVG.
  for (const char* sql : {"select lo_orderkey, count(*) from lineorder group by lo_orderkey having count(*) > 2 "
                          "order by 2 desc limit 5",
                          "select lo_orderkey, count(*) from lineorder group by lo_orderkey order by 2 desc",
                          "select lo_orderkey, avg(lo_revenue) from lineorder group by lo_orderkey order by 2 limit 3"}) {
    auto p = PlanForGpu(sql);
    CHECK_EQ(p.gpu->DeviceLabel(), std::string("gpu"));
    CHECK(p.gpu->Describe().find("selected on the GPU") == std::string::npos);
  }
}

// count(DISTINCT) beside plain aggregates (optimizer/distinct_aggregates.cpp): the plain
// ones as partials per (group, argument) combined by the outer aggregation (a sum of
// counts and of INTEGER sums typed BIGINT), both aggregations on the GPU; kernels compile.
TEST(distinct_beside_plain_aggregates_runs_on_the_gpu) {
  auto p = PlanForGpu("select lo_discount, count(distinct lo_partkey), count(*), sum(lo_revenue), min(lo_tax), "
                      "sum(lo_quantity) from lineorder group by lo_discount");
  CHECK_EQ(p.gpu->DeviceLabel(), std::string("gpu"));
  CHECK(!p.gpu->Sources().empty());
  for (auto& src : p.gpu->Sources()) {
    double ms = 0;
    std::vector<char> cubin = gpu::KernelCache::Compile(src, 9, 0, &ms);
    CHECK(cubin.size() > 4 && cubin[0] == 0x7f && cubin[1] == 'E');
  }
}

TEST(unsupported_pipelines_stay_on_the_cpu_with_a_reason) {
  // A DOUBLE group key and a string-valued expression.
  auto a = PlanForGpu("select lo_quantity / 2.0, count(*) from lineorder group by lo_quantity / 2.0");
  CHECK_EQ(a.gpu->DeviceLabel(), std::string("cpu"));
  CHECK(a.gpu->Describe().find("on the CPU: ") != std::string::npos);
  // TRY_CAST has no GPU definition (a failed cast is NULL, which GPU values cannot hold).
  auto b = PlanForGpu("select count(*) from lineorder where try_cast(lo_quantity as bigint) = 2");
  CHECK_EQ(b.gpu->DeviceLabel(), std::string("cpu"));
  // A join whose build side is not supported keeps its probe on the CPU as well.
  auto c = PlanForGpu("select count(*) from lineorder, supplier where lo_suppkey = s_suppkey and try_cast(s_suppkey as bigint) = 2");
  CHECK_EQ(c.gpu->DeviceLabel(), std::string("cpu"));
}

int main() {
  std::string why;
  if (!gpu::NvrtcCompiler::Instance().Available(&why)) {
    std::cout << "skipped: " << why << "\n";
    return 77;
  }
  return tcheck::RunAll();
}
