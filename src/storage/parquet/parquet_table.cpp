// Parquet files as tables (file_table.hpp). At open (bind time) each file's footer is read
// and checked: flat schema, types, row groups, column chunk locations and statistics.
// The table's row groups are slices of at most kRowGroupSize rows of the Parquet row
// groups; their column chunks carry the footer's statistics (zone maps) and decode on
// first use (parquet_column.hpp), so only scanned columns of unpruned row groups are read,
// by the scan's threads in parallel.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <array>
#include <list>
#include <mutex>

#include "common/ascii.hpp"
#include "common/parallel.hpp"
#include "storage/file_table.hpp"
#include "storage/parquet/parquet_codecs.hpp"
#include "storage/parquet/parquet_column.hpp"
#include "storage/parquet/parquet_metadata.hpp"
#include "storage/parquet/thrift_compact.hpp"

namespace tessera {

namespace parquet {
namespace {

struct OpenedFile {
  std::shared_ptr<ParquetFile> file;
  FileMetaData meta;
  std::vector<std::shared_ptr<const ColumnPlan>> columns;
  uint64_t data_end = 0;  // where the footer starts
};

[[noreturn]] void FileError(const std::string& path, const std::string& why, SourcePos pos) {
  throw UserError(ErrorKind::IO, "could not read Parquet file \"" + path + "\": " + why, pos);
}

[[noreturn]] void Unsupported(const std::string& path, const std::string& column, const std::string& what,
                              SourcePos pos) {
  throw UserError(ErrorKind::Unsupported,
                  "Parquet file \"" + path + "\": column \"" + column + "\" has " + what + ", which is not supported yet",
                  pos);
}

Type DecimalType(const std::string& path, const std::string& col, int p, int s, SourcePos pos) {
  if (p < 1 || p > kMaxDecimalPrecision || s < 0 || s > p)
    Unsupported(path, col, "type DECIMAL(" + std::to_string(p) + "," + std::to_string(s) + ")", pos);
  return Type::Decimal(p, s);
}

// The tessera type of a leaf column (DuckDB's mapping, narrowed to tessera's types:
// TINYINT/SMALLINT/UTINYINT/USMALLINT read as INTEGER, UINTEGER as BIGINT, FLOAT as DOUBLE,
// BLOB as VARCHAR).
ColumnPlan PlanColumn(const std::string& path, const SchemaElement& e, SourcePos pos) {
  ColumnPlan c;
  c.name = e.name;
  c.physical = *e.type;
  c.type_length = e.type_length;
  c.optional = !e.repetition || *e.repetition == (int32_t)Repetition::OPTIONAL;
  const LogicalType& lt = e.logical;
  const int ct = e.converted_type ? *e.converted_type : -1;
  auto is = [&](LogicalType::Kind k, ConvertedType legacy) { return lt.kind == k || (lt.kind == LogicalType::None && ct == (int)legacy); };
  const int dp = lt.kind == LogicalType::Decimal ? lt.precision : e.precision;
  const int ds = lt.kind == LogicalType::Decimal ? lt.scale : e.scale;
  const bool decimal = is(LogicalType::Decimal, ConvertedType::DECIMAL);
  // TIMESTAMP and TIME: tessera's microseconds from the file's unit (millis, micros, nanos).
  // A timestamp adjusted to UTC (DuckDB: TIMESTAMP WITH TIME ZONE) reads as the TIMESTAMP
  // of its UTC time: tessera has no time zones.
  const bool timestamp = lt.kind == LogicalType::Timestamp || (lt.kind == LogicalType::None &&
      (ct == (int)ConvertedType::TIMESTAMP_MILLIS || ct == (int)ConvertedType::TIMESTAMP_MICROS));
  const bool time = lt.kind == LogicalType::Time ||
      (lt.kind == LogicalType::None && (ct == (int)ConvertedType::TIME_MILLIS || ct == (int)ConvertedType::TIME_MICROS));
  if (timestamp || time) {
    const int unit = lt.kind != LogicalType::None ? lt.time_unit
                     : (ct == (int)ConvertedType::TIMESTAMP_MILLIS || ct == (int)ConvertedType::TIME_MILLIS) ? 1 : 2;
    const bool physical_ok = (PhysicalType)c.physical == PhysicalType::INT64 ||
                             (time && unit == 1 && (PhysicalType)c.physical == PhysicalType::INT32);
    if (!physical_ok || unit < 1 || unit > 3)
      Unsupported(path, c.name, std::string("a ") + (time ? "TIME" : "TIMESTAMP") + " of an unknown unit or physical type", pos);
    if (unit == 1) c.time_mul = 1000;
    if (unit == 3) c.time_div = 1000;
    c.type = time ? Type::Time() : Type::Timestamp();
    return c;
  }
  if (ct == (int)ConvertedType::INTERVAL) Unsupported(path, c.name, "type INTERVAL", pos);
  if (lt.kind == LogicalType::Uuid) Unsupported(path, c.name, "type UUID", pos);
  if (lt.kind == LogicalType::Float16) Unsupported(path, c.name, "type FLOAT16", pos);
  if (ct == (int)ConvertedType::MAP || ct == (int)ConvertedType::LIST || lt.kind == LogicalType::Map ||
      lt.kind == LogicalType::List)
    Unsupported(path, c.name, "a nested type", pos);
  switch ((PhysicalType)c.physical) {
    case PhysicalType::BOOLEAN: c.type = Type::Boolean(); break;
    case PhysicalType::INT32:
      if (decimal) c.type = DecimalType(path, c.name, dp, ds, pos);
      else if (is(LogicalType::Date, ConvertedType::DATE)) c.type = Type::Date();
      else if ((lt.kind == LogicalType::Integer && !lt.is_signed && lt.bit_width == 32) || ct == (int)ConvertedType::UINT_32) {
        c.type = Type::BigInt();
        c.is_unsigned = true;
      } else c.type = Type::Integer();
      break;
    case PhysicalType::INT64:
      if (decimal) c.type = DecimalType(path, c.name, dp, ds, pos);
      else if ((lt.kind == LogicalType::Integer && !lt.is_signed) || ct == (int)ConvertedType::UINT_64)
        Unsupported(path, c.name, "type UBIGINT (unsigned 64-bit)", pos);
      else c.type = Type::BigInt();
      break;
    case PhysicalType::INT96: Unsupported(path, c.name, "type INT96 (a TIMESTAMP)", pos);
    case PhysicalType::FLOAT:
    case PhysicalType::DOUBLE: c.type = Type::Double(); break;
    case PhysicalType::BYTE_ARRAY:
      c.type = decimal ? DecimalType(path, c.name, dp, ds, pos) : Type::Varchar();
      break;
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      if (c.type_length <= 0) FileError(path, "column \"" + c.name + "\" has an invalid fixed length", pos);
      c.type = decimal ? DecimalType(path, c.name, dp, ds, pos) : Type::Varchar();
      break;
    default: FileError(path, "column \"" + c.name + "\" has an unknown physical type", pos);
  }
  return c;
}

int128_t LittleEndianInt(const std::string& b) {
  int64_t v = 0;
  if (b.size() == 4) {
    int32_t x;
    std::memcpy(&x, b.data(), 4);
    v = x;
  } else {
    std::memcpy(&v, b.data(), 8);
  }
  return v;
}

int128_t BigEndian(const std::string& b, bool* ok) {
  if (b.empty() || b.size() > 16) {
    *ok = false;
    return 0;
  }
  using u128 = unsigned __int128;
  u128 v = (uint8_t)b[0] & 0x80 ? ~(u128)0 : 0;
  for (char ch : b) v = (v << 8) | (uint8_t)ch;
  return (int128_t)v;
}

// A statistics value in the column's type (false: not usable).
bool StatValue(const ColumnPlan& c, const std::string& b, Value& out) {
  const int32_t phys = c.physical;
  const bool i32 = phys == (int32_t)PhysicalType::INT32, i64 = phys == (int32_t)PhysicalType::INT64;
  if ((i32 && b.size() != 4) || (i64 && b.size() != 8)) return false;
  switch (c.type.id) {
    case TypeId::Integer: out = Value::Integer((int32_t)LittleEndianInt(b)); return true;
    case TypeId::Date: out = Value::Date((int32_t)LittleEndianInt(b)); return true;
    case TypeId::Timestamp:
    case TypeId::Time: {
      const int64_t v = (int64_t)LittleEndianInt(b), d = c.time_div;
      const int64_t us = (v / d - (v % d < 0)) * c.time_mul;
      out = c.type.id == TypeId::Time ? Value::Time(us) : Value::Timestamp(us);
      return true;
    }
    case TypeId::BigInt:
      if (c.is_unsigned) {
        uint32_t u;
        std::memcpy(&u, b.data(), 4);
        out = Value::BigInt(u);
      } else {
        out = Value::BigInt((int64_t)LittleEndianInt(b));
      }
      return true;
    case TypeId::Decimal: {
      bool ok = true;
      int128_t v = i32 || i64 ? LittleEndianInt(b) : BigEndian(b, &ok);
      if (!ok) return false;
      out = Value::Decimal(v, c.type.precision, c.type.scale);
      return true;
    }
    case TypeId::Varchar: out = Value::Varchar(b); return true;
    default: return false;  // BOOLEAN; DOUBLE (writers leave NaN out of min/max)
  }
}

// Zone-map statistics of the chunk: min_value/max_value (the type's sort order), else the
// deprecated min/max only for signed integers and dates (older writers compared strings
// and decimals as signed bytes: PARQUET-251).
ColumnStats ChunkStats(const ColumnPlan& c, const ColumnMetaData& m, uint64_t rows, uint64_t slice_rows) {
  ColumnStats st;
  if (!m.statistics) return st;
  const Statistics& s = *m.statistics;
  if (s.null_count) {
    if (*s.null_count == (int64_t)rows) st.null_count = slice_rows;  // all NULL
    // Otherwise the slice's own count is unknown: 0 (means "not known to be all NULL").
  }
  if (s.null_count && *s.null_count == (int64_t)rows) return st;
  const std::string* mn = nullptr;
  const std::string* mx = nullptr;
  if (s.min_value && s.max_value) {
    mn = &*s.min_value;
    mx = &*s.max_value;
  } else if (s.min && s.max && !c.is_unsigned &&
             (c.type.id == TypeId::Integer || c.type.id == TypeId::BigInt || c.type.id == TypeId::Date)) {
    mn = &*s.min;
    mx = &*s.max;
  }
  if (!mn) return st;
  Value lo, hi;
  if (!StatValue(c, *mn, lo) || !StatValue(c, *mx, hi)) return st;
  if (lo.Compare(hi) > 0) return st;
  st.min = std::move(lo);
  st.max = std::move(hi);
  st.has_stats = true;
  return st;
}

OpenedFile OpenOne(const std::string& path, SourcePos pos, unsigned threads) {
  OpenedFile of;
  auto file = std::make_shared<ParquetFile>();
  file->path = path;
  file->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file->fd < 0) throw UserError(ErrorKind::IO, "cannot open file \"" + path + "\"", pos);
  struct stat sb;
  if (::fstat(file->fd, &sb) != 0 || !S_ISREG(sb.st_mode)) FileError(path, "not a regular file", pos);
  file->size = (uint64_t)sb.st_size;
  if (file->size < 12) FileError(path, "the file is too small to be a Parquet file (truncated?)", pos);
  uint8_t head[4], tail[8];
  try {
    file->Read(0, 4, head);
    file->Read(file->size - 8, 8, tail);
  } catch (const DecodeError& e) {
    FileError(path, e.what(), pos);
  }
  if (std::memcmp(tail + 4, "PARE", 4) == 0)
    throw UserError(ErrorKind::Unsupported, "Parquet file \"" + path + "\" is encrypted, which is not supported", pos);
  if (std::memcmp(head, kMagic, 4) != 0) FileError(path, "not a Parquet file (no PAR1 magic at its start)", pos);
  if (std::memcmp(tail + 4, kMagic, 4) != 0)
    FileError(path, "the file is truncated or corrupt (no PAR1 magic at its end)", pos);
  uint32_t footer_len;
  std::memcpy(&footer_len, tail, 4);
  if ((uint64_t)footer_len > file->size - 12) FileError(path, "the footer length exceeds the file (truncated?)", pos);
  of.data_end = file->size - 8 - footer_len;
  std::vector<uint8_t> footer(footer_len);
  try {
    file->Read(of.data_end, footer_len, footer.data());
    of.meta = ParseFileMetaData(footer.data(), footer.size(), threads);
  } catch (const DecodeError& e) {
    FileError(path, e.what(), pos);
  } catch (const ThriftError& e) {
    FileError(path, std::string("corrupt footer (") + e.what() + ")", pos);
  }
  const FileMetaData& m = of.meta;
  if (m.encrypted)
    throw UserError(ErrorKind::Unsupported, "Parquet file \"" + path + "\" is encrypted, which is not supported", pos);
  if (m.schema.empty()) FileError(path, "the footer has no schema", pos);
  const SchemaElement& root = m.schema[0];
  if (root.num_children < 0 || (size_t)root.num_children + 1 > m.schema.size())
    FileError(path, "corrupt schema", pos);
  // Flat: the root's children are all leaves.
  for (size_t i = 1; i < m.schema.size(); i++) {
    const SchemaElement& e = m.schema[i];
    if (e.num_children > 0 || !e.type) {
      throw UserError(ErrorKind::Unsupported,
                      "Parquet file \"" + path + "\": column \"" + e.name +
                          "\" is nested (a group, struct, list or map), which is not supported (flat schemas only)",
                      pos);
    }
    if (e.repetition && *e.repetition == (int32_t)Repetition::REPEATED)
      throw UserError(ErrorKind::Unsupported,
                      "Parquet file \"" + path + "\": column \"" + e.name + "\" is repeated (a list), which is not supported (flat schemas only)",
                      pos);
  }
  if ((size_t)root.num_children + 1 != m.schema.size()) FileError(path, "corrupt schema", pos);
  for (size_t i = 1; i < m.schema.size(); i++)
    of.columns.push_back(std::make_shared<const ColumnPlan>(PlanColumn(path, m.schema[i], pos)));
  if (m.num_rows < 0) FileError(path, "negative row count", pos);
  // Row groups and column chunks.
  int64_t rows = 0;
  for (size_t g = 0; g < m.row_groups.size(); g++) {
    const RowGroupMeta& rg = m.row_groups[g];
    auto bad = [&](const std::string& why) { FileError(path, "row group " + std::to_string(g) + ": " + why, pos); };
    if (rg.num_rows < 0) bad("negative row count");
    rows += rg.num_rows;
    if (rg.columns.size() != of.columns.size()) bad("column count does not match the schema");
    for (size_t c = 0; c < rg.columns.size(); c++) {
      const ColumnChunkMeta& cc = rg.columns[c];
      const ColumnPlan& plan = *of.columns[c];
      if (!cc.file_path.empty()) Unsupported(path, plan.name, "its data in another file", pos);
      if (!cc.has_meta) bad("column \"" + plan.name + "\" has no metadata");
      const ColumnMetaData& md = cc.meta;
      if (md.type != plan.physical) bad("column \"" + plan.name + "\" has a physical type other than the schema's");
      if (md.path.size() != 1 || md.path[0] != plan.name) bad("column chunk path does not match the schema");
      if (md.num_values != rg.num_rows) bad("column \"" + plan.name + "\" has a value count other than the row count");
      if (rg.num_rows == 0) continue;  // nothing is read (writers place empty chunks anywhere)
      int64_t start = md.data_page_offset;
      if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 && *md.dictionary_page_offset < start)
        start = *md.dictionary_page_offset;
      if (start < 4 || md.total_compressed_size < 0 || (uint64_t)start > of.data_end ||
          (uint64_t)md.total_compressed_size > of.data_end - (uint64_t)start)
        bad("column \"" + plan.name + "\" lies outside the file's data (truncated or corrupt)");
      switch ((Codec)md.codec) {
        case Codec::UNCOMPRESSED: case Codec::SNAPPY: case Codec::GZIP: case Codec::BROTLI:
        case Codec::LZ4: case Codec::ZSTD: case Codec::LZ4_RAW: break;
        default: Unsupported(path, plan.name, std::string("the ") + CodecName(md.codec) + " codec", pos);
      }
    }
  }
  if (rows != m.num_rows) FileError(path, "the row groups' row counts do not add up to the file's", pos);
  // Row counts far beyond what the bytes could hold are corruption (and would make
  // millions of slices): even RLE-encoded constants take a byte per few thousand rows.
  if ((uint64_t)rows > file->size * 4096 + (1u << 20))
    FileError(path, "the footer claims " + std::to_string(rows) + " rows, more than the file can hold (corrupt)", pos);
  of.file = std::move(file);
  return of;
}

bool OptionIsTrue(const std::string& v) {
  std::string s = AsciiLower(v);
  return s == "true" || s == "1" || s == "t" || s == "on";
}

void CheckOptions(const FileOptionList& options, SourcePos pos) {
  for (const auto& [name, value] : options) {
    const std::string n = AsciiLower(name);
    if (n == "binary_as_string") continue;  // BLOBs are read as VARCHAR anyway
    if (n == "filename" || n == "file_row_number" || n == "hive_partitioning" || n == "union_by_name") {
      if (!OptionIsTrue(value) || (n == "hive_partitioning" && AsciiLower(value) == "auto")) continue;
      throw UserError(ErrorKind::Unsupported, "read_parquet option \"" + name + " = " + value + "\" is not supported yet", pos);
    }
    throw UserError(ErrorKind::Binder,
                    "unknown read_parquet option \"" + name +
                        "\" (known: binary_as_string, filename, file_row_number, hive_partitioning, union_by_name)",
                    pos);
  }
}

// The tables opened last, by their files and options, while every file's device, inode,
// size and modification time are unchanged: a repeated query reuses the decoded chunks
// (and, through the table snapshot, the GPU column cache's copies) instead of reading the
// files again. A changed file makes its entry stale (opened again).
struct CachedTable {
  std::string key;
  std::vector<std::array<int64_t, 5>> stamps;
  std::shared_ptr<const TableEntry> entry;
};
constexpr size_t kCachedTables = 8;
std::mutex g_cache_mu;
std::list<CachedTable> g_cache;  // most recently used first

// The files' stamps; false when one cannot be read (then nothing is cached).
bool Stamps(const std::vector<std::string>& files, std::vector<std::array<int64_t, 5>>& out) {
  out.clear();
  for (const auto& f : files) {
    struct stat sb;
    if (::stat(f.c_str(), &sb) != 0) return false;
    out.push_back({(int64_t)sb.st_dev, (int64_t)sb.st_ino, (int64_t)sb.st_size, (int64_t)sb.st_mtim.tv_sec,
                   (int64_t)sb.st_mtim.tv_nsec});
  }
  return true;
}

std::string CacheKey(const std::vector<std::string>& files, const FileOptionList& options) {
  std::string k;
  for (const auto& f : files) k += f + '\0';
  k += '\1';
  for (const auto& [n, v] : options) k += n + '=' + v + '\0';
  return k;
}

std::shared_ptr<const TableEntry> OpenTable(const std::vector<std::string>& files, SourcePos pos, unsigned threads);

}  // namespace
}  // namespace parquet

