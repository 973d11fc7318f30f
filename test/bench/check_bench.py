#!/usr/bin/env python3
"""Runs `tessera bench ssb` on the CPU and checks its JSON report (--json):

  python test/bench/check_bench.py TESSERA_BINARY WORK_DIR SF [--compare]

Checked for every one of the 13 SSB queries: no error; the warm times are ordered
(min <= median <= max) and positive; every pipeline ran on the CPU (--device cpu) with
counted rows; the model's bound is positive, equals the sum of its pipelines' bounds and
their bytes at the reported CPU bandwidth; the percent of bound is bound / median; the
lineorder scan read at least one 4-byte column of all its rows. With --compare (DuckDB
through its C API, from the PyPI package that test/requirements.txt pins): DuckDB's times
are there and its rows are the same as tessera's. Exits 1 with the list of failures.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != '--compare'):
        print('Usage: python test/bench/check_bench.py TESSERA_BINARY WORK_DIR SF [--compare]', file=sys.stderr)
        return 2
    tessera, work, sf = argv[0], Path(argv[1]), argv[2]
    compare = len(argv) == 4
    work.mkdir(parents=True, exist_ok=True)
    js = work / ('bench-compare.json' if compare else 'bench.json')
    js.unlink(missing_ok=True)
    args = ['bench', 'ssb', '--sf', sf, '--device', 'cpu', '--reps', '2', '--quiet',
            '--data', str(work / f'ssb-sf{sf}.tdb'), '--json', str(js)]
    if compare:
        args += ['--compare', 'duckdb', '--plot', str(work / 'bench.html')]
    env = dict(os.environ, TESSERA_PROBE_DIR=str(work / 'probe'))
    print(f'$ {tessera} {" ".join(args)}', flush=True)
    r = subprocess.run([tessera, *args], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    failures = []
    fail = failures.append
    if r.returncode != 0:
        fail(f'tessera bench exited with {r.returncode}')
    if not js.exists():
        print(f'FAIL: no JSON report at {js}', file=sys.stderr)
        return 1
    rep = json.loads(js.read_text())

    def close(a, b, rel=1e-3):
        return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)

    expected = sorted(f.stem for f in (REPO / 'queries' / 'ssb').iterdir() if f.suffix == '.sql')
    bw = (rep.get('model_bandwidth_gbps') or {}).get('cpu')
    if not (isinstance(bw, (int, float)) and bw > 0):
        fail(f'model_bandwidth_gbps.cpu is {bw}')
        bw = 1.0
    if (rep.get('machine') or {}).get('has_gpu') not in (True, False):
        fail('machine.has_gpu missing')
    if not rep.get('threads', 0) >= 1:
        fail(f"threads {rep.get('threads')}")
    names = sorted(q['name'] for q in rep['queries'])
    if names != expected:
        fail(f'queries {names} != {expected}')
    fact_rows = 5e6 * float(sf)
    for q in rep['queries']:
        w = q['wall_ms']
        where = f"{q['name']}:"
        if q['error'] is not None:
            fail(f"{where} error {q['error']}")
            continue
        if not (w['cold'] > 0 and w['min'] > 0 and w['min'] <= w['median'] <= w['max']):
            fail(f'{where} wall times {w}')
        if q['device'] != 'cpu':
            fail(f"{where} device {q['device']}")
        if not q['cpu_ms'] > 0:
            fail(f"{where} cpu_ms {q['cpu_ms']}")
        if not q['pipelines']:
            fail(f'{where} no pipelines')
        bound = bytes_ = 0
        scanned = False
        for p in q['pipelines']:
            if p['cpu_fallback'] is not False:
                fail(f"{where} pipeline {p['id']} cpu_fallback {p['cpu_fallback']} on --device cpu")
            if p['device'] != 'cpu' or p['rows_exact'] is not True:
                fail(f"{where} pipeline {p['id']} device {p['device']} rows_exact {p['rows_exact']}")
            if not (p['rows_in'] >= 0 and p['rows_out'] >= 0 and p['ms'] >= 0):
                fail(f"{where} pipeline {p['id']} rows/ms")
            b = p['read_bytes'] + p['random_bytes'] + p['write_bytes']
            if not close(p['bound_ms'], b / (bw * 1e9) * 1e3):
                fail(f"{where} pipeline {p['id']} bound {p['bound_ms']} vs {b} bytes at {bw} GB/s")
            bound += p['bound_ms']
            bytes_ += b
            if p['plan'].startswith('TABLE_SCAN') and p['rows_in'] >= fact_rows:
                scanned = True
                if p['read_bytes'] < 4 * p['rows_in']:
                    fail(f"{where} fact scan read {p['read_bytes']} bytes for {p['rows_in']} rows")
        if not scanned:
            fail(f'{where} no pipeline scans lineorder ({fact_rows:g}+ rows)')
        m = q['model']
        if not (m['bound_ms'] > 0 and close(m['bound_ms'], bound)):
            fail(f"{where} bound {m['bound_ms']} vs pipelines {bound}")
        if not close(m['bytes'], bytes_):
            fail(f"{where} bytes {m['bytes']} vs pipelines {bytes_}")
        if not close(m['percent_of_bound'], 100 * m['bound_ms'] / w['median']):
            fail(f'{where} percent_of_bound')
        if compare:
            d = q.get('duckdb')
            if not d:
                fail(f'{where} no duckdb figures')
                continue
            if d['error'] is not None:
                fail(f"{where} DuckDB error {d['error']}")
            if d['same_rows'] is not True:
                fail(f"{where} rows differ from DuckDB's: {d['mismatch']}")
            if d['rows'] != q['rows']:
                fail(f"{where} DuckDB {d['rows']} rows vs tessera {q['rows']}")
            if not (d['min'] > 0 and d['min'] <= d['median'] <= d['max']):
                fail(f'{where} DuckDB times {d}')
    if compare:
        if not rep.get('duckdb_version'):
            fail('no duckdb_version')
        html = (work / 'bench.html').read_text()
        if '<svg' not in html or '<script' in html:
            fail('bench.html: no inline SVG, or a script')
        if html.count('<rect ') < len(rep['queries']) * 3:
            fail('bench.html: fewer bars than 3 per query')
    if failures:
        for f in failures:
            print(f'FAIL: {f}', file=sys.stderr)
        return 1
    print(f"ok: {len(rep['queries'])} queries checked in {js}")
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
