/* The C API (tessera.h) from plain C11, linked against libtessera.so: open/connect/query,
 * errors with byte offsets, prepared statements, chunked fetching, NULLs, every type, the
 * Arrow stream, streamed results, and tessera_interrupt from a second thread. Exits 0 when every check holds. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tessera.h"

static int failures = 0;

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                       \
    }                                                                   \
  } while (0)

/* Runs SQL that must succeed; returns its result (NULL when it failed, after a message). */
static tessera_result run(tessera_connection con, const char* sql) {
  tessera_result r = NULL;
  if (tessera_query(con, sql, &r) != TESSERA_OK) {
    fprintf(stderr, "query failed: %s\n  %s\n", sql, r ? tessera_result_error(r) : "(no result)");
    failures++;
    tessera_destroy_result(&r);
    return NULL;
  }
  return r;
}

static void exec(tessera_connection con, const char* sql) {
  tessera_result r = run(con, sql);
  tessera_destroy_result(&r);
}

static int str_eq_free(char* s, const char* want) {
  int ok = s && want ? strcmp(s, want) == 0 : s == NULL && want == NULL;
  if (!ok) fprintf(stderr, "  got \"%s\", want \"%s\"\n", s ? s : "(null)", want ? want : "(null)");
  tessera_free(s);
  return ok;
}

/* ---- misuse: NULL handles give error codes, never a crash ---------------------------- */
static void test_misuse(void) {
  tessera_database db = NULL;
  tessera_connection con = NULL;
  tessera_result res = NULL;
  tessera_chunk chunk = NULL;
  tessera_prepared stmt = NULL;
  CHECK(tessera_open(NULL, NULL) == TESSERA_MISUSE);
  CHECK(tessera_connect(NULL, &con) == TESSERA_MISUSE && con == NULL);
  CHECK(tessera_connect(db, NULL) == TESSERA_MISUSE);
  CHECK(tessera_query(NULL, "SELECT 1", &res) == TESSERA_MISUSE && res == NULL);
  CHECK(tessera_prepare(NULL, "SELECT 1", &stmt) == TESSERA_MISUSE && stmt == NULL);
  CHECK(tessera_execute_prepared(NULL, &res) == TESSERA_MISUSE);
  CHECK(tessera_bind_int64(NULL, 1, 5) == TESSERA_MISUSE);
  CHECK(tessera_fetch_chunk(NULL, &chunk) == TESSERA_MISUSE && chunk == NULL);
  CHECK(tessera_interrupt(NULL) == TESSERA_MISUSE);
  CHECK(tessera_result_column_count(NULL) == 0);
  CHECK(tessera_result_column_name(NULL, 0) == NULL);
  CHECK(tessera_result_column_type(NULL, 0) == TESSERA_TYPE_INVALID);
  CHECK(tessera_result_error(NULL) != NULL);
  CHECK(tessera_value_varchar(NULL, 0, 0) == NULL);
  CHECK(tessera_chunk_column_data(NULL, 0) == NULL);
  CHECK(tessera_result_arrow_stream(NULL, NULL) == TESSERA_MISUSE);
  tessera_close(NULL);
  tessera_close(&db);
  tessera_disconnect(NULL);
  tessera_disconnect(&con);
  tessera_destroy_result(NULL);
  tessera_destroy_result(&res);
  tessera_chunk_destroy(&chunk);
  tessera_destroy_prepare(&stmt);
  tessera_free(NULL);

  tessera_config cfg = NULL;
  CHECK(tessera_config_create(&cfg) == TESSERA_OK);
  CHECK(tessera_config_set(cfg, "device", "tpu") == TESSERA_ERROR);
  CHECK(tessera_config_set(cfg, "threads", "many") == TESSERA_ERROR);
  CHECK(tessera_config_set(cfg, "colour", "blue") == TESSERA_ERROR);
  CHECK(tessera_config_set(NULL, "device", "cpu") == TESSERA_MISUSE);
  /* device "gpu": opens where a GPU can be used, else fails with the reason. */
  CHECK(tessera_config_set(cfg, "device", "gpu") == TESSERA_OK);
  char* gpu_err = NULL;
  if (tessera_open_ext(NULL, &db, cfg, &gpu_err) == TESSERA_OK) {
    CHECK(db != NULL && gpu_err == NULL);
    tessera_close(&db);
  } else {
    CHECK(db == NULL && gpu_err != NULL && strstr(gpu_err, "GPU") != NULL);
    tessera_free(gpu_err);
  }
  tessera_config_destroy(&cfg);
  CHECK(cfg == NULL);

  /* A path that cannot be a database directory: an error message, no handle. */
  char* err = NULL;
  CHECK(tessera_open_ext("/proc/version/db", &db, NULL, &err) == TESSERA_ERROR);
  CHECK(db == NULL && err != NULL && strlen(err) > 0);
  tessera_free(err);
}

/* ---- errors with byte offsets --------------------------------------------------------- */
static void test_errors(tessera_connection con) {
  tessera_result r = NULL;
  /* Binder error: the unknown column's byte offset ('é' is two bytes). */
  const char* sql = "SELECT 'é', nope FROM t_types";
  CHECK(tessera_query(con, sql, &r) == TESSERA_ERROR);
  CHECK(r != NULL);
  CHECK(tessera_result_error(r) != NULL);
  CHECK(tessera_result_error_type(r) == TESSERA_ERROR_BINDER);
  CHECK(tessera_result_error_offset(r) == (int64_t)(strstr(sql, "nope") - sql));
  CHECK(strstr(tessera_result_error(r), "nope") != NULL);
  CHECK(tessera_result_column_count(r) == 0);
  tessera_chunk ch = NULL;
  CHECK(tessera_fetch_chunk(r, &ch) == TESSERA_ERROR && ch == NULL);
  tessera_destroy_result(&r);

  /* Syntax error on the second line. */
  sql = "SELECT 1\nFROM t_types WHERE )";
  CHECK(tessera_query(con, sql, &r) == TESSERA_ERROR);
  CHECK(tessera_result_error_type(r) == TESSERA_ERROR_SYNTAX);
  CHECK(tessera_result_error_offset(r) == (int64_t)(strchr(sql, ')') - sql));
  CHECK(strstr(tessera_result_error(r), "line 2") != NULL);
  tessera_destroy_result(&r);

  /* Unknown table. */
  sql = "SELECT * FROM no_such_table";
  CHECK(tessera_query(con, sql, &r) == TESSERA_ERROR);
  CHECK(tessera_result_error_offset(r) == 14);
  tessera_destroy_result(&r);

  /* A run-time error (no position): overflow. */
  CHECK(tessera_query(con, "SELECT CAST(2147483647 AS INTEGER) + CAST(1 AS INTEGER)", NULL) == TESSERA_ERROR);

  /* Success: no error. */
  r = run(con, "SELECT 1");
  CHECK(tessera_result_error(r) == NULL);
  CHECK(tessera_result_error_type(r) == TESSERA_ERROR_NONE);
  CHECK(tessera_result_error_offset(r) == -1);
  tessera_destroy_result(&r);
}

