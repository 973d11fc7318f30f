// FROM 'file' and FROM read_parquet(...) / read_csv(...): files read as tables
// (storage/file_table.hpp). The table is named after the function, or for a bare file
// name after the file (its name without directory and extensions), as DuckDB does.
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "storage/file_table.hpp"

namespace tessera {

namespace {

std::string FileStem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base;
}

}  // namespace

LogicalOpPtr Binder::BindTableFunction(const ast::TableRef& ref, Scope& scope) {
  FileTableRequest req;
  req.function = ref.name;
  req.patterns = ref.func_paths;
  req.options = ref.func_options;
  req.pos = ref.pos;
  auto entry = OpenFileTable(req);
  std::string name = ref.name.empty() ? FileStem(ref.func_paths.empty() ? std::string() : ref.func_paths[0])
                                      : ref.name;
  return BindTableEntry(std::move(entry), ref, scope, &name);
}

}  // namespace tessera
