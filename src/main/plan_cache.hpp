// The plan cache: prepared SELECTs by SQL text (and device setting), valid while the
// catalog's version is the one they were prepared at. A repeated query skips parsing,
// binding, optimisation, physical planning and GPU code generation; its compiled kernels
// and uploaded dictionary bitmaps stay with it. Least recently used entries go first.
// An entry is taken out while it runs, so two threads never run one plan at once.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "main/prepared_query.hpp"

namespace tessera {

struct PlanCacheEntry {
  std::string key;
  bool fresh = true;  // prepared for this run (not taken from the cache)
  bool cacheable = true;  // false: reads files (FROM 'f.parquet'), which may change
  uint64_t catalog_version = 0;
  std::unique_ptr<ast::Statement> statement;  // the parsed SELECT (binding refers to it)
  PreparedQuery query;
};

struct PlanCacheStats {
  uint64_t hits = 0;       // runs of a cached plan
  uint64_t prepared = 0;   // plans prepared and put into the cache
  uint64_t evictions = 0;  // least recently used entries dropped for room
  uint64_t stale = 0;      // entries dropped because the catalog changed
  size_t entries = 0;
};

class PlanCache {
 public:
  explicit PlanCache(size_t capacity = 64) : capacity_(capacity) {}
  // The entry for `key` prepared at `catalog_version`, taken out of the cache (nullptr
  // when there is none). Every entry of another version is dropped first.
  std::unique_ptr<PlanCacheEntry> Take(const std::string& key, uint64_t catalog_version);
  // Puts an entry (back) as the most recently used one, unless it was prepared at another
  // version than the current `catalog_version` (then it is dropped, with every other such).
  void Put(std::unique_ptr<PlanCacheEntry> entry, uint64_t catalog_version);
  void Clear();
  PlanCacheStats stats() const;

 private:
  void DropStaleLocked(uint64_t catalog_version, std::list<std::unique_ptr<PlanCacheEntry>>& stale);
  size_t capacity_;
  mutable std::mutex mu_;
  std::list<std::unique_ptr<PlanCacheEntry>> entries_;  // most recently used first
  PlanCacheStats stats_;
};

}  // namespace tessera
