// The ceilings of the machine in hand: probing (CPU, and the GPU when usable) and the saved
// result for this machine's key (model/ceilings.hpp).
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "model/ceilings.hpp"

namespace tessera::model {

struct ProbeOptions {
  bool quick = false;  // smaller buffers, fewer repeats (the automatic probe of bench)
  bool cpu_only = false;
  std::function<void(const std::string&)> progress;
};

// Measures this machine's ceilings (does not save them).
Ceilings ProbeMachine(const ProbeOptions& opt);
// This machine's key (its GPU looked up when the driver is usable).
std::string ThisMachineKey();
// The saved ceilings of this machine, if probed before.
std::optional<Ceilings> SavedCeilings();
// Saved ceilings, else a quick probe that is saved (progress lines through `progress`).
Ceilings SavedOrQuickProbe(const std::function<void(const std::string&)>& progress);

}  // namespace tessera::model
