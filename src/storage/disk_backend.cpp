#include "storage/disk_backend.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <filesystem>
#include <map>
#include <mutex>
#include <unordered_map>

#include "common/parallel.hpp"
#include "storage/binary_codec.hpp"
#include "storage/disk_files.hpp"
#include "storage/manifest.hpp"
#include "storage/row_group_file.hpp"
#include "storage/sequence.hpp"

static_assert(std::endian::native == std::endian::little, "the storage format is little-endian");

namespace tessera {

using namespace disk;

namespace storage_testing {
static std::atomic<int> g_crash_point{0};
void SetCommitCrashPoint(int k) { g_crash_point.store(k); }
}  // namespace storage_testing

namespace {

using storage_testing::SimulatedCrash;

void CrashPoint(int k) {
  int expected = k;
  if (storage_testing::g_crash_point.compare_exchange_strong(expected, 0))
    throw SimulatedCrash{k};
}

class DiskBackend final : public StorageBackend {
 public:
  DiskBackend(std::string dir, int lock_fd) : dir_(std::move(dir)), lock_fd_(lock_fd) {}
  ~DiskBackend() override { lock_fd_.Close(); }

  CatalogState Load() override {
    std::lock_guard<std::mutex> g(mu_);
    const std::string path = JoinPath(dir_, kManifestFileName);
    std::string data;
    CatalogState state;
    files_.clear();
    next_id_ = 1;
    if (!ReadWholeFile(path, &data)) {
      // A new database gets an empty manifest right away, so that later a missing manifest
      // means damage (and data files are never mistaken for leftovers of a first commit).
      for (auto& name : ListDir(dir_))
        if (ParseRowGroupFileName(name, nullptr))
          ThrowIO("database directory " + dir_ + " contains row-group files (" + name +
                  ", ...) but no " + kManifestFileName +
                  " manifest; refusing to open it (restore the manifest or remove the data files)");
      WriteFileSynced(path + ".tmp", SerializeManifest(next_id_, state, files_));
      RenameFile(path + ".tmp", path);
      SyncDir(dir_);
    } else {
      uint64_t next_id = 1;
      std::vector<ManifestSequence> sequences;
      std::vector<ManifestTable> tables = ParseManifest(data, path, &next_id, &sequences);
      for (auto& ms : sequences) {
        auto e = std::make_shared<SequenceEntry>();
        e->counter = std::make_shared<SequenceCounter>(SequenceCounter::Position{ms.next, ms.past, ms.used, ms.last});
        e->def = std::move(ms.def);
        state.sequences[e->def.name] = std::move(e);
      }
      next_id_ = std::max<uint64_t>(next_id, 1);
      // Every row-group file is opened (mapped, its header and directory checked, its
      // statistics and sketches read) on all hardware threads: at SSB SF 20 there are
      // over a thousand, which one thread took most of a cold query's start to open.
      // A file shared by two tables is opened once, with the first table's schema.
      struct ToOpen {
        const RowGroupRef* ref;
        const ManifestTable* table;
        std::shared_ptr<const RowGroup> rg;
      };
      std::vector<ToOpen> to_open;
      std::unordered_map<std::string, size_t> open_index;
      for (auto& mt : tables)
        for (auto& ref : mt.groups)
          if (open_index.emplace(ref.file, to_open.size()).second) to_open.push_back({&ref, &mt, nullptr});
      ParallelFor(to_open.size(), std::min<unsigned>(HardwareThreads(), 16), [&](uint64_t i, unsigned) {
        ToOpen& o = to_open[i];
        try {
          o.rg = OpenRowGroupFile(dir_, *o.ref, o.table->schema, false);
        } catch (const Corrupt& c) {
          o.rg = BrokenRowGroup(*o.ref, o.table->schema, c.what + " (table " + o.table->schema.name + ")");
        }
      });
      for (auto& mt : tables) {
        auto entry = std::make_shared<TableEntry>();
        auto td = std::make_shared<TableData>();
        for (auto& ref : mt.groups) {
          uint64_t id = 0;
          ParseRowGroupFileName(ref.file, &id);
          next_id_ = std::max(next_id_, id + 1);
          auto it = files_.find(ref.file);
          std::shared_ptr<const RowGroup> rg;
          if (it != files_.end()) {
            // A file shared by two tables (a row group appended to both): same shape only.
            rg = it->second.rg;
            bool same = rg->columns.size() == mt.schema.columns.size();
            for (size_t c = 0; same && c < rg->columns.size(); c++)
              same = rg->columns[c]->type == mt.schema.columns[c].type;
            if (!same)
              rg = BrokenRowGroup(ref, mt.schema, "database file " + JoinPath(dir_, ref.file) +
                                                      " does not match table " + mt.schema.name);
          } else {
            rg = std::move(to_open[open_index.at(ref.file)].rg);
            files_[ref.file] = FileInfo{rg, ref.size, ref.dir_crc};
          }
          td->row_groups.push_back(std::move(rg));
        }
        td->row_count = mt.row_count;
        entry->schema = std::move(mt.schema);
        entry->data = std::move(td);
        entry->view_sql = std::move(mt.view_sql);
        entry->view_columns = std::move(mt.view_columns);
        state[entry->schema.name] = std::move(entry);
      }
    }
    // Files of interrupted commits: temp files and row groups no manifest references.
    for (auto& name : ListDir(dir_)) {
      uint64_t id = 0;
      if (ParseRowGroupFileName(name, &id)) next_id_ = std::max(next_id_, id + 1);
    }
    RemoveUnreferenced();
    table_count_ = state.size();
    return state;
  }

