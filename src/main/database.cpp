#include "main/database.hpp"

#include <chrono>

#include "common/interrupt.hpp"
#include "common/parallel.hpp"
#include "gpu/gpu_executor.hpp"
#include "main/allocator_tuning.hpp"
#include "main/plan_cache.hpp"
#include "main/prepared_query.hpp"
#include "main/statement_executor.hpp"
#include "parser/parser.hpp"
#include "storage/disk_backend.hpp"

namespace tessera {

Value QueryResult::GetValue(size_t col, uint64_t row) const {
  for (auto& c : chunks) {
    if (row < c.size) return c.cols[col].GetValue((uint32_t)row);
    row -= c.size;
  }
  throw InternalError("result row out of range");
}

std::vector<std::vector<std::string>> QueryResult::ToStrings() const {
  std::vector<std::vector<std::string>> rows;
  for (auto& c : chunks)
    for (uint32_t r = 0; r < c.size; r++) {
      std::vector<std::string> row;
      for (auto& col : c.cols) row.push_back(col.GetValue(r).ToString());
      rows.push_back(std::move(row));
    }
  return rows;
}

Database::Database(const std::string& path) : path_(path), plan_cache_(std::make_unique<PlanCache>()) {
  TuneAllocatorOnce();
  if (path.empty() || path == ":memory:") catalog_ = std::make_unique<Catalog>();
  else catalog_ = std::make_unique<Catalog>(OpenDiskBackend(path));
}

Database::~Database() {
  if (device_opener_.joinable()) device_opener_.join();
}

void Database::OpenDeviceEarly() {
  if (settings_.device == "cpu" || device_opener_.joinable()) return;
  device_opener_ = gpu::OpenGpuInBackground();
}

unsigned Database::threads() const {
  return settings_.threads ? settings_.threads : HardwareThreads();
}

namespace {
using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

std::vector<QueryResult> Connection::ExecuteAll(std::string_view sql) {
  auto t0 = Clock::now();
  interrupted_.store(false);
  InterruptScope interrupt_scope(&interrupted_);
  // A single SELECT is looked up in the plan cache by its text and the device setting;
  // the catalog's version tells whether the plan still holds.
  std::string key;
  std::unique_ptr<PlanCacheEntry> entry;
  double parse_ms = 0;
  std::vector<std::unique_ptr<ast::Statement>> stmts;
  if (db_.settings().plan_cache) {
    key = db_.settings().device + '\n' + std::string(sql);
    entry = db_.plan_cache().Take(key, db_.catalog().version());
  }
  if (!entry) {
    stmts = ParseSQL(sql);
    parse_ms = MsSince(t0);
    if (db_.settings().plan_cache && stmts.size() == 1 && stmts[0]->kind == ast::StmtKind::Select) {
      entry = std::make_unique<PlanCacheEntry>();
      entry->key = std::move(key);
      entry->catalog_version = db_.catalog().version();  // before preparing: a change meanwhile makes it stale
      entry->statement = std::move(stmts[0]);
      entry->query = PrepareSelect(db_, *static_cast<const ast::SelectStatement&>(*entry->statement).select);
    }
  }
  std::vector<QueryResult> results;
  if (entry) {
    const bool cached = !entry->fresh;
    QueryResult r = RunPrepared(db_, *static_cast<const ast::SelectStatement&>(*entry->statement).select,
                                entry->query);  // throws: the entry is dropped
    r.phases.parse_ms = parse_ms;
    r.phases.plan_cached = cached;
    r.elapsed_ms = MsSince(t0);
    if (entry->query.cacheable) db_.plan_cache().Put(std::move(entry), db_.catalog().version());
    results.push_back(std::move(r));
    return results;
  }
  for (auto& s : stmts) {
    CheckInterrupt(&interrupted_);
    auto t1 = Clock::now();
    QueryResult r = ExecuteStatement(db_, *s);
    r.elapsed_ms = MsSince(t1);
    if (stmts.size() == 1) r.phases.parse_ms = parse_ms;
    results.push_back(std::move(r));
  }
  return results;
}

QueryResult Connection::Query(std::string_view sql) {
  auto results = ExecuteAll(sql);
  if (results.empty()) throw UserError(ErrorKind::Syntax, "no statement to execute");
  return std::move(results.back());
}

}  // namespace tessera
