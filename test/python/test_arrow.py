"""Arrow, pandas, polars and numpy in and out."""
import datetime
from decimal import Decimal

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import tessera

# (arrow type, values with a NULL, the type tessera gives back)
ROUND_TRIP = [
    (pa.bool_(), [True, None, False], pa.bool_()),
    (pa.int8(), [-128, None, 127], pa.int32()),
    (pa.int16(), [-32768, None, 32767], pa.int32()),
    (pa.int32(), [-2**31, None, 2**31 - 1], pa.int32()),
    (pa.int64(), [-2**63, None, 2**63 - 1], pa.int64()),
    (pa.uint8(), [0, None, 255], pa.int32()),
    (pa.uint16(), [0, None, 65535], pa.int32()),
    (pa.uint32(), [0, None, 2**32 - 1], pa.int64()),
    (pa.uint64(), [0, None, 2**63 - 1], pa.int64()),
    (pa.float32(), [1.5, None, -0.25], pa.float64()),
    (pa.float64(), [1e300, None, -2.5], pa.float64()),
    (pa.decimal128(10, 2), [Decimal("12345678.90"), None, Decimal("-0.01")], pa.decimal128(10, 2)),
    (pa.decimal128(18, 0), [Decimal("999999999999999999"), None, Decimal("-1")], pa.decimal128(18, 0)),
    (pa.decimal128(38, 10), [Decimal("1234567890123456789012345678.0123456789"), None, Decimal("-1.5")],
     pa.decimal128(38, 10)),
    (pa.date32(), [datetime.date(1970, 1, 1), None, datetime.date(1969, 12, 31)], pa.date32()),
    (pa.date64(), [datetime.date(2024, 2, 29), None, datetime.date(1900, 3, 1)], pa.date32()),
    (pa.timestamp("us"), [datetime.datetime(2020, 2, 29, 13, 14, 15, 123456), None,
                          datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)], pa.timestamp("us")),
    (pa.timestamp("ms"), [datetime.datetime(2020, 2, 29, 13, 14, 15, 123000), None,
                          datetime.datetime(1969, 12, 31, 23, 59, 59, 999000)], pa.timestamp("us")),
    (pa.timestamp("s"), [datetime.datetime(2020, 2, 29, 13, 14, 15), None, datetime.datetime(1900, 1, 1)],
     pa.timestamp("us")),
    (pa.time64("us"), [datetime.time(13, 14, 15, 123456), None, datetime.time(0, 0)], pa.time64("us")),
    (pa.time32("ms"), [datetime.time(13, 14, 15, 123000), None, datetime.time(23, 59, 59)], pa.time64("us")),
    (pa.string(), ["a", None, "héllo ☃ " * 3], pa.string()),
    (pa.large_string(), ["", None, "x" * 100], pa.string()),
    (pa.string_view(), ["short", None, "a string longer than twelve bytes"], pa.string()),
]


@pytest.mark.parametrize("atype,values,back", ROUND_TRIP, ids=[str(t[0]) for t in ROUND_TRIP])
def test_type_round_trip(con, atype, values, back):
    table = pa.table({"v": pa.array(values, atype), "k": pa.array([0, 1, 2], pa.int32())})
    assert con.register("t", table) == 3
    got = con.execute("SELECT v FROM t ORDER BY k").arrow()
    assert got.schema.field("v").type == back
    expected = pa.array(values, atype).cast(back) if atype != pa.string_view() else pa.array(values, back)
    assert got.column("v").combine_chunks() == expected
    # and the Python values through fetchall
    assert [r[0] for r in con.execute("SELECT v FROM t ORDER BY k").fetchall()] == \
        expected.to_pylist()


def test_many_batches_and_offsets(con):
    n = 300_000
    table = pa.table({"x": pa.array(np.arange(n, dtype=np.int64)),
                      "s": pa.array([None if i % 7 == 0 else str(i) for i in range(n)])})
    sliced = table.slice(1000, n - 2000)  # arrays with an offset
    reader = pa.RecordBatchReader.from_batches(sliced.schema, sliced.to_batches(max_chunksize=7777))
    assert con.register("t", reader) == n - 2000
    assert con.execute("SELECT COUNT(*), MIN(x), MAX(x), COUNT(s) FROM t").fetchone() == \
        (n - 2000, 1000, n - 1001, sum(1 for i in range(1000, n - 1000) if i % 7))
    assert con.execute("SELECT s FROM t WHERE x = 1234").fetchone() == ("1234",)


def test_unsupported_arrow_type(con):
    with pytest.raises(tessera.NotSupportedError) as e:
        con.register("t", pa.table({"dur": pa.array([1], pa.duration("s"))}))
    assert "dur" in str(e.value)
    with pytest.raises(tessera.DataError):
        con.register("t", pa.table({"u": pa.array([2**64 - 1], pa.uint64())}))


def test_register_replace_unregister(con):
    con.register("t", pa.table({"x": [1, 2]}))
    con.register("t", pa.table({"y": [3]}))
    assert con.execute("SELECT y FROM t").fetchall() == [(3,)]
    with pytest.raises(tessera.ProgrammingError):
        con.register("t", pa.table({"y": [3]}), replace=False)
    con.execute("CREATE TABLE real_table (x INTEGER)")
    with pytest.raises(tessera.ProgrammingError):
        con.register("real_table", pa.table({"y": [3]}))
    assert con.unregister("t")
    assert not con.unregister("t")
    assert not con.unregister("real_table")
    with pytest.raises(tessera.ProgrammingError):
        con.execute("SELECT * FROM t")


