"""PEP 249 basics: module globals, connections, cursors, fetching, description, rowcount."""
import datetime
from decimal import Decimal

import pytest

import tessera


def test_module_globals():
    assert tessera.apilevel == "2.0"
    assert tessera.threadsafety in (1, 2)
    assert tessera.paramstyle == "qmark"
    for name in ("Warning", "Error", "InterfaceError", "DatabaseError", "DataError", "OperationalError",
                 "IntegrityError", "InternalError", "ProgrammingError", "NotSupportedError"):
        assert issubclass(getattr(tessera, name), Exception)
    assert issubclass(tessera.InterfaceError, tessera.Error)
    assert issubclass(tessera.DatabaseError, tessera.Error)
    for name in ("DataError", "OperationalError", "IntegrityError", "InternalError", "ProgrammingError",
                 "NotSupportedError"):
        assert issubclass(getattr(tessera, name), tessera.DatabaseError)
    assert not issubclass(tessera.Warning, tessera.Error)
    assert tessera.Date(2020, 1, 2) == datetime.date(2020, 1, 2)
    assert isinstance(tessera.DateFromTicks(0), datetime.date)


def test_cursor_fetch(con):
    cur = con.cursor()
    cur.execute("CREATE TABLE t (id INTEGER, name VARCHAR)")
    assert cur.description is None
    cur.execute("INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, NULL)")
    assert cur.rowcount == 3
    assert cur.execute("SELECT id, name FROM t ORDER BY id") is cur
    assert cur.rowcount == -1  # rows stream: not counted when execute returns (DuckDB's -1)
    assert [d[0] for d in cur.description] == ["id", "name"]
    assert all(len(d) == 7 for d in cur.description)
    assert cur.description[0][1] == tessera.NUMBER
    assert cur.description[1][1] == tessera.STRING
    assert cur.description[1][1] != tessera.NUMBER
    assert cur.fetchone() == (1, "one")
    assert cur.fetchmany(1) == [(2, "two")]
    assert cur.fetchmany(5) == [(3, None)]
    assert cur.fetchone() is None
    assert cur.fetchall() == []
    cur.execute("SELECT id FROM t ORDER BY id")
    cur.arraysize = 2
    assert cur.fetchmany() == [(1,), (2,)]
    assert list(cur) == [(3,)]


def test_fetch_across_chunks(con):
    con.execute("CREATE TABLE t (x BIGINT)")
    import pyarrow as pa
    con.register("src", pa.table({"x": pa.array(range(10000), pa.int64())}))
    con.execute("INSERT INTO t SELECT x FROM src")
    cur = con.execute("SELECT x FROM t ORDER BY x")
    got = cur.fetchmany(3000) + [cur.fetchone()] + cur.fetchall()
    assert [r[0] for r in got] == list(range(10000))


def test_description_types(con):
    cur = con.execute("SELECT 1 AS i, CAST(2 AS BIGINT) AS b, 1.5 AS d, CAST(1.25 AS DECIMAL(10,2)) AS m, "
                      "DATE '2020-01-02' AS dt, 'x' AS s, TRUE AS t")
    desc = cur.description
    assert [d[1] for d in desc] == ["INTEGER", "BIGINT", desc[2][1], "DECIMAL", "DATE", "VARCHAR", "BOOLEAN"]
    assert desc[3][4:6] == (10, 2)
    assert desc[4][1] == tessera.DATETIME
    assert cur.fetchone() == (1, 2, desc[2][1] == "DOUBLE" and 1.5 or Decimal("1.5"), Decimal("1.25"),
                              datetime.date(2020, 1, 2), "x", True)


