#!/usr/bin/env bash
# scratch: GPU checks for this stop (not committed)
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
if [ ! -x /tmp/v/bin/python ]; then python3 -m venv /tmp/v && /tmp/v/bin/pip install -q --no-index --find-links .whl duckdb; fi
if [ ! -x /tmp/b/tessera ]; then
  (cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release -DTESSERA_PYTHON=/tmp/v/bin/python >/dev/null && cmake --build /tmp/b -j16 2>&1 | grep -E "error|Error" ) ; echo "build rc done"
fi
nvidia-smi --query-gpu=name --format=csv,noheader
for stage in "$@"; do
  case $stage in
    ctest) ctest --test-dir /tmp/b -L gpu --output-on-failure -j1 > $OUT/ctest_gpu.txt 2>&1; tail -25 $OUT/ctest_gpu.txt ;;
    sql) /tmp/b/test/sqllogictest --root . --device gpu $(find test/sql -name "*.test" | sort) > $OUT/sql_gpu.txt 2>&1; grep -E "FAILED" -A8 $OUT/sql_gpu.txt | head -60; tail -1 $OUT/sql_gpu.txt ;;
    pq) t0=$(date +%s); /tmp/b/tessera gen tpch --sf 10 --out /tmp/tbl10 --threads 16 > /dev/null 2>&1; echo "gen $(( $(date +%s)-t0 )) s"
        /tmp/v/bin/python test/bench/parquet_bench.py --tessera /tmp/b/tessera --tbl /tmp/tbl10 --out /tmp/pq10 --threads 16 --reps 5 --json $OUT/parquet_bench_sf10.json ;;
  esac
done
