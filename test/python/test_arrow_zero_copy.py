"""Arrow import without copying (register shares the Arrow buffers) and the Arrow export's
large batches: round trips pyarrow -> tessera -> pyarrow for every supported type with
NULLs, over several row groups, slices, many chunks and empty tables; buffer addresses;
the data's lifetime."""
import datetime
import gc
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

ROWS = 300_000  # three row groups (131072 rows each)


def with_nulls(values, every=7):
    return [None if i % every == 3 else v for i, v in enumerate(values)]


def column(atype, n):
    """n values of `atype` with NULLs, and the type tessera gives back."""
    i = np.arange(n)
    if atype == pa.bool_():
        return pa.array(with_nulls((i % 3 == 0).tolist()), atype), pa.bool_()
    if pa.types.is_integer(atype):
        info = np.iinfo(atype.to_pandas_dtype())
        hi = min(int(info.max), 2**63 - 1)
        vals = [int(info.min) if k % 11 == 0 else (hi if k % 13 == 0 else int(k % 100) - (0 if info.min == 0 else 50))
                for k in range(n)]
        back = {8: pa.int32(), 16: pa.int32(), 32: pa.int32(), 64: pa.int64()}[atype.bit_width]
        if not pa.types.is_signed_integer(atype) and atype.bit_width == 32:
            back = pa.int64()
        return pa.array(with_nulls(vals), atype), back
    if pa.types.is_floating(atype):
        return pa.array(with_nulls((i * 0.25 - 7).tolist()), atype), pa.float64()
    if pa.types.is_decimal(atype):
        scale = atype.scale
        vals = [Decimal(k * 1234567 % 10 ** (atype.precision - 1) - 99).scaleb(-scale) for k in range(n)]
        return pa.array(with_nulls(vals), atype), atype
    if atype == pa.date32():
        return pa.array(with_nulls([datetime.date(1950, 1, 1) + datetime.timedelta(days=int(k % 40000))
                                    for k in range(n)]), atype), pa.date32()
    if atype in (pa.string(), pa.large_string(), pa.string_view()):
        return pa.array(with_nulls(["s%d" % k if k % 5 else "" for k in range(n)]), atype), pa.string()
    raise AssertionError(atype)


TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(),
         pa.float32(), pa.float64(), pa.decimal128(9, 2), pa.decimal128(18, 4), pa.decimal128(30, 3),
         pa.date32(), pa.bool_(), pa.string(), pa.large_string(), pa.string_view()]


def expected(arr, back):
    if arr.type == pa.string_view():
        return pa.array(arr.to_pylist(), back)
    return arr.cast(back)


def read_back(con, name="t", col="v"):
    return con.execute("SELECT %s FROM %s ORDER BY k" % (col, name)).arrow().column(col).combine_chunks()


@pytest.mark.parametrize("atype", TYPES, ids=str)
def test_round_trip_every_type(con, atype):
    arr, back = column(atype, ROWS)
    con.register("t", pa.table({"v": arr, "k": pa.array(np.arange(ROWS, dtype=np.int64))}))
    assert read_back(con).equals(expected(arr, back))
    # statistics are computed: pruning by min/max and NULL counts gives the same answers
    got = con.execute("SELECT COUNT(*), COUNT(v) FROM t").fetchone()
    assert got == (ROWS, ROWS - arr.null_count)


@pytest.mark.parametrize("atype", [pa.int64(), pa.float64(), pa.int32(), pa.date32(), pa.decimal128(30, 3),
                                   pa.string(), pa.large_string(), pa.bool_()], ids=str)
@pytest.mark.parametrize("start", [0, 64, 1000, 131072 + 5])
def test_slices(con, atype, start):
    arr, back = column(atype, ROWS)
    table = pa.table({"v": arr, "k": pa.array(np.arange(ROWS, dtype=np.int64))}).slice(start, ROWS - start - 333)
    con.register("t", table)
    assert read_back(con).equals(expected(arr, back).slice(start, ROWS - start - 333))


def test_many_chunks(con):
    arr, back = column(pa.int64(), 50_000)
    s, sback = column(pa.string(), 50_000)
    table = pa.table({"v": arr, "s": s, "k": pa.array(np.arange(50_000, dtype=np.int64))})
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=97))  # 516 batches
    assert chunked.column("v").num_chunks > 500
    con.register("t", chunked)
    assert read_back(con).equals(expected(arr, back))
    assert read_back(con, col="s").equals(expected(s, sback))
    # small batches are packed into full row groups
    assert len(con._admin._column_addresses("t", 0)) == 1
    # a mix of large and small batches keeps its row order
    mixed = pa.Table.from_batches(table.slice(0, 20_000).to_batches(max_chunksize=20_000) +
                                  table.slice(20_000, 100).to_batches(max_chunksize=10) +
                                  table.slice(20_100).to_batches(max_chunksize=10_000))
    con.register("t", mixed)
    assert read_back(con).equals(expected(arr, back))


def test_empty_tables(con):
    con.register("t", pa.table({"v": pa.array([], pa.int64()), "s": pa.array([], pa.string())}))
    assert con.execute("SELECT COUNT(*), SUM(v), MIN(s) FROM t").fetchone() == (0, None, None)
    got = con.execute("SELECT * FROM t").arrow()
    assert got.num_rows == 0 and got.schema.names == ["v", "s"]
    empty_batches = pa.Table.from_batches([pa.record_batch({"v": pa.array([], pa.int64())})] * 3)
    assert con.register("t", empty_batches) == 0


