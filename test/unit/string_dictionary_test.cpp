// The GPU's VARCHAR dictionaries (gpu/string_dictionary.hpp): sorted distinct values in byte
// order and every row's code, against std::sort over the same strings; over dictionary and
// plain chunks (and SortedDistinct over any strings), a prefix shared by every value, strings that are prefixes of others, zero
// and high bytes, empty strings, and enough values for the parallel sample sort.
#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "check.hpp"
#include "gpu/string_dictionary.hpp"
#include "storage/column_chunk.hpp"
#include "storage/row_group.hpp"

using namespace tessera;

namespace {

std::shared_ptr<const RowGroup> Group(const std::vector<std::string>& values) {
  ColumnChunkBuilder b(Type::Varchar());
  for (const auto& v : values) b.AppendValue(Value::Varchar(v));
  auto rg = std::make_shared<RowGroup>();
  rg->columns.push_back(b.Finish());
  return rg;
}

// Checks the dictionary of a table whose row groups hold `groups`.
void CheckDictionary(const std::vector<std::vector<std::string>>& groups) {
  TableData data;
  std::set<std::string> distinct;
  for (const auto& g : groups) {
    data.row_groups.push_back(Group(g));
    data.row_count += g.size();
    distinct.insert(g.begin(), g.end());
  }
  gpu::ColumnDictionary d = gpu::BuildColumnDictionary(data, 0);
  const std::vector<std::string> want(distinct.begin(), distinct.end());  // std::string's order is byte order
  CHECK_EQ(d.dict->size(), want.size());
  bool same_dict = d.dict->size() == want.size();
  for (size_t i = 0; same_dict && i < want.size(); i++) same_dict = (*d.dict)[i] == want[i];
  CHECK(same_dict);
  for (size_t i = 0; i < want.size(); i += 1 + want.size() / 50) CHECK_EQ(d.dict->LowerBound(want[i]), i);
  CHECK_EQ(d.dict->LowerBound(want.back() + "~"), want.size());
  for (size_t g = 0; g < groups.size(); g++) {
    const ColumnChunk& ch = *data.row_groups[g]->columns[0];
    std::vector<int32_t> codes(ch.count);
    d.ChunkCodes(g, ch, codes.data());
    bool same = true;
    for (uint32_t i = 0; i < ch.count; i++) same = same && codes[i] >= 0 && (size_t)codes[i] < want.size() && want[codes[i]] == groups[g][i];
    CHECK(same);
  }
}

std::string RandomString(std::mt19937& rng, const std::string& prefix, size_t max_len) {
  std::string s = prefix;
  const size_t len = rng() % (max_len + 1);
  for (size_t i = 0; i < len; i++) s.push_back((char)(rng() % 4 == 0 ? rng() % 256 : 'a' + rng() % 3));
  return s;
}

}  // namespace

TEST(dictionary_and_plain_chunks_small_and_tricky_values) {
  std::string zero("a\0b", 3), zero2("a\0", 2), high("\xff\x80", 2);
  // One group of few distinct values (stored as a dictionary), one of many (plain).
  std::vector<std::string> few, many;
  for (int i = 0; i < 500; i++) few.push_back(i % 3 == 0 ? "" : i % 3 == 1 ? zero : "a");
  for (int i = 0; i < 500; i++) many.push_back(std::to_string(i * 7919 % 1000) + (i % 2 ? zero2 : high));
  many.push_back("a");
  many.push_back("abcdefghijklmnopqrstuvwxyz");
  many.push_back("abcdefghijklmnopqrstuvwxy");
  many.push_back("abcdefghijklmnop");
  many.push_back("abcdefghijklmnopq");
  CheckDictionary({few, many, few});
}

TEST(a_prefix_every_value_shares) {
  std::vector<std::string> a, b;
  for (int i = 0; i < 3000; i++) a.push_back("Customer#" + std::to_string(100000 + (i * 37) % 2000));
  for (int i = 0; i < 40; i++) b.push_back("Customer#" + std::to_string(i % 4));
  b.push_back("Customer#");
  CheckDictionary({a, b});
  CheckDictionary({{"same", "same", "same"}});
  CheckDictionary({{"x"}});
  CheckDictionary({{}, {"b", "a"}, {}});
}

TEST(enough_values_for_the_parallel_sort) {
  std::mt19937 rng(7);
  std::vector<std::vector<std::string>> groups(4);
  for (size_t g = 0; g < groups.size(); g++)
    for (int i = 0; i < 60000; i++) groups[g].push_back(RandomString(rng, g % 2 ? "shared prefix " : "shared", 24));
  CheckDictionary(groups);
  std::vector<std::string> strings;
  for (auto& g : groups) strings.insert(strings.end(), g.begin(), g.end());
  std::vector<int32_t> codes;
  auto sorted = gpu::SortedDistinct(std::vector<std::string_view>(strings.begin(), strings.end()), &codes);
  std::vector<std::string> want = strings;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  CHECK_EQ(sorted->size(), want.size());
  bool same = sorted->size() == want.size() && codes.size() == strings.size();
  for (size_t i = 0; same && i < want.size(); i++) same = (*sorted)[i] == want[i];
  for (size_t i = 0; same && i < strings.size(); i++) same = (*sorted)[codes[i]] == strings[i];
  CHECK(same);
  CHECK_EQ(gpu::SortedDistinct({}, &codes)->size(), (size_t)0);
}

TEST(values_alike_in_their_first_16_32_and_48_bytes) {
  // Ties beyond the sort keys (KeyedLess, then SortTail 16 bytes at a time), as TPC-H's
  // comments made of few words have them: words from a small vocabulary, values ending at,
  // before and after each 16-byte boundary, zero and high bytes after long equal runs; small
  // and parallel sorts (a group alone, then all).
  std::mt19937 rng(11);
  const std::vector<std::string> words = {"ironic ", "final ", "deposits ", "sleep ", "carefully ", "a", "\xff", std::string("\0", 1)};
  std::vector<std::vector<std::string>> groups(3);
  for (size_t g = 0; g < groups.size(); g++)
    for (int i = 0; i < 40000; i++) {
      std::string v = "sixteen bytes ab";  // shared by every value: skipped
      const size_t n = rng() % 12;
      for (size_t w = 0; w < n; w++) v += words[rng() % (w < 4 ? 2 : words.size())];
      if (rng() % 3 == 0) v.resize(16 + (rng() % 4) * 16 + rng() % 2 * (rng() % 3));  // at and near boundaries
      if (v.size() < 16) v = "sixteen bytes ab";
      groups[g].push_back(v);
    }
  CheckDictionary({groups[0]});
  CheckDictionary(groups);
}

TEST_MAIN()
