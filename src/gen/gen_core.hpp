// Building blocks of the benchmark generators (used by tpch_gen.cpp): counter-based
// random streams, a per-chunk string arena, the TableProducer interface (a table cut into
// fixed, thread-independent tasks of kRowGroupSize rows that fill DataChunks), and the
// two drivers: row groups for a Catalog, or a dbgen-format .tbl file.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/vector.hpp"
#include "storage/catalog.hpp"
#include "storage/row_group.hpp"

namespace tessera::gen {

inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// splitmix64 stream for one (seed, table, key): no state is shared between keys, so rows
// can be generated in any order, on any thread, with the same result.
struct Rng {
  uint64_t s;
  Rng(uint64_t seed, uint64_t table, uint64_t key) {
    s = Mix64(Mix64(seed * 0x9e3779b97f4a7c15ULL + table * 0x632be59bd9b4e019ULL + 0x1234567ULL) ^
              (key * 0xd1b54a32d192ed03ULL));
  }
  uint64_t Next() {
    s += 0x9e3779b97f4a7c15ULL;
    return Mix64(s);
  }
  // Uniform in [0, n) (multiply-high; bias below 2^-40 for the ranges used here).
  uint64_t Below(uint64_t n) { return (uint64_t)(((unsigned __int128)Next() * n) >> 64); }
  int64_t Range(int64_t lo, int64_t hi) { return lo + (int64_t)Below((uint64_t)(hi - lo + 1)); }
};

// Bytes for the strings of one chunk (reset before each chunk is filled).
class Arena {
 public:
  Arena() : buf_(new char[kCap]) {}
  char* Take(size_t n);
  void Reset() { pos_ = 0; }

 private:
  static constexpr size_t kCap = 1 << 20;  // > kVectorSize rows x ~400 bytes
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0;
};

using ChunkSink = std::function<void(DataChunk&)>;

class TableProducer {
 public:
  explicit TableProducer(TableSchema s) : schema_(std::move(s)) {}
  virtual ~TableProducer() = default;
  const TableSchema& schema() const { return schema_; }
  uint64_t rows() const { return rows_; }
  uint64_t tasks() const { return (rows_ + kRowGroupSize - 1) / kRowGroupSize; }
  // Rows of task t: [t * kRowGroupSize, min(rows, (t+1) * kRowGroupSize)).
  uint64_t TaskRows(uint64_t t) const {
    return std::min<uint64_t>(rows_, (t + 1) * kRowGroupSize) - t * kRowGroupSize;
  }
  // Produces task t's rows in order as chunks of up to kVectorSize rows.
  virtual void Produce(uint64_t t, DataChunk& chunk, Arena& arena, const ChunkSink& sink) const = 0;

 protected:
  TableSchema schema_;
  uint64_t rows_ = 0;
};

// Tables whose row r (0-based) is made on its own by FillRow.
class RowTableProducer : public TableProducer {
 public:
  using TableProducer::TableProducer;
  void Produce(uint64_t t, DataChunk& chunk, Arena& arena, const ChunkSink& sink) const override;

 protected:
  virtual void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena& arena) const = 0;
};

inline int32_t* I32Col(DataChunk& c, int col) { return c.cols[col].data<int32_t>(); }
inline int64_t* I64Col(DataChunk& c, int col) { return c.cols[col].data<int64_t>(); }
inline StrRef* StrCol(DataChunk& c, int col) { return c.cols[col].data<StrRef>(); }

// Writes `v` as exactly `digits` decimal digits (zero padded) at p.
inline void PutDigits(char* p, uint64_t v, int digits) {
  for (int i = digits - 1; i >= 0; i--) {
    p[i] = char('0' + v % 10);
    v /= 10;
  }
}

// Phone number of TPC-H clause 4.2.2.9 (SSB uses it too): country code (nation key +
// 10), then 3, 3 and 4 random digits, dash-separated.
inline StrRef Phone(Arena& a, Rng& r, int nation) {
  char* p = a.Take(15);
  PutDigits(p, (uint64_t)(nation + 10), 2);
  p[2] = '-';
  PutDigits(p + 3, (uint64_t)r.Range(100, 999), 3);
  p[6] = '-';
  PutDigits(p + 7, (uint64_t)r.Range(100, 999), 3);
  p[10] = '-';
  PutDigits(p + 11, (uint64_t)r.Range(1000, 9999), 4);
  return {p, 15};
}

// Progress lines "<bench>: generating <table> (N rows)" and every ~5% of a large table.
class Progress {
 public:
  Progress(std::function<void(const std::string&)> fn, std::string prefix, std::string table,
           uint64_t rows, uint64_t tasks);
  void TaskDone();

 private:
  std::function<void(const std::string&)> fn_;
  std::string prefix_, table_;
  uint64_t tasks_;
  uint64_t done_ = 0;
  int last_ = 0;
  std::mutex mu_;
};

struct DriverOptions {
  unsigned threads = 0;
  std::string prefix;  // "tpch"
  std::function<void(const std::string&)> progress;
};

// All of a producer's rows as row groups (task order, so the order is thread-independent).
std::vector<std::shared_ptr<const RowGroup>> BuildRowGroups(const TableProducer& p,
                                                            const DriverOptions& opt);

// Appends the chunk's rows as dbgen text: every field followed by '|', rows end in '\n'.
// INTEGER/BIGINT as integers, DATE as yyyy-mm-dd, DECIMAL with its scale, VARCHAR as is.
void FormatTblChunk(const DataChunk& c, std::string& out);

// Writes dir/<table>.tbl (through <table>.tbl.tmp, renamed when complete).
void WriteTblFile(const TableProducer& p, const std::string& dir, const DriverOptions& opt);

// "CREATE TABLE name (col TYPE, ...);"
std::string CreateTableSql(const TableSchema& schema);

}  // namespace tessera::gen
