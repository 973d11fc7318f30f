# libtessera.so from the engine's objects (tessera_objects, built with hidden visibility):
# it exports the C API alone (TESSERA_API in tessera.h, and tessera.map as the linker's
# version script). `cmake --install` puts the library, tessera.h, the tessera executable
# and a relocatable pkg-config file (tessera.pc) under the prefix.
include(GNUInstallDirs)

add_library(tessera_shared SHARED $<TARGET_OBJECTS:tessera_objects>)
set_target_properties(tessera_shared PROPERTIES
  OUTPUT_NAME tessera
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${CMAKE_SOURCE_DIR}/src/capi/tessera.map)
target_link_options(tessera_shared PRIVATE
  -Wl,--version-script=${CMAKE_SOURCE_DIR}/src/capi/tessera.map -Wl,--no-undefined)
target_link_libraries(tessera_shared PRIVATE Threads::Threads ${CMAKE_DL_LIBS} ${TESSERA_DEPENDENCY_LIBS})
target_include_directories(tessera_shared INTERFACE ${CMAKE_SOURCE_DIR}/src/capi)

# tessera.pc finds the prefix from its own place (${pcfiledir}), so an install under any
# --prefix works.
file(RELATIVE_PATH TESSERA_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" TESSERA_PC_TO_PREFIX "${TESSERA_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/src/capi/tessera.pc.in ${CMAKE_BINARY_DIR}/tessera.pc @ONLY)

install(TARGETS tessera_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tessera RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/src/capi/tessera.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_BINARY_DIR}/tessera.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
