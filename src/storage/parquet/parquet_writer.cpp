#include "storage/parquet/parquet_writer.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "common/parallel.hpp"
#include "storage/column_names.hpp"
#include "storage/output_file.hpp"
#include "storage/parquet/parquet_format.hpp"
#include "storage/parquet/snappy.hpp"
#include "storage/parquet/thrift_writer.hpp"

#ifdef TESSERA_HAVE_ZSTD
#include <zstd.h>
#endif

namespace tessera {

namespace {

using parquet::Codec;
using parquet::ConvertedType;
using parquet::Encoding;
using parquet::PageType;
using parquet::PhysicalType;
using parquet::ThriftWriter;

constexpr size_t kPageBytes = 1 << 20;        // a data page's values, before compression
constexpr size_t kMaxStatBytes = 4096;        // longer string min/max are left out
constexpr int kDecimalBytes = 16;             // FIXED_LEN_BYTE_ARRAY width for p > 18

struct ColumnFormat {
  PhysicalType physical;
  std::optional<ConvertedType> converted;
  int type_length = 0;
};

ColumnFormat FormatOf(const Type& t) {
  switch (t.id) {
    case TypeId::Boolean: return {PhysicalType::BOOLEAN, std::nullopt};
    case TypeId::Integer: return {PhysicalType::INT32, ConvertedType::INT_32};
    case TypeId::BigInt: return {PhysicalType::INT64, ConvertedType::INT_64};
    case TypeId::Double: return {PhysicalType::DOUBLE, std::nullopt};
    case TypeId::Date: return {PhysicalType::INT32, ConvertedType::DATE};
    case TypeId::Timestamp: return {PhysicalType::INT64, ConvertedType::TIMESTAMP_MICROS};
    case TypeId::Time: return {PhysicalType::INT64, ConvertedType::TIME_MICROS};
    case TypeId::Varchar: return {PhysicalType::BYTE_ARRAY, ConvertedType::UTF8};
    case TypeId::Blob: return {PhysicalType::BYTE_ARRAY, std::nullopt};
    case TypeId::Decimal:
      if (t.precision <= 9) return {PhysicalType::INT32, ConvertedType::DECIMAL};
      if (t.precision <= 18) return {PhysicalType::INT64, ConvertedType::DECIMAL};
      return {PhysicalType::FIXED_LEN_BYTE_ARRAY, ConvertedType::DECIMAL, kDecimalBytes};
    case TypeId::Null: return {PhysicalType::INT32, std::nullopt};
  }
  return {PhysicalType::INT32, std::nullopt};
}

void PutLE(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) out.push_back((char)(v >> (8 * i)));
}

void Varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back((char)(v | 0x80));
    v >>= 7;
  }
  out.push_back((char)v);
}

// A 128-bit two's complement value, big-endian.
void PutBE128(std::string& out, int128_t v) {
  for (int i = kDecimalBytes - 1; i >= 0; i--) out.push_back((char)((unsigned __int128)v >> (8 * i)));
}

// --- compression -----------------------------------------------------------------------

std::string Gzip(const std::string& in) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw InternalError("deflateInit2 failed");
  std::string out;
  out.resize(deflateBound(&zs, (uLong)in.size()) + 32);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = (uInt)in.size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = (uInt)out.size();
  int rc = deflate(&zs, Z_FINISH);
  size_t n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw InternalError("gzip compression failed");
  out.resize(n);
  return out;
}

