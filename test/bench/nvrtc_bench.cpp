// Where NVRTC's time goes for the generated kernels of real queries, per phase, without a
// GPU: TPC-H and SSB are generated in memory, each query is planned for the GPU (as
// EXPLAIN (DEVICE gpu) does) and every pipeline kernel is compiled for sm_90 with NVRTC's
// `--time=-` (its phases: the C++ front end, the NVVM optimizer to PTX, PTX translation,
// i.e. ptxas, to the cubin) under each of these configurations:
//
//   before   the whole tile library in front of the kernel, the options of before -minimal
//   minimal  the whole library, with -minimal
//   pruned   only the library declarations the kernel uses (TileLibrarySourceFor), no -minimal
//   after    pruned and -minimal: what the engine compiles now
//
// Times are the best of --reps compiles (thread CPU time of the NVRTC call, and NVRTC's own
// phase times, which are wall clock). --check compares the cubins of `before` and `after`:
// every .text section (the kernel's SASS) must be identical. --dump DIR writes each kernel
// (DIR/<bench>_<query>_p<i>.cu, the body alone) for other tools.
//
// Usage: nvrtc_bench [--sf SF] [--reps N] [--modes before,after] [--check] [--dump DIR]
//                    [all | tpch/q05 ssb/q1.1 ...]
// (built as test/nvrtc_bench; not a test; docs/PERFORMANCE.md has its numbers.)
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gen/ssb_gen.hpp"
#include "gen/tpch_gen.hpp"
#include "gpu/gpu_executor.hpp"
#include "gpu/nvrtc.hpp"
#include "gpu/tile_library.hpp"
#include "main/database.hpp"
#include "main/prepared_query.hpp"
#include "main/statement_executor.hpp"
#include "parser/parser.hpp"

using namespace tessera;

namespace {

double ThreadMs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct Timing {
  double cpu = 0, fe = 0, nvvm = 0, ptxas = 0;
  size_t bytes = 0;
  std::vector<char> cubin;
};

// NVRTC's --time=- table in the log: "file, phase, metric, ms" per line.
void ParsePhases(const std::string& log, Timing& t) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    auto ms = line.rfind(", ms");
    if (ms == std::string::npos) continue;
    auto c2 = line.rfind(',', ms - 1), c1 = line.rfind(',', c2 - 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    const std::string phase = line.substr(c1 + 2, c2 - c1 - 2);
    const double v = std::atof(line.c_str() + c2 + 1);
    if (phase.find("Frontend") != std::string::npos) t.fe += v;
    else if (phase.find("NVVM") != std::string::npos) t.nvvm += v;
    else if (phase.find("PTX") != std::string::npos) t.ptxas += v;
  }
}

Timing CompileOnce(const std::string& src, bool minimal) {
  auto& nvrtc = gpu::NvrtcCompiler::Instance();
  nvrtc.SetMinimal(minimal);
  Timing t;
  t.bytes = src.size();
  const double c0 = ThreadMs();
  gpu::CompileResult r = nvrtc.Compile(src, "tessera_pipeline.cu", 9, 0, {"--time=-"});
  t.cpu = ThreadMs() - c0;
  ParsePhases(r.log, t);
  t.cubin = std::move(r.cubin);
  return t;
}

Timing Best(const std::string& src, bool minimal, int reps) {
  Timing best;
  for (int i = 0; i < reps; i++) {
    Timing t = CompileOnce(src, minimal);
    if (i == 0 || t.cpu < best.cpu) best = std::move(t);
  }
  return best;
}

