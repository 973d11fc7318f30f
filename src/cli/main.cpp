// tessera: the command-line front end. Reads the arguments, then runs -c commands, a
// script on stdin, the interactive shell, or a subcommand (gen, bench, probe).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_args.hpp"
#include "cli/commands.hpp"
#include "cli/shell.hpp"
#include "cli/version.hpp"
#include "gpu/gpu_executor.hpp"
#include "main/database.hpp"

namespace tessera::cli {
namespace {

constexpr const char* kUsage =
    "Usage: tessera [DBPATH] [-c SQL]... [--csv|--json] [--threads N] [--device cpu|gpu|auto]\n"
    "       tessera gen ssb|tpch --sf N (--db PATH | --out DIR) [--seed S] [--threads N]\n"
    "       tessera bench ssb --sf N [--reps R] [--queries q1.1,...] [--device D] [--data DIR]\n"
    "                     [--json FILE] [--compare duckdb] [--plot FILE]\n"
    "       tessera probe [--show] [--quick] [--cpu-only]\n"
    "\n"
    "Opens the database directory DBPATH (created if missing; an in-memory database without\n"
    "it) and runs SQL: the -c commands in order, else a script on stdin when stdin is not a\n"
    "terminal, else the interactive shell (enter .help there).\n"
    "\n"
    "  -c SQL            run SQL (statements separated by ';', or one dot command); repeatable\n"
    "  --csv, --json     print results as CSV or JSON instead of a table\n"
    "  --threads N       worker threads (default: all hardware threads)\n"
    "  --device D        cpu, gpu or auto (default auto: the GPU when one is usable)\n"
    "  --help, -h        show this text\n"
    "  --version         show the version\n"
    "\n"
    "Subcommands (each has --help): gen (benchmark data), bench (run a benchmark), probe\n"
    "(measure this machine's memory bandwidths for the cost model).\n"
    "Exit status: 0 success, 1 an SQL or runtime error (-c and scripts stop at the first),\n"
    "2 a wrong command line.\n";

// Ends the process once the shell is done: every commit is on disk by then (each statement
// commits or fails before the next), and the shell's end rolled back an open transaction
// and closed its output file. Unmapping a large database's row-group files one by one and
// freeing its decoded columns took 20-90 ms at SSB SF20 on the lent H200 host (931 files;
// the kernel frees the whole address space at once), and the GPU opener need not finish.
[[noreturn]] void ExitWithoutTeardown(int rc) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(rc);
}

int RunMain(const std::vector<std::string>& argv) {
  ArgReader args(argv, kUsage);
  std::string db_path;
  bool have_path = false;
  std::vector<std::string> commands;
  OutputMode mode = OutputMode::Table;
  unsigned threads = 0;
  std::string device;
  while (!args.Done()) {
    std::string a = args.Next();
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--version" || a == "-v") {
      std::cout << "tessera " << kVersion << '\n';
      return 0;
    } else if (a == "-c") {
      commands.push_back(args.Value(a));
    } else if (a == "--csv") {
      mode = OutputMode::Csv;
    } else if (a == "--json") {
      mode = OutputMode::Json;
    } else if (a == "--table") {
      mode = OutputMode::Table;
    } else if (a == "--threads") {
      threads = (unsigned)args.UnsignedValue(a);
    } else if (a == "--device") {
      device = args.Value(a);
      if (device != "cpu" && device != "gpu" && device != "auto")
        args.Fail("--device must be cpu, gpu or auto, not '" + device + "'");
    } else if (!a.empty() && a[0] != '-' && !have_path) {
      db_path = a;
      have_path = true;
    } else {
      args.Unknown(a);
    }
  }

  // Where the GPU may be used (gpu or auto), it opens on a thread of its own (the driver's
  // start and the context: about 0.2 s in a fresh process) while the database opens and the
  // first statement is planned; joined before the process ends.
  struct Opener {
    std::thread t;
    ~Opener() {
      if (t.joinable()) t.join();
    }
  } opener;
  if (device != "cpu") opener.t = tessera::gpu::OpenGpuInBackground();
  try {
    Database db(db_path);
    if (threads) db.settings().threads = threads;
    if (!device.empty()) db.settings().device = device;
    int rc = 0;
    {
      Shell shell(db, mode);  // its end rolls back an open transaction and closes .output's file
      if (!commands.empty()) {
        for (const std::string& c : commands) {
          Shell::Outcome o = shell.RunCommand(c);
          if (o == Shell::Outcome::Error) {
            rc = 1;
            break;
          }
          if (o == Shell::Outcome::Quit) break;
        }
      } else if (!isatty(STDIN_FILENO)) {
        rc = shell.RunStream(std::cin, /*stop_on_error=*/true) == Shell::Outcome::Error ? 1 : 0;
      } else {
        rc = shell.RunInteractive();
      }
    }
    ExitWithoutTeardown(rc);
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
}

}  // namespace
}  // namespace tessera::cli

int main(int argc, char** argv) {
  using namespace tessera::cli;
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (!args.empty() && (args[0] == "gen" || args[0] == "bench" || args[0] == "probe")) {
      std::vector<std::string> rest(args.begin() + 1, args.end());
      if (args[0] == "probe") return RunProbeCommand(rest);
      return args[0] == "gen" ? RunGenCommand(rest) : RunBenchCommand(rest);
    }
    return RunMain(args);
  } catch (const UsageError& e) {
    // The synopsis (the usage text up to its first blank line); --help has the rest.
    std::string usage = e.usage();
    usage.resize(std::min(usage.size(), usage.find("\n\n") + 1));
    std::cerr << "Error: " << e.what() << "\n" << usage << "Run with --help for details.\n";
    return 2;
  }
}
