#include "common/interrupt.hpp"

namespace tessera {

namespace {
thread_local const std::atomic<bool>* current_flag = nullptr;
}  // namespace

const std::atomic<bool>* CurrentInterruptFlag() { return current_flag; }

InterruptScope::InterruptScope(const std::atomic<bool>* flag) : previous_(current_flag) { current_flag = flag; }

InterruptScope::~InterruptScope() { current_flag = previous_; }

}  // namespace tessera
