"""SQL's PREPARE / EXECUTE / DEALLOCATE through the Python API. A prepared statement lives
in the engine connection it was prepared on: a cursor's (each cursor has its own, and
Connection.execute runs on a new cursor each time)."""
import pytest

import tessera


def test_prepare_execute_on_a_cursor(con):
    cur = con.cursor()
    cur.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    cur.execute("PREPARE p AS SELECT s FROM t WHERE i >= $1 ORDER BY i")
    assert cur.execute("EXECUTE p(2)").fetchall() == [("b",), (None,)]
    # an EXECUTE's arguments may be the API's parameters too
    assert cur.execute("EXECUTE p(?)", [3]).fetchall() == [(None,)]
    cur.execute("PREPARE q AS SELECT $lo + $hi AS x")
    assert cur.execute("EXECUTE q(hi := 2, lo := 40)").fetchall() == [(42,)]
    with pytest.raises(tessera.DatabaseError) as e:
        cur.execute("EXECUTE p")
    assert "Values were not provided for the following prepared statement parameters: 1" in str(e.value)
    cur.execute("DEALLOCATE p")
    with pytest.raises(tessera.DatabaseError) as e:
        cur.execute("EXECUTE p(1)")
    assert 'Prepared statement "p" does not exist' in str(e.value)


def test_prepared_statements_belong_to_their_cursor(con):
    a, b = con.cursor(), con.cursor()
    a.execute("PREPARE one AS SELECT 1")
    assert a.execute("EXECUTE one").fetchall() == [(1,)]
    with pytest.raises(tessera.DatabaseError):
        b.execute("EXECUTE one")
