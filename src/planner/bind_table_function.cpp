// FROM 'file' and FROM read_parquet(...) / read_csv(...): files read as tables
// (storage/file_table.hpp). The table is named after the function, or for a bare file
// name after the file (its name without directory and extensions), as DuckDB does.
// range(n), range(a, b[, step]) (b excluded) and generate_series(...) (b included): one
// BIGINT column named after the function, made when the query is bound; over DATE or
// TIMESTAMP bounds with an INTERVAL step, a TIMESTAMP column.
#include "execution/expression_executor.hpp"
#include "common/interval.hpp"
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

// One column of `type` named after the function, over the rows `writer` holds.
std::shared_ptr<const TableEntry> SeriesEntry(const std::string& fn, Type type, RowGroupWriter* writer, uint64_t rows) {
  auto e = std::make_shared<TableEntry>();
  e->schema.name = fn;
  e->schema.columns.push_back({fn, type, false});
  auto data = std::make_shared<TableData>();
  if (writer) data->row_groups = writer->Finish();
  data->row_count = rows;
  e->data = std::move(data);
  return e;
}

// range / generate_series(start, stop, INTERVAL step) over DATE or TIMESTAMP bounds: TIMESTAMP
// values start, start + step, (start + step) + step, ... (each from the one before, as
// DuckDB, so a month step from Jan 31 stays at the 29th once it met February) while before
// stop (or at it, for generate_series); a step that is zero, or mixes signs, is an error.
std::shared_ptr<const TableEntry> TemporalSeries(const std::string& fn, const std::vector<Value>& args, SourcePos pos) {
  const bool inclusive = fn == "generate_series";
  for (const Value& a : args)
    if (a.is_null()) return SeriesEntry(fn, Type::Timestamp(), nullptr, 0);
  const int64_t start = (int64_t)args[0].CastTo(Type::Timestamp()).int_value();
  const int64_t stop = (int64_t)args[1].CastTo(Type::Timestamp()).int_value();
  const IntervalParts step = UnpackInterval(args[2].int_value());
  const bool pos_step = step.months > 0 || step.days > 0 || step.micros > 0;
  const bool neg_step = step.months < 0 || step.days < 0 || step.micros < 0;
  if (!pos_step && !neg_step) throw BindError(fn + ": the interval step must not be 0", pos);
  if (pos_step && neg_step)
    throw BindError(fn + ": the interval step must be all positive or all negative", pos);
  RowGroupWriter writer({Type::Timestamp()});
  DataChunk chunk;
  chunk.Init({Type::Timestamp()});
  uint64_t rows = 0;
  int64_t cur = start;
  bool more = true;
  auto before_end = [&](int64_t x) { return pos_step ? (inclusive ? x <= stop : x < stop) : (inclusive ? x >= stop : x > stop); };
  while (more && before_end(cur)) {
    uint32_t n = 0;
    int64_t* out = chunk.cols[0].data<int64_t>();
    while (n < kVectorSize && more && before_end(cur)) {
      out[n++] = cur;
      more = TimestampPlusInterval(cur, step, &cur);  // past the largest TIMESTAMP: done
    }
    chunk.size = n;
    writer.Append(chunk);
    rows += n;
    if (rows > ((uint64_t)1 << 32))
      throw UserError(ErrorKind::Unsupported, fn + " of more than 2^32 rows is not supported", pos);
  }
  return SeriesEntry(fn, Type::Timestamp(), &writer, rows);
}

// The rows of range / generate_series, as a temporary table.
std::shared_ptr<const TableEntry> SeriesTable(const std::string& fn, const std::vector<Value>& args, SourcePos pos) {
  const bool inclusive = fn == "generate_series";
  if (args.size() == 3 && args[2].type().id == TypeId::Interval) return TemporalSeries(fn, args, pos);
  if (args.empty() || args.size() > 3)
    throw BindError(fn + " takes one to three arguments (start, stop, step)", pos);
  int64_t v[3] = {0, 0, 1};
  for (size_t i = 0; i < args.size(); i++) {
    if (args[i].is_null()) return SeriesEntry(fn, Type::BigInt(), nullptr, 0);
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
  return SeriesEntry(fn, Type::BigInt(), &writer, (uint64_t)count);
}

}  // namespace

LogicalOpPtr Binder::BindTableFunction(const ast::TableRef& ref, Scope& scope) {
  if (ref.name == "range" || ref.name == "generate_series") {
    if (!ref.func_paths.empty() || !ref.func_options.empty())
      throw BindError(ref.name + " takes integer arguments, or DATE/TIMESTAMP bounds and an INTERVAL step", ref.pos);
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
