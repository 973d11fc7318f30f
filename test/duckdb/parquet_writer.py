#!/usr/bin/env python3
"""COPY ... TO 'f.parquet' (src/storage/parquet/parquet_writer.hpp), checked by reading the
files back with pyarrow and DuckDB.

  python test/duckdb/parquet_writer.py TESSERA_BINARY [WORKDIR]

Every tessera type with NULLs (BOOLEAN, INTEGER, BIGINT, DOUBLE, DECIMAL(9,2), (18,4),
(38,10), DATE, VARCHAR with unicode and long strings, and a VARCHAR of few distinct values,
which is dictionary-encoded), 300000 rows (three row groups of
122880 by default), written with each codec (snappy, gzip, uncompressed; zstd only where
tessera was built with it, else a clear error) and compared value by value with the rows
the script generated; the column chunks' statistics (min, max, null count) are checked
against the values. Edge cases: an empty result, an all-NULL column, ROW_GROUP_SIZE, the
format from the .parquet extension, COPY t TO, and a failed COPY that leaves no file.
"""
import datetime
import decimal
import os
import shutil
import subprocess
import sys
import tempfile

import duckdb
import pyarrow.parquet as pq

N = 300_000
COLUMNS = [
    ('k', 'INTEGER'), ('flag', 'BOOLEAN'), ('i', 'INTEGER'), ('b', 'BIGINT'), ('d', 'DOUBLE'),
    ('m9', 'DECIMAL(9,2)'), ('m18', 'DECIMAL(18,4)'), ('m38', 'DECIMAL(38,10)'),
    ('day', 'DATE'), ('s', 'VARCHAR'), ('cat', 'VARCHAR'),
]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what, file=sys.stderr)


def row(k):
    """Row k: every column NULL on its own rhythm."""
    def null(col):
        return (k + 3 * col) % (7 + col) == 0
    words = ['plain', 'grüße', '日本語', 'emoji 🎉', '', 'comma, "quote"', 'x' * 10_000]
    vals = [
        k % 3 == 0,
        (k * 7919) % 2_000_000_000 - 1_000_000_000,
        (k - N // 2) * 1_000_000_007,
        (k - 1000) / 8.0,
        decimal.Decimal(k % 10_000_000 - 5_000_000).scaleb(-2),
        decimal.Decimal((k * 104729) % 10**17 - 5 * 10**16).scaleb(-4),
        decimal.Decimal(k * 10**20 + 12345).scaleb(-10) * (-1 if k % 2 else 1),
        datetime.date(1970, 1, 1) + datetime.timedelta(days=k % 40_000 - 10_000),
        words[k % len(words)] + ('' if k % len(words) == 6 else str(k)) if k % 1000 else 'x' * 5000,
        ['red', 'green', 'blue', 'ünïcode ✓', ''][k % 5] if k < 250_000 else f'late{k % 3}',
    ]
    return (k,) + tuple(None if null(c) else v for c, v in enumerate(vals))


def csv_field(v):
    if v is None:
        return '\\N'  # the NULL string: a quoted "" is the empty string then
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace('"', '""') + '"'
    return str(v)


def run(binary, sql, expect_error=None):
    p = subprocess.run([binary, '-c', sql], capture_output=True, text=True)
    if expect_error is None:
        check(p.returncode == 0, f'tessera failed: {sql[:120]}: {p.stderr.strip()}')
    else:
        check(p.returncode != 0 and expect_error in p.stderr,
              f'expected an error with "{expect_error}": {sql[:120]}: rc {p.returncode} {p.stderr.strip()}')
    return p


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    return a == b


def compare(name, got, rows):
    check(len(got) == len(rows), f'{name}: {len(got)} rows, expected {len(rows)}')
    bad = [k for k, (g, e) in enumerate(zip(got, rows)) if not all(same(x, y) for x, y in zip(g, e))]
    check(not bad, f'{name}: {len(bad)} rows differ, first {bad[:1]}: {got[bad[0]] if bad else ""} vs {rows[bad[0]] if bad else ""}')


def stat_text(v):
    """A value as DuckDB's parquet_metadata() prints a statistic."""
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, datetime.date):
        return v.isoformat()
    return v


