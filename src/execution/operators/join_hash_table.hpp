// The CPU hash join's index over its build rows (hash_join.hpp).
//
// Each build row has a 64-bit key word: its packed key where the keys pack into one word
// (hashing.hpp, PackableKeys: one integer key, or two 32-bit ones), else the hash of its
// keys. Rows are partitioned by the top bits of their hash, and each partition gets its own
// open-addressing table (linear probing, at most half full, grown by doubling), so the
// partitions are built in parallel, one task each, and a table being filled is small
// enough to stay in cache. An entry holds one distinct key: its word, the last build row
// with that key, and where the others are: while the partition is filled, a list of
// links (row, next link), newest first, each written at the row's place in the
// partition's input (near in memory); once it is filled, each key's other rows laid out
// one after another (their count, then the rows), so that a probe reads them in one run
// instead of chasing links through the partition. Every array is a partition's own (a
// few hundred KB), none spans the build: large allocations come from the kernel as fresh
// pages, zeroed, on every run. A probe finds the entry by hash bits and word alone where
// the word is the key; where it is a hash, the keys of a candidate are compared after the
// words. Without chains (`chain` false: semi, anti and mark joins that only ask whether a
// key exists) the table keeps the first row of each key and drops the rest.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "execution/hashing.hpp"

namespace tessera {

struct JoinEntry {
  uint64_t word;  // packed key, or the keys' hash
  uint32_t head;  // last build row with this key + 1; 0 = empty slot
  uint32_t more;  // its other rows (see JoinHashTable) + 1; 0 = none (always without chains)
};
struct JoinLink {
  uint32_t row;
  uint32_t next;  // the next link + 1; 0 = end
};

class JoinHashTable {
 public:
  // Prepares for `rows` build rows: chooses the partition count. `exact`: the words are
  // the keys (no key comparison); `chain`: keep every row of a key.
  void Init(uint64_t rows, bool exact, bool chain);
  void Clear();

  // The hash of a row with key word `w` (words that are keys are mixed; hashes are not).
  static uint64_t HashOf(uint64_t w, bool exact) { return exact ? HashMix(w) : w; }
  uint64_t Hash(uint64_t w) const { return HashOf(w, exact_); }
  // Partitions are ranges of radixes (the hash's top kRadixBits bits), so that rows can be
  // counted by radix before the partition count is known.
  static constexpr uint32_t kRadixBits = 8;
  static uint32_t Radix(uint64_t h) { return (uint32_t)(h >> (64 - kRadixBits)); }
  uint32_t Partitions() const { return 1u << pbits_; }
  uint32_t PartitionOf(uint64_t h) const { return Radix(h) >> (kRadixBits - pbits_); }

  // Partition p's input: room for its m rows' words and row ids, to be filled (in
  // increasing row order) before BuildPartition.
  void AllocateInput(uint32_t p, uint64_t m);
  uint64_t* InputWords(uint32_t p) { return parts_[p].in_words.get(); }
  uint32_t* InputRows(uint32_t p) { return parts_[p].in_rows.get(); }
  // Fills partition p's table from its input (then freed). Partitions may be built
  // concurrently, each by one thread. `same_keys(a, b)` says whether build rows a and b
  // have equal keys (called only when !exact and the words are equal).
  template <class SameKeys>
  void BuildPartition(uint32_t p, SameKeys&& same_keys);

  // The entry of the key with word `w` (hash h = Hash(w)), or null. `same_key(row)`
  // compares the probe key with build row `row`'s (called only when !exact).
  template <class SameKey>
  const JoinEntry* Find(uint64_t h, uint64_t w, SameKey&& same_key) const {
    const Part& pt = parts_[PartitionOf(h)];
    for (uint64_t s = h & pt.mask;; s = (s + 1) & pt.mask) {
      const JoinEntry& e = pt.entries[s];
      if (!e.head) return nullptr;
      if (e.word == w && (exact_ || same_key(e.head - 1))) return &e;
    }
  }
  // After every partition is built: a blocked Bloom filter over its keys (one 64-bit word
  // for at most 8 keys, three bits set a key; at most 1 MB, so that it stays in cache), so
  // that probe rows without a match are mostly turned away before they touch the table:
  // where the table is too large for the cache, that saves a cache miss; where it is not,
  // the lookup loop's branches (a key without a match walks a run of slots; TPC-H q17 at
  // SF10 probes 60 M lineitem rows into 2,025 parts, 23 ns a row without the filter). `run(n, f)` runs f(0..n-1), in
  // parallel where it can.
  template <class Run>
  void BuildFilter(Run&& run);
  // False when the key with hash h is certainly not in the table.
  bool MayContain(uint64_t h) const {
    if (filter_.empty()) return true;
    const uint64_t bits = FilterBits(h);
    return (filter_[FilterWord(h)] & bits) == bits;
  }
  bool HasFilter() const { return !filter_.empty(); }
  // The table is small enough for the cache: the filter saves only the probe loop's
  // branches on keys without a match, so a probe may stop using it when most keys match.
  bool FilterOptional() const { return small_; }
  void Prefetch(uint64_t h) const {
    const Part& pt = parts_[PartitionOf(h)];
    __builtin_prefetch(pt.entries.get() + (h & pt.mask));
  }
  // f(row) for each build row of entry e (found for hash h), newest first.
  template <class F>
  void ForEachRow(uint64_t h, const JoinEntry& e, F&& f) const {
    f(e.head - 1);
    if (!e.more) return;
    const uint32_t* rows = parts_[PartitionOf(h)].chains.get() + (e.more - 1);
    for (uint32_t k = 1; k <= rows[0]; k++) f(rows[k]);
  }

