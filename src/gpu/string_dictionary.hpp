// The GPU's dictionaries of VARCHAR values: sorted distinct strings, whose positions are the
// codes a generated kernel compares, groups and sorts by (codes keep the strings' byte
// order). Built on all host threads; a column's dictionary comes with every row's code, so
// an upload writes codes without searching the dictionary (column_cache.cpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/row_group.hpp"

namespace tessera::gpu {

// Sorts and de-duplicates string views on all host threads (dictionaries of millions).
void SortUniqueStrings(std::vector<std::string_view>& v);

// A VARCHAR column's sorted distinct values and the code of each of its "slots": per row
// group, a dictionary-encoded chunk has one slot per entry of its own dictionary, a plain
// one a slot per row.
struct ColumnDictionary {
  std::shared_ptr<std::vector<std::string>> dict;
  std::vector<uint64_t> slot_base;  // per row group, its first slot
  std::vector<int32_t> slot_codes;
  // Row group g's codes (its chunk `ch`, loaded) into out[0, ch.count).
  void ChunkCodes(size_t g, const ColumnChunk& ch, int32_t* out) const;
};

// The dictionary of column `column` of `data`, whose chunks are loaded and hold no NULLs.
ColumnDictionary BuildColumnDictionary(const TableData& data, int column);

}  // namespace tessera::gpu
