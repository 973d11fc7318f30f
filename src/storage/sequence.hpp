// Sequences (CREATE SEQUENCE, nextval, currval): a sequence's position and DuckDB's rules for
// its definition. The catalog keeps a SequenceEntry (storage/catalog.hpp) per sequence; its
// counter is shared by every catalog state that holds the entry, so nextval moves it for
// every connection and transaction at once, as in DuckDB.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>

#include "storage/catalog.hpp"

namespace tessera {

// The options CREATE SEQUENCE wrote (unset: DuckDB's default, which depends on the sign of
// the increment).
struct SequenceOptions {
  std::string name;
  std::optional<int64_t> start, increment, min, max;
  bool cycle = false;
};

// The definition the options make: an ascending sequence runs from 1 to INT64_MAX, a
// descending one from -1 down to INT64_MIN, starting at the end it runs from; throws
// DuckDB's errors for a zero increment, MINVALUE >= MAXVALUE and a START outside them.
SequenceDef MakeSequenceDef(const SequenceOptions& options);

class SequenceCounter {
 public:
  explicit SequenceCounter(int64_t next) : next_(next) {}
  struct Position {
    int64_t next;    // the value nextval gives next (unless `past`)
    bool past;       // the step after the last value overflowed: the sequence is at its end
    bool used;       // nextval has given a value
    int64_t last;    // the value it gave last (currval)
  };
  // A persisted position.
  explicit SequenceCounter(const Position& p) : next_(p.next), next_past_(p.past), used_(p.used), last_(p.last) {}
  // nextval: the next value, past the end the other end with CYCLE, else DuckDB's error.
  int64_t Next(const SequenceDef& def);
  // currval: the value nextval gave last; DuckDB's error before the first.
  int64_t Current() const;
  Position position() const;
  // Set by Next, cleared by TakeDirty: the position moved since it was last persisted.
  bool TakeDirty() { return dirty_.exchange(false, std::memory_order_acq_rel); }

 private:
  mutable std::mutex mu_;
  int64_t next_;
  bool next_past_ = false;
  bool used_ = false;
  int64_t last_ = 0;
  std::atomic<bool> dirty_{false};
};

}  // namespace tessera