/* ---- every type, NULLs, single values ------------------------------------------------- */
static void create_types_table(tessera_connection con) {
  exec(con,
       "CREATE TABLE t_types (b BOOLEAN, i INTEGER, l BIGINT, d DOUBLE, m DECIMAL(10,2), "
       "h DECIMAL(30,5), dt DATE, s VARCHAR)");
  exec(con,
       "INSERT INTO t_types VALUES "
       "(true, 1, 10000000000, 1.5, 12.34, 123456789012345678901.12345, DATE '1970-01-02', 'one'), "
       "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
       "(false, -7, -9223372036854775807, -0.25, -0.05, -1.00001, DATE '1969-12-31', 'it''s ünï')");
}

static void test_types(tessera_connection con) {
  tessera_result r = run(con, "SELECT * FROM t_types ORDER BY i NULLS LAST");
  if (!r) return;
  static const char* names[] = {"b", "i", "l", "d", "m", "h", "dt", "s"};
  static const tessera_type types[] = {TESSERA_TYPE_BOOLEAN, TESSERA_TYPE_INTEGER, TESSERA_TYPE_BIGINT,
                                       TESSERA_TYPE_DOUBLE,  TESSERA_TYPE_DECIMAL, TESSERA_TYPE_DECIMAL,
                                       TESSERA_TYPE_DATE,    TESSERA_TYPE_VARCHAR};
  CHECK(tessera_result_column_count(r) == 8);
  CHECK(tessera_result_row_count(r) == 3);
  for (uint64_t c = 0; c < 8; c++) {
    CHECK(tessera_result_column_name(r, c) && strcmp(tessera_result_column_name(r, c), names[c]) == 0);
    CHECK(tessera_result_column_type(r, c) == types[c]);
  }
  CHECK(tessera_result_column_name(r, 8) == NULL);
  CHECK(tessera_result_column_type(r, 8) == TESSERA_TYPE_INVALID);
  uint8_t w = 0, sc = 0;
  CHECK(tessera_result_column_decimal(r, 4, &w, &sc) == TESSERA_OK && w == 10 && sc == 2);
  CHECK(tessera_result_column_decimal(r, 5, &w, &sc) == TESSERA_OK && w == 30 && sc == 5);
  CHECK(tessera_result_column_decimal(r, 0, &w, &sc) == TESSERA_MISUSE);

  /* Row 0: -7 ..., row 1: 1 ..., row 2: NULLs. */
  CHECK(tessera_value_boolean(r, 0, 0) == false && tessera_value_boolean(r, 0, 1) == true);
  CHECK(tessera_value_int32(r, 1, 0) == -7 && tessera_value_int64(r, 1, 1) == 1);
  CHECK(tessera_value_int64(r, 2, 1) == 10000000000LL);
  CHECK(tessera_value_int64(r, 2, 0) == -9223372036854775807LL);
  CHECK(tessera_value_double(r, 3, 0) == -0.25 && tessera_value_double(r, 3, 1) == 1.5);
  CHECK(tessera_value_double(r, 4, 1) == 12.34);
  CHECK(tessera_value_date(r, 6, 1) == 1 && tessera_value_date(r, 6, 0) == -1);
  CHECK(str_eq_free(tessera_value_varchar(r, 7, 0), "it's ünï"));
  CHECK(str_eq_free(tessera_value_varchar(r, 4, 0), "-0.05"));
  CHECK(str_eq_free(tessera_value_varchar(r, 5, 1), "123456789012345678901.12345"));
  CHECK(str_eq_free(tessera_value_varchar(r, 6, 0), "1969-12-31"));
  CHECK(str_eq_free(tessera_value_varchar(r, 0, 1), "true"));
  for (uint64_t c = 0; c < 8; c++) {
    CHECK(tessera_value_is_null(r, c, 2));
    CHECK(!tessera_value_is_null(r, c, 0));
    CHECK(tessera_value_varchar(r, c, 2) == NULL);
  }
  CHECK(tessera_value_int64(r, 1, 2) == 0);
  /* Out of range: zero values, no crash. */
  CHECK(tessera_value_int64(r, 1, 3) == 0 && tessera_value_varchar(r, 9, 0) == NULL);

  /* The same through a chunk: typed arrays and validity. */
  tessera_chunk ch = NULL;
  CHECK(tessera_fetch_chunk(r, &ch) == TESSERA_OK && ch != NULL);
  if (ch) {
    CHECK(tessera_chunk_row_count(ch) == 3 && tessera_chunk_column_count(ch) == 8);
    const uint8_t* b = tessera_chunk_column_data(ch, 0);
    const int32_t* i = tessera_chunk_column_data(ch, 1);
    const int64_t* l = tessera_chunk_column_data(ch, 2);
    const double* d = tessera_chunk_column_data(ch, 3);
    const int64_t* m = tessera_chunk_column_data(ch, 4);
    const tessera_int128* h = tessera_chunk_column_data(ch, 5);
    const int32_t* dt = tessera_chunk_column_data(ch, 6);
    const tessera_string* s = tessera_chunk_column_data(ch, 7);
    CHECK(b && i && l && d && m && h && dt && s);
    if (b && i && l && d && m && h && dt && s) {
      CHECK(b[0] == 0 && b[1] == 1);
      CHECK(i[0] == -7 && i[1] == 1);
      CHECK(l[1] == 10000000000LL);
      CHECK(d[1] == 1.5);
      CHECK(m[0] == -5 && m[1] == 1234);
      CHECK(h[0].upper == -1 && h[0].lower == (uint64_t)-100001LL);
      CHECK(dt[0] == -1 && dt[1] == 1);
      CHECK(s[1].length == 3 && memcmp(s[1].data, "one", 3) == 0);
      CHECK(s[0].length == strlen("it's ünï") && memcmp(s[0].data, "it's ünï", s[0].length) == 0);
    }
    for (uint64_t c = 0; c < 8; c++) {
      const uint8_t* v = tessera_chunk_column_validity(ch, c);
      CHECK(v != NULL);
      if (v) CHECK(v[0] == 1 && v[1] == 1 && v[2] == 0);
      CHECK(tessera_chunk_is_null(ch, c, 2) && !tessera_chunk_is_null(ch, c, 0));
    }
    CHECK(tessera_chunk_column_data(ch, 8) == NULL);
    tessera_chunk_destroy(&ch);
    CHECK(ch == NULL);
  }
  CHECK(tessera_fetch_chunk(r, &ch) == TESSERA_OK && ch == NULL);  /* the end */
  tessera_destroy_result(&r);

  /* A column without NULLs has no validity array; an untyped NULL column. */
  r = run(con, "SELECT i, NULL AS n FROM t_types WHERE i IS NOT NULL");
  if (r) {
    CHECK(tessera_result_column_type(r, 1) == TESSERA_TYPE_NULL);
    CHECK(tessera_fetch_chunk(r, &ch) == TESSERA_OK && ch != NULL);
    if (ch) {
      CHECK(tessera_chunk_column_validity(ch, 0) == NULL);
      CHECK(tessera_chunk_column_data(ch, 1) == NULL);
      CHECK(tessera_chunk_is_null(ch, 1, 0));
      tessera_chunk_destroy(&ch);
    }
    CHECK(tessera_value_is_null(r, 1, 0));
    tessera_destroy_result(&r);
  }

  /* Statements without rows: a message, no columns. */
  r = run(con, "CREATE TABLE t_empty (x INTEGER)");
  if (r) {
    CHECK(tessera_result_column_count(r) == 0);
    CHECK(tessera_fetch_chunk(r, &ch) == TESSERA_OK && ch == NULL);
    tessera_destroy_result(&r);
  }
  r = run(con, "INSERT INTO t_empty VALUES (1), (2)");
  if (r) {
    CHECK(strstr(tessera_result_message(r), "2") != NULL);
    tessera_destroy_result(&r);
  }
  /* ... RETURNING: rows, like a SELECT (queried, streamed and prepared). */
  r = run(con, "INSERT INTO t_empty VALUES (3), (NULL) RETURNING x * 10 AS y");
  if (r) {
    CHECK(tessera_result_column_count(r) == 1);
    CHECK(strcmp(tessera_result_column_name(r, 0), "y") == 0);
    CHECK(tessera_result_row_count(r) == 2);
    CHECK(tessera_value_int32(r, 0, 0) == 30);
    CHECK(tessera_value_is_null(r, 0, 1));
    tessera_destroy_result(&r);
  }
  CHECK(tessera_query_stream(con, "DELETE FROM t_empty WHERE x IS NULL RETURNING *", &r) == TESSERA_OK);
  if (r) {
    CHECK(tessera_result_column_count(r) == 1);
    uint64_t rows = 0;
    while (tessera_fetch_chunk(r, &ch) == TESSERA_OK && ch) {
      rows += tessera_chunk_row_count(ch);
      tessera_chunk_destroy(&ch);
    }
    CHECK(rows == 1);
    tessera_destroy_result(&r);
  }
  tessera_prepared p = NULL;
  CHECK(tessera_prepare(con, "UPDATE t_empty SET x = x + ? WHERE x = 3 RETURNING x", &p) == TESSERA_OK);
  CHECK(tessera_bind_int32(p, 1, 4) == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_OK);
  if (r) {
    CHECK(tessera_result_row_count(r) == 1);
    CHECK(tessera_value_int32(r, 0, 0) == 7);
    tessera_destroy_result(&r);
  }
  tessera_destroy_prepare(&p);
}

