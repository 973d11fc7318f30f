// Ctrl-C while a statement runs: SIGINT interrupts the shell's connection instead of ending
// the process. While an InterruptOnSigint is alive, SIGINT only sets the connection's
// interrupt flag (Connection::Interrupt, an atomic store: async-signal-safe); the running
// statement stops at its next check and fails with "query interrupted". Outside one, the
// previous disposition holds, so the line editor (raw mode: Ctrl-C is a key, not a signal)
// and plain input (the default action) behave as they did.
#pragma once
#include <signal.h>

#include "main/database.hpp"

namespace tessera::cli {

class InterruptOnSigint {
 public:
  explicit InterruptOnSigint(Connection& conn);
  ~InterruptOnSigint();
  InterruptOnSigint(const InterruptOnSigint&) = delete;
  InterruptOnSigint& operator=(const InterruptOnSigint&) = delete;

 private:
  struct sigaction previous_;
  bool installed_ = false;
};

}  // namespace tessera::cli
