// Column chunk compression (storage/compression): every integer codec over edge cases
// (all equal, the full 64-bit range, negative references, NULL-heavy, one row, partial
// miniblocks) at every width; the codec the chooser picks for typical data; whole chunks of
// every type encoded and decoded (FSST and raw strings, dictionaries); corrupt streams
// refused without crashing; and a database written by format version 1 (test/fixtures)
// opening, answering and taking new (version 2) row groups.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <iostream>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include "row_group_versions.hpp"
#include "gpu/column_cache.hpp"
#include "storage/compression/bitpack_core.hpp"
#include "storage/compression/lanepack_core.hpp"
#include "gpu/pipeline_codegen.hpp"
#include "main/database.hpp"
#include "storage/column_chunk.hpp"
#include "storage/compression/chunk_codec.hpp"
#include "storage/compression/gpu_stream.hpp"
#include "storage/compression/gpu_stream_core.hpp"
#include "storage/compression/int_codec.hpp"
#include "storage/decoded_memory.hpp"

using namespace tessera;
using namespace tessera::codec;
namespace fs = std::filesystem;

namespace {

std::vector<uint64_t> Bitmap(uint32_t n, const std::vector<bool>& valid) {
  std::vector<uint64_t> b((n + 63) / 64, 0);
  for (uint32_t i = 0; i < n; i++)
    if (valid[i]) b[i >> 6] |= 1ull << (i & 63);
  return b;
}

// The GPU's form of a fixed-width chunk blob (kind byte 0, then the stream s), decoded the
// way the device decodes it (gpustream::Value) into out; false when the device does not take
// the stream (then the host decodes it). Checks that the form fills exactly plan.bytes.
template <class T>
bool GpuStreamDecode(const std::string& s, uint32_t n, std::vector<T>& out) {
  const std::string blob = std::string(1, '\0') + s;
  GpuStreamPlan plan;
  if (!PlanGpuStream(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), n, sizeof(T), &plan)) return false;
  CHECK_EQ(plan.bytes % 16, (size_t)0);
  std::vector<uint64_t> form(plan.bytes / 8 + 1, 0x5a5a5a5a5a5a5a5aull);  // 16-byte aligned via new
  WriteGpuStream(reinterpret_cast<const uint8_t*>(blob.data()), plan, reinterpret_cast<uint8_t*>(form.data()));
  CHECK_EQ(form.back(), 0x5a5a5a5a5a5a5a5aull);  // nothing written past plan.bytes
  out.assign(n, (T)0);
  bool bad = false;
  DecodeGpuStream(reinterpret_cast<const uint8_t*>(form.data()), out.data(), &bad);
  CHECK(!bad);
  return true;
}

// Encodes with the codecs in `allow`, decodes, and compares the valid rows; returns the
// codec used (or Plain after a failed check, which the caller's expectation then catches).
template <class T>
IntCodec RoundTrip(const std::vector<T>& v, bool is_signed, unsigned allow = 0xF,
                   const std::vector<bool>* valid = nullptr, size_t* size = nullptr) {
  const uint32_t n = (uint32_t)v.size();
  std::vector<uint64_t> bitmap;
  if (valid) bitmap = Bitmap(n, *valid);
  std::string s;
  IntCodec c = EncodeInts(v.data(), n, sizeof(T), is_signed, valid ? bitmap.data() : nullptr, s, allow);
  if (size) *size = s.size();
  std::vector<T> out(n + 1, (T)0x5a);
  size_t used = 0;
  try {
    used = DecodeInts(reinterpret_cast<const uint8_t*>(s.data()), s.size(), n, sizeof(T), out.data());
  } catch (const DecodeError& e) {
    tcheck::Fail(__FILE__, __LINE__, std::string("decode failed: ") + e.what());
    return c;
  }
  CHECK_EQ(used, s.size());
  CHECK(out[n] == (T)0x5a);  // nothing written past the end
  uint32_t bad = 0;
  for (uint32_t i = 0; i < n; i++)
    if ((!valid || (*valid)[i]) && out[i] != v[i]) bad++;
  CHECK_EQ(bad, 0u);
  // The device's decoding of the same stream gives the host's values, row for row, for
  // every codec.
  std::vector<T> dev;
  const bool taken = GpuStreamDecode(s, n, dev);
  CHECK(taken);
  if (taken) {
    uint32_t differ = 0;
    for (uint32_t i = 0; i < n; i++) differ += dev[i] != out[i];
    CHECK_EQ(differ, 0u);
  }
  return c;
}

