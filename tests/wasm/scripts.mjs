// tests/wasm/scripts.mjs [sql/x.sql ...]: every side-by-side script of sql/
// (or the ones named) through dist/wasm/nosql.mjs under Node, each output
// compared with the native sqlite3 shell's (tests/wasm/compare.mjs), then
// the API's own checks (tests/wasm/api.mjs). Prints one line per script
// with the WebAssembly/native time ratio and ends with "N passed, N failed".
// make test-wasm runs it after make wasm.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { root, runNative, eventLines, compareLines, timingColumns } from './compare.mjs';
import { runScript } from '../../docs/playground/script.js';

const SQL = await (await import(path.join(root, 'dist/wasm/nosql.mjs'))).default();
const files = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(path.join(root, 'sql')).filter((f) => f.endsWith('.sql')).sort().map((f) => path.join(root, 'sql', f));
let pass = 0;
let fail = 0;
for (const file of files) {
  const name = path.basename(file);
  const db = new SQL.Database();
  const events = [];
  const t0 = performance.now();
  runScript(SQL, db, readFileSync(file, 'utf8'), (e) => events.push(e));
  const ms = performance.now() - t0;
  db.close();
  const { lines, prints, error } = eventLines(events);
  const n1 = runNative(file);
  const n2 = runNative(file);
  const diffs = error ? [`error: ${error}`] : compareLines(lines, prints, n1.lines, n2.lines, timingColumns(file));
  const ratio = (ms / Math.min(n1.ms, n2.ms)).toFixed(2);
  if (diffs.length === 0) {
    pass++;
    console.log(`ok   ${name}: ${lines.length} lines, wasm ${ms.toFixed(0)} ms, native ${Math.min(n1.ms, n2.ms).toFixed(0)} ms, ratio ${ratio}`);
  } else {
    fail++;
    console.log(`FAIL ${name}: ${diffs.length} differences`);
    for (const d of diffs.slice(0, 10)) console.log('     ' + d);
  }
}
// The comparison itself must be able to fail: a changed value, a missing
// row and a changed .print block are differences; a timing (a field that
// differs between the two native runs), row order and 15 vs 17 digits are not.
const selfChecks = [
  [['a|1'], [], ['a|2'], ['a|2'], 1],
  [['a|1'], [], ['a|1', 'b|2'], ['a|1', 'b|2'], 1],
  [['-- x', 'a|1'], ['-- x'], ['-- y', 'a|1'], ['-- y', 'a|1'], 1],
  [['q|0.7'], [], ['q|0.5'], ['q|0.6'], 0],
  [['b|2', 'a|1'], [], ['a|1', 'b|2'], ['a|1', 'b|2'], 0],
  [['0.3333333333333333|1'], [], ['0.333333333333333|1.0'], ['0.333333333333333|1.0'], 0],
];
for (const [w, prints, n1, n2, bad] of selfChecks) {
  const d = compareLines(w, prints, n1, n2);
  if ((d.length > 0) === (bad === 1)) pass++;
  else {
    fail++;
    console.log(`FAIL comparison self-check ${JSON.stringify([w, n1])}: ${JSON.stringify(d)}`);
  }
}

// The size limit of the issue: the .wasm at most 1.5 MB gzipped.
const gz = gzipSync(readFileSync(path.join(root, 'dist/wasm/nosql.wasm')), { level: 9 }).length;
if (gz <= 1500000) pass++;
else {
  fail++;
  console.log(`FAIL dist/wasm/nosql.wasm is ${gz} bytes gzipped, over 1,500,000`);
}
console.log(`dist/wasm/nosql.wasm: ${gz} bytes gzipped`);

// locateFile, as sql.js users pass it: where nosql.wasm is; a wrong place
// rejects the factory's promise.
const factory = (await import(path.join(root, 'dist/wasm/nosql.mjs'))).default;
const located = await factory({ locateFile: (name, prefix) => prefix + name });
if (new located.Database().exec('SELECT 1')[0].values[0][0] === 1) pass++;
else fail++;
try {
  await factory({ locateFile: () => 'no-such.wasm' });
  fail++;
  console.log('FAIL locateFile to a missing file: no error');
} catch (e) {
  pass++;
}

const api = await import('./api.mjs');
const r = api.run(SQL);
pass += r.pass;
fail += r.fail;
console.log(`${pass} passed, ${fail} failed`);
process.exitCode = fail ? 1 : 0;
