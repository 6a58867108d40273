// tests/wasm/api.mjs: checks of the sql.js-shaped API (wasm/api.js), run
// by tests/wasm/scripts.mjs: run(SQL) returns {pass, fail}.
export function run(SQL) {
  let pass = 0;
  let fail = 0;
  const check = (ok, what, detail) => {
    if (ok) pass++;
    else {
      fail++;
      console.log(`FAIL api: ${what}: ${detail === undefined ? '' : detail}`);
    }
  };
  const same = (a, b, what) => {
    const fmt = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() + 'n' : x instanceof Uint8Array ? Array.from(x) : x));
    check(fmt(a) === fmt(b), what, `${fmt(a)} != ${fmt(b)}`);
  };
  const throws = (f, message, what) => {
    try {
      f();
      check(false, what, 'no error');
    } catch (e) {
      check(e.message === message, what, JSON.stringify(e.message));
    }
  };

  const db = new SQL.Database();
  // exec: one result per statement with rows; none for others or for an empty one.
  same(db.exec("CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (NULL, x'00ff'); SELECT 1 WHERE 0; SELECT a, b FROM t ORDER BY rowid"),
    [{ columns: ['a', 'b'], values: [[1, 'x'], [null, new Uint8Array([0, 255])]] }], 'exec results');
  same(db.exec(''), [], 'exec of nothing');
  same(db.exec('-- only a comment'), [], 'exec of a comment');
  same(db.exec('SELECT 0.5, -9007199254740991, 9007199254740993, -9223372036854775808'),
    [{ columns: ['0.5', '-9007199254740991', '9007199254740993', '-9223372036854775808'], values: [[0.5, -9007199254740991, 9007199254740993n, -9223372036854775808n]] }], 'numbers and BigInt beyond 2^53');
  same(db.exec("SELECT 'héllo ☃ 𝄞', length('héllo ☃ 𝄞')"), [{ columns: ["'héllo ☃ 𝄞'", "length('héllo ☃ 𝄞')"], values: [['héllo ☃ 𝄞', 9]] }], 'UTF-8 text');
  same(db.exec('SELECT ? + 1, ?', [41, 'a']), [{ columns: ['? + 1', '?'], values: [[42, 'a']] }], 'exec with params');
  // The extension is there, with its own error messages.
  same(db.exec("SELECT nosql_version() IS NOT NULL, geohash(57.64911, 10.40744, 11)")[0].values, [[1, 'u4pruydqqvj']], 'the extension is registered');
  throws(() => db.exec('SELECT geohash(91.5, 0)'), 'geohash: latitude 91.5 is outside [-90, 90]', 'the extension\'s error message');
  throws(() => db.exec('SELEC 1'), 'near "SELEC": syntax error', 'syntax error message');
  throws(() => db.exec('SELECT * FROM nowhere'), 'no such table: nowhere', 'missing table message');
  // prepare/bind/step/get/getAsObject/free.
  const st = db.prepare('SELECT :a AS a, typeof(:a) AS t, $b AS b');
  check(st.bind({ ':a': 7, $b: 'z' }) === true, 'bind returns true');
  check(st.step() === true, 'step gives a row');
  same(st.get(), [7, 'integer', 'z'], 'get');
  same(st.getAsObject(), { a: 7, t: 'integer', b: 'z' }, 'getAsObject');
  check(st.step() === false, 'step at the end');
  same(st.getAsObject({ ':a': 1.5 }), { a: 1.5, t: 'real', b: null }, 'getAsObject(params) rebinds');
  same(st.get({ ':a': true }), [1, 'integer', null], 'boolean binds as 0/1');
  same(st.get({ ':a': 12345678901234567n }), [12345678901234567n, 'integer', null], 'BigInt binds as integer');
  same(st.get({ ':a': new Uint8Array([1, 2]) }), [new Uint8Array([1, 2]), 'blob', null], 'Uint8Array binds as blob');
  same(st.get({ ':a': null }), [null, 'null', null], 'null binds as NULL');
  throws(() => st.bind({ ':nope': 1 }), 'nosql: no parameter named ":nope"', 'unknown parameter name');
  throws(() => st.bind([1, 2, 3, 4]), 'column index out of range', 'too many positional parameters');
  check(st.free() === true, 'free returns true');
  check(st.free() === false, 'second free returns false');
  throws(() => st.step(), 'nosql: the statement has been freed', 'step after free');
  throws(() => db.prepare('   '), 'nosql: nothing to prepare', 'prepare of nothing');
  // A runtime error from step keeps the statement usable.
  const bad = db.prepare("SELECT json_extract(?, '$')");
  bad.bind(['{']);
  throws(() => bad.step(), 'malformed JSON', 'runtime error from step');
  bad.bind(['[1]']);
  check(bad.step() && bad.get()[0] === '[1]', 'statement usable after an error');
  bad.free();
  // export / load / close.
  db.run('CREATE TABLE big(x); INSERT INTO big SELECT randomblob(1000) FROM json_each(json_array(' + Array(300).fill(0).join(',') + '))');
  const bytes = db.export();
  check(bytes instanceof Uint8Array && new TextDecoder().decode(bytes.slice(0, 15)) === 'SQLite format 3', 'export is a database image', bytes.length);
  const db2 = new SQL.Database(bytes);
  same(db2.exec('SELECT count(*), sum(length(x)) FROM big')[0].values, [[300, 300000]], 'a database from exported bytes');
  db2.run('INSERT INTO big VALUES (1)');
  same(db2.exec('SELECT count(*) FROM big')[0].values, [[301]], 'the loaded image can grow');
  check(db2.close() === true && db2.close() === false, 'close twice');
  throws(() => db2.exec('SELECT 1'), 'nosql: the database is closed', 'exec after close');
  throws(() => new SQL.Database(new Uint8Array([1, 2, 3])).exec('SELECT * FROM sqlite_master'), 'file is not a database', 'garbage bytes');
  same(new SQL.Database(new Uint8Array(0)).exec('SELECT count(*) FROM sqlite_master')[0].values, [[0]], 'empty bytes: an empty database');
  same(db.getRowsModified(), 300, 'getRowsModified');
  // Huge values: the heap grows past its initial 16 MB (the API rereads HEAPU8).
  const huge = new SQL.Database();
  huge.run("CREATE TABLE b(x); INSERT INTO b SELECT zeroblob(1000000) FROM json_each('[" + Array(24).fill(0).join(',') + "]')");
  const image = huge.export();
  check(image.length > 24000000, 'a 24 MB database exports', image.length);
  huge.close();
  const again = new SQL.Database(image);
  same(again.exec('SELECT count(*), sum(length(x)) FROM b')[0].values, [[24, 24000000]], 'a 24 MB image loads');
  same(again.exec('SELECT length(?)', ['é'.repeat(3000000)])[0].values, [[3000000]], 'a 6 MB text parameter');
  again.close();
  // Extension features that need no files work: a virtual table and load_extension's absence.
  db.run("CREATE TABLE docs(id INTEGER PRIMARY KEY, body); INSERT INTO docs VALUES (1, 'red apple'), (2, 'green apple')");
  throws(() => db.exec("SELECT load_extension('x')"), 'no such function: load_extension', 'no load_extension');
  // Interrupt through the progress handler: a poll that says stop.
  let polls = 0;
  SQL.nosqlPoll = () => ++polls > 3;
  throws(() => db.exec('WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c'), 'interrupted', 'a never-ending query is interrupted');
  SQL.nosqlPoll = null;
  same(db.exec('SELECT 1')[0].values, [[1]], 'the connection works after an interrupt');
  // Statements left open are freed by close.
  const open = db.prepare('SELECT 1');
  db.close();
  check(open.pStmt === 0, 'close frees open statements');
  return { pass, fail };
}
