#!/usr/bin/env python3
"""Random differential test: seeded random SQL queries over TPC-H data, on tessera and DuckDB.

  python test/duckdb/random_queries.py --tessera BINARY [--seed N] [--count N] [--sf SF]
         [--device cpu|gpu|auto] [--module DIR] [--work DIR] [--timeout S] [--show N]

1. `tessera gen tpch --sf SF` writes the .tbl files; DuckDB (in memory) and a tessera
   database (on disk, WORK/tessera.tdb) load them, and both create the table `mix`
   (random_gen.MIX_SQL: a column of each type, INTEGER BIGINT DECIMAL DOUBLE DATE VARCHAR
   BOOLEAN, each with NULLs) from lineitem.
2. Probes: one small statement per optional construct (RIGHT/FULL JOIN, FILTER, window
   functions, INTERSECT/EXCEPT ALL); a construct tessera answers "not supported" for is
   skipped (its queries are counted as skipped, not run).
3. random_gen.Gen(seed) makes COUNT queries (filters with every operator and type, CASE,
   casts, arithmetic, string functions, LIKE, IN lists, BETWEEN, inner/left/right/full
   joins and the NULLs of outer joins, scalar/EXISTS/IN/correlated subqueries (non-equality
   correlation under aggregates, IN in the select list, LATERAL, two levels out), GROUP BY
   with aggregates, DISTINCT and HAVING, UNION [ALL]/INTERSECT/EXCEPT, window functions,
   ORDER BY with a total order and LIMIT/OFFSET, and the ternary-logic partition check).
   Each runs on DuckDB (an error there: the query is skipped) and on tessera in one worker
   process (the Python package; --module DIR puts the extension _tessera*.so built in DIR
   first on the path, with this checkout's python/tessera). A crash or a timeout of the
   worker is reported with the query and the worker restarts.
4. Results are compared as text (diff_common: doubles to 12 significant digits, decimals
   with their scale): as multisets, in order when the query's ORDER BY is total; result
   column types must be DuckDB's. The ternary queries must also partition on tessera
   alone: total = true + false + NULL.
Prints each mismatch, crash and unexpected tessera error with its SQL and a per-construct
summary (pass, mismatch, tessera error, not supported, DuckDB error, skipped); exits 1 on
any mismatch, crash, timeout or internal error (other tessera errors are listed).
"""
import argparse
import collections
import math
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from diff_common import TesseraError, duck_text, is_float_type, run_tessera, tables_of
from random_gen import CONSTRUCTS, MIX_SQL, TABLES, Gen

REPO = Path(__file__).resolve().parents[2]

# Statements probing the constructs tessera may lack: construct -> SQL.
PROBES = {
    'join_right': 'SELECT count(*) FROM nation a RIGHT JOIN region b ON a.n_regionkey = b.r_regionkey',
    'join_full': 'SELECT count(*) FROM nation a FULL JOIN region b ON a.n_regionkey = b.r_regionkey',
    'ternary_filter': 'SELECT count(*) FILTER (WHERE n_nationkey > 3) FROM nation',
    'window': 'SELECT row_number() OVER (ORDER BY n_nationkey) FROM nation',
    'intersect_all': 'SELECT n_regionkey FROM nation INTERSECT ALL SELECT r_regionkey FROM region',
    'except_all': 'SELECT n_regionkey FROM nation EXCEPT ALL SELECT r_regionkey FROM region',
    'is_distinct': 'SELECT count(*) FROM nation WHERE n_regionkey IS DISTINCT FROM 1',
    'is_true': 'SELECT count(*) FROM nation WHERE (n_regionkey = 1) IS TRUE',
    'ilike': "SELECT count(*) FROM nation WHERE n_name ILIKE 'a%'",
    'minmax_distinct': 'SELECT n_regionkey, min(DISTINCT n_nationkey) FROM nation GROUP BY n_regionkey',
    'date_interval': "SELECT count(*) FROM orders WHERE o_orderdate < DATE '1995-01-01' - INTERVAL '1' MONTH",
    'ordered_agg': "SELECT string_agg(n_name, ',' ORDER BY n_nationkey DESC) FROM nation",
}


# ---- the tessera worker process ---------------------------------------------------
def worker_main(conn, module_dir, db_path, device):
    if module_dir:
        sys.path.insert(0, module_dir)
    import tessera
    con = tessera.connect(db_path, device=device)
    while True:
        msg = conn.recv()
        if msg is None:
            break
        try:
            cur = con.cursor()
            cur.execute(msg)
            desc = cur.description or []
            types = [type_name(d) for d in desc]
            rows = cur.fetchall() if desc else []
            cur.close()
            conn.send(('ok', types, rows))
        except Exception as e:  # every engine error goes back to the runner
            conn.send(('err', type(e).__name__, str(e), getattr(e, 'kind', None)))


