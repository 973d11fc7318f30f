#!/bin/bash
# The CPU backend beside DuckDB (issue 12's tables in docs/PERFORMANCE.md): TPC-H at SF10
# and, with a third argument `ssb` (or `ssbonly`), SSB at SF20, each with --device cpu and
# all hardware threads on both sides, rows compared. Used on the lent GPU machine's host.
#   test/bench/cpu_vs_duckdb.sh BIN TAG [ssb|ssbonly]    (results under $OUT, data in /tmp)
# BIN: a tessera binary (an older build's too: before/after in one call; each TAG gets its
# own SSB database, since an older build may not open a newer format). DuckDB: the PyPI
# wheel in .whl (see test/gpu/run_on_gpu.sh), installed into .venv when missing.
bin=$1; tag=$2
OUT=${OUT:-/tmp/tessera-cpu-out}; mkdir -p "$OUT"
if [ ! -x .venv/bin/python ]; then python3 -m venv --system-site-packages .venv && .venv/bin/pip install -q --no-index --no-deps .whl/duckdb-*.whl; fi
export TESSERA_PYTHON=$PWD/.venv/bin/python
nproc; lscpu | grep -E "Model name|^CPU\(s\)"
T0=$(date +%s)
if [ "${3:-}" != ssbonly ]; then
  [ -e /tmp/tpch10.tdb ] || $bin gen tpch --sf 10 --db /tmp/tpch10.tdb >/dev/null 2>&1
  [ -e /tmp/tpch10-tbl/schema.sql ] || $bin gen tpch --sf 10 --out /tmp/tpch10-tbl >/dev/null 2>&1
  echo "gen $(( $(date +%s)-T0 )) s"
  $bin bench tpch --data /tmp/tpch10.tdb --tbl /tmp/tpch10-tbl --device cpu --reps 3 --quiet --compare duckdb \
    --json $OUT/tpch10-cpu-$tag.json > $OUT/tpch10-cpu-$tag.txt 2>&1
  tail -32 $OUT/tpch10-cpu-$tag.txt
  echo "tpch done $(( $(date +%s)-T0 )) s"
fi
if [ "${3:-}" = ssb ] || [ "${3:-}" = ssbonly ]; then
  [ -e /tmp/ssb20-tbl/schema.sql ] || $bin gen ssb --sf 20 --out /tmp/ssb20-tbl >/dev/null 2>&1
  $bin bench ssb --sf 20 --data /tmp/ssb20-$tag.tdb --tbl /tmp/ssb20-tbl --device cpu --reps 3 --quiet --compare duckdb \
    --json $OUT/ssb20-cpu-$tag.json > $OUT/ssb20-cpu-$tag.txt 2>&1
  tail -22 $OUT/ssb20-cpu-$tag.txt
  echo "ssb done $(( $(date +%s)-T0 )) s"
fi
