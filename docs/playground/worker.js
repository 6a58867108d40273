// docs/playground/worker.js: the playground's Web Worker (a module
// worker). It owns the WebAssembly module and runs each request on a new
// in-memory database, so that a long query never blocks the page.
//
// Messages in: {kind: 'init', flag} (flag: an Int32Array on a
// SharedArrayBuffer, or null), {kind: 'run', id, sql} (a script, run as
// script.js runs it), {kind: 'compare', id, setup, a, b} (setup, then
// nosql_compare(a, b, 5, 'A', 'B')). Out: {kind: 'ready', versions} or
// {kind: 'failed', message}, then {kind: 'done', id, events, ms} per request
// with at most MAX_ROWS rows per result (total says how many there were).
//
// Interrupts: when the page could give a SharedArrayBuffer (a cross-origin
// isolated page), the progress handler (wasm/glue.c) polls flag[0] and the
// statement fails with "interrupted"; otherwise the page terminates this
// worker and starts another.
import initNosql from './dist/nosql.mjs';
import { runScript } from './script.js';

const MAX_ROWS = 1000;
let SQL = null;
let flag = null;

function trimmed(events) {
  return events.map((e) => (e.type === 'rows' && e.values.length > MAX_ROWS ? Object.assign({}, e, { values: e.values.slice(0, MAX_ROWS), total: e.values.length }) : Object.assign({ total: e.values ? e.values.length : 0 }, e)));
}

function run(text, extra) {
  const db = new SQL.Database();
  const events = [];
  const t0 = performance.now();
  try {
    const n = runScript(SQL, db, text, (e) => events.push(e));
    if (extra && !events.some((e) => e.type === 'error')) extra(db, events, n);
  } finally {
    db.close();
  }
  return { events: trimmed(events), ms: performance.now() - t0 };
}

let ready = null; // the promise of the module's initialisation

async function init(m) {
  try {
    flag = m.flag;
    SQL = await initNosql();
    SQL.nosqlPoll = () => flag !== null && Atomics.load(flag, 0) !== 0;
    const v = new SQL.Database();
    const versions = v.exec('SELECT sqlite_version(), nosql_version()')[0].values[0];
    v.close();
    self.postMessage({ kind: 'ready', versions });
  } catch (e) {
    self.postMessage({ kind: 'failed', message: String(e && e.message ? e.message : e) });
  }
}

function compare(m) {
  return run(m.setup, (db, events) => {
    try {
      const t0 = performance.now();
      const st = db.prepare("SELECT label AS side, query, rows, agree, median_us, ratio FROM nosql_compare(?, ?, 5, 'A', 'B')");
      st.bind([m.a, m.b]);
      const values = [];
      while (st.step()) values.push(st.get());
      events.push({ type: 'rows', sql: 'nosql_compare(A, B)', columns: st.getColumnNames(), values, ms: performance.now() - t0, compare: true });
      st.free();
    } catch (e) {
      events.push({ type: 'error', message: e.message, sql: 'nosql_compare(A, B)' });
    }
  });
}

// Requests wait for the initialisation; whatever happens, each gets its
// 'done' answer (an unexpected failure as an error event).
self.onmessage = async (msg) => {
  const m = msg.data;
  if (m.kind === 'init') {
    ready = init(m);
    return;
  }
  await ready;
  if (flag !== null) Atomics.store(flag, 0, 0);
  let result;
  try {
    if (SQL === null) throw new Error('the WebAssembly module did not load');
    result = m.kind === 'run' ? run(m.sql) : compare(m);
  } catch (e) {
    result = { events: [{ type: 'error', message: String(e && e.message ? e.message : e), sql: '' }], ms: 0 };
  }
  self.postMessage(Object.assign({ kind: 'done', id: m.id }, result));
};
