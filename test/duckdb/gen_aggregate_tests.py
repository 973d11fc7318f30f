#!/usr/bin/env python3
"""Writes test/sql/aggregate/{bit_aggregates,product_fsum,moments,mad}.test: each query's
expected rows are DuckDB's (printed as check_sql_tests.py prints them).

  .venv/bin/python test/duckdb/gen_aggregate_tests.py
"""
import sys
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_sql_tests import interval_text, text  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

BIG = ("CREATE TABLE big AS SELECT range AS i, (range % 1000)::INTEGER AS g, "
       "((range * 7919) % 100003 - 50000)::INTEGER AS v, ((range * 31) % 997)::DOUBLE / 8 - 60 AS d "
       "FROM range(200000)")
SMALL = [
    "CREATE TABLE t (k INTEGER, x INTEGER, y BIGINT, d DOUBLE, m DECIMAL(10,2))",
    "INSERT INTO t VALUES (1, 12, 12, 1.5, 1.25), (1, 10, -10, -2.0, 2.50), (1, NULL, NULL, NULL, NULL), "
    "(2, -1, 9223372036854775807, 4.0, -3.75), (2, 7, -9223372036854775807, 0.5, 0.10), (2, 7, 3, 0.5, 0.10), "
    "(3, NULL, NULL, NULL, NULL), (4, 5, 5, 2.0, 1.00)",
]