std::string CompressPage(const std::string& in, ParquetWriteOptions::Codec codec) {
  switch (codec) {
    case ParquetWriteOptions::Codec::Uncompressed: return in;
    case ParquetWriteOptions::Codec::Snappy: {
      std::string out;
      snappy::Compress(reinterpret_cast<const uint8_t*>(in.data()), in.size(), out);
      return out;
    }
    case ParquetWriteOptions::Codec::Gzip: return Gzip(in);
    case ParquetWriteOptions::Codec::Zstd: {
#ifdef TESSERA_HAVE_ZSTD
      std::string out;
      out.resize(ZSTD_compressBound(in.size()));
      size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
      if (ZSTD_isError(n)) throw InternalError(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
      out.resize(n);
      return out;
#else
      break;
#endif
    }
  }
  throw InternalError("unsupported Parquet codec");
}

Codec CodecOf(ParquetWriteOptions::Codec c) {
  switch (c) {
    case ParquetWriteOptions::Codec::Uncompressed: return Codec::UNCOMPRESSED;
    case ParquetWriteOptions::Codec::Snappy: return Codec::SNAPPY;
    case ParquetWriteOptions::Codec::Gzip: return Codec::GZIP;
    case ParquetWriteOptions::Codec::Zstd: return Codec::ZSTD;
  }
  return Codec::UNCOMPRESSED;
}

// --- column chunks ---------------------------------------------------------------------

// Rows [offset, offset + count) of one DataChunk.
struct Segment {
  const DataChunk* chunk;
  uint32_t offset, count;
};

// Min and max of a column chunk's non-NULL values, kept as comparable numbers or bytes.
struct Stats {
  bool any = false;
  int128_t imin = 0, imax = 0;  // integers, dates, decimals, booleans
  double dmin = 0, dmax = 0;
  bool dany = false;            // a non-NaN double seen
  std::string smin, smax;
  bool too_long = false;
  uint64_t nulls = 0;
};

struct EncodedChunk {
  std::string bytes;  // the pages
  uint64_t uncompressed = 0;
  uint64_t values = 0;
  Stats stats;
  uint64_t dict_page_bytes = 0;  // > 0: a dictionary page first, RLE_DICTIONARY data pages
};

// The RLE/bit-packed hybrid encoding of v[0, n) at bit width `width` (without a length):
// a run of 8 or more equal values is an RLE run (varint n << 1, the value in
// ceil(width / 8) bytes); the values between runs are bit-packed in groups of 8 (varint
// groups << 1 | 1, then the values least significant bit first), the last group padded
// with zeros. A literal stretch is topped up to a multiple of 8 from the run after it.
template <class T>
void EncodeHybrid(const T* v, size_t n, int width, std::string& out) {
  std::vector<uint32_t> lit;
  auto flush_literals = [&] {
    if (lit.empty()) return;
    while (lit.size() % 8) lit.push_back(0);
    Varint(out, ((uint64_t)(lit.size() / 8) << 1) | 1);
    uint64_t buf = 0;
    int bits = 0;
    for (uint32_t x : lit) {
      buf |= (uint64_t)x << bits;
      bits += width;
      while (bits >= 8) {
        out.push_back((char)(buf & 0xff));
        buf >>= 8;
        bits -= 8;
      }
    }
    lit.clear();
  };
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && v[j] == v[i]) j++;
    size_t run = j - i;
    if (run >= 8 && lit.size() % 8 != 0) {
      // Complete the literal group from the run; the rest of the run is looked at again.
      size_t need = 8 - lit.size() % 8;
      for (size_t k = 0; k < need; k++) lit.push_back((uint32_t)v[i]);
      i += need;
    } else if (run >= 8) {
      flush_literals();
      Varint(out, (uint64_t)run << 1);
      for (int b = 0; b < (width + 7) / 8; b++) out.push_back((char)((uint32_t)v[i] >> (8 * b)));
      i = j;
    } else {
      for (size_t k = i; k < j; k++) lit.push_back((uint32_t)v[k]);
      i = j;
    }
  }
  flush_literals();
}

// Definition levels (bit width 1) with their 4-byte length in front.
void EncodeLevels(const uint8_t* defs, size_t n, std::string& out) {
  std::string body;
  EncodeHybrid(defs, n, 1, body);
  PutLE(out, (uint32_t)body.size(), 4);
  out += body;
}

// Appends a page: its header and its body `page` compressed.
void AppendPage(EncodedChunk& out, PageType type, const std::string& page, ParquetWriteOptions::Codec codec,
                size_t num_values, Encoding encoding) {
  std::string body = CompressPage(page, codec);
  ThriftWriter h;
  h.I32(1, (int32_t)type);
  h.I32(2, (int32_t)page.size());
  h.I32(3, (int32_t)body.size());
  if (type == PageType::DICTIONARY_PAGE) {
    h.BeginStruct(7);  // DictionaryPageHeader
    h.I32(1, (int32_t)num_values);
    h.I32(2, (int32_t)encoding);
    h.EndStruct();
  } else {
    h.BeginStruct(5);  // DataPageHeader
    h.I32(1, (int32_t)num_values);
    h.I32(2, (int32_t)encoding);
    h.I32(3, (int32_t)Encoding::RLE);  // definition levels
    h.I32(4, (int32_t)Encoding::RLE);  // repetition levels (none: flat schema)
    h.EndStruct();
  }
  h.Finish();
  out.bytes += h.bytes();
  out.bytes += body;
  out.uncompressed += h.bytes().size() + page.size();
}