/* ---- prepared statements --------------------------------------------------------------- */
static void test_prepared(tessera_connection con) {
  tessera_prepared p = NULL;
  tessera_result r = NULL;

  /* Placeholders in literals, quoted identifiers and comments do not count. */
  CHECK(tessera_prepare(con, "SELECT '?' AS q, ? AS p -- ? \n /* $1 ? */", &p) == TESSERA_OK);
  CHECK(tessera_parameter_count(p) == 1);
  CHECK(tessera_bind_int32(p, 0, 1) == TESSERA_RANGE);
  CHECK(tessera_bind_int32(p, 2, 1) == TESSERA_RANGE);
  /* Not bound yet: an error that points at the placeholder. */
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_ERROR);
  CHECK(tessera_result_error_type(r) == TESSERA_ERROR_PARAMETER);
  CHECK(tessera_result_error_offset(r) == 17);
  tessera_destroy_result(&r);
  CHECK(tessera_bind_varchar(p, 1, "x'; DROP TABLE t_types; --") == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_OK);
  CHECK(str_eq_free(tessera_value_varchar(r, 0, 0), "?"));
  CHECK(str_eq_free(tessera_value_varchar(r, 1, 0), "x'; DROP TABLE t_types; --"));
  tessera_destroy_result(&r);
  tessera_destroy_prepare(&p);

  /* Every bindable type, round trip through a table. */
  exec(con,
       "CREATE TABLE t_bind (b BOOLEAN, i INTEGER, l BIGINT, d DOUBLE, m DECIMAL(10,2), "
       "h DECIMAL(30,5), dt DATE, \"s?\" VARCHAR)");
  CHECK(tessera_prepare(con, "INSERT INTO t_bind VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &p) == TESSERA_OK);
  CHECK(tessera_parameter_count(p) == 8);
  CHECK(tessera_bind_boolean(p, 1, true) == TESSERA_OK);
  CHECK(tessera_bind_int32(p, 2, -2147483647 - 1) == TESSERA_OK);
  CHECK(tessera_bind_int64(p, 3, (-9223372036854775807LL - 1)) == TESSERA_OK);
  CHECK(tessera_bind_double(p, 4, 0.1) == TESSERA_OK);
  CHECK(tessera_bind_decimal(p, 5, -99999999, 10, 2) == TESSERA_OK);
  CHECK(tessera_bind_decimal(p, 5, 12345678901LL, 10, 2) == TESSERA_ERROR); /* 11 digits */
  CHECK(tessera_bind_null(p, 6) == TESSERA_OK);
  CHECK(tessera_bind_date(p, 7, 19000) == TESSERA_OK);
  CHECK(tessera_bind_varchar_length(p, 8, "abcdef", 3) == TESSERA_OK);
  CHECK(tessera_bind_varchar_length(p, 8, "a\0b", 3) == TESSERA_ERROR);
  CHECK(tessera_execute_prepared(p, NULL) == TESSERA_OK);
  tessera_destroy_prepare(&p);
  r = run(con, "SELECT b, i, l, d, m, h, dt, \"s?\" FROM t_bind WHERE \"s?\" = 'abc'");
  if (r) {
    CHECK(tessera_result_row_count(r) == 1);
    CHECK(tessera_value_boolean(r, 0, 0) == true);
    CHECK(tessera_value_int32(r, 1, 0) == -2147483647 - 1);
    CHECK(tessera_value_int64(r, 2, 0) == (-9223372036854775807LL - 1));
    CHECK(tessera_value_double(r, 3, 0) == 0.1);
    CHECK(str_eq_free(tessera_value_varchar(r, 4, 0), "-999999.99"));
    CHECK(tessera_value_is_null(r, 5, 0));
    CHECK(tessera_value_date(r, 6, 0) == 19000);
    tessera_destroy_result(&r);
  }
  CHECK(tessera_prepare(con, "SELECT COUNT(*) FROM t_bind WHERE \"s?\" = ?", &p) == TESSERA_OK);
  CHECK(tessera_parameter_count(p) == 1);
  CHECK(tessera_bind_varchar(p, 1, "abc") == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_OK);
  CHECK(tessera_value_int64(r, 0, 0) == 1);
  tessera_destroy_result(&r);
  tessera_destroy_prepare(&p);

  /* $n parameters, reused and out of order; rebinding runs again. */
  CHECK(tessera_prepare(con, "SELECT $2 - $1, $1 * $1", &p) == TESSERA_OK);
  CHECK(tessera_parameter_count(p) == 2);
  CHECK(tessera_bind_int64(p, 1, 3) == TESSERA_OK && tessera_bind_int64(p, 2, 10) == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_OK);
  CHECK(tessera_value_int64(r, 0, 0) == 7 && tessera_value_int64(r, 1, 0) == 9);
  tessera_destroy_result(&r);
  CHECK(tessera_bind_int64(p, 1, -4) == TESSERA_OK);  /* -4: no "--" comment in the text */
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_OK);
  CHECK(tessera_value_int64(r, 0, 0) == 14 && tessera_value_int64(r, 1, 0) == 16);
  tessera_destroy_result(&r);
  CHECK(tessera_bind_double(p, 1, INFINITY) == TESSERA_OK && tessera_bind_double(p, 2, 1.0) == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_OK);
  CHECK(isinf(tessera_value_double(r, 0, 0)) && tessera_value_double(r, 0, 0) < 0);
  tessera_destroy_result(&r);
  CHECK(tessera_clear_bindings(p) == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_ERROR);
  tessera_destroy_result(&r);
  tessera_destroy_prepare(&p);

  /* Mixing styles, $0: errors at prepare time with the offset of the culprit. */
  CHECK(tessera_prepare(con, "SELECT ?, $1", &p) == TESSERA_ERROR);
  CHECK(tessera_prepare_error(p) != NULL && tessera_prepare_error_offset(p) == 10);
  CHECK(tessera_bind_int32(p, 1, 1) == TESSERA_MISUSE);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_MISUSE && r == NULL);
  tessera_destroy_prepare(&p);
  CHECK(tessera_prepare(con, "SELECT $0", &p) == TESSERA_ERROR);
  tessera_destroy_prepare(&p);

  /* A syntax error after a parameter: the offset is in the caller's text. */
  CHECK(tessera_prepare(con, "SELECT ?, ? FROM WHERE", &p) == TESSERA_ERROR);
  CHECK(tessera_prepare_error_offset(p) == 17);
  tessera_destroy_prepare(&p);

  /* A binder error at run time, after a long literal: mapped back too. */
  CHECK(tessera_prepare(con, "SELECT ?, nope FROM t_types", &p) == TESSERA_OK);
  CHECK(tessera_bind_varchar(p, 1, "a rather long string value") == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_ERROR);
  CHECK(tessera_result_error_offset(r) == 10);
  CHECK(strstr(tessera_result_error(r), "column 11") != NULL);
  tessera_destroy_result(&r);
  tessera_destroy_prepare(&p);

  /* A statement outlives its connection handle. */
  tessera_connection other = NULL;
  tessera_database db2 = NULL;
  CHECK(tessera_open(":memory:", &db2) == TESSERA_OK);
  CHECK(tessera_connect(db2, &other) == TESSERA_OK);
  CHECK(tessera_prepare(other, "SELECT ? + 1", &p) == TESSERA_OK);
  tessera_disconnect(&other);
  tessera_close(&db2);
  CHECK(tessera_bind_int32(p, 1, 41) == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_OK);
  CHECK(tessera_value_int64(r, 0, 0) == 42);
  tessera_destroy_result(&r);
  tessera_destroy_prepare(&p);

  /* SQL's PREPARE / EXECUTE: the statement lives in the connection, across queries; its
     arguments may be the C API's parameters. */
  exec(con, "PREPARE sqlp AS SELECT $1 * 2 AS x, $2 AS y");
  r = run(con, "EXECUTE sqlp(21, 'a')");
  CHECK(r && tessera_value_int64(r, 0, 0) == 42 && str_eq_free(tessera_value_varchar(r, 1, 0), "a"));
  tessera_destroy_result(&r);
  CHECK(tessera_prepare(con, "EXECUTE sqlp(?, 'b')", &p) == TESSERA_OK);
  CHECK(tessera_bind_int32(p, 1, 5) == TESSERA_OK);
  CHECK(tessera_execute_prepared(p, &r) == TESSERA_OK);
  CHECK(tessera_value_int64(r, 0, 0) == 10);
  tessera_destroy_result(&r);
  tessera_destroy_prepare(&p);
  CHECK(tessera_query(con, "EXECUTE sqlp(1)", &r) == TESSERA_ERROR);
  tessera_destroy_result(&r);
  exec(con, "DEALLOCATE sqlp");
  CHECK(tessera_query(con, "EXECUTE sqlp(1, 2)", &r) == TESSERA_ERROR);
  tessera_destroy_result(&r);
}

