// tessera._tessera: the nanobind extension under the Python package (python/tessera).
// It wraps the C API (tessera.h) handles: Database, Connection, Statement (prepared) and
// Result, converts result rows to Python objects, exports results as Arrow C streams
// (PyCapsule "arrow_array_stream") and imports Arrow streams into temporary tables
// (arrow_import.cpp). The DB-API layer over it is Python (python/tessera/).
//
// Queries run with the GIL released, streamed: a result's rows are pulled from the running
// query as they are fetched. While the main thread waits for the engine it checks for
// signals every 20 ms: when a signal handler raises (Ctrl-C: KeyboardInterrupt),
// tessera_interrupt stops the query and the exception propagates.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/unique_ptr.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <thread>

#include <unistd.h>

#include "common/date.hpp"
#include "common/decimal.hpp"
#include "common/interval.hpp"
#include "capi/arrow_export.hpp"
#include "capi/result_stream.hpp"
#include "execution/operators/basic_operators.hpp"
#include "ext.hpp"
#include "main/plan_cache.hpp"

namespace tessera::python {

namespace {

PyObject* g_decimal = nullptr;      // decimal.Decimal
unsigned long g_main_thread = 0;    // threading.main_thread().ident

nb::object Exceptions() { return nb::module_::import_("tessera._exceptions"); }

}  // namespace

void RaiseEngineError(int kind, const std::string& message, int64_t offset) {
  nb::object exc = Exceptions().attr("_from_engine")(kind, message, offset);
  PyErr_SetObject((PyObject*)Py_TYPE(exc.ptr()), exc.ptr());
  throw nb::python_error();
}

void RaiseDbApi(const char* cls, const std::string& message) {
  nb::object exc = Exceptions().attr(cls)(message);
  PyErr_SetObject((PyObject*)Py_TYPE(exc.ptr()), exc.ptr());
  throw nb::python_error();
}

namespace {

// ------------------------------------------------------------------------------------
// Running a statement: streamed, interruptible from the main thread.
//
// A statement runs on its engine connection's stream thread (capi/result_stream.hpp) and
// its rows are pulled as they come. Whenever the main thread waits for the engine (the
// statement's start, the next chunk, the Arrow export's next batch) it checks for signals
// every 20 ms; when a signal handler raises (Ctrl-C: KeyboardInterrupt), tessera_interrupt
// stops the query and the handler's exception propagates.

// A Python exception caught while waiting (shared by a result and its Arrow streams).
struct PendingSignal {
  std::mutex mu;
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  bool set() {
    std::lock_guard<std::mutex> g(mu);
    return type != nullptr;
  }
  // Raises it (with the GIL held) if one was caught.
  void Raise() {
    std::lock_guard<std::mutex> g(mu);
    if (!type) return;
    PyErr_Restore(type, value, traceback);
    type = value = traceback = nullptr;
    throw nb::python_error();
  }
};

// What a wait calls every 20 ms: on the main thread, runs the signal handlers (taking the
// GIL); when one raises, keeps its exception in `pending` and calls `interrupt`.
std::function<void()> SignalPoll(std::function<void()> interrupt, std::shared_ptr<PendingSignal> pending) {
  if (PyThread_get_thread_ident() != g_main_thread) return nullptr;
  return [interrupt = std::move(interrupt), pending] {
    if (pending->set()) return;  // interrupted already: waiting for the query to stop
    PyGILState_STATE st = PyGILState_Ensure();
    if (PyErr_CheckSignals() != 0) {
      std::lock_guard<std::mutex> g(pending->mu);
      PyErr_Fetch(&pending->type, &pending->value, &pending->traceback);
      interrupt();
    }
    PyGILState_Release(st);
  };
}

// Starts a statement (`start` makes its streamed result handle) with the GIL released and
// waits until its rows begin or it ended.
tessera_result Start(Conn& conn, const std::function<tessera_result_s*()>& start,
                     const std::shared_ptr<PendingSignal>& pending) {
  tessera_connection con = conn.get();
  auto poll = SignalPoll([con] { tessera_interrupt(con); }, pending);
  tessera_result_s* h = nullptr;
  {
    nb::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> g(conn.mu);
    h = start();
    if (h) {
      while (!capi::FinishStart(h, std::chrono::milliseconds(poll ? 20 : -1))) poll();
    }
  }
  if (pending->set()) {
    tessera_destroy_result(&h);
    pending->Raise();  // the GIL is held again here
  }
  if (!h) RaiseDbApi("InternalError", "out of memory");
  return h;
}

// ------------------------------------------------------------------------------------
// Results

const char* TypeName(tessera_type t) {
  switch (t) {
    case TESSERA_TYPE_NULL: return "NULL";
    case TESSERA_TYPE_BOOLEAN: return "BOOLEAN";
    case TESSERA_TYPE_INTEGER: return "INTEGER";
    case TESSERA_TYPE_BIGINT: return "BIGINT";
    case TESSERA_TYPE_DOUBLE: return "DOUBLE";
    case TESSERA_TYPE_DECIMAL: return "DECIMAL";
    case TESSERA_TYPE_DATE: return "DATE";
    case TESSERA_TYPE_VARCHAR: return "VARCHAR";
    case TESSERA_TYPE_TIMESTAMP: return "TIMESTAMP";
    case TESSERA_TYPE_TIME: return "TIME";
    case TESSERA_TYPE_INTERVAL: return "INTERVAL";
    case TESSERA_TYPE_BLOB: return "BLOB";
    default: return "INVALID";
  }
}

void DestroyStreamCapsule(PyObject* capsule) {
  auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (!s) {
    PyErr_Clear();
    return;
  }
  if (s->release) s->release(s);
  delete s;
}

class Result {
 public:
  Result(tessera_result r, std::shared_ptr<PendingSignal> pending) : r_(r), pending_(std::move(pending)) {}
  ~Result() {
    nb::gil_scoped_release unlocked;  // closing a running stream waits for its query to stop
    tessera_destroy_result(&r_);
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;

  const QueryResult& data() const { return *r_->data; }
  bool has_rows() const { return data().has_rows; }
  std::string message() const { return data().message; }
  // Rows of a statement that returned rows: those fetched so far (the total once all were).
  uint64_t row_count() const { return tessera_result_row_count(r_); }
  uint64_t position() const { return pos_; }
  std::vector<std::string> names() const { return data().names; }
  std::vector<std::string> type_names() const {
    std::vector<std::string> t;
    for (uint64_t c = 0; c < data().types.size(); c++) t.push_back(TypeName(tessera_result_column_type(r_, c)));
    return t;
  }
  // (precision, scale) per column (0, 0 except for DECIMAL).
  std::vector<std::pair<int, int>> decimals() const {
    std::vector<std::pair<int, int>> d;
    for (auto& t : data().types) d.emplace_back(t.id == TypeId::Decimal ? t.precision : 0, t.id == TypeId::Decimal ? t.scale : 0);
    return d;
  }

  // Up to `n` rows (n < 0: all the rest) as a list of tuples, from the current position,
  // pulled from the query as it goes.
  nb::list Fetch(int64_t n) {
    nb::list out;
    const size_t ncols = data().types.size();
    while (n < 0 || (int64_t)nb::len(out) < n) {
      if (row_ >= cur_.size && !NextChunk()) break;
      const DataChunk& ch = cur_;
      uint32_t end = ch.size;
      if (n >= 0) end = (uint32_t)std::min<int64_t>(end, row_ + (n - (int64_t)nb::len(out)));
      for (uint32_t r = row_; r < end; r++) {
        PyObject* tuple = PyTuple_New((Py_ssize_t)ncols);
        if (!tuple) throw nb::python_error();
        nb::object guard = nb::steal(tuple);
        for (size_t c = 0; c < ncols; c++) PyTuple_SET_ITEM(tuple, (Py_ssize_t)c, Cell(ch.cols[c], r));
        out.append(guard);
      }
      pos_ += end - row_;
      row_ = end;
    }
    return out;
  }
  // Marks every row as fetched (after .arrow() and friends took the rest).
  void Exhaust() {
    cur_ = DataChunk();
    row_ = 0;
    done_ = true;
  }

  // The rows not fetched yet as an Arrow C stream in a PyCapsule (the PyCapsule
  // interface), in batches of up to `batch_rows` rows, pulled from the query as the
  // consumer reads them. The rows go to the stream: the result has none left afterwards.
  nb::object ArrowCapsule(uint64_t batch_rows) {
    auto* s = new ArrowArrayStream();
    DataChunk head;
    if (row_ < cur_.size) {  // the rest of the chunk fetched in part
      std::vector<uint32_t> sel(cur_.size - row_);
      for (uint32_t i = 0; i < sel.size(); i++) sel[i] = row_ + i;
      SliceChunk(cur_, sel.data(), (uint32_t)sel.size(), head);
    }
    std::function<void()> poll = r_->streamed ? SignalPoll(InterruptQuery(), pending_) : nullptr;
    if (capi::ExportArrowStream(r_, &head, s, batch_rows, std::move(poll)) != TESSERA_OK) {
      delete s;
      RaiseDbApi("InternalError", "the Arrow export failed");
    }
    Exhaust();
    PyObject* cap = PyCapsule_New(s, "arrow_array_stream", DestroyStreamCapsule);
    if (!cap) {
      s->release(s);
      delete s;
      throw nb::python_error();
    }
    return nb::steal(cap);
  }
  // After an Arrow stream of this result failed (it can only report a message): raises
  // the exception of a signal caught while it waited, or the query's error, if any.
  void RaiseStreamError() {
    pending_->Raise();
    if (!r_->streamed) return;
    CapiError e = r_->stream->error();
    if (e.failed) RaiseEngineError(e.type, e.message, e.offset);
  }

 private:
  // A new reference to the Python value of row `r` of `v`.
  static PyObject* Cell(const Vector& v, uint32_t r) {
    if (!v.IsValid(r) || v.type().id == TypeId::Null) Py_RETURN_NONE;
    PyObject* o = nullptr;
    switch (v.type().id) {
      case TypeId::Boolean: o = PyBool_FromLong(v.data<uint8_t>()[r]); break;
      case TypeId::Integer: o = PyLong_FromLong(v.data<int32_t>()[r]); break;
      case TypeId::BigInt: o = PyLong_FromLongLong(v.data<int64_t>()[r]); break;
      case TypeId::Double: o = PyFloat_FromDouble(v.data<double>()[r]); break;
      case TypeId::Date: {
        int y;
        unsigned m, d;
        CivilFromDays(v.data<int32_t>()[r], y, m, d);
        if (y < 1 || y > 9999) {
          std::string text = std::to_string(y) + "-" + std::to_string(m) + "-" + std::to_string(d);
          RaiseDbApi("DataError", "the DATE " + text + " is outside Python's datetime.date range");
        }
        o = PyDate_FromDate(y, (int)m, (int)d);
        break;
      }
      case TypeId::Timestamp: {
        const int64_t us = v.data<int64_t>()[r];
        int y;
        unsigned m, d;
        CivilFromDays(TimestampDay(us), y, m, d);
        if (y < 1 || y > 9999) RaiseDbApi("DataError", "the TIMESTAMP " + FormatTimestamp(us) + " is outside Python's datetime range");
        const int64_t t = TimestampTimeOfDay(us);
        o = PyDateTime_FromDateAndTime(y, (int)m, (int)d, (int)(t / 3600000000LL), (int)(t / 60000000LL % 60),
                                       (int)(t / 1000000LL % 60), (int)(t % 1000000LL));
        break;
      }
      case TypeId::Time: {
        const int64_t t = v.data<int64_t>()[r];
        if (t >= kMicrosPerDay) RaiseDbApi("DataError", "the TIME 24:00:00 is outside Python's datetime.time range");
        o = PyTime_FromTime((int)(t / 3600000000LL), (int)(t / 60000000LL % 60), (int)(t / 1000000LL % 60),
                            (int)(t % 1000000LL));
        break;
      }
      case TypeId::Interval: {  // a timedelta: months as 30 days (DuckDB's)
        const IntervalParts p = UnpackInterval(v.data<int128_t>()[r]);
        const int64_t days = (int64_t)p.months * 30 + p.days + p.micros / kMicrosPerDay;
        const int64_t us = p.micros % kMicrosPerDay;
        o = PyDelta_FromDSU((int)days, (int)(us / kMicrosPerSecond), (int)(us % kMicrosPerSecond));
        break;
      }
      case TypeId::Blob: {
        StrRef s = v.data<StrRef>()[r];
        o = PyBytes_FromStringAndSize(s.data(), (Py_ssize_t)s.size());
        break;
      }
      case TypeId::Varchar: {
        StrRef s = v.data<StrRef>()[r];
        o = PyUnicode_DecodeUTF8(s.data(), (Py_ssize_t)s.size(), "replace");
        break;
      }
      case TypeId::Decimal: {
        int128_t x = v.type().physical() == PhysType::I64 ? (int128_t)v.data<int64_t>()[r] : v.data<int128_t>()[r];
        std::string text = FormatDecimal(x, v.type().scale);
        o = PyObject_CallFunction(g_decimal, "s#", text.data(), (Py_ssize_t)text.size());
        break;
      }
      default: Py_RETURN_NONE;
    }
    if (!o) throw nb::python_error();
    return o;
  }

  // The next chunk into cur_ (a collected result's next one, or the stream's, waiting
  // with the GIL released); false at the end. Raises the stream's error.
  bool NextChunk() {
    row_ = 0;
    if (done_) return false;
    if (!r_->streamed) {
      const auto& chunks = data().chunks;
      while (chunk_ < chunks.size() && chunks[chunk_].size == 0) chunk_++;
      if (chunk_ >= chunks.size()) {
        done_ = true;
        return false;
      }
      cur_ = chunks[chunk_++];  // small: a statement's rows that do not stream (EXPLAIN)
      return true;
    }
    bool got = false;
    {
      auto poll = SignalPoll(InterruptQuery(), pending_);
      nb::gil_scoped_release unlocked;
      got = r_->stream->Next(cur_, poll);
    }
    pending_->Raise();
    if (got) return true;
    done_ = true;
    cur_ = DataChunk();
    CapiError e = r_->stream->error();
    if (e.failed) RaiseEngineError(e.type, e.message, e.offset);
    return false;
  }

  // Stops this result's query (its connection handle may be gone: the stream keeps the
  // engine connection).
  std::function<void()> InterruptQuery() {
    std::weak_ptr<capi::ResultStream> w = r_->stream;
    return [w] {
      if (auto s = w.lock()) s->InterruptQuery();
    };
  }

  tessera_result r_;
  std::shared_ptr<PendingSignal> pending_;
  DataChunk cur_;    // the chunk being fetched
  uint32_t row_ = 0; // the next row of cur_
  size_t chunk_ = 0; // a collected result's next chunk
  uint64_t pos_ = 0;
  bool done_ = false;
};

// Raises the result's error (if it failed); returns the result otherwise.
std::unique_ptr<Result> Check(tessera_result r, std::shared_ptr<PendingSignal> pending) {
  auto res = std::make_unique<Result>(r, std::move(pending));
  if (!r) RaiseDbApi("InternalError", "no result");
  if (tessera_result_error(r))
    RaiseEngineError(tessera_result_error_type(r), tessera_result_error(r), tessera_result_error_offset(r));
  return res;
}

// ------------------------------------------------------------------------------------
// Prepared statements: Python values bound to the C API's parameters

class Statement {
 public:
  Statement(std::shared_ptr<Conn> conn, tessera_prepared p) : conn_(std::move(conn)), p_(p) {}
  ~Statement() { tessera_destroy_prepare(&p_); }
  uint64_t parameter_count() const { return tessera_parameter_count(p_); }