const unsigned kOnly[] = {1u << 0, 1u << 1, 1u << 2, 1u << 3};

template <class T>
void EveryCodec(const std::vector<T>& v, bool is_signed, const std::vector<bool>* valid = nullptr) {
  for (unsigned a : kOnly) RoundTrip(v, is_signed, a | 1u, valid);
  RoundTrip(v, is_signed, 0xF, valid);
}

}  // namespace

TEST(int_codecs_edge_cases_every_width) {
  std::mt19937_64 rng(42);
  for (uint32_t n : {1u, 2u, 127u, 128u, 129u, 1000u, 131072u}) {
    std::vector<int64_t> full(n), neg(n), equal(n, -7), small(n);
    for (uint32_t i = 0; i < n; i++) {
      full[i] = (int64_t)rng();
      neg[i] = -1000000 - (int64_t)(rng() % 5000);
      small[i] = (int64_t)(rng() % 10);
    }
    if (n > 2) {
      full[0] = INT64_MIN;
      full[1] = INT64_MAX;
    }
    EveryCodec(full, true);
    EveryCodec(neg, true);
    EveryCodec(equal, true);
    EveryCodec(small, true);
    std::vector<int32_t> i32(n);
    std::vector<uint32_t> u32(n);
    std::vector<uint8_t> u8(n);
    std::vector<uint16_t> u16(n);
    for (uint32_t i = 0; i < n; i++) {
      i32[i] = (int32_t)rng();
      u32[i] = (uint32_t)rng();
      u8[i] = (uint8_t)rng();
      u16[i] = (uint16_t)rng();
    }
    if (n > 2) {
      i32[0] = INT32_MIN;
      i32[1] = INT32_MAX;
    }
    EveryCodec(i32, true);
    EveryCodec(u32, false);
    EveryCodec(u8, false);
    EveryCodec(u16, false);
    // NULL-heavy: nine in ten rows NULL, their values garbage the codec may ignore.
    std::vector<bool> valid(n);
    std::vector<int32_t> sparse(n);
    for (uint32_t i = 0; i < n; i++) {
      valid[i] = rng() % 10 == 0;
      sparse[i] = valid[i] ? (int32_t)(rng() % 100) : (int32_t)rng();
    }
    EveryCodec(sparse, true, &valid);
    std::vector<bool> none(n, false);
    EveryCodec(sparse, true, &none);
  }
  // Doubles as bit patterns: NaN, -0.0, infinities survive bit for bit.
  std::vector<double> d = {0.0, -0.0, 1.5, std::nan(""), -1e308, 1e-308, INFINITY, -INFINITY};
  std::vector<int64_t> bits(d.size());
  std::memcpy(bits.data(), d.data(), d.size() * 8);
  EveryCodec(bits, true);
}

// Bit-packing at every width from 0 to 64, in every value width it fits, over full
// miniblocks (the unrolled decoder) and a partial last one (the plain loop); each
// miniblock's range is exactly the width.
TEST(bitpack_every_bit_width_full_and_partial_miniblocks) {
  std::mt19937_64 rng(7);
  for (unsigned b = 0; b <= 64; b++) {
    const uint64_t mask = b == 64 ? ~0ull : ((1ull << b) - 1);
    const uint32_t n = 128 * 3 + 37;
    std::vector<uint64_t> field(n);
    for (uint32_t i = 0; i < n; i++) field[i] = rng() & mask;
    for (uint32_t i = 0; i < n; i += 128) {
      field[i] = 0;
      if (i + 1 < n) field[i + 1] = mask;
    }
    std::vector<int64_t> i64(n);
    for (uint32_t i = 0; i < n; i++) i64[i] = (int64_t)(field[i] - 12345);
    EveryCodec(i64, true);
    if (b <= 32) {
      std::vector<uint32_t> u32(n);
      for (uint32_t i = 0; i < n; i++) u32[i] = (uint32_t)field[i];
      EveryCodec(u32, false);
    }
    if (b <= 16) {
      std::vector<uint16_t> u16(n);
      for (uint32_t i = 0; i < n; i++) u16[i] = (uint16_t)field[i];
      EveryCodec(u16, false);
    }
    if (b <= 8) {
      std::vector<uint8_t> u8(n);
      for (uint32_t i = 0; i < n; i++) u8[i] = (uint8_t)field[i];
      EveryCodec(u8, false);
    }
  }
}