class ChunkEncoder {
 public:
  ChunkEncoder(const Type& t, ParquetWriteOptions::Codec codec) : type_(t), fmt_(FormatOf(t)), codec_(codec) {}

  void Add(const Vector& v, uint32_t r) {
    bool valid = type_.id != TypeId::Null && v.IsValid(r);
    defs_.push_back(valid);
    if (!valid) {
      out_.stats.nulls++;
    } else {
      AddValue(v, r);
    }
    if (values_.size() + bools_.size() / 8 >= kPageBytes) FlushPage();
  }

  EncodedChunk Finish() {
    if (!defs_.empty() || out_.values == 0) FlushPage();
    return std::move(out_);
  }

 private:
  void AddValue(const Vector& v, uint32_t r) {
    Stats& s = out_.stats;
    auto minmax = [&](int128_t x) {
      if (!s.any || x < s.imin) s.imin = x;
      if (!s.any || x > s.imax) s.imax = x;
      s.any = true;
    };
    switch (type_.id) {
      case TypeId::Boolean: {
        bool b = v.data<uint8_t>()[r] != 0;
        bools_.push_back(b);
        minmax(b);
        return;
      }
      case TypeId::Integer:
      case TypeId::Date: {
        int32_t x = v.data<int32_t>()[r];
        PutLE(values_, (uint32_t)x, 4);
        minmax(x);
        return;
      }
      case TypeId::BigInt:
      case TypeId::Timestamp:
      case TypeId::Time: {
        int64_t x = v.data<int64_t>()[r];
        PutLE(values_, (uint64_t)x, 8);
        minmax(x);
        return;
      }
      case TypeId::Decimal: {
        int128_t x = type_.physical() == PhysType::I64 ? (int128_t)v.data<int64_t>()[r] : v.data<int128_t>()[r];
        if (fmt_.physical == PhysicalType::INT32) PutLE(values_, (uint32_t)(int32_t)x, 4);
        else if (fmt_.physical == PhysicalType::INT64) PutLE(values_, (uint64_t)(int64_t)x, 8);
        else PutBE128(values_, x);
        minmax(x);
        return;
      }
      case TypeId::Double: {
        double d = v.data<double>()[r];
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        PutLE(values_, bits, 8);
        s.any = true;
        if (!std::isnan(d)) {
          // The format's rule for zeros: a zero minimum is -0.0, a zero maximum +0.0.
          if (!s.dany || d < s.dmin || (d == 0 && s.dmin == 0)) s.dmin = d == 0 ? -0.0 : d;
          if (!s.dany || d > s.dmax || (d == 0 && s.dmax == 0)) s.dmax = d == 0 ? 0.0 : d;
          s.dany = true;
        }
        return;
      }
      case TypeId::Blob:
      case TypeId::Varchar: {
        std::string_view x = v.data<StrRef>()[r];
        PutLE(values_, (uint32_t)x.size(), 4);
        values_.append(x);
        if (x.size() > kMaxStatBytes) {
          s.too_long = true;
        } else if (!s.too_long) {
          if (!s.any || x < s.smin) s.smin.assign(x);
          if (!s.any || x > s.smax) s.smax.assign(x);
        }
        s.any = true;
        return;
      }
      case TypeId::Null: return;
    }
  }

  void FlushPage() {
    std::string page;
    EncodeLevels(defs_.data(), defs_.size(), page);
    if (type_.id == TypeId::Boolean) {
      // PLAIN booleans: bit-packed, least significant bit first.
      for (size_t g = 0; g < (bools_.size() + 7) / 8; g++) {
        uint8_t b = 0;
        for (size_t i = 0; i < 8 && g * 8 + i < bools_.size(); i++) b |= (uint8_t)(bools_[g * 8 + i] << i);
        page.push_back((char)b);
      }
    } else {
      page += values_;
    }
    AppendPage(out_, PageType::DATA_PAGE, page, codec_, defs_.size(), Encoding::PLAIN);
    out_.values += defs_.size();
    defs_.clear();
    bools_.clear();
    values_.clear();
  }

  Type type_;
  ColumnFormat fmt_;
  ParquetWriteOptions::Codec codec_;
  std::vector<uint8_t> defs_;   // the page's definition levels (1: a value)
  std::vector<uint8_t> bools_;  // the page's BOOLEAN values
  std::string values_;          // the page's other values, PLAIN
  EncodedChunk out_;
};