def type_name(d):
    name = str(d[1])
    if name == 'DECIMAL' and d[4] is not None:
        return f'DECIMAL({d[4]},{d[5]})'
    return name


def module_path(build_dir, work):
    """A package directory: this checkout's python/tessera with the extension built in build_dir."""
    so = sorted(Path(build_dir).glob('_tessera*.so'))
    if not so:
        raise SystemExit(f'Error: no _tessera*.so in {build_dir} (configure with -DTESSERA_BUILD_PYTHON=ON)')
    pkg = Path(work) / 'pymodule' / 'tessera'
    shutil.rmtree(pkg.parent, ignore_errors=True)
    pkg.mkdir(parents=True)
    for f in (REPO / 'python' / 'tessera').glob('*.py'):
        shutil.copy(f, pkg / f.name)
    os.symlink(so[0].resolve(), pkg / so[0].name)
    return str(pkg.parent)


class Tessera:
    """The worker: run(sql) -> ('ok', types, rows) | ('err', class, message, kind) | ('crash'|'timeout', msg)."""

    def __init__(self, module_dir, db_path, device, timeout):
        self.args = (module_dir, db_path, device)
        self.timeout = timeout
        self.start()

    def start(self):
        ctx = mp.get_context('spawn')
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, *self.args), daemon=True)
        self.proc.start()

    def run(self, sql):
        try:
            self.conn.send(sql)
            if self.conn.poll(self.timeout):
                return self.conn.recv()
            self.proc.kill()
            self.proc.join()
            self.start()
            return ('timeout', f'no answer in {self.timeout} s')
        except (EOFError, BrokenPipeError, ConnectionResetError):
            self.proc.join()
            code = self.proc.exitcode
            self.start()
            return ('crash', f'the tessera worker died (exit code {code})')

    def close(self):
        try:
            self.conn.send(None)
        except Exception:
            pass
        self.proc.join(5)


# ---- comparing ----------------------------------------------------------------------
def same_type(t, d):
    """tessera's type t is DuckDB's d, in tessera's type system: it has no TINYINT, SMALLINT
    (INTEGER instead), FLOAT (DOUBLE) or HUGEINT (BIGINT or DECIMAL(38,0))."""
    d = str(d).upper()
    if t == d:
        return True
    if d in ('TINYINT', 'SMALLINT'):
        return t == 'INTEGER'
    if d == 'FLOAT':
        return t == 'DOUBLE'
    if d == 'HUGEINT':
        return t in ('BIGINT', 'DECIMAL(38,0)')
    if d == 'INTEGER' and t == 'NULL':
        return True  # a known difference: DuckDB types a column of bare NULLs INTEGER
    return False


def texts(rows, types):
    return [[duck_text(v, types[c]) for c, v in enumerate(row)] for row in rows]


def tessera_texts(rows, duck_types):
    """tessera's values as text in DuckDB's column types' forms (doubles rounded alike)."""
    out = []
    for row in rows:
        cells = []
        for c, v in enumerate(row):
            t = duck_types[c] if c < len(duck_types) else ''
            cells.append(duck_text(v, t) if is_float_type(t) or v is None else duck_text(v, ''))
        out.append(cells)
    return out


def close_rows(t, d, float_cols):
    """Rows equal, DOUBLE cells within a relative 1e-9 (the 12-digit text forms of two
    doubles an ulp apart can differ in the last digit: a mean taken another way)."""
    for c, (x, y) in enumerate(zip(t, d)):
        if x == y:
            continue
        if c not in float_cols or 'NULL' in (x, y) or 'nan' in (x, y):
            return False
        if not math.isclose(float(x), float(y), rel_tol=1e-9, abs_tol=1e-12):
            return False
    return True


def compare_rows(t_rows, d_rows, ordered, float_cols=()):
    if len(t_rows) != len(d_rows):
        return f'row count {len(t_rows)} vs DuckDB {len(d_rows)}'
    if ordered:
        for i, (t, d) in enumerate(zip(t_rows, d_rows)):
            if t != d and not close_rows(t, d, float_cols):
                return f'row {i + 1}: {t} vs DuckDB {d}'
        return None
    ts, ds = collections.Counter(map(tuple, t_rows)), collections.Counter(map(tuple, d_rows))
    if ts != ds:
        # The rows that differ, paired in order of their exact cells and then their
        # DOUBLEs, may still agree within the tolerance.
        missing = sorted((ds - ts).elements(), key=lambda r: float_key(r, float_cols))
        extra = sorted((ts - ds).elements(), key=lambda r: float_key(r, float_cols))
        if float_cols and all(close_rows(t, d, float_cols) for t, d in zip(extra, missing)):
            return None
        return f'different rows; DuckDB has {missing[:3]}; tessera has {extra[:3]}'
    return None


