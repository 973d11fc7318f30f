#include "storage/file_input.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace tessera {

namespace {

[[noreturn]] void IoError(const char* what, const std::string& path, int e, int fd = -1) {
  if (fd >= 0) ::close(fd);
  throw UserError(ErrorKind::IO, std::string(what) + " file \"" + path + "\": " + std::strerror(e));
}

}  // namespace

FileInput::FileInput(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) IoError("could not open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) IoError("could not read", path, errno, fd);
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw UserError(ErrorKind::IO, "could not read file \"" + path + "\": it is a directory");
  }
  if (S_ISREG(st.st_mode)) {
    if (st.st_size > 0) {
      void* m = ::mmap(nullptr, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) IoError("could not map", path, errno, fd);
      ::madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
      map_ = m;
      map_size_ = (size_t)st.st_size;
      data_ = static_cast<const char*>(m);
      size_ = map_size_;
    }
    ::close(fd);
  } else {
    // Pipes and devices: read everything.
    char buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        IoError("could not read", path, errno, fd);
      }
      if (n == 0) break;
      buffer_.append(buf, (size_t)n);
    }
    ::close(fd);
    data_ = buffer_.data();
    size_ = buffer_.size();
  }
  file_size_ = size_;
  compression_ = DetectCompression(data_, size_);
  if (compression_ != Compression::None) {
    std::string plain;
    try {
      plain = Decompress(compression_, data_, size_, path);
    } catch (...) {
      if (map_) ::munmap(map_, map_size_);
      throw;
    }
    if (map_) {
      ::munmap(map_, map_size_);
      map_ = nullptr;
    }
    buffer_ = std::move(plain);
    data_ = buffer_.data();
    size_ = buffer_.size();
  }
}

FileInput::~FileInput() {
  if (map_) ::munmap(map_, map_size_);
}

}  // namespace tessera
