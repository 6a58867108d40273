// sqlite-nosql: where the loadable extension is, and a helper that loads it.
// The layout follows sqlite-vec's npm package: getLoadablePath() for any
// host that takes a path, load(db) for hosts with db.loadExtension(path)
// (better-sqlite3; node:sqlite opened with { allowExtension: true }).
"use strict";
const path = require("node:path");
const fs = require("node:fs");

// Node's name of each platform the package can hold (process.platform and
// process.arch) and where its build is under lib/.
const PLATFORMS = {
  "linux-x64": "linux-x64/nosql.so",
  "linux-arm64": "linux-arm64/nosql.so",
  "win32-x64": "windows-x64/nosql.dll",
};

// The builds this copy of the package holds, by their directory names.
function packaged() {
  const lib = path.join(__dirname, "lib");
  return Object.values(PLATFORMS)
    .filter((rel) => fs.existsSync(path.join(lib, rel)))
    .map((rel) => rel.split("/")[0]);
}

function getLoadablePath(host = `${process.platform}-${process.arch}`) {
  const rel = PLATFORMS[host];
  const file = rel ? path.join(__dirname, "lib", rel) : null;
  if (!file || !fs.existsSync(file)) {
    throw new Error(
      `sqlite-nosql: no build for ${host} in this package ` +
        `(it holds: ${packaged().join(", ") || "none"}); ` +
        "build the extension from source with make"
    );
  }
  return file;
}

function load(db) {
  if (!db || typeof db.loadExtension !== "function") {
    throw new TypeError("sqlite-nosql: load(db) needs a database with a loadExtension(path) method");
  }
  db.loadExtension(getLoadablePath());
}

module.exports = { getLoadablePath, load };
