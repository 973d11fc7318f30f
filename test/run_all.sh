#!/usr/bin/env bash
# Builds tessera and runs every test (unit tests, SQL logic tests, the DuckDB differential
# test) from a fresh checkout: installs the test-only npm package, configures, builds,
# runs ctest. BUILD_DIR overrides the build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
npm ci --prefix test/duckdb --no-audit --no-fund
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j "$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j2