def test_registered_table_is_not_persisted(tmp_path):
    path = str(tmp_path / "db.tdb")
    with tessera.connect(path) as con:
        con.execute("CREATE TABLE keep (x INTEGER)")
        con.register("temp", pa.table({"x": [1, 2, 3]}))
        con.execute("INSERT INTO keep SELECT x FROM temp")
        con.execute("CREATE TABLE keep2 (x INTEGER)")  # a commit while temp exists
        assert con.execute("SELECT SUM(x) FROM temp").fetchone() == (6,)
    with tessera.connect(path) as con:
        assert con.execute("SELECT SUM(x) FROM keep").fetchone() == (6,)
        with pytest.raises(tessera.ProgrammingError):
            con.execute("SELECT * FROM temp")


def test_arrow_out(con):
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR, m DECIMAL(12,3), d DATE)")
    con.execute("INSERT INTO t VALUES (1, 'a', 1.5, DATE '2000-01-01'), (2, NULL, NULL, NULL), (3, 'c', -2, DATE '1960-06-30')")
    table = con.execute("SELECT * FROM t ORDER BY i").arrow()
    assert table.schema == pa.schema([("i", pa.int32()), ("s", pa.string()), ("m", pa.decimal128(12, 3)),
                                      ("d", pa.date32())])
    assert table.to_pylist()[1] == {"i": 2, "s": None, "m": None, "d": None}
    # the PyCapsule interface takes the rows not fetched yet (a result streams: its rows go by once)
    cur = con.execute("SELECT i FROM t ORDER BY i")
    assert pa.table(cur).column("i").to_pylist() == [1, 2, 3]
    assert cur.fetchone() is None
    cur = con.execute("SELECT i FROM t ORDER BY i")
    assert cur.fetchone() == (1,)
    assert pa.table(cur).column("i").to_pylist() == [2, 3]
    assert cur.arrow().column("i").to_pylist() == []
    assert cur.fetchall() == []
    cur = con.execute("SELECT i FROM t ORDER BY i")
    assert cur.fetchone() == (1,)
    assert cur.arrow().column("i").to_pylist() == [2, 3]
    empty = con.execute("SELECT i FROM t WHERE i > 100").arrow()
    assert empty.num_rows == 0 and empty.schema.field("i").type == pa.int32()


def test_pandas_in_out(con):
    df = pd.DataFrame({
        "i": pd.array([1, None, 3], dtype="Int64"),
        "f": [1.5, np.nan, 2.5],
        "s": ["a", None, "c"],
        "b": [True, False, True],
        "c": pd.Categorical(["x", "y", "x"]),
    })
    con.register("df_t", df)
    out = con.execute("SELECT i, f, s, b, c FROM df_t ORDER BY f NULLS LAST").df()
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["i", "f", "s", "b", "c"]
    assert out["s"].tolist() == ["a", "c", None]
    assert out["c"].tolist() == ["x", "x", "y"]
    assert out["b"].tolist() == [True, True, False]
    # NaN is a value, not NULL, in pyarrow's conversion of a float column
    assert con.execute("SELECT COUNT(*) FROM df_t WHERE i IS NULL").fetchone() == (1,)


def test_polars_in_out(con):
    df = pl.DataFrame({"a": [1, 2, None], "s": ["x", None, "a much longer string value"],
                       "d": [datetime.date(2020, 1, 1), None, datetime.date(2021, 1, 1)]})
    con.register("pl_t", df)
    out = con.execute("SELECT a, s, d FROM pl_t ORDER BY a NULLS FIRST").pl()
    assert isinstance(out, pl.DataFrame)
    assert out["a"].to_list() == [None, 1, 2]
    assert out["s"].to_list() == ["a much longer string value", "x", None]
    assert out["d"].to_list() == [datetime.date(2021, 1, 1), datetime.date(2020, 1, 1), None]
    assert pl.DataFrame(con.execute("SELECT 1 AS one")).to_dicts() == [{"one": 1}]


def test_replacement_scan(con):
    my_frame = pd.DataFrame({"x": [1, 2, 3]})
    assert con.sql("SELECT SUM(x) FROM my_frame").fetchone() == (6,)
    arrow_tab = pa.table({"y": [10, 20]})
    assert con.execute("SELECT COUNT(*) FROM my_frame, arrow_tab").fetchone() == (6,)
    # registered only for the statement
    assert not con.unregister("my_frame")
    with pytest.raises(tessera.ProgrammingError):
        con.sql("SELECT * FROM no_such_variable")


def test_fetchnumpy(con):
    con.execute("CREATE TABLE t (i INTEGER, d DOUBLE, s VARCHAR, j BIGINT)")
    con.execute("INSERT INTO t VALUES (1, 1.5, 'a', 10), (2, NULL, NULL, 20)")
    out = con.execute("SELECT * FROM t ORDER BY i").fetchnumpy()
    assert set(out) == {"i", "d", "s", "j"}
    assert out["i"].dtype == np.int32 and out["i"].tolist() == [1, 2]
    assert out["j"].dtype == np.int64
    assert isinstance(out["d"], np.ma.MaskedArray) and out["d"].mask.tolist() == [False, True]
    assert out["d"][0] == 1.5
    assert out["s"].mask.tolist() == [False, True] and out["s"][0] == "a"