def float_key(row, float_cols):
    exact = tuple(v for c, v in enumerate(row) if c not in float_cols)
    approx = tuple(float(v) if v not in ('NULL', 'nan') else float('inf') for c, v in enumerate(row) if c in float_cols)
    return exact, approx


def compare_types(t_types, d_types, d_rows):
    """None when the column types agree. A column DuckDB filled with NULLs only is left
    out: DuckDB folds NULL operands of arithmetic and functions to the untyped NULL and types
    the result by its overload resolution (CAST(NULL AS DECIMAL(15,2)) * x is INTEGER there,
    ceil(round(CAST(NULL AS DECIMAL(15,2)), 0)) DOUBLE), rules tessera does not copy."""
    if len(t_types) != len(d_types):
        return f'{len(t_types)} columns vs DuckDB {len(d_types)}'
    def all_null(i):
        return bool(d_rows) and all(r[i] == 'NULL' for r in d_rows)
    bad = [f'column {i + 1}: {t} vs DuckDB {d}' for i, (t, d) in enumerate(zip(t_types, d_types))
           if not same_type(t, d) and not all_null(i)]
    return '; '.join(bad) or None


def is_unsupported(cls, msg, kind):
    return cls == 'NotSupportedError' or kind == 'unsupported' or 'not supported' in msg.lower()


# ---- set-up -------------------------------------------------------------------------
def load(a, work):
    tbl = work / 'tbl'
    t0 = time.time()
    run_tessera(a.tessera, ['gen', 'tpch', '--sf', f'{a.sf:g}', '--out', str(tbl)], 'tessera gen tpch')
    schema = (tbl / 'schema.sql').read_text()
    tables = tables_of(schema)
    copy = '\n'.join(f"COPY {t} FROM '{tbl / (t + '.tbl')}' (DELIMITER '|', HEADER false);" for t in tables)
    duck = duckdb.connect(':memory:')
    duck.execute(schema)
    duck.execute(copy)
    duck.execute(MIX_SQL)
    db = work / 'tessera.tdb'
    run_tessera(a.tessera, [str(db), '-c', f'{schema}\n{copy}\n{MIX_SQL};'], 'tessera load')
    print(f'TPC-H SF {a.sf:g} and mix loaded into both engines in {time.time() - t0:.1f} s', flush=True)
    return duck, db


