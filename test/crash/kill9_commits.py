"""kill -9 while writing: the database reopens with exactly the committed state.

Usage: kill9_commits.py TESSERA [ITERATIONS] [SEED]

A `tessera DB` child process reads a seeded, deterministic stream of units from standard
input: single INSERT / UPDATE / DELETE statements (each its own commit), explicit BEGIN ...
COMMIT transactions of several of them, BEGIN ... ROLLBACK ones, large INSERT ... SELECT
commits (60,000 rows), CREATE TABLE AS / DROP TABLE. After each
unit the child prints "unit N" (the shell flushes after every statement), so a printed
marker means that unit's COMMIT had returned. The parent sends SIGKILL at a seeded random
moment (after a random unit's predecessor reported, plus a random delay; longer where the
unit is a large commit so that the kill lands inside its COMMIT), then reopens the
database and requires that it opens and holds exactly the state after the last reported
unit or after the one in flight: never a torn state, never a lost reported commit. Each
iteration continues on the database the last one left.

The expected states come from replaying the same units in an in-memory DuckDB (the
project's oracle): the committed units so far, then the one in flight in a transaction that
is kept when the reopened database holds it. A state is compared by a fingerprint of every
table (row count, sums over every column, a mixing hash) and the list of tables.
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import duckdb

FINGERPRINT = ("SELECT count(*), coalesce(sum(id), 0), coalesce(sum(v), 0), coalesce(sum(length(s)), 0), "
               "coalesce(sum((id * 7919 + v * 104729 + length(s)) % 999983), 0) FROM {t}")
TABLES = "SELECT table_name FROM information_schema.tables ORDER BY 1"


class Units:
    """The deterministic stream: each unit is (kind, statements); kind 'auto' (one
    statement, its own commit), 'commit' (BEGIN ... COMMIT) or 'rollback'."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.next_id = 0
        self.extra = 0  # tables u<N> created so far

    def _insert_small(self):
        rows = []
        for _ in range(self.rng.randint(1, 5)):
            i = self.next_id
            self.next_id += 1
            rows.append(f"({i}, {self.rng.randint(0, 1000)}, 's{self.rng.randint(0, 99999)}')")
        return "INSERT INTO t VALUES " + ", ".join(rows)

    def _insert_big(self):
        base = self.next_id
        n = 60000
        self.next_id += n
        return (f"INSERT INTO t SELECT i + {base}, (i * 37) % 1009, 'b' || CAST(i % 5000 AS VARCHAR) "
                f"FROM range({n}) r(i)")

    def _update(self):
        m = self.rng.randint(2, 13)
        return f"UPDATE t SET v = v + {self.rng.randint(1, 9)}, s = s || 'u' WHERE id % {m} = {self.rng.randrange(m)}"

    def _delete(self):
        m = self.rng.randint(5, 40)
        # Old rows go, so that the table stays a few hundred thousand rows at most.
        return (f"DELETE FROM t WHERE (id % {m} = {self.rng.randrange(m)} AND v % 3 = 0) "
                f"OR id < {max(0, self.next_id - 200000)}")

    def _statement(self):
        r = self.rng.random()
        if r < 0.4:
            return self._insert_small()
        if r < 0.65:
            return self._update()
        return self._delete()

    def next(self):
        r = self.rng.random()
        if r < 0.35:
            return ('auto', [self._statement()])
        if r < 0.6:
            return ('commit', [self._statement() for _ in range(self.rng.randint(2, 5))])
        if r < 0.7:
            return ('rollback', [self._statement() for _ in range(self.rng.randint(1, 3))])
        if r < 0.85:
            if self.rng.random() < 0.5:
                return ('auto', [self._insert_big()])
            return ('commit', [self._insert_big(), self._update()])
        if r < 0.93:
            self.extra += 1
            return ('auto', [f"CREATE TABLE u{self.extra} AS SELECT id, v, s FROM t WHERE id % 17 = {self.extra % 17}"])
        if self.extra:
            return ('auto', [f"DROP TABLE IF EXISTS u{self.rng.randint(1, self.extra)}"])
        return ('auto', [self._update()])


def unit_sql(unit):
    kind, stmts = unit
    if kind == 'auto':
        return stmts[0] + ";\n"
    return "BEGIN;\n" + "".join(s + ";\n" for s in stmts) + ("COMMIT;\n" if kind == 'commit' else "ROLLBACK;\n")


def fingerprint(query_one, tables):
    return tuple((t, tuple(int(x) for x in query_one(FINGERPRINT.format(t=t)))) for t in tables)


def oracle_state(con):
    tables = [r[0] for r in con.execute(TABLES).fetchall()]
    return fingerprint(lambda q: con.execute(q).fetchone(), tables)


