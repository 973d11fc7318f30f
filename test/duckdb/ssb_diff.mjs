// Differential test: tessera against DuckDB on generated SSB data.
//
//   node test/duckdb/ssb_diff.mjs TESSERA_BINARY SF [WORK_DIR]
//
// 1. `tessera gen ssb --sf SF --out WORK_DIR/tbl` writes the .tbl files and schema.sql
//    (the generator's own CREATE TABLE statements, so both engines get identical types).
// 2. Both engines create the tables from schema.sql and load the files with
//    COPY ... (DELIMITER '|', HEADER false): DuckDB in memory through @duckdb/node-api,
//    tessera into the database directory WORK_DIR/tessera.tdb.
// 3. Every query in queries/ssb/*.sql runs on both: tessera through
//    `tessera DB --csv -c SQL`, DuckDB through the API. Results are normalised to text
//    rows (integers as integers, decimals with their scale, NULL as NULL) and must be the
//    same rows; in the order the ORDER BY prescribes when the query has one (rows tied
//    on the sort keys may come in any order), else as sorted lists.
// Prints a per-query OK/MISMATCH table; exits 1 on any mismatch or failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { canonDouble, duckText, pad, parseCsv, tesseraText } from './diff_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

function usage(msg) {
  if (msg) console.error(`Error: ${msg}`);
  console.error('Usage: node test/duckdb/ssb_diff.mjs TESSERA_BINARY SF [WORK_DIR]');
  process.exit(2);
}

const [tesseraArg, sfArg, workArg] = process.argv.slice(2);
if (!tesseraArg || !sfArg || process.argv.length > 5) usage();
const tessera = path.resolve(tesseraArg);
if (!fs.existsSync(tessera)) usage(`no tessera binary at ${tessera}`);
const sf = Number(sfArg);
if (!(sf > 0)) usage(`SF must be a positive number, not '${sfArg}'`);
const work = workArg ? path.resolve(workArg) : fs.mkdtempSync(path.join(os.tmpdir(), 'ssb-diff-'));

