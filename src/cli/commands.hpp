// The subcommands of `tessera`: gen, bench and probe. Each reads its own arguments and returns
// the process exit status; a wrong command line throws UsageError.
#pragma once
#include <string>
#include <vector>

namespace tessera::cli {

int RunGenCommand(const std::vector<std::string>& args);
int RunBenchCommand(const std::vector<std::string>& args);
int RunProbeCommand(const std::vector<std::string>& args);

}  // namespace tessera::cli
