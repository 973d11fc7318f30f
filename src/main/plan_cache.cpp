#include "main/plan_cache.hpp"

namespace tessera {

std::unique_ptr<PlanCacheEntry> PlanCache::Take(const std::string& key, uint64_t catalog_version) {
  std::unique_ptr<PlanCacheEntry> found;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if ((*it)->key != key) continue;
      found = std::move(*it);
      entries_.erase(it);
      break;
    }
    if (found && found->catalog_version == catalog_version) {
      stats_.hits++;
      return found;
    }
    stats_.misses++;
  }
  return nullptr;  // a stale entry is freed here, outside the lock
}

void PlanCache::Put(std::unique_ptr<PlanCacheEntry> entry) {
  std::list<std::unique_ptr<PlanCacheEntry>> evicted;
  std::lock_guard<std::mutex> g(mu_);
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
