#include "storage/manifest.hpp"

#include <algorithm>
#include <cstring>
#include <set>

#include "storage/binary_codec.hpp"
#include "storage/crc32c.hpp"
#include "storage/disk_backend.hpp"
#include "storage/disk_files.hpp"
#include "storage/sequence.hpp"

namespace tessera::disk {

namespace {

constexpr char kManifestMagic[8] = {'T', 'E', 'S', 'S', 'C', 'A', 'T', '\0'};

// Manifest.
//
//   magic "TESSCAT\0" | u32 version | u32 flags | u64 body size | body | u32 CRC-32C
//   body: u64 next file id, u32 table count, per table: name, u32 column count,
//         per column (name, u8 type, u8 precision, u8 scale, u8 not null), u64 row count,
//         u32 row-group count, per row group (file name, u32 rows, u64 file size,
//         u32 directory CRC)
//         [flags bit 0 (kManifestHasViews): u32 view count, per view: name, u32 column
//          name count, column names, SQL text]
//         [flags bit 1 (kManifestHasDefaults): u32 count, per column with a DEFAULT: table
//          name, u32 column index, the DEFAULT's SQL text]
//         [flags bit 2 (kManifestHasKeys): u32 count, per PRIMARY KEY / UNIQUE constraint:
//          table name, u8 primary, u32 column count, u32 column indexes]
//         [flags bit 3 (kManifestHasSequences): u32 count, per sequence: name, i64 start,
//          i64 increment, i64 min, i64 max, u8 cycle, then its position: i64 next value,
//          u8 past the end, u8 used, i64 last value]
// A manifest without the newer sections has the older builds' layout (they open it); one
// with a flag they do not know they refuse.

constexpr uint32_t kManifestHasViews = 1;
constexpr uint32_t kManifestHasDefaults = 2;
constexpr uint32_t kManifestHasKeys = 4;
constexpr uint32_t kManifestHasSequences = 8;

}  // namespace

std::string SerializeManifest(uint64_t next_id, const CatalogState& state,
                              const std::map<std::string, FileInfo>& files) {
  BufWriter body;
  body.U64(next_id);
  uint32_t nviews = 0;
  for (auto& [name, entry] : state) nviews += entry->is_view();
  body.U32((uint32_t)state.size() - nviews);
  for (auto& [name, entry] : state) {
    if (entry->is_view()) continue;
    body.Str(name);
    body.U32((uint32_t)entry->schema.columns.size());
    for (auto& col : entry->schema.columns) {
      body.Str(col.name);
      WriteType(body, col.type);
      body.U8(col.not_null ? 1 : 0);
    }
    uint64_t rows = 0;
    for (auto& rg : entry->data->row_groups) rows += rg->count;
    body.U64(rows);
    body.U32((uint32_t)entry->data->row_groups.size());
    for (auto& rg : entry->data->row_groups) {
      auto it = files.find(rg->file_id);
      TESSERA_ASSERT(it != files.end(), "row group without a file in the manifest");
      body.Str(rg->file_id);
      body.U32(rg->count);
      body.U64(it->second.size);
      body.U32(it->second.dir_crc);
    }
  }
  if (nviews) {
    body.U32(nviews);
    for (auto& [name, entry] : state) {
      if (!entry->is_view()) continue;
      body.Str(name);
      body.U32((uint32_t)entry->view_columns.size());
      for (auto& c : entry->view_columns) body.Str(c);
      body.Str(entry->view_sql);
    }
  }
  uint32_t ndefaults = 0;
  for (auto& [name, entry] : state)
    if (!entry->is_view())
      for (auto& col : entry->schema.columns) ndefaults += !col.default_sql.empty();
  if (ndefaults) {
    body.U32(ndefaults);
    for (auto& [name, entry] : state) {
      if (entry->is_view()) continue;
      for (size_t c = 0; c < entry->schema.columns.size(); c++) {
        if (entry->schema.columns[c].default_sql.empty()) continue;
        body.Str(name);
        body.U32((uint32_t)c);
        body.Str(entry->schema.columns[c].default_sql);
      }
    }
  }
  uint32_t nkeys = 0;
  for (auto& [name, entry] : state)
    if (!entry->is_view()) nkeys += (uint32_t)entry->schema.keys.size();
  if (nkeys) {
    body.U32(nkeys);
    for (auto& [name, entry] : state) {
      if (entry->is_view()) continue;
      for (const KeyConstraint& key : entry->schema.keys) {
        body.Str(name);
        body.U8(key.primary ? 1 : 0);
        body.U32((uint32_t)key.columns.size());
        for (uint32_t c : key.columns) body.U32(c);
      }
    }
  }
  uint32_t nsequences = 0;
  for (auto& [name, seq] : state.sequences) nsequences += !seq->temporary;
  if (nsequences) {
    body.U32(nsequences);
    for (auto& [name, seq] : state.sequences) {
      if (seq->temporary) continue;
      const SequenceDef& d = seq->def;
      body.Str(d.name);
      body.U64((uint64_t)d.start);
      body.U64((uint64_t)d.increment);
      body.U64((uint64_t)d.min);
      body.U64((uint64_t)d.max);
      body.U8(d.cycle ? 1 : 0);
      const SequenceCounter::Position p = seq->counter->position();
      body.U64((uint64_t)p.next);
      body.U8(p.past ? 1 : 0);
      body.U8(p.used ? 1 : 0);
      body.U64((uint64_t)p.last);
    }
  }
  BufWriter m;
  m.Raw(kManifestMagic, 8);
  m.U32(kStorageFormatVersion);
  m.U32((nviews ? kManifestHasViews : 0) | (ndefaults ? kManifestHasDefaults : 0) | (nkeys ? kManifestHasKeys : 0) |
        (nsequences ? kManifestHasSequences : 0));
  m.U64(body.buf.size());
  m.buf += body.buf;
  m.U32(Crc32c(m.buf.data(), m.buf.size()));
  return std::move(m.buf);
}

std::vector<ManifestTable> ParseManifest(const std::string& data, const std::string& path,
                                         uint64_t* next_id, std::vector<ManifestSequence>* sequences) {
  auto corrupt = [&](const std::string& why) -> UserError {
    return UserError(ErrorKind::IO, "database manifest " + path + " is corrupt (" + why + ")");
  };
  if (data.size() < 28) throw corrupt("truncated");
  if (std::memcmp(data.data(), kManifestMagic, 8) != 0)
    throw UserError(ErrorKind::IO, "database manifest " + path +
                                       " is not a tessera catalog file (bad magic number)");
  uint32_t version;
  std::memcpy(&version, data.data() + 8, 4);
  if (version < kOldestStorageFormatVersion || version > kStorageFormatVersion)
    throw UserError(ErrorKind::IO, "database manifest " + path + " has unsupported format version " +
                                       std::to_string(version) + " (this build supports versions " +
                                       std::to_string(kOldestStorageFormatVersion) + " to " +
                                       std::to_string(kStorageFormatVersion) + ")");
  uint32_t flags;
  std::memcpy(&flags, data.data() + 12, 4);
  if (flags & ~(kManifestHasViews | kManifestHasDefaults | kManifestHasKeys | kManifestHasSequences))
    throw UserError(ErrorKind::IO, "database manifest " + path + " uses features this build does not know (flags " +
                                       std::to_string(flags) + ")");
  uint64_t body_size;
  std::memcpy(&body_size, data.data() + 16, 8);
  if (body_size != data.size() - 28) throw corrupt("truncated or wrong size");
  uint32_t crc;
  std::memcpy(&crc, data.data() + data.size() - 4, 4);
  if (Crc32c(data.data(), data.size() - 4) != crc) throw corrupt("checksum mismatch");
  std::vector<ManifestTable> tables;
  try {
    BufReader r(reinterpret_cast<const uint8_t*>(data.data()) + 24, body_size, "manifest body");
    *next_id = r.U64();
    uint32_t ntables = r.U32();
    std::set<std::string> names, files;
    for (uint32_t t = 0; t < ntables; t++) {
      ManifestTable mt;
      mt.schema.name = std::string(r.Str());
      if (!names.insert(mt.schema.name).second) throw Corrupt{"duplicate table " + mt.schema.name};
      uint32_t ncols = r.U32();
      for (uint32_t c = 0; c < ncols; c++) {
        ColumnDef def;
        def.name = std::string(r.Str());
        def.type = ReadType(r, "table " + mt.schema.name);
        def.not_null = r.U8() != 0;
        mt.schema.columns.push_back(std::move(def));
      }
      mt.row_count = r.U64();
      uint32_t ngroups = r.U32();
      uint64_t sum = 0;
      for (uint32_t g = 0; g < ngroups; g++) {
        RowGroupRef ref;
        ref.file = std::string(r.Str());
        ref.count = r.U32();
        ref.size = r.U64();
        ref.dir_crc = r.U32();
        if (!ParseRowGroupFileName(ref.file, nullptr)) throw Corrupt{"bad file name " + ref.file};
        files.insert(ref.file);
        sum += ref.count;
        mt.groups.push_back(std::move(ref));
      }
      if (sum != mt.row_count) throw Corrupt{"row count of table " + mt.schema.name};
      tables.push_back(std::move(mt));
    }
    if (flags & kManifestHasViews) {
      uint32_t nviews = r.U32();
      for (uint32_t v = 0; v < nviews; v++) {
        ManifestTable mt;
        mt.schema.name = std::string(r.Str());
        if (!names.insert(mt.schema.name).second) throw Corrupt{"duplicate name " + mt.schema.name};
        uint32_t ncols = r.U32();
        for (uint32_t c = 0; c < ncols; c++) mt.view_columns.emplace_back(r.Str());
        mt.view_sql = std::string(r.Str());
        if (mt.view_sql.empty()) throw Corrupt{"view " + mt.schema.name + " without SQL"};
        tables.push_back(std::move(mt));
      }
    }
    if (flags & kManifestHasDefaults) {
      uint32_t ndefaults = r.U32();
      for (uint32_t d = 0; d < ndefaults; d++) {
        std::string table(r.Str());
        uint32_t col = r.U32();
        std::string sql(r.Str());
        auto t = std::find_if(tables.begin(), tables.end(), [&](const ManifestTable& m) {
          return m.view_sql.empty() && m.schema.name == table;
        });
        if (t == tables.end() || col >= t->schema.columns.size() || sql.empty())
          throw Corrupt{"DEFAULT of an unknown column of " + table};
        t->schema.columns[col].default_sql = std::move(sql);
      }
    }
    if (flags & kManifestHasKeys) {
      uint32_t nkeys = r.U32();
      for (uint32_t k = 0; k < nkeys; k++) {
        std::string table(r.Str());
        auto t = std::find_if(tables.begin(), tables.end(), [&](const ManifestTable& m) {
          return m.view_sql.empty() && m.schema.name == table;
        });
        if (t == tables.end()) throw Corrupt{"key constraint of an unknown table " + table};
        KeyConstraint key;
        key.primary = r.U8() != 0;
        uint32_t ncols = r.U32();
        if (ncols == 0 || ncols > t->schema.columns.size()) throw Corrupt{"key constraint of " + table};
        for (uint32_t c = 0; c < ncols; c++) {
          uint32_t col = r.U32();
          if (col >= t->schema.columns.size()) throw Corrupt{"key constraint of an unknown column of " + table};
          key.columns.push_back(col);
        }
        t->schema.keys.push_back(std::move(key));
      }
    }
    if (flags & kManifestHasSequences) {
      uint32_t n = r.U32();
      std::set<std::string> seen;
      for (uint32_t k = 0; k < n; k++) {
        ManifestSequence ms;
        SequenceDef& d = ms.def;
        d.name = std::string(r.Str());
        if (!seen.insert(d.name).second) throw Corrupt{"duplicate sequence " + d.name};
        d.start = (int64_t)r.U64();
        d.increment = (int64_t)r.U64();
        d.min = (int64_t)r.U64();
        d.max = (int64_t)r.U64();
        d.cycle = r.U8() != 0;
        ms.next = (int64_t)r.U64();
        ms.past = r.U8() != 0;
        ms.used = r.U8() != 0;
        ms.last = (int64_t)r.U64();
        if (d.increment == 0 || d.min >= d.max) throw Corrupt{"definition of sequence " + d.name};
        if (sequences) sequences->push_back(std::move(ms));
      }
    }
    if (!r.AtEnd()) throw Corrupt{"trailing bytes"};
  } catch (const Corrupt& c) {
    throw corrupt(c.what);
  }
  return tables;
}

}  // namespace tessera::disk
