// FROM 'file' and FROM read_parquet(...) / read_csv(...): files read as tables
// (storage/file_table.hpp). The table is named after the function, or for a bare file
// name after the file (its name without directory and extensions), as DuckDB does.
// range(n), range(a, b[, step]) (b excluded) and generate_series(...) (b included): one
// BIGINT column named after the function, made when the query is bound.
#include "execution/expression_executor.hpp"
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

// The rows of range / generate_series, as a temporary table.
std::shared_ptr<const TableEntry> SeriesTable(const std::string& fn, const std::vector<Value>& args, SourcePos pos) {
  const bool inclusive = fn == "generate_series";
  if (args.empty() || args.size() > 3)
    throw BindError(fn + " takes one to three arguments (start, stop, step)", pos);
  int64_t v[3] = {0, 0, 1};
  for (size_t i = 0; i < args.size(); i++) {
    if (args[i].is_null()) {
      auto e = std::make_shared<TableEntry>();
      e->schema.name = fn;
      e->schema.columns.push_back({fn, Type::BigInt(), false});
      e->data = std::make_shared<TableData>();
      return e;
    }
    v[args.size() == 1 ? 1 : i] = args[i].CastTo(Type::BigInt()).int_value();
  }
  const int64_t start = v[0], stop = v[1], step = v[2];
  if (step == 0) throw BindError(fn + ": the step must not be 0", pos);
  // Count the values without overflow: (stop - start) / step, rounded as the end demands.
  __int128 span = (__int128)stop - start;
  __int128 count = 0;
  if ((span > 0 && step > 0) || (span < 0 && step < 0) || (span == 0 && inclusive)) {
    count = span / step + 1;
    if (!inclusive && span % step == 0) count--;
  }
  if (count > ((__int128)1 << 32))
    throw UserError(ErrorKind::Unsupported, fn + " of more than 2^32 rows is not supported", pos);
  RowGroupWriter writer({Type::BigInt()});
  DataChunk chunk;
  chunk.Init({Type::BigInt()});
  __int128 x = start;
  for (__int128 done = 0; done < count;) {
    const uint32_t n = (uint32_t)std::min<__int128>(kVectorSize, count - done);
    int64_t* out = chunk.cols[0].data<int64_t>();
    for (uint32_t i = 0; i < n; i++, x += step) out[i] = (int64_t)x;
    chunk.size = n;
    writer.Append(chunk);
    done += n;
  }
  auto data = std::make_shared<TableData>();
  data->row_groups = writer.Finish();
  data->row_count = (uint64_t)count;
  auto e = std::make_shared<TableEntry>();
  e->schema.name = fn;
  e->schema.columns.push_back({fn, Type::BigInt(), false});
  e->data = std::move(data);
  return e;
}

}  // namespace

LogicalOpPtr Binder::BindTableFunction(const ast::TableRef& ref, Scope& scope) {
  if (ref.name == "range" || ref.name == "generate_series") {
    if (!ref.func_paths.empty() || !ref.func_options.empty())
      throw BindError(ref.name + " takes integer arguments", ref.pos);
    std::vector<Value> args;
    for (auto& a : ref.func_args) args.push_back(EvaluateConstant(*BindStandalone(*a)));
    auto entry = SeriesTable(ref.name, args, ref.pos);
    return BindTableEntry(std::move(entry), ref, scope, &ref.name);
  }
  CheckFileTableFunction(ref.name, ref.pos);
  if (!ref.func_args.empty())
    throw BindError("expected a file name in single quotes, a list of them or name = value", ref.func_args[0]->pos);
  FileTableRequest req;
  req.function = ref.name;
  req.patterns = ref.func_paths;
  req.options = ref.func_options;
  req.pos = ref.pos;
  req.threads = file_threads_;
  auto entry = OpenFileTable(req);
  reads_files_ = true;
  std::string name = ref.name.empty() ? FileStem(ref.func_paths.empty() ? std::string() : ref.func_paths[0])
                                      : ref.name;
  return BindTableEntry(std::move(entry), ref, scope, &name);
}

}  // namespace tessera
