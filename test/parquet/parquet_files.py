#!/usr/bin/env python3
"""Parquet files written by pyarrow and by DuckDB, read by tessera and by DuckDB.

  python test/parquet/parquet_files.py TESSERA_BINARY [WORK_DIR] [--keep]

Writes files into WORK_DIR (a temporary directory by default) with every codec
(uncompressed, snappy, gzip, zstd, lz4, brotli), encoding (dictionary, plain,
DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT), data
page v1 and v2, small pages, several row groups and row groups of more than 131072 rows,
every supported type with NULLs, an all-NULL column and an empty file; runs the same
queries on tessera (`tessera --csv -c`) and DuckDB and compares the rows (doubles to 12
significant digits: tessera reads FLOAT as DOUBLE). Then files that must fail: truncated,
corrupt footer, not Parquet, nested and INT96 timestamp columns, mismatched schemas, unknown
option; each must give an error naming the problem (and no crash). Also: the same query
three times in one process (streamed, decoded to keep, reused) against one run; LIMIT
across row groups; a corrupt row group met mid-scan (an error, no rows); count(*) from
the footer.
Prints PASS / FAIL per case (SKIP for a file whose codec's shared library, libzstd,
liblz4 or libbrotlidec, this machine lacks); exits 1 when any fails.
"""
import argparse
import decimal
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'duckdb'))
from diff_common import TesseraError, compare, duck_rows, parse_csv, run_tessera, tessera_text  # noqa: E402


def make_table(n, seed=1):
    """n rows of every supported type, about one in 7 rows NULL per column."""
    def nulls(vals, k):
        return [None if (i * 7 + k) % 11 == 0 else v for i, v in enumerate(vals)]
    idx = list(range(n))
    cols = {
        'i8': pa.array(nulls([(i * 37 + seed) % 256 - 128 for i in idx], 1), pa.int8()),
        'i16': pa.array(nulls([(i * 7919) % 65536 - 32768 for i in idx], 2), pa.int16()),
        'i32': pa.array(nulls([(i * 2654435761) % (1 << 32) - (1 << 31) for i in idx], 3), pa.int32()),
        'i64': pa.array(nulls([i * 1000003 - 5 * n for i in idx], 4), pa.int64()),
        'u8': pa.array(nulls([i % 256 for i in idx], 5), pa.uint8()),
        'u16': pa.array(nulls([(i * 31) % 65536 for i in idx], 6), pa.uint16()),
        'u32': pa.array(nulls([(i * 2654435761) % (1 << 32) for i in idx], 7), pa.uint32()),
        'f32': pa.array(nulls([i / 8.0 - 3.25 for i in idx], 8), pa.float32()),
        'f64': pa.array(nulls([i * 1.0001 - 17.5 for i in idx], 9), pa.float64()),
        'b': pa.array(nulls([i % 3 == 0 for i in idx], 10), pa.bool_()),
        's': pa.array(nulls([f'str{i * 13 % 100003}-{"x" * (i % 5)}' for i in idx], 0), pa.string()),
        'sd': pa.array(nulls([['apple', 'pear', 'fig', '', 'kiwi'][i % 5] for i in idx], 1), pa.string()),
        'd': pa.array(nulls([(i * 3) % 40000 - 5000 for i in idx], 2), pa.int32()).cast(pa.date32()),
        'dec9': pa.array(nulls([decimal.Decimal(i * 7 - n).scaleb(-2) for i in idx], 3), pa.decimal128(9, 2)),
        'dec18': pa.array(nulls([decimal.Decimal(i * 123456789 - n).scaleb(-4) for i in idx], 4), pa.decimal128(18, 4)),
        'dec30': pa.array(nulls([decimal.Decimal(i * 98765432109876 - n).scaleb(-5) for i in idx], 5),
                          pa.decimal128(30, 5)),
        'allnull': pa.array([None] * n, pa.int32()),
    }
    return pa.table(cols)