  void Bind(nb::handle params) {
    nb::sequence seq;
    if (params.is_none()) {
      if (parameter_count() != 0)
        RaiseEngineError(TESSERA_ERROR_PARAMETER, "the statement has " + std::to_string(parameter_count()) +
                                                      " parameters and none were given");
      return;
    }
    if (PyUnicode_Check(params.ptr()) || PyBytes_Check(params.ptr()) || !PySequence_Check(params.ptr()))
      RaiseDbApi("ProgrammingError", "parameters must be a sequence (list or tuple); paramstyle is qmark");
    size_t n = nb::len(params);
    if (n != parameter_count())
      RaiseEngineError(TESSERA_ERROR_PARAMETER, "the statement has " + std::to_string(parameter_count()) +
                                                    " parameters, " + std::to_string(n) + " were given");
    for (size_t i = 0; i < n; i++) BindOne(i + 1, params[i]);
  }

  std::unique_ptr<Result> Execute() {
    tessera_prepared p = p_;
    auto pending = std::make_shared<PendingSignal>();
    tessera_result r = Start(*conn_, [p] { return capi::StartPreparedStream(p); }, pending);
    return Check(r, pending);
  }

 private:
  void BindOne(uint64_t i, nb::handle v) {
    PyObject* o = v.ptr();
    tessera_state st = TESSERA_OK;
    if (o == Py_None) {
      st = tessera_bind_null(p_, i);
    } else if (PyBool_Check(o)) {
      st = tessera_bind_boolean(p_, i, o == Py_True);
    } else if (PyLong_Check(o)) {
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow) RaiseDbApi("DataError", "parameter " + std::to_string(i) + ": the integer does not fit in BIGINT");
      if (x == -1 && PyErr_Occurred()) throw nb::python_error();
      st = x >= INT32_MIN && x <= INT32_MAX ? tessera_bind_int32(p_, i, (int32_t)x) : tessera_bind_int64(p_, i, x);
    } else if (PyFloat_Check(o)) {
      st = tessera_bind_double(p_, i, PyFloat_AS_DOUBLE(o));
    } else if (PyUnicode_Check(o)) {
      Py_ssize_t len = 0;
      const char* s = PyUnicode_AsUTF8AndSize(o, &len);
      if (!s) throw nb::python_error();
      st = tessera_bind_varchar_length(p_, i, s, (uint64_t)len);
      if (st == TESSERA_ERROR) RaiseDbApi("DataError", "parameter " + std::to_string(i) + ": text with a NUL character");
    } else if (PyDateTime_Check(o)) {  // naive: its wall-clock time (a tzinfo is not applied)
      const int64_t day = DaysFromCivil(PyDateTime_GET_YEAR(o), PyDateTime_GET_MONTH(o), PyDateTime_GET_DAY(o));
      const int64_t tod = ((int64_t)PyDateTime_DATE_GET_HOUR(o) * 3600 + PyDateTime_DATE_GET_MINUTE(o) * 60 +
                           PyDateTime_DATE_GET_SECOND(o)) * kMicrosPerSecond + PyDateTime_DATE_GET_MICROSECOND(o);
      st = tessera_bind_timestamp(p_, i, day * kMicrosPerDay + tod);
    } else if (PyTime_Check(o)) {
      const int64_t tod = ((int64_t)PyDateTime_TIME_GET_HOUR(o) * 3600 + PyDateTime_TIME_GET_MINUTE(o) * 60 +
                           PyDateTime_TIME_GET_SECOND(o)) * kMicrosPerSecond + PyDateTime_TIME_GET_MICROSECOND(o);
      st = tessera_bind_time(p_, i, tod);
    } else if (PyDelta_Check(o)) {
      RaiseDbApi("NotSupportedError", "parameter " + std::to_string(i) + ": tessera has no INTERVAL type yet");
    } else if (PyDate_Check(o)) {
      st = tessera_bind_date(p_, i, DaysFromCivil(PyDateTime_GET_YEAR(o), PyDateTime_GET_MONTH(o), PyDateTime_GET_DAY(o)));
    } else if (PyObject_IsInstance(o, g_decimal) == 1) {
      BindDecimal(i, v);
      return;
    } else {
      RaiseDbApi("NotSupportedError", "parameter " + std::to_string(i) + ": values of type " +
                                          nb::cast<std::string>(nb::type_name(v.type())) +
                                          " cannot be bound (int, float, str, bool, None, Decimal, datetime.date, datetime.datetime, datetime.time)");
    }
    if (st != TESSERA_OK) RaiseDbApi("InterfaceError", "binding parameter " + std::to_string(i) + " failed");
  }

