// Group keys given as dictionary codes (Vector's dictionary form, common/vector.hpp): when
// every group key of a chunk is a VARCHAR vector read from a dictionary-encoded column
// chunk, a row's group is found by its codes instead of its strings.
//
// Each key's code (its dictionary's size for NULL) is combined into one small integer per
// row, code_0 + (size_0 + 1) * (code_1 + (size_1 + 1) * ...), that indexes a translation
// table from combinations to group ids. The table belongs to the chunk's dictionaries (a
// row group's, in a table scan) and is kept while the next chunks come with the same ones:
// a combination not seen yet under them is looked up once in the GroupTable by its strings
// (GroupTable::FindOrCreate on one row per new combination, in order of first appearance,
// so group ids are exactly those the string path gives), and every other row costs one
// table load. Chunks whose keys are not all dictionary vectors, or whose combinations
// exceed kMaxCombinations, take the GroupTable's own path (the caller's fallback).
#pragma once
#include <memory>
#include <vector>

#include "common/vector.hpp"
#include "execution/operators/group_table.hpp"

namespace tessera {

class DictGroupKeys {
 public:
  // Translation tables up to this many entries (256 KB: fits L2, cleared per dictionary).
  static constexpr uint64_t kMaxCombinations = 1u << 16;
  // Finds or creates the group of rows [0, n) in `table` (gids[i]) when every key is a
  // VARCHAR vector in dictionary form and the combinations fit; false (nothing done)
  // otherwise. `sels`: row i of key k is physical row sels[k][i] of its vector (its code
  // read there); null, or a null entry, for dense keys.
  bool FindOrCreate(GroupTable& table, const Vector* const* keys, size_t nk, uint32_t n, uint32_t* gids,
                    const uint32_t* const* sels = nullptr);
  uint64_t chunks() const { return chunks_; }  // chunks handled here

 private:
  static constexpr uint32_t kUnknown = UINT32_MAX;
  // The dictionaries the translation table belongs to, kept alive while it does (equal
  // pointers then mean equal dictionaries).
  std::vector<StringDict> dicts_;
  std::vector<std::shared_ptr<const void>> owners_;
  std::vector<uint32_t> map_;      // combination -> group id, kUnknown when not looked up yet
  std::vector<uint32_t> combo_;    // per row of the chunk: its combination
  std::vector<uint32_t> first_;    // rows that bring a new combination, in order
  std::vector<uint32_t> first_phys_;  // their physical rows in a selected key's vector
  std::vector<Vector> scratch_;    // those rows' keys, for the GroupTable
  std::vector<uint32_t> new_gids_;
  uint64_t chunks_ = 0;
};

}  // namespace tessera