QUERIES = [
    'SELECT * FROM {f}',
    'SELECT count(*), count(i32), min(i64), max(s), sum(dec18), min(d), max(dec30), sum(u32), count(allnull) FROM {f}',
    'SELECT sd, count(*), sum(i16) FROM {f} GROUP BY sd',
    'SELECT count(*), sum(i64) FROM {f} WHERE i64 > 50000150000',
    'SELECT s, dec9 FROM {f} WHERE s >= \'str9\' AND s < \'str91\'',
]

FLOAT_FREE = {'f32', 'f64'}


def pyarrow_files(d, big):
    t = make_table(20000)
    out = {}
    for codec in ['none', 'snappy', 'gzip', 'zstd', 'lz4', 'brotli']:
        f = d / f'pa_{codec}.parquet'
        pq.write_table(t, f, compression=codec, row_group_size=7000)
        out[f.name] = f
    f = d / 'pa_plain_v2.parquet'
    pq.write_table(t, f, use_dictionary=False, data_page_version='2.0', compression='snappy', row_group_size=9000)
    out[f.name] = f
    f = d / 'pa_dict_v2_smallpages.parquet'
    pq.write_table(t, f, data_page_version='2.0', data_page_size=512, compression='zstd', row_group_size=6000)
    out[f.name] = f
    f = d / 'pa_plain_v1_smallpages.parquet'
    pq.write_table(t, f, use_dictionary=False, data_page_size=700, compression='none', row_group_size=20000)
    out[f.name] = f
    enc = {'i32': 'DELTA_BINARY_PACKED', 'i64': 'DELTA_BINARY_PACKED', 'i8': 'DELTA_BINARY_PACKED',
           'u32': 'DELTA_BINARY_PACKED', 'd': 'DELTA_BINARY_PACKED', 'dec30': 'DELTA_BYTE_ARRAY',
           's': 'DELTA_LENGTH_BYTE_ARRAY', 'sd': 'DELTA_BYTE_ARRAY',
           'f32': 'BYTE_STREAM_SPLIT', 'f64': 'BYTE_STREAM_SPLIT'}
    for v in ['1.0', '2.0']:
        f = d / f'pa_delta_v{v[0]}.parquet'
        pq.write_table(t, f, use_dictionary=False, column_encoding=enc, data_page_version=v,
                       compression='snappy', row_group_size=8000, data_page_size=4096)
        out[f.name] = f
    f = d / 'pa_decimal_as_int.parquet'  # DECIMAL on INT32 / INT64 (and FLBA past 18 digits)
    pq.write_table(t, f, store_decimal_as_integer=True, compression='gzip', row_group_size=10000)
    out[f.name] = f
    f = d / 'pa_empty.parquet'
    pq.write_table(make_table(0), f)
    out[f.name] = f
    if big:
        f = d / 'pa_big_groups.parquet'  # 300000-row groups: three slices of at most 131072
        pq.write_table(make_table(300000, seed=3), f, row_group_size=300000, compression='snappy')
        out[f.name] = f
    return out


def duckdb_files(d, con, src):
    out = {}
    con.execute(f"CREATE TABLE src AS SELECT * FROM read_parquet('{src}')")
    for codec in ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'brotli']:
        f = d / f'duck_{codec}.parquet'
        con.execute(f"COPY src TO '{f}' (FORMAT parquet, COMPRESSION {codec}, ROW_GROUP_SIZE 5000)")
        out[f.name] = f
    f = d / 'duck_v2.parquet'
    con.execute(f"COPY src TO '{f}' (FORMAT parquet, PARQUET_VERSION V2, ROW_GROUP_SIZE 6000)")
    out[f.name] = f
    f = d / 'duck_big.parquet'
    con.execute(f"COPY (SELECT range AS id, range % 1000 AS k, 'v' || (range % 77) AS s FROM range(400000)) "
                f"TO '{f}' (FORMAT parquet, ROW_GROUP_SIZE 400000)")
    out[f.name] = f
    return out


