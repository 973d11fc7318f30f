#include "execution/operators/join_hash_table.hpp"

namespace tessera {

void JoinHashTable::Init(uint64_t rows, bool exact, bool chain) {
  exact_ = exact;
  chain_ = chain;
  // About 16 K rows a partition (a table of a few hundred KB, within a core's L2), at most
  // 256 partitions; one below 32 K rows.
  pbits_ = 0;
  while (pbits_ < kRadixBits && (rows >> (pbits_ + 1)) >= (16u << 10)) pbits_++;
  parts_.clear();
  parts_.resize(Partitions());
  filter_.clear();
  small_ = false;
}

void JoinHashTable::Clear() {
  parts_.clear();
  std::vector<uint64_t>().swap(filter_);
  pbits_ = 0;
}

void JoinHashTable::AllocateInput(uint32_t p, uint64_t m) {
  Part& pt = parts_[p];
  pt.m = m;
  pt.in_words.reset(new uint64_t[std::max<uint64_t>(m, 1)]);
  pt.in_rows.reset(new uint32_t[std::max<uint64_t>(m, 1)]);
}

void JoinHashTable::Grow(Part& pt, bool exact) {
  const uint64_t cap = (pt.mask + 1) * 2;
  auto entries = std::make_unique<JoinEntry[]>(cap);
  for (uint64_t s = 0; s <= pt.mask; s++) {
    const JoinEntry& e = pt.entries[s];
    if (!e.head) continue;
    uint64_t t = (exact ? HashMix(e.word) : e.word) & (cap - 1);
    while (entries[t].head) t = (t + 1) & (cap - 1);
    entries[t] = e;
  }
  pt.entries = std::move(entries);
  pt.mask = cap - 1;
}

double JoinHashTable::Bytes() const {
  double b = 0;
  for (const Part& pt : parts_) {
    if (pt.entries) b += (double)sizeof(JoinEntry) * (double)(pt.mask + 1);
    b += 4.0 * (double)pt.chain_words;
  }
  b += 8.0 * (double)filter_.size();
  return b;
}

}  // namespace tessera
