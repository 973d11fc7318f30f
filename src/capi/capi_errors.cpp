// C API: turning engine exceptions into a statement's error (message, kind, byte offset).
#include <cstdlib>
#include <cstring>
#include <new>

#include "capi/capi_handles.hpp"
#include "common/interrupt.hpp"

namespace tessera::capi {

namespace {
tessera_error_type TypeOf(ErrorKind k) {
  switch (k) {
    case ErrorKind::Syntax: return TESSERA_ERROR_SYNTAX;
    case ErrorKind::Binder: return TESSERA_ERROR_BINDER;
    case ErrorKind::Type: return TESSERA_ERROR_TYPE;
    case ErrorKind::Catalog: return TESSERA_ERROR_CATALOG;
    case ErrorKind::Input: return TESSERA_ERROR_INPUT;
    case ErrorKind::Constraint: return TESSERA_ERROR_CONSTRAINT;
    case ErrorKind::Conversion: return TESSERA_ERROR_CONVERSION;
    case ErrorKind::Unsupported: return TESSERA_ERROR_UNSUPPORTED;
    case ErrorKind::IO: return TESSERA_ERROR_IO;
    case ErrorKind::Transaction: return TESSERA_ERROR_TRANSACTION;
  }
  return TESSERA_ERROR_INTERNAL;
}

}  // namespace

void CaptureError(CapiError& error, std::string_view sql, const Substitution* sub, std::string_view original) {
  error = CapiError();
  error.failed = true;
  try {
    throw;
  } catch (const QueryInterrupted& e) {
    error.type = TESSERA_ERROR_INTERRUPTED;
    error.message = e.what();
  } catch (const UserError& e) {
    error.type = TypeOf(e.kind());
    error.message = e.raw();
    int64_t off = ByteOffset(sql, e.pos());
    if (off >= 0 && sub) off = sub->OriginalOffset(off);
    error.offset = off;
    if (off >= 0) error.message = UserError::Format(e.raw(), PositionAt(sub ? original : sql, off));
  } catch (const InternalError& e) {
    error.type = TESSERA_ERROR_INTERNAL;
    error.message = e.what();
  } catch (const std::bad_alloc&) {
    error.type = TESSERA_ERROR_INTERNAL;
    error.message = "out of memory";
  } catch (const std::exception& e) {
    error.type = TESSERA_ERROR_INTERNAL;
    error.message = e.what();
  } catch (...) {
    error.type = TESSERA_ERROR_INTERNAL;
    error.message = "unknown error";
  }
}

tessera_state StateOf(const CapiError& error) {
  if (!error.failed) return TESSERA_OK;
  return error.type == TESSERA_ERROR_INTERRUPTED ? TESSERA_INTERRUPTED : TESSERA_ERROR;
}

char* CopyString(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (!p) return nullptr;
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = 0;
  return p;
}

}  // namespace tessera::capi
