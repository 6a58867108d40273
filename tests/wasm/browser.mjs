// tests/wasm/browser.mjs: the playground (docs/playground/, after make
// wasm) in a real headless Chromium (Debian's /usr/bin/chromium, driven by
// puppeteer-core from npm, installed by tests/wasm/browser.sh into
// build/wasm/npm/). A static server bound to 127.0.0.1 serves the page
// twice: cross-origin isolated (COOP/COEP headers, so the interrupt button
// goes through the SharedArrayBuffer flag the progress handler polls) and
// plain (as GitHub Pages serves it: the button restarts the worker).
//
// Checks: every sql/*.sql example, picked in the page and run with the Run
// button, shows the same rows as the native sqlite3 shell on the same
// script (tests/wasm/compare.mjs); ?sql= links run on load; an error shows
// the extension's message; a huge result shows 1,000 rows and says how
// many there are; the compare action shows agreement; a query that never
// ends is stopped by the Interrupt button (both ways). Prints timings (page
// load to the first ?sql= result, cold and warm; each script's WebAssembly
// time as the worker measures it, and the native shell's, process start
// included) and ends with "N passed, N failed".
import http from 'node:http';
import { createRequire } from 'node:module';
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { root, runNative, compareLines, timingColumns } from './compare.mjs';

const require = createRequire(path.join(root, 'build/wasm/npm/package.json'));
const puppeteer = require('puppeteer-core');
const pageRoot = path.join(root, 'docs/playground');
// REPEAT=k: run each script k times in Chromium (and k + 1 natively) and
// report the fastest of each (the figures of docs/benchmarks.md: REPEAT=5).
const REPEAT = Math.max(1, parseInt(process.env.REPEAT || '1', 10));
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.sql': 'text/plain' };

