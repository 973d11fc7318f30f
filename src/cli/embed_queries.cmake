# Embeds queries/ssb/*.sql into the tessera binary (src/cli/ssb_queries.cpp includes the
# generated ssb_queries.inc), so the benchmark and the DuckDB differential test run the
# same query files.
#
# Included from the top-level CMakeLists.txt after the tessera target; run again in
# script mode (cmake -P) at build time whenever a query file changes.
if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB query_files ${QUERY_DIR}/*.sql)
  list(SORT query_files)
  set(text "// Generated from queries/ssb/*.sql by src/cli/embed_queries.cmake; do not edit.\n")
  foreach(file ${query_files})
    get_filename_component(name ${file} NAME_WLE)
    file(READ ${file} sql)
    string(APPEND text "{\"${name}\", R\"tessera_sql(${sql})tessera_sql\"},\n")
  endforeach()
  file(WRITE ${OUTPUT}.tmp "${text}")
  file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
  file(REMOVE ${OUTPUT}.tmp)
  return()
endif()

file(GLOB TESSERA_SSB_QUERY_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/queries/ssb/*.sql)
set(TESSERA_CLI_GENERATED ${CMAKE_BINARY_DIR}/generated/cli)
add_custom_command(
  OUTPUT ${TESSERA_CLI_GENERATED}/ssb_queries.inc
  COMMAND ${CMAKE_COMMAND} -DQUERY_DIR=${CMAKE_SOURCE_DIR}/queries/ssb
          -DOUTPUT=${TESSERA_CLI_GENERATED}/ssb_queries.inc -P ${CMAKE_CURRENT_LIST_FILE}
  DEPENDS ${TESSERA_SSB_QUERY_FILES} ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "Embedding queries/ssb/*.sql")
target_sources(tessera PRIVATE ${TESSERA_CLI_GENERATED}/ssb_queries.inc)
target_include_directories(tessera PRIVATE ${TESSERA_CLI_GENERATED})