// Runs tessera; returns stdout, throws with stderr on failure.
function runTessera(args, what) {
  const r = spawnSync(tessera, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  if (r.status !== 0) {
    throw new Error(`${what}: tessera exited with ${r.status ?? r.signal}: ${r.stderr.trim()}`);
  }
  return r;
}

// ORDER BY keys of a query as result-column indexes; null when they cannot be resolved.
function orderKeys(sql, columnNames) {
  const m = /\border\s+by\s+([\s\S]*?)(?:\blimit\b[\s\S]*)?;?\s*$/i.exec(sql);
  if (!m) return null;
  const keys = [];
  for (let item of m[1].split(',')) {
    item = item.trim().replace(/\s+(asc|desc)$/i, '').trim().toLowerCase();
    let idx = /^\d+$/.test(item) ? Number(item) - 1 : columnNames.findIndex((c) => c.toLowerCase() === item);
    if (idx < 0 || idx >= columnNames.length) return null;
    keys.push(idx);
  }
  return keys;
}

const rowKey = (row) => JSON.stringify(row);

function compare(sql, tRows, dRows, columnNames) {
  if (tRows.length !== dRows.length) return `row count ${tRows.length} vs DuckDB ${dRows.length}`;
  const ordered = /\border\s+by\b/i.test(sql);
  const ts = tRows.map(rowKey);
  const ds = dRows.map(rowKey);
  const tSorted = [...ts].sort();
  const dSorted = [...ds].sort();
  for (let i = 0; i < tSorted.length; i++) {
    if (tSorted[i] !== dSorted[i]) {
      const missing = dSorted.filter((r) => !tSorted.includes(r)).slice(0, 3);
      const extra = tSorted.filter((r) => !dSorted.includes(r)).slice(0, 3);
      return `different rows; DuckDB has ${missing.join(' ')}; tessera has ${extra.join(' ')}`;
    }
  }
  if (!ordered) return null;
  const keys = orderKeys(sql, columnNames);
  const project = (row) => (keys ? keys.map((k) => row[k]) : row);
  for (let i = 0; i < tRows.length; i++) {
    if (rowKey(project(tRows[i])) !== rowKey(project(dRows[i]))) {
      return `order differs at row ${i + 1}: ${rowKey(tRows[i])} vs DuckDB ${rowKey(dRows[i])}`;
    }
  }
  return null;
}

async function main() {
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const tblDir = path.join(work, 'tbl');
  const dbDir = path.join(work, 'tessera.tdb');

  console.log(`SSB differential test, SF ${sf}, work dir ${work}`);
  let t0 = Date.now();
  runTessera(['gen', 'ssb', '--sf', String(sf), '--out', tblDir], 'tessera gen ssb');
  console.log(`generated .tbl files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const schemaSql = fs.readFileSync(path.join(tblDir, 'schema.sql'), 'utf8');
  const tables = [...schemaSql.matchAll(/create\s+table\s+("?)(\w+)\1/gi)].map((m) => m[2]);
  if (tables.length === 0) throw new Error('schema.sql names no table');
  const copySql = tables
    .map((t) => `COPY ${t} FROM '${path.join(tblDir, `${t}.tbl`)}' (DELIMITER '|', HEADER false);`)
    .join('\n');

  t0 = Date.now();
  runTessera([dbDir, '-c', `${schemaSql}\n${copySql}`], 'tessera load');
  console.log(`loaded into tessera in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const duck = await DuckDBInstance.create(':memory:');
  const conn = await duck.connect();
  t0 = Date.now();
  await conn.run(schemaSql);
  await conn.run(copySql);
  console.log(`loaded into DuckDB in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // Row counts must agree before the queries mean anything.
  const countSql = (t) => `select count(*) from ${t}`;
  for (const t of tables) {
    const d = (await conn.runAndReadAll(countSql(t))).getRows()[0][0];
    const out = runTessera([dbDir, '--csv', '-c', countSql(t)], `count ${t}`).stdout;
    const tc = parseCsv(out)[1]?.[0];
    if (String(d) !== tc) throw new Error(`${t}: tessera has ${tc} rows, DuckDB ${d}`);
  }

  const queryDir = path.join(repoRoot, 'queries', 'ssb');
  const files = fs.readdirSync(queryDir).filter((f) => f.endsWith('.sql'));
  files.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const results = [];
  for (const file of files) {
    const name = file.replace(/\.sql$/, '');
    const sql = fs.readFileSync(path.join(queryDir, file), 'utf8');
    const res = { name, tRows: '-', dRows: '-', status: 'OK', note: '' };
    try {
      const reader = await conn.runAndReadAll(sql);
      const names = reader.columnNames();
      const types = reader.columnTypes().map((t) => t.toString());
      const dRows = reader.getRows().map((row) => row.map((v, c) => duckText(v, types[c])));
      t0 = Date.now();
      const out = runTessera([dbDir, '--csv', '-c', sql], name).stdout;
      const ms = Date.now() - t0;
      const csv = parseCsv(out);
      if (csv.length === 0) throw new Error('tessera printed no CSV header');
      const header = csv.shift();
      if (header.length !== names.length) {
        throw new Error(`tessera returned ${header.length} columns, DuckDB ${names.length}`);
      }
      const tRows = csv.map((row) => row.map((v, c) => tesseraText(v, types[c])));
      res.tRows = tRows.length;
      res.dRows = dRows.length;
      res.note = `${ms} ms (tessera, incl. start-up)`;
      const diff = compare(sql, tRows, dRows, names);
      if (diff) {
        res.status = 'MISMATCH';
        res.note = diff;
      }
    } catch (e) {
      res.status = 'ERROR';
      res.note = e.message.split('\n')[0];
    }
    results.push(res);
  }

  console.log('');
  console.log(`${pad('query', 6)} ${pad('tessera', 8, true)} ${pad('duckdb', 8, true)}  ${pad('status', 8)}  note`);
  for (const r of results) {
    console.log(`${pad(r.name, 6)} ${pad(r.tRows, 8, true)} ${pad(r.dRows, 8, true)}  ${pad(r.status, 8)}  ${r.note}`);
  }
  const failed = results.filter((r) => r.status !== 'OK').length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  conn.closeSync?.();
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`Error: ${e.message}`);
    process.exit(1);
  },
);
