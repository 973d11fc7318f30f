#include "storage/parquet/parquet_metadata.hpp"

#include <algorithm>

#include "common/parallel.hpp"
#include "storage/parquet/thrift_compact.hpp"

namespace tessera::parquet {

namespace {

// Reads a struct: calls fn(id, type) per field; fn returns false to have it skipped.
template <class Fn>
void ReadStruct(ThriftReader& r, Fn&& fn) {
  r.BeginStruct();
  int16_t id;
  TType t;
  while (r.NextField(id, t))
    if (!fn(id, t)) r.Skip(t);
  r.EndStruct();
}

void Expect(TType got, TType want) {
  if (got != want) throw ThriftError("field of unexpected type");
}

int32_t ReadI32(ThriftReader& r, TType t) {
  Expect(t, TType::I32);
  return r.I32();
}
int64_t ReadI64(ThriftReader& r, TType t) {
  Expect(t, TType::I64);
  return r.I64();
}
bool ReadBool(ThriftReader& r, TType t) {
  if (t != TType::True && t != TType::False) throw ThriftError("field of unexpected type");
  return r.FieldBool();
}
std::string ReadString(ThriftReader& r, TType t) {
  Expect(t, TType::Binary);
  return std::string(r.Binary());
}

template <class Fn>
void ReadList(ThriftReader& r, TType t, Fn&& each) {
  if (t != TType::List && t != TType::Set) throw ThriftError("field of unexpected type");
  TType e;
  uint32_t n = r.BeginList(e);
  for (uint32_t i = 0; i < n; i++) each(e);
}

// A list's element count as room to reserve: at most one element per byte left (every
// element takes a byte or more), so a corrupt count allocates nothing large.
size_t Room(const ThriftReader& r, uint32_t n) { return std::min<size_t>(n, r.remaining()); }

LogicalType ReadLogicalType(ThriftReader& r) {
  LogicalType lt;
  ReadStruct(r, [&](int16_t id, TType t) {
    if (t != TType::Struct) return false;
    lt.kind = id;
    if (id == LogicalType::Decimal) {
      ReadStruct(r, [&](int16_t f, TType ft) {
        if (f == 1) lt.scale = ReadI32(r, ft);
        else if (f == 2) lt.precision = ReadI32(r, ft);
        else return false;
        return true;
      });
      return true;
    }
    if (id == LogicalType::Integer) {
      ReadStruct(r, [&](int16_t f, TType ft) {
        if (f == 1) {
          Expect(ft, TType::Byte);
          lt.bit_width = r.I8();
        } else if (f == 2) {
          lt.is_signed = ReadBool(r, ft);
        } else {
          return false;
        }
        return true;
      });
      return true;
    }
    if (id == LogicalType::Timestamp || id == LogicalType::Time) {
      ReadStruct(r, [&](int16_t f, TType ft) {
        if (f == 1) {
          lt.adjusted_to_utc = ReadBool(r, ft);
        } else if (f == 2) {  // TimeUnit: a union of empty structs
          Expect(ft, TType::Struct);
          ReadStruct(r, [&](int16_t u, TType) {
            lt.time_unit = (int8_t)u;
            return false;
          });
        } else {
          return false;
        }
        return true;
      });
      return true;
    }
    return false;  // the member's struct is skipped
  });
  return lt;
}

SchemaElement ReadSchemaElement(ThriftReader& r) {
  SchemaElement s;
  ReadStruct(r, [&](int16_t id, TType t) {
    switch (id) {
      case 1: s.type = ReadI32(r, t); return true;
      case 2: s.type_length = ReadI32(r, t); return true;
      case 3: s.repetition = ReadI32(r, t); return true;
      case 4: s.name = ReadString(r, t); return true;
      case 5: s.num_children = ReadI32(r, t); return true;
      case 6: s.converted_type = ReadI32(r, t); return true;
      case 7: s.scale = ReadI32(r, t); return true;
      case 8: s.precision = ReadI32(r, t); return true;
      case 10: Expect(t, TType::Struct); s.logical = ReadLogicalType(r); return true;
      default: return false;
    }
  });
  return s;
}

Statistics ReadStatistics(ThriftReader& r) {
  Statistics s;
  ReadStruct(r, [&](int16_t id, TType t) {
    switch (id) {
      case 1: s.max = ReadString(r, t); return true;
      case 2: s.min = ReadString(r, t); return true;
      case 3: s.null_count = ReadI64(r, t); return true;
      case 5: s.max_value = ReadString(r, t); return true;
      case 6: s.min_value = ReadString(r, t); return true;
      default: return false;
    }
  });
  return s;
}

ColumnMetaData ReadColumnMetaData(ThriftReader& r) {
  ColumnMetaData m;
  ReadStruct(r, [&](int16_t id, TType t) {
    switch (id) {
      case 1: m.type = ReadI32(r, t); return true;
      case 2: ReadList(r, t, [&](TType e) { m.encodings.push_back(ReadI32(r, e)); }); return true;
      case 3: ReadList(r, t, [&](TType e) { m.path.push_back(ReadString(r, e)); }); return true;
      case 4: m.codec = ReadI32(r, t); return true;
      case 5: m.num_values = ReadI64(r, t); return true;
      case 6: m.total_uncompressed_size = ReadI64(r, t); return true;
      case 7: m.total_compressed_size = ReadI64(r, t); return true;
      case 9: m.data_page_offset = ReadI64(r, t); return true;
      case 11: m.dictionary_page_offset = ReadI64(r, t); return true;
      case 12: Expect(t, TType::Struct); m.statistics = ReadStatistics(r); return true;
      default: return false;
    }
  });
  return m;
}

ColumnChunkMeta ReadColumnChunk(ThriftReader& r) {
  ColumnChunkMeta c;
  ReadStruct(r, [&](int16_t id, TType t) {
    switch (id) {
      case 1: c.file_path = ReadString(r, t); return true;
      case 3: Expect(t, TType::Struct); c.meta = ReadColumnMetaData(r); c.has_meta = true; return true;
      default: return false;
    }
  });
  return c;
}

RowGroupMeta ReadRowGroup(ThriftReader& r) {
  RowGroupMeta g;
  ReadStruct(r, [&](int16_t id, TType t) {
    switch (id) {
      case 1: {
        if (t != TType::List && t != TType::Set) throw ThriftError("field of unexpected type");
        TType e;
        const uint32_t n = r.BeginList(e);
        g.columns.reserve(Room(r, n));
        for (uint32_t i = 0; i < n; i++) {
          Expect(e, TType::Struct);
          g.columns.push_back(ReadColumnChunk(r));
        }
        return true;
      }
      case 3: g.num_rows = ReadI64(r, t); return true;
      default: return false;
    }
  });
  return g;
}

}  // namespace

// The row groups' list: each group's bytes found by skipping it (no allocation), then the
// groups parsed on `threads` workers, a run of consecutive groups per task. A footer of
// thousands of column chunks (an SF10-sized lineitem: ~490 row groups of 16 chunks, a
// 763 KB footer) took ~10 ms to parse and build into the table on one thread of the
// development VM, a time every query over the file waits for.
static void ReadRowGroups(ThriftReader& r, TType t, const uint8_t* p, unsigned threads, std::vector<RowGroupMeta>& out) {
  if (t != TType::List && t != TType::Set) throw ThriftError("field of unexpected type");
  TType e;
  const uint32_t n = r.BeginList(e);
  if (n > 0) Expect(e, TType::Struct);
  constexpr uint32_t kPerTask = 16;
  if (threads <= 1 || n < 2 * kPerTask) {
    out.reserve(Room(r, n));
    for (uint32_t i = 0; i < n; i++) out.push_back(ReadRowGroup(r));
    return;
  }
  std::vector<std::pair<size_t, size_t>> spans;
  spans.reserve(Room(r, n));
  for (uint32_t i = 0; i < n; i++) {
    const size_t start = r.position();
    r.Skip(TType::Struct);
    spans.emplace_back(start, r.position());
  }
  out.resize(n);
  ParallelFor((n + kPerTask - 1) / kPerTask, threads, [&](uint64_t task, unsigned) {
    const uint32_t end = std::min<uint32_t>(n, (uint32_t)(task + 1) * kPerTask);
    for (uint32_t i = (uint32_t)task * kPerTask; i < end; i++) {
      ThriftReader g(p + spans[i].first, spans[i].second - spans[i].first);
      out[i] = ReadRowGroup(g);
    }
  });
}

FileMetaData ParseFileMetaData(const uint8_t* p, size_t n, unsigned threads) {
  ThriftReader r(p, n);
  FileMetaData f;
  ReadStruct(r, [&](int16_t id, TType t) {
    switch (id) {
      case 1: f.version = ReadI32(r, t); return true;
      case 2:
        ReadList(r, t, [&](TType e) {
          Expect(e, TType::Struct);
          f.schema.push_back(ReadSchemaElement(r));
        });
        return true;
      case 3: f.num_rows = ReadI64(r, t); return true;
      case 4: ReadRowGroups(r, t, p, threads, f.row_groups); return true;
      case 6: f.created_by = ReadString(r, t); return true;
      case 8: f.encrypted = true; return false;
      default: return false;
    }
  });
  return f;
}

PageHeader ParsePageHeader(const uint8_t* p, size_t n, size_t* header_len) {
  ThriftReader r(p, n);
  PageHeader h;
  ReadStruct(r, [&](int16_t id, TType t) {
    switch (id) {
      case 1: h.type = ReadI32(r, t); return true;
      case 2: h.uncompressed_page_size = ReadI32(r, t); return true;
      case 3: h.compressed_page_size = ReadI32(r, t); return true;
      case 5: {
        Expect(t, TType::Struct);
        DataPageHeader d;
        ReadStruct(r, [&](int16_t f, TType ft) {
          if (f == 1) d.num_values = ReadI32(r, ft);
          else if (f == 2) d.encoding = ReadI32(r, ft);
          else if (f == 3) d.definition_level_encoding = ReadI32(r, ft);
          else return false;
          return true;
        });
        h.data = d;
        return true;
      }
      case 7: {
        Expect(t, TType::Struct);
        DictionaryPageHeader d;
        ReadStruct(r, [&](int16_t f, TType ft) {
          if (f == 1) d.num_values = ReadI32(r, ft);
          else if (f == 2) d.encoding = ReadI32(r, ft);
          else return false;
          return true;
        });
        h.dict = d;
        return true;
      }
      case 8: {
        Expect(t, TType::Struct);
        DataPageHeaderV2 d;
        ReadStruct(r, [&](int16_t f, TType ft) {
          switch (f) {
            case 1: d.num_values = ReadI32(r, ft); return true;
            case 2: d.num_nulls = ReadI32(r, ft); return true;
            case 3: d.num_rows = ReadI32(r, ft); return true;
            case 4: d.encoding = ReadI32(r, ft); return true;
            case 5: d.definition_levels_byte_length = ReadI32(r, ft); return true;
            case 6: d.repetition_levels_byte_length = ReadI32(r, ft); return true;
            case 7: d.is_compressed = ReadBool(r, ft); return true;
            default: return false;
          }
        });
        h.data_v2 = d;
        return true;
      }
      default: return false;
    }
  });
  *header_len = r.position();
  return h;
}

}  // namespace tessera::parquet
