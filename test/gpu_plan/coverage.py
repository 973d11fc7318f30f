#!/usr/bin/env python3
"""GPU coverage without a GPU: plans every benchmark query for the GPU and compiles its
kernels with NVRTC for sm_90, on any machine (CI has NVRTC and no GPU).

  python test/gpu_plan/coverage.py TESSERA_BINARY WORK_DIR [--sf SF] [--update-baseline]
                                   [--json FILE]

For the 13 SSB and the 22 TPC-H queries (queries/, unmodified) it runs
`EXPLAIN (DEVICE gpu, FORMAT json, KERNELS) <query>` on generated data (SF 0.01 unless
--sf), and prints per query the pipelines placed on the GPU, those left on the CPU with
their reasons, and the kernels' compile times. It fails when
  * a kernel does not compile, or a GPU-planned pipeline has no kernel;
  * an SSB pipeline that scans a table is not on the GPU (SSB runs on the GPU today);
  * a query has fewer GPU pipelines than baseline.json records (coverage only grows;
    --update-baseline rewrites the file from this run, for when it has grown).
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'test' / 'duckdb'))
from diff_common import parse_csv, statements  # noqa: E402

BASELINE = Path(__file__).resolve().parent / 'baseline.json'


def natural_key(name):
    return [int(p) if p.isdigit() else p for p in re.split(r'(\d+)', name)]


def run(tessera, args):
    r = subprocess.run([tessera, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip() or f'tessera exited with {r.returncode}')
    return r.stdout


def explain(tessera, db, sql):
    stmts = statements(sql)
    select = stmts[-1] if re.match(r'^(select|with)\b', stmts[-1], re.I) else \
        next(s for s in stmts if re.match(r'^(select|with)\b', s, re.I))
    before = [s for s in stmts[:stmts.index(select)]]
    after = [s for s in stmts[stmts.index(select) + 1:]]
    args = [str(db), '--csv']
    for s in before:
        args += ['-c', s]
    args += ['-c', f'EXPLAIN (DEVICE gpu, FORMAT json, KERNELS) {select}']
    for s in after:
        args += ['-c', s]
    out = run(tessera, args)
    rows = [r for r in parse_csv(out) if r and r[0] and r[0].startswith('{')]
    if len(rows) != 1:
        raise RuntimeError(f'expected one JSON row, got: {out[:300]}')
    return json.loads(rows[0][0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('tessera')
    ap.add_argument('work')
    ap.add_argument('--sf', default='0.01')
    ap.add_argument('--update-baseline', action='store_true')
    ap.add_argument('--json', help='write every query\'s placement here')
    a = ap.parse_args()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    failures = []
    report = {}
    for bench in ('ssb', 'tpch'):
        db = work / f'{bench}-sf{a.sf}.tdb'
        if not db.exists():
            run(a.tessera, ['gen', bench, '--sf', a.sf, '--db', str(db)])
        files = sorted((REPO / 'queries' / bench).glob('*.sql'), key=lambda f: natural_key(f.stem))
        total = on_gpu = whole = 0
        print(f'{bench.upper()} SF {a.sf}: EXPLAIN (DEVICE gpu, FORMAT json, KERNELS)')
        for f in files:
            name = f'{bench}/{f.stem}'
            try:
                plan = explain(a.tessera, db, f.read_text())
            except (RuntimeError, json.JSONDecodeError, StopIteration) as e:
                if 'kernels cannot be compiled here' in str(e):
                    print(f'skipped: {e}')
                    return 77  # no NVRTC on this machine (ctest: skipped)
                failures.append(f'{name}: {e}')
                continue
            report[name] = plan
            pipes = plan['pipelines']
            gpu = [p for p in pipes if p['device'] == 'gpu']
            cpu = [p for p in pipes if p['device'] != 'gpu']
            kernels = plan.get('kernels', [])
            total += len(pipes)
            on_gpu += len(gpu)
            whole += not cpu
            ms = sum(k['compile_ms'] for k in kernels)
            print(f'  {f.stem:<5} {len(gpu)}/{len(pipes)} pipelines on the GPU, {len(kernels)} kernels compiled in {ms:.0f} ms')
            for p in cpu:
                print(f"        pipeline {p['id']} on the CPU: {p['reason']}")
            for k in kernels:
                if not k['compiled']:
                    failures.append(f"{name}: pipeline {k['pipeline']}'s kernel does not compile: {k.get('error', '')[:400]}")
            if sorted(k['pipeline'] for k in kernels) != sorted(p['id'] for p in gpu):
                failures.append(f'{name}: GPU pipelines {[p["id"] for p in gpu]} but kernels for {[k["pipeline"] for k in kernels]}')
            if bench == 'ssb':
                for p in cpu:
                    if 'TABLE_SCAN' in p['plan'].split('->')[0]:
                        failures.append(f"{name}: pipeline {p['id']} scans a table on the CPU: {p['reason']}")
            if len(gpu) < baseline.get(name, 0):
                failures.append(f'{name}: {len(gpu)} GPU pipelines, fewer than the baseline\'s {baseline[name]}')
        print(f'{bench.upper()}: {on_gpu} of {total} pipelines on the GPU; {whole} of {len(files)} queries entirely')
        reasons = {}
        for name, plan in report.items():
            if name.startswith(bench + '/'):
                for p in plan['pipelines']:
                    if p['device'] != 'gpu':
                        why = re.sub(r' \([A-Z_]+\)', '', p['reason'])
                        reasons[why] = reasons.get(why, 0) + 1
        for why, n in sorted(reasons.items(), key=lambda x: -x[1]):
            print(f'  {n:4d}  {why}')
        print()
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1))
    if a.update_baseline and not failures:
        counts = {n: sum(p['device'] == 'gpu' for p in plan['pipelines']) for n, plan in report.items()}
        BASELINE.write_text(json.dumps(counts, indent=1, sort_keys=True) + '\n')
        print(f'wrote {BASELINE}')
    for f in failures:
        print(f'FAIL: {f}', file=sys.stderr)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
