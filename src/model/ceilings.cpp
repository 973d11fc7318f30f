#include "model/ceilings.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/error.hpp"
#include "common/json.hpp"

namespace tessera::model {

double Ceilings::CpuBandwidth(unsigned threads) const {
  if (threads == 0 || threads >= cpu_threads || cpu_read_1t_gbps <= 0) return cpu_read_gbps;
  return std::min(cpu_read_gbps, threads * cpu_read_1t_gbps);
}

namespace {
struct Field {
  const char* name;
  double Ceilings::*num;
};
const Field kNumbers[] = {
    {"cpu_llc_bytes", &Ceilings::cpu_llc_bytes},     {"cpu_read_gbps", &Ceilings::cpu_read_gbps},
    {"cpu_read_1t_gbps", &Ceilings::cpu_read_1t_gbps}, {"cpu_copy_gbps", &Ceilings::cpu_copy_gbps},
    {"cpu_buffer_mib", &Ceilings::cpu_buffer_mib},   {"gpu_l2_bytes", &Ceilings::gpu_l2_bytes},
    {"gpu_peak_gbps", &Ceilings::gpu_peak_gbps},     {"gpu_read_gbps", &Ceilings::gpu_read_gbps},
    {"gpu_copy_gbps", &Ceilings::gpu_copy_gbps},     {"h2d_pinned_gbps", &Ceilings::h2d_pinned_gbps},
    {"d2h_pinned_gbps", &Ceilings::d2h_pinned_gbps}, {"h2d_pageable_gbps", &Ceilings::h2d_pageable_gbps},
    {"d2h_pageable_gbps", &Ceilings::d2h_pageable_gbps}, {"zero_copy_gbps", &Ceilings::zero_copy_gbps},
    {"gpu_buffer_mib", &Ceilings::gpu_buffer_mib},
};
std::string Sanitize(std::string s) {
  for (char& c : s)
    if (!std::isalnum((unsigned char)c) && c != '-' && c != '.') c = '_';
  return s;
}
}  // namespace

std::string Ceilings::ToJson() const {
  std::ostringstream o;
  o << "{\n  \"machine\": " << json::Quote(machine) << ",\n  \"probed_at\": " << json::Quote(probed_at)
    << ",\n  \"cpu_model\": " << json::Quote(cpu_model) << ",\n  \"cpu_threads\": " << cpu_threads
    << ",\n  \"has_gpu\": " << (has_gpu ? "true" : "false") << ",\n  \"gpu_note\": " << json::Quote(gpu_note)
    << ",\n  \"gpu_name\": " << json::Quote(gpu_name);
  for (const Field& f : kNumbers) o << ",\n  \"" << f.name << "\": " << json::Number(this->*f.num);
  o << "\n}\n";
  return o.str();
}

Ceilings Ceilings::FromJson(const std::string& text, const std::string& what) {
  json::FlatObject obj = json::ParseFlat(text, what);
  Ceilings c;
  auto get = [&](const char* k) { auto it = obj.find(k); return it == obj.end() ? std::string() : it->second; };
  c.machine = get("machine");
  c.probed_at = get("probed_at");
  c.cpu_model = get("cpu_model");
  c.cpu_threads = (unsigned)std::atoi(get("cpu_threads").c_str());
  c.has_gpu = get("has_gpu") == "true";
  c.gpu_note = get("gpu_note");
  c.gpu_name = get("gpu_name");
  for (const Field& f : kNumbers) {
    std::string v = get(f.name);
    c.*f.num = v.empty() || v == "null" ? 0 : std::atof(v.c_str());
  }
  if (c.machine.empty() || c.cpu_read_gbps <= 0)
    throw UserError(ErrorKind::Conversion, what + ": not a probe result (no machine or CPU bandwidth)");
  return c;
}

std::string Ceilings::ToText() const {
  std::ostringstream o;
  char buf[160];
  auto line = [&](const char* what, double gbps, const char* note = "") {
    std::snprintf(buf, sizeof buf, "  %-46s %9.1f GB/s%s\n", what, gbps, note);
    o << buf;
  };
  o << "machine " << machine << " (probed " << probed_at << ")\n";
  o << "CPU: " << cpu_model << ", " << cpu_threads << " hardware threads, last-level cache "
    << (cpu_llc_bytes > 0 ? std::to_string((long long)(cpu_llc_bytes / 1024)) + " KiB" : "unknown") << "\n";
  std::snprintf(buf, sizeof buf, "  (buffers of %.0f MiB, best of the repeats)\n", cpu_buffer_mib);
  o << buf;
  line("memory read, all threads", cpu_read_gbps);
  line("memory read, one thread", cpu_read_1t_gbps);
  line("memory copy, all threads (read + write)", cpu_copy_gbps);
  if (!has_gpu) {
    o << "GPU: none probed (" << gpu_note << ")\n";
    return o.str();
  }
  std::snprintf(buf, sizeof buf, "GPU: %s, L2 %.0f MiB, theoretical %.0f GB/s (buffers of %.0f MiB)\n", gpu_name.c_str(),
                gpu_l2_bytes / (1 << 20), gpu_peak_gbps, gpu_buffer_mib);
  o << buf;
  line("device memory read (kernel)", gpu_read_gbps);
  line("device memory copy (kernel, read + write)", gpu_copy_gbps);
  line("host -> device, pinned", h2d_pinned_gbps);
  line("device -> host, pinned", d2h_pinned_gbps);
  line("host -> device, pageable", h2d_pageable_gbps);
  line("device -> host, pageable", d2h_pageable_gbps);
  line("kernel reading pinned host memory (zero-copy)", zero_copy_gbps);
  return o.str();
}

std::string MachineKey(const std::string& gpu_name) {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "host");
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return Sanitize(std::string(host) + "-" + std::to_string(n) + "t-" + (gpu_name.empty() ? "nogpu" : gpu_name));
}

std::string ProbeDirectory() {
  if (const char* d = std::getenv("TESSERA_PROBE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tessera";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tessera";
  return ".tessera-cache";
}

std::string ProbePath(const std::string& key) { return ProbeDirectory() + "/probe-" + key + ".json"; }

std::optional<Ceilings> LoadCeilings(const std::string& key) {
  std::string path = ProbePath(key);
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return Ceilings::FromJson(ss.str(), path);
  } catch (const std::exception& e) {
    std::cerr << "warning: ignoring " << e.what() << "\n";
    return std::nullopt;
  }
}

std::string SaveCeilings(const Ceilings& c) {
  std::string path = ProbePath(c.machine);
  std::filesystem::create_directories(ProbeDirectory());
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << c.ToJson();
    if (!out) throw UserError(ErrorKind::IO, "cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
  return path;
}

}  // namespace tessera::model
