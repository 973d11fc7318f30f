#include "model/machine_probe.hpp"

#include <chrono>
#include <ctime>

#include "gpu/gpu_probe.hpp"
#include "model/cpu_probe.hpp"

namespace tessera::model {

namespace {
std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}
}  // namespace

std::string ThisMachineKey() { return MachineKey(gpu::UsableGpuName()); }

Ceilings ProbeMachine(const ProbeOptions& opt) {
  Ceilings c;
  CpuProbeOptions cpu;
  cpu.progress = opt.progress;
  if (opt.quick) cpu.buffer_mib = 256, cpu.repeats = 3;
  ProbeCpu(c, cpu);
  if (opt.cpu_only) {
    c.has_gpu = false;
    c.gpu_note = "not probed (--cpu-only)";
  } else {
    gpu::GpuProbeOptions g;
    g.progress = opt.progress;
    if (opt.quick) g.device_mib = 1024, g.host_mib = 256, g.repeats = 3;
    gpu::ProbeGpu(c, g);
  }
  c.machine = MachineKey(c.has_gpu ? c.gpu_name : gpu::UsableGpuName());
  c.probed_at = UtcNow();
  return c;
}

std::optional<Ceilings> SavedCeilings() { return LoadCeilings(ThisMachineKey()); }

Ceilings SavedOrQuickProbe(const std::function<void(const std::string&)>& progress) {
  if (auto c = SavedCeilings()) return *c;
  if (progress) progress("no saved probe for this machine: probing it (quick; `tessera probe` for the full one)");
  ProbeOptions opt;
  opt.quick = true;
  opt.progress = progress;
  Ceilings c = ProbeMachine(opt);
  std::string path = SaveCeilings(c);
  if (progress) progress("saved " + path);
  return c;
}

}  // namespace tessera::model