TEST(chooser_picks_the_smallest) {
  const uint32_t n = 131072;
  std::vector<int32_t> sorted(n), lowcard(n), range(n), runs(n);
  std::mt19937_64 rng(7);
  for (uint32_t i = 0; i < n; i++) {
    sorted[i] = 1000000 + (int32_t)(i / 4);        // keys of a fact table in order
    lowcard[i] = 100 + 100 * (int32_t)(rng() % 50);  // 50 distinct values far apart
    range[i] = 19920101 + (int32_t)(rng() % 70000);
    runs[i] = (int32_t)(i / 5000);
  }
  size_t size = 0;
  CHECK(RoundTrip(sorted, true, 0xF, nullptr, &size) == IntCodec::BitPack);
  CHECK(size < n * 7 / 8);  // 5 bits a value (31 apart in a miniblock) + 1 for its frame
  CHECK(RoundTrip(lowcard, true, 0xF, nullptr, &size) == IntCodec::Dictionary);
  CHECK(size < n);  // 6 bits a value
  CHECK(RoundTrip(range, true, 0xF, nullptr, &size) == IntCodec::BitPack);
  CHECK(size < n * 17 / 8 + 20000);  // 17 bits a value, 16 bytes a miniblock
  CHECK(RoundTrip(runs, true, 0xF, nullptr, &size) == IntCodec::Rle);
  CHECK(size < 1000);
  std::vector<uint64_t> noise(n);
  for (auto& x : noise) x = rng();
  CHECK(RoundTrip(noise, false) == IntCodec::Plain);
}

TEST(corrupt_int_streams_are_refused_not_crashing) {
  std::mt19937_64 rng(3);
  std::vector<int32_t> v(1000);
  for (auto& x : v) x = (int32_t)(rng() % 3000);
  for (unsigned a : kOnly) {
    std::string s;
    EncodeInts(v.data(), (uint32_t)v.size(), 4, true, nullptr, s, a | 1u);
    std::vector<int32_t> out(v.size());
    for (int trial = 0; trial < 2000; trial++) {
      std::string t = s;
      if (trial % 3 == 0) t.resize(rng() % t.size());
      for (int k = 0; k < 1 + trial % 4; k++)
        if (!t.empty()) t[rng() % t.size()] ^= (char)(1 + rng() % 255);
      try {
        DecodeInts(reinterpret_cast<const uint8_t*>(t.data()), t.size(), (uint32_t)v.size(), 4, out.data());
      } catch (const DecodeError&) {
      }
    }
    // The wrong row count or width is refused outright.
    CHECK_THROWS(DecodeInts(reinterpret_cast<const uint8_t*>(s.data()), s.size(), 999, 4, out.data()));
    CHECK_THROWS(DecodeInts(reinterpret_cast<const uint8_t*>(s.data()), s.size(), 1000, 8, out.data()));
  }
}

