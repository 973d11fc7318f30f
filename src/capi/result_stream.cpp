// Streamed results: the queue between a query and its caller, the connection's stream
// thread, and starting a statement streamed (result_stream.hpp).
#include "capi/result_stream.hpp"

#include "common/interrupt.hpp"
#include "main/sql_parameters.hpp"

namespace tessera::capi {

// ---- ResultStream ------------------------------------------------------------------------

void ResultStream::Begin(const std::vector<std::string>& names, const std::vector<Type>& types) {
  std::lock_guard<std::mutex> g(mu_);
  header_.has_rows = true;
  header_.names = names;
  header_.types = types;
  begun_ = true;
  cv_.notify_all();
}

bool ResultStream::Chunk(DataChunk& chunk) {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return closed_ || interrupted_ || queue_.size() < kQueueChunks; });
  if (closed_) return false;
  if (interrupted_) throw QueryInterrupted();
  queue_.push_back(std::move(chunk));
  cv_.notify_all();
  return true;
}

void ResultStream::Finish(QueryResult r, CapiError error) {
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
  done_ = true;
  cv_.notify_all();
}

bool ResultStream::WaitStarted(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lk(mu_);
  auto ready = [&] { return begun_ || done_; };
  if (timeout.count() < 0) {
    cv_.wait(lk, ready);
    return true;
  }
  return cv_.wait_for(lk, timeout, ready);
}

bool ResultStream::WaitReady(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lk(mu_);
  auto ready = [&] { return !queue_.empty() || done_; };
  if (timeout.count() < 0) {
    cv_.wait(lk, ready);
    return true;
  }
  return cv_.wait_for(lk, timeout, ready);
}

bool ResultStream::Next(DataChunk& out) {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return !queue_.empty() || done_; });
  if (queue_.empty()) return false;
  out = std::move(queue_.front());
  queue_.pop_front();
  fetched_rows_ += out.size;
  cv_.notify_all();
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

bool ResultStream::done() const {
  std::lock_guard<std::mutex> g(mu_);
  return done_;
}

void ResultStream::Close(const char* why) {
  std::unique_lock<std::mutex> lk(mu_);
  bool rows_left = !queue_.empty();
  if (!done_) {
    rows_left = true;
    closed_ = true;
    conn_->Interrupt();  // a pipeline between chunks stops at its next one
    cv_.notify_all();
    cv_.wait(lk, [&] { return done_; });
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
  cv_.notify_all();
}

// ---- StreamSlot --------------------------------------------------------------------------

StreamSlot::~StreamSlot() {
  CloseOpen();
  {
    std::lock_guard<std::mutex> g(mu_);
    quit_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void StreamSlot::CloseOpen() {
  std::shared_ptr<ResultStream> open;
  {
    std::lock_guard<std::mutex> g(mu_);
    open = open_.lock();
    open_.reset();
  }
  if (open) open->Close("the result was closed: a later statement ran on its connection");
}

std::shared_ptr<ResultStream> StreamSlot::Start(std::function<void(ResultStream&)> job) {
  CloseOpen();
  auto stream = std::make_shared<ResultStream>(conn_);
  std::lock_guard<std::mutex> g(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  // The job keeps the stream alive until it ended (a closed result may go first).
  job_ = [stream, job = std::move(job)] { job(*stream); };
  open_ = stream;
  cv_.notify_all();
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

void StreamSlot::Loop() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return quit_ || (bool)job_; });
    if (!job_) return;  // quit
    auto fn = std::move(job_);
    job_ = nullptr;
    lk.unlock();
    fn();
    fn = nullptr;  // drops the job's reference to its stream
    lk.lock();
  }
}

// ---- starting statements streamed ---------------------------------------------------------

namespace {

tessera_result_s* StartJob(StreamSlot& slot, unsigned threads, std::function<void(ResultStream&)> job) {
  auto* h = new tessera_result_s();
  h->threads = threads;
  h->data = std::make_shared<const QueryResult>();
  h->stream = slot.Start(std::move(job));
  return h;
}

}  // namespace

tessera_result_s* StartQueryStream(tessera_connection connection, const char* sql) {
  try {
    std::shared_ptr<Connection> conn = connection->conn;
    return StartJob(*connection->streams, connection->db->threads(), [conn, text = std::string(sql)](ResultStream& s) {
      QueryResult r;
      CapiError e;
      try {
        r = conn->Stream(text, s);
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
    std::shared_ptr<Connection> conn = p->conn;
    auto sub = std::make_shared<Substitution>(p->sql, p->placeholders, p->literals);
    return StartJob(*p->streams, p->db->threads(), [conn, sub, original = p->sql](ResultStream& s) {
      QueryResult r;
      CapiError e;
      try {
        r = conn->Stream(sub->sql(), s);
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
