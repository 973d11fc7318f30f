// TPC-H comment text (specification clause 4.2.2.10): a pool of sentences made with the
// specification's grammar and word lists, generated once per seed; every comment column
// value is a substring of the pool of a random length within the column's bounds.
#pragma once
#include <cstdint>
#include <string>

#include "common/types.hpp"
#include "gen/gen_core.hpp"

namespace tessera::gen {

class TpchText {
 public:
  static constexpr size_t kDefaultPoolBytes = 8 << 20;

  // The pool depends only on `seed` (and its size).
  explicit TpchText(uint64_t seed, size_t pool_bytes = kDefaultPoolBytes);

  // A comment of min..max characters (both at least 1) drawn from `r`: a view into the
  // pool that neither starts nor ends with a space.
  StrRef Comment(Rng& r, int min, int max) const;

  const std::string& pool() const { return pool_; }

 private:
  std::string pool_;
};

}  // namespace tessera::gen
