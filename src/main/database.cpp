#include "main/database.hpp"

#include <chrono>

#include "common/parallel.hpp"
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

Database::Database(const std::string& path) : path_(path) {
  if (path.empty() || path == ":memory:") catalog_ = std::make_unique<Catalog>();
  else catalog_ = std::make_unique<Catalog>(OpenDiskBackend(path));
}

Database::~Database() = default;

unsigned Database::threads() const {
  return settings_.threads ? settings_.threads : HardwareThreads();
}

std::vector<QueryResult> Connection::ExecuteAll(std::string_view sql) {
  auto stmts = ParseSQL(sql);
  std::vector<QueryResult> results;
  for (auto& s : stmts) {
    auto t0 = std::chrono::steady_clock::now();
    QueryResult r = ExecuteStatement(db_, *s);
    r.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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
