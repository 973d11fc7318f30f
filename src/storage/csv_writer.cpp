#include "storage/csv_writer.hpp"

#include <charconv>
#include <cstdio>
#include <cstring>

#include "common/date.hpp"
#include "common/decimal.hpp"
#include "common/error.hpp"
#include "common/interval.hpp"
#include "storage/output_file.hpp"

namespace tessera {

namespace {

class CsvFormatter {
 public:
  explicit CsvFormatter(const CsvWriteOptions& opt) : opt_(opt) {
    special_[0] = opt.delimiter;
    special_[1] = opt.quote;
    special_[2] = '\n';
    special_[3] = '\r';
  }

  void Field(std::string& out, std::string_view text) const {
    bool quote = text.empty() || (!opt_.null_str.empty() && text == opt_.null_str) ||
                 text.find_first_of(std::string_view(special_, 4)) != std::string_view::npos;
    if (!quote) {
      out.append(text);
      return;
    }
    out.push_back(opt_.quote);
    for (char c : text) {
      if (c == opt_.quote) out.push_back(c);
      out.push_back(c);
    }
    out.push_back(opt_.quote);
  }

  void Value(std::string& out, const Vector& v, const Type& t, uint32_t r) const {
    if (!v.IsValid(r)) {
      out.append(opt_.null_str);
      return;
    }
    char buf[64];
    switch (t.id) {
      case TypeId::Varchar: Field(out, v.data<StrRef>()[r]); return;
      case TypeId::Integer: {
        auto e = std::to_chars(buf, buf + sizeof buf, v.data<int32_t>()[r]).ptr;
        Field(out, std::string_view(buf, (size_t)(e - buf)));
        return;
      }
      case TypeId::BigInt: {
        auto e = std::to_chars(buf, buf + sizeof buf, v.data<int64_t>()[r]).ptr;
        Field(out, std::string_view(buf, (size_t)(e - buf)));
        return;
      }
      case TypeId::Decimal: {
        int128_t x = t.physical() == PhysType::I64 ? (int128_t)v.data<int64_t>()[r] : v.data<int128_t>()[r];
        Field(out, FormatDecimal(x, t.scale));
        return;
      }
      case TypeId::Double: Field(out, FormatDouble(v.data<double>()[r])); return;
      case TypeId::Date: Field(out, FormatDate(v.data<int32_t>()[r])); return;
      case TypeId::Timestamp: Field(out, FormatTimestamp(v.data<int64_t>()[r])); return;
      case TypeId::Time: Field(out, FormatTime(v.data<int64_t>()[r])); return;
      case TypeId::Interval: Field(out, FormatInterval(UnpackInterval(v.data<int128_t>()[r]))); return;
      case TypeId::Blob: Field(out, FormatBlob(v.data<StrRef>()[r])); return;
      case TypeId::Boolean: Field(out, v.data<uint8_t>()[r] ? "true" : "false"); return;
      case TypeId::Null: out.append(opt_.null_str); return;
    }
  }

 private:
  const CsvWriteOptions& opt_;
  char special_[4];
};

}  // namespace

uint64_t WriteCsvFile(const std::string& path, const std::vector<std::string>& names,
                      const std::vector<Type>& types, const std::vector<DataChunk>& chunks,
                      const CsvWriteOptions& opt) {
  CsvFormatter fmt(opt);
  OutputFile file(path);
  std::string buf;
  buf.reserve(1 << 20);
  if (opt.header) {
    for (size_t c = 0; c < names.size(); c++) {
      if (c) buf.push_back(opt.delimiter);
      fmt.Field(buf, names[c]);
    }
    buf.push_back('\n');
  }
  uint64_t rows = 0;
  for (const DataChunk& chunk : chunks) {
    for (uint32_t r = 0; r < chunk.size; r++) {
      for (size_t c = 0; c < types.size(); c++) {
        if (c) buf.push_back(opt.delimiter);
        fmt.Value(buf, chunk.cols[c], types[c], r);
      }
      buf.push_back('\n');
      if (buf.size() >= (1u << 20)) {
        file.Write(buf);
        buf.clear();
      }
    }
    rows += chunk.size;
  }
  file.Write(buf);
  file.Commit();
  return rows;
}

}  // namespace tessera
