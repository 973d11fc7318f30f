#!/usr/bin/env bash
# Builds tessera and runs every test (unit tests, SQL logic tests, the DuckDB differential
# tests, the Python package's tests) from a fresh checkout: makes the Python virtual
# environment .venv and installs the pinned test packages (test/requirements.txt) into it,
# builds and installs the Python package tessera into it (pip, build directory
# $BUILD_DIR/pip, incremental), configures, builds, runs ctest.
# BUILD_DIR overrides the build directory (default: build); PYTHON the interpreter the
# environment is made from (default: python3); TESSERA_WHEELS a directory of wheels to
# install from instead of PyPI (machines without network).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
# RE2 (the regular-expression functions; optional): installed where it is missing and
# apt-get can run as root; without it the build still succeeds and those tests are skipped.
if [ ! -e /usr/include/re2/re2.h ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  { apt-get update -qq && apt-get install -y -qq libre2-dev >/dev/null; } || echo "run_all.sh: could not install libre2-dev; building without RE2" >&2
fi
venv=.venv
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
if [ -n "${TESSERA_WHEELS:-}" ]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --find-links "$TESSERA_WHEELS" -r test/requirements.txt
else
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r test/requirements.txt
fi
# The Python package: the engine is compiled once more, by scikit-build-core (pyproject.toml).
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} \
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
  --config-settings=build-dir="$build_dir/pip/{wheel_tag}" ./
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTESSERA_PYTHON="$PWD/$venv/bin/python"
cmake --build "$build_dir" -j "$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j2
