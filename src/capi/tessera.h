/*
 * tessera.h -- the C API of the tessera analytical SQL database (libtessera).
 *
 * Handles are opaque pointers. Functions return a tessera_state (TESSERA_OK on success);
 * a NULL handle or output pointer is answered with TESSERA_MISUSE, never a crash. Errors
 * of a statement are kept on its result (or prepared statement): a message, a kind and,
 * where the engine knows one, the byte offset into the SQL text where the error is.
 *
 * Threads: a database may be shared by connections on several threads; one connection
 * (and the results and statements made from it) is used by one thread at a time, except
 * tessera_interrupt, which any thread may call.
 *
 * Memory: everything the library hands out is released by the matching tessera_*_destroy
 * / tessera_close / tessera_disconnect, or, for strings it allocates, by tessera_free.
 *
 * See docs/C_API.md for a guide and an example.
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TESSERA_API
#else
#define TESSERA_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Status codes, types, handles
 * ------------------------------------------------------------------------------------- */

typedef enum tessera_state {
  TESSERA_OK = 0,
  TESSERA_ERROR = 1,       /* the statement failed: see the result's error */
  TESSERA_MISUSE = 2,      /* a NULL handle or pointer, a closed handle, a wrong call order */
  TESSERA_RANGE = 3,       /* a column, row or parameter index out of range */
  TESSERA_INTERRUPTED = 4  /* tessera_interrupt stopped the statement */
} tessera_state;

/* What kind of error a failed statement met. */
typedef enum tessera_error_type {
  TESSERA_ERROR_NONE = 0,
  TESSERA_ERROR_SYNTAX = 1,
  TESSERA_ERROR_BINDER = 2,      /* unknown table/column, ambiguous name, ... */
  TESSERA_ERROR_TYPE = 3,        /* type mismatch */
  TESSERA_ERROR_CATALOG = 4,     /* table exists / does not exist, ... */
  TESSERA_ERROR_INPUT = 5,       /* bad input file or value */
  TESSERA_ERROR_CONSTRAINT = 6,  /* NOT NULL, ... */
  TESSERA_ERROR_CONVERSION = 7,  /* a cast that cannot be done, overflow */
  TESSERA_ERROR_UNSUPPORTED = 8, /* not implemented (yet) */
  TESSERA_ERROR_IO = 9,
  TESSERA_ERROR_INTERRUPTED = 10,
  TESSERA_ERROR_INTERNAL = 11,   /* a bug or an environment failure */
  TESSERA_ERROR_PARAMETER = 12,  /* prepared statement parameters (missing, bad index) */
  TESSERA_ERROR_TRANSACTION = 13 /* BEGIN/COMMIT/ROLLBACK misuse, a write-write conflict */
} tessera_error_type;

/* SQL types of result columns. TINYINT and SMALLINT columns are INTEGER in tessera, FLOAT
 * and REAL are DOUBLE. TESSERA_TYPE_NULL is the type of an untyped NULL (SELECT NULL). */
typedef enum tessera_type {
  TESSERA_TYPE_INVALID = 0,
  TESSERA_TYPE_NULL = 1,
  TESSERA_TYPE_BOOLEAN = 2, /* chunk data: uint8_t, 0 or 1 */
  TESSERA_TYPE_INTEGER = 3, /* chunk data: int32_t */
  TESSERA_TYPE_BIGINT = 4,  /* chunk data: int64_t */
  TESSERA_TYPE_DOUBLE = 5,  /* chunk data: double */
  TESSERA_TYPE_DECIMAL = 6, /* chunk data: int64_t (width <= 18) or tessera_int128, value * 10^scale */
  TESSERA_TYPE_DATE = 7,    /* chunk data: int32_t, days since 1970-01-01 */
  TESSERA_TYPE_VARCHAR = 8,   /* chunk data: tessera_string (UTF-8, not NUL-terminated) */
  TESSERA_TYPE_TIMESTAMP = 9, /* chunk data: int64_t, microseconds since 1970-01-01 00:00:00 */
  TESSERA_TYPE_TIME = 10,     /* chunk data: int64_t, microseconds since midnight */
  TESSERA_TYPE_INTERVAL = 11, /* chunk data: 16 bytes, months, days, micros packed (common/interval.hpp); read
                               * it as text (tessera_value_varchar) */
  TESSERA_TYPE_BLOB = 12      /* chunk data: tessera_string (the bytes) */
} tessera_type;