def test_dictionaries(con):
    values = with_nulls(["red", "green", "blue", None, "green"] * 30_000)
    strings = pa.array(values).dictionary_encode()
    ints = pa.DictionaryArray.from_arrays(pa.array([i % 3 for i in range(1000)], pa.int8()),
                                          pa.array([10, None, 30], pa.int64()))
    con.register("t", pa.table({"v": strings, "k": pa.array(np.arange(len(values)))}))
    assert read_back(con).equals(pa.array(values, pa.string()))
    assert con.execute("SELECT v, COUNT(*) FROM t GROUP BY v ORDER BY v NULLS LAST").fetchall() == \
        [("blue", 25714), ("green", 51429), ("red", 25714), (None, 47143)]
    con.register("u", pa.table({"v": ints, "k": pa.array(np.arange(1000))}))
    assert read_back(con, "u").to_pylist() == [[10, None, 30][i % 3] for i in range(1000)]
    # a large_string dictionary through a chunked array, and a polars categorical
    large = pa.chunked_array([pa.array(["a", "b", None]).dictionary_encode().cast(
        pa.dictionary(pa.int32(), pa.large_string()))] * 4)
    con.register("w", pa.table({"v": large}))
    assert con.execute("SELECT COUNT(v), MIN(v), MAX(v) FROM w").fetchone() == (8, "a", "b")


def _addresses(arr):
    return arr.buffers()[1].address + arr.offset * (arr.type.bit_width // 8)


@pytest.mark.parametrize("atype", [pa.int64(), pa.float64(), pa.int32(), pa.date32(), pa.decimal128(30, 3)],
                         ids=str)
def test_import_is_zero_copy(con, atype):
    arr, _ = column(atype, ROWS)
    con.register("t", pa.table({"v": arr}))
    width = arr.type.bit_width // 8
    base = _addresses(arr)
    assert con._admin._column_addresses("t", 0) == [base + g * 131072 * width for g in range(3)]


def test_strings_share_offsets(con):
    arr, _ = column(pa.string(), ROWS)
    con.register("t", pa.table({"v": arr}))
    base = arr.buffers()[1].address
    assert con._admin._column_addresses("t", 0) == [base + g * 131072 * 4 for g in range(3)]


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/statm"), reason="needs /proc")
def test_import_allocates_nothing_for_shared_columns(con):
    n = 5_000_000  # 80 MB of values
    table = pa.table({"v": pa.array(np.arange(n, dtype=np.int64)), "w": pa.array(np.ones(n))})
    gc.collect()
    before = _rss()
    con.register("t", table)
    assert _rss() - before < 8_000_000  # row groups and statistics only
    assert con.execute("SELECT SUM(v), SUM(w) FROM t").fetchone() == (n * (n - 1) // 2, n * 1.0)


def test_data_outlives_the_python_object(con):
    n = 1_000_000
    table = pa.table({"v": pa.array(np.arange(n, dtype=np.int64)),
                      "s": pa.array(["x%d" % i for i in range(n)])})
    before = pa.total_allocated_bytes()
    con.register("t", table)
    del table
    gc.collect()
    # the buffers are still held (by the registered table), and still right
    assert pa.total_allocated_bytes() >= before
    junk = [np.full(1_000_000, 7, dtype=np.int64) for _ in range(8)]  # reuse freed memory, if any
    assert con.execute("SELECT SUM(v), MAX(s), COUNT(*) FROM t").fetchone() == (n * (n - 1) // 2, "x999999", n)
    del junk
    # and released once the table goes
    assert con.unregister("t")
    gc.collect()
    assert pa.total_allocated_bytes() < before - 10_000_000  # the strings (pyarrow's memory pool)


def test_replacement_scan_shares_and_releases(con):
    frame = pa.table({"v": pa.array(np.arange(1000, dtype=np.int64))})
    assert con.sql("SELECT SUM(v) FROM frame").fetchone() == (499500,)
    assert not con.unregister("frame")


def test_pandas_register_copies(con):
    import pandas as pd

    df = pd.DataFrame({"v": np.arange(10, dtype=np.int64)})
    con.register("t", df)
    df.loc[0, "v"] = 100  # the registered table does not see later changes
    assert con.execute("SELECT SUM(v), MAX(v) FROM t").fetchone() == (45, 9)


def test_export_large_batches(con):
    n = 3_000_000
    v = pa.array(with_nulls(list(range(n)), every=1000), pa.int64())
    con.register("t", pa.table({"v": v, "d": pa.array(np.arange(n) * 0.5), "s": pa.array(["a"] * n)}))
    got = con.execute("SELECT * FROM t ORDER BY d").arrow()
    assert got.num_rows == n
    assert got.column("v").num_chunks == 3  # 1048576-row batches
    assert got.column("v").equals(pa.chunked_array([v]))
    assert got.column("d").combine_chunks().equals(pa.array(np.arange(n) * 0.5))
    # a one-chunk result: its fixed-width columns are shared, and outlive the cursor
    small = con.execute("SELECT v, d FROM t WHERE d < 50 ORDER BY d").arrow()
    con.execute("SELECT 1")
    gc.collect()
    assert small.column("v").to_pylist() == [None if i % 1000 == 3 else i for i in range(100)]
