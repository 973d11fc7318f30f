#!/usr/bin/env python3
"""Checks that tessera names result columns as DuckDB does (parser/expression_name.hpp).

  python test/duckdb/column_names.py TESSERA_BINARY

Each expression below is selected without an alias, from the same table in both engines
(DuckDB: the PyPI package pinned in test/requirements.txt; tessera: one in-memory shell
run, --json output for the names), and the two column names must be equal. Exits 1 and
prints every difference otherwise.
"""
import json
import subprocess
import sys

import duckdb

SETUP = ('CREATE TABLE t (a INTEGER, b DOUBLE, s VARCHAR, d DATE, x DECIMAL(10,2), bb BOOLEAN, "my col" INTEGER, '
         '"Mixed" INTEGER); INSERT INTO t VALUES (1, 2.5, \'x\', DATE \'2020-01-01\', 1.25, true, 3, 4);')

EXPRESSIONS = [
    # columns and constants
    "a", "t.a", '"my col"', "1", "1.5", "2.50", ".5", "12345678901234567890", "1e3", "1.5e-3", "'lit'", "'it''s'",
    "NULL", "true", "false", "DATE '2020-01-01'", "-1", "- 1.5", "+a",
    # operators
    "a+1", "a - 1", "a*2", "a/2", "1/0", "a//2", "a%2", "-a", "-(-a)", "- (a + 1)", "-a * 2", "1 + -2", "x * 2",
    "x + 1.25", "a & 1", "a | 2", "a << 1", "a >> 1", "s||'z'", "'a' || 'b' || 'c'", "a + 1 + 2", "a + (1 + 2)", "(a + 1) * 2", "((a + 1))",
    't.a + 1', 'A + 1', '"my col" + 1', '"Mixed" + 1',
    # comparisons and logic
    "a=1", "a<>1", "a!=1", "a<1", "a<=1", "a>1", "a>=1", "a = -1", "a + 1 > 2", "not (a>1)", "not (a = 1)", "not bb",
    "not not bb", "a>1 and b<2", "a>1 or b<2", "a > 1 and b < 2 and s = 'x'", "a > 1 or b < 2 or s = 'x'",
    "(a > 1 and b < 2) or s = 'x'", "not (a is null)",
    # predicates
    "a between 1 and 2", "a not between 1 and 2", "a in (1,2)", "a not in (1,2)", "a in (1)", "s like 'x%'",
    "s not like 'x%'", "s ilike 'x%'", "s not ilike 'x'", "not (s like 'x')", "a is null", "a is not null",
    "a is distinct from 2", "a is not distinct from 2",
    # casts
    "cast(a as bigint)", "a::bigint", "a::int", "cast(a as double)", "cast(1 as double)", "1::double",
    "cast(a as varchar)", "'x'::varchar", "cast(null as int)", "null::int", "try_cast(s as int)",
    "cast(a as decimal(10,2))", "'2020-01-01'::date", "cast(a as boolean)",
    # functions and aggregates
    "sum(a)", "SUM(a)", "count(*)", "count(a)", "count(1)", "count(distinct a)", "sum(distinct a)", "avg(b)",
    "min(s)", "lower(s)", "Lower(s)", "upper(s)", "abs(a)", "round(b, 1)", "length(s)", "greatest(a, 2)",
    "coalesce(a, 2)", "ifnull(a, 1)", "nullif(a, 1)", "substring(s, 1, 2)", "substr(s, 1, 2)", "trim(s)",
    "year(d)", "month(d)", "day(d)", "left(s, 1)", "right(s, 1)", "replace(s, 'a', 'b')", "repeat(s, 2)",
    "date_part('year', d)", "date_trunc('month', d)", "extract(year from d)", "string_agg(s, ',')",
    "max(a) filter (where a > 1)", "count(*) filter (where a > 1)", "count_if(a > 1)", "now()", "current_date",
    # CASE
    "case when a>1 then 'big' else 'small' end", "case a when 1 then 'one' end",
    "case when a > 1 then 1 when a > 0 then 2 end",
]


def duckdb_names():
    con = duckdb.connect()
    for stmt in SETUP.split(';'):
        if stmt.strip():
            con.execute(stmt)
    return [con.execute(f"SELECT {e} FROM t").description[0][0] for e in EXPRESSIONS]


def tessera_names(binary):
    names = []
    for e in EXPRESSIONS:
        r = subprocess.run([binary, ':memory:', '--json', '-c', SETUP, '-c', f"SELECT {e} FROM t"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            names.append('error: ' + r.stderr.strip())
            continue
        out = r.stdout.strip()
        at = 0 if out.startswith('[') else out.rfind('\n[') + 1
        try:
            rows = json.loads(out[at:])
            names.append(next(iter(rows[0])))
        except (ValueError, IndexError, StopIteration):
            names.append('unreadable output: ' + out[:80])
    return names


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    want, got = duckdb_names(), tessera_names(sys.argv[1])
    bad = [(e, w, g) for e, w, g in zip(EXPRESSIONS, want, got) if w != g]
    for e, w, g in bad:
        print(f"SELECT {e}: DuckDB names it {w!r}, tessera {g!r}")
    print(f"{len(EXPRESSIONS) - len(bad)} of {len(EXPRESSIONS)} column names as DuckDB's")
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
