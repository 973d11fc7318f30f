// Streamed results: the queue between a query and its caller, the connection's stream
// thread, and starting a statement streamed (result_stream.hpp).
#include "capi/result_stream.hpp"

#include <unistd.h>

#include "common/interrupt.hpp"
#include "main/sql_parameters.hpp"

namespace tessera::capi {

// ---- ResultStream ------------------------------------------------------------------------
//
// Hand-overs are batched so that neither side wakes the other per chunk: the query waits
// when kQueueChunks chunks wait and is woken when the caller has taken them down to half;
// the caller waits until half the queue is filled or the statement ended, and takes what
// is there after kSlice (a query that produces rows slowly). A small result thus costs one
// wake-up of the caller (at the end), a large one one per kQueueChunks / 2 chunks.

namespace {
constexpr auto kSlice = std::chrono::milliseconds(5);
constexpr int kSlicesPerPoll = 4;  // `poll` every 20 ms
// How long a waiting side spins before it sleeps: a statement that ends within it (SELECT 1,
// a point query) and the next statement of a caller in a loop cost no thread switch. Two
// sleeps and wake-ups were 43% of a `SELECT 1` from Python (58 us a statement).
constexpr auto kSpin = std::chrono::microseconds(100);

// Spins until `changed()` or kSpin has passed; true when it changed.
template <class F>
bool SpinFor(F changed) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  do {
    for (int i = 0; i < 64; i++) {
      if (changed()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  } while (std::chrono::steady_clock::now() < until);
  return changed();
}
}  // namespace

void ResultStream::Begin(const std::vector<std::string>& names, const std::vector<Type>& types) {
  std::lock_guard<std::mutex> g(mu_);
  header_.has_rows = true;
  header_.names = names;
  header_.types = types;
  begun_ = true;
}

void ResultStream::InterruptQuery() {
  std::lock_guard<std::mutex> g(mu_);
  if (done_ || !conn_) return;
  conn_->Interrupt();
  interrupted_ = true;
  room_.notify_all();
}

bool ResultStream::Chunk(DataChunk& chunk) {
  std::unique_lock<std::mutex> lk(mu_);
  if (queue_.size() >= kQueueChunks && !closed_ && !interrupted_) {
    producer_waits_ = true;
    room_.wait(lk, [&] { return closed_ || interrupted_ || queue_.size() <= kQueueChunks / 2; });
    producer_waits_ = false;
  }
  if (closed_) return false;
  if (interrupted_) throw QueryInterrupted();
  queue_.push_back(std::move(chunk));
  events_.fetch_add(1, std::memory_order_release);
  const bool wake = queue_.size() == kQueueChunks / 2;
  lk.unlock();
  if (wake) rows_.notify_all();
  return true;
}

void ResultStream::Finish(QueryResult r, CapiError error) {
  std::shared_ptr<Database> db;
  std::shared_ptr<Connection> conn;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!begun_) {  // the statement did not stream: its result is the header
      header_ = std::move(r);
      header_.chunks.clear();
    } else {
      header_.message = r.message;
      header_.note = r.note;
      header_.device = r.device;
    }
    if (!error_.failed && !closed_) error_ = std::move(error);  // a closed stream's stop is no error
    if (error_.failed) queue_.clear();  // rows after an error are not handed out
    db = std::move(db_);
    conn = std::move(conn_);
  }
  // The query is over: the connection (and a database closed meanwhile) go before anyone
  // sees the stream done, so that a database closed by the caller is closed once it is.
  conn.reset();
  db.reset();
  {
    std::lock_guard<std::mutex> g(mu_);
    done_ = true;
    events_.fetch_add(1, std::memory_order_release);
  }
  rows_.notify_all();  // after unlocking: the woken caller does not block on mu_ at once
}