def parse_stat(s, v):
    if isinstance(v, float):
        return float(s)
    if isinstance(v, decimal.Decimal):
        return decimal.Decimal(s)
    if isinstance(v, int) and not isinstance(v, bool):
        return int(s)
    return s


def check_stats(path, rows):
    """Every column chunk's null_count, min and max (through DuckDB's parquet_metadata)."""
    meta = duckdb.sql(f"SELECT row_group_id, column_id, row_group_num_rows, stats_null_count, "
                      f"stats_min_value, stats_max_value FROM parquet_metadata('{path}') "
                      f"ORDER BY row_group_id, column_id").fetchall()
    starts = {}
    start = 0
    for g, c, n, nulls, mn, mx in meta:
        if g not in starts:
            starts[g] = start
            start += n
        part = rows[starts[g]:starts[g] + n]
        vals = [r[c] for r in part if r[c] is not None]
        check(nulls == len(part) - len(vals), f'{path} rg {g} col {c}: null_count {nulls}')
        if not vals:
            check(mn is None and mx is None, f'{path} rg {g} col {c}: min/max of no values')
            continue
        if COLUMNS[c][1] == 'VARCHAR' and max(len(v.encode()) for v in vals) > 4096:
            check(mn is None, f'{path} rg {g} col {c}: long strings have no min/max')
            continue
        lo, hi = min(vals), max(vals)
        if COLUMNS[c][1] == 'VARCHAR':
            lo = min(vals, key=lambda v: v.encode())
            hi = max(vals, key=lambda v: v.encode())
        check(mn is not None and parse_stat(mn, lo) == stat_text(lo) and parse_stat(mx, hi) == stat_text(hi),
              f'{path} rg {g} col {c}: min/max {mn!r} {mx!r} vs {lo!r} {hi!r}')


