// Arrow C stream -> a temporary table (Python's Connection.register). The engine has no
// zero-copy scan of foreign memory, so the rows are copied: each record batch is read
// column by column into DataChunks of the table's types, which a RowGroupWriter packs into
// row groups; the table is then put into the catalog as a temporary table (memory only).
#include <cstring>
#include <memory>
#include <string_view>

#include "ext.hpp"
#include "storage/row_group.hpp"

namespace tessera::python {

namespace {

// How an Arrow column is read.
enum class Source { Bool, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, Dec128, Date32, Date64, Utf8, LargeUtf8, Utf8View };

struct ColumnPlan {
  std::string name;
  Source src;
  Type type;
};

[[noreturn]] void Unsupported(const std::string& col, const std::string& format) {
  RaiseDbApi("NotSupportedError", "register: column \"" + col + "\" has the Arrow type \"" + format +
                                      "\", which tessera cannot import (supported: bool, int8/16/32/64, "
                                      "uint8/16/32/64, float, double, decimal128, date32, date64, "
                                      "utf8, large_utf8, utf8_view)");
}

ColumnPlan Plan(const ArrowSchema& s, size_t index) {
  ColumnPlan p;
  p.name = s.name && *s.name ? s.name : "column" + std::to_string(index);
  std::string f = s.format ? s.format : "";
  if (s.dictionary) Unsupported(p.name, "dictionary of " + std::string(s.dictionary->format ? s.dictionary->format : "?"));
  auto set = [&](Source src, Type t) {
    p.src = src;
    p.type = t;
  };
  if (f == "b") set(Source::Bool, Type::Boolean());
  else if (f == "c") set(Source::I8, Type::Integer());
  else if (f == "C") set(Source::U8, Type::Integer());
  else if (f == "s") set(Source::I16, Type::Integer());
  else if (f == "S") set(Source::U16, Type::Integer());
  else if (f == "i") set(Source::I32, Type::Integer());
  else if (f == "I") set(Source::U32, Type::BigInt());
  else if (f == "l") set(Source::I64, Type::BigInt());
  else if (f == "L") set(Source::U64, Type::BigInt());
  else if (f == "f") set(Source::F32, Type::Double());
  else if (f == "g") set(Source::F64, Type::Double());
  else if (f == "tdD") set(Source::Date32, Type::Date());
  else if (f == "tdm") set(Source::Date64, Type::Date());
  else if (f == "u") set(Source::Utf8, Type::Varchar());
  else if (f == "U") set(Source::LargeUtf8, Type::Varchar());
  else if (f == "vu") set(Source::Utf8View, Type::Varchar());
  else if (f.rfind("d:", 0) == 0) {
    int prec = 0, scale = 0, bits = 128;
    int n = std::sscanf(f.c_str() + 2, "%d,%d,%d", &prec, &scale, &bits);
    if (n < 2 || bits != 128 || prec < 1 || prec > kMaxDecimalPrecision || scale < 0 || scale > prec)
      Unsupported(p.name, f);
    set(Source::Dec128, Type::Decimal(prec, scale));
  } else {
    Unsupported(p.name, f);
  }
  return p;
}

inline bool BitSet(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

// Writes rows [at, at + n) of the Arrow array `a` (logical index: a.offset + row) into `out`.
// Returns an error message, or "" on success.
std::string Convert(const ColumnPlan& p, const ArrowArray& a, int64_t at, uint32_t n, Vector& out) {
  const int64_t base = a.offset + at;
  const uint8_t* valid = a.null_count != 0 && a.n_buffers > 0 ? static_cast<const uint8_t*>(a.buffers[0]) : nullptr;
  out.ClearNulls();
  if (valid) {
    uint8_t* v = out.validity();
    for (uint32_t i = 0; i < n; i++) v[i] = BitSet(valid, base + i);
  }
  const void* buf = a.n_buffers > 1 ? a.buffers[1] : nullptr;
  auto copy_as = [&](auto* dst, auto* src) {
    for (uint32_t i = 0; i < n; i++) dst[i] = static_cast<std::remove_pointer_t<decltype(dst)>>(src[base + i]);
  };
  switch (p.src) {
    case Source::Bool: {
      auto* bits = static_cast<const uint8_t*>(buf);
      uint8_t* d = out.data<uint8_t>();
      for (uint32_t i = 0; i < n; i++) d[i] = BitSet(bits, base + i);
      break;
    }
    case Source::I8: copy_as(out.data<int32_t>(), static_cast<const int8_t*>(buf)); break;
    case Source::U8: copy_as(out.data<int32_t>(), static_cast<const uint8_t*>(buf)); break;
    case Source::I16: copy_as(out.data<int32_t>(), static_cast<const int16_t*>(buf)); break;
    case Source::U16: copy_as(out.data<int32_t>(), static_cast<const uint16_t*>(buf)); break;
    case Source::I32: std::memcpy(out.data<int32_t>(), static_cast<const int32_t*>(buf) + base, n * 4u); break;
    case Source::U32: copy_as(out.data<int64_t>(), static_cast<const uint32_t*>(buf)); break;
    case Source::I64: std::memcpy(out.data<int64_t>(), static_cast<const int64_t*>(buf) + base, n * 8u); break;
    case Source::U64: {
      auto* src = static_cast<const uint64_t*>(buf);
      int64_t* d = out.data<int64_t>();
      for (uint32_t i = 0; i < n; i++) {
        uint64_t x = src[base + i];
        if (x > (uint64_t)INT64_MAX && out.IsValid(i))
          return "register: column \"" + p.name + "\": the uint64 value " + std::to_string(x) + " does not fit in BIGINT";
        d[i] = (int64_t)x;
      }
      break;
    }
    case Source::F32: copy_as(out.data<double>(), static_cast<const float*>(buf)); break;
    case Source::F64: std::memcpy(out.data<double>(), static_cast<const double*>(buf) + base, n * 8u); break;
    case Source::Date32: std::memcpy(out.data<int32_t>(), static_cast<const int32_t*>(buf) + base, n * 4u); break;
    case Source::Date64: {
      auto* src = static_cast<const int64_t*>(buf);
      int32_t* d = out.data<int32_t>();
      for (uint32_t i = 0; i < n; i++) {
        int64_t ms = src[base + i];
        d[i] = (int32_t)((ms >= 0 ? ms : ms - 86399999) / 86400000);
      }
      break;
    }
    case Source::Dec128: {
      auto* src = static_cast<const uint8_t*>(buf);
      if (p.type.physical() == PhysType::I64) {
        int64_t* d = out.data<int64_t>();
        for (uint32_t i = 0; i < n; i++) std::memcpy(&d[i], src + (base + i) * 16, 8);  // low half (p <= 18)
      } else {
        std::memcpy(out.data<int128_t>(), src + base * 16, (size_t)n * 16);
      }
      break;
    }
    case Source::Utf8:
    case Source::LargeUtf8: {
      const char* bytes = static_cast<const char*>(a.buffers[2]);
      StrRef* d = out.data<StrRef>();
      for (uint32_t i = 0; i < n; i++) {
        int64_t b, e;
        if (p.src == Source::Utf8) {
          auto* off = static_cast<const int32_t*>(buf);
          b = off[base + i], e = off[base + i + 1];
        } else {
          auto* off = static_cast<const int64_t*>(buf);
          b = off[base + i], e = off[base + i + 1];
        }
        if (e - b > (int64_t)UINT32_MAX)
          return "register: column \"" + p.name + "\" has a string longer than 4 GiB";
        d[i] = out.IsValid(i) ? StrRef(bytes + b, (size_t)(e - b)) : StrRef();
      }
      break;
    }
    case Source::Utf8View: {
      // 16-byte views: int32 length, then up to 12 bytes inline, or a 4-byte prefix, the
      // data buffer's index (buffers[2 + index]) and the offset in it.
      auto* views = static_cast<const uint8_t*>(buf);
      StrRef* d = out.data<StrRef>();
      for (uint32_t i = 0; i < n; i++) {
        const uint8_t* v = views + (base + i) * 16;
        int32_t len, index, offset;
        std::memcpy(&len, v, 4);
        if (!out.IsValid(i)) {
          d[i] = StrRef();
        } else if (len <= 12) {
          d[i] = StrRef(reinterpret_cast<const char*>(v + 4), (size_t)len);
        } else {
          std::memcpy(&index, v + 8, 4);
          std::memcpy(&offset, v + 12, 4);
          d[i] = StrRef(static_cast<const char*>(a.buffers[2 + index]) + offset, (size_t)len);
        }
      }
      break;
    }
  }
  return "";
}

struct StreamGuard {
  ArrowArrayStream* s;
  ~StreamGuard() {
    if (s->release) s->release(s);
  }
};
struct SchemaGuard {
  ArrowSchema s{};
  ~SchemaGuard() {
    if (s.release) s.release(&s);
  }
};
struct ArrayGuard {
  ArrowArray a{};
  ~ArrayGuard() {
    if (a.release) a.release(&a);
  }
};

}  // namespace

uint64_t ImportArrowStream(Conn& conn, const std::string& name, ArrowArrayStream* stream, bool replace) {
  StreamGuard sg{stream};
  auto stream_error = [&](const char* what, int rc) {
    const char* e = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
    RaiseDbApi("OperationalError", std::string("register: the Arrow stream failed in ") + what + " (" +
                                       std::to_string(rc) + "): " + (e ? e : "no message"));
  };
  SchemaGuard schema;
  if (int rc = stream->get_schema(stream, &schema.s)) stream_error("get_schema", rc);
  if (std::string_view(schema.s.format ? schema.s.format : "") != "+s")
    RaiseDbApi("NotSupportedError", "register: the Arrow stream's schema is not a struct (record batches)");
  std::vector<ColumnPlan> plans;
  TableSchema ts;
  ts.name = name;
  for (int64_t i = 0; i < schema.s.n_children; i++) {
    plans.push_back(Plan(*schema.s.children[i], (size_t)i));
    ts.columns.push_back(ColumnDef{plans.back().name, plans.back().type, false});
  }
  if (plans.empty()) RaiseDbApi("ProgrammingError", "register: the object has no columns");
  tessera_connection con = conn.get();
  auto& db = *con->db;
  RowGroupWriter writer(ts.types());
  uint64_t rows = 0;
  DataChunk chunk;
  chunk.Init(ts.types());
  for (;;) {
    ArrayGuard batch;
    if (int rc = stream->get_next(stream, &batch.a)) stream_error("get_next", rc);
    if (!batch.a.release) break;
    if (batch.a.n_children != (int64_t)plans.size())
      RaiseDbApi("InterfaceError", "register: a record batch has the wrong number of columns");
    std::string err;
    {
      nb::gil_scoped_release unlocked;
      for (int64_t at = 0; at < batch.a.length && err.empty(); at += kVectorSize) {
        uint32_t n = (uint32_t)std::min<int64_t>(kVectorSize, batch.a.length - at);
        for (size_t c = 0; c < plans.size() && err.empty(); c++)
          err = Convert(plans[c], *batch.a.children[c], batch.a.offset + at, n, chunk.cols[c]);
        chunk.size = n;
        if (err.empty()) writer.Append(chunk);
      }
    }
    if (!err.empty()) RaiseDbApi("DataError", err);
    rows += (uint64_t)batch.a.length;
  }
  auto data = std::make_shared<TableData>();
  {
    nb::gil_scoped_release unlocked;
    data->row_groups = writer.Finish();
  }
  data->row_count = rows;
  try {
    db.catalog().PutTemporaryTable(std::move(ts), std::move(data), replace);
  } catch (const UserError& e) {
    RaiseEngineError(TESSERA_ERROR_CATALOG, e.what());
  }
  return rows;
}

}  // namespace tessera::python