std::shared_ptr<const TableEntry> OpenParquetTable(const std::vector<std::string>& files, const FileOptionList& options,
                                                   SourcePos pos, unsigned threads) {
  using namespace parquet;
  if (threads == 0) threads = HardwareThreads();
  CheckOptions(options, pos);
  std::vector<std::array<int64_t, 5>> stamps;
  const bool stamped = Stamps(files, stamps);
  const std::string key = CacheKey(files, options);
  if (stamped) {
    std::lock_guard<std::mutex> g(g_cache_mu);
    for (auto it = g_cache.begin(); it != g_cache.end(); ++it) {
      if (it->key != key) continue;
      if (it->stamps == stamps) {
        g_cache.splice(g_cache.begin(), g_cache, it);
        return g_cache.front().entry;
      }
      g_cache.erase(it);
      break;
    }
  }
  auto entry = OpenTable(files, pos, threads);
  std::vector<std::array<int64_t, 5>> after;
  if (stamped && Stamps(files, after) && after == stamps) {  // unchanged while it was opened
    std::lock_guard<std::mutex> g(g_cache_mu);
    g_cache.push_front({key, std::move(stamps), entry});
    if (g_cache.size() > kCachedTables) g_cache.pop_back();
  }
  return entry;
}

namespace parquet {
namespace {

std::shared_ptr<const TableEntry> OpenTable(const std::vector<std::string>& files, SourcePos pos, unsigned threads) {
  // Files open in parallel (each footer parsed on one thread), one file's footer on all
  // threads. A failure is the first failing file's, in the list's order.
  std::vector<OpenedFile> opened(files.size());
  if (files.size() == 1) {
    opened[0] = OpenOne(files[0], pos, threads);
  } else {
    std::vector<std::exception_ptr> errors(files.size());
    ParallelFor(files.size(), threads, [&](uint64_t i, unsigned) {
      try {
        opened[i] = OpenOne(files[i], pos, 1);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
  auto entry = std::make_shared<TableEntry>();
  entry->temporary = true;
  entry->schema.name = files.size() == 1 ? files[0] : files[0] + " (+" + std::to_string(files.size() - 1) + " files)";
  const OpenedFile& first = opened[0];
  for (const auto& c : first.columns) entry->schema.columns.push_back({c->name, c->type, false});
  for (size_t i = 1; i < opened.size(); i++) {
    const auto& cols = opened[i].columns;
    bool same = cols.size() == first.columns.size();
    for (size_t c = 0; same && c < cols.size(); c++)
      same = cols[c]->name == first.columns[c]->name && cols[c]->type == first.columns[c]->type;
    if (!same) {
      auto describe = [](const OpenedFile& f) {
        std::string s;
        for (auto& c : f.columns) s += (s.empty() ? "" : ", ") + c->name + " " + c->type.ToString();
        return "(" + s + ")";
      };
      throw UserError(ErrorKind::Binder,
                      "Parquet files have different schemas: \"" + files[0] + "\" " + describe(first) + ", \"" +
                          files[i] + "\" " + describe(opened[i]),
                      pos);
    }
  }
  // Every (file, row group) becomes its slices' RowGroups, built on the threads (thousands
  // of column chunks, each with its statistics as Values, a ChunkSource and a SliceLoader
  // per slice), then appended in the files' order.
  std::vector<std::pair<size_t, size_t>> groups;  // (file, row group)
  for (size_t f = 0; f < opened.size(); f++)
    for (size_t g = 0; g < opened[f].meta.row_groups.size(); g++)
      if (opened[f].meta.row_groups[g].num_rows > 0) groups.emplace_back(f, g);
  std::vector<std::vector<std::shared_ptr<RowGroup>>> built(groups.size());
  ParallelFor(groups.size(), groups.size() >= 32 ? threads : 1, [&](uint64_t task, unsigned) {
    const OpenedFile& of = opened[groups[task].first];
    const size_t g = groups[task].second;
    const RowGroupMeta& rg = of.meta.row_groups[g];  // read here, then freed
    const uint64_t rows = (uint64_t)rg.num_rows;
    const uint32_t slices = (uint32_t)((rows + kRowGroupSize - 1) / kRowGroupSize);
    std::vector<std::shared_ptr<RowGroup>>& out = built[task];
    out.resize(slices);
    for (uint32_t s = 0; s < slices; s++) {
      out[s] = std::make_shared<RowGroup>();
      out[s]->count = (uint32_t)std::min<uint64_t>(kRowGroupSize, rows - (uint64_t)s * kRowGroupSize);
      out[s]->columns.reserve(of.columns.size());
    }
    for (size_t c = 0; c < of.columns.size(); c++) {
      const ColumnMetaData& md = rg.columns[c].meta;
      ColumnChunkLocation loc;
      loc.offset = (uint64_t)md.data_page_offset;
      if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 && (uint64_t)*md.dictionary_page_offset < loc.offset)
        loc.offset = (uint64_t)*md.dictionary_page_offset;
      loc.size = (uint64_t)md.total_compressed_size;
      loc.codec = md.codec;
      loc.num_values = md.num_values;
      loc.rows = rows;
      auto src = std::make_shared<ChunkSource>(of.file, of.columns[c], loc, slices);
      for (uint32_t s = 0; s < slices; s++) {
        auto chunk = std::make_shared<ColumnChunk>();
        chunk->type = of.columns[c]->type;
        chunk->count = out[s]->count;
        chunk->stats = ChunkStats(*of.columns[c], md, rows, chunk->count);
        chunk->verifier = std::make_shared<SliceLoader>(src, chunk.get(), (uint64_t)s * kRowGroupSize, (uint32_t)g);
        out[s]->columns.push_back(std::move(chunk));
      }
    }
    // The group's parsed footer entry (its strings and statistics) is freed here too.
    opened[groups[task].first].meta.row_groups[g] = RowGroupMeta{};
  });
  auto data = std::make_shared<TableData>();
  for (auto& out : built)
    for (auto& r : out) {
      data->row_count += r->count;
      data->row_groups.push_back(std::move(r));
    }
  entry->data = std::move(data);
  return entry;
}

}  // namespace
}  // namespace parquet

}  // namespace tessera
