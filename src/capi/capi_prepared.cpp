// C API: prepared statements, their parameters written into the SQL text as typed
// literals (main/sql_parameters.hpp), and running them (tessera.h).
#include <cstring>

#include "capi/capi_handles.hpp"
#include "capi/result_stream.hpp"
#include "common/date.hpp"
#include "parser/parser.hpp"

using namespace tessera;

namespace {

tessera_state Bind(tessera_prepared p, uint64_t index, const Value& v) {
  if (!p || p->error.failed) return TESSERA_MISUSE;  // no statement, or one that failed to prepare
  if (index == 0 || index > p->placeholders.count) return TESSERA_RANGE;
  try {
    p->literals[index - 1] = SqlLiteral(v);
    p->bound[index - 1] = true;
    return TESSERA_OK;
  } catch (...) {
    return TESSERA_ERROR;
  }
}

}  // namespace

namespace tessera::capi {

CapiError MissingBinding(const tessera_prepared_s& p) {
  CapiError missing;
  for (size_t k = 0; k < p.bound.size(); k++)
    if (!p.bound[k]) {
      missing.failed = true;
      missing.type = TESSERA_ERROR_PARAMETER;
      missing.message = "parameter " + std::to_string(k + 1) + " is not bound";
      for (auto& ph : p.placeholders.list)
        if (ph.index == k) {
          missing.offset = (int64_t)ph.begin;
          break;
        }
      break;
    }
  return missing;
}

}  // namespace tessera::capi