/* ---- chunked fetch over many rows ---------------------------------------------------- */
static void test_chunks(tessera_connection con) {
  exec(con, "CREATE TABLE d10 (x INTEGER)");
  exec(con, "INSERT INTO d10 VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)");
  exec(con, "CREATE TABLE n10k (x INTEGER)");
  exec(con, "INSERT INTO n10k SELECT a.x * 1000 + b.x * 100 + c.x * 10 + d.x FROM d10 a, d10 b, d10 c, d10 d");
  tessera_result r = run(con, "SELECT x, CASE WHEN x % 3 = 0 THEN NULL ELSE x END AS y FROM n10k ORDER BY x");
  if (!r) return;
  CHECK(tessera_result_row_count(r) == 10000);
  uint64_t rows = 0, chunks = 0, nulls = 0;
  int64_t sum = 0;
  int ordered = 1;
  for (;;) {
    tessera_chunk ch = NULL;
    CHECK(tessera_fetch_chunk(r, &ch) == TESSERA_OK);
    if (!ch) break;
    uint64_t n = tessera_chunk_row_count(ch);
    CHECK(n > 0 && n <= 2048);
    const int32_t* x = tessera_chunk_column_data(ch, 0);
    const int32_t* y = tessera_chunk_column_data(ch, 1);
    const uint8_t* yv = tessera_chunk_column_validity(ch, 1);
    for (uint64_t i = 0; i < n; i++) {
      if (x[i] != (int32_t)(rows + i)) ordered = 0;
      sum += x[i];
      if (yv && !yv[i]) nulls++;
      else if (y[i] != x[i]) ordered = 0;
      if ((x[i] % 3 == 0) != (yv && !yv[i])) ordered = 0;
    }
    rows += n;
    chunks++;
    tessera_chunk_destroy(&ch);
  }
  CHECK(rows == 10000 && chunks >= 5 && ordered);
  CHECK(sum == 49995000);
  CHECK(nulls == 3334);
  /* Random access agrees with the chunks. */
  CHECK(tessera_value_int32(r, 0, 9999) == 9999 && tessera_value_is_null(r, 1, 9999));
  CHECK(tessera_value_int32(r, 1, 4097) == 4097);
  CHECK(tessera_result_reset_fetch(r) == TESSERA_OK);
  tessera_chunk ch = NULL;
  CHECK(tessera_fetch_chunk(r, &ch) == TESSERA_OK && ch && ((const int32_t*)tessera_chunk_column_data(ch, 0))[0] == 0);
  tessera_chunk_destroy(&ch);
  tessera_destroy_result(&r);
}