// The GPU's form of a corrupt stream: refused when planned (the host then decodes it and
// reports the corrupt file), refused when written (a miniblock pointing outside the words),
// or decoded within its bytes, a dictionary code out of range flagged; never a read out of
// bounds (the form is allocated to exactly its planned size here, so that a sanitizer or
// the allocator would see one).
TEST(corrupt_streams_for_the_gpu_are_refused_or_flagged) {
  std::mt19937_64 rng(5);
  std::vector<int32_t> v(1000);
  for (size_t i = 0; i < v.size(); i++) v[i] = (int32_t)(i / 7) * 13;  // runs of 7, small ranges, 143 values
  int planned = 0, refused_on_write = 0;
  for (unsigned a : {1u << 1, 1u << 2, 1u << 3}) {
    std::string s;
    EncodeInts(v.data(), (uint32_t)v.size(), 4, true, nullptr, s, a | 1u);
    for (int trial = 0; trial < 2000; trial++) {
      std::string t = std::string(1, '\0') + s;
      if (trial % 3 == 0) t.resize(2 + rng() % (t.size() - 2));
      for (int k = 0; k < 1 + trial % 4; k++) t[1 + rng() % (t.size() - 1)] ^= (char)(1 + rng() % 255);
      GpuStreamPlan plan;
      if (!PlanGpuStream(reinterpret_cast<const uint8_t*>(t.data()), t.size(), (uint32_t)v.size(), 4, &plan)) continue;
      planned++;
      std::unique_ptr<uint8_t[]> form(new uint8_t[plan.bytes]);
      try {
        WriteGpuStream(reinterpret_cast<const uint8_t*>(t.data()), plan, form.get());
      } catch (const DecodeError&) {
        refused_on_write++;
        continue;
      }
      std::vector<int32_t> out(v.size());
      bool bad = false;
      DecodeGpuStream(form.get(), out.data(), &bad);
    }
  }
  CHECK(planned > 0);
  CHECK(refused_on_write > 0);
  // Each codec was tried (the chooser took each one it was allowed).
  for (unsigned a : {1u << 1, 1u << 2, 1u << 3}) {
    std::string s;
    CHECK(EncodeInts(v.data(), (uint32_t)v.size(), 4, true, nullptr, s, a | 1u) == (IntCodec)std::countr_zero(a));
  }
  // A dictionary whose size says 15 where codes reach 15: the code is flagged, not read.
  std::vector<int64_t> d(300);
  for (size_t i = 0; i < d.size(); i++) d[i] = (int64_t)(i % 16) * 1000003;
  std::string s;
  CHECK(EncodeInts(d.data(), (uint32_t)d.size(), 8, true, nullptr, s, 1u << 2 | 1u) == IntCodec::Dictionary);
  const std::string blob = std::string(1, '\0') + s;
  GpuStreamPlan plan;
  CHECK(PlanGpuStream(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), (uint32_t)d.size(), 8, &plan));
  CHECK_EQ(plan.kind, (unsigned)gpustream::kDictionary);
  CHECK_EQ(plan.dict_size, 16u);
  std::vector<uint64_t> form(plan.bytes / 8);
  WriteGpuStream(reinterpret_cast<const uint8_t*>(blob.data()), plan, reinterpret_cast<uint8_t*>(form.data()));
  reinterpret_cast<uint32_t*>(form.data())[3] = 15;  // the same layout (16 * 8 and 15 * 8 bytes pad to 128)
  std::vector<int64_t> out(d.size());
  bool bad = false;
  DecodeGpuStream(reinterpret_cast<const uint8_t*>(form.data()), out.data(), &bad);
  CHECK(bad);
  // A plan checks the chunk's kind, width and count.
  CHECK(!PlanGpuStream(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), (uint32_t)d.size() - 1, 8, &plan));
  CHECK(!PlanGpuStream(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), (uint32_t)d.size(), 4, &plan));
  const std::string wrong_kind = std::string(1, '\1') + s;
  CHECK(!PlanGpuStream(reinterpret_cast<const uint8_t*>(wrong_kind.data()), wrong_kind.size(), (uint32_t)d.size(), 8, &plan));
}

namespace {

std::shared_ptr<const ColumnChunk> BuildChunk(Type t, uint32_t n, const std::function<Value(uint32_t)>& f) {
  ColumnChunkBuilder b(t);
  for (uint32_t i = 0; i < n; i++) b.AppendValue(f(i));
  return b.Finish();
}

// Encodes and decodes `c`; checks every value; returns the encoded size (0: kept plain).
size_t ChunkRoundTrip(const ColumnChunk& c) {
  std::string blob;
  if (!EncodeChunk(c, blob)) return 0;
  ColumnChunk d;
  d.type = c.type;
  d.count = c.count;
  d.validity = c.validity;
  d.str_enc = c.str_enc;
  d.dict_size = c.dict_size;
  d.stats = c.stats;
  d.owner = c.owner;
  try {
    DecodeChunk(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), d);
  } catch (const DecodeError& e) {
    tcheck::Fail(__FILE__, __LINE__, std::string("chunk decode failed: ") + e.what());
    return blob.size();
  }
  Vector a(c.type), b(c.type);
  uint32_t bad = 0;
  for (uint32_t start = 0; start < c.count; start += kVectorSize) {
    uint32_t k = std::min<uint32_t>(kVectorSize, c.count - start);
    c.Read(start, k, a);
    d.Read(start, k, b);
    for (uint32_t i = 0; i < k; i++) {
      Value x = a.GetValue(i), y = b.GetValue(i);
      if (x.is_null() != y.is_null() || x.ToString() != y.ToString()) bad++;
    }
  }
  CHECK_EQ(bad, 0u);
  // NULL rows decode to zero values, as in chunks built in memory.
  if (c.validity && c.type.physical() != PhysType::Str)
    for (uint32_t i = 0; i < c.count; i++)
      if (!d.IsValid(i))
        for (int k = 0; k < c.type.width(); k++) CHECK_EQ((int)d.data[(size_t)i * c.type.width() + k], 0);
  return blob.size();
}

const char* const kWords[] = {"carefully", "final", "deposits", "detect", "slyly", "agai", "quickly",
                              "express", "requests", "haggle", "furiously", "regular", "ironic",
                              "accounts", "pending", "packages", "blithely", "bold", "theodolites"};

}  // namespace

