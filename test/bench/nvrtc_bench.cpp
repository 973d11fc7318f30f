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
// phase times, which are wall clock). --check compares `before` and `after`: the PTX
// (compute_90) must be identical but for module-scope .global declarations (exit status 1
// otherwise); it also counts the kernels whose SASS (.text sections of the sm_90 cubin) is
// bit-identical. --dump DIR writes each kernel
// for other tools: DIR/<bench>_<query>_p<i>.cu the body alone, .src.cu the source compiled.
//
// Usage: nvrtc_bench [--sf SF] [--reps N] [--modes before,after] [--check] [--dump DIR]
//                    [--option NVRTC-OPTION]... [--body KERNEL.cu]... [all | tpch/q05 ssb/q1.1 ...]
// (--body: a kernel body of one's own, e.g. a one-line kernel, measured the same way.)
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

std::vector<std::string> g_options = {"--time=-"};  // --option adds to them

Timing CompileOnce(const std::string& src, bool minimal) {
  auto& nvrtc = gpu::NvrtcCompiler::Instance();
  nvrtc.SetMinimal(minimal);
  Timing t;
  t.bytes = src.size();
  const double c0 = ThreadMs();
  gpu::CompileResult r = nvrtc.Compile(src, "tessera_pipeline.cu", 9, 0, g_options);
  t.cpu = ThreadMs() - c0;
  ParsePhases(r.log, t);
  t.cubin = std::move(r.cubin);
  return t;
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
  const uint64_t names = u64(shoff + (uint64_t)shstrndx * shentsize + 0x18);
  for (uint16_t i = 0; i < shnum; i++) {
    const size_t sh = shoff + (size_t)i * shentsize;
    const std::string name = elf.data() + names + u32(sh);
    const uint64_t off = u64(sh + 0x18), size = u64(sh + 0x20);
    if (name.rfind(".text.", 0) == 0 && off + size <= elf.size()) out[name] = std::string(elf.data() + off, size);
  }
  return out;
}

