// CSV files as tables (file_table.hpp): read_csv('f.csv.gz', header = true), FROM 'f.csv'.
//
// The first file's sample decides the dialect, the header and the columns (csv_sniffer:
// SniffCsv); every file is then read eagerly, in parallel, by the COPY reader
// (csv_reader: ReadCsvRowGroups) with those columns, so a value past the sample that does
// not convert is an error naming file, line and column, and nothing is loaded. Later
// files must have the same number of columns (and, with a header, the same header). The
// columns, names and types options replace sniffed names and types (ApplyGivenColumns).
#include <algorithm>
#include <memory>

#include "common/identifier.hpp"
#include "storage/csv_options.hpp"
#include "storage/csv_reader.hpp"
#include "storage/csv_scan.hpp"
#include "storage/csv_sniffer.hpp"
#include "storage/file_input.hpp"
#include "storage/file_table.hpp"

namespace tessera {

namespace {

void CheckCompression(const FileInput& in, ReadCsvOptions::Codec want, const std::string& path, SourcePos pos) {
  using Codec = ReadCsvOptions::Codec;
  if (want == Codec::Auto) return;
  Compression got = in.compression();
  bool ok = (want == Codec::None && got == Compression::None) || (want == Codec::Gzip && got == Compression::Gzip) ||
            (want == Codec::Zstd && got == Compression::Zstd);
  if (ok) return;
  const char* name = want == Codec::Gzip ? "gzip" : want == Codec::Zstd ? "zstd" : "uncompressed";
  throw UserError(ErrorKind::IO, "file \"" + path + "\" is not " + std::string(name) + " (compression option)", pos);
}

// The file's fields of its first record (the header) with the sniffed dialect.
std::vector<std::string> FirstRecord(const CsvText& t, const CsvOptions& opt) {
  if (t.begin >= t.end) return {};
  csv::Record r;
  csv::ReadRecord(t.begin, t.end, opt.delimiter, opt.quote, r);
  return r.values;
}

// Appends a VARCHAR column holding `value` in every row to each row group.
void AddConstantColumn(std::vector<std::shared_ptr<const RowGroup>>& groups, const std::string& value) {
  for (auto& g : groups) {
    auto ng = std::make_shared<RowGroup>(*g);
    ng->file_id.clear();
    ColumnChunkBuilder b(Type::Varchar());
    Value v = Value::Varchar(value);
    for (uint32_t i = 0; i < g->count; i++) b.AppendValue(v);
    ng->columns.push_back(b.Finish());
    g = std::move(ng);
  }
}

// The columns, names and types options over the sniffed columns (DuckDB's rules): columns
// replaces every name and type (and must list as many columns as the file has); names
// renames the first columns; types sets types by position (a list) or by name (a struct,
// each name one of the file's).
void ApplyGivenColumns(const ReadCsvOptions& ro, std::vector<ColumnDef>& cols, SourcePos pos) {
  auto too_many = [&](const char* option, size_t n) {
    return UserError(ErrorKind::Binder,
                     std::string("read_csv option ") + option + " gives " + std::to_string(n) +
                         " columns but the file has " + std::to_string(cols.size()),
                     pos);
  };
  if (!ro.columns.empty()) {
    if (ro.columns.size() != cols.size()) throw too_many("columns", ro.columns.size());
    for (size_t c = 0; c < cols.size(); c++) {
      cols[c].name = ro.columns[c].first;
      cols[c].type = ro.columns[c].second;
    }
  }
  if (ro.names.size() > cols.size()) throw too_many("names", ro.names.size());
  for (size_t c = 0; c < ro.names.size(); c++) cols[c].name = ro.names[c];
  if (ro.types_by_position.size() > cols.size()) throw too_many("types", ro.types_by_position.size());
  for (size_t c = 0; c < ro.types_by_position.size(); c++) cols[c].type = ro.types_by_position[c];
  for (auto& [name, type] : ro.types_by_name) {
    auto it = std::find_if(cols.begin(), cols.end(), [&](const ColumnDef& d) { return IdentEquals(d.name, name); });
    if (it == cols.end())
      throw UserError(ErrorKind::Binder, "read_csv option types names the column \"" + name + "\", which the file does not have", pos);
    it->type = type;
  }
}

}  // namespace

std::shared_ptr<const TableEntry> OpenCsvTable(const std::vector<std::string>& files, const FileOptionList& options,
                                               SourcePos pos, unsigned threads) {
  ReadCsvOptions ro = ParseReadCsvOptions(options, pos);
  try {
    auto entry = std::make_shared<TableEntry>();
    entry->temporary = true;
    entry->schema.name = "read_csv";
    auto data = std::make_shared<TableData>();
    csv::SniffedCsv sniffed;
    std::vector<std::string> first_header;
    for (size_t f = 0; f < files.size(); f++) {
      const std::string& path = files[f];
      FileInput in(path);
      CheckCompression(in, ro.compression, path, pos);
      CsvText text = CsvTextOf(in, ro.csv.skip);
      if (f == 0) {
        sniffed = csv::SniffCsv(text.begin, text.end, ro.csv, ro.sample_size);
        for (size_t c = 0; c < sniffed.names.size(); c++) {
          Type t = ro.all_varchar ? Type::Varchar() : sniffed.types[c];
          entry->schema.columns.push_back({sniffed.names[c], t, false});
        }
        ApplyGivenColumns(ro, entry->schema.columns, pos);
        if (sniffed.opt.header) first_header = FirstRecord(text, sniffed.opt);
        if (ro.filename)
          for (auto& c : entry->schema.columns)
            if (IdentEquals(c.name, "filename"))
              throw UserError(ErrorKind::Binder, "read_csv: the file already has a column \"filename\"", pos);
      } else if (sniffed.opt.header) {
        // Later files: the same header (or, headerless, the same column count, which the
        // reader checks on every record).
        auto h = FirstRecord(text, sniffed.opt);
        if (h != first_header) {
          throw UserError(ErrorKind::Input,
                          "file \"" + path + "\" does not match \"" + files[0] +
                              "\": its header differs (the files of one read_csv must have the same columns)",
                          pos);
        }
      }
      if (text.begin >= text.end) continue;
      // (The columns so far are the file's: filename is added after the loop.)
      auto groups = ReadCsvRowGroups(path, in, entry->schema.columns, sniffed.opt, threads);
      if (ro.filename) AddConstantColumn(groups, path);
      for (auto& g : groups) {
        data->row_count += g->count;
        data->row_groups.push_back(std::move(g));
      }
    }
    if (ro.filename) entry->schema.columns.push_back({"filename", Type::Varchar(), false});
    entry->data = std::move(data);
    return entry;
  } catch (const UserError& e) {
    if (e.pos().Known()) throw;
    std::string msg = e.raw();
    if (msg.find("could not convert") != std::string::npos && !ro.all_varchar && ro.columns.empty() &&
        ro.types_by_position.empty() && ro.types_by_name.empty())
      msg += " (the column types were sniffed from the first " +
             (ro.sample_size == UINT64_MAX ? std::string("records") : std::to_string(ro.sample_size) + " records") +
             ": sample_size = -1 sniffs the whole file, all_varchar = true reads text)";
    throw UserError(e.kind(), msg, pos);
  }
}

}  // namespace tessera
