// Generator building blocks: row-table production, progress, and the two drivers
// (row groups for a Catalog, dbgen-format .tbl files).
#include "gen/gen_core.hpp"

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/date.hpp"
#include "common/parallel.hpp"

namespace tessera::gen {

char* Arena::Take(size_t n) {
  TESSERA_ASSERT(pos_ + n <= kCap, "generator arena overflow");
  char* p = buf_.get() + pos_;
  pos_ += n;
  return p;
}

void RowTableProducer::Produce(uint64_t t, DataChunk& chunk, Arena& arena,
                               const ChunkSink& sink) const {
  uint64_t begin = t * kRowGroupSize, end = begin + TaskRows(t);
  for (uint64_t r = begin; r < end;) {
    uint32_t n = (uint32_t)std::min<uint64_t>(kVectorSize, end - r);
    arena.Reset();
    for (uint32_t i = 0; i < n; i++) FillRow(r + i, chunk, i, arena);
    chunk.size = n;
    sink(chunk);
    r += n;
  }
}

Progress::Progress(std::function<void(const std::string&)> fn, std::string prefix,
                   std::string table, uint64_t rows, uint64_t tasks)
    : fn_(std::move(fn)), prefix_(std::move(prefix)), table_(std::move(table)), tasks_(tasks) {
  if (fn_) fn_(prefix_ + ": generating " + table_ + " (" + std::to_string(rows) + " rows)");
}

void Progress::TaskDone() {
  if (!fn_) return;
  std::lock_guard<std::mutex> g(mu_);
  uint64_t d = ++done_;
  int pct = (int)(d * 100 / tasks_);
  if (d < tasks_ && pct / 5 > last_ / 5 && tasks_ >= 8) {
    last_ = pct;
    fn_(prefix_ + ": " + table_ + " " + std::to_string(pct) + "%");
  }
}

std::vector<std::shared_ptr<const RowGroup>> BuildRowGroups(const TableProducer& p,
                                                            const DriverOptions& opt) {
  std::vector<Type> types = p.schema().types();
  std::vector<std::vector<std::shared_ptr<const RowGroup>>> per(p.tasks());
  Progress prog(opt.progress, opt.prefix, p.schema().name, p.rows(), p.tasks());
  ParallelFor(p.tasks(), opt.threads, [&](uint64_t t, unsigned) {
    DataChunk chunk;
    chunk.Init(types);
    Arena arena;
    RowGroupWriter w(types);
    p.Produce(t, chunk, arena, [&](DataChunk& c) { w.Append(c); });
    per[t] = w.Finish();
    prog.TaskDone();
  });
  std::vector<std::shared_ptr<const RowGroup>> all;
  for (auto& v : per)
    for (auto& g : v) all.push_back(std::move(g));
  return all;
}

namespace {

inline char* PutInt(char* p, int64_t x) {
  uint64_t u = (uint64_t)x;
  if (x < 0) {
    *p++ = '-';
    u = 0 - u;
  }
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = char('0' + u % 10);
    u /= 10;
  } while (u);
  while (n) *p++ = tmp[--n];
  return p;
}

inline char* PutDecimal(char* p, int64_t x, int scale) {
  uint64_t u = (uint64_t)x;
  if (x < 0) {
    *p++ = '-';
    u = 0 - u;
  }
  uint64_t div = 1;
  for (int i = 0; i < scale; i++) div *= 10;
  p = PutInt(p, (int64_t)(u / div));
  if (scale > 0) {
    *p++ = '.';
    PutDigits(p, u % div, scale);
    p += scale;
  }
  return p;
}

inline char* PutDate(char* p, int32_t days) {
  int y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  PutDigits(p, (uint64_t)y, 4);
  p[4] = '-';
  PutDigits(p + 5, m, 2);
  p[7] = '-';
  PutDigits(p + 8, d, 2);
  return p + 10;
}

}  // namespace

void FormatTblChunk(const DataChunk& c, std::string& out) {
  size_t bound = (size_t)c.size * (c.cols.size() * 24 + 1);
  for (auto& v : c.cols)
    if (v.type().physical() == PhysType::Str)
      for (uint32_t i = 0; i < c.size; i++) bound += v.data<StrRef>()[i].size();
  size_t old = out.size();
  out.resize(old + bound);
  char* p = out.data() + old;
  for (uint32_t i = 0; i < c.size; i++) {
    for (auto& v : c.cols) {
      const Type& t = v.type();
      switch (t.id) {
        case TypeId::Varchar: {
          StrRef s = v.data<StrRef>()[i];
          std::memcpy(p, s.data(), s.size());
          p += s.size();
          break;
        }
        case TypeId::Integer: p = PutInt(p, v.data<int32_t>()[i]); break;
        case TypeId::BigInt: p = PutInt(p, v.data<int64_t>()[i]); break;
        case TypeId::Date: p = PutDate(p, v.data<int32_t>()[i]); break;
        case TypeId::Decimal:
          TESSERA_ASSERT(t.physical() == PhysType::I64, "generator decimals are 64-bit");
          p = PutDecimal(p, v.data<int64_t>()[i], t.scale);
          break;
        default: TESSERA_ASSERT(false, "generator column type not supported in .tbl output");
      }
      *p++ = '|';
    }
    *p++ = '\n';
  }
  out.resize((size_t)(p - out.data()));
}

void WriteTblFile(const TableProducer& p, const std::string& dir, const DriverOptions& opt) {
  std::string path = dir + "/" + p.schema().name + ".tbl";
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    throw UserError(ErrorKind::IO, "cannot create " + tmp + ": " + std::strerror(errno));
  std::vector<Type> types = p.schema().types();
  Progress prog(opt.progress, opt.prefix, p.schema().name, p.rows(), p.tasks());
  std::mutex mu;
  std::condition_variable cv;
  uint64_t next = 0;
  bool failed = false;
  try {
    ParallelFor(p.tasks(), opt.threads, [&](uint64_t t, unsigned) {
      std::string buf;
      try {
        DataChunk chunk;
        chunk.Init(types);
        Arena arena;
        buf.reserve(p.TaskRows(t) * 128);
        p.Produce(t, chunk, arena, [&](DataChunk& c) { FormatTblChunk(c, buf); });
      } catch (...) {
        std::lock_guard<std::mutex> g(mu);
        failed = true;
        cv.notify_all();
        throw;
      }
      // Tasks are handed out in increasing order, so the predecessor is in flight.
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return next == t || failed; });
      if (failed) return;  // another task failed; its error is rethrown
      if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
        failed = true;
        cv.notify_all();
        throw UserError(ErrorKind::IO, "cannot write " + tmp + ": " + std::strerror(errno));
      }
      next++;
      cv.notify_all();
      lk.unlock();
      prog.TaskDone();
    });
  } catch (...) {
    std::fclose(f);
    std::remove(tmp.c_str());
    throw;
  }
  if (std::fclose(f) != 0) {
    std::remove(tmp.c_str());
    throw UserError(ErrorKind::IO, "cannot write " + tmp + ": " + std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw UserError(ErrorKind::IO, "cannot rename " + tmp + " to " + path + ": " + ec.message());
  }
}

std::string CreateTableSql(const TableSchema& s) {
  std::string sql = "CREATE TABLE " + s.name + " (";
  for (size_t i = 0; i < s.columns.size(); i++) {
    if (i) sql += ", ";
    sql += s.columns[i].name + " " + s.columns[i].type.ToString();
    if (s.columns[i].not_null) sql += " NOT NULL";
  }
  return sql + ");";
}

}  // namespace tessera::gen