constexpr size_t kMaxDictEntries = 1 << 16;
constexpr size_t kMaxDictBytes = 1 << 20;
constexpr size_t kDictPageRows = 1 << 17;

// A VARCHAR column chunk dictionary-encoded: a PLAIN dictionary page of the distinct
// strings in order of appearance, then data pages of their indices (a byte with the bit
// width, then the RLE/bit-packed hybrid). Nothing when the strings are too many or
// too long, or when most are distinct (PLAIN is then as small).
std::optional<EncodedChunk> EncodeDictionary(const std::vector<Segment>& segs, size_t col,
                                             ParquetWriteOptions::Codec codec) {
  std::unordered_map<std::string_view, uint32_t> index;
  std::vector<std::string_view> dict;
  size_t dict_bytes = 0;
  std::vector<uint8_t> defs;
  std::vector<uint32_t> codes;
  for (const Segment& s : segs) {
    const Vector& v = s.chunk->cols[col];
    for (uint32_t r = s.offset; r < s.offset + s.count; r++) {
      bool valid = v.IsValid(r);
      defs.push_back(valid);
      if (!valid) continue;
      std::string_view x = v.data<StrRef>()[r];
      auto [it, added] = index.emplace(x, (uint32_t)dict.size());
      if (added) {
        dict.push_back(x);
        dict_bytes += x.size() + 4;
        if (dict.size() > kMaxDictEntries || dict_bytes > kMaxDictBytes) return std::nullopt;
      }
      codes.push_back(it->second);
    }
  }
  if (dict.empty() || dict.size() * 2 > codes.size()) return std::nullopt;

  EncodedChunk out;
  Stats& st = out.stats;
  st.nulls = defs.size() - codes.size();
  st.any = true;
  std::string page;
  for (std::string_view x : dict) {
    PutLE(page, (uint32_t)x.size(), 4);
    page.append(x);
    if (x.size() > kMaxStatBytes) st.too_long = true;
  }
  if (!st.too_long) {
    st.smin.assign(*std::min_element(dict.begin(), dict.end()));
    st.smax.assign(*std::max_element(dict.begin(), dict.end()));
  }
  AppendPage(out, PageType::DICTIONARY_PAGE, page, codec, dict.size(), Encoding::PLAIN);
  out.dict_page_bytes = out.bytes.size();

  int width = 1;
  while (width < 32 && (dict.size() - 1) >> width) width++;
  size_t code_at = 0;
  for (size_t start = 0; start < defs.size(); start += kDictPageRows) {
    size_t n = std::min(kDictPageRows, defs.size() - start);
    size_t valid = 0;
    for (size_t i = start; i < start + n; i++) valid += defs[i];
    page.clear();
    EncodeLevels(defs.data() + start, n, page);
    page.push_back((char)width);
    EncodeHybrid(codes.data() + code_at, valid, width, page);
    code_at += valid;
    AppendPage(out, PageType::DATA_PAGE, page, codec, n, Encoding::RLE_DICTIONARY);
  }
  out.values = defs.size();
  return out;
}

EncodedChunk EncodeChunk(const std::vector<Segment>& segs, size_t col, const Type& t,
                         ParquetWriteOptions::Codec codec) {
  if (t.id == TypeId::Varchar)
    if (auto d = EncodeDictionary(segs, col, codec)) return std::move(*d);
  ChunkEncoder enc(t, codec);
  for (const Segment& s : segs) {
    const Vector& v = s.chunk->cols[col];
    for (uint32_t r = s.offset; r < s.offset + s.count; r++) enc.Add(v, r);
  }
  return enc.Finish();
}

// The statistics' min/max in the column's PLAIN form (without a length for strings).
void StatValue(const Type& t, const Stats& s, bool max, std::string& out) {
  const ColumnFormat f = FormatOf(t);
  int128_t x = max ? s.imax : s.imin;
  switch (t.id) {
    case TypeId::Boolean: out.push_back((char)(x != 0)); return;
    case TypeId::Double: {
      double d = max ? s.dmax : s.dmin;
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      PutLE(out, bits, 8);
      return;
    }
    case TypeId::Blob:
    case TypeId::Varchar: out += max ? s.smax : s.smin; return;
    default:
      if (f.physical == PhysicalType::INT32) PutLE(out, (uint32_t)(int32_t)x, 4);
      else if (f.physical == PhysicalType::INT64) PutLE(out, (uint64_t)(int64_t)x, 8);
      else PutBE128(out, x);
  }
}

