"""The GIL is released while a query runs; Ctrl-C (SIGINT) interrupts a query."""
import os
import signal
import threading
import time

import pyarrow as pa
import pytest

import tessera

# COUNT over a nested-loop join: a.x + b.x < 0 is never true, so every pair is checked.
SLOW = "SELECT COUNT(*) FROM big a, small b WHERE a.x + b.x < 0"


def make(con, small):
    con.register("big", pa.table({"x": pa.array(range(1_000_000), pa.int64())}))
    con.register("small", pa.table({"x": pa.array(range(small), pa.int64())}))


def test_gil_released(con):
    make(con, 100)
    start = time.perf_counter()
    assert con.execute(SLOW).fetchone() == (0,)
    alone = time.perf_counter() - start
    counter = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.05)
    before = counter[0]
    start = time.perf_counter()
    con.execute(SLOW).fetchone()
    during = time.perf_counter() - start
    progress = counter[0] - before
    stop.set()
    t.join()
    # ~1 tick per ms when the GIL is free (fewer on a loaded machine); with the GIL held
    # during the query the thread would not run at all.
    assert progress >= 20 and progress > 0.1 * during * 1000, (progress, during, alone)


def test_second_thread_queries_concurrently(con):
    make(con, 100)
    results = []
    cur = con.cursor()
    t = threading.Thread(target=lambda: results.append(cur.execute(SLOW).fetchone()))
    t.start()
    assert con.execute("SELECT COUNT(*) FROM small").fetchone() == (100,)
    t.join()
    assert results == [(0,)]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_ctrl_c_interrupts(con):
    make(con, 2000)  # ~2e9 pairs: minutes
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    try:
        start = time.perf_counter()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            con.execute(SLOW)
        elapsed = time.perf_counter() - start
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
    assert elapsed < 10, elapsed
    # the connection is usable afterwards
    assert con.execute("SELECT COUNT(*) FROM small").fetchone() == (2000,)


def test_interrupt_from_another_thread(con):
    make(con, 2000)
    cur = con.cursor()
    timer = threading.Timer(0.3, con.interrupt)
    start = time.perf_counter()
    timer.start()
    with pytest.raises(tessera.OperationalError) as e:
        cur.execute(SLOW)
    assert e.value.kind == "interrupted"
    assert time.perf_counter() - start < 10
    assert cur.execute("SELECT 1").fetchone() == (1,)
