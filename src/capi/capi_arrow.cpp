// C API: a result's rows as an Arrow C stream (tessera_result_arrow_stream), and Arrow
// C streams as temporary tables (tessera_register_arrow_stream, arrow_import.hpp).
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <stdexcept>
#include <mutex>
#include <exception>
#include <vector>

#include "capi/arrow_export.hpp"
#include "capi/arrow_import.hpp"
#include "capi/result_stream.hpp"
#include "capi/capi_handles.hpp"
#include "execution/operators/basic_operators.hpp"
#include "main/plan_cache.hpp"

using namespace tessera;

namespace {

// A stream's source: a collected result's chunks (`result`, from chunk `next` on) or a
// streamed result's queue (`stream`), whose chunk that did not fit the last batch waits
// in `pending`.
struct StreamData {
  std::vector<std::string> names;
  std::vector<Type> types;
  std::shared_ptr<const QueryResult> result;
  size_t next = 0;
  std::shared_ptr<capi::ResultStream> stream;
  DataChunk pending;
  bool has_pending = false;
  uint64_t batch_rows = capi::kArrowBatchRows;
  std::function<void()> poll;
  std::string error;
};

int Fail(StreamData* s, int code) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    s->error = "out of memory";
    return ENOMEM;
  } catch (const std::exception& e) {
    s->error = e.what();
  } catch (...) {
    s->error = "unknown error";
  }
  return code;
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  if (!stream || !stream->private_data || !out) return EINVAL;
  auto* s = static_cast<StreamData*>(stream->private_data);
  try {
    capi::ExportArrowSchema(s->names, s->types, out);
    return 0;
  } catch (...) {
    return Fail(s, EIO);
  }
}

void EndOfStream(ArrowArray* out) {
  std::memset(out, 0, sizeof *out);
  out->release = nullptr;
}

// The next batch of a collected result: its chunks up to kArrowBatchRows rows (and 2 GiB
// of strings in a column), at least one; a batch of one chunk shares its fixed-width columns.
void NextCollected(StreamData* s, ArrowArray* out) {
  const QueryResult& r = *s->result;
  const size_t nchunks = r.has_rows ? r.chunks.size() : 0;
  while (s->next < nchunks && r.chunks[s->next].size == 0) s->next++;
  if (s->next >= nchunks) return EndOfStream(out);
  size_t last = s->next;
  uint64_t rows = 0;
  while (last < nchunks && (last == s->next || rows + r.chunks[last].size <= s->batch_rows))
    rows += r.chunks[last++].size;
  std::shared_ptr<const void> share;
  if (last - s->next == 1) share = s->result;
  capi::ArrowBatchBuilder b(s->types, rows, share);
  while (s->next < last && b.FitsStrings(r.chunks[s->next])) b.Append(r.chunks[s->next++]);
  b.Finish(out);
}

// The next chunk of a streamed result with rows (false at its end; throws its error).
bool NextChunk(StreamData* s, DataChunk& c) {
  if (s->has_pending) {
    s->has_pending = false;
    c = std::move(s->pending);
    return true;
  }
  while (s->stream->Next(c, s->poll))
    if (c.size) return true;
  CapiError e = s->stream->error();
  if (e.failed) throw std::runtime_error(e.message);
  return false;
}

// Splits `c` after its first `n` rows: `c` keeps them, the rest goes to `rest`.
void SplitChunk(DataChunk& c, uint32_t n, DataChunk& rest) {
  std::vector<uint32_t> sel(c.size);
  for (uint32_t i = 0; i < c.size; i++) sel[i] = i;
  DataChunk head;
  SliceChunk(c, sel.data(), n, head);
  SliceChunk(c, sel.data() + n, c.size - n, rest);
  c = std::move(head);
}

