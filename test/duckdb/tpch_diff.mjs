// Differential test: tessera against DuckDB on generated TPC-H data.
//
//   node test/duckdb/tpch_diff.mjs TESSERA_BINARY SF [WORK_DIR] [--queries q01,q02]
//                                  [--timeout SECONDS]
//
// 1. `tessera gen tpch --sf SF --out WORK_DIR/tbl` writes the eight .tbl files and
//    schema.sql (the generator's CREATE TABLE statements, so both engines get identical
//    types).
// 2. Both engines create the tables from schema.sql and load the files with
//    COPY ... (DELIMITER '|', HEADER false): DuckDB in memory through @duckdb/node-api,
//    tessera into the database directory WORK_DIR/tessera.tdb. Row counts must agree.
// 3. Every query of queries/tpch/q*.sql (or those named by --queries) runs on both:
//    tessera through `tessera DB --csv -c SQL` (the whole file; q15's view statements
//    print nothing), DuckDB statement by statement through the API (the result is that of
//    the SELECT). Results are normalised to text rows (integers as integers, decimals with
//    their scale, doubles to 12 significant digits, NULL as NULL) and must be the same
//    rows; in the order the ORDER BY prescribes when the query has one (rows tied on the
//    sort keys may come in any order), else as sorted lists.
// Prints PASS / DIFF / ERROR per query (ERROR with tessera's message) and a summary;
// exits 1 when any query does not pass.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { canonDouble, duckText, pad, parseCsv, tesseraText } from './diff_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const queryDir = path.join(repoRoot, 'queries', 'tpch');

function usage(msg) {
  if (msg) console.error(`Error: ${msg}`);
  console.error('Usage: node test/duckdb/tpch_diff.mjs TESSERA_BINARY SF [WORK_DIR] [--queries q01,q02,...] [--timeout SECONDS]\n' +
    '  --timeout: limit for one tessera query (default 300 s); a query past it is an ERROR');
  process.exit(2);
}

const positional = [];
let only = null;
let timeoutS = 300;
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--help' || a === '-h') usage();
  else if (a === '--queries') {
    if (i + 1 >= process.argv.length) usage('--queries needs a list such as q01,q06');
    only = process.argv[++i].split(',').map((s) => s.trim()).filter(Boolean);
  } else if (a === '--timeout') {
    timeoutS = Number(process.argv[++i]);
    if (!(timeoutS > 0)) usage('--timeout needs a positive number of seconds');
  } else if (a.startsWith('--')) usage(`unknown option '${a}'`);
  else positional.push(a);
}
const [tesseraArg, sfArg, workArg] = positional;
if (!tesseraArg || !sfArg || positional.length > 3) usage();
const tessera = path.resolve(tesseraArg);
if (!fs.existsSync(tessera)) usage(`no tessera binary at ${tessera}`);
const sf = Number(sfArg);
if (!(sf > 0)) usage(`SF must be a positive number, not '${sfArg}'`);
const work = workArg ? path.resolve(workArg) : fs.mkdtempSync(path.join(os.tmpdir(), 'tpch-diff-'));

let files = fs.readdirSync(queryDir).filter((f) => /^q\d+\.sql$/.test(f)).sort();
if (only) {
  const known = new Set(files.map((f) => f.replace(/\.sql$/, '')));
  for (const q of only) if (!known.has(q)) usage(`no query ${q} in ${queryDir} (names: q01 .. q22)`);
  files = files.filter((f) => only.includes(f.replace(/\.sql$/, '')));
}

// Runs tessera; returns the result, throws with tessera's message on failure.
function runTessera(args, what, timeout) {
  const r = spawnSync(tessera, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout,
  });
  if (r.error?.code === 'ETIMEDOUT') throw new Error(`${what}: timed out after ${timeout / 1000} s`);
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  if (r.status !== 0) {
    const msg = r.stderr.trim().replace(/^Error:\s*/, '');
    throw new Error(`${what}: ${msg || `tessera exited with ${r.status ?? r.signal}`}`);
  }
  return r;
}

const stripComments = (sql) => sql.replace(/--[^\n]*/g, '');