  void BindDecimal(uint64_t i, nb::handle v) {
    nb::tuple t = nb::cast<nb::tuple>(v.attr("as_tuple")());
    int sign = nb::cast<int>(t[0]);
    nb::handle exp_obj = t[2];
    if (!PyLong_Check(exp_obj.ptr())) RaiseDbApi("DataError", "parameter " + std::to_string(i) + ": a NaN or infinite Decimal");
    int exp = nb::cast<int>(exp_obj);
    nb::tuple digits = nb::cast<nb::tuple>(t[1]);
    std::string ds;
    for (size_t k = 0; k < nb::len(digits); k++) ds += (char)('0' + nb::cast<int>(digits[k]));
    if (exp > 0) ds.append((size_t)exp, '0');
    int scale = exp < 0 ? -exp : 0;
    size_t first = ds.find_first_not_of('0');
    ds = first == std::string::npos ? "0" : ds.substr(first);
    int width = std::max<int>({(int)ds.size(), scale, 1});
    if (width > 18)
      RaiseDbApi("NotSupportedError", "parameter " + std::to_string(i) + ": a Decimal of more than 18 digits cannot be bound yet");
    int64_t unscaled = std::stoll(ds);
    if (sign) unscaled = -unscaled;
    if (tessera_bind_decimal(p_, i, unscaled, (uint8_t)width, (uint8_t)scale) != TESSERA_OK)
      RaiseDbApi("InterfaceError", "binding parameter " + std::to_string(i) + " failed");
  }

