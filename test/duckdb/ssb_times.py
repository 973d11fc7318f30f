#!/usr/bin/env python3
"""DuckDB's side of a CPU comparison on SSB, outside `tessera bench --compare duckdb`:

  python test/duckdb/ssb_times.py TBL_DIR THREADS [REPS]

TBL_DIR holds the files of `tessera gen ssb --out TBL_DIR` (the .tbl files and
schema.sql). Loads them into an in-memory DuckDB limited to THREADS threads, then runs
every queries/ssb/*.sql once to warm up and REPS (default 5) more times, printing the
median and minimum wall time per query in milliseconds (rows fetched to Python).
"""
import statistics
import sys
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[2]


def main(argv):
    if len(argv) not in (2, 3):
        print('Usage: python test/duckdb/ssb_times.py TBL_DIR THREADS [REPS]', file=sys.stderr)
        return 2
    d, threads = Path(argv[0]), int(argv[1])
    reps = int(argv[2]) if len(argv) > 2 else 5
    con = duckdb.connect(':memory:', config={'threads': threads})
    con.execute((d / 'schema.sql').read_text())
    t0 = time.perf_counter()
    for t in ['lineorder', 'part', 'supplier', 'customer', 'date']:
        con.execute(f"COPY {t} FROM '{d / (t + '.tbl')}' (DELIMITER '|', HEADER false)")
    print(f'duckdb {duckdb.__version__}: loaded in {time.perf_counter() - t0:.1f} s, threads {threads}')
    print('query\trows\tmedian_ms\tmin_ms')
    for f in sorted((REPO / 'queries' / 'ssb').glob('*.sql')):
        sql = f.read_text()
        rows = len(con.execute(sql).fetchall())
        times = []
        for _ in range(reps):
            s = time.perf_counter()
            rows = len(con.execute(sql).fetchall())
            times.append((time.perf_counter() - s) * 1000)
        print(f'{f.stem}\t{rows}\t{statistics.median(times):.1f}\t{min(times):.1f}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
