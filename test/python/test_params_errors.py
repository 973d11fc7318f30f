"""Parameters (qmark and $n) and exceptions with byte offsets."""
import datetime
from decimal import Decimal

import pytest

import tessera


def test_qmark_and_dollar(con):
    con.execute("CREATE TABLE t (id INTEGER, name VARCHAR)")
    con.execute("INSERT INTO t VALUES (?, ?), (?, ?)", [1, "it's", 2, None])
    assert con.execute("SELECT name FROM t WHERE id = ?", [1]).fetchall() == [("it's",)]
    assert con.execute("SELECT id FROM t WHERE name IS NULL AND id = $1", [2]).fetchall() == [(2,)]
    assert con.execute("SELECT $2, $1", ["a", "b"]).fetchone() == ("b", "a")


def test_parameter_types(con):
    row = con.execute("SELECT ?, ?, ?, ?, ?, ?, ?, ?",
                      [True, 7, 2**40, 0.5, "s", None, Decimal("-12.345"), datetime.date(2024, 2, 29)]).fetchone()
    assert row == (True, 7, 2**40, 0.5, "s", None, Decimal("-12.345"), datetime.date(2024, 2, 29))
    desc = con.execute("SELECT ?, ?", [1, 2**40]).description
    assert [d[1] for d in desc] == ["INTEGER", "BIGINT"]


def test_timestamp_and_time_parameters(con):
    ts, tm = datetime.datetime(2020, 2, 29, 13, 14, 15, 123456), datetime.time(23, 59, 59, 5)
    cur = con.execute("SELECT ?, ?, ? + INTERVAL 1 HOUR", [ts, tm, ts])
    assert [d[1] for d in cur.description] == ["TIMESTAMP", "TIME", "TIMESTAMP"]
    assert cur.fetchone() == (ts, tm, ts + datetime.timedelta(hours=1))


def test_parameter_errors(con):
    with pytest.raises(tessera.ProgrammingError) as e:
        con.execute("SELECT ?, ?", [1])
    assert e.value.kind == "parameter"
    with pytest.raises(tessera.ProgrammingError):
        con.execute("SELECT ?", "x")  # a str is not a parameter sequence
    with pytest.raises(tessera.NotSupportedError):
        con.execute("SELECT ?", [datetime.timedelta(days=1)])  # no INTERVAL type yet
    with pytest.raises(tessera.NotSupportedError):
        con.execute("SELECT ?", [object()])
    with pytest.raises(tessera.DataError):
        con.execute("SELECT ?", [2**70])


def test_injection_is_a_value(con):
    con.execute("CREATE TABLE t (s VARCHAR)")
    evil = "x'); DROP TABLE t; --"
    con.execute("INSERT INTO t VALUES (?)", [evil])
    assert con.execute("SELECT s FROM t").fetchall() == [(evil,)]


def test_syntax_error_offset(con):
    sql = "SELECT 1 FROM WHERE"
    with pytest.raises(tessera.ProgrammingError) as e:
        con.execute(sql)
    assert e.value.kind == "syntax"
    assert e.value.offset == sql.index("WHERE")


def test_unknown_column_offset_bytes(con):
    con.execute("CREATE TABLE t (x INTEGER)")
    sql = "SELECT 'é', nope FROM t"
    with pytest.raises(tessera.ProgrammingError) as e:
        con.execute(sql)
    assert e.value.kind == "binder"
    assert e.value.offset == sql.encode().index(b"nope")
    assert e.value.char_offset(sql) == sql.index("nope")


def test_offset_with_parameters(con):
    sql = "SELECT ? FROM nowhere"
    with pytest.raises(tessera.ProgrammingError) as e:
        con.execute(sql, ["a long parameter value"])
    assert e.value.kind == "catalog"
    assert e.value.offset == sql.index("nowhere")


def test_error_classes(con):
    con.execute("CREATE TABLE t (x INTEGER NOT NULL)")
    with pytest.raises(tessera.IntegrityError) as e:
        con.execute("INSERT INTO t VALUES (NULL)")
    assert e.value.kind == "constraint" and e.value.offset is None
    with pytest.raises(tessera.ProgrammingError):
        con.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(tessera.DataError):
        con.execute("SELECT CAST('abc' AS INTEGER)")
    with pytest.raises(tessera.DatabaseError):
        con.execute("SELECT 1 +")
