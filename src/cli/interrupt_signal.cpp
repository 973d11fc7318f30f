#include "cli/interrupt_signal.hpp"

#include <atomic>

namespace tessera::cli {

namespace {

// The connection SIGINT interrupts (nullptr: none). Lock-free, so the handler may read it.
std::atomic<Connection*> g_target{nullptr};
static_assert(std::atomic<Connection*>::is_always_lock_free);

void OnSigint(int) {
  if (Connection* c = g_target.load()) c->Interrupt();
}

}  // namespace

InterruptOnSigint::InterruptOnSigint(Connection& conn) {
  g_target.store(&conn);
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  installed_ = sigaction(SIGINT, &sa, &previous_) == 0;
}

InterruptOnSigint::~InterruptOnSigint() {
  if (installed_) sigaction(SIGINT, &previous_, nullptr);
  g_target.store(nullptr);
}

}  // namespace tessera::cli
