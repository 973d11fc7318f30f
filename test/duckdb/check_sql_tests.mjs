// Cross-checks the expected results in test/sql/*.test against DuckDB, whose semantics
// tessera follows (a tool for test authors; not run by ctest, since error messages and a
// few documented choices differ).
//
//   node test/duckdb/check_sql_tests.mjs [FILE.test ...]   (default: every test/sql file)
//
// Each file runs in a fresh in-memory DuckDB from the repository root. Prints the records
// where DuckDB disagrees: a query whose rows differ, a `statement ok` that fails, or a
// `statement error` that succeeds. Values are printed the way tessera prints them
// (DOUBLE 2 as "2.0", NULL as NULL, the empty string as "(empty)").
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

function parse(text) {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const records = [];
  let i = 0;
  const blank = (l) => l.trim() === '';
  while (i < lines.length) {
    const header = lines[i];
    if (blank(header) || header.startsWith('#')) {
      i++;
      continue;
    }
    const r = { line: i + 1, header: header.trim().split(/\s+/), sql: '', expected: null };
    if (r.header[0] === 'halt') break;
    i++;
    for (; i < lines.length && !blank(lines[i]); i++) {
      if (lines[i].trim() === '----') {
        i++;
        r.expected = [];
        for (; i < lines.length && !blank(lines[i]); i++) r.expected.push(lines[i]);
        break;
      }
      r.sql += `${lines[i]}\n`;
    }
    records.push(r);
  }
  return records;
}

function text(value, type) {
  if (value === null || value === undefined) return 'NULL';
  if (/^(DOUBLE|FLOAT)/.test(type)) {
    const d = Number(value);
    if (Number.isNaN(d)) return 'nan';
    if (!Number.isFinite(d)) return d > 0 ? 'inf' : '-inf';
    if (Number.isInteger(d) && Math.abs(d) < 1e16) return `${d}.0`;
    return String(d);
  }
  const s = String(value);
  return s === '' ? '(empty)' : s;
}

async function checkFile(file) {
  const records = parse(fs.readFileSync(file, 'utf8'));
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  let problems = 0;
  const report = (r, msg) => {
    problems++;
    console.log(`${path.relative(repoRoot, file)}:${r.line}: ${msg}\n    ${r.sql.trim().replace(/\n/g, '\n    ')}`);
  };
  for (const r of records) {
    const kind = r.header.join(' ');
    try {
      if (r.header[0] === 'statement') {
        await conn.run(r.sql);
        if (kind === 'statement error') report(r, 'DuckDB accepts a statement expected to fail');
        continue;
      }
      const reader = await conn.runAndReadAll(r.sql);
      const types = reader.columnTypes().map((t) => t.toString());
      let actual = reader.getRows().map((row) => row.map((v, c) => text(v, types[c])));
      let expected = r.expected.map((l) => l.split('\t'));
      const mode = r.header[2] ?? 'nosort';
      if (mode === 'rowsort') {
        actual = actual.map((x) => x.join('\t')).sort();
        expected = expected.map((x) => x.join('\t')).sort();
      } else if (mode === 'valuesort') {
        actual = actual.flat().sort();
        expected = expected.flat().sort();
      } else {
        actual = actual.map((x) => x.join('\t'));
        expected = expected.map((x) => x.join('\t'));
      }
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        report(r, `DuckDB returns\n      ${actual.join('\n      ')}\n    expected\n      ${expected.join('\n      ')}\n    types ${types.join(', ')}`);
      }
    } catch (e) {
      if (kind !== 'statement error') report(r, `DuckDB error: ${e.message.split('\n')[0]}`);
    }
  }
  conn.closeSync?.();
  return problems;
}

let files = process.argv.slice(2).map((f) => path.resolve(f));
process.chdir(repoRoot);
if (files.length === 0) {
  const walk = (dir) =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? walk(path.join(dir, d.name)) : d.name.endsWith('.test') ? [path.join(dir, d.name)] : []);
  files = walk(path.join(repoRoot, 'test', 'sql')).sort();
}
let total = 0;
for (const f of files) total += await checkFile(f);
console.log(`${total} record(s) where DuckDB disagrees`);
process.exit(total ? 1 : 0);
