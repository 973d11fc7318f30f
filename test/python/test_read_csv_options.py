"""read_csv's names / types / columns options and zstd-compressed CSV through the Python
package, checked against DuckDB on the same files (the SQL suite's test/sql/copy files
cover the engine; this covers the options arriving through the DB-API)."""
import os
import shutil
import subprocess

import pytest

import tessera

duckdb = pytest.importorskip("duckdb")

CSV = "id,price,day,code\n1,2.50,2024-01-02,007\n2,-1.25,2023-12-31,010\n3,,2024-02-29,\n"


@pytest.fixture
def csv_file(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(CSV)
    return str(p)


def both(sql):
    con = tessera.connect(threads=2)
    try:
        cur = con.cursor()
        got = cur.execute(sql).fetchall()
        names = [d[0] for d in cur.description]
    finally:
        con.close()
    d = duckdb.connect()
    want = d.execute(sql).fetchall()
    want_names = [x[0] for x in d.description]
    return got, names, want, want_names


def test_names_and_types(csv_file):
    sql = ("SELECT * FROM read_csv('%s', names = ['k', 'p'], types = {'code': 'INTEGER', 'p': 'DECIMAL(8,2)'}) "
           "ORDER BY k" % csv_file)
    got, names, want, want_names = both(sql)
    assert names == want_names == ["k", "p", "day", "code"]
    assert got == want
    assert got[0][3] == 7 and str(got[1][1]) == "-1.25"


def test_columns_struct(csv_file):
    sql = ("SELECT a, b, d FROM read_csv('%s', columns = {'a': 'BIGINT', 'b': 'DOUBLE', 'c': 'DATE', 'd': 'VARCHAR'}) "
           "ORDER BY a" % csv_file)
    got, names, want, want_names = both(sql)
    assert names == want_names == ["a", "b", "d"]
    assert got == want == [(1, 2.5, "007"), (2, -1.25, "010"), (3, None, None)]


def test_types_list_by_position(csv_file):
    sql = "SELECT id, price FROM read_csv('%s', dtypes = ['VARCHAR', 'VARCHAR']) ORDER BY id" % csv_file
    got, _, want, _ = both(sql)
    assert got == want == [("1", "2.50"), ("2", "-1.25"), ("3", None)]


def test_bad_options_are_errors(csv_file):
    con = tessera.connect(threads=2)
    try:
        with pytest.raises(tessera.Error, match="nosuch"):
            con.execute("SELECT * FROM read_csv('%s', types = {'nosuch': 'INTEGER'})" % csv_file)
        with pytest.raises(tessera.Error, match="gives 5 columns but the file has 4"):
            con.execute("SELECT * FROM read_csv('%s', names = ['a', 'b', 'c', 'd', 'e'])" % csv_file)
    finally:
        con.close()


@pytest.mark.skipif(shutil.which("zstd") is None, reason="the zstd command is not installed")
def test_zstd_csv(csv_file, tmp_path):
    zst = str(tmp_path / "t.csv.zst")
    subprocess.run(["zstd", "-q", "-o", zst, csv_file], check=True)
    sql = "SELECT count(*), sum(id), max(day) FROM read_csv('%s')" % zst
    got, _, want, _ = both(sql)
    assert got == want == [(3, 6, want[0][2])]
    assert os.path.getsize(zst) < len(CSV) + 64
