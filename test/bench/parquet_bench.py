#!/usr/bin/env python3
"""Reading Parquet into a query, tessera against DuckDB, same file, same threads.

Writes TPC-H lineitem (from dbgen .tbl files, e.g. `tessera gen tpch --sf 10 --out DIR`)
to a snappy Parquet file with DuckDB (row groups of 122880 rows, DuckDB's default) unless
it exists, then times each query on both engines: DuckDB in this process (its Python
module; every run reads and decodes the file, which is in the page cache after a warm-up
run), and tessera per device (--devices, default cpu):
  * `first`: a fresh shell process per run, the statement's wall time (`.timer on`, so
    process start is not counted): opening the file, decoding the columns it reads and the
    query; what a run that reads the Parquet file costs, the figure to compare with DuckDB;
  * `second`: the same statement again in that process: the first read streamed the file
    and kept nothing, so the second decodes it again, to keep it;
  * `repeat`: the median of the statement run --reps more times in one process (the second
    run included), where tessera reuses the decoded file table (its file-table cache, while
    the file is unchanged).
Medians are reported, with the bytes of the Parquet column chunks each query reads
(compressed, from the footer) as its input.

  python3 test/bench/parquet_bench.py --tessera build/tessera --tbl DIR --out DIR \
      [--threads N] [--reps R] [--devices cpu,gpu] [--json FILE]
"""
import argparse, json, os, re, statistics, subprocess, sys, time

import duckdb

QUERIES = [
    ("sum_price", "SELECT sum(l_extendedprice) FROM '{f}'", ["l_extendedprice"]),
    ("q1_like", "SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), count(*) "
                "FROM '{f}' WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus "
                "ORDER BY l_returnflag, l_linestatus",
     ["l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice", "l_shipdate"]),
    ("count", "SELECT count(*) FROM '{f}'", []),
]


def column_bytes(con, path, cols):
    if not cols:
        return 0
    q = ("SELECT sum(total_compressed_size) FROM parquet_metadata('%s') WHERE path_in_schema IN (%s)"
         % (path, ", ".join("'%s'" % c for c in cols)))
    return int(con.execute(q).fetchone()[0])


def run_tessera(a, device, statements):
    script = ".timer on\n" + "\n".join(x + ";" for x in statements) + "\n"
    p = subprocess.run([a.tessera, "--threads", str(a.threads), "--device", device, "--csv"], input=script,
                       text=True, capture_output=True)
    if p.returncode != 0:
        print(p.stdout[-2000:], p.stderr[-2000:], file=sys.stderr)
        sys.exit("tessera failed")
    times = [float(m) for m in re.findall(r"Run Time: ([0-9.]+) ms", p.stdout + p.stderr)]
    if len(times) != len(statements):
        sys.exit("expected %d timings from tessera, got %d" % (len(statements), len(times)))
    return times, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--tbl", required=True, help="directory with lineitem.tbl and schema.sql")
    ap.add_argument("--out", required=True, help="where lineitem.parquet is (made)")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--devices", default="cpu")
    ap.add_argument("--json")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "lineitem.parquet")
    con = duckdb.connect()
    con.execute("SET threads = %d" % a.threads)
    if not os.path.exists(path):
        schema = open(os.path.join(a.tbl, "schema.sql")).read()
        ddl = re.search(r"CREATE TABLE lineitem\s*\(.*?\);", schema, re.S | re.I).group(0)
        con.execute(ddl)
        t0 = time.time()
        con.execute("COPY lineitem FROM '%s' (DELIMITER '|')" % os.path.join(a.tbl, "lineitem.tbl"))
        con.execute("COPY lineitem TO '%s' (FORMAT parquet, COMPRESSION snappy)" % path)
        con.execute("DROP TABLE lineitem")
        print("wrote %s (%.1f MB) in %.1f s" % (path, os.path.getsize(path) / 1e6, time.time() - t0), flush=True)
    rows = con.execute("SELECT count(*) FROM '%s'" % path).fetchone()[0]
    results = []
    for name, sql, cols in QUERIES:
        q = sql.format(f=path)
        # DuckDB: warm-up then reps.
        con.execute(q).fetchall()
        dd = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            ref = con.execute(q).fetchall()
            dd.append((time.perf_counter() - t0) * 1e3)
        nbytes = column_bytes(con, path, cols)
        r = {"query": name, "sql": q, "rows": rows, "column_bytes": nbytes, "duckdb_ms": statistics.median(dd),
             "duckdb_all_ms": dd, "duckdb_result": [list(map(str, x)) for x in ref]}
        print("%-10s duckdb %8.1f ms  (%d rows, %.1f MB of column chunks)  result %s"
              % (name, r["duckdb_ms"], rows, nbytes / 1e6, r["duckdb_result"][:2]), flush=True)
        for dev in a.devices.split(","):
            first = []
            for _ in range(a.reps):
                t, out = run_tessera(a, dev, [q])
                first.append(t[0])
            t, out = run_tessera(a, dev, [q] * (a.reps + 1))
            repeat = t[1:]
            r[dev] = {"first_ms": statistics.median(first), "first_all_ms": first, "second_ms": t[1],
                      "repeat_ms": statistics.median(repeat), "repeat_all_ms": repeat, "output_tail": out[-300:]}
            print("           tessera %-4s first %8.1f ms (ratio to duckdb %.2f)  second %8.1f ms  repeat %8.1f ms   out: %s"
                  % (dev, r[dev]["first_ms"], r[dev]["first_ms"] / r["duckdb_ms"], r[dev]["second_ms"], r[dev]["repeat_ms"],
                     out.strip().splitlines()[-2][:80] if out.strip() else ""), flush=True)
        results.append(r)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"threads": a.threads, "file": path, "file_bytes": os.path.getsize(path), "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
