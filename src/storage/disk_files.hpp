// File-system helpers of the on-disk backend: descriptors, complete writes, fsync of files
// and directories, renames, listings, read-only mappings, and the database's file names.
// Every failure becomes UserError(IO) naming the path.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::disk {

[[noreturn]] void ThrowIO(const std::string& msg);
std::string ErrnoText(int e);
// Throws UserError(IO) "<what> <path>: <strerror(errno)>".
[[noreturn]] void ThrowErrno(const std::string& what, const std::string& path);
inline std::string JoinPath(const std::string& dir, const std::string& name) { return dir + "/" + name; }

// An owned file descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Close();
  // Closes and reports errors of close() (write-back failures on some file systems).
  void CloseChecked(const std::string& path);

 private:
  int fd_;
};

void WriteAll(int fd, const void* data, size_t n, const std::string& path);
void SyncFile(int fd, const std::string& path);
void SyncDir(const std::string& dir);
void RenameFile(const std::string& from, const std::string& to);
std::vector<std::string> ListDir(const std::string& dir);  // empty when unreadable
// Writes `data` to `path` (created or truncated) and fsyncs it.
void WriteFileSynced(const std::string& path, const std::string& data);
// Reads the whole file; false when it does not exist.
bool ReadWholeFile(const std::string& path, std::string* out);

// Row-group file names: "rg-" + decimal id (at least 8 digits) + ".trg".
bool ParseRowGroupFileName(const std::string& name, uint64_t* id);
std::string RowGroupFileName(uint64_t id);
// A temporary file of an unfinished commit ("rg-*.tmp", "catalog.tsm*.tmp").
bool IsTempFile(const std::string& name);

// A read-only memory mapping of a whole file.
struct Mapping {
  const uint8_t* base = nullptr;
  size_t size = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (base && size) ::munmap(const_cast<uint8_t*>(base), size);
  }
};

}  // namespace tessera::disk
