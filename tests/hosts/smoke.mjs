// tests/hosts/smoke.mjs: the smoke-set loop of the JavaScript hosts other
// than Node's better-sqlite3 (bun.mjs, deno.mjs). Each host passes
// row(sql), the first row of a query as an array (undefined when none),
// and run(sql) for a statement. Prints "N passed, N failed" and returns the
// number of failures.
import { readFileSync } from "node:fs";

function cell(v) {
  if (v === null || v === undefined) return "NULL";
  if (v instanceof Uint8Array) return Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("");
  return String(v);
}

export function smoke(host, file, row, run) {
  let npass = 0;
  let nfail = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const tab = line.indexOf("\t");
    const sql = tab >= 0 ? line.slice(0, tab) : line;
    const want = tab >= 0 ? line.slice(tab + 1) : "";
    let got;
    try {
      if (tab >= 0) {
        const r = row(sql);
        got = r ? r.map(cell).join("|") : "";
      } else {
        run(sql);
        got = "";
      }
    } catch (e) {
      got = "error: " + e.message;
    }
    if (got === want) {
      npass++;
    } else {
      nfail++;
      console.log(`FAIL ${host}: ${sql}\n  expected: ${want}\n  actual:   ${got}`);
    }
  }
  console.log(`${npass} passed, ${nfail} failed`);
  return nfail;
}