// The next batch of a streamed result: batch_rows rows (fewer at the end, or where a
// column's strings would pass 2 GiB), the chunks written into the batch's buffers one by
// one as they come (each while it is still in cache); a chunk that straddles the batch's
// end is split. A batch that is one whole chunk (the last, or one of exactly batch_rows
// rows) shares its fixed-width columns.
void NextStreamed(StreamData* s, ArrowArray* out) {
  DataChunk c;
  if (!NextChunk(s, c)) return EndOfStream(out);
  if (c.size == s->batch_rows || (c.size < s->batch_rows && !s->has_pending && s->stream->drained())) {
    auto keep = std::make_shared<DataChunk>(std::move(c));
    capi::ArrowBatchBuilder b(s->types, keep->size, keep);
    b.Append(*keep);
    return b.Finish(out);
  }
  capi::ArrowBatchBuilder b(s->types, s->batch_rows);
  for (;;) {
    if (!b.FitsStrings(c)) {  // c starts the next batch
      s->pending = std::move(c);
      s->has_pending = true;
      break;
    }
    const uint64_t room = s->batch_rows - b.rows();
    DataChunk rest;
    if (c.size > room) SplitChunk(c, (uint32_t)room, rest);
    b.Append(c);
    if (rest.size) {
      s->pending = std::move(rest);
      s->has_pending = true;
      break;
    }
    if (b.rows() == s->batch_rows || !NextChunk(s, c)) break;
  }
  b.Finish(out);
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  if (!stream || !stream->private_data || !out) return EINVAL;
  auto* s = static_cast<StreamData*>(stream->private_data);
  try {
    if (s->stream) NextStreamed(s, out);
    else NextCollected(s, out);
    return 0;
  } catch (...) {
    return Fail(s, EIO);
  }
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  if (!stream || !stream->private_data) return nullptr;
  auto* s = static_cast<StreamData*>(stream->private_data);
  return s->error.empty() ? nullptr : s->error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (!stream || !stream->release) return;
  delete static_cast<StreamData*>(stream->private_data);
  stream->private_data = nullptr;
  stream->release = nullptr;
}

}  // namespace

namespace tessera::capi {

tessera_state ExportArrowStream(tessera_result_s* result, DataChunk* head, ArrowArrayStream* out_stream,
                                uint64_t batch_rows, std::function<void()> poll) {
  if (!out_stream) return TESSERA_MISUSE;
  std::memset(out_stream, 0, sizeof *out_stream);
  if (!result || !result->data) return TESSERA_MISUSE;
  if (result->error.failed) return capi::StateOf(result->error);
  try {
    auto s = std::make_unique<StreamData>();
    if (result->data->has_rows) {
      s->names = result->data->names;
      s->types = result->data->types;
    }
    s->batch_rows = std::max<uint64_t>(batch_rows, 1);
    s->poll = std::move(poll);
    if (result->streamed) {
      s->stream = result->stream;
      if (head && head->size) {
        s->pending = std::move(*head);
        s->has_pending = true;
      }
    } else {
      s->result = result->data;
    }
    out_stream->get_schema = StreamGetSchema;
    out_stream->get_next = StreamGetNext;
    out_stream->get_last_error = StreamGetLastError;
    out_stream->release = StreamRelease;
    out_stream->private_data = s.release();
    return TESSERA_OK;
  } catch (...) {
    return TESSERA_ERROR;
  }
}

}  // namespace tessera::capi

extern "C" {

tessera_state tessera_result_arrow_stream(tessera_result result, struct ArrowArrayStream* out_stream) {
  return capi::ExportArrowStream(result, nullptr, out_stream);
}

tessera_state tessera_register_arrow_stream(tessera_connection connection, const char* name,
                                            struct ArrowArrayStream* stream, bool replace, uint64_t* out_rows,
                                            char** out_error) {
  if (out_error) *out_error = nullptr;
  if (out_rows) *out_rows = 0;
  if (!stream) return TESSERA_MISUSE;
  auto fail = [&](const std::string& msg) {
    if (stream->release) stream->release(stream);
    if (out_error) *out_error = capi::CopyString(msg);
    return TESSERA_ERROR;
  };
  if (!connection || !connection->db || !name || !*name || !stream->release) return fail("bad arguments");
  try {
    TableSchema schema;
    auto data = capi::ImportArrowStream(stream, name, false, schema, connection->db->threads());
    uint64_t rows = data->row_count;
    connection->db->catalog().PutTemporaryTable(std::move(schema), std::move(data), replace);
    connection->db->plan_cache().Clear();  // cached plans (now stale) would keep replaced data alive
    if (out_rows) *out_rows = rows;
    return TESSERA_OK;
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

tessera_state tessera_unregister_arrow(tessera_connection connection, const char* name) {
  if (!connection || !connection->db || !name) return TESSERA_MISUSE;
  try {
    auto& cat = connection->db->catalog();
    auto e = cat.GetTable(name);
    if (!e || !e->temporary) return TESSERA_ERROR;
    cat.DropTable(name, true);
    connection->db->plan_cache().Clear();  // cached plans (now stale) would keep the data alive
    return TESSERA_OK;
  } catch (...) {
    return TESSERA_ERROR;
  }
}

}  // extern "C"