def samples(duck):
    """Up to 40 distinct values (evenly spaced in order) of each column: the literals' pool."""
    out = {}
    for t, spec in TABLES.items():
        for c in spec['cols']:
            vals = [r[0] for r in duck.execute(f'SELECT DISTINCT {c} FROM {t} WHERE {c} IS NOT NULL ORDER BY 1').fetchall()]
            step = max(1, len(vals) // 40)
            out[(t, c)] = vals[::step][:40]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--tessera', required=True, help='the tessera binary (data generation and loading)')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=1000)
    ap.add_argument('--sf', type=float, default=0.01)
    ap.add_argument('--device', choices=['cpu', 'gpu', 'auto'], default='cpu')
    ap.add_argument('--module', help='directory holding the built extension _tessera*.so (else the installed package)')
    ap.add_argument('--work', help='work directory (default: a new temporary one)')
    ap.add_argument('--timeout', type=float, default=60, help='seconds one tessera query may take')
    ap.add_argument('--show', type=int, default=30, help='print at most this many failures in full')
    ap.add_argument('--print-queries', action='store_true', help='print every query before running it')
    a = ap.parse_args()
    a.tessera = str(Path(a.tessera).resolve())
    if not a.sf > 0 or a.count < 0:
        ap.error('--sf must be positive and --count not negative')
    work = Path(a.work).resolve() if a.work else Path(tempfile.mkdtemp(prefix='random-queries-'))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if a.device == 'gpu':
        try:
            run_tessera(a.tessera, ['--device', 'gpu', '-c', 'select 1'], 'GPU check')
        except TesseraError as e:
            print(f'skipped: {e}')
            return 77
    print(f'random differential test: seed {a.seed}, {a.count} queries, SF {a.sf:g}, device {a.device}, '
          f'DuckDB {duckdb.__version__}, work dir {work}', flush=True)
    duck, db = load(a, work)
    module_dir = module_path(a.module, work) if a.module else None
    tess = Tessera(module_dir, str(db), a.device, a.timeout)

    skip = set()
    for construct, sql in PROBES.items():
        res = tess.run(sql)
        if res[0] == 'err' and is_unsupported(res[1], res[2], res[3]):
            skip.add(construct)
            print(f'probe: {construct} not supported by tessera ({res[2].splitlines()[0]}): skipped')
    gen = Gen(a.seed, samples(duck), skip)

    stats = collections.defaultdict(collections.Counter)
    failures = []
    other_errors = collections.Counter()
    t_start = time.time()
    t_duck = t_tess = 0.0
    for n in range(a.count):
        construct, sql, ordered = gen.query()
        st = stats[construct]
        if a.print_queries:
            print(f'[{n}] {sql}', flush=True)
        t0 = time.time()
        try:
            dc = duck.execute(sql)
            d_types = [str(d[1]) for d in dc.description]
            d_rows = texts(dc.fetchall(), d_types)
        except duckdb.Error:
            st['duckdb_error'] += 1
            continue
        t1 = time.time()
        res = tess.run(sql)
        t_duck += t1 - t0
        t_tess += time.time() - t1
        if res[0] in ('crash', 'timeout'):
            st[res[0]] += 1
            failures.append((construct, res[0], res[1], sql))
            continue
        if res[0] == 'err':
            _, cls, msg, kind = res
            if is_unsupported(cls, msg, kind):
                st['not_supported'] += 1
                other_errors[f'not supported: {msg.splitlines()[0][:120]}'] += 1
            elif cls == 'InternalError' or kind == 'internal':
                st['internal_error'] += 1
                failures.append((construct, 'internal error', msg, sql))
            else:
                st['tessera_error'] += 1
                other_errors[f'{cls}: {msg.splitlines()[0][:120]}'] += 1
                if other_errors[f'{cls}: {msg.splitlines()[0][:120]}'] == 1:
                    print(f'tessera error ({construct}): {msg.splitlines()[0]}\n  {sql}', flush=True)
            continue
        _, t_types, t_raw = res
        t_rows = tessera_texts(t_raw, d_types)
        float_cols = {c for c, t in enumerate(d_types) if is_float_type(t)}
        diff = compare_types(t_types, d_types, d_rows) or compare_rows(t_rows, d_rows, ordered, float_cols)
        if diff is None and construct.startswith('ternary'):
            total, yes, no, unknown = (int(x) for x in t_rows[0])
            if total != yes + no + unknown:
                diff = f'tessera does not partition: {total} != {yes} + {no} + {unknown}'
        if diff:
            st['mismatch'] += 1
            failures.append((construct, 'mismatch', diff, sql))
            if len(failures) <= a.show:
                print(f'MISMATCH ({construct}): {diff}\n  {sql}', flush=True)
        else:
            st['pass'] += 1
        if (n + 1) % 500 == 0:
            print(f'{n + 1} queries, {time.time() - t_start:.0f} s', flush=True)
    tess.close()
    for c, n in gen.avoided.items():
        stats[c]['skipped'] += n

    shown = 0
    for construct, what, detail, sql in failures:
        if what == 'mismatch':
            continue
        shown += 1
        if shown <= a.show:
            print(f'{what.upper()} ({construct}): {detail.splitlines()[0] if detail else ""}\n  {sql}')
    if other_errors:
        print('\ntessera errors (not failures) by message:')
        for m, c in other_errors.most_common():
            print(f'  {c:5d}  {m}')
    cols = ['pass', 'mismatch', 'tessera_error', 'not_supported', 'internal_error', 'crash', 'timeout',
            'duckdb_error', 'skipped']
    print(f'\n{"construct":<22}' + ''.join(f'{c:>15}' for c in cols))
    total = collections.Counter()
    for c in CONSTRUCTS:
        if c in stats:
            total.update(stats[c])
            print(f'{c:<22}' + ''.join(f'{stats[c][k]:>15}' for k in cols))
    print(f'{"all":<22}' + ''.join(f'{total[k]:>15}' for k in cols))
    bad = total['mismatch'] + total['crash'] + total['timeout'] + total['internal_error']
    print(f'\n{a.count} queries in {time.time() - t_start:.0f} s (seed {a.seed}): {total["pass"]} passed, '
          f'{total["mismatch"]} mismatches, {total["crash"]} crashes, {total["timeout"]} timeouts, '
          f'{total["internal_error"]} internal errors; {t_duck:.0f} s in DuckDB, {t_tess:.0f} s in tessera')
    return 1 if bad else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except TesseraError as e:
        print(f'Error: {e}', file=sys.stderr)
        sys.exit(1)
