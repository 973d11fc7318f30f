"""Streamed results in the shell: csv and json print every row, in order, as the rows come;
table mode shows the first and last .maxrows/2 rows with the exact count, stops the query
once it has counted more than 10,000 rows ("? rows (>10000 rows, N shown)"), and .maxrows 0
shows every row. The streamed output equals what a materialised result printed (the same
rows, order and format), checked against rows computed here.

Usage: streaming_output.py TESSERA
"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what, detail=''):
    if not ok:
        failures.append(f'{what}\n{detail[:2000]}')


def run(tessera, script, args=()):
    r = subprocess.run([tessera, *args], input=script, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


# A query over a table of several row groups whose rows come from a parallel scan: the
# streamed rows must keep the table's order. A later row would fail its cast ("x"), so a
# query stopped early does not fail.
SETUP = "CREATE TABLE t AS SELECT i, i % 7 AS g, 'r' || CAST(i AS VARCHAR) AS s FROM range(300000) r(i);\n"
N = 300000
FAILS_LATE = ("SELECT i, CAST(CASE WHEN i < 299000 THEN '1' ELSE 'x' END AS INTEGER) AS v FROM t;\n")


def main():
    tessera = os.path.abspath(sys.argv[1])
    args = ['--threads', '2']

    # csv: every row in order, NULLs empty, header first.
    rc, out, err = run(tessera, ".mode csv\n" + SETUP + "SELECT i, CASE WHEN g = 3 THEN NULL ELSE s END AS s FROM t WHERE g <> 5;\n", args)
    want = ['i,s'] + [f'{i},{"" if i % 7 == 3 else "r" + str(i)}' for i in range(N) if i % 7 != 5]
    check(rc == 0 and out.splitlines() == want, 'csv rows in order', f'rc {rc} err {err!r} head {out[:300]!r}')

    # json: the same rows as objects.
    rc, out, err = run(tessera, ".mode json\n" + SETUP + "SELECT i, s FROM t WHERE i % 1000 = 0;\n", args)
    try:
        rows = json.loads(out)
    except ValueError:
        rows = None
    check(rc == 0 and rows == [{'i': i, 's': f'r{i}'} for i in range(0, N, 1000)], 'json rows', f'rc {rc} err {err!r} {out[:300]!r}')
    rc, out, err = run(tessera, ".mode json\nSELECT 1 AS a WHERE false;\n", args)
    check(rc == 0 and out == '[]\n', 'json empty result', repr(out))

    # table: the first and last halves of .maxrows with the exact count.
    rc, out, err = run(tessera, SETUP + ".maxrows 4\nSELECT i FROM t WHERE i < 9000;\n", args)
    lines = out.splitlines()
    body = [l for l in lines if l.startswith('│') and l.strip('│ ') not in ('i', 'bigint')]
    check(rc == 0 and [l.strip('│ ') for l in body] == ['0', '1', '·', '8998', '8999'] and lines[-1] == '9000 rows (4 shown)',
          'table head and tail', out)

    # table: more than 10,000 rows counted: the query stops (the late failing row is never
    # computed), the first .maxrows rows show and the count is unknown.
    rc, out, err = run(tessera, SETUP + ".maxrows 6\n" + FAILS_LATE, args)
    lines = out.splitlines()
    body = [l.split('│')[1].strip() for l in lines if l.startswith('│')][2:]
    check(rc == 0 and body == ['0', '1', '2', '3', '4', '5', '·'] and lines[-1] == '? rows (>10000 rows, 6 shown)',
          'table stops counting', f'rc {rc} err {err!r}\n{out}')
    # ... while csv prints rows up to the failure, then the error.
    rc, out, err = run(tessera, ".mode csv\n" + SETUP + "" + FAILS_LATE, args)
    check(rc == 1 and out.startswith('i,v\n0,1\n1,1\n') and 'x' in err, 'csv streams until the error', f'rc {rc} err {err!r}')

    # .maxrows above the counting limit: up to .maxrows rows all show.
    rc, out, err = run(tessera, SETUP + ".maxrows 12000\nSELECT i FROM t WHERE i < 12000;\nSELECT i FROM t WHERE i < 12001;\n", args)
    footers = [l for l in out.splitlines() if 'rows' in l and not l.startswith('│')]
    check(rc == 0 and footers == ['12000 rows', '? rows (>12000 rows, 12000 shown)'], '.maxrows above 10000', str(footers))

    # .maxrows 0: every row, counted exactly (no limit on counting either).
    rc, out, err = run(tessera, SETUP + ".maxrows 0\nSELECT i FROM t WHERE i < 12000 ORDER BY i DESC;\n", args)
    lines = out.splitlines()
    body = [l.strip('│ ') for l in lines if l.startswith('│')][2:]
    check(rc == 0 and body == [str(i) for i in range(11999, -1, -1)] and lines[-1] == '12000 rows', '.maxrows 0', out[-500:])

    # A blocking plan (ORDER BY, GROUP BY) streams its rows at the end, the same rows.
    rc, out, err = run(tessera, ".mode csv\n" + SETUP + "SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY g;\n", args)
    want = ['g,n'] + [f'{g},{sum(1 for i in range(N) if i % 7 == g)}' for g in range(7)]
    check(rc == 0 and out.splitlines() == want, 'blocking plan', out)

    # Statements that do not stream (EXPLAIN, SHOW) and status lines print as before.
    rc, out, err = run(tessera, "CREATE TABLE x (a INTEGER);\nINSERT INTO x VALUES (1);\nSHOW TABLES;\n", args)
    check(rc == 0 and 'CREATE TABLE' in out and 'INSERT 1' in out and '│ x ' in out and out.rstrip().endswith('1 row'),
          'non-streaming statements', out)

    if failures:
        for f in failures:
            print('FAIL:', f)
        sys.exit(1)
    print('ok: csv, json and table output of streamed results, .maxrows, early stop')


if __name__ == '__main__':
    main()
