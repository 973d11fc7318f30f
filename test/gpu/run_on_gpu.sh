#!/usr/bin/env bash
# The GPU checks, for a machine with an NVIDIA GPU (the lent H100), run from a build made
# elsewhere and carried over (the binary loads the driver and NVRTC at run time):
#   tests     every ctest (the label gpu: unit.gpu_runtime_test, unit.gpu_ssb_test, sql_gpu.*;
#             the rest with the GPU present)
#   memcheck  compute-sanitizer memcheck over the SSB queries and variations (SF 0.01)
#   sf20      GPU vs CPU results of every SSB query and variation at SF $SF (default 20)
#   bench     tessera bench ssb --sf $SF on the GPU (15 warm runs; with the plan cache, then
#             without: bench-gpu*.json hold the host phases) and on the CPU (3)
#   probe     tessera probe: the machine's ceilings (device read/copy, H2D/D2H pinned and
#             pageable, zero-copy, CPU all cores / one core) -> $OUT/probe.txt, probe.json
#   model     the cost model on the GPU: cost_model_test (probe kernels), EXPLAIN ANALYZE of
#             q1.1/q2.1/q4.1 and bench --json/--plot on the GPU and on the CPU at SF $SF,
#             the CPU run side by side with DuckDB (--compare duckdb: DuckDB's C API from
#             the PyPI package, installed from wheels carried in .whl, see below)
#   tpch-gpu  TPC-H at SF $TPCH_SFS (default "1 10") with --device gpu beside DuckDB
#   memcheck-tpch  compute-sanitizer memcheck over the 22 TPC-H queries at SF 0.1
#   cold      q1.1 at SF $SF in a fresh process (kernel cache and page cache warm), also for
#             the binary OLD_TESSERA names (an earlier build, for before/after in one run)
#   tpch      TPC-H at SF $TPCH_SFS (default "1 10"): bench tpch on the CPU (all threads)
#             beside DuckDB (same threads, same rows; DuckDB as for model), and once
#             with --device auto at the first SF (GPU where the plan allows, CPU otherwise)
# Usage: test/gpu/run_on_gpu.sh [STAGE...]   (default: tests memcheck sf20 bench probe
# model). Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/tessera-gpu-out}
mkdir -p "$OUT"
build=${BUILD_DIR:-build}
sf=${SF:-20}
stages=${*:-tests memcheck sf20 bench probe model}
export TESSERA_PROBE_DIR=${TESSERA_PROBE_DIR:-$OUT/probe-cache}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
# The ctest files name the source directory of the build machine: make it resolve here.
src=$(grep -m1 '^CMAKE_HOME_DIRECTORY' "$build/CMakeCache.txt" | cut -d= -f2)
if [ -n "$src" ] && [ "$src" != "$PWD" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; fi
# DuckDB for --compare duckdb (and the differential tests): the machine has no network, so
# the pinned packages of test/requirements.txt come as cp312 wheels carried in .whl (made
# here with: python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12
# --implementation cp --platform manylinux_2_28_x86_64 -d .whl -r test/requirements.txt),
# installed into a virtual environment that TESSERA_PYTHON names.
if [ -z "${TESSERA_PYTHON:-}" ] && ls .whl/duckdb-*.whl > /dev/null 2>&1; then
  python3 -m venv /tmp/tessera-venv && /tmp/tessera-venv/bin/python -m pip install -q --no-index \
    --find-links .whl -r test/requirements.txt && export TESSERA_PYTHON=/tmp/tessera-venv/bin/python
fi
have_duckdb() { [ -n "${TESSERA_DUCKDB_LIB:-}" ] || { [ -n "${TESSERA_PYTHON:-}" ] && "$TESSERA_PYTHON" -c "import duckdb"; }; }
status=0
for stage in $stages; do
  echo "== $stage"
  case $stage in
    # The whole suite, not only the label gpu: with a GPU present the default device (auto)
    # puts other tests' queries on it too.
    tests) ctest --test-dir "$build" --output-on-failure -j8 2>&1 | tee "$OUT/tests.log" | tail -40 || status=1 ;;
    memcheck)
      TESSERA_GPU_TEST_SF=0.01 compute-sanitizer --tool memcheck --error-exitcode 3 "$build/test/gpu_ssb_test" \
        > "$OUT/memcheck.log" 2>&1 || status=1
      tail -12 "$OUT/memcheck.log" ;;
    sf20)
      TESSERA_GPU_TEST_SF=$sf stdbuf -oL "$build/test/gpu_ssb_test" 2>&1 | tee "$OUT/sf$sf-compare.log" | tail -40 || status=1 ;;
    bench)
      sync
      "$build/tessera" bench ssb --sf "$sf" --device gpu --reps 15 --data /tmp/ssb-sf$sf.tdb \
        --json "$OUT/bench-gpu.json" > "$OUT/bench-gpu.txt" 2>&1 || status=1
      tail -20 "$OUT/bench-gpu.txt"
      # The same without the plan cache: every warm run parses, plans and generates again.
      "$build/tessera" bench ssb --sf "$sf" --device gpu --reps 15 --quiet --no-plan-cache --data /tmp/ssb-sf$sf.tdb \
        --json "$OUT/bench-gpu-no-plan-cache.json" > "$OUT/bench-gpu-no-plan-cache.txt" 2>&1 || status=1
      tail -20 "$OUT/bench-gpu-no-plan-cache.txt"
      "$build/tessera" bench ssb --sf "$sf" --device cpu --reps 3 --data /tmp/ssb-sf$sf.tdb > "$OUT/bench-cpu.txt" 2>&1 || status=1
      tail -20 "$OUT/bench-cpu.txt" ;;
    probe)
      "$build/tessera" probe > "$OUT/probe.txt" 2>&1 || status=1
      cat "$OUT/probe.txt"
      cp "$TESSERA_PROBE_DIR"/probe-*.json "$OUT/probe.json" 2>/dev/null ;;
    model)
      "$build/test/cost_model_test" > "$OUT/cost_model_test.log" 2>&1 || status=1
      tail -3 "$OUT/cost_model_test.log"
      "$build/tessera" gen ssb --sf "$sf" --db /tmp/ssb-sf$sf.tdb > /dev/null 2>&1 || true  # no-op when present
      for q in q1.1 q2.1 q4.1; do
        for dev in gpu cpu; do
          # The query once (uploads, kernel compiles), then EXPLAIN ANALYZE warm, in one process.
          "$build/tessera" /tmp/ssb-sf$sf.tdb --device $dev -c "$(cat queries/ssb/$q.sql)" \
            -c "EXPLAIN ANALYZE $(cat queries/ssb/$q.sql)" > "$OUT/explain-analyze-$q-$dev.txt" 2>&1 || status=1
        done
      done
      tail -22 "$OUT/explain-analyze-q2.1-gpu.txt"
      "$build/tessera" bench ssb --sf "$sf" --device gpu --reps 15 --quiet --data /tmp/ssb-sf$sf.tdb \
        --json "$OUT/model-gpu.json" --plot "$OUT/model-gpu.html" > "$OUT/model-gpu.txt" 2>&1 || status=1
      tail -22 "$OUT/model-gpu.txt"
      compare=()
      if have_duckdb; then
        compare=(--compare duckdb)
      else
        echo "model: no DuckDB (carry .whl with the duckdb wheel, or set TESSERA_DUCKDB_LIB): CPU run without DuckDB"
      fi
      "$build/tessera" bench ssb --sf "$sf" --device cpu --reps 3 --quiet --data /tmp/ssb-sf$sf.tdb "${compare[@]}" \
        --json "$OUT/model-cpu.json" --plot "$OUT/model-cpu.html" > "$OUT/model-cpu.txt" 2>&1 || status=1
      tail -22 "$OUT/model-cpu.txt" ;;
    tpch)
      tsfs=${TPCH_SFS:-1 10}
      for tsf in $tsfs; do
        [ -e /tmp/tpch-sf$tsf.tdb ] || "$build/tessera" gen tpch --sf "$tsf" --db /tmp/tpch-sf$tsf.tdb > /dev/null 2>&1
        [ -e /tmp/tpch-sf$tsf-tbl/schema.sql ] || "$build/tessera" gen tpch --sf "$tsf" --out /tmp/tpch-sf$tsf-tbl > /dev/null 2>&1
        "$build/tessera" bench tpch --data /tmp/tpch-sf$tsf.tdb --tbl /tmp/tpch-sf$tsf-tbl --device cpu --reps 3 --quiet \
          --compare duckdb --json "$OUT/tpch-sf$tsf-cpu.json" > "$OUT/tpch-sf$tsf-cpu.txt" 2>&1 || status=1
        tail -30 "$OUT/tpch-sf$tsf-cpu.txt"
      done
      first=${tsfs%% *}
      "$build/tessera" bench tpch --data /tmp/tpch-sf$first.tdb --device auto --reps 3 --quiet \
        > "$OUT/tpch-sf$first-auto.txt" 2>&1 || status=1
      tail -30 "$OUT/tpch-sf$first-auto.txt" ;;
    # TPC-H on the GPU beside DuckDB (the issue 11 tables in docs/PERFORMANCE.md): every
    # query with --device gpu at each SF of $TPCH_SFS, rows compared with DuckDB's.
    tpch-gpu)
      for tsf in ${TPCH_SFS:-1 10}; do
        [ -e /tmp/tpch-sf$tsf.tdb ] || "$build/tessera" gen tpch --sf "$tsf" --db /tmp/tpch-sf$tsf.tdb > /dev/null 2>&1
        [ -e /tmp/tpch-sf$tsf-tbl/schema.sql ] || "$build/tessera" gen tpch --sf "$tsf" --out /tmp/tpch-sf$tsf-tbl > /dev/null 2>&1
        "$build/tessera" bench tpch --data /tmp/tpch-sf$tsf.tdb --tbl /tmp/tpch-sf$tsf-tbl --device gpu --reps 3 --quiet \
          --compare duckdb --json "$OUT/tpch-sf$tsf-gpu.json" > "$OUT/tpch-sf$tsf-gpu.txt" 2>&1 || status=1
        tail -30 "$OUT/tpch-sf$tsf-gpu.txt"
      done ;;
    # compute-sanitizer memcheck over the 22 TPC-H queries at SF 0.1 on the GPU.
    memcheck-tpch)
      [ -e /tmp/tpch-sf0.1.tdb ] || "$build/tessera" gen tpch --sf 0.1 --db /tmp/tpch-sf0.1.tdb > /dev/null 2>&1
      for q in queries/tpch/q*.sql; do
        n=$(basename "$q" .sql)
        compute-sanitizer --tool memcheck --error-exitcode 3 "$build/tessera" /tmp/tpch-sf0.1.tdb --device gpu < "$q" \
          > "$OUT/memcheck-tpch-$n.log" 2>&1 || status=1
        echo "$n $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck-tpch-$n.log")"
      done ;;
    # Cold start (issue 13): q1.1 at SF $sf end to end in a fresh process, the kernel cache
    # filled and the database in the page cache (one run before fills both), 3 times; with
    # OLD_TESSERA set (an older build's binary) the same for it, on a database it wrote.
    cold)
      for bin in "$build/tessera" ${OLD_TESSERA:-}; do
        db=/tmp/ssb-sf$sf-$(basename "$bin").tdb
        [ -e "$db" ] || { TIMEFORMAT="gen $(basename "$bin"): %R s"; time "$bin" gen ssb --sf "$sf" --db "$db" > /dev/null 2>&1; }
        echo "$(basename "$bin"): database $(du -sm "$db" | cut -f1) MB"
        "$bin" "$db" --device gpu -c "$(cat queries/ssb/q1.1.sql)" > /dev/null 2>&1
        for k in 1 2 3; do
          TIMEFORMAT="$(basename "$bin") q1.1 first run in a fresh process: %R s"
          # The shell's timer splits the statement's time: kernels, compile (0 when the
          # kernel cache had them) and column upload; the rest of the process is start-up,
          # opening the database, the CUDA context and planning.
          time { printf '.timer on\n%s\n' "$(cat queries/ssb/q1.1.sql)" | "$bin" "$db" --device gpu > "$OUT/cold-$(basename "$bin").txt" 2>&1; }
          grep 'Run Time' "$OUT/cold-$(basename "$bin").txt"
        done
        # A query shape never seen: an empty kernel cache, so NVRTC compiles q1.1's kernels.
        TIMEFORMAT="$(basename "$bin") q1.1 in a fresh process, empty kernel cache: %R s"
        rm -rf /tmp/tessera-empty-kc
        time { printf '.timer on\n%s\n' "$(cat queries/ssb/q1.1.sql)" | TESSERA_KERNEL_CACHE=/tmp/tessera-empty-kc "$bin" "$db" --device gpu > "$OUT/cold-$(basename "$bin").txt" 2>&1; }
        grep 'Run Time' "$OUT/cold-$(basename "$bin").txt"
        # A new shape once the cache holds what every query shares (the library module):
        # q1.1 with <= for <, which changes its probe kernel's source.
        TIMEFORMAT="$(basename "$bin") q1.1 with a new kernel shape in a fresh process: %R s"
        time { printf '.timer on\n%s\n' "$(sed 's/lo_quantity < 25/lo_quantity <= 25/' queries/ssb/q1.1.sql)" | TESSERA_KERNEL_CACHE=/tmp/tessera-empty-kc "$bin" "$db" --device gpu > "$OUT/cold-$(basename "$bin").txt" 2>&1; }
        grep 'Run Time' "$OUT/cold-$(basename "$bin").txt"
      done 2>&1 | tee -a "$OUT/cold.txt" ;;
    *) echo "unknown stage $stage"; exit 2 ;;
  esac
done
exit $status