extern "C" {

tessera_state tessera_prepare(tessera_connection connection, const char* sql, tessera_prepared* out_prepared) {
  if (!out_prepared) return TESSERA_MISUSE;
  *out_prepared = nullptr;
  if (!connection || !connection->conn || !sql) return TESSERA_MISUSE;
  tessera_prepared_s* p = nullptr;
  try {
    auto h = std::make_unique<tessera_prepared_s>();
    h->db = connection->db;
    h->conn = connection->conn;
    h->streams = connection->streams;
    h->sql = sql;
    h->placeholders = FindPlaceholders(h->sql);
    if (!h->placeholders.error.empty()) {
      h->error.failed = true;
      h->error.type = TESSERA_ERROR_PARAMETER;
      h->error.offset = (int64_t)h->placeholders.error_offset;
      h->error.message = h->placeholders.error;
    } else {
      h->bound.assign(h->placeholders.count, false);
      h->literals.assign(h->placeholders.count, "NULL");
      // Syntax check with NULL for every parameter; errors point into the caller's text.
      Substitution sub(h->sql, h->placeholders, h->literals);
      try {
        ParseSQL(sub.sql());
      } catch (...) {
        capi::CaptureError(h->error, sub.sql(), &sub, h->sql);
      }
    }
    p = h.release();
  } catch (...) {
    return TESSERA_ERROR;
  }
  *out_prepared = p;
  return p->error.failed ? TESSERA_ERROR : TESSERA_OK;
}

void tessera_destroy_prepare(tessera_prepared* prepared) {
  if (!prepared) return;
  delete *prepared;
  *prepared = nullptr;
}

const char* tessera_prepare_error(tessera_prepared prepared) {
  if (!prepared) return "NULL prepared statement handle";
  return prepared->error.failed ? prepared->error.message.c_str() : nullptr;
}

int64_t tessera_prepare_error_offset(tessera_prepared prepared) { return prepared ? prepared->error.offset : -1; }

uint64_t tessera_parameter_count(tessera_prepared prepared) {
  return prepared && !prepared->error.failed ? prepared->placeholders.count : 0;
}

tessera_state tessera_bind_null(tessera_prepared p, uint64_t i) { return Bind(p, i, Value::Null()); }

tessera_state tessera_bind_boolean(tessera_prepared p, uint64_t i, bool v) { return Bind(p, i, Value::Boolean(v)); }

tessera_state tessera_bind_int32(tessera_prepared p, uint64_t i, int32_t v) { return Bind(p, i, Value::Integer(v)); }

tessera_state tessera_bind_int64(tessera_prepared p, uint64_t i, int64_t v) { return Bind(p, i, Value::BigInt(v)); }

tessera_state tessera_bind_double(tessera_prepared p, uint64_t i, double v) { return Bind(p, i, Value::Double(v)); }

tessera_state tessera_bind_decimal(tessera_prepared p, uint64_t i, int64_t unscaled, uint8_t width, uint8_t scale) {
  if (width < 1 || width > 18 || scale > width) return p ? TESSERA_ERROR : TESSERA_MISUSE;
  int128_t lim = Pow10(width);
  if ((int128_t)unscaled >= lim || (int128_t)unscaled <= -lim) return p ? TESSERA_ERROR : TESSERA_MISUSE;
  return Bind(p, i, Value::Decimal(unscaled, width, scale));
}

tessera_state tessera_bind_date(tessera_prepared p, uint64_t i, int32_t days) { return Bind(p, i, Value::Date(days)); }

tessera_state tessera_bind_timestamp(tessera_prepared p, uint64_t i, int64_t micros) {
  return Bind(p, i, Value::Timestamp(micros));
}

tessera_state tessera_bind_time(tessera_prepared p, uint64_t i, int64_t micros) {
  if (micros < 0 || micros > kMicrosPerDay) return TESSERA_MISUSE;
  return Bind(p, i, Value::Time(micros));
}

tessera_state tessera_bind_varchar_length(tessera_prepared p, uint64_t i, const char* value, uint64_t length) {
  if (!value && length > 0) return TESSERA_MISUSE;
  if (length > 0 && std::memchr(value, 0, length)) return p ? TESSERA_ERROR : TESSERA_MISUSE;
  return Bind(p, i, Value::Varchar(std::string(value ? value : "", length)));
}

tessera_state tessera_bind_varchar(tessera_prepared p, uint64_t i, const char* value) {
  if (!value) return TESSERA_MISUSE;
  return tessera_bind_varchar_length(p, i, value, std::strlen(value));
}

tessera_state tessera_clear_bindings(tessera_prepared p) {
  if (!p) return TESSERA_MISUSE;
  p->bound.assign(p->bound.size(), false);
  p->literals.assign(p->literals.size(), "NULL");
  return TESSERA_OK;
}

tessera_state tessera_execute_prepared(tessera_prepared p, tessera_result* out_result) {
  if (out_result) *out_result = nullptr;
  if (!p || !p->conn || p->error.failed) return TESSERA_MISUSE;
  tessera_result_s* h = nullptr;
  try {
    if (p->streams) p->streams->CloseOpen();
    CapiError missing = capi::MissingBinding(*p);
    if (missing.failed) {
      h = capi::MakeErrorResult(std::move(missing));
    } else {
      Substitution sub(p->sql, p->placeholders, p->literals);
      try {
        h = capi::MakeResult(p->conn->Query(sub.sql()));
        h->threads = p->db->threads();
      } catch (...) {
        CapiError e;
        capi::CaptureError(e, sub.sql(), &sub, p->sql);
        h = capi::MakeErrorResult(std::move(e));
      }
    }
  } catch (...) {
    return TESSERA_ERROR;
  }
  return capi::HandOver(h, out_result);
}

tessera_state tessera_execute_prepared_stream(tessera_prepared p, tessera_result* out_result) {
  if (out_result) *out_result = nullptr;
  if (!p || !p->conn || !p->streams || p->error.failed) return TESSERA_MISUSE;
  tessera_result_s* h = capi::StartPreparedStream(p);
  if (!h) return TESSERA_ERROR;
  capi::FinishStart(h, std::chrono::milliseconds(-1));
  return capi::HandOver(h, out_result);
}

}  // extern "C"
