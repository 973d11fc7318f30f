// The cost model (src/model/cost_model.hpp) against hand-computed cases, the probe file
// round trip (model/ceilings.hpp), and the probe kernels compiling with NVRTC.
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "check.hpp"
#include "common/json.hpp"
#include "gpu/gpu_probe.hpp"
#include "gpu/nvrtc.hpp"
#include "model/ceilings.hpp"
#include "model/cost_model.hpp"

using namespace tessera;
using namespace tessera::model;

static bool Near(double a, double b, double rel = 1e-9) { return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b)); }

TEST(touched_fraction) {
  CHECK(Near(TouchedFraction(1, 4, 64), 1));
  CHECK(Near(TouchedFraction(0, 4, 64), 0));
  // 16 int32 per 64-byte line, 10% selected: 1 - 0.9^16 = 0.814697...
  CHECK(Near(TouchedFraction(0.1, 4, 64), 1 - std::pow(0.9, 16)));
  CHECK(Near(TouchedFraction(0.1, 4, 64), 0.8146979811148158, 1e-12));
  // 8 int32 per 32-byte sector, 1/7 selected: 1 - (6/7)^8 = 0.7089...
  CHECK(Near(TouchedFraction(1.0 / 7, 4, 32), 1 - std::pow(6.0 / 7, 8)));
  // A value wider than the line: each wanted row costs its own bytes.
  CHECK(Near(TouchedFraction(0.25, 128, 64), 0.25));
}

TEST(hit_ratio) {
  CHECK(Near(HitRatio(10e6, 50e6), 1));       // fits in L2
  CHECK(Near(HitRatio(100e6, 50e6), 0.5));    // half resident
  CHECK(Near(HitRatio(0, 1e6), 1));
  CHECK(Near(HitRatio(1e6, 0), 0));           // no cache known
}

TEST(q11_like_bound) {
  // SSB q1.1 at SF1 on a CPU at 10 GB/s: three filter columns read in full (6,000,000 rows
  // of int32), lo_extendedprice for the 2% that pass: 1-0.98^16 of its lines.
  PipelineTraffic t;
  const double n = 6e6;
  for (const char* c : {"lo_orderdate", "lo_discount", "lo_quantity"}) t.reads.push_back({c, n, n, 4});
  t.reads.push_back({"lo_extendedprice", n, 0.02 * n, 4});
  MemorySystem cpu{10, 32e6, 64};
  PipelineBound b = Bound(t, cpu);
  double price = n * 4 * (1 - std::pow(0.98, 16));  // 6,659,... bytes
  CHECK(Near(b.read_bytes, 3 * n * 4 + price));
  CHECK(Near(b.random_bytes, 0));
  // (72,000,000 + 6,658,5xx) bytes at 10 GB/s = 7.866 ms
  CHECK(Near(b.bound_ms, (72e6 + price) / 10e9 * 1e3));
  CHECK(b.bound_ms > 7.8 && b.bound_ms < 7.9);
}

TEST(probe_bound_with_l2) {
  // 1,000,000 probes into an 80 MB table with a 50 MB L2 on a GPU (32-byte sectors):
  // 37.5% of the probes miss -> 375,000 x 32 = 12,000,000 bytes; at 3000 GB/s 0.004 ms.
  PipelineTraffic t;
  t.random.push_back({"probe", 1e6, 80e6});
  MemorySystem gpu{3000, 50e6, 32};
  PipelineBound b = Bound(t, gpu);
  CHECK(Near(b.random_bytes, 12e6));
  CHECK(Near(b.bound_ms, 0.004));
  // The same table fitting in the cache costs nothing beyond the reads.
  t.random[0].table_bytes = 40e6;
  CHECK(Near(Bound(t, gpu).random_bytes, 0));
  // Writes count once.
  t.write_bytes = 3e6;
  CHECK(Near(Bound(t, gpu).total_bytes(), 3e6));
  CHECK(Near(MsAt(3e9, 0), 0));  // unknown bandwidth: no bound
}

TEST(cpu_bandwidth_for_threads) {
  Ceilings c;
  c.cpu_threads = 16;
  c.cpu_read_gbps = 40;
  c.cpu_read_1t_gbps = 8;
  CHECK(Near(c.CpuBandwidth(0), 40));
  CHECK(Near(c.CpuBandwidth(2), 16));
  CHECK(Near(c.CpuBandwidth(8), 40));
  CHECK(Near(c.CpuBandwidth(32), 40));
}

TEST(ceilings_json_round_trip) {
  Ceilings c;
  c.machine = MachineKey("NVIDIA H100 80GB HBM3");
  CHECK(c.machine.find("NVIDIA_H100_80GB_HBM3") != std::string::npos);
  c.probed_at = "2026-11-22T13:00:00Z";
  c.cpu_model = "AMD \"EPYC\"";
  c.cpu_threads = 2;
  c.cpu_read_gbps = 12.5;
  c.has_gpu = true;
  c.gpu_read_gbps = 3100.25;
  c.gpu_l2_bytes = 52428800;
  Ceilings d = Ceilings::FromJson(c.ToJson(), "test");
  CHECK_EQ(d.machine, c.machine);
  CHECK_EQ(d.cpu_model, c.cpu_model);
  CHECK_EQ(d.cpu_threads, 2u);
  CHECK(d.has_gpu);
  CHECK(Near(d.gpu_read_gbps, 3100.25));
  CHECK(Near(d.gpu_l2_bytes, 52428800));
  CHECK_THROWS_WITH(Ceilings::FromJson("{\"machine\": \"x\"}", "f.json"), "not a probe result");
  CHECK_THROWS_WITH(json::ParseFlat("{\"a\" 1}", "f.json"), "expected ':'");
  // Saved under the probe directory and found again by key.
  std::string dir = std::filesystem::temp_directory_path() / "tessera-cost-model-test";
  setenv("TESSERA_PROBE_DIR", dir.c_str(), 1);
  std::string path = SaveCeilings(c);
  CHECK(path.rfind(dir, 0) == 0);
  auto e = LoadCeilings(c.machine);
  CHECK(e.has_value() && Near(e->cpu_read_gbps, 12.5));
  CHECK(!LoadCeilings("no-such-machine").has_value());
  std::filesystem::remove_all(dir);
}

TEST(probe_kernels_compile) {
  std::string why;
  if (!gpu::NvrtcCompiler::Instance().Available(&why)) {
    std::cout << "nvrtc: skipped (" << why << ")\n";
    return;
  }
  auto r = gpu::NvrtcCompiler::Instance().Compile(gpu::ProbeKernelSource(), "tsr_probe.cu", 9, 0);
  CHECK(r.cubin.size() > 4 && r.cubin[0] == 0x7f && r.cubin[1] == 'E');
}

TEST_MAIN()
