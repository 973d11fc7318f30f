// A file written by COPY ... TO: written to a new file beside `path` first and renamed
// over `path` by Commit(), so a failure (UserError(IO) naming the file) leaves no partial
// file and an existing `path` untouched. Shared by the CSV and Parquet writers.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace tessera {

class OutputFile {
 public:
  explicit OutputFile(std::string path) : path_(std::move(path)) {
    static std::atomic<uint64_t> counter{0};
    tmp_ = path_ + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0) Fail(errno);
  }
  ~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(tmp_.c_str());
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void Write(std::string_view bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        Fail(errno);
      }
      done += (size_t)n;
    }
    written_ += bytes.size();
  }
  uint64_t written() const { return written_; }  // bytes so far (the next write's offset)

  void Commit() {
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) Fail(errno);
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) Fail(errno);
    committed_ = true;
  }

 private:
  [[noreturn]] void Fail(int e) const {
    throw UserError(ErrorKind::IO, "could not write file \"" + path_ + "\": " + std::strerror(e));
  }
  std::string path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
  uint64_t written_ = 0;
};

}  // namespace tessera
