// tests/wasm/compare.mjs: the native side of the WebAssembly checks and
// the comparison, shared by tests/wasm/scripts.mjs (Node) and
// tests/wasm/browser.mjs (Chromium).
//
// The native reference is the sqlite3 shell on the same script, as a
// person runs it (`sqlite3 -bail :memory: < sql/x.sql`), on the same
// SQLite as the WebAssembly build (build/wasm/native/libsqlite3.so.0 from
// the same amalgamation, through LD_LIBRARY_PATH, with wasm/shell_id.c
// preloaded so that the shell accepts it), with the
// dot-commands that only change the output's shape (.mode, .headers,
// .separator, .timer) removed so that rows come out as 'a|b|c' lines, and
// .load pointed at this tree's dist/nosql. The WebAssembly side's events
// (docs/playground/script.js) become the same lines: a NULL is '', a number
// its JavaScript text. The lines are compared in blocks between two .print
// lines, as sorted lists (an unordered query may list rows in another order
// on another SQLite) when they differ in order; numbers agree within a relative 1e-12 (the shell
// prints 15 significant digits, JavaScript 17); fields that differ between
// two native runs of the script (timings) are not compared.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eqpLines } from '../../docs/playground/script.js';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export function nativeScript(file) {
  const text = readFileSync(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => !/^\.(mode|headers|separator|timer)\b/.test(l))
    .map((l) => (/^\.load\b/.test(l) ? '.load ' + path.join(root, 'dist/nosql') : l))
    .join('\n');
}

// The native shell's output lines and its time in ms.
export function runNative(file) {
  const t0 = performance.now();
  const env = Object.assign({}, process.env, { LD_LIBRARY_PATH: path.join(root, 'build/wasm/native'), LD_PRELOAD: path.join(root, 'build/wasm/native/shell_id.so') });
  const out = execFileSync('sqlite3', ['-bail', ':memory:'], { input: nativeScript(file), encoding: 'utf8', maxBuffer: 1 << 28, env });
  const ms = performance.now() - t0;
  const lines = out.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return { lines, ms };
}

function cell(v) {
  if (v === null || v === undefined) return '';
  if (v instanceof Uint8Array) return Buffer.from(v).toString('latin1');
  return String(v);
}

// Events (or plain rows from the page) -> {lines, prints, error}.
export function eventLines(events) {
  const lines = [];
  const prints = [];
  let error = null;
  for (const e of events) {
    if (e.type === 'print') {
      for (const l of e.text.split('\n')) {
        lines.push(l);
        prints.push(l);
      }
    } else if (e.type === 'rows' && e.eqp) {
      lines.push(...eqpLines(e.values));
    } else if (e.type === 'rows') {
      for (const row of e.values) lines.push(row.map(cell).join('|'));
    } else if (e.type === 'error') {
      error = e.message;
    }
  }
  return { lines, prints, error };
}

// Splits lines into blocks at the print lines (in order).
function blocks(lines, prints) {
  const out = [[]];
  let k = 0;
  for (const l of lines) {
    if (k < prints.length && l === prints[k]) {
      k++;
      out.push([]);
    } else {
      out[out.length - 1].push(l);
    }
  }
  return { out, matched: k };
}

function sameField(a, b) {
  if (a === b) return true;
  const x = Number(a);
  const y = Number(b);
  if (a.trim() === '' || b.trim() === '' || !Number.isFinite(x) || !Number.isFinite(y)) return false;
  return Math.abs(x - y) <= 1e-12 * Math.max(1, Math.abs(x), Math.abs(y));
}

// The fields a script declares as timings ("-- timing column: N", N from
// 1, counted in every output line that has N fields or more): a timing's
// value depends on the engine's speed, so the two native runs may agree on
// it by chance (nosql_compare's ratio is rounded to 3 digits) where the
// WebAssembly run cannot. 0-based indexes.
export function timingColumns(file) {
  const out = new Set();
  for (const m of readFileSync(file, 'utf8').matchAll(/^-- timing column: (\d+)\s*$/gm)) out.add(Number(m[1]) - 1);
  return out;
}

// Compares the WebAssembly lines with two native runs; returns a list of
// differences (empty when they agree). timing: field indexes never compared.
export function compareLines(wasm, prints, native1, native2, timing = new Set()) {
  const w = blocks(wasm, prints);
  const n1 = blocks(native1, prints);
  const n2 = blocks(native2, prints);
  const diffs = [];
  if (n1.matched !== prints.length) diffs.push(`native output lacks .print line ${JSON.stringify(prints[n1.matched])}`);
  for (let b = 0; b < Math.max(w.out.length, n1.out.length); b++) {
    const wb = (w.out[b] || []).slice().sort();
    const nb = (n1.out[b] || []).slice().sort();
    const nb2 = (n2.out[b] || []).slice().sort();
    const volatile = new Set(timing);
    for (let i = 0; i < Math.max(nb.length, nb2.length); i++) {
      const f1 = (nb[i] || '').split('|');
      const f2 = (nb2[i] || '').split('|');
      for (let j = 0; j < Math.max(f1.length, f2.length); j++) if (f1[j] !== f2[j]) volatile.add(j);
    }
    const where = b === 0 ? 'before the first .print' : `after .print ${JSON.stringify(prints[b - 1])}`;
    if (wb.length !== nb.length) {
      diffs.push(`${where}: ${wb.length} lines in WebAssembly, ${nb.length} native`);
      continue;
    }
    const mismatches = (a, c) => {
      const out = [];
      for (let i = 0; i < a.length; i++) {
        const fw = a[i].split('|');
        const fn = c[i].split('|');
        let ok = fw.length === fn.length;
        for (let j = 0; ok && j < fw.length; j++) ok = volatile.has(j) || sameField(fw[j], fn[j]);
        if (!ok) out.push(`${where}: WebAssembly ${JSON.stringify(a[i])}, native ${JSON.stringify(c[i])}`);
      }
      return out;
    };
    const inOrder = mismatches(w.out[b] || [], n1.out[b] || []);
    if (inOrder.length > 0 && mismatches(wb, nb).length > 0) diffs.push(...inOrder);
  }
  return diffs;
}
