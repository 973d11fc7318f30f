/* Built by install_test.sh against an installed tessera (pkg-config): a query end to end. */
#include <stdio.h>
#include <string.h>
#include <tessera.h>

int main(void) {
  tessera_database db;
  tessera_connection con;
  tessera_result res;
  if (tessera_open(NULL, &db) != TESSERA_OK || tessera_connect(db, &con) != TESSERA_OK) return 1;
  if (tessera_query(con, "SELECT 40 + 2 AS answer", &res) != TESSERA_OK) return 1;
  char* text = tessera_value_varchar(res, 0, 0);
  int ok = text && strcmp(text, "42") == 0 && strcmp(tessera_result_column_name(res, 0), "answer") == 0;
  printf("tessera %s: %s = %s\n", tessera_library_version(), tessera_result_column_name(res, 0), text ? text : "?");
  tessera_free(text);
  tessera_destroy_result(&res);
  tessera_disconnect(&con);
  tessera_close(&db);
  return ok ? 0 : 1;
}