/* A 128-bit two's complement integer (DECIMAL with width > 18). */
typedef struct tessera_int128 {
  uint64_t lower;
  int64_t upper;
} tessera_int128;

/* A string in a chunk: `length` bytes at `data`; valid while the result lives. */
typedef struct tessera_string {
  const char* data;
  uint64_t length;
} tessera_string;

typedef struct tessera_database_s* tessera_database;
typedef struct tessera_connection_s* tessera_connection;
typedef struct tessera_result_s* tessera_result;
typedef struct tessera_chunk_s* tessera_chunk;
typedef struct tessera_prepared_s* tessera_prepared;
typedef struct tessera_config_s* tessera_config;

/* The library's version, e.g. "0.1.0-dev" (a static string). */
TESSERA_API const char* tessera_library_version(void);

/* Frees memory the library allocated for the caller (strings from tessera_value_varchar,
 * error messages from tessera_open_ext). NULL is ignored. */
TESSERA_API void tessera_free(void* ptr);

/* ---------------------------------------------------------------------------------------
 * Databases and connections
 * ------------------------------------------------------------------------------------- */

/* Options for tessera_open_ext. Keys: "device" = "cpu" | "gpu" | "auto" (default "auto":
 * the GPU where one can be used), "threads" = a number of worker threads ("0": all
 * hardware threads, the default), "plan_cache" = "true" | "false". */
TESSERA_API tessera_state tessera_config_create(tessera_config* out_config);
/* TESSERA_ERROR for an unknown key or a bad value (nothing is changed). */
TESSERA_API tessera_state tessera_config_set(tessera_config config, const char* key, const char* value);
TESSERA_API void tessera_config_destroy(tessera_config* config);

/* Opens (creating it if needed) the database directory at `path`; NULL, "" or ":memory:"
 * for an in-memory database. On failure *out_database is NULL. */
TESSERA_API tessera_state tessera_open(const char* path, tessera_database* out_database);
/* As tessera_open, with options (config may be NULL). On failure, when out_error is not
 * NULL, *out_error is a message to release with tessera_free. With device "gpu" it fails
 * where no GPU can be used (the message says why). */
TESSERA_API tessera_state tessera_open_ext(const char* path, tessera_database* out_database, tessera_config config,
                                           char** out_error);
/* Closes the handle and sets *database to NULL. Connections still open keep the database
 * alive until they are disconnected. */
TESSERA_API void tessera_close(tessera_database* database);

TESSERA_API tessera_state tessera_connect(tessera_database database, tessera_connection* out_connection);
TESSERA_API void tessera_disconnect(tessera_connection* connection);

/* Asks the statement running on `connection` (in another thread) to stop. Its CPU
 * pipelines stop before their next chunk of input (the GPU executor before its next
 * pipeline); the call running it returns TESSERA_INTERRUPTED. Has no effect when nothing
 * runs; the next statement clears the request. COPY's loading is not interrupted. */
TESSERA_API tessera_state tessera_interrupt(tessera_connection connection);

/* 1 while `connection` is inside an explicit transaction (after BEGIN, before COMMIT or
 * ROLLBACK), else 0 (also for NULL). Not to be called while a statement runs on it. */
TESSERA_API int tessera_in_transaction(tessera_connection connection);

/* ---------------------------------------------------------------------------------------
 * Queries and results
 * ------------------------------------------------------------------------------------- */

/* Runs the ';'-separated statements in `sql`; *out_result is the last statement's result.
 * Statements before a failing one have taken effect. A result is made even when the
 * statement fails (out_result may be NULL if the caller needs only the status): read its
 * error, then release it with tessera_destroy_result. */
TESSERA_API tessera_state tessera_query(tessera_connection connection, const char* sql, tessera_result* out_result);
TESSERA_API void tessera_destroy_result(tessera_result* result);

