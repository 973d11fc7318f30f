#include "storage/disk_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace tessera::disk {

void ThrowIO(const std::string& msg) { throw UserError(ErrorKind::IO, msg); }

std::string ErrnoText(int e) { return std::strerror(e); }

void ThrowErrno(const std::string& what, const std::string& path) {
  int e = errno;
  ThrowIO(what + " " + path + ": " + ErrnoText(e));
}

void Fd::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Fd::CloseChecked(const std::string& path) {
  int fd = fd_;
  fd_ = -1;
  if (fd >= 0 && ::close(fd) != 0) ThrowErrno("cannot close", path);
}

void WriteAll(int fd, const void* data, size_t n, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, std::min<size_t>(n, 1u << 30));
    if (w < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("cannot write", path);
    }
    p += w;
    n -= (size_t)w;
  }
}

void SyncFile(int fd, const std::string& path) {
  if (::fsync(fd) != 0) ThrowErrno("cannot sync", path);
}

void SyncDir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) ThrowErrno("cannot open directory", dir);
  if (::fsync(fd.get()) != 0 && errno != EINVAL) ThrowErrno("cannot sync directory", dir);
}

void RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) ThrowErrno("cannot rename " + from + " to", to);
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  return names;
}

namespace {
bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

bool ParseRowGroupFileName(const std::string& name, uint64_t* id) {
  if (name.size() < 8 || name.compare(0, 3, "rg-") != 0 || !EndsWith(name, ".trg")) return false;
  uint64_t v = 0;
  for (size_t i = 3; i + 4 < name.size(); i++) {
    char c = name[i];
    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + (uint64_t)(c - '0');
  }
  if (id) *id = v;
  return true;
}

std::string RowGroupFileName(uint64_t id) {
  std::string digits = std::to_string(id);
  if (digits.size() < 8) digits.insert(0, 8 - digits.size(), '0');
  return "rg-" + digits + ".trg";
}

bool IsTempFile(const std::string& name) {
  return EndsWith(name, ".tmp") &&
         (name.compare(0, 3, "rg-") == 0 || name.compare(0, 11, "catalog.tsm") == 0);
}

void WriteFileSynced(const std::string& path, const std::string& data) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) ThrowErrno("cannot create", path);
  WriteAll(fd.get(), data.data(), data.size(), path);
  SyncFile(fd.get(), path);
  fd.CloseChecked(path);
}

bool ReadWholeFile(const std::string& path, std::string* out) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return false;
    ThrowErrno("cannot open", path);
  }
  out->clear();
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("cannot read", path);
    }
    if (n == 0) break;
    out->append(buf, (size_t)n);
  }
  return true;
}

}  // namespace tessera::disk