bool HasMinMax(const Type& t, const Stats& s) {
  if (!s.any) return false;
  if (t.id == TypeId::Double) return s.dany;
  if (t.id == TypeId::Varchar || t.id == TypeId::Blob) return !s.too_long;
  return true;
}

// --- footer ----------------------------------------------------------------------------

void WriteSchemaElement(ThriftWriter& w, const std::string& name, const Type& t) {
  const ColumnFormat f = FormatOf(t);
  w.BeginElemStruct();
  w.I32(1, (int32_t)f.physical);
  if (f.type_length) w.I32(2, f.type_length);
  w.I32(3, (int32_t)parquet::Repetition::OPTIONAL);
  w.Binary(4, name);
  if (f.converted) w.I32(6, (int32_t)*f.converted);
  if (t.id == TypeId::Decimal) {
    w.I32(7, t.scale);
    w.I32(8, t.precision);
  }
  // LogicalType (a union: one field set).
  switch (t.id) {
    case TypeId::Varchar:
      w.BeginStruct(10);
      w.BeginStruct(1);  // STRING
      w.EndStruct();
      w.EndStruct();
      break;
    case TypeId::Date:
      w.BeginStruct(10);
      w.BeginStruct(6);  // DATE
      w.EndStruct();
      w.EndStruct();
      break;
    case TypeId::Decimal:
      w.BeginStruct(10);
      w.BeginStruct(5);  // DECIMAL
      w.I32(1, t.scale);
      w.I32(2, t.precision);
      w.EndStruct();
      w.EndStruct();
      break;
    case TypeId::Timestamp:
    case TypeId::Time:
      w.BeginStruct(10);
      w.BeginStruct(t.id == TypeId::Timestamp ? 8 : 7);  // TIMESTAMP / TIME
      w.Bool(1, false);                                 // isAdjustedToUTC: local time, as DuckDB's TIMESTAMP
      w.BeginStruct(2);                                 // unit
      w.BeginStruct(2);                                 // MICROS
      w.EndStruct();
      w.EndStruct();
      w.EndStruct();
      w.EndStruct();
      break;
    case TypeId::Integer:
    case TypeId::BigInt:
      w.BeginStruct(10);
      w.BeginStruct(10);  // INTEGER
      w.Byte(1, t.id == TypeId::Integer ? 32 : 64);
      w.Bool(2, true);
      w.EndStruct();
      w.EndStruct();
      break;
    default: break;
  }
  w.EndStruct();
}

struct ChunkPlacement {
  uint64_t offset;  // of its first page in the file
  const EncodedChunk* chunk;
};

}  // namespace