/* As tessera_query, but the rows are not collected first: the (last) statement runs on a
 * thread of the library's and hands its rows over as they are computed, and the call
 * returns as soon as the first of them are ready (a statement without rows, or one that
 * fails before its first rows, has ended when it returns: its status and error are final). The rows are
 * then taken, once and in order, with tessera_fetch_chunk or tessera_result_arrow_stream;
 * while the caller does not take them, the query waits (a few chunks are held). An error
 * met later (a failing cast, an interrupt) is returned by the fetch that meets it and is
 * the result's error from then on. tessera_result_row_count counts the rows fetched so far;
 * the single-value functions (tessera_value_*) see no rows. Destroying the result (and
 * releasing the Arrow streams made from it) stops the query and frees its rows; the
 * result stays usable after tessera_disconnect. A connection has at most one open stream: any later
 * statement on it (tessera_query*, tessera_execute_prepared*) first closes the open one, whose
 * later fetches then fail ("the result was closed..."). tessera_interrupt stops it too. */
TESSERA_API tessera_state tessera_query_stream(tessera_connection connection, const char* sql,
                                               tessera_result* out_result);

/* Errors: NULL / TESSERA_ERROR_NONE / -1 when the statement succeeded. The offset is the
 * byte offset into the SQL text given to tessera_query (or tessera_prepare) where the
 * error is, -1 when the engine knows no position. */
TESSERA_API const char* tessera_result_error(tessera_result result);
TESSERA_API tessera_error_type tessera_result_error_type(tessera_result result);
TESSERA_API int64_t tessera_result_error_offset(tessera_result result);

/* Statements without rows (CREATE, INSERT, COPY, SET) have 0 columns and a status
 * message such as "INSERT 3"; SELECT and EXPLAIN have columns (message ""). */
TESSERA_API const char* tessera_result_message(tessera_result result);
TESSERA_API uint64_t tessera_result_column_count(tessera_result result);
TESSERA_API uint64_t tessera_result_row_count(tessera_result result);
/* NULL / TESSERA_TYPE_INVALID for a column out of range. */
TESSERA_API const char* tessera_result_column_name(tessera_result result, uint64_t column);
TESSERA_API tessera_type tessera_result_column_type(tessera_result result, uint64_t column);
/* Width (precision) and scale of a DECIMAL column; TESSERA_MISUSE for other types. */
TESSERA_API tessera_state tessera_result_column_decimal(tessera_result result, uint64_t column, uint8_t* out_width,
                                                        uint8_t* out_scale);

/* Chunks: the rows in order, in pieces of at most 2048 rows. Each call gives the next
 * chunk, or sets *out_chunk to NULL (and returns TESSERA_OK) after the last one. A chunk
 * is released with tessera_chunk_destroy; its data stays valid until then and its strings
 * until the result is destroyed. tessera_result_reset_fetch starts over. */
TESSERA_API tessera_state tessera_fetch_chunk(tessera_result result, tessera_chunk* out_chunk);
TESSERA_API tessera_state tessera_result_reset_fetch(tessera_result result);
TESSERA_API void tessera_chunk_destroy(tessera_chunk* chunk);
TESSERA_API uint64_t tessera_chunk_row_count(tessera_chunk chunk);
TESSERA_API uint64_t tessera_chunk_column_count(tessera_chunk chunk);
/* The column's values, one per row, typed as listed at tessera_type (rows that are NULL
 * hold an unspecified value). NULL for a column out of range or of TESSERA_TYPE_NULL. */
TESSERA_API const void* tessera_chunk_column_data(tessera_chunk chunk, uint64_t column);
/* One byte per row, 1 = valid, 0 = NULL; NULL (the pointer) when every row is valid. */
TESSERA_API const uint8_t* tessera_chunk_column_validity(tessera_chunk chunk, uint64_t column);
TESSERA_API bool tessera_chunk_is_null(tessera_chunk chunk, uint64_t column, uint64_t row);

/* Single values by column and row over the whole result (convenient, slower than chunks).
 * Numbers are converted (DECIMAL/DOUBLE to integers round to nearest; a value that does
 * not fit gives 0); NULLs, bad indexes and values that cannot be converted give 0/false.
 * tessera_value_varchar gives any value as text (NUL-terminated, release with
 * tessera_free) or NULL for a NULL value or a bad index. */