  bool exact() const { return exact_; }
  bool chain() const { return chain_; }
  // Bytes of the entries and the chain links (for the cost model).
  double Bytes() const;

 private:
  struct Part {
    std::unique_ptr<JoinEntry[]> entries;
    uint64_t mask = 0;  // capacity - 1
    uint64_t used = 0;  // distinct keys
    uint64_t m = 0;     // rows
    std::unique_ptr<uint64_t[]> in_words;  // input, until built
    std::unique_ptr<uint32_t[]> in_rows;
    std::unique_ptr<JoinLink[]> links;  // per input place (written for the rows chained), until built
    std::unique_ptr<uint32_t[]> chains;  // per key with several rows: their count, then the rows but the first
    uint64_t chain_words = 0;
  };
  static void Grow(Part& pt, bool exact);

  // Filter word of hash h: its partition's range, then bits 24.. of the hash (the slot
  // uses the low bits, the partition the top ones); the bits set: three 6-bit fields.
  uint64_t FilterWord(uint64_t h) const { return ((uint64_t)PartitionOf(h) << fbits_) | ((h >> 24) & ((1ull << fbits_) - 1)); }
  static uint64_t FilterBits(uint64_t h) { return (1ull << (h & 63)) | (1ull << ((h >> 6) & 63)) | (1ull << ((h >> 12) & 63)); }

  std::vector<uint64_t> filter_;  // empty: no filter
  bool small_ = false;            // see FilterOptional
  uint32_t fbits_ = 0;            // log2 of the filter words a partition
  bool exact_ = true, chain_ = true;
  uint32_t pbits_ = 0;
  std::vector<Part> parts_;
};

template <class SameKeys>
void JoinHashTable::BuildPartition(uint32_t p, SameKeys&& same_keys) {
  Part& pt = parts_[p];
  const uint64_t m = pt.m;
  const uint64_t* words = pt.in_words.get();
  const uint32_t* rows = pt.in_rows.get();
  if (chain_ && m) pt.links.reset(new JoinLink[m]);
  // Sized for keys of about four rows each, doubled while filling where they are rarer
  // (in cache: the partition is small), so that duplicate keys do not leave the table
  // mostly empty.
  uint64_t cap = 16;
  while (cap < m / 2) cap <<= 1;
  pt.entries = std::make_unique<JoinEntry[]>(cap);
  pt.mask = cap - 1;
  pt.used = 0;
  constexpr uint64_t kAhead = 8;  // slots prefetched this many rows ahead
  for (uint64_t i = 0; i < m; i++) {
    if (i + kAhead < m) __builtin_prefetch(pt.entries.get() + (Hash(words[i + kAhead]) & pt.mask), 1);
    const uint64_t w = words[i], h = Hash(w);
    const uint32_t row = rows[i];
    uint64_t s = h & pt.mask;
    for (;; s = (s + 1) & pt.mask) {
      JoinEntry& e = pt.entries[s];
      if (!e.head) break;
      if (e.word == w && (exact_ || same_keys(row, e.head - 1))) {
        if (chain_) {
          pt.links[i] = JoinLink{e.head - 1, e.more};
          e.head = row + 1;
          e.more = (uint32_t)(i + 1);
        }
        goto next_row;
      }
    }
    if (2 * (pt.used + 1) > pt.mask + 1) {
      Grow(pt, exact_);
      s = h & pt.mask;
      while (pt.entries[s].head) s = (s + 1) & pt.mask;
    }
    pt.entries[s] = JoinEntry{w, row + 1, 0};
    pt.used++;
  next_row:;
  }
  pt.in_words.reset();
  pt.in_rows.reset();
  if (!pt.links) return;
  // The chains laid out contiguously (the links are in cache: this partition's own).
  uint64_t total = 0;
  for (uint64_t s = 0; s <= pt.mask; s++) {
    const JoinEntry& e = pt.entries[s];
    if (!e.more) continue;
    total++;
    for (uint32_t l = e.more; l; l = pt.links[l - 1].next) total++;
  }
  pt.chain_words = total;
  pt.chains.reset(total ? new uint32_t[total] : nullptr);
  uint64_t at = 0;
  for (uint64_t s = 0; s <= pt.mask; s++) {
    JoinEntry& e = pt.entries[s];
    if (!e.more) continue;
    const uint64_t first = at++;
    for (uint32_t l = e.more; l; l = pt.links[l - 1].next) pt.chains[at++] = pt.links[l - 1].row;
    pt.chains[first] = (uint32_t)(at - first - 1);
    e.more = (uint32_t)(first + 1);
  }
  pt.links.reset();
}

template <class Run>
void JoinHashTable::BuildFilter(Run&& run) {
  filter_.clear();
  small_ = false;
  uint64_t most = 0, bytes = 0;
  for (const Part& pt : parts_) {
    most = std::max(most, pt.used);
    bytes += sizeof(JoinEntry) * (pt.mask + 1);
  }
  fbits_ = 0;
  while ((8ull << fbits_) < most) fbits_++;  // a word for at most 8 keys
  const uint64_t words = (uint64_t)parts_.size() << fbits_;
  if (words * 8 > (1u << 20)) return;
  small_ = bytes < (1u << 20);
  filter_.assign(words, 0);
  run(parts_.size(), [&](uint64_t p) {
    const Part& pt = parts_[p];
    for (uint64_t s = 0; s <= pt.mask; s++)
      if (pt.entries[s].head) {
        const uint64_t h = Hash(pt.entries[s].word);
        filter_[FilterWord(h)] |= FilterBits(h);
      }
  });
}

}  // namespace tessera