def main():
    binary = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix='tessera-parquet-')
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rows = [row(k) for k in range(N)]
    src = os.path.join(work, 'src.csv')
    with open(src, 'w', encoding='utf-8') as f:
        f.write(','.join(n for n, _ in COLUMNS) + '\n')
        for r in rows:
            f.write(','.join(csv_field(v) for v in r) + '\n')
    create = 'CREATE TABLE src (' + ', '.join(f'{n} {t}' for n, t in COLUMNS) + '); '
    load = create + f"COPY src FROM '{src}' (HEADER true, NULL '\\N'); "

    # Each codec: the format from the extension, from FORMAT, through COPY t TO.
    zstd_probe = subprocess.run(
        [binary, '-c', f"COPY (SELECT 1 AS x) TO '{work}/probe.parquet' (COMPRESSION zstd)"],
        capture_output=True, text=True)
    codecs = ['snappy', 'gzip', 'uncompressed']
    if zstd_probe.returncode == 0:
        codecs.append('zstd')
    else:
        check('zstd support was not built in' in zstd_probe.stderr, f'zstd error: {zstd_probe.stderr}')
        check(not os.path.exists(f'{work}/probe.parquet'), 'a failed zstd COPY left a file')
    sql = load
    for c in codecs:
        sql += f"COPY (SELECT * FROM src ORDER BY k) TO '{work}/all_{c}.parquet' (FORMAT parquet, COMPRESSION {c}); "
    sql += f"COPY src TO '{work}/default.parquet'; "
    sql += f"COPY (SELECT * FROM src WHERE k < 0) TO '{work}/empty.parquet'; "
    sql += f"COPY (SELECT i, CAST(NULL AS VARCHAR) AS n, CAST(NULL AS INTEGER) AS m FROM src) TO '{work}/nulls.parquet'; "
    sql += f"COPY (SELECT * FROM src ORDER BY k LIMIT 5000) TO '{work}/small_groups.parquet' (ROW_GROUP_SIZE 1000); "
    run(binary, sql)

    for c in codecs + ['default']:
        path = f'{work}/all_{c}.parquet' if c != 'default' else f'{work}/default.parquet'
        if not os.path.exists(path):
            check(False, f'{path} missing')
            continue
        meta = pq.ParquetFile(path).metadata
        check(meta.num_row_groups == 3 and meta.num_rows == N,
              f'{path}: {meta.num_row_groups} row groups, {meta.num_rows} rows')
        codec = meta.row_group(0).column(0).compression
        check(codec == ('SNAPPY' if c == 'default' else c.upper()), f'{path}: codec {codec}')
        table = pq.read_table(path)
        check(table.column_names == [n for n, _ in COLUMNS], f'{path}: names {table.column_names}')
        cols = [table.column(n).to_pylist() for n, _ in COLUMNS]
        got = list(zip(*cols))
        if c == 'default':  # COPY t TO: in the table's order, which a parallel scan may not keep
            got.sort(key=lambda r: r[0])
        compare(f'{path} (pyarrow)', got, rows)
        compare(f'{path} (duckdb)', duckdb.sql(f"SELECT * FROM '{path}' ORDER BY k").fetchall(), rows)
        if c == 'snappy':
            check_stats(path, rows)
            enc = meta.row_group(0).column(len(COLUMNS) - 1).encodings
            check('RLE_DICTIONARY' in enc, f'{path}: the low-cardinality strings are not dictionary-encoded: {enc}')
            enc = meta.row_group(0).column(len(COLUMNS) - 2).encodings
            check('RLE_DICTIONARY' not in enc, f'{path}: distinct strings dictionary-encoded: {enc}')
            types = [r[1] for r in duckdb.sql(f"DESCRIBE SELECT * FROM '{path}'").fetchall()]
            check(types == [t for _, t in COLUMNS], f'{path}: DuckDB reads the types as {types}')

    t = pq.read_table(f'{work}/empty.parquet')
    check(t.num_rows == 0 and t.column_names == [n for n, _ in COLUMNS], 'empty result')
    check(duckdb.sql(f"SELECT count(*) FROM '{work}/empty.parquet'").fetchone()[0] == 0, 'empty result (duckdb)')
    got = duckdb.sql(f"SELECT count(*), count(n), count(m) FROM '{work}/nulls.parquet'").fetchone()
    check(got == (N, 0, 0), f'all-NULL columns: {got}')
    meta = pq.ParquetFile(f'{work}/small_groups.parquet').metadata
    check(meta.num_row_groups == 5 and meta.num_rows == 5000, f'ROW_GROUP_SIZE: {meta.num_row_groups} groups')
    compare('small_groups (duckdb)', duckdb.sql(f"SELECT * FROM '{work}/small_groups.parquet'").fetchall(), rows[:5000])

    # Errors: a bad option, a missing directory (no file left), an option of CSV.
    run(binary, f"COPY (SELECT 1 AS x) TO '{work}/x.parquet' (COMPRESSION lz77)", 'COMPRESSION')
    run(binary, f"COPY (SELECT 1 AS x) TO '{work}/x.parquet' (HEADER true)", 'does not apply')
    run(binary, f"COPY (SELECT 1 AS x) TO '{work}/nosuch/x.parquet'", 'could not write')
    run(binary, f"COPY (SELECT 1 AS x) TO '{work}/x.parquet' (ROW_GROUP_SIZE 0)", 'ROW_GROUP_SIZE')
    check(not os.path.exists(f'{work}/x.parquet'), 'a failed COPY left a file')
    leftovers = [f for f in os.listdir(work) if '.tmp-' in f]
    check(not leftovers, f'temporary files left: {leftovers}')

    if failures:
        print(f'{len(failures)} failure(s)', file=sys.stderr)
        return 1
    print(f'ok: {N} rows, codecs {", ".join(codecs)}')
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
