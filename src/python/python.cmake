# The Python extension tessera._tessera (nanobind), linked with the engine's static
# library so the module is self-contained. Built when TESSERA_BUILD_PYTHON is ON (the
# default when scikit-build-core drives the build: `pip install .`, see pyproject.toml).
# Outside pip, the interpreter is TESSERA_PYTHON or the first python3 found; it needs the
# nanobind package (pip install nanobind).
if(TESSERA_PYTHON AND NOT Python_EXECUTABLE)
  set(Python_EXECUTABLE ${TESSERA_PYTHON})
endif()
find_package(Python 3.10 COMPONENTS Interpreter Development.Module REQUIRED)
execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
  OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE nanobind_ROOT RESULT_VARIABLE nb_rc)
if(NOT nb_rc EQUAL 0)
  message(FATAL_ERROR "TESSERA_BUILD_PYTHON needs the Python package nanobind for ${Python_EXECUTABLE}")
endif()
find_package(nanobind CONFIG REQUIRED)
nanobind_add_module(_tessera NB_STATIC
  ${CMAKE_SOURCE_DIR}/src/python/module.cpp
  ${CMAKE_SOURCE_DIR}/src/python/arrow_import.cpp)
target_link_libraries(_tessera PRIVATE tessera_lib)
target_compile_options(_tessera PRIVATE -Wall -Wno-unused-parameter)
install(TARGETS _tessera LIBRARY DESTINATION tessera COMPONENT python)
