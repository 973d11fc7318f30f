// Dictionary codes as group keys: the dictionary form a dictionary-encoded chunk's strings
// are read in (Vector, common/vector.hpp), the group ids DictGroupKeys finds from codes
// against those the GroupTable finds from the strings (same ids, same order, over several
// dictionaries, NULLs, plain chunks in between and the translation table's limit), and
// EXPLAIN ANALYZE reporting the chunks aggregated by codes.
#include <string>
#include <vector>

#include "check.hpp"
#include "execution/operators/dict_group_keys.hpp"
#include "main/database.hpp"
#include "storage/column_chunk.hpp"

using namespace tessera;

namespace {

// A VARCHAR chunk of `n` rows: row i is NULL when i % null_every == null_every - 1
// (null_every 0: none), else the prefix and i % distinct.
std::shared_ptr<const ColumnChunk> StringChunk(uint32_t n, uint32_t distinct, const std::string& prefix,
                                               uint32_t null_every) {
  ColumnChunkBuilder b(Type::Varchar());
  for (uint32_t i = 0; i < n; i++) {
    if (null_every && i % null_every == null_every - 1) b.AppendValue(Value::Null(Type::Varchar()));
    else b.AppendValue(Value::Varchar(prefix + std::to_string(i % distinct)));
  }
  return b.Finish();
}

std::string ExplainText(Connection& c, const std::string& sql) {
  std::string s;
  for (auto& row : c.Query(sql).ToStrings()) s += row[0] + "\n";
  return s;
}

}  // namespace

TEST(a_dictionary_chunk_reads_as_strings_and_codes) {
  auto chunk = StringChunk(1000, 5, "", 7);
  CHECK(chunk->str_enc == StringEncoding::Dictionary);
  Vector v(Type::Varchar(), 300);
  chunk->Read(100, 300, v);
  const Vector& cv = v;  // (the mutable accessors drop the codes)
  CHECK(cv.has_dict());
  CHECK(cv.dict().SameAs(chunk->Dict()));
  for (uint32_t i = 0; i < 300; i++) {
    CHECK_EQ(cv.IsValid(i), chunk->IsValid(100 + i));
    if (cv.IsValid(i)) CHECK(cv.dict().Entry(cv.dict_codes()[i]) == cv.data<StrRef>()[i]);
    if (cv.IsValid(i)) CHECK(cv.data<StrRef>()[i] == chunk->GetString(100 + i));
  }
  // A copy keeps the codes; any write drops them.
  Vector copy = v;
  CHECK(copy.has_dict() && copy.dict_codes()[5] == cv.dict_codes()[5]);
  copy.data<StrRef>()[0] = "changed";
  CHECK(!copy.has_dict());
  Vector w = v;
  w.SetValue(1, Value::Varchar("x"));
  CHECK(!w.has_dict());
  w = v;
  w.Init(Type::Varchar(), 16);
  CHECK(!w.has_dict());
  // A plain chunk has no dictionary form.
  auto plain = StringChunk(100, 100, "p", 0);
  CHECK(plain->str_enc == StringEncoding::Plain);
  Vector p(Type::Varchar(), 100);
  plain->Read(0, 100, p);
  CHECK(!p.has_dict());
}

// The group ids from codes equal the string path's, chunk after chunk: two keys, new
// dictionaries (other codes for the same strings), NULLs, a plain chunk in between.
TEST(group_ids_from_codes_equal_those_from_strings) {
  const std::vector<Type> types{Type::Varchar(), Type::Varchar()};
  GroupTable by_codes(types, {}), by_strings(types, {});
  DictGroupKeys dict;
  struct Step {
    std::shared_ptr<const ColumnChunk> a, b;
    bool codes;  // expected to take the codes' path
  };
  std::vector<Step> steps{
      {StringChunk(4096, 3, "a", 0), StringChunk(4096, 4, "b", 5), true},
      {StringChunk(4096, 5, "a", 3), StringChunk(4096, 2, "b", 0), true},  // new dictionaries
      {StringChunk(64, 64, "a", 0), StringChunk(64, 3, "b", 0), false},     // a plain chunk
      {StringChunk(4096, 7, "a", 11), StringChunk(4096, 6, "b", 2), true},
  };
  uint32_t handled = 0;
  for (const Step& s : steps) {
    for (uint32_t from = 0; from < s.a->count; from += kVectorSize) {
      const uint32_t n = std::min<uint32_t>(kVectorSize, s.a->count - from);
      Vector a(Type::Varchar(), n), b(Type::Varchar(), n);
      s.a->Read(from, n, a);
      s.b->Read(from, n, b);
      const Vector* keys[2] = {&a, &b};
      std::vector<uint32_t> g1(n), g2(n);
      const bool codes = dict.FindOrCreate(by_codes, keys, 2, n, g1.data());
      CHECK_EQ(codes, s.codes);
      if (!codes) by_codes.FindOrCreate(keys, n, g1.data());
      handled += codes;
      by_strings.FindOrCreate(keys, n, g2.data());
      CHECK(g1 == g2);
    }
  }
  CHECK_EQ(dict.chunks(), (uint64_t)handled);
  CHECK_EQ(by_codes.groups(), by_strings.groups());
}

// Key combinations beyond the translation table's limit go to the string path.
TEST(too_many_combinations_are_left_to_the_strings) {
  auto a = StringChunk(8192, 400, "x", 0), b = StringChunk(8192, 400, "y", 0);
  CHECK(a->str_enc == StringEncoding::Dictionary && a->dict_size == 400);
  Vector va(Type::Varchar(), kVectorSize), vb(Type::Varchar(), kVectorSize);
  a->Read(0, kVectorSize, va);
  b->Read(0, kVectorSize, vb);
  GroupTable table({Type::Varchar(), Type::Varchar()}, {});
  DictGroupKeys dict;
  std::vector<uint32_t> g(kVectorSize);
  const Vector* two[2] = {&va, &vb};
  CHECK(!dict.FindOrCreate(table, two, 2, kVectorSize, g.data()));
  const Vector* one[1] = {&va};
  GroupTable single({Type::Varchar()}, {});
  CHECK(dict.FindOrCreate(single, one, 1, kVectorSize, g.data()));
  CHECK_EQ(single.groups(), 400u);
}

TEST(explain_analyze_shows_the_chunks_grouped_by_codes) {
  Database db;
  Connection c(db);
  c.Query("CREATE TABLE t AS SELECT i, 'f' || (i % 3) AS f, 'g' || (i % 1000) AS g FROM range(50000) r(i)");
  std::string text = ExplainText(c, "EXPLAIN ANALYZE SELECT f, count(*) FROM t GROUP BY f");
  CHECK(text.find("groups by dictionary codes in ") != std::string::npos);
  // An integer key: no codes.
  text = ExplainText(c, "EXPLAIN ANALYZE SELECT i % 3, count(*) FROM t GROUP BY i % 3");
  CHECK(text.find("groups by dictionary codes") == std::string::npos);
  // The results agree with the string path's (a computed key is not in dictionary form).
  auto by_codes = c.Query("SELECT f, g, count(*), sum(i) FROM t GROUP BY f, g ORDER BY f, g").ToStrings();
  auto by_strings =
      c.Query("SELECT f || '', g || '', count(*), sum(i) FROM t GROUP BY f || '', g || '' ORDER BY 1, 2").ToStrings();
  CHECK_EQ(by_codes.size(), (size_t)3000);
  CHECK(by_codes == by_strings);
}

TEST_MAIN()
