// Runs `tessera bench ssb` on the CPU and checks its JSON report (--json):
//
//   node test/bench/check_bench.mjs TESSERA_BINARY WORK_DIR SF [--compare]
//
// Checked for every one of the 13 SSB queries: no error; the warm times are ordered
// (min <= median <= max) and positive; every pipeline ran on the CPU (--device cpu) with
// counted rows; the model's bound is positive, equals the sum of its pipelines' bounds and
// their bytes at the reported CPU bandwidth; the percent of bound is bound / median; the
// lineorder scan read at least one 4-byte column of all its rows. With --compare (DuckDB
// through libduckdb, the npm package's library): DuckDB's times are there and its rows are
// the same as tessera's. Exits 1 with the list of failures.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const [tessera, work, sfArg, flag] = process.argv.slice(2);
if (!tessera || !work || !sfArg || (flag && flag !== '--compare')) {
  console.error('Usage: node test/bench/check_bench.mjs TESSERA_BINARY WORK_DIR SF [--compare]');
  process.exit(2);
}
const compare = flag === '--compare';
fs.mkdirSync(work, { recursive: true });
const json = path.join(work, compare ? 'bench-compare.json' : 'bench.json');
fs.rmSync(json, { force: true });
const args = ['bench', 'ssb', '--sf', sfArg, '--device', 'cpu', '--reps', '2', '--quiet',
  '--data', path.join(work, `ssb-sf${sfArg}.tdb`), '--json', json];
if (compare) args.push('--compare', 'duckdb', '--plot', path.join(work, 'bench.html'));
const env = { ...process.env, TESSERA_PROBE_DIR: path.join(work, 'probe') };
console.log(`$ ${tessera} ${args.join(' ')}`);
const r = spawnSync(tessera, args, { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
process.stdout.write(r.stdout ?? '');
process.stderr.write(r.stderr ?? '');
const failures = [];
const fail = (m) => failures.push(m);
if (r.status !== 0) fail(`tessera bench exited with ${r.status ?? r.signal}`);
if (!fs.existsSync(json)) {
  console.error(`FAIL: no JSON report at ${json}`);
  process.exit(1);
}
const rep = JSON.parse(fs.readFileSync(json, 'utf8'));
const close = (a, b, rel = 1e-3) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-9);
const expected = fs.readdirSync(path.join(repoRoot, 'queries', 'ssb')).filter((f) => f.endsWith('.sql'))
  .map((f) => f.replace(/\.sql$/, '')).sort();
const bw = rep.model_bandwidth_gbps?.cpu;
if (!(bw > 0)) fail(`model_bandwidth_gbps.cpu is ${bw}`);
if (rep.machine?.has_gpu !== false && rep.machine?.has_gpu !== true) fail('machine.has_gpu missing');
if (rep.threads < 1) fail(`threads ${rep.threads}`);
const names = rep.queries.map((q) => q.name).sort();
if (JSON.stringify(names) !== JSON.stringify(expected)) fail(`queries ${names} != ${expected}`);
for (const q of rep.queries) {
  const w = q.wall_ms;
  const where = `${q.name}:`;
  if (q.error !== null) { fail(`${where} error ${q.error}`); continue; }
  if (!(w.cold > 0 && w.min > 0 && w.min <= w.median && w.median <= w.max)) fail(`${where} wall times ${JSON.stringify(w)}`);
  if (q.device !== 'cpu') fail(`${where} device ${q.device}`);
  if (!(q.cpu_ms > 0)) fail(`${where} cpu_ms ${q.cpu_ms}`);
  if (!q.pipelines.length) fail(`${where} no pipelines`);
  let bound = 0, bytes = 0, scanned = false;
  for (const p of q.pipelines) {
    if (p.cpu_fallback !== false) fail(`${where} pipeline ${p.id} cpu_fallback ${p.cpu_fallback} on --device cpu`);
    if (p.device !== 'cpu' || p.rows_exact !== true) fail(`${where} pipeline ${p.id} device ${p.device} rows_exact ${p.rows_exact}`);
    if (!(p.rows_in >= 0 && p.rows_out >= 0 && p.ms >= 0)) fail(`${where} pipeline ${p.id} rows/ms`);
    const b = p.read_bytes + p.random_bytes + p.write_bytes;
    if (!close(p.bound_ms, b / (bw * 1e9) * 1e3)) fail(`${where} pipeline ${p.id} bound ${p.bound_ms} vs ${b} bytes at ${bw} GB/s`);
    bound += p.bound_ms;
    bytes += b;
    if (p.plan.startsWith('TABLE_SCAN') && p.rows_in >= 5e6 * Number(sfArg)) {
      scanned = true;
      if (p.read_bytes < 4 * p.rows_in) fail(`${where} fact scan read ${p.read_bytes} bytes for ${p.rows_in} rows`);
    }
  }
  if (!scanned) fail(`${where} no pipeline scans lineorder (${5e6 * Number(sfArg)}+ rows)`);
  if (!(q.model.bound_ms > 0) || !close(q.model.bound_ms, bound)) fail(`${where} bound ${q.model.bound_ms} vs pipelines ${bound}`);
  if (!close(q.model.bytes, bytes)) fail(`${where} bytes ${q.model.bytes} vs pipelines ${bytes}`);
  if (!close(q.model.percent_of_bound, 100 * q.model.bound_ms / w.median)) fail(`${where} percent_of_bound`);
  if (compare) {
    const d = q.duckdb;
    if (!d) { fail(`${where} no duckdb figures`); continue; }
    if (d.error !== null) fail(`${where} DuckDB error ${d.error}`);
    if (d.same_rows !== true) fail(`${where} rows differ from DuckDB's: ${d.mismatch}`);
    if (d.rows !== q.rows) fail(`${where} DuckDB ${d.rows} rows vs tessera ${q.rows}`);
    if (!(d.min > 0 && d.min <= d.median && d.median <= d.max)) fail(`${where} DuckDB times ${JSON.stringify(d)}`);
  }
}
if (compare) {
  if (!rep.duckdb_version) fail('no duckdb_version');
  const html = fs.readFileSync(path.join(work, 'bench.html'), 'utf8');
  if (!html.includes('<svg') || html.includes('<script')) fail('bench.html: no inline SVG, or a script');
  if ((html.match(/<rect /g) ?? []).length < rep.queries.length * 3) fail('bench.html: fewer bars than 3 per query');
}
if (failures.length) {
  for (const f of failures) console.error(`FAIL: ${f}`);
  process.exit(1);
}
console.log(`ok: ${rep.queries.length} queries checked in ${json}`);
