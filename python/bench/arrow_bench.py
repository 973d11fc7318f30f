"""tessera vs DuckDB from Python, in one process, same threads: the Arrow export of a large
result (``.arrow()`` of ``SELECT * FROM t``), the Arrow import (``register`` of a pyarrow
Table, then a query over it), and the per-query overhead of a trivial query (``SELECT 1``,
``fetchall``). Prints one line per figure (median and best wall time of the repetitions, and
the median of the process's CPU time) and a memory-bandwidth bound for the export;
``--json FILE`` writes them too.

    python python/bench/arrow_bench.py [--rows 10000000] [--threads 2] [--reps 5]

Needs the packages tessera, duckdb, pyarrow and numpy (test/requirements.txt).
"""
import argparse
import json
import statistics
import sys
import time

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import tessera


def median_time(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def compare(fns, reps):
    """{name: (median, min, median CPU) seconds} of each function, run in turns (one of each
    per round, so that a busy machine slows all of them alike). CPU: the process's CPU time
    (all its threads) during the call, which a shared machine disturbs less than the wall
    time."""
    times = {k: [] for k in fns}
    cpu = {k: [] for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            c0 = time.process_time()
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
    return {k: (statistics.median(v), min(v), statistics.median(cpu[k])) for k, v in times.items()}


def per_call_us(fn, calls, reps):
    """Median over `reps` rounds of the mean time of `calls` calls, in microseconds."""

    rounds = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        rounds.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(rounds)


def copy_bandwidth(nbytes=1 << 28, reps=5):
    """Bytes per second of one large memcpy (numpy copyto), read + write counted once:
    the rate at which a copy of the result can be made on this machine."""
    src = np.ones(nbytes // 8, dtype=np.int64)
    dst = np.empty_like(src)
    best = min(median_time(lambda: np.copyto(dst, src), reps))
    return nbytes / best


def make_table(rows):
    rng = np.random.default_rng(42)
    return pa.table({
        "b": pa.array(np.arange(rows, dtype=np.int64)),
        "d": pa.array(rng.random(rows)),
        "i": pa.array(rng.integers(-1_000_000, 1_000_000, rows, dtype=np.int32)),
        "dt": pa.array(rng.integers(0, 20_000, rows, dtype=np.int32)).cast(pa.int32()).view(pa.date32()),
    })


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000, help="trivial queries per round")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()

    table = make_table(args.rows)
    row_bytes = 8 + 8 + 4 + 4
    nbytes = args.rows * row_bytes
    out = {"rows": args.rows, "threads": args.threads, "reps": args.reps, "bytes": nbytes,
           "tessera": tessera.__version__ if hasattr(tessera, "__version__") else "",
           "duckdb": duckdb.__version__, "pyarrow": pa.__version__}

    ts = tessera.connect(threads=args.threads)
    dk = duckdb.connect(config={"threads": args.threads})

    # Arrow in: register (tessera shares the buffers; DuckDB scans them in place).
    out["import_register_s"] = compare({"tessera": lambda: ts.register("t", table),
                                        "duckdb": lambda: dk.register("t", table)}, args.reps)
    # Materialise as ordinary tables too, so the export reads engine storage in both.
    ts.execute("CREATE TABLE m AS SELECT * FROM t")
    dk.execute("CREATE TABLE m AS SELECT * FROM t")
    # Arrow in, then a query over it (the scan of the registered data).
    q = "SELECT SUM(b), SUM(d), MIN(i), MAX(dt) FROM t"
    assert ts.execute(q).fetchall()[0][:1] == dk.execute(q).fetchall()[0][:1]
    out["scan_registered_s"] = compare({"tessera": lambda: ts.execute(q).fetchall(),
                                        "duckdb": lambda: dk.execute(q).fetchall()}, args.reps)

    # Arrow out: SELECT * of the 4-column table as a pyarrow Table.
    for src in ("m", "t"):
        sql = "SELECT * FROM %s" % src
        a = ts.execute(sql).arrow()
        b = dk.execute(sql).arrow()
        if hasattr(b, "read_all"):  # DuckDB >= 1.4: .arrow() may give a RecordBatchReader
            b = b.read_all()
        assert a.num_rows == b.num_rows == args.rows
        assert pc.sum(a.column("b")).as_py() == pc.sum(b.column("b")).as_py()  # row order may differ

        def duck_arrow():
            r = dk.execute(sql).arrow()
            return r.read_all() if hasattr(r, "read_all") else r

        out["arrow_%s_s" % src] = compare({"tessera": lambda: ts.execute(sql).arrow(), "duckdb": duck_arrow},
                                          args.reps)

    # Per-query overhead: SELECT 1 from Python, result fetched.
    ts.execute("SELECT 1").fetchall()
    dk.execute("SELECT 1").fetchall()
    cur = ts.cursor()
    dcur = dk.cursor()
    for name, tf, df in (("select1_us", lambda: ts.execute("SELECT 1").fetchall(),
                          lambda: dk.execute("SELECT 1").fetchall()),
                         ("select1_cursor_us", lambda: cur.execute("SELECT 1").fetchall(),
                          lambda: dcur.execute("SELECT 1").fetchall())):
        rounds = {"tessera": [], "duckdb": []}
        for _ in range(args.reps):
            rounds["tessera"].append(per_call_us(tf, args.calls, 1))
            rounds["duckdb"].append(per_call_us(df, args.calls, 1))
        out[name] = {k: (statistics.median(v), min(v), None) for k, v in rounds.items()}

    bw = copy_bandwidth()
    out["copy_bandwidth_GBps"] = bw / 1e9
    # The export's floor: the result's bytes copied once (storage -> Arrow buffers: a read
    # and a write) at the measured copy rate. tessera's export writes each 2048-row chunk
    # the query hands over into the Arrow buffers while it is still in cache, so its
    # second copy (storage -> chunk vectors) stays in cache; before streaming, the whole
    # result was collected first and copied twice through memory (2 x this).
    out["arrow_bound_s"] = nbytes / bw

    print("%-20s %-34s %-34s %s" % ("", "tessera median/min/cpu", "duckdb median/min/cpu", "ratio median/min/cpu"))
    for k, v in out.items():
        if isinstance(v, dict):
            t, d = v["tessera"], v["duckdb"]
            cpu = lambda x: "%10.4f" % x if x is not None else "%10s" % "-"
            print("%-20s %10.4f %10.4f %s  %10.4f %10.4f %s   %.2f / %.2f / %s" % (
                k, t[0], t[1], cpu(t[2]), d[0], d[1], cpu(d[2]), t[0] / d[0], t[1] / d[1],
                "%.2f" % (t[2] / d[2]) if t[2] is not None else "-"))
        else:
            print("%-20s %s" % (k, v))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
