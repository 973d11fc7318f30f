// Arrow C stream -> a temporary table (Python's Connection.register and the replacement
// scan of DataFrame variables). The record batches become row groups that point into the
// Arrow buffers where the layouts agree (capi/arrow_import.hpp): the table keeps each
// batch (and so the Python object's memory) alive until its last row group goes.
#include <memory>
#include <string_view>

#include "capi/arrow_import.hpp"
#include "ext.hpp"
#include "main/plan_cache.hpp"

namespace tessera::python {

namespace {

struct StreamGuard {
  ArrowArrayStream* s;
  ~StreamGuard() {
    if (s->release) s->release(s);
  }
};
struct SchemaGuard {
  ArrowSchema s{};
  ~SchemaGuard() {
    if (s.release) s.release(&s);
  }
};
struct ArrayGuard {
  ArrowArray a{};
  ~ArrayGuard() {
    if (a.release) a.release(&a);
  }
};

[[noreturn]] void RaiseImportError(const UserError& e) {
  const char* cls = e.kind() == ErrorKind::Unsupported ? "NotSupportedError"
                    : e.kind() == ErrorKind::Conversion ? "DataError"
                    : e.kind() == ErrorKind::IO         ? "OperationalError"
                                                        : "InterfaceError";
  RaiseDbApi(cls, std::string("register: ") + e.what());
}

}  // namespace

uint64_t ImportArrowStream(Conn& conn, const std::string& name, ArrowArrayStream* stream, bool replace, bool copy) {
  // The stream's callbacks run with the GIL held (a producer may need it); the conversion
  // without (pyarrow's release callbacks take the GIL themselves where they need it).
  StreamGuard sg{stream};
  auto stream_error = [&](const char* what, int rc) {
    const char* e = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
    RaiseDbApi("OperationalError", std::string("register: the Arrow stream failed in ") + what + " (" +
                                       std::to_string(rc) + "): " + (e ? e : "no message"));
  };
  SchemaGuard schema;
  if (int rc = stream->get_schema(stream, &schema.s)) stream_error("get_schema", rc);
  tessera_connection con = conn.get();
  auto& db = *con->db;
  std::unique_ptr<capi::ArrowTableImporter> importer;
  try {
    importer = std::make_unique<capi::ArrowTableImporter>(schema.s, name, copy, db.threads());
  } catch (const UserError& e) {
    RaiseImportError(e);
  }
  std::shared_ptr<TableData> data;
  std::string err;
  ErrorKind kind = ErrorKind::Input;
  for (;;) {
    ArrayGuard batch;
    if (int rc = stream->get_next(stream, &batch.a)) stream_error("get_next", rc);
    if (!batch.a.release) break;
    nb::gil_scoped_release unlocked;
    try {
      importer->AddBatch(&batch.a);
    } catch (const UserError& e) {
      err = e.what();
      kind = e.kind();
    }
    if (!err.empty()) break;
  }
  TableSchema ts = importer->schema();
  {
    nb::gil_scoped_release unlocked;
    if (err.empty()) data = importer->Finish();
    importer.reset();  // on an error: releases the batches taken so far
  }
  if (!err.empty()) RaiseImportError(UserError(kind, err));
  uint64_t rows = data->row_count;
  try {
    db.catalog().PutTemporaryTable(std::move(ts), std::move(data), replace);
    db.plan_cache().Clear();  // cached plans (now stale) would keep a replaced table's data alive
  } catch (const UserError& e) {
    RaiseEngineError(TESSERA_ERROR_CATALOG, e.what());
  }
  return rows;
}

}  // namespace tessera::python
