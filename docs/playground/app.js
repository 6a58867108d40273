// docs/playground/app.js: the playground page (docs/wasm.md). The SQL runs
// in worker.js; this file keeps the editor, the example list, the grid, the
// shareable links (?sql=<url-encoded SQL> runs on load; ?example=<name>
// loads a script of sql/) and the interrupt button.
import { eqpLines } from './script.js';

// One side-by-side script per technique family (copied from sql/ by make wasm).
const EXAMPLES = [
  ['core', 'application-side joins (the side-by-side mechanism)'],
  ['compare', 'nosql_compare and nosql_explain on one table'],
  ['documents', 'documents: aggregates vs. normalized tables'],
  ['nested_documents', 'nested documents and their gaps'],
  ['composite_keys', 'composite keys and key ranges'],
  ['query_tables', 'index tables (a DynamoDB GSI) vs. CREATE INDEX'],
  ['inverted_index', 'inverted indexes vs. LIKE and FTS5'],
  ['range', 'numeric RANGE fields (bit-sliced bitmaps) vs. an index per column'],
  ['mpath', 'materialized paths'],
  ['nested_set', 'nested sets vs. an adjacency list'],
  ['graphs', 'graph walks vs. recursive CTEs'],
  ['graph_batch', 'batch graph processing'],
  ['geohash', 'geohash vs. R*Tree and a plain scan'],
  ['nearest', 'k nearest neighbours (geo_nearest) vs. a radius guessed and retried'],
];
const $ = (id) => document.getElementById(id);
const editor = $('editor');
const output = $('output');
const status = $('status');
let worker = null;
let flag = null;
let nextId = 1;
let pending = null; // {id, resolve} of the request in flight
let readyResolve;
const ready = new Promise((r) => (readyResolve = r));

function setStatus(text, state) {
  status.textContent = text;
  status.dataset.state = state;
}

function startWorker() {
  worker = new Worker(new URL('worker.js', import.meta.url), { type: 'module' });
  flag = self.crossOriginIsolated && typeof SharedArrayBuffer === 'function' ? new Int32Array(new SharedArrayBuffer(4)) : null;
  worker.onmessage = (msg) => {
    const m = msg.data;
    if (m.kind === 'ready') {
      $('versions').textContent = `SQLite ${m.versions[0]}, nosql ${m.versions[1]}` + (flag ? '' : ' (interrupt restarts the worker)');
      for (const b of ['run', 'share', 'compare']) $(b).disabled = false;
      readyResolve();
    } else if (m.kind === 'failed') {
      setStatus('the WebAssembly module did not load: ' + m.message, 'failed');
    } else if (m.kind === 'done' && pending && pending.id === m.id) {
      const p = pending;
      pending = null;
      p.resolve(m);
    }
  };
  worker.postMessage({ kind: 'init', flag });
}

function cell(td, v) {
  if (v === null) {
    td.textContent = 'NULL';
    td.className = 'null';
  } else if (v instanceof Uint8Array) {
    td.textContent = "x'" + Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('') + "'";
  } else {
    td.textContent = String(v);
    if (typeof v === 'number' || typeof v === 'bigint') td.className = 'num';
  }
}

function render(m) {
  output.textContent = '';
  let nStmt = 0;
  for (const e of m.events) {
    if (e.type === 'print') {
      const d = document.createElement('div');
      d.className = 'print';
      d.textContent = e.text;
      output.append(d);
    } else if (e.type === 'error') {
      const d = document.createElement('div');
      d.className = 'error';
      d.textContent = e.message;
      d.title = e.sql || '';
      output.append(d);
    } else {
      nStmt++;
      const d = document.createElement('div');
      d.className = 'result';
      const meta = document.createElement('div');
      meta.className = 'meta';
      const shown = e.values.length < e.total ? ` (the first ${e.values.length} shown)` : '';
      meta.textContent = `${e.total} row${e.total === 1 ? '' : 's'}${shown}, ${e.ms.toFixed(1)} ms`;
      const sql = document.createElement('pre');
      sql.className = 'sql';
      sql.textContent = e.sql.trim();
      d.append(sql, meta);
      if (e.eqp) {
        const pre = document.createElement('pre');
        pre.className = 'plan';
        pre.textContent = eqpLines(e.values).join('\n');
        d.append(pre);
      } else {
        const t = document.createElement('table');
        const hr = t.createTHead().insertRow();
        for (const c of e.columns) hr.append(Object.assign(document.createElement('th'), { textContent: c }));
        const body = t.createTBody();
        const agreeCol = e.compare ? e.columns.indexOf('agree') : -1;
        for (const row of e.values) {
          const tr = body.insertRow();
          row.forEach((v, i) => {
            const td = tr.insertCell();
            cell(td, v);
            if (i === agreeCol) td.classList.add(v === 1 ? 'agree' : 'differ');
          });
        }
        d.append(t);
      }
      output.append(d);
    }
  }
  const err = m.events.find((e) => e.type === 'error');
  setStatus(err ? `error after ${nStmt} result(s), ${m.ms.toFixed(0)} ms` : `${nStmt} result(s), ${m.ms.toFixed(0)} ms`, err ? 'error' : 'done');
}

function request(msg) {
  return new Promise((resolve) => {
    const id = nextId++;
    pending = { id, resolve };
    $('run').disabled = $('compare').disabled = true;
    $('interrupt').disabled = false;
    setStatus('running…', 'running');
    worker.postMessage(Object.assign({ id }, msg));
  }).then((m) => {
    $('run').disabled = $('compare').disabled = false;
    $('interrupt').disabled = true;
    render(m);
    return m;
  });
}

const run = () => request({ kind: 'run', sql: editor.value });
const compare = () => request({ kind: 'compare', setup: editor.value, a: $('query-a').value, b: $('query-b').value });

function interrupt() {
  if (!pending) return;
  if (flag) {
    Atomics.store(flag, 0, 1);
    return;
  }
  // No SharedArrayBuffer (a page that is not cross-origin isolated, such as
  // GitHub Pages): stop the worker, start another, report the interrupt.
  const p = pending;
  pending = null;
  worker.terminate();
  startWorker();
  // Requests wait in the new worker until its module has loaded.
  p.resolve({ events: [{ type: 'error', message: 'interrupted (the worker was stopped and restarted)', sql: '' }], ms: 0 });
}

async function loadExample(name) {
  const r = await fetch(`sql/${name}.sql`);
  if (!r.ok) throw new Error(`sql/${name}.sql: HTTP ${r.status}`);
  editor.value = await r.text();
}

const sel = $('examples');
for (const [name, what] of EXAMPLES) sel.append(new Option(`${name}.sql: ${what}`, name));
sel.onchange = () => sel.value && loadExample(sel.value);
$('run').onclick = run;
$('compare').onclick = compare;
$('interrupt').onclick = interrupt;
$('share').onclick = async () => {
  const url = new URL(location.href);
  url.search = '?sql=' + encodeURIComponent(editor.value);
  history.replaceState(null, '', url);
  try {
    await navigator.clipboard.writeText(url.href);
    setStatus('link copied', 'done');
  } catch {
    setStatus('link in the address bar', 'done');
  }
};
editor.onkeydown = (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !$('run').disabled) run();
};

startWorker();
const params = new URLSearchParams(location.search);
window.playground = { ready, run, compare, loadExample, examples: EXAMPLES.map((e) => e[0]) };
ready.then(async () => {
  if (params.has('sql')) {
    editor.value = params.get('sql');
    await run();
  } else if (params.has('example')) {
    sel.value = params.get('example');
    await loadExample(params.get('example'));
  }
});
