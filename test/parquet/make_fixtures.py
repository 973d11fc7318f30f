#!/usr/bin/env python3
"""Writes the small Parquet files of test/sql/data/parquet (committed; run again only to
change them): the same 300 rows of every supported type with NULLs, written by pyarrow
and by DuckDB with different encodings and row groups, so the SQL logic tests in
test/sql/parquet read them without Python. Only the codecs tessera always has (none,
snappy, gzip): zstd, lz4 and brotli need shared libraries a machine may lack, and
test/parquet/parquet_files.py covers them.

  python test/parquet/make_fixtures.py [OUT_DIR]   (default test/sql/data/parquet)
"""
import decimal
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq


def table(n):
    def nulls(vals, k):
        return [None if (i * 7 + k) % 11 == 0 else v for i, v in enumerate(vals)]
    idx = list(range(n))
    return pa.table({
        'id': pa.array(idx, pa.int32()),
        'i8': pa.array(nulls([(i * 37) % 256 - 128 for i in idx], 1), pa.int8()),
        'i64': pa.array(nulls([i * 1000003 - 5 * n for i in idx], 4), pa.int64()),
        'u32': pa.array(nulls([(i * 2654435761) % (1 << 32) for i in idx], 7), pa.uint32()),
        'f64': pa.array(nulls([i * 0.25 - 17.5 for i in idx], 9), pa.float64()),
        'b': pa.array(nulls([i % 3 == 0 for i in idx], 10), pa.bool_()),
        's': pa.array(nulls([f'str{i * 13 % 1009}' for i in idx], 0), pa.string()),
        'sd': pa.array(nulls([['apple', 'pear', 'fig', '', 'kiwi'][i % 5] for i in idx], 1), pa.string()),
        'd': pa.array(nulls([(i * 3) % 40000 - 5000 for i in idx], 2), pa.int32()).cast(pa.date32()),
        'dec9': pa.array(nulls([decimal.Decimal(i * 7 - n).scaleb(-2) for i in idx], 3), pa.decimal128(9, 2)),
        'dec30': pa.array(nulls([decimal.Decimal(i * 98765432109876 - n).scaleb(-5) for i in idx], 5),
                          pa.decimal128(30, 5)),
    })


def timestamps(out):
    """TIMESTAMP and TIME columns in every unit (pyarrow: ms, us, ns, with and without a
    UTC zone; time32 ms, time64 us and ns), with NULLs and times before 1970."""
    import datetime
    base = datetime.datetime(1969, 12, 31, 22, 0, 0)
    vals = [None if i % 5 == 3 else base + datetime.timedelta(hours=7 * i, microseconds=1001 * i) for i in range(40)]
    times = [None if v is None else v.time() for v in vals]
    t = pa.table({
        'id': pa.array(range(40), pa.int32()),
        'ts_ms': pa.array(vals, pa.timestamp('us')).cast(pa.timestamp('ms'), safe=False),
        'ts_us': pa.array(vals, pa.timestamp('us')),
        'ts_ns': pa.array(vals, pa.timestamp('us')).cast(pa.timestamp('ns')),
        't_ms': pa.array(times, pa.time64('us')).cast(pa.time32('ms'), safe=False),
        't_us': pa.array(times, pa.time64('us')),
        't_ns': pa.array(times, pa.time64('us')).cast(pa.time64('ns')),
    })
    pq.write_table(t, out / 'ts_pa.parquet', row_group_size=16)
    pq.write_table(t, out / 'ts_pa_plain.parquet', use_dictionary=False, row_group_size=16)
    pq.write_table(pa.table({'ts_utc': pa.array(vals, pa.timestamp('us', tz='UTC'))}), out / 'ts_pa_utc.parquet')


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / 'sql' / 'data' / 'parquet'
    out.mkdir(parents=True, exist_ok=True)
    t = table(300)
    pq.write_table(t, out / 'pa_snappy_dict.parquet', compression='snappy', row_group_size=100)
    pq.write_table(t, out / 'pa_none_delta_v2.parquet', compression='none', use_dictionary=False,
                   data_page_version='2.0', data_page_size=256, row_group_size=128,
                   column_encoding={'id': 'DELTA_BINARY_PACKED', 'i64': 'DELTA_BINARY_PACKED',
                                    's': 'DELTA_BYTE_ARRAY', 'sd': 'DELTA_LENGTH_BYTE_ARRAY',
                                    'f64': 'BYTE_STREAM_SPLIT'})
    pq.write_table(t, out / 'pa_gzip_plain.parquet', compression='gzip', use_dictionary=False,
                   store_decimal_as_integer=True)
    pq.write_table(t.slice(0, 0), out / 'pa_empty.parquet')
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_parquet('{out / 'pa_gzip_plain.parquet'}')")
    con.execute(f"COPY t TO '{out / 'duck_snappy.parquet'}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 64)")
    con.execute(f"COPY t TO '{out / 'duck_gzip_v2.parquet'}' (FORMAT parquet, COMPRESSION gzip, PARQUET_VERSION V2)")
    con.execute(f"COPY (SELECT 1 AS a, [1, 2] AS l) TO '{out / 'nested.parquet'}' (FORMAT parquet)")
    con.execute(f"COPY (SELECT 1 AS a, TIMESTAMP '2020-01-01 10:00:00' AS ts) TO '{out / 'timestamp.parquet'}' "
                "(FORMAT parquet)")
    timestamps(out)
    good = (out / 'pa_snappy_dict.parquet').read_bytes()
    (out / 'truncated.parquet').write_bytes(good[:len(good) // 2])


if __name__ == '__main__':
    main()