// PTX for compute_90 without its module-scope `.global` declarations (the whole library
// declares constants no kernel reads, and NVRTC keeps them): the functions' code.
std::string PtxCode(const std::string& src, bool minimal) {
  auto& nvrtc = gpu::NvrtcCompiler::Instance();
  nvrtc.SetMinimal(minimal);
  std::string ptx = nvrtc.Compile(src, "tessera_pipeline.cu", 9, 0, {"--gpu-architecture=compute_90"}).ptx, out;
  std::istringstream in(ptx);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(".global ", 0) != 0) out += line + "\n";
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
  std::vector<std::string> wanted, bodies;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--sf" && i + 1 < argc) sf = std::atof(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--modes" && i + 1 < argc) modes_arg = argv[++i];
    else if (a == "--dump" && i + 1 < argc) dump = argv[++i];
    else if (a == "--option" && i + 1 < argc) g_options.push_back(argv[++i]);
    else if (a == "--check") check = true;
    else if (a == "--body" && i + 1 < argc) bodies.push_back(argv[++i]);
    else if (a == "-h" || a == "--help") {
      std::printf("usage: nvrtc_bench [--sf SF] [--reps N] [--modes before,minimal,pruned,after] [--check] [--option OPT]... "
                  "[--dump DIR] [--body KERNEL.cu]... [all | tpch/q05 ssb/q1.1 ...]\n");
      return 0;
    } else wanted.push_back(a);
  }
  if (wanted.empty() && bodies.empty()) wanted = {"tpch/q01", "tpch/q05", "tpch/q06", "tpch/q09", "tpch/q18", "ssb/q1.1", "ssb/q4.1"};
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
  for (const std::string& b : bodies) {
    std::string stem = b.substr(b.find_last_of('/') + 1);
    queries.push_back({"file", stem.substr(0, stem.rfind('.')), {ReadFile(b)}});
  }
  if (!dump.empty())
    for (const Query& q : queries)
      for (size_t i = 0; i < q.bodies.size(); i++) {
        const std::string stem = dump + "/" + q.bench + "_" + q.name + "_p" + std::to_string(i + 1);
        std::ofstream(stem + ".cu") << q.bodies[i];
        std::ofstream(stem + ".src.cu") << gpu::TileLibrarySourceFor(q.bodies[i]) + q.bodies[i];
      }

  auto v = gpu::NvrtcCompiler::Instance().Version();
  std::printf("nvrtc_bench: TPC-H and SSB SF %g, NVRTC %d.%d, sm_90, best of %d compiles a kernel; ms: thread CPU "
              "time of the NVRTC call (phases: NVRTC's --time, wall clock)\n",
              sf, v.first, v.second, reps);
  std::printf("%-10s %-8s %3s  %-37s %8s %9s\n", "query", "mode", "k", "largest kernel: FE / NVVM / ptxas = ms", "src KB",
              "all (ms)");
  std::map<std::string, double> total_max, total_all;
  int ptx_same = 0, ptx_diff = 0, sass_same = 0, sass_near = 0;
  for (const Query& q : queries) {
    // Per kernel, the modes take turns rep by rep, so a change in the machine's load does
    // not favour one of them.
    std::map<std::string, std::vector<Timing>> by_mode;
    for (const std::string& body : q.bodies) {
      std::map<std::string, Timing> best;
      for (int r = 0; r < reps; r++)
        for (const std::string& m : modes) {
          const bool pruned = m == "pruned" || m == "after";
          const std::string src = (pruned ? gpu::TileLibrarySourceFor(body) : std::string(gpu::TileLibrarySource())) + body;
          Timing t = CompileOnce(src, m == "minimal" || m == "after");
          if (r == 0 || t.cpu < best[m].cpu) best[m] = std::move(t);
        }
      for (const std::string& m : modes) by_mode[m].push_back(std::move(best[m]));
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
      for (size_t k = 0; k < q.bodies.size(); k++) {
        const std::string whole = std::string(gpu::TileLibrarySource()) + q.bodies[k];
        const std::string pruned = gpu::TileLibrarySourceFor(q.bodies[k]) + q.bodies[k];
        const bool ptx = PtxCode(whole, false) == PtxCode(pruned, true);
        (ptx ? ptx_same : ptx_diff)++;
        auto a = TextSections(CompileOnce(whole, false).cubin), b = TextSections(CompileOnce(pruned, true).cubin);
        int instructions = 0;  // 16-byte SASS instructions that differ
        for (const auto& [name, text] : a) {
          const std::string& other = b[name];
          if (other.size() != text.size()) instructions += 1 << 20;
          else
            for (size_t i = 0; i < text.size(); i += 16) instructions += text.compare(i, 16, other, i, 16) != 0;
        }
        (instructions == 0 && a.size() == b.size() ? sass_same : sass_near)++;
        if (!ptx || instructions)
          std::printf("  %s/%s pipeline kernel %zu: PTX %s, %d SASS instructions differ\n", q.bench.c_str(), q.name.c_str(),
                      k + 1, ptx ? "identical" : "DIFFERS", instructions);
      }
  }
  gpu::NvrtcCompiler::Instance().SetMinimal(true);
  for (const std::string& m : modes)
    std::printf("%-10s %-8s sum of the largest kernels %.0f ms, of all kernels %.0f ms\n", "total", m.c_str(), total_max[m],
                total_all[m]);
  if (check)
    std::printf("before -> after: PTX identical (module-scope .global declarations aside) for %d kernels, different for %d; "
                "SASS bit-identical for %d, differing in a few instructions for %d (a global's slot in constant bank 4, "
                "where the whole library's unused globals are gone)\n",
                ptx_same, ptx_diff, sass_same, sass_near);
  return ptx_diff ? 1 : 0;
}