  std::shared_ptr<Conn> conn_;
  tessera_prepared p_;
};

// ------------------------------------------------------------------------------------
// Databases and connections

class Database {
 public:
  Database(std::optional<std::string> path, const std::string& device, std::optional<int> threads,
           std::optional<bool> plan_cache) {
    tessera_config cfg = nullptr;
    tessera_config_create(&cfg);
    auto set = [&](const char* k, const std::string& v) {
      if (tessera_config_set(cfg, k, v.c_str()) != TESSERA_OK) {
        tessera_config_destroy(&cfg);
        RaiseDbApi("ProgrammingError", std::string("bad value for ") + k + ": \"" + v + "\"");
      }
    };
    set("device", device);
    if (threads) {
      if (*threads < 0) {
        tessera_config_destroy(&cfg);
        RaiseDbApi("ProgrammingError", "threads must be >= 0");
      }
      set("threads", std::to_string(*threads));
    }
    if (plan_cache) set("plan_cache", *plan_cache ? "true" : "false");
    char* err = nullptr;
    tessera_state st;
    {
      nb::gil_scoped_release unlocked;
      st = tessera_open_ext(path ? path->c_str() : nullptr, &db_, cfg, &err);
    }
    tessera_config_destroy(&cfg);
    if (st != TESSERA_OK) {
      std::string msg = err ? err : "cannot open the database";
      tessera_free(err);
      RaiseDbApi("OperationalError", msg);
    }
  }
  ~Database() { tessera_close(&db_); }
  void Close() { tessera_close(&db_); }
  bool closed() const { return db_ == nullptr; }
  std::shared_ptr<Conn> Connect() {
    if (!db_) RaiseDbApi("ProgrammingError", "the connection is closed");
    auto c = std::make_shared<Conn>();
    if (tessera_connect(db_, &c->con) != TESSERA_OK) RaiseDbApi("OperationalError", "cannot connect");
    return c;
  }