  CatalogState Commit(const CatalogState& next) override {
    std::lock_guard<std::mutex> g(mu_);
    // 1. Row groups to persist: not persisted here yet (or persisted by someone else).
    struct Job {
      std::shared_ptr<const RowGroup> src;
      const TableSchema* schema;
      std::string name;
      WrittenFile written;
      std::shared_ptr<const RowGroup> mapped;
    };
    std::vector<Job> jobs;
    std::unordered_map<const RowGroup*, size_t> job_of;
    for (auto& [tname, entry] : next) {
      for (auto& rg : entry->data->row_groups) {
        if (IsOurs(rg) || job_of.count(rg.get())) continue;
        job_of[rg.get()] = jobs.size();
        jobs.push_back({rg, &entry->schema, RowGroupFileName(next_id_++), {}, nullptr});
      }
    }
    std::map<std::string, FileInfo> files;  // the new manifest's files
    CatalogState result;
    result.sequences = next.sequences;
    const std::string mpath = JoinPath(dir_, kManifestFileName);
    const std::string mtmp = mpath + ".tmp";
    size_t renamed = 0;
    try {
      // 2. Write each new row group to a temp file (in parallel), then rename them all.
      ParallelFor(jobs.size(), HardwareThreads(), [&](uint64_t i, unsigned) {  // encoding is CPU work
        jobs[i].written = WriteRowGroupFile(JoinPath(dir_, jobs[i].name + ".tmp"), *jobs[i].src);
      });
      CrashPoint(1);
      for (auto& j : jobs) {
        RenameFile(JoinPath(dir_, j.name + ".tmp"), JoinPath(dir_, j.name));
        renamed++;
      }
      CrashPoint(2);
      if (!jobs.empty()) SyncDir(dir_);
      // 3. Map the new files (before the commit point, so nothing can fail after it).
      for (auto& j : jobs) {
        RowGroupRef ref{j.name, j.src->count, j.written.size, j.written.dir_crc};
        try {
          j.mapped = OpenRowGroupFile(dir_, ref, *j.schema, true, j.src.get());
        } catch (const Corrupt& c) {
          ThrowIO(c.what);
        }
      }
      // 4. The new state with persisted row groups replaced by their mapped form.
      for (auto& j : jobs) files[j.name] = FileInfo{j.mapped, j.written.size, j.written.dir_crc};
      for (auto& [tname, entry] : next) {
        bool changed = false;
        for (auto& rg : entry->data->row_groups) changed |= job_of.count(rg.get()) > 0;
        if (!changed) {
          result[tname] = entry;
        } else {
          auto td = std::make_shared<TableData>(*entry->data);
          for (auto& rg : td->row_groups) {
            auto it = job_of.find(rg.get());
            if (it != job_of.end()) rg = jobs[it->second].mapped;
          }
          auto e = std::make_shared<TableEntry>(*entry);
          e->data = std::move(td);
          result[tname] = std::move(e);
        }
        for (auto& rg : result[tname]->data->row_groups)
          if (!files.count(rg->file_id)) files[rg->file_id] = files_.at(rg->file_id);
      }
      // 5. The manifest: temp file, fsync, rename over the old one (the commit point).
      WriteFileSynced(mtmp, SerializeManifest(next_id_, result, files));
      CrashPoint(3);
      RenameFile(mtmp, mpath);
    } catch (const SimulatedCrash&) {
      throw;
    } catch (...) {
      // The old manifest is untouched; remove what this commit wrote.
      for (size_t i = 0; i < jobs.size(); i++) {
        ::unlink(JoinPath(dir_, jobs[i].name + ".tmp").c_str());
        if (i < renamed) ::unlink(JoinPath(dir_, jobs[i].name).c_str());
      }
      ::unlink(mtmp.c_str());
      throw;
    }
    // Committed. Make the rename durable, then drop files the new manifest does not use.
    files_ = std::move(files);
    table_count_ = result.size();
    CrashPoint(4);
    SyncDir(dir_);
    CrashPoint(5);
    RemoveUnreferenced();
    return result;
  }

