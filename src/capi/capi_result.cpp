// C API: running queries, results, chunks and single values (tessera.h).
#include <algorithm>
#include <cstring>

#include "capi/capi_handles.hpp"
#include "capi/result_stream.hpp"

using namespace tessera;

namespace tessera::capi {

tessera_result_s* MakeResult(QueryResult r) {
  auto* h = new tessera_result_s();
  uint64_t start = 0;
  for (auto& c : r.chunks) {
    h->chunk_starts.push_back(start);
    start += c.size;
  }
  h->data = std::make_shared<const QueryResult>(std::move(r));
  return h;
}

tessera_state HandOver(tessera_result_s* h, tessera_result_s** out) {
  tessera_state st = StateOf(h->error);
  if (out) *out = h;
  else delete h;
  return st;
}

tessera_result_s* MakeErrorResult(CapiError error) {
  auto* h = new tessera_result_s();
  h->data = std::make_shared<const QueryResult>();
  h->error = std::move(error);
  return h;
}

}  // namespace tessera::capi

tessera_result_s::~tessera_result_s() {
  // No Arrow stream shares the stream: close it here, waiting for the query to stop (its
  // connection is then free and its database closes when the caller closes it).
  if (stream && stream.use_count() == 1) stream->Close(nullptr, true);
}

namespace {

// A chunk handle for the rows of `c` (typed arrays, strings as tessera_string pointing
// into `c`'s strings, byte validity).
std::unique_ptr<tessera_chunk_s> MakeChunk(const DataChunk& c, const std::vector<Type>& types) {
  auto h = std::make_unique<tessera_chunk_s>();
  const size_t ncols = types.size();
  h->rows = c.size;
  h->data.resize(ncols);
  h->validity.resize(ncols);
  for (size_t col = 0; col < ncols && col < c.cols.size(); col++) {
    const Vector& v = c.cols[col];
    const Type& t = types[col];
    if (t.id == TypeId::Null) {
      h->validity[col].assign(c.size, 0);
      continue;
    }
    if (t.id == TypeId::Varchar) {
      h->data[col].resize((size_t)c.size * sizeof(tessera_string));
      auto* out = reinterpret_cast<tessera_string*>(h->data[col].data());
      for (uint32_t r = 0; r < c.size; r++) {
        StrRef s = v.IsValid(r) ? v.data<StrRef>()[r] : StrRef();
        out[r] = {s.data(), (uint64_t)s.size()};
      }
    } else {
      const size_t bytes = (size_t)c.size * (size_t)t.width();
      h->data[col].assign(v.raw(), v.raw() + bytes);
    }
    if (const uint8_t* valid = v.validity_or_null()) {  // kept only when some row is NULL
      if (std::find(valid, valid + c.size, 0) != valid + c.size) h->validity[col].assign(valid, valid + c.size);
    }
  }
  return h;
}

// tessera_fetch_chunk of a streamed result: the next chunk the query handed over.
tessera_state FetchStreamed(tessera_result result, tessera_chunk* out_chunk) {
  try {
    DataChunk c;
    while (result->stream->Next(c)) {
      if (c.size == 0) continue;
      auto h = MakeChunk(c, result->data->types);
      h->owner = std::move(c);
      *out_chunk = h.release();
      return TESSERA_OK;
    }
    result->error = result->stream->error();
    return capi::StateOf(result->error);  // TESSERA_OK at the end of the rows
  } catch (...) {
    return TESSERA_ERROR;
  }
}

bool ValidColumn(tessera_result r, uint64_t col) { return r && r->data && col < r->data->types.size(); }

// The engine's vector holding (col, row) and the row within it; nullptr when out of range.
const Vector* Locate(tessera_result r, uint64_t col, uint64_t row, uint32_t& at) {
  if (!ValidColumn(r, col) || row >= r->data->row_count) return nullptr;
  auto it = std::upper_bound(r->chunk_starts.begin(), r->chunk_starts.end(), row);
  if (it == r->chunk_starts.begin()) return nullptr;
  size_t k = (size_t)(it - r->chunk_starts.begin()) - 1;
  const DataChunk& c = r->data->chunks[k];
  at = (uint32_t)(row - r->chunk_starts[k]);
  if (at >= c.size || col >= c.cols.size()) return nullptr;
  return &c.cols[col];
}

// The cell as a Value (a NULL Value when out of range).
Value Cell(tessera_result r, uint64_t col, uint64_t row) {
  uint32_t at = 0;
  const Vector* v = Locate(r, col, row, at);
  if (!v) return Value();
  return v->GetValue(at);
}

template <class T, class F>
T Convert(tessera_result r, uint64_t col, uint64_t row, F f) {
  try {
    Value v = Cell(r, col, row);
    if (v.is_null()) return T();
    return f(v);
  } catch (...) {
    return T();
  }
}

}  // namespace

