// Append-only arena that owns the bytes of strings created during execution.
#pragma once
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace tessera {

class StringHeap {
 public:
  std::string_view Add(std::string_view s) {
    if (s.empty()) return {};
    if (s.size() > kBlock / 4) {
      big_.emplace_back(new char[s.size()]);
      std::memcpy(big_.back().get(), s.data(), s.size());
      return {big_.back().get(), s.size()};
    }
    if (blocks_.empty() || used_ + s.size() > kBlock) {
      blocks_.emplace_back(new char[kBlock]);
      used_ = 0;
    }
    char* p = blocks_.back().get() + used_;
    std::memcpy(p, s.data(), s.size());
    used_ += s.size();
    return {p, s.size()};
  }

 private:
  static constexpr size_t kBlock = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::unique_ptr<char[]>> big_;
  size_t used_ = 0;
};

}  // namespace tessera
