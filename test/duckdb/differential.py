#!/usr/bin/env python3
"""Differential test: tessera against DuckDB on generated SSB or TPC-H data.

  python test/duckdb/differential.py ssb|tpch TESSERA_BINARY SF [WORK_DIR]
                                     [--queries q01,q02] [--timeout SECONDS]
                                     [--device cpu|gpu|auto] [--query-dir DIR]

1. `tessera gen BENCH --sf SF --out WORK_DIR/tbl` writes the .tbl files and schema.sql
   (the generator's CREATE TABLE statements, so both engines get identical types).
2. Both engines create the tables from schema.sql and load the files with
   COPY ... (DELIMITER '|', HEADER false): DuckDB (the PyPI package, version pinned in
   test/requirements.txt) in memory, tessera into the database directory
   WORK_DIR/tessera.tdb. Row counts must agree.
3. Every query of queries/BENCH/*.sql (or those named by --queries) runs on both: tessera
   through `tessera DB --csv -c SQL` (the whole file; q15's view statements print
   nothing), DuckDB statement by statement (the result is that of the SELECT). Results
   are normalised to text rows (integers as integers, decimals with their scale, doubles
   to 12 significant digits, NULL as NULL) and must be the same rows; in the order the
   ORDER BY prescribes when the query has one (rows tied on the sort keys may come in any
   order), else as sorted lists.
--parquet: DuckDB writes each table to WORK_DIR/parquet/TABLE.parquet (snappy) and
tessera reads them through views (CREATE VIEW t AS SELECT * FROM read_parquet('...'))
instead of loading the .tbl files: the queries over Parquet files.
--device: tessera's device for the queries (gpu: exits 77, skipped, where no GPU can be
used); --query-dir: the queries of DIR instead of queries/BENCH (test/duckdb/
tpch_variations: the TPC-H queries varied, for the GPU).
Prints PASS / DIFF / ERROR per query (ERROR with tessera's message) and a summary; exits
1 when any query does not pass.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from diff_common import (TesseraError, compare, duck_rows, parse_csv, run_tessera, statements,
                         tables_of, tessera_text)

REPO = Path(__file__).resolve().parents[2]


def natural_key(name):
    return [int(p) if p.isdigit() else p for p in re.split(r'(\d+)', name)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('bench', choices=['ssb', 'tpch'])
    ap.add_argument('tessera')
    ap.add_argument('sf', type=float)
    ap.add_argument('work', nargs='?')
    ap.add_argument('--queries', help='comma-separated query names (q01,q06 / q1.1,q2.1)')
    ap.add_argument('--device', choices=['cpu', 'gpu', 'auto'])
    ap.add_argument('--query-dir', help='the .sql files of this directory instead of queries/BENCH')
    ap.add_argument('--parquet', action='store_true',
                    help='tessera reads Parquet files DuckDB wrote (through views) instead of loading .tbl files')
    ap.add_argument('--timeout', type=float, default=300,
                    help='limit for one tessera query in seconds (default 300); past it: ERROR')
    a = ap.parse_args()
    tessera = str(Path(a.tessera).resolve())
    if not os.path.exists(tessera):
        ap.error(f'no tessera binary at {tessera}')
    if not a.sf > 0:
        ap.error('SF must be positive')
    sf_text = f'{a.sf:g}'
    work = Path(a.work).resolve() if a.work else Path(tempfile.mkdtemp(prefix=f'{a.bench}-diff-'))
    device = ['--device', a.device] if a.device else []
    if a.device == 'gpu':
        try:
            run_tessera(tessera, ['--device', 'gpu', '-c', 'select 1'], 'GPU check')
        except TesseraError as e:
            print(f'skipped: {e}')
            sys.exit(77)
    query_dir = Path(a.query_dir).resolve() if a.query_dir else REPO / 'queries' / a.bench
    files = sorted((f for f in query_dir.iterdir() if f.suffix == '.sql'), key=lambda f: natural_key(f.stem))
    if a.queries:
        only = [q.strip() for q in a.queries.split(',') if q.strip()]
        known = {f.stem for f in files}
        for q in only:
            if q not in known:
                ap.error(f'no query {q} in {query_dir}')
        files = [f for f in files if f.stem in only]

    import shutil
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    tbl_dir = work / 'tbl'
    db_dir = work / 'tessera.tdb'
    print(f'{a.bench.upper()} differential test, SF {sf_text}, work dir {work}, DuckDB {duckdb.__version__}', flush=True)
    t0 = time.time()
    run_tessera(tessera, ['gen', a.bench, '--sf', sf_text, '--out', str(tbl_dir)], f'tessera gen {a.bench}')
    print(f'generated .tbl files in {time.time() - t0:.1f} s', flush=True)

    schema_sql = (tbl_dir / 'schema.sql').read_text()
    tables = tables_of(schema_sql)
    if not tables:
        raise SystemExit('Error: schema.sql names no table')
    copy_sql = '\n'.join(f"COPY {t} FROM '{tbl_dir / (t + '.tbl')}' (DELIMITER '|', HEADER false);" for t in tables)
    con = duckdb.connect(':memory:')
    t0 = time.time()
    con.execute(schema_sql)
    con.execute(copy_sql)
    print(f'loaded into DuckDB in {time.time() - t0:.1f} s', flush=True)

    t0 = time.time()
    if a.parquet:
        pq_dir = work / 'parquet'
        pq_dir.mkdir()
        views = []
        for t in tables:
            f = pq_dir / f'{t}.parquet'
            con.execute(f"COPY {t} TO '{f}' (FORMAT parquet, COMPRESSION snappy)")
            views.append(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{f}');")
        run_tessera(tessera, [str(db_dir), '-c', '\n'.join(views)], 'tessera views over Parquet files')
        print(f'wrote Parquet files (DuckDB) and tessera views in {time.time() - t0:.1f} s', flush=True)
    else:
        run_tessera(tessera, [str(db_dir), '-c', f'{schema_sql}\n{copy_sql}'], 'tessera load')
        print(f'loaded into tessera in {time.time() - t0:.1f} s', flush=True)

    # Row counts must agree before the queries mean anything.
    for t in tables:
        sql = f'select count(*) from {t}'
        d = con.execute(sql).fetchone()[0]
        csv = parse_csv(run_tessera(tessera, [str(db_dir), '--csv', '-c', sql], f'count {t}'))
        tc = csv[1][0] if len(csv) > 1 else None
        if str(d) != tc:
            raise SystemExit(f'Error: {t}: tessera has {tc} rows, DuckDB {d}')

    results = []
    for f in files:
        sql = f.read_text()
        stmts = statements(sql)
        select = next((s for s in stmts if re.match(r'^(select|with)\b', s, re.I)), None)
        res = {'name': f.stem, 't': '-', 'd': '-', 'status': 'PASS', 'note': ''}
        try:
            if select is None:
                raise TesseraError(f'{f.name} holds no SELECT')
            cur = None
            for s in stmts:
                c = con.execute(s)
                if s is select:
                    names, types, d_rows = duck_rows(c)
            res['d'] = len(d_rows)
            t0 = time.time()
            try:
                out = run_tessera(tessera, [str(db_dir), '--csv', *device, '-c', sql], f.stem, a.timeout)
            except TesseraError:
                # A view left behind by a failed q15 would break the next run.
                if re.search(r'create\s+view', sql, re.I):
                    subprocess.run([tessera, str(db_dir), '-c', 'drop view if exists revenue0'], capture_output=True)
                raise
            ms = (time.time() - t0) * 1000
            csv = parse_csv(out)
            if not csv:
                raise TesseraError('tessera printed no CSV header')
            header = csv.pop(0)
            if len(header) != len(names):
                raise TesseraError(f'tessera returned {len(header)} columns, DuckDB {len(names)}')
            t_rows = [[tessera_text(v, types[c]) for c, v in enumerate(row)] for row in csv]
            res['t'] = len(t_rows)
            res['note'] = f'{ms:.0f} ms (tessera, incl. start-up)'
            diff = compare(select, t_rows, d_rows, names)
            if diff:
                res['status'], res['note'] = 'DIFF', diff
        except (TesseraError, duckdb.Error) as e:
            res['status'], res['note'] = 'ERROR', str(e).split('\n')[0]
        results.append(res)
        print(f"{res['name']}: {res['status']} {res['note']}", flush=True)

    print()
    print(f"{'query':<6} {'tessera':>8} {'duckdb':>8}  {'status':<6}  note")
    for r in results:
        print(f"{r['name']:<6} {str(r['t']):>8} {str(r['d']):>8}  {r['status']:<6}  {r['note']}")
    count = {s: sum(r['status'] == s for r in results) for s in ('PASS', 'DIFF', 'ERROR')}
    passed = ' '.join(r['name'] for r in results if r['status'] == 'PASS')
    print(f"{count['PASS']} passed, {count['DIFF']} differ, {count['ERROR']} errors"
          + (f' (passed: {passed})' if passed else ''))
    return 0 if count['PASS'] == len(results) else 1


if __name__ == '__main__':
    try:
        sys.exit(main())
    except TesseraError as e:
        print(f'Error: {e}', file=sys.stderr)
        sys.exit(1)
