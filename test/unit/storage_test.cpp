// Disk storage (manifest, row-group files, commit protocol, lazy verification, lock) and
// the CSV/.tbl loader.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#ifdef TESSERA_HAVE_ZSTD
#include <zstd.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "check.hpp"
#include "temp_dir.hpp"
#include "common/decimal.hpp"
#include "storage/csv_reader.hpp"
#include "storage/csv_sniffer.hpp"
#include "storage/disk_backend.hpp"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << data;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void FlipByte(const std::string& path, size_t offset) {
  std::string d = ReadFile(path);
  if (offset >= d.size()) throw std::runtime_error("flip offset past the end of " + path);
  d[offset] ^= 0x5a;
  WriteFile(path, d);
}

std::vector<std::string> FilesIn(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> r;
  for (auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      r.push_back(n);
  }
  std::sort(r.begin(), r.end());
  return r;
}

// ---- A table with every type, NULLs, a dictionary and a plain string column.

TableSchema AllTypesSchema(const std::string& name = "t") {
  TableSchema s;
  s.name = name;
  s.columns = {{"flag", Type::Boolean()},        {"i", Type::Integer(), true},
               {"big", Type::BigInt()},          {"price", Type::Decimal(15, 2)},
               {"huge", Type::Decimal(38, 6)},   {"dbl", Type::Double()},
               {"day", Type::Date()},            {"mode", Type::Varchar()},
               {"name", Type::Varchar()},        {"nothing", Type::Integer()},
               {"at", Type::Timestamp()},        {"clock", Type::Time()}};
  return s;
}

Value Expected(size_t col, uint64_t i) {
  static const char* modes[] = {"AIR", "MAIL", "RAIL", "SHIP", "TRUCK", ""};
  switch (col) {
    case 0: return i % 7 == 0 ? Value::Null(Type::Boolean()) : Value::Boolean(i % 2 == 0);
    case 1: return Value::Integer((int32_t)(i * 3) - 100000);
    case 2: return i % 11 == 0 ? Value::Null(Type::BigInt()) : Value::BigInt((int64_t)i * 1000000007LL);
    case 3: return Value::Decimal((int128_t)i * 101 - 5000, 15, 2);
    case 4: return Value::Decimal((int128_t)i * Pow10(30) + (int128_t)i, 38, 6);
    case 5: return i % 13 == 0 ? Value::Null(Type::Double()) : Value::Double((double)i * 0.5 - 3);
    case 6: return Value::Date(8000 + (int32_t)(i % 3000));
    case 7: return i % 17 == 0 ? Value::Null(Type::Varchar()) : Value::Varchar(modes[i % 6]);
    case 8: return Value::Varchar("name#" + std::to_string(i * 7919));
    case 10:  // microseconds around 1970, before it too (negative)
      return i % 5 == 0 ? Value::Null(Type::Timestamp()) : Value::Timestamp((int64_t)i * 3600000123LL - 86400000000LL);
    case 11: return Value::Time((int64_t)(i * 1000003) % 86400000000LL);
    default: return Value::Null(Type::Integer());
  }
}

std::vector<std::shared_ptr<const RowGroup>> BuildGroups(const TableSchema& s, uint64_t first,
                                                         uint64_t rows) {
  RowGroupWriter w(s.types());
  DataChunk chunk;
  uint64_t i = first;
  while (i < first + rows) {
    chunk.Init(s.types());
    uint32_t n = (uint32_t)std::min<uint64_t>(kVectorSize, first + rows - i);
    for (uint32_t r = 0; r < n; r++)
      for (size_t c = 0; c < s.columns.size(); c++) chunk.cols[c].SetValue(r, Expected(c, i + r));
    chunk.size = n;
    w.Append(chunk);
    i += n;
  }
  return w.Finish();
}

// Compares every value of a table with Expected(col, first + row); returns mismatches.
uint64_t CountMismatches(const TableEntry& t, uint64_t first = 0) {
  uint64_t bad = 0, row = first;
  for (auto& rg : t.data->row_groups) {
    for (size_t c = 0; c < rg->columns.size(); c++) {
      const ColumnChunk& ch = *rg->columns[c];
      Vector v(ch.type);
      for (uint32_t start = 0; start < ch.count; start += kVectorSize) {
        uint32_t n = std::min<uint32_t>(kVectorSize, ch.count - start);
        ch.Read(start, n, v);
        for (uint32_t k = 0; k < n; k++) {
          Value got = v.GetValue(k), want = Expected(c, row + start + k);
          if (got.is_null() != want.is_null() || got.ToString() != want.ToString()) {
            if (bad++ < 3)
              std::cerr << "  mismatch col " << c << " row " << row + start + k << ": got "
                        << got.ToString() << " want " << want.ToString() << "\n";
          }
        }
      }
    }
    row += rg->count;
  }
  return bad;
}

std::string StatsString(const ColumnChunk& c) {
  std::string s = c.stats.has_stats ? c.stats.min.ToString() + ".." + c.stats.max.ToString() : "-";
  return s + " nulls=" + std::to_string(c.stats.null_count) + " enc=" +
         std::to_string((int)c.str_enc) + " dict=" + std::to_string(c.dict_size) +
         " validity=" + std::to_string(c.validity != nullptr);
}

std::vector<std::string> AllStats(const TableEntry& t) {
  std::vector<std::string> r;
  for (auto& rg : t.data->row_groups)
    for (auto& c : rg->columns) r.push_back(StatsString(*c));
  return r;
}

std::unique_ptr<Catalog> OpenDb(const std::string& dir) {
  return std::make_unique<Catalog>(OpenDiskBackend(dir));
}

}  // namespace

