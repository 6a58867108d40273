// sqlite-nosql: where the loadable extension is, and a helper that loads it.
// The layout follows sqlite-vec's npm package: getLoadablePath() for any
// host that takes a path, load(db) for hosts with db.loadExtension(path)
// (better-sqlite3; node:sqlite opened with { allowExtension: true }).
"use strict";
const path = require("node:path");
const fs = require("node:fs");

const SUPPORTED = ["linux-x64", "linux-arm64"];

function getLoadablePath() {
  const platform = `${process.platform}-${process.arch}`;
  const file = path.join(__dirname, "lib", platform, "nosql.so");
  if (!SUPPORTED.includes(platform) || !fs.existsSync(file)) {
    throw new Error(
      `sqlite-nosql: no build for ${platform} in this package ` +
        `(it holds: ${fs.readdirSync(path.join(__dirname, "lib")).join(", ")}); ` +
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