TEST(chunks_of_every_type_round_trip) {
  std::mt19937_64 rng(11);
  const uint32_t n = 5000;
  CHECK(ChunkRoundTrip(*BuildChunk(Type::Integer(), n, [](uint32_t i) {
          return i % 9 == 0 ? Value::Null(Type::Integer()) : Value::Integer((int32_t)i * 3 - 7000);
        })) > 0);
  CHECK(ChunkRoundTrip(*BuildChunk(Type::BigInt(), n, [](uint32_t i) { return Value::BigInt((int64_t)i << 40); })) > 0);
  CHECK(ChunkRoundTrip(*BuildChunk(Type::Decimal(15, 2), n, [](uint32_t i) {
          return Value::Decimal((int128_t)(i % 50 + 1) * 100, 15, 2);
        })) > 0);
  // DECIMAL(38) stays plain.
  CHECK_EQ(ChunkRoundTrip(*BuildChunk(Type::Decimal(38, 2), n, [](uint32_t i) { return Value::Decimal(i, 38, 2); })),
           (size_t)0);
  CHECK(ChunkRoundTrip(*BuildChunk(Type::Double(), n, [](uint32_t i) {
          return i % 5 == 0 ? Value::Null(Type::Double()) : Value::Double((double)(i % 11) / 100);
        })) > 0);
  CHECK(ChunkRoundTrip(*BuildChunk(Type::Date(), n, [](uint32_t i) { return Value::Date(8000 + (int32_t)(i % 2500)); })) > 0);
  CHECK(ChunkRoundTrip(*BuildChunk(Type::Boolean(), n, [](uint32_t i) {
          return i % 3 == 0 ? Value::Null(Type::Boolean()) : Value::Boolean(i % 2 == 0);
        })) > 0);
  // Dictionary strings (few distinct), with NULLs.
  auto dict = BuildChunk(Type::Varchar(), n, [](uint32_t i) {
    static const char* modes[] = {"AIR", "MAIL", "RAIL", "SHIP", "TRUCK", ""};
    return i % 17 == 0 ? Value::Null(Type::Varchar()) : Value::Varchar(modes[i % 6]);
  });
  CHECK(dict->str_enc == StringEncoding::Dictionary);
  CHECK(ChunkRoundTrip(*dict) > 0);
  // Comment text: FSST at least halves the plain buffers.
  std::vector<std::string> comments(n);
  for (auto& s : comments) {
    int words = 3 + (int)(rng() % 8);
    for (int w = 0; w < words; w++) s += std::string(w ? " " : "") + kWords[rng() % std::size(kWords)];
  }
  auto text = BuildChunk(Type::Varchar(), n, [&](uint32_t i) {
    return i % 23 == 0 ? Value::Null(Type::Varchar()) : Value::Varchar(comments[i]);
  });
  CHECK(text->str_enc == StringEncoding::Plain);
  size_t plain = 0;
  for (uint32_t i = 0; i < n; i++) plain += 4 + (text->IsValid(i) ? comments[i].size() : 0);
  size_t enc = ChunkRoundTrip(*text);
  std::cout << "comments: plain " << plain << " bytes, encoded " << enc << "\n";
  CHECK(enc > 0 && enc * 2 < plain);
  // Random bytes: kept raw inside the encoding (or plain), and still round trip.
  auto noise = BuildChunk(Type::Varchar(), n, [&](uint32_t) {
    std::string s(1 + rng() % 30, '\0');
    for (auto& ch : s) ch = (char)('!' + rng() % 90);
    return Value::Varchar(s);
  });
  ChunkRoundTrip(*noise);
  // One row, all NULL.
  ChunkRoundTrip(*BuildChunk(Type::Integer(), 1, [](uint32_t) { return Value::Null(Type::Integer()); }));
  ChunkRoundTrip(*BuildChunk(Type::Varchar(), 1, [](uint32_t) { return Value::Varchar("x"); }));
}

