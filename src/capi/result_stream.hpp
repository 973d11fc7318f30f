// Streamed results of the C API (tessera_query_stream, tessera_execute_prepared_stream):
// a statement runs on its connection's stream thread and hands its rows over through a
// small bounded queue, from which the caller pulls chunks (tessera_fetch_chunk, the Arrow
// stream export, Python's fetchmany) while the query goes on computing the next ones.
//
// Rules (DuckDB's): a connection has at most one open stream; any new statement on the
// connection closes it first (its query stops, its queued rows are freed; fetching from it
// then fails with a clear error). Destroying the result closes it the same way.
// tessera_interrupt stops the running query also while it waits for the caller to take
// rows; the stream then reports the interruption as its error.
#pragma once
#include <chrono>
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
  explicit ResultStream(std::shared_ptr<Connection> conn) : conn_(std::move(conn)) {}

  // ---- the query's side (the stream thread) ----
  void Begin(const std::vector<std::string>& names, const std::vector<Type>& types) override;
  // Queues the chunk; waits while the queue is full. False (stop) once closed; throws
  // QueryInterrupted once interrupted.
  bool Chunk(DataChunk& chunk) override;
  // The statement ended: `r` its result (names, types, message; no chunks), `error` its error.
  void Finish(QueryResult r, CapiError error);

  // ---- the caller's side ----
  // Waits until the rows begin or the statement ended; false when `timeout` passed first
  // (negative: no limit).
  bool WaitStarted(std::chrono::milliseconds timeout);
  // Waits until a chunk is queued or the stream ended; false on timeout (negative: none).
  bool WaitReady(std::chrono::milliseconds timeout);
  // The next chunk into `out` (waiting for it); false at the end of the rows, or when the
  // stream failed or was closed (then error() says why).
  bool Next(DataChunk& out);
  // After WaitStarted: the statement's header (has_rows, names, types) or, when it ended
  // without streaming, its whole result (message).
  QueryResult header() const;
  // The stream's error once it ended (failed: false while it runs or when it succeeded).
  CapiError error() const;
  // Rows handed to the caller so far.
  uint64_t fetched_rows() const { return fetched_rows_; }
  // Stops the query (if it runs), waits for its end and frees the queued rows; `why`
  // becomes the error of later fetches when rows were still to come (nullptr: none).
  void Close(const char* why);
  // Wakes the query if it waits for the caller (tessera_interrupt).
  void Interrupt();
  bool done() const;

 private:
  static constexpr size_t kQueueChunks = 16;  // ~32K rows waiting for the caller at most
  std::shared_ptr<Connection> conn_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<DataChunk> queue_;
  QueryResult header_;
  CapiError error_;
  bool begun_ = false, done_ = false, closed_ = false, interrupted_ = false;
  uint64_t fetched_rows_ = 0;
};

// A connection's stream thread and its open stream (shared by the connection handle and
// its prepared statements).
class StreamSlot {
 public:
  explicit StreamSlot(std::shared_ptr<Connection> conn) : conn_(std::move(conn)) {}
  ~StreamSlot();
  // Closes the open stream (if any): a new statement is about to run on the connection.
  void CloseOpen();
  // Closes the open stream, then starts `job` (which runs the statement against the
  // stream as its consumer and calls Finish) on the stream thread; returns at once.
  std::shared_ptr<ResultStream> Start(std::function<void(ResultStream&)> job);
  // Wakes the open stream for tessera_interrupt.
  void Interrupt();

 private:
  void Loop();
  std::shared_ptr<Connection> conn_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool quit_ = false;
  std::thread thread_;
  std::weak_ptr<ResultStream> open_;
};

// Starts `sql` streamed on `connection`, or the prepared statement `p` with its bindings;
// returns a result handle whose stream is started (not yet waited for: call
// FinishStart). nullptr when out of memory.
tessera_result_s* StartQueryStream(tessera_connection connection, const char* sql);
tessera_result_s* StartPreparedStream(tessera_prepared p);
// Waits (up to `timeout`; negative: no limit) until `h`'s rows begin or its statement
// ended, then fills the handle's header and error; false on timeout.
bool FinishStart(tessera_result_s* h, std::chrono::milliseconds timeout);

}  // namespace tessera::capi
