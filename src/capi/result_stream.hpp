// Streamed results of the C API (tessera_query_stream, tessera_execute_prepared_stream):
// a statement runs on its connection's stream thread and hands its rows over through a
// small bounded queue, from which the caller pulls chunks (tessera_fetch_chunk, the Arrow
// stream export, Python's fetchmany) while the query goes on computing the next ones.
//
// Rules (DuckDB's): a connection has at most one open stream; any new statement on the
// connection closes it first (its query stops, its queued rows are freed; fetching from it
// then fails with a clear error). Destroying the result (and the Arrow streams made from
// it) closes it the same way; disconnecting does not (the stream keeps the connection).
// tessera_interrupt stops the running query also while it waits for the caller to take
// rows; the stream then reports the interruption as its error.
#pragma once
#include <chrono>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capi/capi_handles.hpp"
#include "execution/result_consumer.hpp"

namespace tessera::capi {

class ResultStream : public ResultConsumer {
 public:
  // The stream keeps the connection (and, outliving it, the database) alive while its
  // query runs (Finish lets them go).
  ResultStream(std::shared_ptr<Database> db, std::shared_ptr<Connection> conn)
      : db_(std::move(db)), conn_(std::move(conn)) {}
  Connection& connection() { return *conn_; }  // only while the query runs (the job's)

  // ---- the query's side (the stream thread) ----
  void Begin(const std::vector<std::string>& names, const std::vector<Type>& types) override;
  // Queues the chunk; waits while the queue is full. False (stop) once closed; throws
  // QueryInterrupted once interrupted.
  bool Chunk(DataChunk& chunk) override;
  // The statement ended: `r` its result (names, types, message; no chunks), `error` its error.
  void Finish(QueryResult r, CapiError error);

  // ---- the caller's side ----
  // Waits until the first rows are ready or the statement ended; false when `timeout`
  // passed first (negative: no limit).
  bool WaitStarted(std::chrono::milliseconds timeout);
  // The next chunk into `out` (waiting for it); false at the end of the rows, or when the
  // stream failed or was closed (then error() says why). While it waits, `poll` (if set)
  // is called every 20 ms, and between ready chunks at most every 20 ms (Python checks
  // for Ctrl-C there).
  bool Next(DataChunk& out, const std::function<void()>& poll = nullptr);
  // After WaitStarted: the statement's header (has_rows, names, types) or, when it ended
  // without streaming, its whole result (message).
  QueryResult header() const;
  // The stream's error once it ended (failed: false while it runs or when it succeeded).
  CapiError error() const;
  // Rows handed to the caller so far.
  uint64_t fetched_rows() const;
  // Stops the query (if it runs), waits for its end (with `wait`) and frees the queued
  // rows; `why` becomes the error of later fetches when rows were still to come (nullptr:
  // none).
  void Close(const char* why, bool wait = true);
  // Wakes the query if it waits for the caller (tessera_interrupt).
  void Interrupt();
  // Interrupts the query: its connection's request (tessera_interrupt) and the wake-up.
  void InterruptQuery();
  bool done() const;
  // Ended, and every queued chunk taken.
  bool drained() const;

 private:
  // Waits (under `lk`) for rows (with `need_begun`: rows of the streamed statement) or the
  // end, up to `timeout` (negative: no limit); false on timeout.
  bool WaitRows(std::unique_lock<std::mutex>& lk, bool need_begun, std::chrono::milliseconds timeout,
                const std::function<void()>& poll);
  static constexpr size_t kQueueChunks = 16;  // ~32K rows waiting for the caller at most
  std::shared_ptr<Database> db_;  // declared before conn_: destroyed after it
  std::shared_ptr<Connection> conn_;
  mutable std::mutex mu_;
  std::condition_variable rows_;  // the caller waits for rows (or the end)
  std::condition_variable room_;  // the query waits for room in the queue
  bool producer_waits_ = false;
  std::deque<DataChunk> queue_;
  QueryResult header_;
  CapiError error_;
  bool begun_ = false, done_ = false, closed_ = false, interrupted_ = false;
  // Bumped (under mu_) when a chunk is queued or the statement ends: what a caller spins on
  // briefly before it sleeps (WaitRows), so a short statement costs no sleep and wake-up.
  std::atomic<uint64_t> events_{0};
  uint64_t fetched_rows_ = 0;
  // When Next last called its `poll` between ready chunks (only the caller's thread).
  std::chrono::steady_clock::time_point last_poll_{};
};

// A connection's open stream (shared by the connection handle and its prepared
// statements). Streamed statements run on threads of a process-wide pool that keeps idle
// threads for the next statements, so that a statement does not pay for starting one.
class StreamSlot {
 public:
  StreamSlot(std::shared_ptr<Database> db, std::shared_ptr<Connection> conn)
      : db_(std::move(db)), conn_(std::move(conn)) {}
  ~StreamSlot();
  // Closes the open stream (if any): a new statement is about to run on the connection.
  void CloseOpen();
  // Closes the open stream, then starts `job` (which runs the statement against the
  // stream as its consumer and calls Finish) on a pool thread; returns at once.
  std::shared_ptr<ResultStream> Start(std::function<void(ResultStream&)> job);
  // Wakes the open stream for tessera_interrupt.
  void Interrupt();

 private:
  std::shared_ptr<Database> db_;
  std::shared_ptr<Connection> conn_;
  std::mutex mu_;
  std::weak_ptr<ResultStream> open_;
};

// Starts `sql` streamed on `connection`, or the prepared statement `p` with its bindings;
// returns a result handle whose stream is started (not yet waited for: call
// FinishStart). nullptr when out of memory.
tessera_result_s* StartQueryStream(tessera_connection connection, const char* sql);
tessera_result_s* StartPreparedStream(tessera_prepared p);
// Waits (up to `timeout`; negative: no limit) until `h`'s first rows are ready or its
// statement ended, then fills the handle's header and error; false on timeout.
bool FinishStart(tessera_result_s* h, std::chrono::milliseconds timeout);

}  // namespace tessera::capi