  std::string Describe() const override {
    size_t n = table_count_.load();
    return "database at " + dir_ + " (" + std::to_string(n) + (n == 1 ? " table)" : " tables)");
  }

  std::string Name() const override {
    std::filesystem::path p(dir_);
    if (!p.has_filename()) p = p.parent_path();  // "db.tdb/"
    return p.stem().string();
  }

 private:
  bool IsOurs(const std::shared_ptr<const RowGroup>& rg) const {
    if (rg->file_id.empty()) return false;
    auto it = files_.find(rg->file_id);
    return it != files_.end() && it->second.rg == rg;
  }

  // Deletes temp files and row-group files that the committed manifest does not reference.
  // Failures are ignored: a leftover file is harmless and removed next time.
  void RemoveUnreferenced() {
    bool first = true;
    for (auto& name : ListDir(dir_)) {
      bool stale = IsTempFile(name) || (ParseRowGroupFileName(name, nullptr) && !files_.count(name));
      if (!stale) continue;
      ::unlink(JoinPath(dir_, name).c_str());
      if (first) {
        first = false;
        CrashPoint(6);
      }
    }
  }

  std::string dir_;
  Fd lock_fd_;
  std::mutex mu_;
  std::map<std::string, FileInfo> files_;  // files of the committed manifest
  uint64_t next_id_ = 1;
  std::atomic<size_t> table_count_{0};
};

}  // namespace

std::unique_ptr<StorageBackend> OpenDiskBackend(const std::string& dir_in) {
  std::string dir = dir_in;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir.empty()) ThrowIO("database path is empty");
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) ThrowErrno("cannot open database at", dir);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      ThrowErrno("cannot create database directory", dir);
    if (::stat(dir.c_str(), &st) != 0) ThrowErrno("cannot open database at", dir);
  }
  if (!S_ISDIR(st.st_mode))
    ThrowIO("cannot open database at " + dir + ": not a directory (a database is a directory)");
  const std::string lock_path = JoinPath(dir, kLockFileName);
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) ThrowErrno("cannot open database lock file", lock_path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      ThrowIO("database " + dir + " is in use by another process (lock held on " + lock_path + ")");
    errno = e;
    ThrowErrno("cannot lock", lock_path);
  }
  return std::make_unique<DiskBackend>(dir, fd);
}

}  // namespace tessera