TESSERA_API bool tessera_value_is_null(tessera_result result, uint64_t column, uint64_t row);
TESSERA_API bool tessera_value_boolean(tessera_result result, uint64_t column, uint64_t row);
TESSERA_API int32_t tessera_value_int32(tessera_result result, uint64_t column, uint64_t row);
TESSERA_API int64_t tessera_value_int64(tessera_result result, uint64_t column, uint64_t row);
TESSERA_API double tessera_value_double(tessera_result result, uint64_t column, uint64_t row);
/* DATE as days since 1970-01-01 (0 for other types). */
TESSERA_API int32_t tessera_value_date(tessera_result result, uint64_t column, uint64_t row);
TESSERA_API char* tessera_value_varchar(tessera_result result, uint64_t column, uint64_t row);

/* ---------------------------------------------------------------------------------------
 * Prepared statements
 *
 * Parameters are `?` (numbered 1, 2, ... in order) or `$1`, `$2`, ... (not both in one
 * statement), anywhere outside string literals, quoted identifiers and comments. The
 * engine has no parameters of its own: tessera_execute_prepared writes each bound value
 * into the SQL text as a typed literal (a quoted string, CAST('...' AS <type>), NULL,
 * TRUE/FALSE) and runs that text, so values never change the statement's structure. Each
 * distinct set of values is planned on its own (the plan cache is keyed by the text).
 * ------------------------------------------------------------------------------------- */

/* Checks the statement's syntax (with NULL for every parameter) and counts its
 * parameters. A statement object is made even on failure (TESSERA_ERROR): read
 * tessera_prepare_error, then destroy it. */
TESSERA_API tessera_state tessera_prepare(tessera_connection connection, const char* sql,
                                          tessera_prepared* out_prepared);
TESSERA_API void tessera_destroy_prepare(tessera_prepared* prepared);
TESSERA_API const char* tessera_prepare_error(tessera_prepared prepared);
TESSERA_API int64_t tessera_prepare_error_offset(tessera_prepared prepared);
TESSERA_API uint64_t tessera_parameter_count(tessera_prepared prepared);

/* Parameter indexes start at 1. TESSERA_RANGE for an index out of range. */
TESSERA_API tessera_state tessera_bind_null(tessera_prepared prepared, uint64_t index);
TESSERA_API tessera_state tessera_bind_boolean(tessera_prepared prepared, uint64_t index, bool value);
TESSERA_API tessera_state tessera_bind_int32(tessera_prepared prepared, uint64_t index, int32_t value);
TESSERA_API tessera_state tessera_bind_int64(tessera_prepared prepared, uint64_t index, int64_t value);
/* Any double, also infinities and NaN. */
TESSERA_API tessera_state tessera_bind_double(tessera_prepared prepared, uint64_t index, double value);
/* `unscaled` * 10^-scale as DECIMAL(width, scale); 1 <= width <= 18, scale <= width. */
TESSERA_API tessera_state tessera_bind_decimal(tessera_prepared prepared, uint64_t index, int64_t unscaled,
                                               uint8_t width, uint8_t scale);
/* Days since 1970-01-01. */
TESSERA_API tessera_state tessera_bind_date(tessera_prepared prepared, uint64_t index, int32_t days);
/* Microseconds since 1970-01-01 00:00:00 (TIMESTAMP) / since midnight, 0 .. 86400000000 (TIME). */
TESSERA_API tessera_state tessera_bind_timestamp(tessera_prepared prepared, uint64_t index, int64_t micros);
TESSERA_API tessera_state tessera_bind_time(tessera_prepared prepared, uint64_t index, int64_t micros);
/* UTF-8 text, NUL-terminated (tessera_bind_varchar) or `length` bytes; TESSERA_ERROR for
 * text with a NUL byte. */
TESSERA_API tessera_state tessera_bind_varchar(tessera_prepared prepared, uint64_t index, const char* value);
TESSERA_API tessera_state tessera_bind_varchar_length(tessera_prepared prepared, uint64_t index, const char* value,
                                                      uint64_t length);
/* Unbinds every parameter. */
TESSERA_API tessera_state tessera_clear_bindings(tessera_prepared prepared);

/* Runs the statement with the values bound (every parameter must be bound; bindings stay
 * for the next run). As tessera_query: a result is made even on failure; an error offset
 * refers to the SQL text given to tessera_prepare. */