bool ResultStream::WaitRows(std::unique_lock<std::mutex>& lk, bool need_begun, std::chrono::milliseconds timeout,
                            const std::function<void()>& poll) {
  auto some = [&] { return done_ || (!queue_.empty() && (begun_ || !need_begun)); };
  auto enough = [&] { return done_ || (queue_.size() >= kQueueChunks / 2 && (begun_ || !need_begun)); };
  const auto until = std::chrono::steady_clock::now() + timeout;
  if (!some()) {
    // A short statement ends within the spin: no sleep, no wake-up.
    const uint64_t seen = events_.load(std::memory_order_acquire);
    lk.unlock();
    SpinFor([&] { return events_.load(std::memory_order_acquire) != seen; });
    lk.lock();
    if (enough()) return true;
  }
  for (int slice = 1;; slice++) {
    if (rows_.wait_for(lk, kSlice, enough) || some()) return true;
    if (timeout.count() >= 0 && std::chrono::steady_clock::now() >= until) return false;
    if (poll && slice % kSlicesPerPoll == 0) {
      lk.unlock();
      poll();
      lk.lock();
    }
  }
}

bool ResultStream::WaitStarted(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lk(mu_);
  return WaitRows(lk, true, timeout, nullptr);
}

bool ResultStream::Next(DataChunk& out, const std::function<void()>& poll) {
  std::unique_lock<std::mutex> lk(mu_);
  if (queue_.empty()) WaitRows(lk, false, std::chrono::milliseconds(-1), poll);
  if (queue_.empty()) return false;
  out = std::move(queue_.front());
  queue_.pop_front();
  fetched_rows_ += out.size;
  const bool wake = producer_waits_ && queue_.size() <= kQueueChunks / 2;
  lk.unlock();
  if (wake) room_.notify_all();
  // A caller slower than the query never waits above, so `poll` would never run (Ctrl-C
  // during a fetchall of a fast query went unseen until memory ran out): call it at least
  // every kSlice * kSlicesPerPoll between chunks too.
  if (poll) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_poll_ >= kSlice * kSlicesPerPoll) {
      last_poll_ = now;
      poll();
    }
  }
  return true;
}

QueryResult ResultStream::header() const {
  std::lock_guard<std::mutex> g(mu_);
  return header_;
}

CapiError ResultStream::error() const {
  std::lock_guard<std::mutex> g(mu_);
  return error_;
}

uint64_t ResultStream::fetched_rows() const {
  std::lock_guard<std::mutex> g(mu_);
  return fetched_rows_;
}

bool ResultStream::drained() const {
  std::lock_guard<std::mutex> g(mu_);
  return done_ && queue_.empty();
}

bool ResultStream::done() const {
  std::lock_guard<std::mutex> g(mu_);
  return done_;
}

void ResultStream::Close(const char* why, bool wait) {
  std::unique_lock<std::mutex> lk(mu_);
  bool rows_left = !queue_.empty();
  if (!done_) {
    rows_left = true;
    closed_ = true;
    if (conn_) conn_->Interrupt();  // a pipeline between chunks stops at its next one
    room_.notify_all();
    if (wait) rows_.wait(lk, [&] { return done_; });
  }
  queue_.clear();
  queue_.shrink_to_fit();
  closed_ = true;
  if (why && rows_left && !error_.failed) {
    error_.failed = true;
    error_.message = why;
    error_.type = TESSERA_ERROR_INPUT;  // DuckDB: an InvalidInputException
  }
}

void ResultStream::Interrupt() {
  std::lock_guard<std::mutex> g(mu_);
  if (done_) return;
  interrupted_ = true;
  room_.notify_all();
}

// ---- the pool of stream threads -----------------------------------------------------------

namespace {

// Threads that run streamed statements; one is started when none is idle, and none ends
// (an idle one waits for the next statement). Never destroyed: its threads outlive static
// destructors. A forked child (which has none of the threads) makes a new pool.
class StreamThreads {
 public:
  static StreamThreads& Get() {
    static StreamThreads* pool = nullptr;
    static pid_t pid = 0;
    static std::mutex mu;
    std::lock_guard<std::mutex> g(mu);
    if (!pool || pid != getpid()) {
      pool = new StreamThreads();
      pid = getpid();
    }
    return *pool;
  }
  void Run(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> g(mu_);
      jobs_.push_back(std::move(job));
      queued_.fetch_add(1, std::memory_order_release);
      if (idle_ < jobs_.size()) std::thread([this] { Loop(); }).detach();
    }
    cv_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      idle_++;
      if (jobs_.empty()) {
        // The caller's next statement usually comes at once (a loop of statements): spin
        // before sleeping (kSpin).
        lk.unlock();
        SpinFor([&] { return queued_.load(std::memory_order_acquire) != 0; });
        lk.lock();
      }
      cv_.wait(lk, [&] { return !jobs_.empty(); });
      idle_--;
      auto fn = std::move(jobs_.front());
      jobs_.pop_front();
      queued_.fetch_sub(1, std::memory_order_acq_rel);
      lk.unlock();
      fn();
      fn = nullptr;  // drops what the job held (its stream) before waiting again
      lk.lock();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::atomic<size_t> queued_{0};  // jobs_.size(), read without the lock while spinning
  size_t idle_ = 0;
};

}  // namespace