extern "C" {

tessera_state tessera_query(tessera_connection connection, const char* sql, tessera_result* out_result) {
  if (out_result) *out_result = nullptr;
  if (!connection || !connection->conn || !sql) return TESSERA_MISUSE;
  tessera_result_s* h = nullptr;
  try {
    if (connection->streams) connection->streams->CloseOpen();  // DuckDB's rule: a new statement closes it
    h = capi::MakeResult(connection->conn->Query(sql));
    h->threads = connection->db->threads();
  } catch (...) {
    CapiError e;
    capi::CaptureError(e, sql);
    try {
      h = capi::MakeErrorResult(std::move(e));
    } catch (...) {
      return TESSERA_ERROR;
    }
  }
  return capi::HandOver(h, out_result);
}

tessera_state tessera_query_stream(tessera_connection connection, const char* sql, tessera_result* out_result) {
  if (out_result) *out_result = nullptr;
  if (!connection || !connection->conn || !connection->streams || !sql) return TESSERA_MISUSE;
  tessera_result_s* h = capi::StartQueryStream(connection, sql);
  if (!h) return TESSERA_ERROR;
  capi::FinishStart(h, std::chrono::milliseconds(-1));
  return capi::HandOver(h, out_result);
}

void tessera_destroy_result(tessera_result* result) {
  if (!result) return;
  delete *result;
  *result = nullptr;
}

const char* tessera_result_error(tessera_result result) {
  if (!result) return "NULL result handle";
  return result->error.failed ? result->error.message.c_str() : nullptr;
}

tessera_error_type tessera_result_error_type(tessera_result result) {
  return result ? result->error.type : TESSERA_ERROR_NONE;
}

int64_t tessera_result_error_offset(tessera_result result) { return result ? result->error.offset : -1; }

const char* tessera_result_message(tessera_result result) {
  return result && result->data ? result->data->message.c_str() : "";
}

uint64_t tessera_result_column_count(tessera_result result) {
  return result && result->data && result->data->has_rows ? result->data->types.size() : 0;
}

uint64_t tessera_result_row_count(tessera_result result) {
  if (result && result->streamed) return result->stream->fetched_rows();
  return result && result->data ? result->data->row_count : 0;
}

const char* tessera_result_column_name(tessera_result result, uint64_t column) {
  if (!ValidColumn(result, column) || column >= result->data->names.size()) return nullptr;
  return result->data->names[column].c_str();
}

tessera_type tessera_result_column_type(tessera_result result, uint64_t column) {
  if (!ValidColumn(result, column)) return TESSERA_TYPE_INVALID;
  switch (result->data->types[column].id) {
    case TypeId::Null: return TESSERA_TYPE_NULL;
    case TypeId::Boolean: return TESSERA_TYPE_BOOLEAN;
    case TypeId::Integer: return TESSERA_TYPE_INTEGER;
    case TypeId::BigInt: return TESSERA_TYPE_BIGINT;
    case TypeId::Double: return TESSERA_TYPE_DOUBLE;
    case TypeId::Decimal: return TESSERA_TYPE_DECIMAL;
    case TypeId::Date: return TESSERA_TYPE_DATE;
    case TypeId::Varchar: return TESSERA_TYPE_VARCHAR;
    case TypeId::Timestamp: return TESSERA_TYPE_TIMESTAMP;
    case TypeId::Time: return TESSERA_TYPE_TIME;
    case TypeId::Interval: return TESSERA_TYPE_INTERVAL;
    case TypeId::Blob: return TESSERA_TYPE_BLOB;
  }
  return TESSERA_TYPE_INVALID;
}

tessera_state tessera_result_column_decimal(tessera_result result, uint64_t column, uint8_t* out_width,
                                            uint8_t* out_scale) {
  if (!result || !out_width || !out_scale) return TESSERA_MISUSE;
  if (!ValidColumn(result, column)) return TESSERA_RANGE;
  const Type& t = result->data->types[column];
  if (t.id != TypeId::Decimal) return TESSERA_MISUSE;
  *out_width = t.precision;
  *out_scale = t.scale;
  return TESSERA_OK;
}

tessera_state tessera_fetch_chunk(tessera_result result, tessera_chunk* out_chunk) {
  if (!out_chunk) return TESSERA_MISUSE;
  *out_chunk = nullptr;
  if (!result || !result->data) return TESSERA_MISUSE;
  if (result->error.failed) return capi::StateOf(result->error);
  if (result->streamed) return FetchStreamed(result, out_chunk);
  const auto& chunks = result->data->chunks;
  while (result->next_chunk < chunks.size() && chunks[result->next_chunk].size == 0) result->next_chunk++;
  if (result->next_chunk >= chunks.size()) return TESSERA_OK;  // no more rows
  try {
    *out_chunk = MakeChunk(chunks[result->next_chunk], result->data->types).release();
    result->next_chunk++;
    return TESSERA_OK;
  } catch (...) {
    return TESSERA_ERROR;
  }
}

tessera_state tessera_result_reset_fetch(tessera_result result) {
  if (!result || result->streamed) return TESSERA_MISUSE;  // a stream's rows go by once
  result->next_chunk = 0;
  return TESSERA_OK;
}

void tessera_chunk_destroy(tessera_chunk* chunk) {
  if (!chunk) return;
  delete *chunk;
  *chunk = nullptr;
}

uint64_t tessera_chunk_row_count(tessera_chunk chunk) { return chunk ? chunk->rows : 0; }

uint64_t tessera_chunk_column_count(tessera_chunk chunk) { return chunk ? chunk->data.size() : 0; }

const void* tessera_chunk_column_data(tessera_chunk chunk, uint64_t column) {
  if (!chunk || column >= chunk->data.size() || chunk->data[column].empty()) return nullptr;
  return chunk->data[column].data();
}

const uint8_t* tessera_chunk_column_validity(tessera_chunk chunk, uint64_t column) {
  if (!chunk || column >= chunk->validity.size() || chunk->validity[column].empty()) return nullptr;
  return chunk->validity[column].data();
}

bool tessera_chunk_is_null(tessera_chunk chunk, uint64_t column, uint64_t row) {
  if (!chunk || column >= chunk->validity.size() || row >= chunk->rows) return false;
  return !chunk->validity[column].empty() && chunk->validity[column][row] == 0;
}

bool tessera_value_is_null(tessera_result result, uint64_t column, uint64_t row) {
  uint32_t at = 0;
  const Vector* v = Locate(result, column, row, at);
  return v && (!v->IsValid(at) || v->type().id == TypeId::Null);
}

bool tessera_value_boolean(tessera_result result, uint64_t column, uint64_t row) {
  return Convert<bool>(result, column, row, [](const Value& v) { return v.CastTo(Type::Boolean()).int_value() != 0; });
}

int32_t tessera_value_int32(tessera_result result, uint64_t column, uint64_t row) {
  return Convert<int32_t>(result, column, row,
                          [](const Value& v) { return (int32_t)v.CastTo(Type::Integer()).int_value(); });
}

int64_t tessera_value_int64(tessera_result result, uint64_t column, uint64_t row) {
  return Convert<int64_t>(result, column, row,
                          [](const Value& v) { return (int64_t)v.CastTo(Type::BigInt()).int_value(); });
}

double tessera_value_double(tessera_result result, uint64_t column, uint64_t row) {
  return Convert<double>(result, column, row, [](const Value& v) {
    if (v.type().IsTemporal()) return 0.0;
    return v.CastTo(Type::Double()).double_value();
  });
}

int32_t tessera_value_date(tessera_result result, uint64_t column, uint64_t row) {
  return Convert<int32_t>(result, column, row, [](const Value& v) {
    return v.type().id == TypeId::Date ? (int32_t)v.int_value() : 0;
  });
}

char* tessera_value_varchar(tessera_result result, uint64_t column, uint64_t row) {
  try {
    Value v = Cell(result, column, row);
    if (v.is_null()) return nullptr;
    return capi::CopyString(v.type().id == TypeId::Varchar ? v.str_value() : v.ToString());
  } catch (...) {
    return nullptr;
  }
}

}  // extern "C"
