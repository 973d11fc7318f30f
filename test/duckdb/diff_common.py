"""Helpers shared by the differential scripts (ssb_diff.py, tpch_diff.py): running
tessera, reading its CSV output, putting both engines' values into the same text form,
and comparing two results (as sorted row lists, then in the order an ORDER BY fixes)."""
import datetime
import decimal
import json
import re
import subprocess


def parse_csv(text):
    """RFC 4180 CSV: rows of cells; an unquoted empty field is None (NULL), a quoted
    empty field the empty string."""
    rows = []
    n = len(text)
    i = 0
    while i < n:
        row = []
        while True:
            if i < n and text[i] == '"':
                s = []
                i += 1
                while True:
                    if i >= n:
                        raise ValueError('unterminated quoted CSV field')
                    if text[i] == '"':
                        i += 1
                        if i >= n or text[i] != '"':
                            break
                    s.append(text[i])
                    i += 1
                row.append(''.join(s))
            else:
                j = i
                while j < n and text[j] not in ',\n\r':
                    j += 1
                row.append(None if j == i else text[i:j])
                i = j
            if i >= n or text[i] != ',':
                break
            i += 1
        if i < n and text[i] == '\r':
            i += 1
        if i < n and text[i] == '\n':
            i += 1
        rows.append(row)
    return rows


def is_float_type(type_name):
    return re.match(r'^(DOUBLE|FLOAT|REAL)', type_name) is not None


def canon_double(x):
    """A double in 12 significant digits, the form both sides are compared in."""
    try:
        d = float(x)
    except (TypeError, ValueError):
        return str(x)
    if d != d:
        return 'nan'
    return repr(float(f'{d:.12g}'))


def duck_text(value, type_name):
    """A value DuckDB's Python API returned, as text."""
    if value is None:
        return 'NULL'
    if is_float_type(type_name):
        return canon_double(value)
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, decimal.Decimal):
        return format(value, 'f')  # keeps the scale: 1.50, 0.00000000
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=' ')
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def tessera_text(cell, type_name):
    """A cell of tessera's CSV output, as text."""
    if cell is None:
        return 'NULL'
    if is_float_type(type_name):
        return canon_double(cell)
    return cell


class TesseraError(Exception):
    pass


def run_tessera(binary, args, what, timeout=None):
    """Runs tessera; returns its stdout; raises TesseraError with its message on failure."""
    try:
        r = subprocess.run([binary, *args], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TesseraError(f'{what}: timed out after {timeout} s') from None
    if r.returncode != 0:
        msg = re.sub(r'^Error:\s*', '', r.stderr.strip())
        raise TesseraError(f'{what}: {msg or f"tessera exited with {r.returncode}"}')
    return r.stdout


def duck_types(cursor):
    return [str(d[1]) for d in cursor.description]


def duck_rows(cursor):
    """All rows of a DuckDB result as text cells, and the column names and types."""
    types = duck_types(cursor)
    names = [d[0] for d in cursor.description]
    rows = [[duck_text(v, types[c]) for c, v in enumerate(row)] for row in cursor.fetchall()]
    return names, types, rows


def order_keys(select, column_names):
    """The ORDER BY keys of a SELECT as result-column indexes; None when unresolved."""
    m = re.search(r'\border\s+by\s+([\s\S]*?)(?:\blimit\b[\s\S]*)?;?\s*$', select, re.I)
    if not m:
        return None
    keys = []
    lower = [c.lower() for c in column_names]
    for item in m.group(1).split(','):
        item = re.sub(r'\s+(asc|desc)$', '', item.strip(), flags=re.I).strip().lower()
        if re.fullmatch(r'\d+', item):
            idx = int(item) - 1
        else:
            idx = lower.index(item) if item in lower else -1
        if idx < 0 or idx >= len(column_names):
            return None
        keys.append(idx)
    return keys


def row_key(row):
    return json.dumps(row, ensure_ascii=False)


def compare(select, t_rows, d_rows, column_names):
    """None when tessera's rows equal DuckDB's (as sorted lists; in order on the ORDER BY
    keys when the outermost query has one), else the first difference."""
    if len(t_rows) != len(d_rows):
        return f'row count {len(t_rows)} vs DuckDB {len(d_rows)}'
    ts = sorted(row_key(r) for r in t_rows)
    ds = sorted(row_key(r) for r in d_rows)
    if ts != ds:
        t_set, d_set = set(ts), set(ds)
        missing = [r for r in ds if r not in t_set][:3]
        extra = [r for r in ts if r not in d_set][:3]
        return f'different rows; DuckDB has {" ".join(missing)}; tessera has {" ".join(extra)}'
    # Only the outermost ORDER BY counts: the last one, outside any parentheses.
    if not re.search(r'\border\s+by\b[^()]*$', select, re.I):
        return None
    keys = order_keys(select, column_names)
    for i, (t, d) in enumerate(zip(t_rows, d_rows)):
        tp = [t[k] for k in keys] if keys else t
        dp = [d[k] for k in keys] if keys else d
        if tp != dp:
            return f'order differs at row {i + 1}: {row_key(t)} vs DuckDB {row_key(d)}'
    return None


def tables_of(schema_sql):
    return [m.group(2) for m in re.finditer(r'create\s+table\s+("?)(\w+)\1', schema_sql, re.I)]


def statements(sql):
    """The statements of a query file (no statement holds a ';' inside a string literal)."""
    sql = re.sub(r'--[^\n]*', '', sql)
    return [s.strip() for s in sql.split(';') if s.strip()]