/* ---- Arrow ------------------------------------------------------------------------------ */
static int bit(const void* bitmap, int64_t i) {
  return bitmap == NULL || ((((const uint8_t*)bitmap)[i / 8] >> (i % 8)) & 1);
}

static void test_arrow(tessera_connection con) {
  tessera_result r = run(con, "SELECT b, i, l, d, m, h, dt, s, NULL AS n FROM t_types ORDER BY i NULLS LAST");
  if (!r) return;
  struct ArrowArrayStream stream;
  CHECK(tessera_result_arrow_stream(r, &stream) == TESSERA_OK);
  tessera_destroy_result(&r);  /* the stream lives on */

  struct ArrowSchema schema;
  CHECK(stream.get_schema(&stream, &schema) == 0);
  static const char* formats[] = {"b", "i", "l", "g", "d:10,2", "d:30,5", "tdD", "u", "n"};
  static const char* names[] = {"b", "i", "l", "d", "m", "h", "dt", "s", "n"};
  CHECK(strcmp(schema.format, "+s") == 0 && schema.n_children == 9);
  for (int c = 0; c < 9 && c < schema.n_children; c++) {
    CHECK(strcmp(schema.children[c]->format, formats[c]) == 0);
    CHECK(strcmp(schema.children[c]->name, names[c]) == 0);
    CHECK(schema.children[c]->flags & ARROW_FLAG_NULLABLE);
  }
  schema.release(&schema);
  CHECK(schema.release == NULL);

  struct ArrowArray array;
  int64_t total = 0;
  int batches = 0;
  for (;;) {
    CHECK(stream.get_next(&stream, &array) == 0);
    if (array.release == NULL) break;
    batches++;
    CHECK(array.n_children == 9);
    if (array.length == 3 && array.n_children == 9) {
      struct ArrowArray** ch = array.children;
      for (int c = 0; c < 8; c++) {
        CHECK(ch[c]->length == 3 && ch[c]->null_count == 1 && ch[c]->offset == 0);
        CHECK(bit(ch[c]->buffers[0], 0) && bit(ch[c]->buffers[0], 1) && !bit(ch[c]->buffers[0], 2));
      }
      /* BOOLEAN: bit-packed values. */
      CHECK(ch[0]->n_buffers == 2 && !bit(ch[0]->buffers[1], 0) && bit(ch[0]->buffers[1], 1));
      const int32_t* i = ch[1]->buffers[1];
      CHECK(i[0] == -7 && i[1] == 1);
      const int64_t* l = ch[2]->buffers[1];
      CHECK(l[0] == -9223372036854775807LL && l[1] == 10000000000LL);
      const double* d = ch[3]->buffers[1];
      CHECK(d[0] == -0.25 && d[1] == 1.5);
      /* decimal128: little-endian 16 bytes. */
      const int64_t* m = ch[4]->buffers[1];
      CHECK(m[0] == -5 && m[1] == -1 && m[2] == 1234 && m[3] == 0);
      const uint64_t* h = ch[5]->buffers[1];
      CHECK(h[0] == (uint64_t)-100001LL && h[1] == UINT64_MAX);
      /* 123456789012345678901.12345 * 10^5 = 12345678901234567890112345 = 669260 * 2^64 + ... */
      CHECK(h[3] == 669260u);
      const int32_t* dt = ch[6]->buffers[1];
      CHECK(dt[0] == -1 && dt[1] == 1);
      CHECK(ch[7]->n_buffers == 3);
      const int32_t* off = ch[7]->buffers[1];
      const char* bytes = ch[7]->buffers[2];
      CHECK(off[0] == 0 && off[1] == (int32_t)strlen("it's ünï") && off[3] == off[2]);
      CHECK(memcmp(bytes, "it's ünï", (size_t)off[1]) == 0 && memcmp(bytes + off[1], "one", 3) == 0);
      CHECK(off[2] - off[1] == 3);
      CHECK(ch[8]->n_buffers == 0 && ch[8]->null_count == 3);
    }
    total += array.length;
    /* A consumer may move a child out; the parent's release leaves it alone. */
    struct ArrowArray moved = *array.children[7];
    array.children[7]->release = NULL;
    array.release(&array);
    CHECK(array.release == NULL);
    moved.release(&moved);
  }
  CHECK(total == 3 && batches == 1);
  stream.release(&stream);
  CHECK(stream.release == NULL);

  /* Many batches. */
  r = run(con, "SELECT x FROM n10k");
  if (!r) return;
  CHECK(tessera_result_arrow_stream(r, &stream) == TESSERA_OK);
  total = 0;
  int64_t sum = 0;
  batches = 0;
  for (;;) {
    if (stream.get_next(&stream, &array) != 0) { failures++; break; }
    if (!array.release) break;
    batches++;
    const int32_t* x = array.children[0]->buffers[1];
    for (int64_t k = 0; k < array.length; k++) sum += x[k];
    total += array.length;
    array.release(&array);
  }
  CHECK(total == 10000 && sum == 49995000 && batches == 1);  /* up to 1048576 rows a batch */
  stream.release(&stream);
  tessera_destroy_result(&r);

  /* Import: a result's stream registered as a table (its buffers shared), queried. */
  r = run(con, "SELECT x, x * 2 AS y, CAST(x AS VARCHAR) AS s FROM n10k WHERE x % 3 <> 0 OR x > 9000");
  if (!r) return;
  CHECK(tessera_result_arrow_stream(r, &stream) == TESSERA_OK);
  tessera_destroy_result(&r);
  uint64_t rows = 0;
  char* err = NULL;
  CHECK(tessera_register_arrow_stream(con, "imported", &stream, false, &rows, &err) == TESSERA_OK);
  CHECK(err == NULL && rows == 6999 && stream.release == NULL);
  r = run(con, "SELECT COUNT(*), SUM(y), MAX(s) FROM imported WHERE x > 5000");
  if (r) {
    CHECK(tessera_value_int64(r, 0, 0) == 3665);
    CHECK(tessera_value_int64(r, 1, 0) == 56307666);
    char* s = tessera_value_varchar(r, 2, 0);
    CHECK(s && strcmp(s, "9999") == 0);
    tessera_free(s);
    tessera_destroy_result(&r);
  }
  /* the name is taken; a bad stream is an error with a message; unregister */
  r = run(con, "SELECT 1 AS one");
  if (!r) return;
  CHECK(tessera_result_arrow_stream(r, &stream) == TESSERA_OK);
  tessera_destroy_result(&r);
  CHECK(tessera_register_arrow_stream(con, "imported", &stream, false, NULL, &err) == TESSERA_ERROR);
  CHECK(err != NULL && stream.release == NULL);
  tessera_free(err);
  CHECK(tessera_unregister_arrow(con, "imported") == TESSERA_OK);
  CHECK(tessera_unregister_arrow(con, "imported") == TESSERA_ERROR);
  CHECK(tessera_unregister_arrow(con, "n10k") == TESSERA_ERROR);
}