TEST(corrupt_chunk_blobs_are_refused_not_crashing) {
  std::mt19937_64 rng(5);
  std::vector<std::string> comments(3000);
  for (auto& s : comments)
    for (int w = 0; w < 6; w++) s += std::string(w ? " " : "") + kWords[rng() % std::size(kWords)];
  auto text = BuildChunk(Type::Varchar(), 3000, [&](uint32_t i) { return Value::Varchar(comments[i]); });
  std::string blob;
  CHECK(EncodeChunk(*text, blob));
  for (int trial = 0; trial < 3000; trial++) {
    std::string t = blob;
    if (trial % 4 == 0) t.resize(rng() % t.size());
    for (int k = 0; k < 1 + trial % 3; k++) t[rng() % t.size()] ^= (char)(1 + rng() % 255);
    ColumnChunk d;
    d.type = text->type;
    d.count = text->count;
    d.str_enc = text->str_enc;
    try {
      DecodeChunk(reinterpret_cast<const uint8_t*>(t.data()), t.size(), d);
      // Decoded: offsets must be consistent with the bytes it produced.
      for (uint32_t i = 0; i < d.count; i++) CHECK(d.offsets[i] <= d.offsets[i + 1]);
    } catch (const DecodeError&) {
    }
  }
}

TEST(version_1_database_opens_answers_and_takes_new_row_groups) {
  const fs::path fixture = fs::path(TESSERA_SOURCE_DIR) / "test/fixtures/storage_v1";
  char tmpl[] = "/tmp/tessera_v1db_XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  for (auto& e : fs::directory_iterator(fixture))
    if (e.path().filename().string().rfind("rg-", 0) == 0 || e.path().filename() == "catalog.tsm")
      fs::copy_file(e.path(), dir / e.path().filename());
  const std::string totals =
      "SELECT count(*), sum(id), sum(big), sum(price), sum(huge), sum(dbl), min(day), max(day), count(flag), "
      "count(mode), max(note) FROM t";
  // What the version 1 build answered when it wrote the fixture (test/fixtures/README.md).
  const std::vector<std::string> want = {"3000",          "4498500",    "4090092028630644",
                                         "4393485.00",    "55537036537203699649504.498500",
                                         "2068270.5",     "1992-01-01", "2000-03-18",
                                         "2571",          "2823",       "note 9993778"};
  {
    Database db(dir.string());
    Connection c(db);
    auto rows = c.Query(totals).ToStrings();
    CHECK(rows.size() == 1 && rows[0] == want);
    CHECK(c.Query("SELECT k, s FROM small ORDER BY k").ToStrings() ==
          (std::vector<std::vector<std::string>>{{"1", "one"}, {"2", "NULL"}, {"3", "three"}}));
    CHECK_EQ(c.Query("SELECT n FROM v WHERE mode = 'MAIL'").ToStrings()[0][0], std::string("565"));
    // New rows go into a version 2 (encoded) file beside the version 1 files.
    c.Query("INSERT INTO t SELECT id + 3000, big, price, huge, dbl, day, flag, mode, note FROM t");
    c.Query("INSERT INTO small (k) VALUES (4)");
  }
  Database db(dir.string());
  Connection c(db);
  auto rows = c.Query("SELECT count(*), sum(id) - 3000 * 3000, count(mode), max(note) FROM t").ToStrings();
  CHECK(rows.size() == 1 &&
        rows[0] == (std::vector<std::string>{"6000", std::to_string(2 * 4498500), "5646", "note 9993778"}));
  CHECK_EQ(c.Query("SELECT s FROM small WHERE k = 4").ToStrings()[0][0], std::string("x"));
  int v1 = 0, v2 = 0;
  for (uint32_t version : RowGroupFileVersions(dir.string())) (version == 1 ? v1 : v2)++;
  CHECK(v1 >= 1 && v2 >= 1);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// An encoded fixed-width chunk of a database file decodes straight into a caller's buffer
// (the GPU upload's staging) without being loaded, the same values a load gives; once
// loaded, it says so and the caller reads its buffers.
TEST(encoded_chunks_decode_into_a_buffer_without_loading) {
  char tmpl[] = "/tmp/tessera_decode_into_XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  {
    Database db(dir.string());
    Connection c(db);
    c.Query("CREATE TABLE t (i INTEGER, b BIGINT, d DECIMAL(15,2), day DATE, x DOUBLE, s VARCHAR)");
    c.Query("INSERT INTO t SELECT r % 1000 - 500, r * 1000003, r % 777, DATE '1995-01-01' + CAST(r % 3000 AS INTEGER), "
            "r / 7.0, 'v' || (r % 10) FROM range(200000) t(r)");
  }
  Database db(dir.string());
  auto table = db.catalog().GetTable("t");
  CHECK(table != nullptr);
  int decoded = 0;
  for (auto& rg : table->data->row_groups) {
    for (int col = 0; col < 6; col++) {
      const ColumnChunk& ch = *rg->columns[col];
      const bool fixed = ch.type.physical() != PhysType::Str;
      CHECK_EQ(ch.CanDecodeInto(), fixed && !ch.Loaded());
      if (!ch.CanDecodeInto()) continue;
      std::vector<uint8_t> out((size_t)ch.count * ch.type.width());
      CHECK(ch.DecodeInto(out.data()));
      CHECK(!ch.Loaded());
      ch.EnsureVerified();
      CHECK(ch.Loaded() && !ch.CanDecodeInto() && !ch.DecodeInto(out.data()));
      CHECK(std::memcmp(out.data(), ch.data, out.size()) == 0);
      decoded++;
    }
  }
  CHECK(decoded >= 5);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// A database chunk's first scan streams (decoded into a pooled buffer, not kept); its next
// read loads it to keep. Both give the same values, NULL rows zero, and so do queries.
TEST(encoded_chunks_stream_on_first_read_then_load) {
  char tmpl[] = "/tmp/tessera_stream_XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const char* q = "SELECT count(i), sum(i), sum(b), sum(d), max(day), max(x), min(s), count(DISTINCT s) FROM t WHERE i > -400";  // no sum of DOUBLEs: its rounding depends on the order
  std::vector<std::vector<std::string>> expected;
  {
    Database db(dir.string());
    Connection c(db);
    c.Query("CREATE TABLE t (i INTEGER, b BIGINT, d DECIMAL(15,2), day DATE, x DOUBLE, s VARCHAR)");
    c.Query("INSERT INTO t SELECT CASE WHEN r % 5 = 0 THEN NULL ELSE r % 1000 - 500 END, r * 1000003, r % 777, "
            "DATE '1995-01-01' + CAST(r % 3000 AS INTEGER), r / 7.0, 'v' || (r % 10) FROM range(300000) t(r)");
    expected = c.Query(q).ToStrings();  // just written: its chunks are kept decoded
  }
  Database db(dir.string());
  auto table = db.catalog().GetTable("t");
  CHECK(table != nullptr);
  int streamed = 0;
  for (auto& rg : table->data->row_groups) {
    const ColumnChunk& ch = *rg->columns[0];
    ColumnChunk view;
    CHECK(!ch.Loaded());
    CHECK(ch.verifier->LoadTransient(view));
    CHECK(!ch.Loaded() && view.data && view.count == ch.count && view.owner);
    CHECK(!ch.verifier->LoadTransient(view));  // read before: the next read loads
    ch.EnsureVerified();
    CHECK(ch.Loaded());
    CHECK(std::memcmp(view.data, ch.data, (size_t)ch.count * 4) == 0);
    for (uint32_t r = 0; r < ch.count; r++)
      if (!ch.IsValid(r)) CHECK(reinterpret_cast<const int32_t*>(view.data)[r] == 0);
    // A VARCHAR chunk (dictionary-coded) streams too.
    const ColumnChunk& sc = *rg->columns[5];
    ColumnChunk sview;
    CHECK(sc.verifier->LoadTransient(sview));
    CHECK(!sc.Loaded() && sview.str_enc == sc.str_enc && sview.dict_size == sc.dict_size);
    sc.EnsureVerified();
    for (uint32_t r = 0; r < sc.count; r++) CHECK(sview.GetString(r) == sc.GetString(r));
    streamed++;
  }
  CHECK(streamed >= 2);
  Connection c(db);
  CHECK(c.Query(q).ToStrings() == expected);  // column 0 loaded, the others streamed
  CHECK(c.Query(q).ToStrings() == expected);  // all loaded
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// The GPU column cache's lane-packed layout, read back the way the kernels read it (tile
// library tsr_lane_load: a lane's words of its tile; tsr_lane_unpack: lanepack::Field per item).
TEST(gpu_packed_columns_read_back_exactly) {
  CHECK_EQ(lanepack::BytesFor(0), 0u);
  CHECK_EQ(lanepack::BytesFor(255), 1u);
  CHECK_EQ(lanepack::BytesFor(256), 2u);
  CHECK_EQ(lanepack::BytesFor((1ull << 24) - 1), 3u);
  CHECK_EQ(lanepack::BytesFor(UINT32_MAX), 4u);
  CHECK_EQ(lanepack::BytesFor(1ull << 32), 8u);  // not packed (the cache keeps it plain)
  std::mt19937_64 rng(9);
  const unsigned lanes = gpu::kBlockThreads, items = (unsigned)gpu::ItemsPerThread();
  const uint64_t T = gpu::TileRows();
  CHECK_EQ(T, (uint64_t)lanes * items);
  for (uint64_t n : {(uint64_t)1, T - 1, T, T + 1, (uint64_t)300000}) {
    for (int kind = 0; kind < 6; kind++) {
      std::vector<int64_t> v(n);
      for (uint64_t i = 0; i < n; i++) {
        switch (kind) {
          case 0: v[i] = 7; break;                                      // one value: 0 bytes
          case 1: v[i] = (int64_t)(rng() % 256) - 128; break;           // 1 byte, negative reference
          case 2: v[i] = (int64_t)(rng() % 50) * 100 - 2500; break;     // 2 bytes
          case 3: v[i] = 19920101 + (int64_t)(i / 3) + (i + 1 == n ? 1 << 23 : 0); break;  // sorted, 3 bytes
          case 4: v[i] = -5000000000ll + (int64_t)(rng() % (1ull << 32)); break;  // 4 bytes (a 64-bit column)
          default: v[i] = i % 2 ? 100 : 100 + 0xffffff; break;          // the ends of 3 bytes
        }
      }
      const int64_t lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
      const unsigned bytes = lanepack::BytesFor((uint64_t)hi - (uint64_t)lo);
      CHECK(bytes <= 4);
      const gpu::PackedColumn packed = gpu::PackColumn(n, (int)bytes, lo, [&](uint64_t row, uint32_t cnt, int64_t* out) {
        std::copy(v.begin() + (long)row, v.begin() + (long)(row + cnt), out);
      });
      CHECK_EQ(packed.size, gpu::LanePackedBytes(n, (int)bytes));
      const uint64_t tiles = (n + T - 1) / T;
      const unsigned L = lanepack::LaneWords(items, bytes);
      CHECK_EQ(packed.size, tiles * L * lanes * 4);
      const uint32_t* col = reinterpret_cast<const uint32_t*>(packed.bytes.get());
      uint64_t bad = 0;
      std::vector<unsigned> w(L + 1);
      for (uint64_t j = 0; j < tiles; j++) {
        for (unsigned t = 0; t < lanes; t++) {
          for (unsigned r = 0; r < L; r++) w[r] = col[lanepack::WordIndex(j, r, t, lanes, L)];
          w[L] = 0xdeadbeef;  // the kernels' spare word: never part of a field
          for (unsigned i = 0; i < items; i++) {
            const uint64_t row = j * T + (uint64_t)i * lanes + t;
            const int64_t got = (int64_t)((uint64_t)lo + lanepack::Field(w.data(), i, bytes));
            if (row < n ? got != v[row] : got != lo) bad++;
          }
        }
      }
      CHECK_EQ(bad, 0ull);
    }
  }
}

TEST(decoded_chunk_memory_is_aligned_disjoint_and_kept_while_held) {
  using tessera::storage::AllocateDecoded;
  // Small blocks share regions; each is 64-byte aligned, writable, and apart from the others.
  std::vector<std::shared_ptr<uint8_t>> blocks;
  std::vector<size_t> sizes;
  for (size_t i = 0; i < 600; i++) {  // more than one 64 MiB region's worth
    const size_t n = (i % 7) * 100000 + 1 + i;
    blocks.push_back(AllocateDecoded(n));
    sizes.push_back(n);
    CHECK(reinterpret_cast<uintptr_t>(blocks.back().get()) % 64 == 0);
    std::memset(blocks.back().get(), (int)(i & 255), n);
  }
  std::vector<std::pair<uintptr_t, uintptr_t>> spans;
  for (size_t i = 0; i < blocks.size(); i++)
    spans.push_back({reinterpret_cast<uintptr_t>(blocks[i].get()), reinterpret_cast<uintptr_t>(blocks[i].get()) + sizes[i]});
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); i++) CHECK(spans[i - 1].second <= spans[i].first);
  // Dropping every other block leaves the others' contents as written.
  for (size_t i = 0; i < blocks.size(); i += 2) blocks[i].reset();
  for (size_t i = 1; i < blocks.size(); i += 2) {
    const uint8_t* p = blocks[i].get();
    CHECK(p[0] == (uint8_t)(i & 255) && p[sizes[i] - 1] == (uint8_t)(i & 255));
  }
  // A large block (its own region) and an empty one.
  auto big = AllocateDecoded(40u << 20);
  CHECK(reinterpret_cast<uintptr_t>(big.get()) % 64 == 0);
  big.get()[(40u << 20) - 1] = 7;
  CHECK(AllocateDecoded(0) != nullptr);
}

TEST_MAIN()
