// tests/hosts/deno.mjs EXT SMOKE: Deno's node:sqlite (its own SQLite) loads
// the extension and runs the shared smoke set. Run as
//   deno run --allow-read --allow-ffi tests/hosts/deno.mjs EXT SMOKE
// loadExtension() needs --allow-ffi (loading native code), and the
// database must be opened with { allowExtension: true }.
import process from "node:process";
import { DatabaseSync } from "node:sqlite";
import { smoke } from "./smoke.mjs";

const [ext, file] = process.argv.slice(2);
const db = new DatabaseSync(":memory:", { allowExtension: true });
db.loadExtension(ext);
const nfail = smoke(
  "deno",
  file,
  (sql) => {
    const r = db.prepare(sql).get();
    return r === undefined ? undefined : Object.values(r);
  },
  (sql) => db.exec(sql)
);
process.exit(nfail ? 1 : 0);
