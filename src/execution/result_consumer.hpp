// A streamed query result's receiver: the rows of a SELECT handed over chunk by chunk, in
// the result's order, as the plan's last pipeline produces them (Connection::Stream).
#pragma once
#include <string>
#include <vector>

#include "common/vector.hpp"

namespace tessera {

class ResultConsumer {
 public:
  virtual ~ResultConsumer() = default;
  // Once, before any rows: the result's column names and types.
  virtual void Begin(const std::vector<std::string>& names, const std::vector<Type>& types) = 0;
  // The next rows of the result. Calls come one at a time, in the result's order, possibly
  // from a worker thread of the query while other workers go on computing (a worker that
  // finishes a chunk meanwhile waits: a slow consumer slows the query rather than letting
  // rows pile up). `chunk` may be moved from. Returns false to stop the query: no further
  // chunks are computed (where the plan's last operator is blocking, only the final
  // pipeline's work is saved) and no further calls come.
  virtual bool Chunk(DataChunk& chunk) = 0;
};

}  // namespace tessera
