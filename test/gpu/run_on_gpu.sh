#!/usr/bin/env bash
# The GPU checks, for a machine with an NVIDIA GPU (the lent H100), run from a build made
# elsewhere and carried over (the binary loads the driver and NVRTC at run time):
#   tests     the ctest label gpu (unit.gpu_runtime_test, unit.gpu_ssb_test, sql_gpu.*)
#   memcheck  compute-sanitizer memcheck over the SSB queries and variations (SF 0.01)
#   sf20      GPU vs CPU results of every SSB query and variation at SF $SF (default 20)
#   bench     tessera bench ssb --sf $SF on the GPU (15 warm runs) and on the CPU (3)
# Usage: test/gpu/run_on_gpu.sh [STAGE...]   (default: all four). Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/tessera-gpu-out}
mkdir -p "$OUT"
build=${BUILD_DIR:-build}
sf=${SF:-20}
stages=${*:-tests memcheck sf20 bench}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
# The ctest files name the source directory of the build machine: make it resolve here.
src=$(grep -m1 '^CMAKE_HOME_DIRECTORY' "$build/CMakeCache.txt" | cut -d= -f2)
if [ -n "$src" ] && [ "$src" != "$PWD" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; fi
status=0
for stage in $stages; do
  echo "== $stage"
  case $stage in
    tests) ctest --test-dir "$build" -L gpu --output-on-failure -j4 2>&1 | tee "$OUT/tests.log" | tail -40 || status=1 ;;
    memcheck)
      TESSERA_GPU_TEST_SF=0.01 compute-sanitizer --tool memcheck --error-exitcode 3 "$build/test/gpu_ssb_test" \
        > "$OUT/memcheck.log" 2>&1 || status=1
      tail -12 "$OUT/memcheck.log" ;;
    sf20)
      TESSERA_GPU_TEST_SF=$sf "$build/test/gpu_ssb_test" 2>&1 | tee "$OUT/sf$sf-compare.log" | tail -40 || status=1 ;;
    bench)
      sync
      "$build/tessera" bench ssb --sf "$sf" --device gpu --reps 15 --data /tmp/ssb-sf$sf.tdb > "$OUT/bench-gpu.txt" 2>&1 || status=1
      tail -20 "$OUT/bench-gpu.txt"
      "$build/tessera" bench ssb --sf "$sf" --device cpu --reps 3 --data /tmp/ssb-sf$sf.tdb > "$OUT/bench-cpu.txt" 2>&1 || status=1
      tail -20 "$OUT/bench-cpu.txt" ;;
    *) echo "unknown stage $stage"; exit 2 ;;
  esac
done
exit $status
