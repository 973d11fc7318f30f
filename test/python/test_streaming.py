"""Streamed results: execute returns when the rows begin, fetchone/fetchmany/record batch
readers/__arrow_c_stream__ pull rows from the running query, closing or a new statement
stops it (DuckDB's rule), interrupt and Ctrl-C work while a stream is open."""
import os
import signal
import threading
import time

import pyarrow as pa
import pytest

import tessera

# 10^9 rows, produced as they are asked for (a cross join; collecting them would take
# minutes and 8 GB): only a streamed result can hand out its first rows quickly.
HUGE = "SELECT a.range AS x FROM range(1000000) a, range(1000) b"


def test_fetchmany_before_the_query_finished(con):
    cur = con.cursor()
    t0 = time.perf_counter()
    cur.execute(HUGE)
    rows = cur.fetchmany(10)
    took = time.perf_counter() - t0
    assert len(rows) == 10
    assert took < 10, took
    assert cur.rowcount == -1
    t0 = time.perf_counter()
    cur.close()  # stops the query
    assert time.perf_counter() - t0 < 5
    # the connection goes on
    assert con.execute("SELECT 42").fetchall() == [(42,)]


def test_rows_in_order_as_collected(con):
    sql = "SELECT range AS i, 'v' || range AS s FROM range(10000) ORDER BY i"
    everything = con.execute(sql).fetchall()
    cur = con.execute(sql)
    got = [cur.fetchone(), cur.fetchone()]
    got += cur.fetchmany(3000)
    got += list(cur)
    assert got == everything
    assert cur.fetchone() is None
    assert cur.fetchmany(5) == []


def test_new_statement_closes_the_open_result(con):
    cur = con.cursor()
    reader = cur.execute(HUGE).fetch_record_batch(1000)
    assert reader.read_next_batch().num_rows > 0
    t0 = time.perf_counter()
    assert cur.execute("SELECT 1").fetchall() == [(1,)]
    assert time.perf_counter() - t0 < 5
    with pytest.raises(Exception, match="closed"):
        while True:
            reader.read_next_batch()


def test_record_batch_reader_yields_several_batches(con):
    reader = con.execute("SELECT range AS x FROM range(3000000)").fetch_record_batch()
    sizes = [b.num_rows for b in reader]
    assert sizes == [1000000, 1000000, 1000000]  # DuckDB's default rows_per_batch
    reader = con.execute("SELECT range AS x FROM range(100000)").to_arrow_reader(10000)
    batches = list(reader)
    assert len(batches) == 10 and all(b.num_rows == 10000 for b in batches)
    assert pa.Table.from_batches(batches).column("x").to_pylist() == list(range(100000))


def test_capsule_streams(con):
    # pyarrow reads the PyCapsule stream batch by batch; a huge result's first batch comes
    # without the query finishing
    cur = con.execute(HUGE)
    reader = pa.RecordBatchReader.from_stream(cur)
    assert reader.read_next_batch().num_rows == 1048576
    cur.close()


def test_partial_fetch_then_arrow(con):
    cur = con.execute("SELECT range AS x FROM range(5000)")
    assert cur.fetchmany(3) == [(0,), (1,), (2,)]
    assert cur.arrow().column("x").to_pylist() == list(range(3, 5000))
    cur = con.execute("SELECT range AS x FROM range(5000)")
    cur.fetchmany(2100)  # the second chunk's middle
    assert cur.df()["x"].tolist() == list(range(2100, 5000))
    cur = con.execute("SELECT range AS x FROM range(5000)")
    cur.fetchone()
    assert cur.fetchnumpy()["x"].tolist() == list(range(1, 5000))


def test_error_while_streaming(con):
    cur = con.execute("SELECT CAST(CASE WHEN range = 300000 THEN 'x' ELSE '1' END AS INTEGER) AS v FROM range(1000000)")
    assert cur.fetchmany(5) == [(1,)] * 5
    with pytest.raises(tessera.DataError, match="could not convert"):
        cur.fetchall()
    with pytest.raises(tessera.DataError):
        con.execute("SELECT CAST(CASE WHEN range = 300000 THEN 'x' ELSE '1' END AS INTEGER) FROM range(1000000)").arrow()
    # errors before the rows begin come from execute, with their position
    with pytest.raises(tessera.ProgrammingError) as e:
        con.execute("SELECT nope FROM range(3)")
    assert e.value.offset == 7


def test_parameters_stream(con):
    cur = con.execute("SELECT range AS x FROM range(100000) WHERE range >= ?", [99990])
    assert cur.fetchmany(3) == [(99990,), (99991,), (99992,)]
    assert len(cur.fetchall()) == 7


def test_interrupt_while_a_stream_is_open(con):
    cur = con.cursor()
    cur.execute(HUGE)
    assert len(cur.fetchmany(10)) == 10
    timer = threading.Timer(0.3, con.interrupt)
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(tessera.OperationalError, match="interrupted"):
        cur.fetchall()
    timer.join()
    assert time.perf_counter() - t0 < 30
    assert cur.execute("SELECT 2").fetchall() == [(2,)]


def _sigint_after(seconds):
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def _ctrl_c_interrupts_each(con, sql, reads, within):
    """Each read of a fresh streamed `sql` is interrupted by a SIGINT after 0.3 s, within
    `within` seconds, and the cursor runs a statement afterwards."""
    for read in reads:
        cur = con.execute(sql)
        timer = _sigint_after(0.3)
        t0 = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            read(cur)
        timer.join()
        assert time.perf_counter() - t0 < within
        assert cur.execute("SELECT 3").fetchall() == [(3,)]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_ctrl_c_while_fetching(con):
    _ctrl_c_interrupts_each(con, HUGE, (lambda c: c.fetchall(), lambda c: c.arrow(),
                                        lambda c: c.fetch_record_batch().read_all()), 30)


# Each row costs Python more (three decimal.Decimal objects) than the query takes to make
# it, so the caller never waits for rows: Ctrl-C must still be seen between chunks (it
# used to go unseen for seconds, with memory growing by the fetched rows, until a wait).
SLOW_TO_FETCH = ("SELECT a.range::DECIMAL(18,2) AS x, b.range::DECIMAL(18,2) AS y, "
                 "a.range::DECIMAL(18,3) AS z FROM range(1000000) a, range(1000) b")


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_ctrl_c_while_the_caller_is_slower_than_the_query(con):
    _ctrl_c_interrupts_each(con, SLOW_TO_FETCH, (lambda c: c.fetchall(), lambda c: c.fetchmany(50_000_000),
                                                 lambda c: c.arrow()), 3)