function serve(isolated) {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(pageRoot, rel.endsWith('/') ? rel + 'index.html' : rel);
    if (!file.startsWith(pageRoot) || !existsSync(file)) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    const headers = { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'max-age=3600' };
    if (isolated) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    res.writeHead(200, headers);
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let pass = 0;
let fail = 0;
function check(ok, what, detail) {
  if (ok) pass++;
  else {
    fail++;
    console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + detail}`);
  }
}

// Waits for the run in flight to end; returns the status state.
async function settled(page, timeout = 120000) {
  await page.waitForFunction(() => ['done', 'error', 'failed'].includes(document.getElementById('status').dataset.state), { timeout });
  return page.$eval('#status', (s) => ({ state: s.dataset.state, text: s.textContent }));
}

// The page's output as the lines the shell would print (NULL -> '').
function outputLines(page) {
  return page.evaluate(() => {
    const lines = [];
    const prints = [];
    const errors = [];
    const metas = [];
    for (const el of document.getElementById('output').children) {
      if (el.classList.contains('print')) {
        for (const l of el.textContent.split('\n')) {
          lines.push(l);
          prints.push(l);
        }
      } else if (el.classList.contains('error')) {
        errors.push(el.textContent);
      } else {
        metas.push(el.querySelector('.meta').textContent);
        const plan = el.querySelector('pre.plan');
        if (plan) lines.push(...plan.textContent.split('\n'));
        else for (const tr of el.querySelectorAll('tbody tr')) lines.push(Array.from(tr.cells, (td) => (td.classList.contains('null') ? '' : td.textContent)).join('|'));
      }
    }
    return { lines, prints, errors, metas };
  });
}

async function runInPage(page, sql) {
  await page.$eval('#editor', (e, v) => (e.value = v), sql);
  await page.click('#run');
  return settled(page);
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
});
const isolated = await serve(true);
const plain = await serve(false);
const base = `http://127.0.0.1:${isolated.address().port}/`;
const plainBase = `http://127.0.0.1:${plain.address().port}/`;
const timings = [];
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => check(false, 'no uncaught page error', e.message));

  // ?sql= runs on load (cold, then warm cache): time from navigation to the result.
  const link = base + '?sql=' + encodeURIComponent("SELECT geohash(57.64911, 10.40744, 11) AS g, 'a b&c' AS s");
  for (const kind of ['cold', 'warm']) {
    const t0 = performance.now();
    await page.goto(link);
    await page.waitForSelector('#output table', { timeout: 60000 });
    const ms = performance.now() - t0;
    timings.push(`page load to the first ?sql= result (${kind} cache): ${ms.toFixed(0)} ms`);
    const out = await outputLines(page);
    check(out.lines.join('\n') === 'u4pruydqqvj|a b&c', `?sql= link runs on load (${kind})`, JSON.stringify(out.lines));
    check((await page.$eval('#editor', (e) => e.value)).startsWith('SELECT geohash('), '?sql= link fills the editor');
  }
  check(await page.evaluate(() => self.crossOriginIsolated), 'the isolated server gives a cross-origin isolated page');

  // An error shows the extension's message, not swallowed.
  await page.goto(base + '?sql=' + encodeURIComponent("SELECT 1 AS one;\nSELECT geohash(91.5, 0);\nSELECT 'never'"));
  await page.waitForSelector('#output .error', { timeout: 60000 });
  let out = await outputLines(page);
  check(out.errors.length === 1 && out.errors[0] === 'geohash: latitude 91.5 is outside [-90, 90]', 'an error shows the extension message', JSON.stringify(out.errors));
  check(out.lines.join('\n') === '1', 'results before an error stay; statements after it do not run', JSON.stringify(out.lines));
  check((await page.$eval('#status', (s) => s.dataset.state)) === 'error', 'the status says error');
  let st = await runInPage(page, 'SELEC 1');
  out = await outputLines(page);
  check(st.state === 'error' && out.errors[0] === 'near "SELEC": syntax error', 'a syntax error is shown', JSON.stringify(out.errors));
  st = await runInPage(page, '.tables');
  out = await outputLines(page);
  check(out.errors[0] === 'unknown or unsupported dot-command: .tables', 'an unsupported dot-command is an error', JSON.stringify(out.errors));

  // A huge result: the first 1,000 rows, and how many there are.
  st = await runInPage(page, 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 250000) SELECT i, NULL, x\'ff\' FROM c');
  out = await outputLines(page);
  check(out.lines.length === 1000 && out.lines[999] === '1000||x\'ff\'', 'a huge result shows its first 1,000 rows', out.lines.length);
  check(/^250000 rows \(the first 1000 shown\)/.test(out.metas[0]), 'a huge result says how many rows there are', out.metas[0]);

  // The compare action: nosql_compare on two queries after the editor's setup.
  await page.$eval('#compare-box', (d) => (d.open = true));
  await page.$eval('#editor', (e) => (e.value = "CREATE TABLE users(id INTEGER PRIMARY KEY, city TEXT);\nINSERT INTO users SELECT value, 'c' || (value % 7) FROM json_each('[1,2,3,4,5,6,7,8,9,10,11,12,13,14]');\nCREATE INDEX users_city ON users(city);"));
  await page.$eval('#query-a', (e) => (e.value = "SELECT id FROM users NOT INDEXED WHERE city = 'c3'"));
  await page.$eval('#query-b', (e) => (e.value = "SELECT id FROM users WHERE city = 'c3'"));
  await page.click('#compare');
  st = await settled(page);
  const cmp = await page.evaluate(() => Array.from(document.querySelectorAll('#output tbody tr'), (tr) => [tr.cells[0].textContent, tr.cells[2].textContent, tr.cells[3].textContent, tr.cells[3].className]));
  check(st.state === 'done' && cmp.length === 2 && cmp.every((r) => r[1] === '2' && r[2] === '1' && r[3].includes('agree')), 'compare shows rows and agreement', JSON.stringify(cmp));
  await page.$eval('#query-b', (e) => (e.value = "SELECT id FROM users WHERE city = 'c4'"));
  await page.click('#compare');
  await settled(page);
  const cmp2 = await page.evaluate(() => Array.from(document.querySelectorAll('#output tbody tr'), (tr) => tr.cells[3].className));
  check(cmp2.length === 2 && cmp2.every((c) => c.includes('differ')), 'compare shows disagreement', JSON.stringify(cmp2));

  // A query that never ends, stopped by the button: the progress handler (isolated page) ...
  const forever = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c';
  for (const [where, url, message] of [
    ['the progress handler', base, 'interrupted'],
    ['a worker restart', plainBase, 'interrupted (the worker was stopped and restarted)'],
  ]) {
    await page.goto(url);
    await page.evaluate(() => window.playground.ready);
    await page.$eval('#editor', (e, v) => (e.value = v), forever);
    await page.click('#run');
    await new Promise((r) => setTimeout(r, 500));
    check((await page.$eval('#status', (s) => s.dataset.state)) === 'running', `the endless query is running (${where})`);
    const t0 = performance.now();
    await page.click('#interrupt');
    st = await settled(page, 10000);
    out = await outputLines(page);
    check(st.state === 'error' && out.errors[0] === message, `Interrupt stops it through ${where}`, JSON.stringify(out.errors));
    timings.push(`interrupt through ${where}: ${(performance.now() - t0).toFixed(0)} ms`);
    await page.waitForFunction(() => !document.getElementById('run').disabled, { timeout: 60000 });
    st = await runInPage(page, 'SELECT 40 + 2');
    out = await outputLines(page);
    check(out.lines.join() === '42', `the page works after the interrupt (${where})`, JSON.stringify(out));
  }

  // Every sql/ script, picked from the example list, against the native shell.
  const scripts = readdirSync(path.join(root, 'sql')).filter((f) => f.endsWith('.sql')).sort();
  const listed = await page.evaluate(() => window.playground.examples);
  for (const f of scripts) {
    const name = f.replace(/\.sql$/, '');
    check(listed.includes(name), `sql/${f} is in the example list`);
    await page.goto(base + '?example=' + name);
    await page.evaluate(() => window.playground.ready);
    await page.waitForFunction(() => document.getElementById('editor').value.length > 0);
    let wasmMs = Infinity;
    for (let r = 0; r < REPEAT; r++) {
      await page.click('#run');
      st = await settled(page, 300000);
      wasmMs = Math.min(wasmMs, await page.evaluate(() => parseFloat(document.getElementById('status').textContent.replace(/.*, /, ''))));
      if (r + 1 < REPEAT) await page.waitForFunction(() => !document.getElementById('run').disabled);
    }
    out = await outputLines(page);
    const n1 = runNative(path.join(root, 'sql', f));
    const n2 = runNative(path.join(root, 'sql', f));
    for (let r = 2; r < REPEAT + 1; r++) n2.ms = Math.min(n2.ms, runNative(path.join(root, 'sql', f)).ms);
    const truncated = out.metas.filter((m) => /shown/.test(m));
    const diffs = out.errors.length ? out.errors.map((e) => 'error: ' + e) : truncated.length ? ['a result was cut at 1,000 rows'] : compareLines(out.lines, out.prints, n1.lines, n2.lines, timingColumns(path.join(root, 'sql', f)));
    check(st.state === 'done' && diffs.length === 0, `sql/${f} in Chromium gives the native rows`, '\n     ' + diffs.slice(0, 8).join('\n     '));
    const nativeMs = Math.min(n1.ms, n2.ms);
    timings.push(`${f}: ${out.lines.length} lines, Chromium ${wasmMs.toFixed(0)} ms, native ${nativeMs.toFixed(0)} ms, ratio ${(wasmMs / nativeMs).toFixed(2)}`);
  }
} finally {
  await browser.close();
  isolated.close();
  plain.close();
}
for (const t of timings) console.log(t);
console.log(`${pass} passed, ${fail} failed`);
process.exitCode = fail ? 1 : 0;
