// Cooperative cancellation of a running query.
//
// A Connection owns an interrupt flag; while it runs a statement, an InterruptScope makes
// that flag the calling thread's current one. The CPU pipeline executor reads it once per
// pipeline on the calling thread and hands it to its workers, which check it before every
// chunk they take from the source (and the GPU executor before every pipeline). A set flag
// makes the run throw QueryInterrupted; the statement's partial state is discarded as after
// any other error.
#pragma once
#include <atomic>

#include "common/error.hpp"

namespace tessera {

class QueryInterrupted : public Error {
 public:
  QueryInterrupted() : Error("query interrupted") {}
};

// The flag of the statement running on this thread (nullptr outside one).
const std::atomic<bool>* CurrentInterruptFlag();

// Makes `flag` the current one for the scope's lifetime (restores the previous one after).
class InterruptScope {
 public:
  explicit InterruptScope(const std::atomic<bool>* flag);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

inline void CheckInterrupt(const std::atomic<bool>* flag) {
  if (flag && flag->load(std::memory_order_relaxed)) throw QueryInterrupted();
}

}  // namespace tessera
