// `tessera probe`: measures this machine's ceilings (memory bandwidths of the CPU, of the
// GPU and of its links), prints them and saves them for the cost model.
#include <iostream>

#include "cli/cli_args.hpp"
#include "cli/commands.hpp"
#include "model/machine_probe.hpp"

namespace tessera::cli {

namespace {
constexpr const char* kProbeUsage =
    "Usage: tessera probe [--show] [--quick] [--cpu-only]\n"
    "\n"
    "Measures the ceilings of this machine that the cost model (bench, EXPLAIN ANALYZE)\n"
    "compares every query with: CPU memory read bandwidth on all hardware threads and on\n"
    "one, memcpy bandwidth; and with a usable GPU: device-memory read and copy bandwidth\n"
    "(NVRTC-compiled kernels), host->device and device->host copies from pinned and\n"
    "pageable memory, and a kernel reading pinned host memory (zero-copy). Without a GPU\n"
    "only the CPU is probed, and it says so. The result is printed and saved as JSON in\n"
    "$TESSERA_PROBE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera, one file per\n"
    "machine (host, threads, GPU); it is re-used until the machine is probed again.\n"
    "\n"
    "  --show       print the saved result without probing (exit 1 when there is none)\n"
    "  --quick      smaller buffers and fewer repeats (what bench runs when nothing is saved)\n"
    "  --cpu-only   do not probe the GPU\n"
    "  --help       show this text\n";
}  // namespace

int RunProbeCommand(const std::vector<std::string>& argv) {
  ArgReader args(argv, kProbeUsage);
  model::ProbeOptions opt;
  bool show = false;
  while (!args.Done()) {
    std::string a = args.Next();
    if (a == "--help" || a == "-h") {
      std::cout << kProbeUsage;
      return 0;
    } else if (a == "--show") {
      show = true;
    } else if (a == "--quick") {
      opt.quick = true;
    } else if (a == "--cpu-only") {
      opt.cpu_only = true;
    } else {
      args.Unknown(a);
    }
  }
  try {
    if (show) {
      auto c = model::SavedCeilings();
      if (!c) {
        std::cerr << "Error: no saved probe for this machine (" << model::ProbePath(model::ThisMachineKey())
                  << "); run: tessera probe\n";
        return 1;
      }
      std::cout << c->ToText();
      return 0;
    }
    opt.progress = [](const std::string& s) { std::cerr << s << std::endl; };
    model::Ceilings c = model::ProbeMachine(opt);
    std::cout << c.ToText();
    if (!c.has_gpu) std::cout << "(no GPU: only the CPU was probed)\n";
    std::cout << "saved to " << model::SaveCeilings(c) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}

}  // namespace tessera::cli
