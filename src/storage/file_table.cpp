// Files read as tables: glob expansion and the choice of reader (file_table.hpp).
#include "storage/file_table.hpp"

#include <glob.h>

#include <algorithm>
#include <cstdio>

#include "common/ascii.hpp"

namespace tessera {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool HasGlob(const std::string& p) { return p.find_first_of("*?[") != std::string::npos; }

enum class FileKind { Parquet, Csv, Unknown };

FileKind KindFromName(std::string name) {
  name = AsciiLower(name);
  for (const char* z : {".gz", ".zst", ".gzip", ".zstd"})
    if (EndsWith(name, z)) name.resize(name.size() - std::string(z).size());
  if (EndsWith(name, ".parquet") || EndsWith(name, ".parq")) return FileKind::Parquet;
  for (const char* c : {".csv", ".tsv", ".tbl", ".txt", ".dat"})
    if (EndsWith(name, c)) return FileKind::Csv;
  return FileKind::Unknown;
}

FileKind KindFromBytes(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return FileKind::Unknown;
  char magic[4] = {};
  size_t n = std::fread(magic, 1, 4, f);
  std::fclose(f);
  return n == 4 && std::string(magic, 4) == "PAR1" ? FileKind::Parquet : FileKind::Csv;
}

}  // namespace

bool IsParquetFile(const std::string& path) {
  FileKind k = KindFromName(path);
  if (k == FileKind::Unknown) k = KindFromBytes(path);
  return k == FileKind::Parquet;
}

std::vector<std::string> ExpandFilePatterns(const std::vector<std::string>& patterns, SourcePos pos) {
  if (patterns.empty()) throw UserError(ErrorKind::Binder, "expected a file name or pattern", pos);
  std::vector<std::string> files;
  for (const auto& p : patterns) {
    if (!HasGlob(p)) {
      FILE* f = std::fopen(p.c_str(), "rb");
      if (!f) throw UserError(ErrorKind::IO, "cannot open file \"" + p + "\"", pos);
      std::fclose(f);
      files.push_back(p);
      continue;
    }
    glob_t g{};
    int rc = glob(p.c_str(), 0, nullptr, &g);
    if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
      globfree(&g);
      throw UserError(ErrorKind::IO, "no files match \"" + p + "\"", pos);
    }
    if (rc != 0) {
      globfree(&g);
      throw UserError(ErrorKind::IO, "cannot read the files of \"" + p + "\"", pos);
    }
    std::vector<std::string> got(g.gl_pathv, g.gl_pathv + g.gl_pathc);
    globfree(&g);
    std::sort(got.begin(), got.end());
    files.insert(files.end(), got.begin(), got.end());
  }
  return files;
}

void CheckFileTableFunction(const std::string& function, SourcePos pos) {
  const std::string fn = AsciiLower(function);
  if (fn.empty() || fn == "read_parquet" || fn == "parquet_scan" || fn == "read_csv" || fn == "read_csv_auto") return;
  throw UserError(ErrorKind::Catalog,
                  "table function \"" + function +
                      "\" does not exist (known: read_parquet, parquet_scan, read_csv, read_csv_auto, range, "
                      "generate_series)",
                  pos);
}

std::shared_ptr<const TableEntry> OpenFileTable(const FileTableRequest& req) {
  CheckFileTableFunction(req.function, req.pos);
  const std::string fn = AsciiLower(req.function);
  FileKind kind = FileKind::Unknown;
  if (fn == "read_parquet" || fn == "parquet_scan") {
    kind = FileKind::Parquet;
  } else if (fn == "read_csv" || fn == "read_csv_auto") {
    kind = FileKind::Csv;
  }
  auto files = ExpandFilePatterns(req.patterns, req.pos);
  if (kind == FileKind::Unknown) kind = KindFromName(files[0]);
  if (kind == FileKind::Unknown) kind = KindFromBytes(files[0]);
  if (kind == FileKind::Parquet) return OpenParquetTable(files, req.options, req.pos, req.threads);
  return OpenCsvTable(files, req.options, req.pos, req.threads);
}

}  // namespace tessera
