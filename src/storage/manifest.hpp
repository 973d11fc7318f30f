// The manifest (catalog.tsm): the database's catalog and the list of row-group files each
// table consists of. Replacing it (rename) is a commit's one commit point. Layout in
// manifest.cpp.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "storage/catalog.hpp"
#include "storage/row_group_file.hpp"

namespace tessera::disk {

struct FileInfo {
  std::shared_ptr<const RowGroup> rg;  // the mapped row group (identity of the file)
  uint64_t size = 0;
  uint32_t dir_crc = 0;
};

struct ManifestTable {
  TableSchema schema;
  uint64_t row_count = 0;
  std::vector<RowGroupRef> groups;
  std::string view_sql;  // a view: no schema or groups
  std::vector<std::string> view_columns;
};

// The manifest of `state` (views, tables and sequences; temporary tables already left out) whose row
// groups are the files in `files` (by RowGroup::file_id).
std::string SerializeManifest(uint64_t next_id, const CatalogState& state,
                              const std::map<std::string, FileInfo>& files);
// A sequence as the manifest keeps it: its definition and position.
struct ManifestSequence {
  SequenceDef def;
  int64_t next = 0;
  bool past = false, used = false;
  int64_t last = 0;
};

// Parses and checks a manifest read from `path`; throws UserError(IO) when it is corrupt.
// `sequences` (when not null) receives its sequences.
std::vector<ManifestTable> ParseManifest(const std::string& data, const std::string& path,
                                         uint64_t* next_id, std::vector<ManifestSequence>* sequences = nullptr);

}  // namespace tessera::disk