uint64_t WriteParquetFile(const std::string& path, const std::vector<std::string>& result_names,
                          const std::vector<Type>& types, const std::vector<DataChunk>& chunks,
                          const ParquetWriteOptions& opt, unsigned threads) {
  // Readers refuse repeated names: a repeat gets _1, _2 (as DuckDB writes them).
  for (size_t c = 0; c < types.size(); c++)
    if (types[c].id == TypeId::Interval)
      throw UserError(ErrorKind::Unsupported, "COPY TO Parquet: column \"" + result_names[c] +
                                                  "\" of type INTERVAL is not supported yet");
  const std::vector<std::string> names = UniqueColumnNames(result_names);
#ifndef TESSERA_HAVE_ZSTD
  if (opt.codec == ParquetWriteOptions::Codec::Zstd)
    throw UserError(ErrorKind::Unsupported,
                    "COPY ... TO parquet with COMPRESSION zstd: zstd support was not built in "
                    "(use snappy, gzip or uncompressed)");
#endif
  const size_t ncols = types.size();
  // Row groups of opt.row_group_size rows, as segments of the result's chunks.
  std::vector<std::vector<Segment>> groups;
  std::vector<uint64_t> group_rows;
  uint64_t rows = 0;
  for (const DataChunk& c : chunks) {
    uint32_t at = 0;
    while (at < c.size) {
      if (groups.empty() || group_rows.back() == opt.row_group_size) {
        groups.emplace_back();
        group_rows.push_back(0);
      }
      uint32_t n = (uint32_t)std::min<uint64_t>(c.size - at, opt.row_group_size - group_rows.back());
      groups.back().push_back({&c, at, n});
      group_rows.back() += n;
      at += n;
    }
    rows += c.size;
  }

  // Encode every (row group, column) chunk in parallel.
  std::vector<EncodedChunk> encoded(groups.size() * ncols);
  ParallelFor(encoded.size(), threads, [&](uint64_t i, unsigned) {
    size_t g = i / ncols, c = i % ncols;
    encoded[i] = EncodeChunk(groups[g], c, types[c], opt.codec);
  });

  OutputFile file(path);
  file.Write(std::string_view(parquet::kMagic, 4));
  std::vector<uint64_t> offsets(encoded.size());
  for (size_t i = 0; i < encoded.size(); i++) {
    offsets[i] = file.written();
    file.Write(encoded[i].bytes);
  }

  ThriftWriter w;
  w.I32(1, 1);  // version
  w.BeginList(2, ThriftWriter::kStruct, ncols + 1);
  w.BeginElemStruct();  // the root
  w.I32(3, (int32_t)parquet::Repetition::REQUIRED);
  w.Binary(4, "tessera_schema");
  w.I32(5, (int32_t)ncols);
  w.EndStruct();
  for (size_t c = 0; c < ncols; c++) WriteSchemaElement(w, names[c], types[c]);
  w.I64(3, (int64_t)rows);
  w.BeginList(4, ThriftWriter::kStruct, groups.size());
  for (size_t g = 0; g < groups.size(); g++) {
    w.BeginElemStruct();  // RowGroup
    uint64_t total_uncompressed = 0, total_compressed = 0;
    w.BeginList(1, ThriftWriter::kStruct, ncols);
    for (size_t c = 0; c < ncols; c++) {
      const EncodedChunk& e = encoded[g * ncols + c];
      const uint64_t off = offsets[g * ncols + c];
      total_uncompressed += e.uncompressed;
      total_compressed += e.bytes.size();
      w.BeginElemStruct();  // ColumnChunk
      w.I64(2, (int64_t)off);
      w.BeginStruct(3);  // ColumnMetaData
      w.I32(1, (int32_t)FormatOf(types[c]).physical);
      w.BeginList(2, ThriftWriter::kI32, e.dict_page_bytes ? 3 : 2);
      w.ElemI32((int32_t)Encoding::PLAIN);
      w.ElemI32((int32_t)Encoding::RLE);
      if (e.dict_page_bytes) w.ElemI32((int32_t)Encoding::RLE_DICTIONARY);
      w.BeginList(3, ThriftWriter::kBinary, 1);
      w.ElemBinary(names[c]);
      w.I32(4, (int32_t)CodecOf(opt.codec));
      w.I64(5, (int64_t)e.values);
      w.I64(6, (int64_t)e.uncompressed);
      w.I64(7, (int64_t)e.bytes.size());
      w.I64(9, (int64_t)(off + e.dict_page_bytes));  // the first data page
      if (e.dict_page_bytes) w.I64(11, (int64_t)off);
      w.BeginStruct(12);  // Statistics
      w.I64(3, (int64_t)e.stats.nulls);
      if (HasMinMax(types[c], e.stats)) {
        std::string mx, mn;
        StatValue(types[c], e.stats, true, mx);
        StatValue(types[c], e.stats, false, mn);
        w.Binary(5, mx);
        w.Binary(6, mn);
      }
      w.EndStruct();
      w.EndStruct();
      w.EndStruct();
    }
    w.I64(2, (int64_t)total_uncompressed);
    w.I64(3, (int64_t)group_rows[g]);
    w.I64(5, (int64_t)offsets[g * ncols]);
    w.I64(6, (int64_t)total_compressed);
    if (g <= INT16_MAX) w.I16(7, (int16_t)g);  // ordinal
    w.EndStruct();
  }
  w.Binary(6, "tessera");
  // column_orders: TYPE_ORDER for every column, so readers trust min_value/max_value.
  w.BeginList(7, ThriftWriter::kStruct, ncols);
  for (size_t c = 0; c < ncols; c++) {
    w.BeginElemStruct();
    w.BeginStruct(1);
    w.EndStruct();
    w.EndStruct();
  }
  w.Finish();
  file.Write(w.bytes());
  std::string tail;
  PutLE(tail, (uint32_t)w.bytes().size(), 4);
  tail.append(parquet::kMagic, 4);
  file.Write(tail);
  file.Commit();
  return rows;
}

}  // namespace tessera
