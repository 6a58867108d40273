// tests/hosts/node.js EXT SMOKE: Node with better-sqlite3 (its own bundled
// SQLite, built by make test-hosts-node into tests/hosts/node_modules) loads
// the extension and runs the shared smoke set.
"use strict";
const fs = require("fs");
const Database = require("better-sqlite3");
const [ext, smoke] = process.argv.slice(2);
const db = new Database(":memory:");
db.loadExtension(ext);
let npass = 0;
let nfail = 0;
for (const line of fs.readFileSync(smoke, "utf8").split("\n")) {
  if (line === "" || line.startsWith("#")) continue;
  const tab = line.indexOf("\t");
  const sql = tab >= 0 ? line.slice(0, tab) : line;
  let want = tab >= 0 ? line.slice(tab + 1) : "";
  let got;
  try {
    const stmt = db.prepare(sql);
    if (stmt.reader) {
      const row = stmt.raw().get();
      got = row ? row.map((v) => (v === null ? "NULL" : Buffer.isBuffer(v) ? v.toString("hex") : String(v))).join("|") : "";
    } else {
      stmt.run();
      got = "";
    }
  } catch (e) {
    got = "error: " + e.message;
  }
  if (tab < 0 && !got.startsWith("error")) got = "";
  if (got === want) {
    npass++;
  } else {
    nfail++;
    console.log(`FAIL node: ${sql}\n  expected: ${want}\n  actual:   ${got}`);
  }
}
console.log(`${npass} passed, ${nfail} failed`);
process.exit(nfail ? 1 : 0);