// The statements of a query file (no statement holds a ';' inside a string literal).
function statements(sql) {
  return stripComments(sql)
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

// ORDER BY keys of a SELECT as result-column indexes; null when they cannot be resolved.
function orderKeys(select, columnNames) {
  const m = /\border\s+by\s+([\s\S]*?)(?:\blimit\b[\s\S]*)?$/i.exec(select);
  if (!m) return null;
  const keys = [];
  for (let item of m[1].split(',')) {
    item = item.trim().replace(/\s+(asc|desc)$/i, '').trim().toLowerCase();
    const idx = /^\d+$/.test(item) ? Number(item) - 1 : columnNames.findIndex((c) => c.toLowerCase() === item);
    if (idx < 0 || idx >= columnNames.length) return null;
    keys.push(idx);
  }
  return keys;
}

const rowKey = (row) => JSON.stringify(row);

function compare(select, tRows, dRows, columnNames) {
  if (tRows.length !== dRows.length) return `row count ${tRows.length} vs DuckDB ${dRows.length}`;
  // Only the outermost ORDER BY counts: the last one, outside any parentheses.
  const ordered = /\border\s+by\b[^()]*$/i.test(select);
  const ts = tRows.map(rowKey);
  const ds = dRows.map(rowKey);
  const tSorted = [...ts].sort();
  const dSorted = [...ds].sort();
  for (let i = 0; i < tSorted.length; i++) {
    if (tSorted[i] !== dSorted[i]) {
      const tSet = new Set(tSorted);
      const dSet = new Set(dSorted);
      const missing = dSorted.filter((r) => !tSet.has(r)).slice(0, 3);
      const extra = tSorted.filter((r) => !dSet.has(r)).slice(0, 3);
      return `different rows; DuckDB has ${missing.join(' ')}; tessera has ${extra.join(' ')}`;
    }
  }
  if (!ordered) return null;
  const keys = orderKeys(select, columnNames);
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

  console.log(`TPC-H differential test, SF ${sf}, work dir ${work}`);
  let t0 = Date.now();
  runTessera(['gen', 'tpch', '--sf', String(sf), '--out', tblDir], 'tessera gen tpch');
  console.log(`generated .tbl files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const schemaSql = fs.readFileSync(path.join(tblDir, 'schema.sql'), 'utf8');
  const tables = [...schemaSql.matchAll(/create\s+table\s+("?)(\w+)\1/gi)].map((m) => m[2]);
  if (tables.length !== 8) throw new Error(`schema.sql names ${tables.length} tables, not 8`);
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
  for (const t of tables) {
    const sql = `select count(*) from ${t}`;
    const d = (await conn.runAndReadAll(sql)).getRows()[0][0];
    const tc = parseCsv(runTessera([dbDir, '--csv', '-c', sql], `count ${t}`).stdout)[1]?.[0];
    if (String(d) !== tc) throw new Error(`${t}: tessera has ${tc} rows, DuckDB ${d}`);
  }

  const results = [];
  for (const file of files) {
    const name = file.replace(/\.sql$/, '');
    const sql = fs.readFileSync(path.join(queryDir, file), 'utf8');
    const stmts = statements(sql);
    const select = stmts.find((s) => /^(select|with)\b/i.test(s));
    const res = { name, tRows: '-', dRows: '-', status: 'PASS', note: '' };
    try {
      if (!select) throw new Error(`${file} holds no SELECT`);
      let reader = null;
      for (const s of stmts) {
        const r = await conn.runAndReadAll(s);
        if (s === select) reader = r;
      }
      const names = reader.columnNames();
      const types = reader.columnTypes().map((t) => t.toString());
      const dRows = reader.getRows().map((row) => row.map((v, c) => duckText(v, types[c])));
      res.dRows = dRows.length;
      t0 = Date.now();
      let out;
      try {
        out = runTessera([dbDir, '--csv', '-c', sql], name, timeoutS * 1000).stdout;
      } catch (e) {
        // A view left behind by a failed q15 would break the next run.
        if (/create\s+view/i.test(sql)) spawnSync(tessera, [dbDir, '-c', 'drop view if exists revenue0']);
        throw e;
      }
      const ms = Date.now() - t0;
      const csv = parseCsv(out);
      if (csv.length === 0) throw new Error('tessera printed no CSV header');
      const header = csv.shift();
      if (header.length !== names.length) {
        throw new Error(`tessera returned ${header.length} columns, DuckDB ${names.length}`);
      }
      const tRows = csv.map((row) => row.map((v, c) => tesseraText(v, types[c])));
      res.tRows = tRows.length;
      res.note = `${ms} ms (tessera, incl. start-up)`;
      const diff = compare(select, tRows, dRows, names);
      if (diff) {
        res.status = 'DIFF';
        res.note = diff;
      }
    } catch (e) {
      res.status = 'ERROR';
      res.note = e.message.split('\n')[0];
    }
    results.push(res);
  }

  console.log('');
  console.log(`${pad('query', 6)} ${pad('tessera', 8, true)} ${pad('duckdb', 8, true)}  ${pad('status', 6)}  note`);
  for (const r of results) {
    console.log(`${pad(r.name, 6)} ${pad(r.tRows, 8, true)} ${pad(r.dRows, 8, true)}  ${pad(r.status, 6)}  ${r.note}`);
  }
  const count = (s) => results.filter((r) => r.status === s).length;
  const passed = results.filter((r) => r.status === 'PASS').map((r) => r.name);
  console.log(`${count('PASS')} passed, ${count('DIFF')} differ, ${count('ERROR')} errors` +
              (passed.length ? ` (passed: ${passed.join(' ')})` : ''));
  conn.closeSync?.();
  return count('PASS') === results.length ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`Error: ${e.message}`);
    process.exit(1);
  },
);
