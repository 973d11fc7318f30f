# Embeds the scalar core (src/function/scalar_core.hpp, date_core.hpp, string_core.hpp, and
# storage/compression/lanepack_core.hpp and gpu_stream_core.hpp with bitpack_core.hpp) in the binary as text, so the GPU's
# NVRTC kernels compile the very same definitions the CPU's loops call
# (gpu/tile_library.cpp puts it in front of the tile library). Project headers it includes
# ("common/host_device.hpp") are inlined; it may include nothing else.
#
# Included from the top-level CMakeLists.txt after the tessera_objects target; run again
# in script mode (cmake -P) at build time whenever the header changes.
if(CMAKE_SCRIPT_MODE_FILE)
  set(text "")
  set(seen "")
  function(inline_header rel)
    list(FIND seen "${rel}" at)
    if(NOT at EQUAL -1)
      return()
    endif()
    list(APPEND seen "${rel}")
    set(seen "${seen}" PARENT_SCOPE)
    file(STRINGS "${SRC_DIR}/${rel}" lines)
    foreach(line IN LISTS lines)
      if(line MATCHES "^#include \"([^\"]+)\"")
        inline_header("${CMAKE_MATCH_1}")
        set(seen "${seen}" PARENT_SCOPE)
      elseif(line MATCHES "^#include")
        message(FATAL_ERROR "${rel} includes a system header (${line}): the NVRTC source cannot")
      elseif(NOT line MATCHES "^#pragma once")
        string(APPEND text "${line}\n")
      endif()
    endforeach()
    set(text "${text}" PARENT_SCOPE)
  endfunction()
  inline_header("function/scalar_core.hpp")
  inline_header("function/date_core.hpp")
  inline_header("function/string_core.hpp")
  inline_header("storage/compression/lanepack_core.hpp")
  inline_header("storage/compression/gpu_stream_core.hpp")
  file(WRITE ${OUTPUT}.tmp "// Generated from src/function/scalar_core.hpp by src/function/embed_core.cmake; do not edit.\nR\"tessera_core(${text})tessera_core\"\n")
  file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
  file(REMOVE ${OUTPUT}.tmp)
  return()
endif()

set(TESSERA_CORE_GENERATED ${CMAKE_BINARY_DIR}/generated)
add_custom_command(
  OUTPUT ${TESSERA_CORE_GENERATED}/function/scalar_core.inc
  COMMAND ${CMAKE_COMMAND} -DSRC_DIR=${CMAKE_SOURCE_DIR}/src
          -DOUTPUT=${TESSERA_CORE_GENERATED}/function/scalar_core.inc -P ${CMAKE_CURRENT_LIST_FILE}
  DEPENDS ${CMAKE_SOURCE_DIR}/src/function/scalar_core.hpp ${CMAKE_SOURCE_DIR}/src/function/date_core.hpp
          ${CMAKE_SOURCE_DIR}/src/function/string_core.hpp
          ${CMAKE_SOURCE_DIR}/src/storage/compression/lanepack_core.hpp
          ${CMAKE_SOURCE_DIR}/src/storage/compression/gpu_stream_core.hpp
          ${CMAKE_SOURCE_DIR}/src/storage/compression/bitpack_core.hpp
          ${CMAKE_SOURCE_DIR}/src/common/host_device.hpp
          ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "Embedding src/function/scalar_core.hpp for NVRTC")
target_sources(tessera_objects PRIVATE ${TESSERA_CORE_GENERATED}/function/scalar_core.inc)
target_include_directories(tessera_objects PRIVATE ${TESSERA_CORE_GENERATED})