TEST(crc32c_known_values) {
  CHECK_EQ(Crc32c("123456789", 9), 0xE3069283u);
  CHECK_EQ(Crc32c("", 0), 0u);
  // Incremental == one shot, for every split point and misaligned starts.
  std::string s;
  for (int i = 0; i < 300; i++) s.push_back((char)(i * 37 + 11));
  uint32_t whole = Crc32c(s.data(), s.size());
  for (size_t k = 0; k <= s.size(); k += 7)
    CHECK_EQ(Crc32c(s.data() + k, s.size() - k, Crc32c(s.data(), k)), whole);
}

TEST(round_trip_all_types) {
  TempDir dir;
  const uint64_t rows = 2 * (uint64_t)kRowGroupSize + 37856;
  std::vector<std::string> stats_before;
  {
    auto cat = OpenDb(dir.path);
    CHECK_EQ(cat->Describe(), "database at " + dir.path + " (0 tables)");
    cat->CreateTable(AllTypesSchema());
    cat->Append("t", BuildGroups(AllTypesSchema(), 0, rows));
    auto t = cat->GetTable("t");
    CHECK_EQ(t->data->row_count, rows);
    CHECK_EQ(t->data->row_groups.size(), (size_t)3);
    for (auto& rg : t->data->row_groups) CHECK(!rg->file_id.empty());
    // Encodings chosen by the builder survive: dictionary for mode, plain for name.
    CHECK(t->data->row_groups[0]->columns[7]->str_enc == StringEncoding::Dictionary);
    CHECK(t->data->row_groups[0]->columns[8]->str_enc == StringEncoding::Plain);
    CHECK(!t->data->row_groups[0]->columns[9]->stats.has_stats);
    CHECK_EQ(CountMismatches(*t), 0u);
    stats_before = AllStats(*t);
    CHECK_EQ(FilesIn(dir.path, ".trg").size(), (size_t)3);
    CHECK_EQ(cat->Describe(), "database at " + dir.path + " (1 table)");
  }
  auto cat = OpenDb(dir.path);
  auto t = cat->GetTable("t");
  CHECK(t != nullptr);
  if (!t) return;
  TableSchema want = AllTypesSchema();
  CHECK_EQ(t->schema.columns.size(), want.columns.size());
  for (size_t c = 0; c < want.columns.size(); c++) {
    CHECK_EQ(t->schema.columns[c].name, want.columns[c].name);
    CHECK(t->schema.columns[c].type == want.columns[c].type);
    CHECK_EQ(t->schema.columns[c].not_null, want.columns[c].not_null);
  }
  CHECK_EQ(t->data->row_count, rows);
  CHECK_EQ(t->data->row_groups[2]->count, 37856u);
  // Statistics come from the files, before any data is read.
  CHECK(AllStats(*t) == stats_before);
  CHECK_EQ(t->data->row_groups[0]->columns[3]->stats.min.ToString(), "-50.00");
  CHECK_EQ(t->data->row_groups[0]->columns[7]->stats.max.ToString(), "TRUCK");
  CHECK_EQ(CountMismatches(*t), 0u);
  CHECK_EQ(cat->Describe(), "database at " + dir.path + " (1 table)");

  // Append more, reopen again: old files are reused, new ones added.
  cat->Append("t", BuildGroups(AllTypesSchema(), rows, 1000));
  CHECK_EQ(FilesIn(dir.path, ".trg").size(), (size_t)4);
  cat.reset();
  cat = OpenDb(dir.path);
  CHECK_EQ(cat->GetTable("t")->data->row_count, rows + 1000);
  CHECK_EQ(CountMismatches(*cat->GetTable("t")), 0u);
}

TEST(concurrent_first_reads_verify_once) {
  TempDir dir;
  {
    auto cat = OpenDb(dir.path);
    cat->CreateTable(AllTypesSchema());
    cat->Append("t", BuildGroups(AllTypesSchema(), 0, 20000));
  }
  auto cat = OpenDb(dir.path);
  auto t = cat->GetTable("t");
  std::atomic<uint64_t> bad{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; k++)
    threads.emplace_back([&] { bad += CountMismatches(*t); });
  for (auto& th : threads) th.join();
  CHECK_EQ(bad.load(), 0u);
}

TEST(empty_table_and_drop_reopen) {
  TempDir dir;
  {
    auto cat = OpenDb(dir.path);
    cat->CreateTable(AllTypesSchema("a"));
    cat->CreateTable(AllTypesSchema("b"));
    cat->CreateTable(AllTypesSchema("empty"));
    cat->Append("a", BuildGroups(AllTypesSchema(), 0, 5000));
    cat->Append("b", BuildGroups(AllTypesSchema(), 0, 7000));
    CHECK_EQ(FilesIn(dir.path, ".trg").size(), (size_t)2);
  }
  {
    auto cat = OpenDb(dir.path);
    CHECK_EQ(cat->TableNames().size(), (size_t)3);
    CHECK_EQ(cat->GetTable("empty")->data->row_count, 0u);
    CHECK(cat->DropTable("a"));
    CHECK_EQ(FilesIn(dir.path, ".trg").size(), (size_t)1);  // a's file deleted
  }
  auto cat = OpenDb(dir.path);
  CHECK(cat->GetTable("a") == nullptr);
  CHECK_EQ(cat->GetTable("b")->data->row_count, 7000u);
  CHECK_EQ(CountMismatches(*cat->GetTable("b")), 0u);
  CHECK_EQ(cat->Describe(), "database at " + dir.path + " (2 tables)");
}

