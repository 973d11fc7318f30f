// The format versions of a database directory's row-group files (`*.trg`: the version is
// the 32-bit word at byte 8 of the header), for tests of storage format upgrades.
#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

inline std::vector<uint32_t> RowGroupFileVersions(const std::string& dir) {
  std::vector<uint32_t> v;
  for (auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".trg") continue;
    std::ifstream f(e.path(), std::ios::binary);
    char h[12];
    f.read(h, 12);
    uint32_t version;
    std::memcpy(&version, h + 8, 4);
    v.push_back(version);
  }
  return v;
}
