// DuckDB's side of the CPU comparison in docs/PERFORMANCE.md:
//
//   node test/duckdb/ssb_times.mjs TBL_DIR THREADS [REPS]
//
// TBL_DIR holds the files of `tessera gen ssb --out TBL_DIR` (the .tbl files and
// schema.sql). Loads them into an in-memory DuckDB limited to THREADS threads, then runs
// every queries/ssb/*.sql once to warm up and REPS (default 5) more times, printing the
// median and minimum wall time per query in milliseconds (rows fetched to JavaScript).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const [dir, threadsArg, repsArg] = process.argv.slice(2);
if (!dir || !threadsArg) {
  console.error('Usage: node test/duckdb/ssb_times.mjs TBL_DIR THREADS [REPS]');
  process.exit(2);
}
const reps = Number(repsArg ?? 5);
const inst = await DuckDBInstance.create(':memory:', { threads: String(threadsArg) });
const con = await inst.connect();
const schema = fs.readFileSync(path.join(dir, 'schema.sql'), 'utf8');
await con.run(schema);
const t0 = performance.now();
for (const t of ['lineorder', 'part', 'supplier', 'customer', 'date']) {
  await con.run(`COPY ${t} FROM '${path.join(dir, t + '.tbl')}' (DELIMITER '|', HEADER false)`);
}
console.log(`duckdb: loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s, threads ${threadsArg}`);
const qdir = path.join(repoRoot, 'queries', 'ssb');
const files = fs.readdirSync(qdir).filter((f) => f.endsWith('.sql')).sort();
console.log('query\trows\tmedian_ms\tmin_ms');
for (const f of files) {
  const sql = fs.readFileSync(path.join(qdir, f), 'utf8');
  let rows = (await con.runAndReadAll(sql)).getRows().length;
  const times = [];
  for (let i = 0; i < reps; i++) {
    const s = performance.now();
    rows = (await con.runAndReadAll(sql)).getRows().length;
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  console.log(`${f.replace('.sql', '')}\t${rows}\t${times[Math.floor(times.length / 2)].toFixed(1)}\t${times[0].toFixed(1)}`);
}