TEST(views_survive_reopen_and_drop) {
  TempDir dir;
  {
    auto cat = OpenDb(dir.path);
    cat->CreateTable(AllTypesSchema("t"));
    cat->Append("t", BuildGroups(AllTypesSchema(), 0, 100));
    cat->CreateView("v", "SELECT * FROM t", {"x", "y"}, false);
    CHECK_THROWS(cat->CreateView("v", "SELECT 1", {}, false));
    CHECK_THROWS(cat->CreateView("t", "SELECT 1", {}, true));
    CHECK_THROWS(cat->DropTable("v"));
    CHECK_THROWS(cat->DropView("t"));
    CHECK(cat->GetTable("v") == nullptr);
  }
  {
    auto cat = OpenDb(dir.path);
    auto v = cat->GetEntry("v");
    CHECK(v != nullptr && v->is_view());
    CHECK_EQ(v->view_sql, std::string("SELECT * FROM t"));
    CHECK_EQ(v->view_columns.size(), (size_t)2);
    CHECK_EQ(v->view_columns[1], std::string("y"));
    CHECK_EQ(cat->GetTable("t")->data->row_count, 100u);
    cat->CreateView("v", "SELECT 2", {}, true);
  }
  {
    auto cat = OpenDb(dir.path);
    CHECK_EQ(cat->GetEntry("v")->view_sql, std::string("SELECT 2"));
    CHECK(cat->DropView("v"));
    CHECK(!cat->DropView("v", true));
  }
  auto cat = OpenDb(dir.path);
  CHECK(cat->GetEntry("v") == nullptr);
  CHECK_EQ(CountMismatches(*cat->GetTable("t")), 0u);
}

TEST(leftover_temp_and_orphan_files_are_ignored_and_cleaned) {
  TempDir dir;
  {
    auto cat = OpenDb(dir.path);
    cat->CreateTable(AllTypesSchema());
    cat->Append("t", BuildGroups(AllTypesSchema(), 0, 3000));
  }
  WriteFile(dir / "catalog.tsm.tmp", "half a manifest");
  WriteFile(dir / "rg-00000077.trg.tmp", "half a row group");
  WriteFile(dir / "rg-00000078.trg", "an orphan from a crashed commit");
  WriteFile(dir / "notes.txt", "not ours");
  {
    auto cat = OpenDb(dir.path);
    CHECK_EQ(cat->GetTable("t")->data->row_count, 3000u);
    CHECK_EQ(CountMismatches(*cat->GetTable("t")), 0u);
    CHECK(!fs::exists(dir / "catalog.tsm.tmp"));
    CHECK(!fs::exists(dir / "rg-00000077.trg.tmp"));
    CHECK(!fs::exists(dir / "rg-00000078.trg"));
    CHECK(fs::exists(dir / "notes.txt"));
    // New files get ids past the orphan's.
    cat->Append("t", BuildGroups(AllTypesSchema(), 3000, 10));
  }
  auto cat = OpenDb(dir.path);
  CHECK_EQ(CountMismatches(*cat->GetTable("t")), 0u);
}

TEST(manifest_rename_not_done_keeps_old_state) {
  // Hand-made crash: the new row-group files and the new manifest (as a temp file) exist,
  // but the rename never happened.
  TempDir dir;
  {
    auto cat = OpenDb(dir.path);
    cat->CreateTable(AllTypesSchema());
    cat->Append("t", BuildGroups(AllTypesSchema(), 0, 2000));
  }
  std::string old_manifest = ReadFile(dir / "catalog.tsm");
  {
    auto cat = OpenDb(dir.path);
    cat->Append("t", BuildGroups(AllTypesSchema(), 2000, 2000));
  }
  fs::rename(dir / "catalog.tsm", dir / "catalog.tsm.tmp");
  WriteFile(dir / "catalog.tsm", old_manifest);
  auto cat = OpenDb(dir.path);
  CHECK_EQ(cat->GetTable("t")->data->row_count, 2000u);
  CHECK_EQ(CountMismatches(*cat->GetTable("t")), 0u);
  CHECK_EQ(FilesIn(dir.path, ".trg").size(), (size_t)1);
  CHECK(FilesIn(dir.path, ".tmp").empty());
}

TEST(crash_at_every_commit_point) {
  for (int point = 1; point <= 6; point++) {
    TempDir dir;
    {
      auto cat = OpenDb(dir.path);
      cat->CreateTable(AllTypesSchema());
      cat->Append("t", BuildGroups(AllTypesSchema(), 0, 1500));
      cat->CreateTable(AllTypesSchema("other"));
      cat->Append("other", BuildGroups(AllTypesSchema(), 0, 10));
      storage_testing::SetCommitCrashPoint(point);
      bool crashed = false;
      try {
        if (point == 6) cat->DropTable("other");  // point 6 needs a file to delete
        else cat->Append("t", BuildGroups(AllTypesSchema(), 1500, 140000));
      } catch (const storage_testing::SimulatedCrash& c) {
        crashed = c.point == point;
      }
      storage_testing::SetCommitCrashPoint(0);
      CHECK(crashed);
    }
    auto cat = OpenDb(dir.path);
    auto t = cat->GetTable("t");
    bool committed = point >= 4;
    uint64_t want_rows = committed && point != 6 ? 141500 : 1500;
    CHECK_EQ(t->data->row_count, want_rows);
    CHECK_EQ(CountMismatches(*t), 0u);
    CHECK_EQ(cat->GetTable("other") == nullptr, point == 6);
    CHECK(FilesIn(dir.path, ".tmp").empty());
    size_t groups = t->data->row_groups.size();
    if (auto o = cat->GetTable("other")) groups += o->data->row_groups.size();
    CHECK_EQ(FilesIn(dir.path, ".trg").size(), groups);
  }
}