def run_case(tessera, con, sql_t, sql_d):
    c = con.execute(sql_d)
    names, types, d_rows = duck_rows(c)
    csv = parse_csv(run_tessera(tessera, ['--csv', '-c', sql_t], 'tessera', 120))
    header = csv.pop(0)
    if len(header) != len(names):
        return f'tessera returned {len(header)} columns, DuckDB {len(names)}'
    t_rows = [[tessera_text(v, types[i]) for i, v in enumerate(row)] for row in csv]
    return compare(sql_d, t_rows, d_rows, names)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tessera')
    ap.add_argument('work', nargs='?')
    ap.add_argument('--keep', action='store_true')
    ap.add_argument('--no-big', action='store_true')
    a = ap.parse_args()
    tessera = str(Path(a.tessera).resolve())
    work = Path(a.work).resolve() if a.work else Path(tempfile.mkdtemp(prefix='parquet-files-'))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    con = duckdb.connect(':memory:')
    files = pyarrow_files(work, not a.no_big)
    files.update(duckdb_files(work, con, files['pa_none.parquet']))
    failed = 0
    for name, f in sorted(files.items()):
        cols = [c[0] for c in con.execute(f"DESCRIBE SELECT * FROM '{f}'").fetchall()]
        for q in QUERIES:
            if any(c not in cols for c in ['i32', 's', 'dec18']) and q != QUERIES[0]:
                continue
            sql = q.format(f=f"'{f}'")
            try:
                diff = run_case(tessera, con, sql, sql)
            except (TesseraError, duckdb.Error) as e:
                diff = 'ERROR ' + str(e).split('\n')[0]
                if 'could not be loaded' in diff:  # libzstd / liblz4 / libbrotlidec missing here
                    print(f'SKIP {name}: {diff}', flush=True)
                    break
            status = 'PASS' if diff is None else 'FAIL'
            failed += diff is not None
            print(f'{status} {name}: {sql[:90]}' + (f'\n     {diff}' if diff else ''), flush=True)
    # read_parquet over a glob and a list: the files' row groups concatenated.
    glob = str(work / 'pa_[gs]*.parquet')
    for sql in [f"SELECT count(*), sum(i64), max(s) FROM read_parquet('{glob}')",
                f"SELECT count(*), min(dec30) FROM read_parquet(['{files['pa_none.parquet']}', "
                f"'{files['duck_snappy.parquet']}'], binary_as_string = true)"]:
        try:
            diff = run_case(tessera, con, sql, sql)
        except (TesseraError, duckdb.Error) as e:
            diff = 'ERROR ' + str(e).split('\n')[0]
        failed += diff is not None
        print(f"{'PASS' if diff is None else 'FAIL'} {sql[:100]}" + (f'\n     {diff}' if diff else ''), flush=True)

    # COPY t FROM a Parquet file: columns by position, cast to the table's types.
    big = files['duck_big.parquet']
    sql_t = (f"CREATE TABLE t(id BIGINT, k INTEGER, s VARCHAR); COPY t FROM '{big}'; "
             "SELECT count(*), sum(k), max(s), min(id) FROM t")
    sql_d = f"SELECT count(*), sum(k), max(s), min(id) FROM '{big}'"
    try:
        diff = run_case(tessera, con, sql_t, sql_d)
    except (TesseraError, duckdb.Error) as e:
        diff = 'ERROR ' + str(e).split('\n')[0]
    failed += diff is not None
    print(f"{'PASS' if diff is None else 'FAIL'} COPY t FROM Parquet" + (f'\n     {diff}' if diff else ''), flush=True)

    # The same query three times in one process: the first scan streams the file, the
    # second decodes it to keep, the third reuses what was kept; all three give the rows
    # a fresh process gives (checked against DuckDB above). Slices of row groups of more
    # than 131072 rows share their chunk's bytes (pa_big_groups, duck_big).
    again = ['pa_snappy.parquet', 'pa_dict_v2_smallpages.parquet', 'pa_delta_v2.parquet', 'duck_big.parquet']
    if 'pa_big_groups.parquet' in files:
        again.append('pa_big_groups.parquet')
    for name in again:
        f = files[name]
        cols = [c[0] for c in con.execute(f"DESCRIBE SELECT * FROM '{f}'").fetchall()]
        sql = (QUERIES[1] if 'dec30' in cols else 'SELECT count(*), sum(id), max(s), min(k) FROM {f}').format(f=f"'{f}'")
        try:
            once = run_tessera(tessera, ['--csv', '-c', sql], 'tessera', 120)
            thrice = run_tessera(tessera, ['--csv', '-c', sql, '-c', sql, '-c', sql], 'tessera', 120)
            ok = thrice == once * 3
            msg = '' if ok else f'{once!r} then {thrice!r}'
        except TesseraError as e:
            ok, msg = False, str(e)
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} read again in one process: {name}" + (f'\n     {msg[:300]}' if msg else ''),
              flush=True)

    # LIMIT without a filter stops at the row groups it needs; across row groups and slices.
    limit_files = ['duck_big.parquet', 'pa_snappy.parquet'] + (['pa_big_groups.parquet'] if 'pa_big_groups.parquet' in files else [])
    for name in limit_files:
        f = files[name]
        for lim, off in [(3, 0), (5, 6998), (4, 131070), (3, 262142), (10, 399995)]:
            sql = f"SELECT * FROM '{f}' LIMIT {lim} OFFSET {off}"
            try:
                diff = run_case(tessera, con, sql, sql)
            except (TesseraError, duckdb.Error) as e:
                diff = 'ERROR ' + str(e).split('\n')[0]
            failed += diff is not None
            print(f"{'PASS' if diff is None else 'FAIL'} {sql[-60:]}" + (f'\n     {diff}' if diff else ''), flush=True)

    # A column chunk of the last row group corrupt: the query fails naming the file, the
    # column and the row group, after the scan streamed the groups before it, and prints no
    # row (the CSV header may be out already); count(*) reads only the footer and answers.
    f = work / 'corrupt_last_group.parquet'
    pq.write_table(pa.table({'a': pa.array(range(30000), pa.int64()), 'b': pa.array(range(30000), pa.int64())}), f,
                   compression='snappy', row_group_size=10000, use_dictionary=False)
    md = pq.ParquetFile(f).metadata
    cc = md.row_group(md.num_row_groups - 1).column(0)
    data = bytearray(f.read_bytes())
    start = cc.data_page_offset + 40  # past the page header, inside the snappy block
    for i in range(start, start + 200):
        data[i] = 0xff
    f.write_bytes(bytes(data))
    r = subprocess.run([tessera, '--csv', '--threads', '1', '-c', f"SELECT sum(a), count(*) FROM '{f}'"],
                       capture_output=True, text=True, timeout=60)
    ok = (r.returncode != 0 and 'Parquet file' in r.stderr and 'row group 2' in r.stderr and '"a"' in r.stderr
          and len(r.stdout.split()) <= 1 and 'internal' not in r.stderr.lower())  # the header at most
    failed += not ok
    print(f"{'PASS' if ok else 'FAIL'} corrupt last row group: exit {r.returncode} {r.stderr.strip()[:160]!r} "
          f"stdout {r.stdout.strip()[:80]!r}", flush=True)
    r = subprocess.run([tessera, '--csv', '-c', f"SELECT count(*) FROM '{f}'"], capture_output=True, text=True, timeout=60)
    ok = r.returncode == 0 and r.stdout.split() == ['count_star()', '30000']
    failed += not ok
    print(f"{'PASS' if ok else 'FAIL'} count(*) from the footer of that file: {r.stdout.strip()!r} {r.stderr.strip()[:120]!r}",
          flush=True)

    # A file changed between two queries of one process is read again (not the decoded
    # chunks kept from the first).
    f = work / 'changing.parquet'
    shutil.copy(files['pa_snappy.parquet'], f)
    try:
        out = run_tessera(tessera, ['--csv', '-c', f"SELECT count(*) FROM '{f}'", '-c',
                                    f"COPY (SELECT 1 AS a) TO '{f}' (FORMAT csv)", '-c', f"SELECT count(*) FROM '{f}'"],
                          'tessera', 60)
        ok, msg = False, f'the changed file was not read again: {out!r}'
    except TesseraError as e:
        msg = str(e)
        ok = 'too small to be a Parquet file' in msg
    failed += not ok
    print(f"{'PASS' if ok else 'FAIL'} a changed file is read again\n     {msg[:160]}", flush=True)

    # Files that must fail with a clear error.
    good = files['pa_snappy.parquet'].read_bytes()
    bad = {}
    bad['truncated.parquet'] = (good[:len(good) // 2], 'truncated')
    bad['truncated_tail.parquet'] = (good[:-3], 'truncated')
    corrupt = bytearray(good)
    flen = int.from_bytes(good[-8:-4], 'little')
    for i in range(len(good) - 8 - flen, len(good) - 8, 3):
        corrupt[i] = 0xff
    bad['corrupt_footer.parquet'] = (bytes(corrupt), 'corrupt')
    bad['not_parquet.parquet'] = (b'hello, world\n' * 10, 'not a Parquet file')
    bad['empty_bytes.parquet'] = (b'', 'too small')
    for name, (data, _) in bad.items():
        (work / name).write_bytes(data)
    nested = work / 'nested.parquet'
    pq.write_table(pa.table({'a': [1, 2], 'l': [[1], [2, 3]]}), nested)
    bad[nested.name] = (None, 'nested')
    ts = work / 'int96.parquet'  # INT96 timestamps are not read yet
    pq.write_table(pa.table({'t': pa.array([0], pa.timestamp('ns'))}), ts, use_deprecated_int96_timestamps=True)
    bad[ts.name] = (None, 'INT96')
    other = work / 'other_schema.parquet'
    pq.write_table(pa.table({'x': [1]}), other)
    cases = [(f"SELECT * FROM '{work / n}'", why) for n, (_, why) in bad.items()]
    cases.append((f"CREATE TABLE t(a INTEGER); COPY t FROM '{big}'", 'has 3'))
    cases.append((f"CREATE TABLE t(a INTEGER, b INTEGER, c INTEGER); COPY t FROM '{big}' (FORMAT parquet); "
                  "SELECT count(*) FROM t", 'could not convert'))
    cases.append((f"SELECT * FROM read_parquet(['{files['pa_none.parquet']}', '{other}'])", 'different schemas'))
    cases.append((f"SELECT * FROM read_parquet('{files['pa_none.parquet']}', nonsense = 1)", 'unknown read_parquet option'))
    for sql, why in cases:
        try:
            run_tessera(tessera, ['--csv', '-c', sql], 'tessera', 60)
            ok, msg = False, 'no error'
        except TesseraError as e:
            msg = str(e)
            ok = why.lower() in msg.lower() and 'internal' not in msg.lower()
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} error case: {sql[:80]}\n     {msg[:200]}", flush=True)
    # Pages overwritten with garbage: an error naming the file, or values, never a crash.
    for codec in ['none', 'snappy', 'gzip']:
        data = bytearray(files[f'pa_{codec}.parquet'].read_bytes())
        for i in range(200, len(data) // 2, 97):
            data[i] = (data[i] * 31 + 7) & 0xff
        f = work / f'garbage_{codec}.parquet'
        f.write_bytes(bytes(data))
        sql = f"SELECT count(*), max(s), sum(i64), min(dec30), max(sd) FROM '{f}'"
        r = subprocess.run([tessera, '--csv', '-c', sql], capture_output=True, text=True, timeout=60)
        ok = r.returncode == 0 or ('Parquet file' in r.stderr and 'internal' not in r.stderr.lower())
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} garbage pages ({codec}): exit {r.returncode} {r.stderr.strip()[:160]}",
              flush=True)
    if not a.keep and not a.work:
        shutil.rmtree(work, ignore_errors=True)
    print('all passed' if not failed else f'{failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
