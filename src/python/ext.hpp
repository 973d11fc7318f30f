// Shared declarations of the Python extension tessera._tessera (module.cpp, arrow_import.cpp).
#pragma once
#include <nanobind/nanobind.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "capi/capi_handles.hpp"

namespace tessera::python {

namespace nb = nanobind;

// Raises the Python exception tessera._exceptions makes for an engine error of `kind`
// (a tessera_error_type), with the message and the byte offset (-1: none).
[[noreturn]] void RaiseEngineError(int kind, const std::string& message, int64_t offset = -1);
// Raises tessera.<cls> (ProgrammingError, NotSupportedError, ...) with `message`.
[[noreturn]] void RaiseDbApi(const char* cls, const std::string& message);

// One tessera connection; `mu` serialises its use (the C API allows one thread at a time).
struct Conn {
  tessera_connection con = nullptr;
  std::mutex mu;
  ~Conn() { tessera_disconnect(&con); }
  tessera_connection get() const {
    if (!con) RaiseDbApi("ProgrammingError", "the cursor or connection is closed");
    return con;
  }
};

// Imports the Arrow C stream `stream` (taking ownership: the stream is released before
// return, its batches when the table no longer needs them) into the temporary table
// `name` of the connection's database, sharing the Arrow buffers where the layouts agree
// (`copy`: copying every buffer instead); replaces a temporary table of that name when
// `replace`. Returns the number of rows. Called with the GIL held; it releases the GIL
// while converting.
uint64_t ImportArrowStream(Conn& conn, const std::string& name, ArrowArrayStream* stream, bool replace, bool copy);

}  // namespace tessera::python