TEST(corrupt_row_group_data_fails_on_read) {
  TempDir dir;
  TableSchema s;
  s.name = "c";
  s.columns = {{"a", Type::Integer()}, {"b", Type::Varchar()}};
  {
    auto cat = OpenDb(dir.path);
    cat->CreateTable(s);
    RowGroupWriter w(s.types());
    DataChunk ch;
    ch.Init(s.types());
    for (uint32_t i = 0; i < 1000; i++) {
      ch.cols[0].SetValue(i, Value::Integer((int32_t)i));
      ch.cols[1].SetValue(i, Value::Varchar("v" + std::to_string(i)));
    }
    ch.size = 1000;
    w.Append(ch);
    cat->Append("c", w.Finish());
    cat->CreateTable(AllTypesSchema());
    cat->Append("t", BuildGroups(AllTypesSchema(), 0, 100));
  }
  auto t_file = [&] {
    auto cat = OpenDb(dir.path);
    return cat->GetTable("c")->data->row_groups[0]->file_id;
  }();
  FlipByte(dir / t_file, 64 + 4 * 10);  // inside column a's data buffer
  auto cat = OpenDb(dir.path);  // opening is fine: verification is lazy
  auto c = cat->GetTable("c");
  const ColumnChunk& a = *c->data->row_groups[0]->columns[0];
  const ColumnChunk& b = *c->data->row_groups[0]->columns[1];
  CHECK_EQ(a.stats.max.ToString(), "999");  // statistics are still there
  Vector v(Type::Integer());
  CHECK_THROWS_WITH(a.Read(0, 10, v), "checksum mismatch");
  CHECK_THROWS_WITH(a.Read(0, 10, v), t_file);
  CHECK_THROWS_WITH(a.Read(0, 10, v), "column 1 (a) of table c");
  try {
    a.EnsureVerified();
  } catch (const UserError& e) {
    CHECK(e.kind() == ErrorKind::IO);
  }
  Vector vb(Type::Varchar());
  b.Read(0, 10, vb);  // the other column is intact
  CHECK_EQ(vb.GetValue(3).ToString(), "v3");
  CHECK_EQ(CountMismatches(*cat->GetTable("t")), 0u);
}

TEST(corrupt_row_group_header_and_missing_file) {
  TempDir dir;
  {
    auto cat = OpenDb(dir.path);
    cat->CreateTable(AllTypesSchema("x"));
    cat->Append("x", BuildGroups(AllTypesSchema(), 0, 100));
    cat->CreateTable(AllTypesSchema("y"));
    cat->Append("y", BuildGroups(AllTypesSchema(), 0, 100));
    cat->CreateTable(AllTypesSchema("z"));
    cat->Append("z", BuildGroups(AllTypesSchema(), 0, 100));
  }
  std::string xf, yf;
  {
    auto cat = OpenDb(dir.path);
    xf = cat->GetTable("x")->data->row_groups[0]->file_id;
    yf = cat->GetTable("y")->data->row_groups[0]->file_id;
  }
  FlipByte(dir / xf, 20);
  fs::remove(dir / yf);
  {
    auto cat = OpenDb(dir.path);
    Vector v(Type::Boolean());
    auto& xc = *cat->GetTable("x")->data->row_groups[0]->columns[0];
    CHECK_THROWS_WITH(xc.Read(0, 5, v), "header checksum mismatch");
    CHECK_THROWS_WITH(xc.Read(0, 5, v), xf);
    CHECK(!xc.stats.has_stats);
    auto& yc = *cat->GetTable("y")->data->row_groups[0]->columns[0];
    CHECK_THROWS_WITH(yc.Read(0, 5, v), "cannot be opened");
    CHECK_EQ(CountMismatches(*cat->GetTable("z")), 0u);
    // The broken tables can still be dropped.
    cat->DropTable("x");
    cat->DropTable("y");
  }
  auto cat = OpenDb(dir.path);
  CHECK_EQ(cat->TableNames().size(), (size_t)1);
  CHECK(!fs::exists(dir / xf));
}

TEST(corrupt_manifest_is_a_clear_error) {
  TempDir dir;
  {
    auto cat = OpenDb(dir.path);
    cat->CreateTable(AllTypesSchema());
    cat->Append("t", BuildGroups(AllTypesSchema(), 0, 10));
  }
  const std::string m = dir / "catalog.tsm";
  const std::string good = ReadFile(m);
  FlipByte(m, good.size() / 2);
  CHECK_THROWS_WITH(OpenDb(dir.path), "database manifest " + m + " is corrupt (checksum mismatch)");
  try {
    OpenDb(dir.path);
  } catch (const UserError& e) {
    CHECK(e.kind() == ErrorKind::IO);
  }
  WriteFile(m, good.substr(0, good.size() - 9));
  CHECK_THROWS_WITH(OpenDb(dir.path), "is corrupt");
  std::string v99 = good;
  v99[8] = 99;
  WriteFile(m, v99);
  CHECK_THROWS_WITH(OpenDb(dir.path), "unsupported format version 99");
  WriteFile(m, "hello, world, this is not a manifest at all");
  CHECK_THROWS_WITH(OpenDb(dir.path), "not a tessera catalog file");
  // A lost manifest is damage, not a fresh database: the data files are kept.
  fs::remove(m);
  CHECK_THROWS_WITH(OpenDb(dir.path), "contains row-group files");
  CHECK_EQ(FilesIn(dir.path, ".trg").size(), (size_t)1);
  WriteFile(m, good);
  CHECK_EQ(CountMismatches(*OpenDb(dir.path)->GetTable("t")), 0u);
}

TEST(directory_lock_and_paths) {
  TempDir dir;
  const std::string db = dir / "db";  // created on first open
  auto first = OpenDiskBackend(db);
  CHECK(fs::is_directory(db));
  first->Load();
  CHECK(fs::exists(db + "/catalog.tsm"));  // a new database starts with an empty manifest
  CHECK_THROWS_WITH(OpenDiskBackend(db), "database " + db + " is in use by another process");
  // Another process is refused too.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int rc = 0;
    try {
      OpenDiskBackend(db);
    } catch (const UserError& e) {
      rc = std::string(e.what()).find("in use by another process") != std::string::npos ? 7 : 1;
    }
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
  first.reset();
  auto again = OpenDiskBackend(db);  // lock released with the backend
  CHECK(again != nullptr);
  WriteFile(dir / "plain", "x");
  CHECK_THROWS_WITH(OpenDiskBackend(dir / "plain"), "not a directory");
  CHECK_THROWS_WITH(OpenDiskBackend(dir / "no/such/parent"), "cannot create database directory");
}

