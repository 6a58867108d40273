// tests/hosts/bun.mjs EXT SMOKE: Bun's bun:sqlite (its own SQLite, linked
// into the bun binary on Linux) loads the extension and runs the shared
// smoke set. On macOS bun:sqlite uses the system SQLite, which cannot load
// extensions: Database.setCustomSQLite(path) comes first there.
import { Database } from "bun:sqlite";
import { smoke } from "./smoke.mjs";

const [ext, file] = process.argv.slice(2);
const db = new Database(":memory:");
db.loadExtension(ext);
const nfail = smoke(
  "bun",
  file,
  (sql) => db.query(sql).values()[0],
  (sql) => db.run(sql)
);
process.exit(nfail ? 1 : 0);