# A file: (name, header comment, records); a record: ('ok', sql), ('error', sql, substrings),
# ('query', sort mode, sql[, comment]).
FILES = [
    ("bit_aggregates.test",
     "bit_and, bit_or, bit_xor: INTEGER or BIGINT in, the same type out, NULL over no rows.",
     [('ok', s) for s in SMALL] + [('ok', BIG)] + [
         ('query', 'nosort', "SELECT bit_and(x), bit_or(x), bit_xor(x), bit_and(y), bit_or(y), bit_xor(y) FROM t",
          "NULLs are skipped; negative values in two's complement"),
         ('query', 'nosort', "SELECT typeof(bit_and(x)), typeof(bit_or(y)), typeof(bit_xor(NULL)) FROM t"),
         ('query', 'nosort', "SELECT k, bit_and(x), bit_or(x), bit_xor(x), bit_xor(y) FROM t GROUP BY k ORDER BY k",
          "Per group: an all-NULL group (3) is NULL, a single row its value"),
         ('query', 'nosort', "SELECT bit_and(x), bit_or(y), bit_xor(x) FROM t WHERE k > 10", "Empty input"),
         ('query', 'nosort', "SELECT bit_and(NULL), bit_or(NULL), bit_xor(NULL)"),
         ('query', 'nosort', "SELECT bit_xor(x) FILTER (WHERE k = 2), bit_or(x) FILTER (WHERE x > 7), "
          "bit_and(y) FILTER (WHERE y < 0) FROM t", "FILTER"),
         ('query', 'nosort', "SELECT bit_xor(DISTINCT x), bit_or(DISTINCT x), bit_and(DISTINCT x), bit_xor(x) FROM t",
          "DISTINCT: 7 once for bit_xor"),
         ('query', 'nosort', "SELECT k, bit_xor(DISTINCT x) FROM t GROUP BY k ORDER BY k"),
         ('query', 'nosort', "SELECT k, x, bit_or(x) OVER (PARTITION BY k ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), "
          "bit_xor(x) OVER (ORDER BY k, x ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
          "bit_and(y) OVER (PARTITION BY k) FROM t ORDER BY k, x NULLS LAST",
          "Window frames"),
         ('query', 'nosort', "SELECT count(*), sum(a), sum(o), sum(x), sum(xi) FROM "
          "(SELECT g, bit_and(v) a, bit_or(v) o, bit_xor(v) x, bit_xor(i) xi FROM big GROUP BY g)",
          "1000 groups over 200000 rows (parallel partial states merged)"),
         ('query', 'nosort', "SELECT g, bit_and(v), bit_or(v), bit_xor(v), bit_xor(i), bit_and(i) FROM big "
          "GROUP BY g ORDER BY g LIMIT 4"),
         ('query', 'nosort', "SELECT bit_xor(v), bit_or(i), bit_and(i + 1048575), bit_xor(i) FILTER (WHERE v < 0) FROM big"),
         ('query', 'nosort', "SELECT k, count(DISTINCT x), bit_xor(DISTINCT x), bit_or(y), sum(DISTINCT y) FROM t GROUP BY k ORDER BY k",
          "DISTINCT beside other DISTINCT and plain aggregates"),
         ('query', 'nosort', "SELECT count(*), sum(b), min(b), max(b) FROM (SELECT g, bit_xor(DISTINCT v % 50) b FROM big GROUP BY g)"),
         ('query', 'nosort', "SELECT k FROM t GROUP BY k HAVING bit_or(x) > 7 ORDER BY k", "HAVING, ROLLUP, a correlated subquery"),
         ('query', 'nosort', "SELECT k, bit_xor(x), bit_and(y) FROM t GROUP BY ROLLUP (k) ORDER BY k NULLS LAST"),
         ('query', 'nosort', "SELECT k, (SELECT bit_or(x) FROM t t2 WHERE t2.k = t1.k + 1) FROM (SELECT DISTINCT k FROM t) t1 ORDER BY k"),
         ('error', "SELECT bit_and(d) FROM t", ["bit_and(DOUBLE)"]),
         ('error', "SELECT bit_or(m) FROM t", ["bit_or(DECIMAL(10,2))"]),
         ('error', "SELECT bit_xor('a')", ["bit_xor(VARCHAR)"]),
         ('error', "SELECT bit_and(x, y) FROM t", ["takes exactly 1 argument"]),
     ]),
    ("product_fsum.test",
     "product, fsum (sumkahan, kahan_sum), favg: a numeric argument read as DOUBLE, a DOUBLE\n"
     "# result, NULL over no rows; fsum and favg sum with Kahan's compensation.",
     [('ok', s) for s in SMALL] + [('ok', BIG)] + [
         ('query', 'nosort', "SELECT product(x), product(y), product(d), product(m), fsum(x), sumkahan(d), kahan_sum(m), favg(x), favg(d) FROM t"),
         ('query', 'nosort', "SELECT typeof(product(x)), typeof(fsum(m)), typeof(favg(y)), typeof(product(NULL)) FROM t"),
         ('query', 'nosort', "SELECT k, product(d), fsum(d), favg(d), product(x), favg(m) FROM t GROUP BY k ORDER BY k",
          "Per group: NULL for an all-NULL group"),
         ('query', 'nosort', "SELECT product(x), fsum(d), favg(m) FROM t WHERE k > 10", "Empty input"),
         ('query', 'nosort', "SELECT product(NULL), fsum(NULL), favg(NULL)"),
         ('query', 'nosort', "SELECT fsum(x), favg(x) FROM (VALUES (0.1), (0.2), (0.3)) v(x)",
          "Compensated: 0.1 + 0.2 + 0.3 is 0.6 (sum gives 0.6000000000000001)"),
         ('query', 'nosort', "SELECT fsum(x), favg(x) FROM (VALUES (1e16), (1.0), (1.0), (-1e16)) v(x)"),
         ('query', 'nosort', "SELECT product(x) FROM (VALUES (1e300), (1e300)) v(x)", "Out of range: inf, NaN (no error)"),
         ('query', 'nosort', "SELECT product(x), fsum(x) FROM (VALUES ('inf'::DOUBLE), (0.0)) v(x)"),
         ('query', 'nosort', "SELECT fsum(x), favg(x) FROM (VALUES (1e308), (1e308)) v(x)"),
         ('query', 'nosort', "SELECT product(x) FROM (VALUES (-0.0::DOUBLE)) v(x)"),
         ('query', 'nosort', "SELECT product(d) FILTER (WHERE d > 0), fsum(x) FILTER (WHERE k <> 2), favg(y) FILTER (WHERE y < 100) FROM t",
          "FILTER"),
         ('query', 'nosort', "SELECT product(DISTINCT x), fsum(DISTINCT x), favg(DISTINCT d), product(x), fsum(x) FROM t",
          "DISTINCT"),
         ('query', 'nosort', "SELECT k, product(DISTINCT d), fsum(DISTINCT d), favg(DISTINCT d) FROM t GROUP BY k ORDER BY k"),
         ('query', 'nosort', "SELECT product(DISTINCT x), fsum(DISTINCT x), favg(DISTINCT x) FROM (VALUES (1.0::DOUBLE), ('nan'::DOUBLE), (3), (4), ('nan'::DOUBLE)) v(x)"),
         ('query', 'nosort', "SELECT x, product(x) OVER w, fsum(x) OVER w, favg(x) OVER w FROM (VALUES (1), (2), (3), (5), (8), (13)) v(x) "
          "WINDOW w AS (ORDER BY x ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) ORDER BY x", "Window frames"),
         ('query', 'nosort', "SELECT k, d, fsum(d) OVER (PARTITION BY k ORDER BY d), product(d) OVER (ORDER BY k, d NULLS FIRST) "
          "FROM t ORDER BY k, d NULLS FIRST"),
         ('query', 'nosort', "SELECT g, fsum(d), favg(d), product(CASE WHEN v % 37 = 0 THEN -1.5 WHEN v % 41 = 0 THEN 0.25 ELSE 1 END), "
          "fsum(v), favg(v) FROM big GROUP BY g ORDER BY g LIMIT 4",
          "1000 groups over 200000 rows (parallel partial states merged); the products are exact (DuckDB's\n# rounding otherwise depends on the order its threads merge in)"),
         ('query', 'nosort', "SELECT count(*), min(s), max(s), min(a), max(a) FROM "
          "(SELECT g, fsum(d) s, favg(v) a FROM big GROUP BY g)"),
         ('query', 'nosort', "SELECT fsum(d), favg(d), fsum(v), favg(v), product(CASE WHEN i % 20000 = 7 THEN -2 WHEN i % 30011 = 5 THEN 0.5 ELSE 1 END) FROM big"),
         ('query', 'nosort', "SELECT k, fsum(DISTINCT d), count(DISTINCT x), favg(d), product(y) FROM t GROUP BY k ORDER BY k",
          "DISTINCT beside other DISTINCT and plain aggregates"),
         ('query', 'nosort', "SELECT g, fsum(DISTINCT d), favg(DISTINCT v % 100), product(DISTINCT v % 3 + 2) FROM big GROUP BY g ORDER BY g LIMIT 3"),
         ('query', 'nosort', "SELECT k, product(d), fsum(x) FROM t GROUP BY ROLLUP (k) HAVING fsum(x) IS NOT NULL ORDER BY k NULLS LAST",
          "ROLLUP, HAVING, a correlated subquery"),
         ('query', 'nosort', "SELECT k, (SELECT favg(d) FROM t t2 WHERE t2.k = t1.k + 1) FROM (SELECT DISTINCT k FROM t) t1 ORDER BY k"),
         ('error', "SELECT product('a')", ["product(VARCHAR)"]),
         ('error', "SELECT fsum(DATE '2020-01-01')", ["fsum(DATE)"]),
         ('error', "SELECT favg(true)", ["favg(BOOLEAN)"]),
     ]),
    ("moments.test",
     "skewness (sample), kurtosis (sample excess), kurtosis_pop (population excess): DOUBLE,\n"
     "# from running central moments; entropy: the base-2 entropy of any type's values, 0 over\n"
     "# no rows.",
     [('ok', s) for s in SMALL] + [('ok', BIG)] + [
         ('query', 'nosort', "SELECT skewness(x), kurtosis(x), kurtosis_pop(x), entropy(x) FROM (VALUES (1), (2), (3), (10), (-4)) v(x)"),
         ('query', 'nosort', "SELECT skewness(x), kurtosis(x), kurtosis_pop(x), entropy(x) FROM (VALUES (1), (1), (1), (2)) v(x)"),
         ('query', 'nosort', "SELECT kurtosis(x), kurtosis_pop(x) FROM (VALUES (1), (2), (3), (4)) v(x)"),
         ('query', 'nosort', "SELECT skewness(x), kurtosis(x), kurtosis_pop(x), entropy(x) FROM (VALUES (1), (1), (1), (1)) v(x)",
          "No variation: skewness NaN, kurtosis NULL"),
         ('query', 'nosort', "SELECT skewness(x), kurtosis(x), kurtosis_pop(x), entropy(x) FROM (VALUES (1), (2)) v(x)",
          "Too few rows: skewness needs 3, kurtosis 4, kurtosis_pop 2"),
         ('query', 'nosort', "SELECT skewness(x), kurtosis(x), kurtosis_pop(x), entropy(x) FROM (VALUES (7)) v(x)"),
         ('query', 'nosort', "SELECT skewness(x), kurtosis(x), kurtosis_pop(x), entropy(x) FROM t WHERE k > 10",
          "Empty input: NULL, entropy 0"),
         ('query', 'nosort', "SELECT skewness(NULL), kurtosis(NULL), kurtosis_pop(NULL), entropy(NULL)"),
         ('query', 'nosort', "SELECT typeof(skewness(x)), typeof(kurtosis(m)), typeof(kurtosis_pop(y)), typeof(entropy('a')) FROM t"),
         ('query', 'nosort', "SELECT skewness(d), kurtosis(d), kurtosis_pop(m), entropy(x), entropy(m), entropy(d) FROM t"),
         ('query', 'nosort', "SELECT entropy(s), entropy(b), entropy(dt) FROM (VALUES ('a', true, DATE '2020-01-01'), "
          "('b', false, DATE '2020-01-02'), ('a', true, DATE '2020-01-01'), (NULL, NULL, NULL)) v(s, b, dt)",
          "entropy over VARCHAR, BOOLEAN, DATE"),
         ('query', 'nosort', "SELECT entropy(x), entropy(DISTINCT x) FROM (VALUES ('nan'::DOUBLE), ('nan'::DOUBLE), (-0.0::DOUBLE), (0.0::DOUBLE), (1.5)) v(x)",
          "entropy: each NaN a value of its own (DuckDB's), -0.0 equal to 0.0"),
         ('query', 'nosort', "SELECT k, skewness(d), kurtosis_pop(d), entropy(x) FROM t GROUP BY k ORDER BY k"),
         ('query', 'nosort', "SELECT skewness(d) FILTER (WHERE k < 3), kurtosis_pop(x) FILTER (WHERE x > 0), entropy(x) FILTER (WHERE k = 2) FROM t",
          "FILTER"),
         ('query', 'nosort', "SELECT skewness(DISTINCT x), kurtosis(DISTINCT x), kurtosis_pop(DISTINCT x), entropy(DISTINCT x) "
          "FROM (VALUES (1), (1), (2), (5), (9)) v(x)", "DISTINCT"),
         ('query', 'nosort', "SELECT x, skewness(x) OVER w, kurtosis_pop(x) OVER w, entropy(x % 3) OVER w FROM "
          "(VALUES (1), (2), (3), (5), (8), (13), (21)) v(x) WINDOW w AS (ORDER BY x ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) ORDER BY x",
          "Window frames"),
         ('query', 'nosort', "SELECT x, kurtosis(x) OVER (ORDER BY x), entropy(x % 2) OVER (ORDER BY x) FROM "
          "(VALUES (1), (2), (3), (5), (8), (13)) v(x) ORDER BY x"),
         ('query', 'nosort', "SELECT g, skewness(d), kurtosis(d), kurtosis_pop(v % 100), entropy(abs(v) % 2) FROM big GROUP BY g ORDER BY g LIMIT 4",
          "1000 groups over 200000 rows (parallel partial states merged); values whose powers DuckDB sums\n# exactly, and entropies of two values or equal counts (DuckDB's rounding otherwise depends on\n# the order its threads merge in)"),
         ('query', 'nosort', "SELECT skewness(d), kurtosis(d), kurtosis_pop(d), skewness(v % 100), kurtosis(v % 100), entropy(g), entropy(i % 64), entropy(i % 3 = 0) FROM big"),
         ('query', 'nosort', "SELECT g, skewness(DISTINCT v % 100), kurtosis(DISTINCT d), entropy(DISTINCT v % 7), count(DISTINCT v % 7) "
          "FROM big GROUP BY g ORDER BY g LIMIT 3", "DISTINCT over many groups"),
         ('query', 'nosort', "SELECT k, (SELECT entropy(x) FROM t t2 WHERE t2.k = t1.k + 1), (SELECT kurtosis_pop(d) FROM t t2 WHERE t2.k = t1.k) "
          "FROM (SELECT DISTINCT k FROM t) t1 ORDER BY k", "Correlated: entropy over no rows is NULL there (DuckDB's)"),
         ('query', 'nosort', "SELECT k, entropy(x), skewness(d) FROM t GROUP BY ROLLUP (k) ORDER BY k NULLS LAST"),
         ('error', "SELECT skewness(x) FROM (VALUES (1e200), (-1e200), (3e200)) v(x)", ["SKEW is out of range"]),
         ('error', "SELECT kurtosis(x) FROM (VALUES (1e200), (-1e200), (3e200), (5e200)) v(x)", ["Kurtosis is out of range"]),
         ('error', "SELECT skewness('a')", ["skewness(VARCHAR)"]),
         ('error', "SELECT entropy(x, x) FROM t", ["takes exactly 1 argument"]),
     ]),
    ("mad.test",
     "mad: the median absolute deviation from the median; DOUBLE for integers and doubles, the\n"
     "# DECIMAL type for decimals, an INTERVAL for dates, timestamps and times; NULL over no rows.",
     [('ok', s) for s in SMALL] + [('ok', BIG)] + [
         ('query', 'nosort', "SELECT mad(x), mad(y), mad(d), mad(m) FROM t"),
         ('query', 'nosort', "SELECT typeof(mad(x)), typeof(mad(y)), typeof(mad(d)), typeof(mad(m)), typeof(mad(NULL)) FROM t"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (1), (2), (3), (4), (10)) v(x)"),
         ('query', 'nosort', "SELECT mad(x), mad(x::DECIMAL(10,2)) FROM (VALUES (1), (2)) v(x)", "Two rows: between the middle ones"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (1.001), (2.5), (7.25), (3)) v(x)",
          "Decimals: interpolated in the scaled integers, truncated (0.9995 is 0.999)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (-1.5::DOUBLE), (2), (7.25), (3), (-40)) v(x)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (-2147483648), (2147483647)) v(x)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (1.0::DOUBLE), ('nan'::DOUBLE), (3), (4), ('nan'::DOUBLE)) v(x)",
          "NaN sorts after every number; inf - inf is NaN"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES ('inf'::DOUBLE), ('inf'::DOUBLE), (3)) v(x)"),
         ('query', 'nosort', "SELECT typeof(mad(DATE '2020-01-01')), typeof(mad(TIMESTAMP '2020-01-01 10:00:00')), typeof(mad(TIME '10:00:00'))",
          "Dates, timestamps and times: an INTERVAL of days and microseconds"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (DATE '2020-01-01'), (DATE '2020-01-05'), (DATE '2020-01-02')) v(x)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (DATE '2020-01-01'), (DATE '2020-01-02')) v(x)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (DATE '2020-01-01'), (DATE '2020-03-02'), (DATE '2021-03-02'), (NULL)) v(x)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (TIMESTAMP '2020-01-01 00:00:00'), (TIMESTAMP '2020-01-05 12:00:00')) v(x)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (TIMESTAMP '1960-01-01 00:00:00'), (TIMESTAMP '1960-01-01 00:00:00.000003'), "
          "(TIMESTAMP '1960-01-01 00:00:00.000010'), (TIMESTAMP '1960-01-01 00:00:00.000020')) v(x)",
          "Between two microseconds: rounded half away from zero"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (TIMESTAMP '2020-01-01 00:00:00'), (TIMESTAMP '2020-01-01 00:00:00.000005'), "
          "(TIMESTAMP '2020-01-01 00:00:00.000011')) v(x)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (TIMESTAMP '2020-01-01 00:00:00'), (TIMESTAMP '2020-01-01 00:00:00.000005')) v(x)"),
         ('query', 'nosort', "SELECT mad(x), mad(DISTINCT x) FROM (VALUES (TIME '00:00:00'), (TIME '00:00:00.000003'), (TIME '00:00:00.000010'), "
          "(TIME '00:00:00.000020'), (TIME '00:00:00.000020')) v(x)"),
         ('query', 'nosort', "SELECT mad(x) FROM (VALUES (TIME '10:00:00'), (TIME '12:00:01')) v(x)"),
         ('query', 'nosort', "SELECT g, mad(DATE '2000-01-01' + v), mad(TIMESTAMP '2000-01-01 00:00:00' + v * INTERVAL 1 SECOND) FROM big "
          "GROUP BY g ORDER BY g LIMIT 3"),
         ('query', 'nosort', "SELECT mad(x), mad(m) FROM t WHERE k > 10", "Empty input, a single row, NULLs"),
         ('query', 'nosort', "SELECT mad(NULL), mad(5), mad(2.50)"),
         ('query', 'nosort', "SELECT k, mad(x), mad(d), mad(m) FROM t GROUP BY k ORDER BY k"),
         ('query', 'nosort', "SELECT mad(x) FILTER (WHERE k = 2), mad(d) FILTER (WHERE d > 0) FROM t", "FILTER"),
         ('query', 'nosort', "SELECT mad(DISTINCT x), mad(x) FROM (VALUES (1), (1), (1), (5), (9)) v(x)", "DISTINCT"),
         ('query', 'nosort', "SELECT x, mad(x) OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING), mad(x) OVER (ORDER BY x) "
          "FROM (VALUES (1), (2), (3), (5), (8), (13), (21)) v(x) ORDER BY x", "Window frames"),
         ('query', 'nosort', "SELECT g, mad(v), mad(d), mad(v::DECIMAL(12,1) / 4), mad(CAST(v / 7 AS DECIMAL(12,3))) FROM big GROUP BY g ORDER BY g LIMIT 4",
          "1000 groups over 200000 rows (parallel partial states merged)"),
         ('query', 'nosort', "SELECT mad(v), mad(d), mad(i), mad(CAST(v / 7 AS DECIMAL(12,3))) FROM big"),
         ('error', "SELECT mad('a')", ["mad(VARCHAR)"]),
         ('error', "SELECT mad(INTERVAL 1 DAY)", ["mad(INTERVAL)"]),
     ]),
]


