"""Identifiers keep their spelling and match ignoring case, as in DuckDB: the column names a
cursor's description, an Arrow table and COPY ... TO's header show are compared with
DuckDB's for the same statements (test/sql/identifiers/case.test checks the rows)."""
import csv

import pytest

import tessera

duckdb = pytest.importorskip("duckdb")

SETUP = [
    "CREATE TABLE T (X INTEGER, Y INTEGER, \"Mixed Case\" VARCHAR)",
    "INSERT INTO t (x, y, \"MIXED CASE\") VALUES (1, 20, 'a'), (2, 10, 'b')",
    "CREATE TABLE U (x INTEGER, W INTEGER)",
    "INSERT INTO u VALUES (1, 5)",
    "CREATE VIEW V AS SELECT x AS Col, y AS COL FROM t",
]

QUERIES = [
    "SELECT 1 AS A",
    "SELECT x, X, t.x, \"x\", \"mixed case\" FROM t",
    "SELECT * FROM T",
    "SELECT X + 1, x + 1, max(X), count(x), ABS(x), Y * x FROM t GROUP BY x, y",
    "SELECT 1 AS X, 2 AS x",
    "SELECT * FROM (SELECT 1 AS X, 2 AS x, 3 AS a_1, 4 AS A)",
    "SELECT * FROM t AS s(A, a)",
    "SELECT * FROM v",
    "SELECT * FROM t JOIN u USING (X)",
    "SELECT * FROM t RIGHT JOIN u USING (X)",
    "SELECT * FROM t NATURAL FULL JOIN u",
    "WITH Cte(AbC) AS (SELECT 1 AS V) SELECT abc FROM CTE",
    "SELECT x AS Z, y AS z FROM t ORDER BY z",
    "SELECT * FROM Range(2) AS R(N)",
    "SELECT row_number() OVER (ORDER BY X) FROM t",
    "DESCRIBE T",
    "SHOW TABLES",
]


def names_duckdb(sql):
    con = duckdb.connect()
    for s in SETUP:
        con.execute(s)
    return [d[0] for d in con.execute(sql).description]


@pytest.fixture(scope="module")
def tcon():
    c = tessera.connect(threads=2)
    for s in SETUP:
        c.execute(s)
    yield c
    c.close()


@pytest.mark.parametrize("sql", QUERIES)
def test_description_names_as_duckdb(tcon, sql):
    cur = tcon.cursor()
    cur.execute(sql)
    assert [d[0] for d in cur.description] == names_duckdb(sql)


def test_arrow_and_catalog_names(tcon):
    assert tcon.execute("SELECT x, \"MIXED CASE\" FROM t").arrow().schema.names == ["X", "Mixed Case"]
    assert tcon.execute("SHOW TABLES").fetchall() == [("T",), ("U",), ("V",)]
    rows = tcon.execute("SELECT table_name, column_name FROM information_schema.columns "
                        "WHERE table_name = 'T' ORDER BY ordinal_position").fetchall()
    assert rows == [("T", "X"), ("T", "Y"), ("T", "Mixed Case")]


def test_copy_to_header(tcon, tmp_path):
    out = tmp_path / "out.csv"
    tcon.execute(f"COPY (SELECT x, y AS Total, x + 1 FROM T) TO '{out}' (HEADER)")
    with open(out, newline="") as f:
        assert next(csv.reader(f)) == ["X", "Total", "(x + 1)"]


def test_registered_frame_found_in_any_case(tcon):
    pd = pytest.importorskip("pandas")
    tcon.register("MyFrame", pd.DataFrame({"Col": [1, 2]}))
    assert tcon.execute("SELECT sum(col) FROM myframe").fetchall() == [(3,)]
    cur = tcon.cursor()
    cur.execute("SELECT * FROM MYFRAME")
    assert [d[0] for d in cur.description] == ["Col"]
    tcon.unregister("myframe")


def test_named_parameters_ignore_case(tcon):
    cur = tcon.cursor()
    cur.execute("PREPARE Q AS SELECT $Lo + $HI AS s")
    assert cur.execute("EXECUTE q(lo := 40, hi := 2)").fetchall() == [(42,)]
    with pytest.raises(tessera.DatabaseError) as e:
        cur.execute("EXECUTE Q(LO := 1)")
    assert "parameters: HI" in str(e.value)