// The .text.* sections (SASS of each function) of an ELF64 cubin, by name.
std::map<std::string, std::string> TextSections(const std::vector<char>& elf) {
  std::map<std::string, std::string> out;
  auto u16 = [&](size_t o) { uint16_t v; std::memcpy(&v, elf.data() + o, 2); return v; };
  auto u32 = [&](size_t o) { uint32_t v; std::memcpy(&v, elf.data() + o, 4); return v; };
  auto u64 = [&](size_t o) { uint64_t v; std::memcpy(&v, elf.data() + o, 8); return v; };
  if (elf.size() < 64 || elf[4] != 2) return out;
  const uint64_t shoff = u64(0x28);
  const uint16_t shentsize = u16(0x3a), shnum = u16(0x3c), shstrndx = u16(0x3e);
  if (shoff + (uint64_t)shnum * shentsize > elf.size() || shstrndx >= shnum) return out;
  const uint64_t strtab = u64(shoff + (uint64_t)shstrndx * shentsize + 0x18);
  for (uint16_t i = 0; i < shnum; i++) {
    const size_t sh = shoff + (size_t)i * shentsize;
    const std::string name = elf.data() + strtab + u32(sh);
    const uint64_t off = u64(sh + 0x18), size = u64(sh + 0x20);
    if (name.rfind(".text.", 0) == 0 && off + size <= elf.size()) out[name] = std::string(elf.data() + off, size);
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Query {
  std::string bench, name;
  std::vector<std::string> bodies;
};

// The kernel bodies of a query planned for the GPU (statements before and after the SELECT,
// such as TPC-H q15's view, are executed).
std::vector<std::string> Bodies(Database& db, const std::string& sql) {
  std::vector<std::string> out;
  for (auto& st : ParseSQL(sql)) {
    if (st->kind == ast::StmtKind::Select) {
      PreparedQuery q = PrepareSelectForGpu(db, *static_cast<const ast::SelectStatement&>(*st).select);
      if (q.gpu) out = q.gpu->KernelBodies();
    } else {
      ExecuteStatement(db, *st);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  double sf = 1;
  int reps = 3;
  bool check = false;
  std::string dump, modes_arg = "before,after";
  std::vector<std::string> wanted;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--sf" && i + 1 < argc) sf = std::atof(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--modes" && i + 1 < argc) modes_arg = argv[++i];
    else if (a == "--dump" && i + 1 < argc) dump = argv[++i];
    else if (a == "--check") check = true;
    else if (a == "-h" || a == "--help") {
      std::printf("usage: nvrtc_bench [--sf SF] [--reps N] [--modes before,minimal,pruned,after] [--check] "
                  "[--dump DIR] [all | tpch/q05 ssb/q1.1 ...]\n");
      return 0;
    } else wanted.push_back(a);
  }
  if (wanted.empty()) wanted = {"tpch/q01", "tpch/q05", "tpch/q06", "tpch/q09", "tpch/q18", "ssb/q1.1", "ssb/q4.1"};
  std::string why;
  if (!gpu::NvrtcCompiler::Instance().Available(&why)) {
    std::fprintf(stderr, "nvrtc_bench: %s\n", why.c_str());
    return 77;
  }
  std::vector<std::string> modes;
  {
    std::stringstream s(modes_arg);
    std::string m;
    while (std::getline(s, m, ','))
      if (m == "before" || m == "minimal" || m == "pruned" || m == "after") modes.push_back(m);
  }

  Database tpch, ssb;
  {
    TpchOptions t;
    t.sf = sf;
    GenerateTpch(tpch.catalog(), t);
    SsbOptions s;
    s.sf = sf;
    GenerateSsb(ssb.catalog(), s);
  }
  std::vector<Query> queries;
  auto add = [&](const std::string& bench, const std::string& name) {
    Query q{bench, name, {}};
    q.bodies = Bodies(bench == "tpch" ? tpch : ssb, ReadFile(std::string(TESSERA_SOURCE_DIR) + "/queries/" + bench + "/" + name + ".sql"));
    queries.push_back(std::move(q));
  };
  for (const std::string& w : wanted) {
    if (w == "all") {
      for (int i = 1; i <= 22; i++) add("tpch", (i < 10 ? "q0" : "q") + std::to_string(i));
      for (const char* q : {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1", "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"})
        add("ssb", q);
      continue;
    }
    auto slash = w.find('/');
    if (slash == std::string::npos) {
      std::fprintf(stderr, "nvrtc_bench: name queries as tpch/q05 or ssb/q1.1, not %s\n", w.c_str());
      return 2;
    }
    add(w.substr(0, slash), w.substr(slash + 1));
  }
  if (!dump.empty())
    for (const Query& q : queries)
      for (size_t i = 0; i < q.bodies.size(); i++) {
        std::ofstream o(dump + "/" + q.bench + "_" + q.name + "_p" + std::to_string(i + 1) + ".cu");
        o << q.bodies[i];
      }

  auto v = gpu::NvrtcCompiler::Instance().Version();
  std::printf("nvrtc_bench: TPC-H and SSB SF %g, NVRTC %d.%d, sm_90, best of %d compiles a kernel; ms: thread CPU "
              "time of the NVRTC call (phases: NVRTC's --time, wall clock)\n",
              sf, v.first, v.second, reps);
  std::printf("%-10s %-8s %3s  %-37s %8s %9s\n", "query", "mode", "k", "largest kernel: FE / NVVM / ptxas = ms", "src KB",
              "all (ms)");
  std::map<std::string, double> total_max, total_all;
  int sass_same = 0, sass_diff = 0;
  for (const Query& q : queries) {
    std::map<std::string, std::vector<Timing>> by_mode;
    for (const std::string& m : modes)
      for (const std::string& body : q.bodies) {
        const bool pruned = m == "pruned" || m == "after";
        const std::string src = (pruned ? gpu::TileLibrarySourceFor(body) : std::string(gpu::TileLibrarySource())) + body;
        by_mode[m].push_back(Best(src, m == "minimal" || m == "after", reps));
      }
    for (const std::string& m : modes) {
      const auto& ts = by_mode[m];
      if (ts.empty()) continue;
      const Timing& mx = *std::max_element(ts.begin(), ts.end(), [](const Timing& a, const Timing& b) { return a.cpu < b.cpu; });
      double all = 0;
      for (const Timing& t : ts) all += t.cpu;
      total_max[m] += mx.cpu;
      total_all[m] += all;
      char phases[64];
      std::snprintf(phases, sizeof phases, "%4.0f / %4.0f / %4.0f = %5.1f", mx.fe, mx.nvvm, mx.ptxas, mx.cpu);
      std::printf("%-10s %-8s %3zu  %-37s %8.1f %9.1f\n", (q.bench + "/" + q.name).c_str(), m.c_str(), ts.size(), phases,
                  mx.bytes / 1024.0, all);
    }
    if (check)
      for (const std::string& body : q.bodies) {
        const std::string whole = std::string(gpu::TileLibrarySource()) + body;
        const std::string pruned = gpu::TileLibrarySourceFor(body) + body;
        auto a = TextSections(CompileOnce(whole, false).cubin), b = TextSections(CompileOnce(pruned, true).cubin);
        if (!a.empty() && a == b) sass_same++;
        else {
          sass_diff++;
          std::printf("  %s/%s: the SASS differs between before and after\n", q.bench.c_str(), q.name.c_str());
        }
      }
  }
  gpu::NvrtcCompiler::Instance().SetMinimal(true);
  for (const std::string& m : modes)
    std::printf("%-10s %-8s sum of the largest kernels %.0f ms, of all kernels %.0f ms\n", "total", m.c_str(), total_max[m],
                total_all[m]);
  if (check) std::printf("SASS (.text sections) identical before/after: %d kernels, different: %d\n", sass_same, sass_diff);
  return sass_diff ? 1 : 0;
}
