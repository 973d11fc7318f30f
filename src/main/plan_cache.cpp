#include "main/plan_cache.hpp"

namespace tessera {

// Moves every entry prepared at another catalog version into `stale` (freed by the caller
// outside the lock): a stale plan still holds its table snapshots and, on the GPU, their
// resident columns, which the catalog and the column cache have let go of.
void PlanCache::DropStaleLocked(uint64_t catalog_version, std::list<std::unique_ptr<PlanCacheEntry>>& stale) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if ((*it)->catalog_version == catalog_version) {
      ++it;
      continue;
    }
    stale.push_back(std::move(*it));
    it = entries_.erase(it);
    stats_.stale++;
  }
}

std::unique_ptr<PlanCacheEntry> PlanCache::Take(const std::string& key, uint64_t catalog_version) {
  std::list<std::unique_ptr<PlanCacheEntry>> stale;
  std::lock_guard<std::mutex> g(mu_);
  DropStaleLocked(catalog_version, stale);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if ((*it)->key != key) continue;
    std::unique_ptr<PlanCacheEntry> found = std::move(*it);
    entries_.erase(it);
    stats_.hits++;
    return found;
  }
  return nullptr;
}

void PlanCache::Put(std::unique_ptr<PlanCacheEntry> entry, uint64_t catalog_version) {
  std::list<std::unique_ptr<PlanCacheEntry>> evicted;
  std::lock_guard<std::mutex> g(mu_);
  DropStaleLocked(catalog_version, evicted);
  if (entry->catalog_version != catalog_version) return;  // the catalog changed while it ran
  if (entry->fresh) stats_.prepared++;
  entry->fresh = false;
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if ((*it)->key == entry->key) {  // the same text prepared twice by two threads
      evicted.push_back(std::move(*it));
      entries_.erase(it);
      break;
    }
  entries_.push_front(std::move(entry));
  while (entries_.size() > capacity_) {
    evicted.push_back(std::move(entries_.back()));
    entries_.pop_back();
    stats_.evictions++;
  }
}

void PlanCache::Clear() {
  std::list<std::unique_ptr<PlanCacheEntry>> gone;
  std::lock_guard<std::mutex> g(mu_);
  gone.swap(entries_);
}

PlanCacheStats PlanCache::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  PlanCacheStats s = stats_;
  s.entries = entries_.size();
  return s;
}

}  // namespace tessera
