"""Database size on disk, tessera against DuckDB, for the same rows (issue 13).

Generates SSB and TPC-H data with `tessera gen --out` (dbgen-format .tbl files and
schema.sql), loads the same files into a tessera database directory and into a DuckDB
database file (pinned duckdb from test/requirements.txt), and prints both sizes per
benchmark, and tessera's size per table. DuckDB's size is its file after CHECKPOINT.

    .venv/bin/python test/bench/storage_size.py build/tessera [--ssb-sf 1] [--tpch-sf 0.1] [--work DIR] [--check]

With --check it exits 1 when a tessera database is larger than DuckDB's (ctest
bench.storage_size: issue 13's "no larger than DuckDB's for the same rows").
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import duckdb


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            if f != "tessera.lock":
                total += os.path.getsize(os.path.join(root, f))
    return total


def tables_of(schema_sql):
    out = []
    for stmt in schema_sql.split(";"):
        words = stmt.split()
        if len(words) > 2 and words[0].upper() == "CREATE" and words[1].upper() == "TABLE":
            out.append(words[2].split("(")[0])
    return out


def measure(tessera, bench, sf, work, keep=True):
    tbl = os.path.join(work, f"{bench}-sf{sf}-tbl")
    if not os.path.exists(os.path.join(tbl, "schema.sql")):
        subprocess.run([tessera, "gen", bench, "--sf", str(sf), "--out", tbl], check=True,
                       stderr=subprocess.DEVNULL)
    schema = open(os.path.join(tbl, "schema.sql")).read()
    tables = tables_of(schema)
    tdb = os.path.join(work, f"{bench}-sf{sf}.tessera")
    shutil.rmtree(tdb, ignore_errors=True)
    script = schema + "\n" + "".join(
        f"COPY {t} FROM '{os.path.join(tbl, t + '.tbl')}' (DELIMITER '|', HEADER false);\n" for t in tables)
    subprocess.run([tessera, tdb], input=script.encode(), check=True, stdout=subprocess.DEVNULL)
    ddb = os.path.join(work, f"{bench}-sf{sf}.duckdb")
    for p in (ddb, ddb + ".wal"):
        if os.path.exists(p):
            os.remove(p)
    con = duckdb.connect(ddb)
    con.execute(schema)
    for t in tables:
        con.execute(f"COPY {t} FROM '{os.path.join(tbl, t + '.tbl')}' (DELIMITER '|', HEADER false)")
    con.execute("CHECKPOINT")
    con.close()
    ours, theirs = dir_size(tdb), os.path.getsize(ddb)
    if not keep:  # (--check, under ctest) the generated files take about 1 GB at SSB SF1
        shutil.rmtree(tbl, ignore_errors=True)
        shutil.rmtree(tdb, ignore_errors=True)
        os.remove(ddb)
    print(f"{bench} SF{sf}: tessera {ours / 1e6:.1f} MB, DuckDB {theirs / 1e6:.1f} MB, "
          f"ratio {ours / theirs:.2f}")
    return ours, theirs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tessera")
    ap.add_argument("--ssb-sf", default="1")
    ap.add_argument("--tpch-sf", default="0.1")
    ap.add_argument("--work", default=None)
    ap.add_argument("--check", action="store_true", help="fail when tessera's database is larger than DuckDB's")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="tessera_size_")
    os.makedirs(work, exist_ok=True)
    print(f"duckdb {duckdb.__version__}; files in {work}")
    larger = []
    for bench, sf in (("ssb", a.ssb_sf), ("tpch", a.tpch_sf)):
        ours, theirs = measure(a.tessera, bench, sf, work, keep=not a.check)
        if ours > theirs:
            larger.append(f"{bench} SF{sf}")
    if a.check and larger:
        print("tessera's database is larger than DuckDB's for: " + ", ".join(larger))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