/* ---- interrupt from a second thread ----------------------------------------------------- */
struct interrupter {
  tessera_connection con;
  atomic_int done;
};

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void* interrupt_thread(void* arg) {
  struct interrupter* it = arg;
  sleep_ms(200);
  while (!atomic_load(&it->done)) {  /* again and again: the query may not have started yet */
    tessera_interrupt(it->con);
    sleep_ms(20);
  }
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_interrupt(tessera_connection con) {
  exec(con, "CREATE TABLE n1m (x INTEGER)");
  exec(con, "INSERT INTO n1m SELECT a.x * 100 + b.x FROM n10k a, (SELECT x FROM n10k WHERE x < 100) b");
  /* 10^6 x 10^3 = 10^9 pairs: many seconds of work unless interrupted. */
  const char* sql = "SELECT COUNT(*) FROM n1m a, n10k b WHERE b.x < 1000 AND a.x + b.x = 17";
  struct interrupter it;
  it.con = con;
  atomic_init(&it.done, 0);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, interrupt_thread, &it) == 0);
  double t0 = now_s();
  tessera_result r = NULL;
  tessera_state st = tessera_query(con, sql, &r);
  double took = now_s() - t0;
  atomic_store(&it.done, 1);
  pthread_join(th, NULL);
  CHECK(st == TESSERA_INTERRUPTED);
  CHECK(tessera_result_error_type(r) == TESSERA_ERROR_INTERRUPTED);
  CHECK(tessera_result_error(r) && strstr(tessera_result_error(r), "interrupted"));
  CHECK(took < 30);
  fprintf(stderr, "interrupted after %.2f s\n", took);
  tessera_destroy_result(&r);
  /* The connection works afterwards (the next statement clears the request). */
  r = run(con, "SELECT COUNT(*) FROM n1m");
  if (r) {
    CHECK(tessera_value_int64(r, 0, 0) == 1000000);
    tessera_destroy_result(&r);
  }
}


/* ---- streamed results (tessera_query_stream) -------------------------------------------- */

/* Rows of a streamed result fetched chunk by chunk: the sum of its first (BIGINT) column
   and the row count; the final state in *out_state. */