 private:
  tessera_database db_ = nullptr;
};

class Connection {
 public:
  explicit Connection(Database& db) : conn_(db.Connect()) {}
  void Close() {
    std::lock_guard<std::mutex> g(conn_->mu);
    tessera_disconnect(&conn_->con);
  }
  bool closed() const { return conn_->con == nullptr; }
  bool InTransaction() {
    nb::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> g(conn_->mu);
    return conn_->con && tessera_in_transaction(conn_->con) != 0;
  }

  std::unique_ptr<Result> Query(const std::string& sql) {
    tessera_connection con = conn_->get();
    auto pending = std::make_shared<PendingSignal>();
    tessera_result r = Start(*conn_, [con, &sql] { return capi::StartQueryStream(con, sql.c_str()); }, pending);
    return Check(r, pending);
  }

  std::unique_ptr<Statement> Prepare(const std::string& sql) {
    tessera_connection con = conn_->get();
    tessera_prepared p = nullptr;
    tessera_state st;
    {
      nb::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> g(conn_->mu);
      st = tessera_prepare(con, sql.c_str(), &p);
    }
    auto stmt = std::make_unique<Statement>(conn_, p);
    if (st != TESSERA_OK) {
      if (!p) RaiseDbApi("InterfaceError", "prepare failed");
      RaiseEngineError(p->error.type == TESSERA_ERROR_NONE ? TESSERA_ERROR_SYNTAX : p->error.type,
                       tessera_prepare_error(p), tessera_prepare_error_offset(p));
    }
    return stmt;
  }