def test_python_values(con):
    con.execute("CREATE TABLE v (b BOOLEAN, i INTEGER, g BIGINT, d DOUBLE, m DECIMAL(38,10), dt DATE, s VARCHAR)")
    con.execute("INSERT INTO v VALUES (true, -5, 9000000000, 0.25, 1234567890123456789012345678.0123456789, "
                "DATE '1999-12-31', 'héllo ☃'), (NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
    rows = con.execute("SELECT * FROM v ORDER BY i NULLS LAST").fetchall()
    assert rows[0] == (True, -5, 9000000000, 0.25, Decimal("1234567890123456789012345678.0123456789"),
                       datetime.date(1999, 12, 31), "héllo ☃")
    assert rows[1] == (None,) * 7
    assert type(rows[0][0]) is bool and type(rows[0][2]) is int


def test_commit_rollback_close(con):
    con.commit()  # no transaction open: nothing to do (DuckDB's)
    with pytest.raises(tessera.Error, match="no transaction is active"):
        con.rollback()  # DuckDB's error too
    cur = con.cursor()
    cur.close()
    cur.close()
    with pytest.raises(tessera.ProgrammingError):
        cur.execute("SELECT 1")
    cur2 = con.cursor()
    con.close()
    con.close()
    with pytest.raises(tessera.ProgrammingError):
        cur2.execute("SELECT 1")
    with pytest.raises(tessera.ProgrammingError):
        con.cursor()


def test_statements_without_rows_fetch_as_duckdb(con):
    # DDL fetches no rows; a statement that changed rows fetches its count, once.
    cur = con.execute("CREATE TABLE t (x INTEGER)")
    assert cur.fetchall() == []
    assert cur.description is None
    assert cur.rowcount == -1
    cur = con.execute("INSERT INTO t VALUES (1), (2), (3)")
    assert cur.description[0][:2] == ("Count", "BIGINT")
    assert cur.fetchone() == (3,)
    assert cur.fetchone() is None
    assert con.execute("UPDATE t SET x = x + 1 WHERE x > 1").fetchall() == [(2,)]
    assert con.execute("DELETE FROM t WHERE x = 9").fetchmany(5) == [(0,)]
    assert con.execute("CREATE TABLE u AS SELECT * FROM t").fetchall() == [(3,)]
    assert con.execute("DROP TABLE u").fetchall() == []
    assert con.execute("SET threads = 2").fetchall() == []


def test_transactions_on_the_connection(con):
    # BEGIN on con.execute: the statements that follow run in that transaction until
    # COMMIT / ROLLBACK, whether written as SQL or called as methods (DuckDB's behaviour).
    con.execute("CREATE TABLE t (x INTEGER)")
    con.execute("BEGIN")
    con.execute("INSERT INTO t VALUES (1)")
    assert con.execute("SELECT count(*) FROM t").fetchone() == (1,)
    other = con.cursor()  # its own engine connection: the open transaction is not seen
    assert other.execute("SELECT count(*) FROM t").fetchone() == (0,)
    con.rollback()
    assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)

    con.begin()
    con.execute("INSERT INTO t VALUES (2)")
    con.executemany("INSERT INTO t VALUES (?)", [(3,), (4,)])
    con.commit()
    assert other.execute("SELECT sum(x) FROM t").fetchone() == (9,)

    con.execute("BEGIN TRANSACTION")
    con.execute("DELETE FROM t")
    con.execute("COMMIT")
    assert other.execute("SELECT count(*) FROM t").fetchone() == (0,)
    con.commit()  # nothing open any more
    with pytest.raises(tessera.Error, match="no transaction is active"):
        con.execute("ROLLBACK")

    # A failed statement inside a transaction leaves it to the caller's ROLLBACK.
    con.execute("BEGIN")
    con.execute("INSERT INTO t VALUES (5)")
    with pytest.raises(tessera.Error):
        con.execute("SELECT * FROM no_such_table")
    con.rollback()
    assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_executemany(con):
    con.execute("CREATE TABLE t (id INTEGER, name VARCHAR)")
    cur = con.cursor()
    cur.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "b"), (3, None)])
    assert cur.rowcount == 3
    assert con.execute("SELECT COUNT(*), COUNT(name) FROM t").fetchone() == (3, 2)


def test_context_manager(tmp_path):
    path = str(tmp_path / "db.tdb")
    with tessera.connect(path) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
        con.execute("INSERT INTO t VALUES (42)")
    assert con.closed
    with tessera.connect(path) as con:
        assert con.execute("SELECT x FROM t").fetchall() == [(42,)]


def test_connect_options():
    with tessera.connect(device="cpu", threads=1, plan_cache=False) as con:
        assert con.execute("SELECT 1 + 1").fetchone() == (2,)
    with pytest.raises(tessera.ProgrammingError):
        tessera.connect(device="tpu")


def test_cursors_are_independent(con):
    con.execute("CREATE TABLE t (x INTEGER)")
    con.execute("INSERT INTO t VALUES (1), (2)")
    a = con.execute("SELECT x FROM t ORDER BY x")
    b = con.execute("SELECT x * 10 FROM t ORDER BY 1")
    assert a.fetchone() == (1,)
    assert b.fetchall() == [(10,), (20,)]
    assert a.fetchall() == [(2,)]
