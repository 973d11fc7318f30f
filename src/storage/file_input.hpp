// An input file's bytes for COPY ... FROM: memory-mapped when it is a plain regular file,
// read into memory from pipes and devices, decompressed into memory when its magic bytes
// say gzip or zstd (decompress.hpp).
#pragma once
#include <cstddef>
#include <string>

#include "storage/decompress.hpp"

namespace tessera {

class FileInput {
 public:
  // Throws UserError(IO) naming `path` when it cannot be opened, read or decompressed.
  explicit FileInput(const std::string& path);
  ~FileInput();
  FileInput(const FileInput&) = delete;
  FileInput& operator=(const FileInput&) = delete;

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  Compression compression() const { return compression_; }
  size_t file_size() const { return file_size_; }  // on disk (compressed)

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t file_size_ = 0;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::string buffer_;
  Compression compression_ = Compression::None;
};

}  // namespace tessera