// ---- COPY

namespace {

TableSchema CopySchema() {
  TableSchema s;
  s.name = "lo";
  s.columns = {{"k", Type::Integer(), true}, {"big", Type::BigInt()},
               {"price", Type::Decimal(15, 2)}, {"d", Type::Date()},
               {"flag", Type::Boolean()},     {"dbl", Type::Double()},
               {"s", Type::Varchar()}};
  return s;
}

std::vector<std::vector<std::string>> Rows(const TableEntry& t) {
  std::vector<std::vector<std::string>> out;
  for (auto& rg : t.data->row_groups) {
    size_t base = out.size();
    out.resize(base + rg->count, std::vector<std::string>(rg->columns.size()));
    for (size_t c = 0; c < rg->columns.size(); c++) {
      Vector v(rg->columns[c]->type);
      for (uint32_t st = 0; st < rg->count; st += kVectorSize) {
        uint32_t n = std::min<uint32_t>(kVectorSize, rg->count - st);
        rg->columns[c]->Read(st, n, v);
        for (uint32_t i = 0; i < n; i++) out[base + st + i][c] = v.GetValue(i).ToString();
      }
    }
  }
  return out;
}

std::string Join(const std::vector<std::string>& r) {
  std::string s;
  for (auto& x : r) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

TEST(copy_options) {
  CHECK_EQ(ParseCopyOptions({}, "/data/lineorder.tbl").delimiter, '|');
  CHECK_EQ(ParseCopyOptions({}, "lineitem.tbl.3").delimiter, '|');
  CHECK_EQ(ParseCopyOptions({}, "x.csv").delimiter, ',');
  CsvOptions o = ParseCopyOptions(
      {{"delimiter", ";"}, {"header", "true"}, {"null", "NA"}, {"quote", "'"}, {"format", "CSV"}},
      "x.tbl");
  CHECK_EQ(o.delimiter, ';');
  CHECK(o.header);
  CHECK_EQ(o.null_str, "NA");
  CHECK_EQ(o.quote, '\'');
  CHECK_EQ(ParseCopyOptions({{"delimiter", "'|'"}}, "x.csv").delimiter, '|');
  CHECK_EQ(ParseCopyOptions({{"delimiter", "\\t"}}, "x.csv").delimiter, '\t');
  CHECK(!ParseCopyOptions({{"header", "false"}}, "x.csv").header);
  CHECK_THROWS_WITH(ParseCopyOptions({{"compression", "gzip"}}, "x.csv"), "unknown COPY option \"compression\"");
  CHECK_THROWS_WITH(ParseCopyOptions({{"delimiter", "ab"}}, "x.csv"), "single character");
  CHECK_THROWS_WITH(ParseCopyOptions({{"format", "parquet"}}, "x.csv"), "not supported");
  CHECK_THROWS_WITH(ParseCopyOptions({{"header", "maybe"}}, "x.csv"), "HEADER");
}

TEST(copy_to_and_read_csv_options) {
  CHECK(ParseCopyToOptions({}, "out.parquet").parquet);
  CHECK(ParseCopyToOptions({}, "OUT.PARQUET").parquet);
  CHECK(!ParseCopyToOptions({}, "out.csv").parquet);
  CHECK(!ParseCopyToOptions({{"format", "csv"}}, "out.parquet").parquet);
  CopyToOptions t = ParseCopyToOptions({{"format", "parquet"}, {"compression", "gzip"}, {"row_group_size", "1000"}}, "x");
  CHECK(t.parquet);
  CHECK(t.parquet_opt.codec == ParquetWriteOptions::Codec::Gzip);
  CHECK_EQ(t.parquet_opt.row_group_size, 1000u);
  CHECK_THROWS_WITH(ParseCopyToOptions({{"header", "true"}}, "x.parquet"), "does not apply");
  CHECK_THROWS_WITH(ParseCopyToOptions({{"compression", "gzip"}}, "x.csv"), "does not apply");
  CHECK_THROWS_WITH(ParseCopyToOptions({{"format", "json"}}, "x"), "not supported");
  ReadCsvOptions r = ParseReadCsvOptions({{"sep", ";"}, {"sample_size", "-1"}, {"skip", "2"}}, {});
  CHECK_EQ(r.csv.delimiter, ';');
  CHECK_EQ(r.sample_size, UINT64_MAX);
  CHECK_EQ(r.csv.skip, 2u);
  CHECK_THROWS_WITH(ParseReadCsvOptions({{"nosuch", "1"}}, {}), "known: all_varchar");
  CHECK_THROWS_WITH(ParseReadCsvOptions({{"skip", "-1"}}, {}), "non-negative");
}

TEST(csv_sniffer_types_and_header) {
  // DuckDB 1.5's choices (test/sql/copy/read_csv.test checks files against DuckDB).
  CHECK(csv::SniffType({"true", "F", "yes"}) == Type::Boolean());
  CHECK(csv::SniffType({"0", "1"}) == Type::BigInt());
  CHECK(csv::SniffType({"1", "2.5"}) == Type::Double());
  CHECK(csv::SniffType({"99999999999999999999"}) == Type::Double());
  CHECK(csv::SniffType({"007"}) == Type::Varchar());
  CHECK(csv::SniffType({"+5"}) == Type::Varchar());
  CHECK(csv::SniffType({"inf"}) == Type::Varchar());
  CHECK(csv::SniffType({"2020-01-02", ""}) == Type::Date());
  CHECK(csv::SniffType({"2020-01-02 03:04:05"}) == Type::Timestamp());
  CHECK(csv::SniffType({"2020-01-02", "2020-01-02 03:04:05.5"}) == Type::Varchar());
  CHECK(csv::SniffType({"2020-01-02 03:04:05.5", "2020-01-02"}) == Type::Timestamp());
  CHECK(csv::SniffType({"03:04:05", "23:59"}) == Type::Time());
  CHECK(csv::SniffType({"2020-01-02 25:00:00"}) == Type::Varchar());
  CHECK(csv::SniffType({"", ""}) == Type::Varchar());
  auto sniff = [](const std::string& text) { return csv::SniffCsv(text.data(), text.data() + text.size(), {}, 20480); };
  auto a = sniff("a;b\n1;x\n2;y");
  CHECK_EQ(a.opt.delimiter, ';');
  CHECK(a.opt.header);
  CHECK_EQ(a.names.size(), 2u);
  CHECK(a.types[0] == Type::BigInt() && a.types[1] == Type::Varchar());
  auto b = sniff("1,2\n3,4");
  CHECK(!b.opt.header);
  CHECK_EQ(b.names[1], "column1");
  auto c = sniff("1,2\nx,y");  // all VARCHAR below: a header
  CHECK(c.opt.header);
  CHECK_EQ(c.names[0], "1");
  auto d = sniff("a,a,,A\n1,2,3,4");
  CHECK_EQ(d.names[1], "a_1");
  CHECK_EQ(d.names[2], "column2");
  CHECK_EQ(d.names[3], "A_2");
}

TEST(copy_tbl_with_trailing_delimiter_crlf_and_nulls) {
  TempDir dir;
  Catalog cat;
  cat.CreateTable(CopySchema());
  const std::string p = dir / "lo.tbl";
  WriteFile(p,
            "1|10000000000|12.34|1995-01-02|true|1.5|hello|\n"
            "2||-0.5|1996-02-29|f||world|\r\n"
            "-2147483648|-9223372036854775808|9999999999999.99|0001-01-01|0|-1e300||\n"
            "2147483647|9223372036854775807|-7|9999-12-31|T| 2.25 |x y|\n"
            "\n");
  uint64_t n = CopyFromFile(cat, "lo", p, ParseCopyOptions({}, p), 2);
  CHECK_EQ(n, 4u);
  auto rows = Rows(*cat.GetTable("lo"));
  CHECK_EQ(rows.size(), (size_t)4);
  if (rows.size() != 4) return;
  CHECK_EQ(Join(rows[0]), "1,10000000000,12.34,1995-01-02,true,1.5,hello");
  CHECK_EQ(Join(rows[1]), "2,NULL,-0.50,1996-02-29,false,NULL,world");
  CHECK_EQ(Join(rows[2]), "-2147483648,-9223372036854775808,9999999999999.99,0001-01-01,false,-1e+300,NULL");
  CHECK_EQ(Join(rows[3]), "2147483647,9223372036854775807,-7.00,9999-12-31,true,2.25,x y");
}

TEST(copy_csv_header_quotes_and_null_string) {
  TempDir dir;
  Catalog cat;
  TableSchema s;
  s.name = "q";
  s.columns = {{"id", Type::Integer()}, {"txt", Type::Varchar()}, {"amt", Type::Decimal(10, 3)}};
  cat.CreateTable(s);
  const std::string p = dir / "q.csv";
  WriteFile(p,
            "id,txt,amt\r\n"
            "1,\"hello, world\",1.5\r\n"
            "2,\"say \"\"hi\"\"\",\"2.25\"\r\n"
            "3,\"\",-0.0005\r\n"
            "4,,\r\n"
            "5,NA,NA\r\n"
            "6,\"NA\",1.2345\r\n"
            "7,plain text ,  3 \r\n");
  CsvOptions o = ParseCopyOptions({{"header", "true"}, {"null", "NA"}}, p);
  CHECK_EQ(CopyFromFile(cat, "q", p, o, 1), 7u);
  auto rows = Rows(*cat.GetTable("q"));
  CHECK_EQ(rows.size(), (size_t)7);
  if (rows.size() != 7) return;
  CHECK_EQ(Join(rows[0]), "1,hello, world,1.500");
  CHECK_EQ(Join(rows[1]), "2,say \"hi\",2.250");
  CHECK_EQ(Join(rows[2]), "3,,-0.001");  // rounded half away from zero
  CHECK_EQ(rows[3][1], "");             // empty VARCHAR with a NULL string set: ''
  CHECK_EQ(rows[3][2], "NULL");         // empty non-VARCHAR: NULL
  CHECK_EQ(Join(rows[4]), "5,NULL,NULL");
  CHECK_EQ(Join(rows[5]), "6,NULL,1.235");  // quoted "NA" is NULL too (as DuckDB)
  CHECK_EQ(Join(rows[6]), "7,plain text ,3.000");
  // Without a NULL string, an empty field is NULL, quoted ("") or not (as DuckDB).
  Catalog cat2;
  cat2.CreateTable(s);
  WriteFile(p, "1,,1\n2,\"\",2\n");
  CopyFromFile(cat2, "q", p, ParseCopyOptions({}, p), 1);
  auto r2 = Rows(*cat2.GetTable("q"));
  CHECK_EQ(r2[0][1], "NULL");
  CHECK_EQ(r2[1][1], "NULL");
}

TEST(copy_errors_name_file_line_column_and_leave_table_unchanged) {
  TempDir dir;
  Catalog cat;
  cat.CreateTable(CopySchema());
  const std::string good = dir / "good.tbl";
  WriteFile(good, "1|2|3.00|1995-01-01|true|1.0|a|\n2|3|4.00|1995-01-02|false|2.0|b|\n");
  CopyFromFile(cat, "lo", good, ParseCopyOptions({}, good), 2);
  const std::string ok = "1|2|3.00|1995-01-01|true|1.0|a|\n";
  struct Case {
    std::string line;
    std::string message;
  };
  std::vector<Case> cases = {
      {"abc|2|3.00|1995-01-01|true|1.0|a|", ":3: column 1 (k): could not convert \"abc\" to INTEGER"},
      {"1|2|3.00|1995-01-01|true|1.0|", ":3: expected 7 columns, found 6"},
      {"1|2|3.00|1995-01-01|true|1.0|a|b|", ":3: expected 7 columns, found 8"},
      {"1|2|3.00|1995-01-01|true|a|", ":3: expected 7 columns, found 6"},
      {"1|2", ":3: expected 7 columns, found 2"},
      {"", ":3: expected 7 columns, found an empty line"},
      {"99999999999|2|3.00|1995-01-01|true|1.0|a|",
       ":3: column 1 (k): could not convert \"99999999999\" to INTEGER: value out of range"},
      {"1|9223372036854775808|3.00|1995-01-01|true|1.0|a|",
       ":3: column 2 (big): could not convert \"9223372036854775808\" to BIGINT: value out of range"},
      {"1|2|3.00|1995-02-30|true|1.0|a|", ":3: column 4 (d): could not convert \"1995-02-30\" to DATE"},
      {"1|2|3.00|95-1-1x|true|1.0|a|", ":3: column 4 (d): could not convert \"95-1-1x\" to DATE"},
      {"1|2|12345678901234.00|1995-01-01|true|1.0|a|",
       ":3: column 3 (price): could not convert \"12345678901234.00\" to DECIMAL(15,2): value out of range"},
      {"1|2|1.2.3|1995-01-01|true|1.0|a|", ":3: column 3 (price): could not convert \"1.2.3\" to DECIMAL(15,2)"},
      {"1|2|3|1995-01-01|yes please|1.0|a|", ":3: column 5 (flag): could not convert \"yes please\" to BOOLEAN"},
      {"1|2|3|1995-01-01|true|1.0x|a|", ":3: column 6 (dbl): could not convert \"1.0x\" to DOUBLE"},
      {"|2|3.00|1995-01-01|true|1.0|a|", ":3: column 1 (k): NULL value in NOT NULL column"},
      {"1|2|3|1995-01-01|true|1.0|\"abc|", ":3: column 7 (s): unterminated quoted field"},
  };
  for (auto& c : cases) {
    const std::string p = dir / "bad.tbl";
    WriteFile(p, ok + ok + c.line + "\n" + ok);
    CHECK_THROWS_WITH(CopyFromFile(cat, "lo", p, ParseCopyOptions({}, p), 2), p + c.message);
    try {
      CopyFromFile(cat, "lo", p, ParseCopyOptions({}, p), 1);
    } catch (const UserError& e) {
      CHECK(e.kind() == ErrorKind::Input);
    }
    CHECK_EQ(cat.GetTable("lo")->data->row_count, 2u);
  }
  // With a header the line numbers still count physical lines.
  const std::string p = dir / "h.csv";
  WriteFile(p, "k,big,price,d,flag,dbl,s\n1,2,3,1995-01-01,true,1,a\n1,2,3,1995-01-01,maybe,1,a\n");
  CHECK_THROWS_WITH(CopyFromFile(cat, "lo", p, ParseCopyOptions({{"header", "true"}}, p), 1),
                    p + ":3: column 5 (flag)");
  CHECK_THROWS_WITH(CopyFromFile(cat, "lo", dir / "missing.tbl", CsvOptions{}, 1),
                    "could not open file \"" + (dir / "missing.tbl") + "\"");
  CHECK_THROWS_WITH(CopyFromFile(cat, "nope", good, CsvOptions{}, 1), "does not exist");
  CHECK_EQ(cat.GetTable("lo")->data->row_count, 2u);
}

TEST(copy_parallel_exact_line_numbers_and_order) {
  TempDir dir;
  const std::string p = dir / "big.tbl";
  const uint64_t n = 400000;
  std::string data;
  data.reserve(n * 48);
  for (uint64_t i = 0; i < n; i++) {
    data += std::to_string(i) + "|" + std::to_string(i * 1000003) + "|" + std::to_string(i % 1000) +
            "." + std::to_string(10 + i % 90) + "|1995-0" + std::to_string(1 + i % 9) + "-1" +
            std::to_string(i % 10) + "|" + (i % 2 ? "true" : "false") + "|" + std::to_string(i) +
            ".25|s" + std::to_string(i % 5000) + "|" + (i % 3 == 0 ? "\r\n" : "\n");
  }
  WriteFile(p, data);
  for (unsigned threads : {1u, 4u}) {
    Catalog cat;
    cat.CreateTable(CopySchema());
    uint64_t calls = 0, last = 0;
    CHECK_EQ(CopyFromFile(cat, "lo", p, ParseCopyOptions({}, p), threads,
                          [&](uint64_t done, uint64_t total) {
                            calls++;
                            CHECK(done <= total);
                            last = done;
                          }),
             n);
    CHECK(calls >= 1);
    CHECK_EQ(last, (uint64_t)data.size());
    auto t = cat.GetTable("lo");
    CHECK_EQ(t->data->row_count, n);
    auto rows = Rows(*t);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++)
      if (rows[i][0] != std::to_string(i) || rows[i][6] != "s" + std::to_string(i % 5000)) bad++;
    CHECK_EQ(bad, 0u);
  }
  // Errors at several places (each parsed by some range) report their exact line; the
  // first one in the file wins.
  for (uint64_t bad_line : {1ull, 77777ull, 250001ull, 400000ull}) {
    std::string d = data;
    size_t pos = 0;
    for (uint64_t l = 1; l < bad_line; l++) pos = d.find('\n', pos) + 1;
    d.insert(pos, "x");  // "x123|..." is not an INTEGER
    if (bad_line == 77777) {  // a later error must not win
      size_t pos2 = pos;
      for (int l = 0; l < 300000 - 77777; l++) pos2 = d.find('\n', pos2) + 1;
      d.insert(pos2, "y");
    }
    WriteFile(p, d);
    Catalog cat;
    cat.CreateTable(CopySchema());
    // HEADER false: a bad first line would otherwise be taken for a header (as DuckDB does).
    CHECK_THROWS_WITH(CopyFromFile(cat, "lo", p, ParseCopyOptions({{"header", "false"}}, p), 4),
                      p + ":" + std::to_string(bad_line) + ": column 1 (k): could not convert \"x");
    CHECK_EQ(cat.GetTable("lo")->data->row_count, 0u);
  }
}

TEST(copy_into_disk_database_survives_reopen) {
  TempDir dir;
  const std::string p = dir / "in.csv";
  std::string data;
  for (int i = 0; i < 200000; i++)
    data += std::to_string(i) + "," + std::to_string(-i) + ",1.5,2000-01-01,true,0.5," +
            (i % 4 == 0 ? "" : "str" + std::to_string(i % 7)) + "\n";
  WriteFile(p, data);
  {
    auto cat = OpenDb(dir / "db");
    cat->CreateTable(CopySchema());
    CHECK_EQ(CopyFromFile(*cat, "lo", p, ParseCopyOptions({}, p), 2), 200000u);
    for (auto& rg : cat->GetTable("lo")->data->row_groups) CHECK(!rg->file_id.empty());
  }
  auto cat = OpenDb(dir / "db");
  auto rows = Rows(*cat->GetTable("lo"));
  CHECK_EQ(rows.size(), (size_t)200000);
  CHECK_EQ(Join(rows[5]), "5,-5,1.50,2000-01-01,true,0.5,str5");
  CHECK_EQ(rows[8][6], "NULL");
  CHECK_EQ(rows[199999][0], "199999");
}

TEST(copy_quoted_line_breaks_split_in_parallel_gzip_and_zstd) {
  TempDir dir;
  TableSchema s;
  s.name = "m";
  s.columns = {{"id", Type::Integer()}, {"txt", Type::Varchar()}};
  // ~12 MB of records, every third with a quoted line break: the parallel ranges must
  // start at record starts, not at line starts inside quotes.
  std::string data = "id,txt\n";
  const int n = 300000;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0) data += std::to_string(i) + ",\"line one " + std::to_string(i) + "\nline, \"\"two\"\"\"\n";
    else data += std::to_string(i) + ",plain text number " + std::to_string(i) + "\n";
  }
  const std::string p = dir / "m.csv";
  WriteFile(p, data);
  for (unsigned threads : {1u, 4u}) {
    Catalog cat;
    cat.CreateTable(s);
    CHECK_EQ(CopyFromFile(cat, "m", p, ParseCopyOptions({}, p), threads), (uint64_t)n);
    auto rows = Rows(*cat.GetTable("m"));
    uint64_t bad = 0;
    for (int i = 0; i < n; i++) {
      std::string want = i % 3 == 0 ? "line one " + std::to_string(i) + "\nline, \"two\""
                                    : "plain text number " + std::to_string(i);
      if (rows[i][0] != std::to_string(i) || rows[i][1] != want) bad++;
    }
    CHECK_EQ(bad, 0u);
  }
  // An error's line counts the physical lines before it (header 1, records 1 or 2 lines).
  std::string d = data;
  size_t at = d.find("\n299999,");
  d.insert(at + 1, "x");
  WriteFile(p, d);
  Catalog cat;
  cat.CreateTable(s);
  CHECK_THROWS_WITH(CopyFromFile(cat, "m", p, ParseCopyOptions({}, p), 4),
                    p + ":" + std::to_string(1 + n + n / 3) + ": column 1 (id)");
  CHECK_EQ(cat.GetTable("m")->data->row_count, 0u);
  // gzip whatever the file's name; a bad zstd frame is a clear error.
  const std::string gz = dir / "m.data";
  {
    std::string small = "id,txt\n1,a\n2,\"b\nc\"\n";
    gzFile f = gzopen(gz.c_str(), "wb");
    gzwrite(f, small.data(), (unsigned)small.size());
    gzclose(f);
  }
  CHECK_EQ(CopyFromFile(cat, "m", gz, ParseCopyOptions({}, gz), 2), 2u);
  const std::string zst = dir / "m.zst";
  WriteFile(zst, std::string("\x28\xb5\x2f\xfd\x00\x00", 6));
  // A truncated frame is an error (libzstd loaded at run time: no build-time headers).
  CHECK_THROWS_WITH(CopyFromFile(cat, "m", zst, ParseCopyOptions({}, zst), 1), "could not decompress zstd file");
