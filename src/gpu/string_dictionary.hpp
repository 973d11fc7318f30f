// The GPU's dictionaries of VARCHAR values: sorted distinct strings, whose positions are the
// codes a generated kernel compares, groups and sorts by (codes keep the strings' byte
// order). Built on all host threads; a column's dictionary comes with every row's code, so
// an upload writes codes without searching the dictionary (column_cache.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/row_group.hpp"

namespace tessera::gpu {

// Strings one after another in one buffer (a dictionary of 1.5 M values is one allocation,
// not 1.5 M), their positions in byte order where sorted.
class DictStrings {
 public:
  DictStrings() = default;
  // Copies the n strings get(i) gives (called from several threads).
  DictStrings(size_t n, const std::function<std::string_view(size_t)>& get);
  size_t size() const { return n_; }
  std::string_view operator[](size_t i) const { return {bytes_.get() + offsets_[i], offsets_[i + 1] - offsets_[i]}; }
  // Of sorted strings: the position of the first not below v.
  size_t LowerBound(std::string_view v) const;

 private:
  size_t n_ = 0;
  std::unique_ptr<uint64_t[]> offsets_;
  std::unique_ptr<char[]> bytes_;
};

// The sorted distinct values of v and (codes not null) each value's position among them,
// on all host threads: sorted by 16-byte keys taken after the prefix all values share.
std::shared_ptr<const DictStrings> SortedDistinct(const std::vector<std::string_view>& v, std::vector<int32_t>* codes);
// The same over n values that visit(from, to, fn) hands to fn(i, value) for i in [from, to),
// in order (called from several threads for disjoint ranges).
using StringVisitor =
    std::function<void(size_t from, size_t to, const std::function<void(size_t, std::string_view)>& fn)>;
std::shared_ptr<const DictStrings> SortedDistinct(size_t n, const StringVisitor& visit, std::vector<int32_t>* codes);

// A VARCHAR column's sorted distinct values and the code of each of its "slots": per row
// group, a dictionary-encoded chunk has one slot per entry of its own dictionary, a plain
// one a slot per row.
struct ColumnDictionary {
  std::shared_ptr<const DictStrings> dict;
  std::vector<uint64_t> slot_base;  // per row group, its first slot
  std::vector<int32_t> slot_codes;
  // Row group g's codes (its chunk `ch`, loaded) into out[0, ch.count).
  // Row group g's slots are slot_codes[slot_base[g], slot_base[g + 1]): of a dictionary
  // chunk, the code of each of its own dictionary's entries.
  void ChunkCodes(size_t g, const ColumnChunk& ch, int32_t* out) const;
};

// A dictionary chunk's strings read from its stored blob alone, its codes left there for
// the device to decode (column_cache.cpp); empty when the chunk is loaded instead.
struct ChunkStrings {
  std::vector<uint32_t> offsets;
  std::string bytes;
  std::string_view Entry(uint32_t i) const { return {bytes.data() + offsets[i], offsets[i + 1] - offsets[i]}; }
};

// The dictionary of column `column` of `data`, whose chunks hold no NULLs and are loaded but
// those whose `stored` entry (per row group, nullptr: none) holds their dictionary.
ColumnDictionary BuildColumnDictionary(const TableData& data, int column, const std::vector<ChunkStrings>* stored = nullptr);

}  // namespace tessera::gpu