// ---- StreamSlot --------------------------------------------------------------------------

void StreamSlot::CloseOpen() {
  std::shared_ptr<ResultStream> open;
  {
    std::lock_guard<std::mutex> g(mu_);
    open = open_.lock();
    open_.reset();
  }
  if (open) open->Close("the result was closed: a later statement ran on its connection");
}

StreamSlot::~StreamSlot() = default;  // an open stream outlives the connection handle

std::shared_ptr<ResultStream> StreamSlot::Start(std::function<void(ResultStream&)> job) {
  CloseOpen();
  auto stream = std::make_shared<ResultStream>(db_, conn_);
  {
    std::lock_guard<std::mutex> g(mu_);
    open_ = stream;
  }
  // The job keeps the stream alive until it ended (a closed result may go first).
  StreamThreads::Get().Run([stream, job = std::move(job)] { job(*stream); });
  return stream;
}

void StreamSlot::Interrupt() {
  std::shared_ptr<ResultStream> open;
  {
    std::lock_guard<std::mutex> g(mu_);
    open = open_.lock();
  }
  if (open) open->Interrupt();
}

// ---- starting statements streamed ---------------------------------------------------------

namespace {

tessera_result_s* StartJob(StreamSlot& slot, unsigned threads, std::function<void(ResultStream&)> job) {
  auto h = std::make_unique<tessera_result_s>();
  h->threads = threads;
  h->data = std::make_shared<const QueryResult>();
  std::shared_ptr<ResultStream> stream = slot.Start(std::move(job));
  // The handle's reference, shared with the Arrow streams made from it: when the last of
  // them goes, the stream is closed (its query stops, its rows are freed), without waiting
  // for the query to stop (an Arrow stream may be released from any thread, holding any
  // lock, Python's GIL included); the next statement on the connection waits for it.
  h->stream = std::shared_ptr<ResultStream>(stream.get(), [stream](ResultStream* s) { s->Close(nullptr, false); });
  return h.release();
}

}  // namespace

tessera_result_s* StartQueryStream(tessera_connection connection, const char* sql) {
  try {
    return StartJob(*connection->streams, connection->db->threads(), [text = std::string(sql)](ResultStream& s) {
      QueryResult r;
      CapiError e;
      try {
        r = s.connection().Stream(text, s);
      } catch (...) {
        try {
          CaptureError(e, text);
        } catch (...) {
          e.failed = true;
          e.message = "out of memory";
        }
      }
      s.Finish(std::move(r), std::move(e));
    });
  } catch (...) {
    return nullptr;
  }
}

tessera_result_s* StartPreparedStream(tessera_prepared p) {
  try {
    CapiError missing = MissingBinding(*p);
    if (missing.failed) return MakeErrorResult(std::move(missing));
    auto sub = std::make_shared<Substitution>(p->sql, p->placeholders, p->literals);
    return StartJob(*p->streams, p->db->threads(), [sub, original = p->sql](ResultStream& s) {
      QueryResult r;
      CapiError e;
      try {
        r = s.connection().Stream(sub->sql(), s);
      } catch (...) {
        try {
          CaptureError(e, sub->sql(), sub.get(), original);
        } catch (...) {
          e.failed = true;
          e.message = "out of memory";
        }
      }
      s.Finish(std::move(r), std::move(e));
    });
  } catch (...) {
    return nullptr;
  }
}

bool FinishStart(tessera_result_s* h, std::chrono::milliseconds timeout) {
  if (!h->stream) return true;  // an error result made before starting
  if (!h->stream->WaitStarted(timeout)) return false;
  h->data = std::make_shared<const QueryResult>(h->stream->header());
  h->streamed = h->data->has_rows;
  if (h->stream->done()) h->error = h->stream->error();
  return true;
}

}  // namespace tessera::capi