#ifdef TESSERA_HAVE_ZSTD
  // A whole frame (several blocks' worth) loads.
  {
    std::string csv = "id,txt\n";
    for (int i = 0; i < 50000; i++) csv += std::to_string(100 + i) + ",row " + std::to_string(i) + "\n";
    std::string packed(ZSTD_compressBound(csv.size()), '\0');
    packed.resize(ZSTD_compress(packed.data(), packed.size(), csv.data(), csv.size(), 3));
    const std::string good = dir / "m.csv.zst";
    WriteFile(good, packed);
    CHECK_EQ(CopyFromFile(cat, "m", good, ParseCopyOptions({}, good), 2), 50000u);
    WriteFile(good, packed.substr(0, packed.size() / 2));
    CHECK_THROWS_WITH(CopyFromFile(cat, "m", good, ParseCopyOptions({}, good), 2), "zstd");
  }
#endif
  const std::string broken = dir / "broken.gz";
  WriteFile(broken, std::string("\x1f\x8b\x08\x00garbage", 11));
  CHECK_THROWS_WITH(CopyFromFile(cat, "m", broken, ParseCopyOptions({}, broken), 1), "could not decompress gzip file");
#ifdef TESSERA_HAVE_ZSTD
  CHECK_EQ(cat.GetTable("m")->data->row_count, 50002u);
#else
  CHECK_EQ(cat.GetTable("m")->data->row_count, 2u);
#endif
}

TEST_MAIN()