  uint64_t RegisterArrow(const std::string& name, nb::handle capsule, bool replace, bool copy) {
    auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
    if (!s) throw nb::python_error();
    if (!s->release) RaiseDbApi("InterfaceError", "register: the Arrow stream was already consumed");
    // Move the stream out of the capsule (the capsule's destructor then sees it released).
    ArrowArrayStream stream = *s;
    s->release = nullptr;
    conn_->get();
    return ImportArrowStream(*conn_, name, &stream, replace, copy);
  }

  // For tests: per row group, the address of column `column`'s values (fixed-width types)
  // or offsets (VARCHAR) in the table `name`, to compare with the Arrow buffers'.
  std::vector<uintptr_t> ColumnAddresses(const std::string& name, size_t column) {
    tessera_connection con = conn_->get();
    auto e = con->db->catalog().GetTable(name);
    if (!e || !e->data) RaiseDbApi("ProgrammingError", "no table \"" + name + "\"");
    std::vector<uintptr_t> out;
    for (auto& rg : e->data->row_groups) {
      if (column >= rg->columns.size()) RaiseDbApi("ProgrammingError", "no such column");
      const ColumnChunk& c = *rg->columns[column];
      out.push_back(reinterpret_cast<uintptr_t>(c.type.physical() == PhysType::Str ? (const void*)c.offsets : c.data));
    }
    return out;
  }