TESSERA_API tessera_state tessera_execute_prepared(tessera_prepared prepared, tessera_result* out_result);
/* As tessera_execute_prepared, with the rows streamed as by tessera_query_stream. */
TESSERA_API tessera_state tessera_execute_prepared_stream(tessera_prepared prepared, tessera_result* out_result);

/* ---------------------------------------------------------------------------------------
 * Arrow export
 * ------------------------------------------------------------------------------------- */

/* The Arrow C data and stream interfaces, as the Arrow specification defines them
 * (https://arrow.apache.org/docs/format/CDataInterface.html, CStreamInterface.html). */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callback to get the stream type
  // (will be the same for all arrays in the stream).
  //
  // Return value: 0 if successful, an `errno`-compatible error code otherwise.
  //
  // If successful, the ArrowSchema must be released independently from the stream.
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);

  // Callback to get the next array
  // (if no error and the array is released, the stream has ended)
  //
  // Return value: 0 if successful, an `errno`-compatible error code otherwise.
  //
  // If successful, the ArrowArray must be released independently from the stream.
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);

  // Callback to get optional detailed error information.
  // This must only be called if the last stream operation failed
  // with a non-0 return code.
  //
  // Return value: pointer to a null-terminated character array describing
  // the last error, or NULL if no description is available.
  //
  // The returned pointer is only valid until the next operation on this stream
  // (including release).
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback: release the stream's own resources.
  // Note that arrays returned by `get_next` must be individually released.
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

/* Exports the result's rows as an Arrow stream: the schema is a struct ("+s") with one
 * nullable child per column; each get_next gives a struct array of up to 1048576 rows
 * (consecutive result chunks; fewer where a column's strings would pass 2 GiB).
 * Types: BOOLEAN "b", INTEGER "i", BIGINT "l", DOUBLE "g", DECIMAL(p,s) decimal128 "d:p,s",
 * DATE date32 "tdD", VARCHAR utf8 "u", NULL "n"; NULLs in validity bitmaps. Fixed-width
 * columns of a batch of one chunk share the result's memory; the rest is copied once into
 * 64-byte aligned buffers (on the database's threads). The stream and its arrays keep what they share alive: they stay
 * valid after the result is destroyed. The caller releases the stream (stream->release).
 * The result's own chunk fetching is unaffected. */
TESSERA_API tessera_state tessera_result_arrow_stream(tessera_result result, struct ArrowArrayStream* out_stream);

/* ---------------------------------------------------------------------------------------
 * Arrow import
 * ------------------------------------------------------------------------------------- */

/* Makes the rows of an Arrow C stream (a struct schema "+s", one child per column)
 * queryable as the temporary table `name`: in memory only, never persisted, visible to
 * every connection of the database until tessera_unregister_arrow or tessera_close.
 * Takes ownership of `stream` (released before return). The table shares the record
 * batches' buffers where tessera's layout is Arrow's (int32, int64, double, date32,
 * decimal128 with precision > 18, utf8, validity bitmaps at 64-row boundaries) and
 * releases each batch (ArrowArray.release, from whatever thread drops the table's last
 * reference) when it no longer needs it; other types are converted, column by column.
 * Types: bool; int8/16/32, uint8/16 -> INTEGER; int64, uint32/64 -> BIGINT; float,
 * double -> DOUBLE; decimal128 -> DECIMAL; date32/64 -> DATE; utf8, large_utf8,
 * utf8_view -> VARCHAR; dictionaries of these are decoded. `replace`: replace a temporary
 * table of that name (a persistent table is never replaced). On failure returns
 * TESSERA_ERROR and, when `out_error` is not NULL, a message to free with tessera_free.
 * `out_rows` (may be NULL): the number of rows. */
TESSERA_API tessera_state tessera_register_arrow_stream(tessera_connection connection, const char* name,
                                                        struct ArrowArrayStream* stream, bool replace,
                                                        uint64_t* out_rows, char** out_error);
/* Drops the temporary table `name` made by tessera_register_arrow_stream (or Python's
 * register); TESSERA_ERROR when there is none. */
TESSERA_API tessera_state tessera_unregister_arrow(tessera_connection connection, const char* name);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_H */
