#!/usr/bin/env python3
"""Cross-checks the expected results in test/sql/**/*.test against DuckDB, whose semantics
tessera follows.

  python test/duckdb/check_sql_tests.py [--allow FILE] [FILE.test ...]
                                        (default: every test/sql file)

Each file runs in a fresh in-memory DuckDB (the PyPI package pinned in
test/requirements.txt) from the repository root. Prints the records where DuckDB
disagrees: a query whose rows differ, a `statement ok` that fails, or a `statement error`
that succeeds. Values are printed the way tessera prints them (DOUBLE 2 as "2.0", NULL as
NULL, the empty string as "(empty)"). A record may carry the comment line
`# duckdb: differs <why>` just above it: a documented, deliberate difference, listed but
not counted. Exits 1 when any other record disagrees.
"""
import datetime
import decimal
import math
import os
import re
import sys
import tempfile
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[2]


def parse(text):
    lines = [l.rstrip('\r') for l in text.split('\n')]
    records = []
    i = 0
    note = None
    while i < len(lines):
        header = lines[i]
        if not header.strip():
            i += 1
            note = None
            continue
        if header.startswith('#'):
            m = re.match(r'#\s*duckdb:\s*differs\b(.*)', header)
            if m:
                note = m.group(1).strip() or 'documented difference'
            i += 1
            continue
        r = {'line': i + 1, 'header': header.split(), 'sql': '', 'expected': None, 'differs': note}
        note = None
        if r['header'][0] == 'halt':
            break
        if r['header'][0] == 'require':  # a build feature (DuckDB has them all)
            i += 1
            continue
        i += 1
        while i < len(lines) and lines[i].strip():
            if lines[i].strip() == '----':
                i += 1
                r['expected'] = []
                while i < len(lines) and lines[i].strip():
                    r['expected'].append(lines[i])
                    i += 1
                break
            r['sql'] += lines[i] + '\n'
            i += 1
        records.append(r)
    return records


def interval_text(months, days, micros):
    """DuckDB's text of an INTERVAL ('1 year 2 months 3 days 04:05:06.5', '00:00:00')."""
    parts = []
    for v, unit in ((int(months / 12), 'year'), (months - int(months / 12) * 12, 'month'), (days, 'day')):
        if v:
            parts.append(f"{v} {unit}{'' if abs(v) == 1 else 's'}")
    if micros or not parts:
        sign = '-' if micros < 0 else ''
        us = abs(micros)
        secs = us // 1000000
        parts.append(f'{sign}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}' + fraction(us % 1000000))
    return ' '.join(parts)


def blob_text(b):
    return ''.join(chr(c) if 0x20 <= c <= 0x7e and c != 0x5c else '\\x%02X' % c for c in b)


def fraction(micros):
    return ('.%06d' % micros).rstrip('0') if micros else ''


def text(value, type_name):
    if value is None:
        return 'NULL'
    if re.match(r'^(DOUBLE|FLOAT)', type_name):
        d = float(value)
        if math.isnan(d):
            return 'nan'
        if math.isinf(d):
            return 'inf' if d > 0 else '-inf'
        if d.is_integer() and abs(d) < 1e16:
            return f'{int(d)}.0'
        return repr(d)
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (bytes, bytearray)):
        s = blob_text(value)
        return '(empty)' if s == '' else s
    if isinstance(value, decimal.Decimal):
        s = format(value, 'f')
    elif isinstance(value, datetime.datetime):
        # DuckDB's text: the fraction of a second without trailing zeros
        s = value.replace(microsecond=0).isoformat(sep=' ') + fraction(value.microsecond)
    elif isinstance(value, datetime.time):
        s = value.replace(microsecond=0).isoformat() + fraction(value.microsecond)
    elif isinstance(value, datetime.date):
        s = value.isoformat()
    else:
        s = str(value)
    return '(empty)' if s == '' else s


def check_file(path):
    records = parse(path.read_text())
    # __TEST_DIR__ names a fresh directory per file, as in the sqllogictest runner.
    with tempfile.TemporaryDirectory(prefix='check-sql-') as test_dir:
        for r in records:
            r['sql'] = r['sql'].replace('__TEST_DIR__', test_dir)
        return check_records(path, records)


def check_records(path, records):
    con = duckdb.connect(':memory:')
    problems = documented = 0
    rel = os.path.relpath(path, REPO)

    def report(r, msg):
        nonlocal problems, documented
        sql = r['sql'].strip().replace('\n', '\n    ')
        if r['differs']:
            documented += 1
            print(f"{rel}:{r['line']}: (documented: {r['differs']}) {msg.splitlines()[0]}")
        else:
            problems += 1
            print(f"{rel}:{r['line']}: {msg}\n    {sql}")

    for r in records:
        kind = ' '.join(r['header'][:2])
        try:
            if r['header'][0] == 'statement':
                con.execute(r['sql'])
                if kind == 'statement error':
                    report(r, 'DuckDB accepts a statement expected to fail')
                continue
            cur = con.execute(r['sql'])
            types = [str(d[1]) for d in cur.description]
            rows = [list(row) for row in cur.fetchall()]
            iv = [c for c, t in enumerate(types) if t == 'INTERVAL']
            if iv:  # Python's timedelta loses the months: the fields through Arrow
                tbl = con.execute(r['sql']).to_arrow_table()
                for c in iv:
                    for k, v in enumerate(tbl.column(c).to_pylist()):
                        rows[k][c] = None if v is None else interval_text(v.months, v.days, v.nanoseconds // 1000)
            actual = [[v if c in iv and v is not None else text(v, types[c]) for c, v in enumerate(row)]
                      for row in rows]
            expected = [l.split('\t') for l in r['expected'] or []]
            mode = r['header'][2] if len(r['header']) > 2 else 'nosort'
            if mode == 'rowsort':
                actual = sorted('\t'.join(x) for x in actual)
                expected = sorted('\t'.join(x) for x in expected)
            elif mode == 'valuesort':
                actual = sorted(v for x in actual for v in x)
                expected = sorted(v for x in expected for v in x)
            else:
                actual = ['\t'.join(x) for x in actual]
                expected = ['\t'.join(x) for x in expected]
            if actual != expected:
                a = '\n      '.join(actual)
                e = '\n      '.join(expected)
                report(r, f"DuckDB returns\n      {a}\n    expected\n      {e}\n    types {', '.join(types)}")
        except duckdb.Error as e:
            if kind != 'statement error':
                report(r, f"DuckDB error: {str(e).splitlines()[0]}")
    con.close()
    return problems, documented


def main(argv):
    files = [Path(f).resolve() for f in argv]
    os.chdir(REPO)
    if not files:
        files = sorted((REPO / 'test' / 'sql').rglob('*.test'))
    total = documented = 0
    for f in files:
        p, d = check_file(f)
        total += p
        documented += d
    print(f'{total} record(s) where DuckDB disagrees ({documented} documented differences) in {len(files)} file(s)')
    return 1 if total else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