  // Drops the temporary table `name` (a table made by register()); false if none.
  bool Unregister(const std::string& name) {
    tessera_connection con = conn_->get();
    auto& cat = con->db->catalog();
    auto e = cat.GetTable(name);
    if (!e || !e->temporary) return false;
    cat.DropTable(name, true);
    con->db->plan_cache().Clear();  // cached plans (now stale) would keep the data alive
    return true;
  }

  void Interrupt() {
    if (conn_->con) tessera_interrupt(conn_->con);
  }

 private:
  std::shared_ptr<Conn> conn_;
};

}  // namespace

}  // namespace tessera::python

using namespace tessera::python;

NB_MODULE(_tessera, m) {
  PyDateTime_IMPORT;
  if (!PyDateTimeAPI) throw nb::python_error();
  g_decimal = nb::object(nb::module_::import_("decimal").attr("Decimal")).release().ptr();
  g_main_thread = nb::cast<unsigned long>(nb::module_::import_("threading").attr("main_thread")().attr("ident"));

  m.doc() = "tessera's native extension (the C API's handles); use the package tessera instead.";
  m.def("library_version", [] { return std::string(tessera_library_version()); });

  nb::class_<Database>(m, "Database")
      .def(nb::init<std::optional<std::string>, const std::string&, std::optional<int>, std::optional<bool>>(),
           nb::arg("path").none(), nb::arg("device") = "auto", nb::arg("threads").none() = nb::none(),
           nb::arg("plan_cache").none() = nb::none())
      .def("close", &Database::Close)
      .def_prop_ro("closed", &Database::closed);

  nb::class_<Connection>(m, "Connection")
      .def(nb::init<Database&>(), nb::keep_alive<1, 2>())
      .def("close", &Connection::Close)
      .def_prop_ro("closed", &Connection::closed)
      .def("query", &Connection::Query, nb::arg("sql"))
      .def("prepare", &Connection::Prepare, nb::arg("sql"))
      .def("register_arrow", &Connection::RegisterArrow, nb::arg("name"), nb::arg("capsule"), nb::arg("replace") = true,
           nb::arg("copy") = false)
      .def("_column_addresses", &Connection::ColumnAddresses, nb::arg("name"), nb::arg("column"))
      .def("unregister", &Connection::Unregister, nb::arg("name"))
      .def("interrupt", &Connection::Interrupt)
      .def("in_transaction", &Connection::InTransaction);

  nb::class_<Statement>(m, "Statement")
      .def_prop_ro("parameter_count", &Statement::parameter_count)
      .def("bind", &Statement::Bind, nb::arg("params").none())
      .def("execute", &Statement::Execute);

  nb::class_<Result>(m, "Result")
      .def_prop_ro("has_rows", &Result::has_rows)
      .def_prop_ro("message", &Result::message)
      .def_prop_ro("row_count", &Result::row_count)
      .def_prop_ro("position", &Result::position)
      .def_prop_ro("names", &Result::names)
      .def_prop_ro("type_names", &Result::type_names)
      .def_prop_ro("decimals", &Result::decimals)
      .def("fetch", &Result::Fetch, nb::arg("n") = -1)
      .def("exhaust", &Result::Exhaust)
      .def("arrow_capsule", &Result::ArrowCapsule, nb::arg("batch_rows") = tessera::capi::kArrowBatchRows)
      .def("raise_stream_error", &Result::RaiseStreamError);
}