static int64_t drain(tessera_result r, uint64_t* rows, tessera_state* out_state) {
  int64_t sum = 0;
  *rows = 0;
  for (;;) {
    tessera_chunk c = NULL;
    tessera_state st = tessera_fetch_chunk(r, &c);
    if (st != TESSERA_OK || !c) {
      *out_state = st;
      return sum;
    }
    const int64_t* v = tessera_chunk_column_data(c, 0);
    for (uint64_t i = 0; i < tessera_chunk_row_count(c); i++) sum += v[i];
    *rows += tessera_chunk_row_count(c);
    tessera_chunk_destroy(&c);
  }
}

static void test_stream(tessera_connection con) {
  /* All rows, in order, the same as collected. */
  tessera_result r = NULL;
  CHECK(tessera_query_stream(con, "SELECT range * 2 AS x, 'v' || range AS s FROM range(100000)", &r) == TESSERA_OK);
  CHECK(tessera_result_column_count(r) == 2);
  CHECK(strcmp(tessera_result_column_name(r, 1), "s") == 0);
  CHECK(tessera_result_column_type(r, 1) == TESSERA_TYPE_VARCHAR);
  uint64_t rows = 0;
  tessera_state st = TESSERA_ERROR;
  tessera_chunk c = NULL;
  CHECK(tessera_fetch_chunk(r, &c) == TESSERA_OK && c);
  if (c) {
    const tessera_string* s = tessera_chunk_column_data(c, 1);
    CHECK(s[7].length == 2 && memcmp(s[7].data, "v7", 2) == 0);
    CHECK(((const int64_t*)tessera_chunk_column_data(c, 0))[7] == 14);
    rows = tessera_chunk_row_count(c);
    tessera_chunk_destroy(&c);
  }
  CHECK(tessera_result_reset_fetch(r) == TESSERA_MISUSE); /* a stream's rows go by once */
  uint64_t more = 0;
  int64_t sum = drain(r, &more, &st);
  CHECK(st == TESSERA_OK);
  CHECK(rows + more == 100000);
  CHECK(tessera_result_row_count(r) == 100000);
  CHECK(sum + 0 > 0);
  tessera_destroy_result(&r);

  /* The first chunk of a result far too large to collect comes at once; destroying the
     result stops the query. */
  double t0 = now_s();
  CHECK(tessera_query_stream(con, "SELECT a.range FROM range(1000000) a, range(1000) b", &r) == TESSERA_OK);
  CHECK(tessera_fetch_chunk(r, &c) == TESSERA_OK && c && tessera_chunk_row_count(c) > 0);
  tessera_chunk_destroy(&c);
  tessera_destroy_result(&r);
  double took = now_s() - t0;
  fprintf(stderr, "stream: first chunk and close of 10^9 rows in %.3f s\n", took);
  CHECK(took < 5);

  /* A later statement on the connection closes the open stream (DuckDB's rule). */
  CHECK(tessera_query_stream(con, "SELECT a.range FROM range(1000000) a, range(1000) b", &r) == TESSERA_OK);
  CHECK(tessera_fetch_chunk(r, &c) == TESSERA_OK && c);
  tessera_chunk_destroy(&c);
  tessera_result r2 = run(con, "SELECT 42");
  if (r2) {
    CHECK(tessera_value_int32(r2, 0, 0) == 42);
    tessera_destroy_result(&r2);
  }
  CHECK(tessera_fetch_chunk(r, &c) == TESSERA_ERROR && c == NULL);
  CHECK(tessera_result_error(r) && strstr(tessera_result_error(r), "closed"));
  tessera_destroy_result(&r);

  /* A statement without rows has ended when the call returns; errors before the rows
     come back at once, with their offset; an error met later ends the fetching. */
  CHECK(tessera_query_stream(con, "CREATE TABLE t_stream AS SELECT range AS x FROM range(5000)", &r) == TESSERA_OK);
  CHECK(tessera_result_column_count(r) == 0);
  tessera_destroy_result(&r);
  CHECK(tessera_query_stream(con, "SELECT nope FROM t_stream", &r) == TESSERA_ERROR);
  CHECK(tessera_result_error_type(r) == TESSERA_ERROR_BINDER && tessera_result_error_offset(r) == 7);
  tessera_destroy_result(&r);
  CHECK(tessera_query_stream(con,
                             "SELECT CAST(CASE WHEN range = 300000 THEN 'x' ELSE '1' END AS INTEGER) FROM range(1000000)",
                             &r) == TESSERA_OK);
  drain(r, &rows, &st);
  CHECK(st == TESSERA_ERROR && tessera_result_error_type(r) == TESSERA_ERROR_CONVERSION);
  CHECK(rows <= 300000);
  tessera_destroy_result(&r);

  /* A prepared statement, streamed. */
  tessera_prepared p = NULL;
  CHECK(tessera_prepare(con, "SELECT x FROM t_stream WHERE x < ?", &p) == TESSERA_OK);
  CHECK(tessera_execute_prepared_stream(p, &r) == TESSERA_ERROR); /* unbound */
  tessera_destroy_result(&r);
  CHECK(tessera_bind_int64(p, 1, 4000) == TESSERA_OK);
  CHECK(tessera_execute_prepared_stream(p, &r) == TESSERA_OK);
  sum = drain(r, &rows, &st);
  CHECK(st == TESSERA_OK && rows == 4000 && sum == (int64_t)3999 * 4000 / 2);
  tessera_destroy_result(&r);
  tessera_destroy_prepare(&p);

  /* As an Arrow stream: several record batches of up to 2^20 rows, as they come. */
  CHECK(tessera_query_stream(con, "SELECT range AS x FROM range(3000000)", &r) == TESSERA_OK);
  struct ArrowArrayStream as;
  CHECK(tessera_result_arrow_stream(r, &as) == TESSERA_OK);
  int batches = 0;
  int64_t total = 0, asum = 0;
  for (;;) {
    struct ArrowArray a;
    if (as.get_next(&as, &a) != 0 || !a.release) break;
    batches++;
    total += a.length;
    const int64_t* v = (const int64_t*)a.children[0]->buffers[1];
    for (int64_t i = 0; i < a.length; i++) asum += v[i];
    a.release(&a);
  }
  as.release(&as);
  CHECK(batches == 3);
  CHECK(total == 3000000);
  CHECK(asum == (int64_t)2999999 * 3000000 / 2);
  tessera_destroy_result(&r);
}