def db_state(tessera, path, fail):
    """Opens the database in a fresh process and fingerprints it (fails if it cannot): the
    table list first, then each table, over one shell's standard input."""
    p = subprocess.Popen([tessera, path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)

    def ask(sql):
        p.stdin.write(sql + "SELECT '-- end';\n")
        p.stdin.flush()
        lines = []
        for line in p.stdout:
            if line.strip() == '-- end':
                return lines
            lines.append(line.strip())
        p.stdin.close()
        fail(f"the database does not open or read after kill -9: rc {p.wait()}, {p.stderr.read().strip()}")

    tables = ask(".mode csv\n.headers off\n" + TABLES + ";\n")
    lines = ask("".join(FINGERPRINT.format(t=t) + ";\n" for t in tables))
    p.stdin.close()
    if p.wait(60) != 0:
        fail(f"reading the database after kill -9 failed: rc {p.returncode}, {p.stderr.read().strip()}")
    return tuple((t, tuple(int(x) for x in lines[i].split(','))) for i, t in enumerate(tables))


def apply(con, unit, keep=True):
    kind, stmts = unit
    if kind == 'rollback':
        return
    con.execute("BEGIN")
    for s in stmts:
        con.execute(s)
    if keep:
        con.execute("COMMIT")


def main():
    tessera = os.path.abspath(sys.argv[1])
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261126
    rng = random.Random(seed)
    units = Units(seed + 1)
    work = tempfile.mkdtemp(prefix='tessera-kill9-')
    db = os.path.join(work, 'db.tdb')
    oracle = duckdb.connect()
    setup = ('auto', ["CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT, s VARCHAR)"])
    started = time.monotonic()
    stats = {'killed': 0, 'in_flight_kept': 0, 'finished': 0, 'units': 0}

    def fail(why):
        print(f"FAIL (seed {seed}): {why}")
        print(f"database kept at {db}")
        sys.exit(1)

    r = subprocess.run([tessera, db], input=unit_sql(setup), capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail("setup: " + r.stderr)
    apply(oracle, setup)

    for it in range(iterations):
        batch = [units.next() for _ in range(rng.randint(3, 10))]
        script = ".mode csv\n.headers off\n" + "".join(
            unit_sql(u) + f"SELECT 'unit {j}';\n" for j, u in enumerate(batch))
        target = rng.randrange(len(batch) + 1)  # kill during unit `target` (len: after all)
        big = target < len(batch) and 'range(' in ' '.join(batch[target][1])
        delay = rng.uniform(0, 0.4 if big else 0.05)
        child = subprocess.Popen([tessera, db, '--threads', '2'], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        reported = []
        seen = threading.Condition()

        def reader():
            for line in child.stdout:
                with seen:
                    reported.append(line.rstrip('\n'))
                    seen.notify_all()
            with seen:
                seen.notify_all()

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        child.stdin.write(script)
        child.stdin.close()
        with seen:  # until unit target-1 reported (or the child ended)
            seen.wait_for(lambda: len(reported) >= target or child.poll() is not None, timeout=120)
        time.sleep(delay)
        killed = child.poll() is None
        if killed:
            os.kill(child.pid, signal.SIGKILL)
        child.wait()
        t.join(30)
        err = child.stderr.read()
        done = sum(1 for l in reported if l.startswith('unit '))
        if [l for l in reported if l.startswith('unit ')] != [f'unit {j}' for j in range(done)]:
            fail(f"iteration {it}: unexpected output {reported[:5]}")
        if not killed and (child.returncode != 0 or done != len(batch)):
            fail(f"iteration {it}: the child failed on its own: rc {child.returncode} {err.strip()}")
        if killed and err.strip():
            fail(f"iteration {it}: the child reported an error before the kill: {err.strip()}")
        stats['killed' if killed else 'finished'] += 1

        got = db_state(tessera, db, fail)
        for u in batch[:done]:
            apply(oracle, u)
        stats['units'] += done
        expected = oracle_state(oracle)
        if got != expected:
            if done < len(batch) and batch[done][0] != 'rollback':
                apply(oracle, batch[done], keep=False)  # the unit in flight, committed?
                in_flight = oracle_state(oracle)
                if got == in_flight:
                    oracle.execute("COMMIT")
                    stats['in_flight_kept'] += 1
                    stats['units'] += 1
                    continue
                oracle.execute("ROLLBACK")
            fail(f"iteration {it}: after {done} reported units (kill during unit {done}: "
                 f"{batch[done] if done < len(batch) else 'none'}) the database holds\n  {got}\n"
                 f"expected\n  {expected}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok: {iterations} iterations in {time.monotonic() - started:.1f} s: {stats['killed']} killed "
          f"({stats['in_flight_kept']} with the unit in flight committed), {stats['finished']} finished; "
          f"{stats['units']} units committed in all")


if __name__ == '__main__':
    main()