def main():
    for name, comment, records in FILES:
        con = duckdb.connect(':memory:')
        out = [f"# {comment}\n# Expected results from DuckDB (test/duckdb/gen_aggregate_tests.py).\n"]
        for r in records:
            if r[0] == 'ok':
                con.execute(r[1])
                out.append(f"statement ok\n{r[1]}\n")
            elif r[0] == 'error':  # a fourth field: why DuckDB accepts it (a documented difference)
                try:
                    con.execute(r[1])
                    if len(r) < 4:
                        raise SystemExit(f"DuckDB accepts {r[1]}")
                except duckdb.Error:
                    pass
                differs = f"# duckdb: differs {r[3]}\n" if len(r) > 3 else ""
                out.append(differs + "statement error\n" + r[1] + "\n----\n" + "\n".join(r[2]) + "\n")
            else:
                sql = r[2]
                cur = con.execute(sql)
                types = [str(d[1]) for d in cur.description]
                rows = [list(row) for row in cur.fetchall()]
                iv = [c for c, t in enumerate(types) if t == 'INTERVAL']
                if iv:  # Python's timedelta loses the months: the fields through Arrow (as check_sql_tests.py)
                    tbl = con.execute(sql).to_arrow_table()
                    for c in iv:
                        for k, x in enumerate(tbl.column(c).to_pylist()):
                            rows[k][c] = None if x is None else interval_text(x.months, x.days, x.nanoseconds // 1000)
                rows = ['\t'.join(v if c in iv and v is not None else text(v, types[c]) for c, v in enumerate(row))
                        for row in rows]
                letters = ''.join('R' if t in ('DOUBLE', 'FLOAT') or t.startswith('DECIMAL') else
                                  'I' if t in ('INTEGER', 'BIGINT', 'HUGEINT', 'SMALLINT', 'TINYINT') else 'T'
                                  for t in types)
                c = f"# {r[3]}\n" if len(r) > 3 else ""
                out.append(f"{c}query {letters} {r[1]}\n{sql}\n----\n" + "".join(x + "\n" for x in rows))
        (REPO / 'test' / 'sql' / 'aggregate' / name).write_text("\n".join(out))
        con.close()


if __name__ == '__main__':
    main()