/* Interrupting a streamed query: while the caller fetches, and while the query waits for
   the caller to take its rows. */
static void test_stream_interrupt(tessera_connection con) {
  const char* sql = "SELECT a.x FROM n1m a, n10k b WHERE b.x < 1000 AND a.x + b.x = 17";
  struct interrupter it;
  it.con = con;
  atomic_init(&it.done, 0);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, interrupt_thread, &it) == 0);
  double t0 = now_s();
  tessera_result r = NULL;
  tessera_state st = tessera_query_stream(con, sql, &r);
  uint64_t rows = 0;
  if (st == TESSERA_OK) drain(r, &rows, &st);
  double took = now_s() - t0;
  atomic_store(&it.done, 1);
  pthread_join(th, NULL);
  CHECK(st == TESSERA_INTERRUPTED);
  CHECK(tessera_result_error_type(r) == TESSERA_ERROR_INTERRUPTED);
  CHECK(took < 30);
  tessera_destroy_result(&r);

  CHECK(tessera_query_stream(con, "SELECT a.range FROM range(1000000) a, range(1000) b", &r) == TESSERA_OK);
  sleep_ms(100); /* the queue fills; the query waits for the caller */
  CHECK(tessera_interrupt(con) == TESSERA_OK);
  drain(r, &rows, &st);
  CHECK(st == TESSERA_INTERRUPTED);
  tessera_destroy_result(&r);
  r = run(con, "SELECT 7");
  if (r) {
    CHECK(tessera_value_int32(r, 0, 0) == 7);
    tessera_destroy_result(&r);
  }
}

/* The error type of a statement expected to fail. */
static tessera_error_type error_of(tessera_connection con, const char* sql) {
  tessera_result r = NULL;
  tessera_error_type t = TESSERA_ERROR_NONE;
  if (tessera_query(con, sql, &r) == TESSERA_ERROR) t = tessera_result_error_type(r);
  tessera_destroy_result(&r);
  return t;
}

/* Two connections of one database: a transaction's changes are seen by the other only
   after COMMIT; misuse and write-write conflicts are TESSERA_ERROR_TRANSACTION, a
   duplicate key TESSERA_ERROR_CONSTRAINT. */
static void test_transactions(tessera_database db, tessera_connection con) {
  tessera_connection other = NULL;
  CHECK(tessera_connect(db, &other) == TESSERA_OK);
  if (!other) return;
  CHECK(error_of(con, "COMMIT") == TESSERA_ERROR_TRANSACTION);
  CHECK(tessera_in_transaction(NULL) == 0);
  CHECK(tessera_in_transaction(con) == 0);
  exec(con, "BEGIN");
  CHECK(tessera_in_transaction(con) == 1);
  CHECK(tessera_in_transaction(other) == 0);
  exec(con, "CREATE TABLE t_txn (k INTEGER PRIMARY KEY)");
  exec(con, "INSERT INTO t_txn VALUES (1), (2)");
  CHECK(error_of(other, "SELECT * FROM t_txn") == TESSERA_ERROR_CATALOG);
  exec(con, "COMMIT");
  CHECK(tessera_in_transaction(con) == 0);
  tessera_result r = run(other, "SELECT count(*) FROM t_txn");
  if (r) {
    CHECK(tessera_value_int64(r, 0, 0) == 2);
    tessera_destroy_result(&r);
  }
  CHECK(error_of(other, "INSERT INTO t_txn VALUES (2)") == TESSERA_ERROR_CONSTRAINT);
  exec(con, "BEGIN");
  exec(con, "DELETE FROM t_txn");
  CHECK(error_of(other, "INSERT INTO t_txn VALUES (3)") == TESSERA_ERROR_TRANSACTION);
  exec(con, "ROLLBACK");
  exec(other, "INSERT INTO t_txn VALUES (3)");
  tessera_disconnect(&other);
}

int main(void) {
  CHECK(tessera_library_version() != NULL && strlen(tessera_library_version()) > 0);
  test_misuse();

  tessera_config cfg = NULL;
  tessera_database db = NULL;
  tessera_connection con = NULL;
  char* err = NULL;
  CHECK(tessera_config_create(&cfg) == TESSERA_OK);
  /* TESSERA_CAPI_DEVICE=gpu|auto runs the checks on another device (default: cpu). */
  const char* device = getenv("TESSERA_CAPI_DEVICE");
  CHECK(tessera_config_set(cfg, "device", device ? device : "cpu") == TESSERA_OK);
  CHECK(tessera_config_set(cfg, "threads", "2") == TESSERA_OK);
  CHECK(tessera_open_ext(NULL, &db, cfg, &err) == TESSERA_OK && err == NULL);
  tessera_config_destroy(&cfg);
  CHECK(tessera_connect(db, &con) == TESSERA_OK);
  if (!con) return 1;

  create_types_table(con);
  test_errors(con);
  test_types(con);
  test_prepared(con);
  test_chunks(con);
  test_arrow(con);
  test_interrupt(con);
  test_stream(con);
  test_stream_interrupt(con);
  test_transactions(db, con);

  tessera_close(&db);  /* before the connection: the connection keeps it alive */
  CHECK(db == NULL);
  tessera_result r = run(con, "SELECT 42");
  if (r) {
    CHECK(tessera_value_int64(r, 0, 0) == 42);
    tessera_destroy_result(&r);
  }
  /* A streamed result stays usable after its connection (and database) handles are gone. */
  CHECK(tessera_query_stream(con, "SELECT range FROM range(50000)", &r) == TESSERA_OK);
  tessera_disconnect(&con);
  CHECK(con == NULL);
  uint64_t rows = 0;
  tessera_state st = TESSERA_ERROR;
  int64_t sum = drain(r, &rows, &st);
  CHECK(st == TESSERA_OK && rows == 50000 && sum == (int64_t)49999 * 50000 / 2);
  tessera_destroy_result(&r);

  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("capi_test: all checks passed\n");
  return 0;
}
