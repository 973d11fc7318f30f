#include "storage/sequence.hpp"

#include "common/error.hpp"

namespace tessera {

SequenceDef MakeSequenceDef(const SequenceOptions& o) {
  SequenceDef d;
  d.name = o.name;
  d.increment = o.increment.value_or(1);
  if (d.increment == 0) throw UserError(ErrorKind::Syntax, "Increment must not be zero");
  const bool up = d.increment > 0;
  d.min = o.min.value_or(up ? 1 : INT64_MIN);
  d.max = o.max.value_or(up ? INT64_MAX : -1);
  d.start = o.start.value_or(up ? d.min : d.max);
  d.cycle = o.cycle;
  if (d.min >= d.max)
    throw UserError(ErrorKind::Syntax, "MINVALUE (" + std::to_string(d.min) + ") must be less than MAXVALUE (" +
                                           std::to_string(d.max) + ")");
  if (d.start < d.min)
    throw UserError(ErrorKind::Syntax, "START value (" + std::to_string(d.start) + ") cannot be less than MINVALUE (" +
                                           std::to_string(d.min) + ")");
  if (d.start > d.max)
    throw UserError(ErrorKind::Syntax, "START value (" + std::to_string(d.start) +
                                           ") cannot be greater than MAXVALUE (" + std::to_string(d.max) + ")");
  return d;
}

int64_t SequenceCounter::Next(const SequenceDef& def) {
  std::lock_guard<std::mutex> g(mu_);
  // next_ is kept in [min, max] or one step past it; a step that would overflow int64
  // lands past the end as well (the end is at most INT64_MAX, so "past" is saturated).
  int64_t v = next_;
  const bool past = next_past_;
  if (past || v > def.max || v < def.min) {
    if (!def.cycle)
      throw UserError(ErrorKind::Input, std::string("nextval: reached ") +
                                            (def.increment > 0 ? "maximum" : "minimum") + " value of sequence \"" +
                                            def.name + "\" (" + std::to_string(def.increment > 0 ? def.max : def.min) +
                                            ")");
    v = def.increment > 0 ? def.min : def.max;
  }
  int64_t n;
  next_past_ = __builtin_add_overflow(v, def.increment, &n);
  next_ = next_past_ ? v : n;
  used_ = true;
  last_ = v;
  dirty_.store(true, std::memory_order_release);
  return v;
}

int64_t SequenceCounter::Current() const {
  std::lock_guard<std::mutex> g(mu_);
  if (!used_) throw UserError(ErrorKind::Input, "currval: sequence is not yet defined in this session");
  return last_;
}

SequenceCounter::Position SequenceCounter::position() const {
  std::lock_guard<std::mutex> g(mu_);
  return {next_, next_past_, used_, last_};
}

}  // namespace tessera
