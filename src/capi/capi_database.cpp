// C API: library version, memory, options, databases and connections (tessera.h).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "capi/capi_handles.hpp"
#include "capi/result_stream.hpp"
#include "cli/version.hpp"
#include "gpu/gpu_executor.hpp"

using namespace tessera;

extern "C" {

const char* tessera_library_version(void) { return cli::kVersion; }

void tessera_free(void* ptr) { std::free(ptr); }

tessera_state tessera_config_create(tessera_config* out_config) {
  if (!out_config) return TESSERA_MISUSE;
  *out_config = new (std::nothrow) tessera_config_s();
  return *out_config ? TESSERA_OK : TESSERA_ERROR;
}

tessera_state tessera_config_set(tessera_config config, const char* key, const char* value) {
  if (!config || !key || !value) return TESSERA_MISUSE;
  std::string k = key, v = value;
  if (k == "device") {
    if (v != "cpu" && v != "gpu" && v != "auto") return TESSERA_ERROR;
    config->settings.device = v;
  } else if (k == "threads") {
    char* end = nullptr;
    errno = 0;
    long long n = std::strtoll(value, &end, 10);
    if (v.empty() || *end != 0 || errno != 0 || n < 0 || n > 65536) return TESSERA_ERROR;
    config->settings.threads = (unsigned)n;
  } else if (k == "plan_cache") {
    if (v == "true" || v == "on") config->settings.plan_cache = true;
    else if (v == "false" || v == "off") config->settings.plan_cache = false;
    else return TESSERA_ERROR;
  } else {
    return TESSERA_ERROR;
  }
  return TESSERA_OK;
}

void tessera_config_destroy(tessera_config* config) {
  if (!config) return;
  delete *config;
  *config = nullptr;
}

tessera_state tessera_open_ext(const char* path, tessera_database* out_database, tessera_config config,
                               char** out_error) {
  if (out_error) *out_error = nullptr;
  if (!out_database) return TESSERA_MISUSE;
  *out_database = nullptr;
  try {
    auto h = std::make_unique<tessera_database_s>();
    h->db = std::make_shared<Database>(path ? std::string(path) : std::string());
    if (config) h->db->settings() = config->settings;
    // An explicit "gpu" fails here, with the reason, where no GPU can be used.
    if (h->db->settings().device == "gpu") gpu::UseGpu("gpu");
    *out_database = h.release();
    return TESSERA_OK;
  } catch (const std::exception& e) {
    if (out_error) *out_error = capi::CopyString(e.what());
  } catch (...) {
    if (out_error) *out_error = capi::CopyString("unknown error");
  }
  return TESSERA_ERROR;
}

tessera_state tessera_open(const char* path, tessera_database* out_database) {
  return tessera_open_ext(path, out_database, nullptr, nullptr);
}

void tessera_close(tessera_database* database) {
  if (!database) return;
  delete *database;  // connections hold their own reference to the Database
  *database = nullptr;
}

tessera_state tessera_connect(tessera_database database, tessera_connection* out_connection) {
  if (!out_connection) return TESSERA_MISUSE;
  *out_connection = nullptr;
  if (!database || !database->db) return TESSERA_MISUSE;
  try {
    auto h = std::make_unique<tessera_connection_s>();
    h->db = database->db;
    h->conn = std::make_shared<Connection>(*h->db);
    h->streams = std::make_shared<capi::StreamSlot>(h->db, h->conn);
    *out_connection = h.release();
    return TESSERA_OK;
  } catch (...) {
    return TESSERA_ERROR;
  }
}

void tessera_disconnect(tessera_connection* connection) {
  if (!connection) return;
  if (*connection) {
    (*connection)->conn.reset();  // before the Database it refers to (statements may keep both)
    delete *connection;
  }
  *connection = nullptr;
}

tessera_state tessera_interrupt(tessera_connection connection) {
  if (!connection || !connection->conn) return TESSERA_MISUSE;
  connection->conn->Interrupt();
  if (connection->streams) connection->streams->Interrupt();  // a query waiting for its caller
  return TESSERA_OK;
}

int tessera_in_transaction(tessera_connection connection) {
  return connection && connection->conn && connection->conn->in_transaction() ? 1 : 0;
}

}  // extern "C"
