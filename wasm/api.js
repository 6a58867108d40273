// wasm/api.js: the JavaScript API of dist/wasm/nosql.mjs, in sql.js's
// shape so that a sql.js user switches with one line (docs/wasm.md):
//
//   const SQL = await (await import('./nosql.mjs')).default();
//   const db = new SQL.Database(bytes);  // bytes: an optional Uint8Array
//   db.exec(sql)                         // [{columns, values}] per statement with rows
//   const st = db.prepare(sql); st.bind(params); while (st.step()) st.get();
//   st.getAsObject(); st.free(); db.export(); db.close();
//
// Emscripten puts this file (--post-js) inside the module's factory, after
// its runtime, so the exported C functions (Module._sqlite3_*) and the
// runtime helpers are in scope. Everything here is a thin layer over the
// sqlite3_* C API; wasm/glue.c registers the extension (an auto-extension)
// and the progress handler that polls Module.nosqlPoll for interrupts.
//
// Values: NULL -> null, INTEGER -> number (a BigInt when outside +-2^53,
// where a number would round), REAL -> number, TEXT -> string, BLOB ->
// Uint8Array. Parameters: null/undefined -> NULL, boolean -> 0/1, an
// integral number or a BigInt -> INTEGER, other numbers -> REAL, string ->
// TEXT, Uint8Array/ArrayBuffer/Array -> BLOB.

var NOSQL_OK = 0;
var NOSQL_ROW = 100;
var NOSQL_DONE = 101;
var nosqlReady = false;

// Registers the auto-extensions once, before the first connection.
function nosqlInit() {
  if (nosqlReady) return;
  var rc = Module['_nosqlWasmInit']();
  if (rc !== NOSQL_OK) throw new Error('nosql: initialisation failed (sqlite3 result code ' + rc + ')');
  nosqlReady = true;
}

// A NUL-terminated UTF-8 copy of s on the heap; the caller frees it.
function nosqlAllocString(s) {
  var n = lengthBytesUTF8(s) + 1;
  var p = Module['_malloc'](n);
  if (p === 0) throw new Error('nosql: out of memory');
  stringToUTF8(s, p, n);
  return p;
}

function nosqlBytes(v) {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return Uint8Array.from(v);
}

function Statement(db, pStmt) {
  this.db = db;
  this.pStmt = pStmt;
  this.allocated = []; // heap copies of bound text and blobs (SQLITE_STATIC)
}

Statement.prototype.check = function (rc) {
  if (rc !== NOSQL_OK) throw new Error(UTF8ToString(Module['_sqlite3_errmsg'](this.db.pDb)));
};

Statement.prototype.live = function () {
  if (!this.pStmt) throw new Error('nosql: the statement has been freed');
  return this.pStmt;
};

Statement.prototype.freeBound = function () {
  for (var i = 0; i < this.allocated.length; i++) Module['_free'](this.allocated[i]);
  this.allocated = [];
};

// bind(params): an array (positional, from 1) or an object whose keys are
// the parameter names with their prefix (':a', '$a', '@a'). Returns true.
Statement.prototype.bind = function (params) {
  var p = this.live();
  Module['_sqlite3_reset'](p);
  this.check(Module['_sqlite3_clear_bindings'](p));
  this.freeBound();
  if (params == null) return true;
  if (Array.isArray(params)) {
    for (var i = 0; i < params.length; i++) this.bindValue(i + 1, params[i]);
  } else {
    for (var name in params) {
      var z = nosqlAllocString(name);
      var idx = Module['_sqlite3_bind_parameter_index'](p, z);
      Module['_free'](z);
      if (idx === 0) throw new Error('nosql: no parameter named ' + JSON.stringify(name));
      this.bindValue(idx, params[name]);
    }
  }
  return true;
};

Statement.prototype.bindValue = function (i, v) {
  var p = this.pStmt;
  var rc;
  if (v === null || v === undefined) {
    rc = Module['_sqlite3_bind_null'](p, i);
  } else if (typeof v === 'boolean') {
    rc = Module['_sqlite3_bind_int'](p, i, v ? 1 : 0);
  } else if (typeof v === 'bigint') {
    var zDec = nosqlAllocString(v.toString());
    rc = Module['_nosqlWasmBindInt64Dec'](p, i, zDec);
    Module['_free'](zDec);
  } else if (typeof v === 'number') {
    rc = Number.isSafeInteger(v) ? Module['_nosqlWasmBindInt64'](p, i, v) : Module['_sqlite3_bind_double'](p, i, v);
  } else if (typeof v === 'string') {
    var n = lengthBytesUTF8(v);
    var z = Module['_malloc'](n + 1);
    stringToUTF8(v, z, n + 1);
    this.allocated.push(z);
    rc = Module['_sqlite3_bind_text'](p, i, z, n, 0);
  } else {
    var b = nosqlBytes(v);
    var pb = Module['_malloc'](b.length || 1);
    HEAPU8.set(b, pb);
    this.allocated.push(pb);
    rc = Module['_sqlite3_bind_blob'](p, i, pb, b.length, 0);
  }
  this.check(rc);
};

// step(): true when a row is ready (read it with get), false when done;
// throws the SQLite error message (the extension's message) otherwise.
Statement.prototype.step = function () {
  var rc = Module['_sqlite3_step'](this.live());
  if (rc === NOSQL_ROW) return true;
  if (rc === NOSQL_DONE) return false;
  var msg = UTF8ToString(Module['_sqlite3_errmsg'](this.db.pDb));
  Module['_sqlite3_reset'](this.pStmt);
  throw new Error(msg);
};

Statement.prototype.columnValue = function (i) {
  var p = this.pStmt;
  switch (Module['_sqlite3_column_type'](p, i)) {
    case 1: {
      var d = Module['_sqlite3_column_double'](p, i);
      if (Number.isSafeInteger(d)) return d;
      return BigInt(UTF8ToString(Module['_sqlite3_column_text'](p, i)));
    }
    case 2:
      return Module['_sqlite3_column_double'](p, i);
    case 3: {
      var z = Module['_sqlite3_column_text'](p, i);
      return UTF8ToString(z, Module['_sqlite3_column_bytes'](p, i));
    }
    case 4: {
      var pb = Module['_sqlite3_column_blob'](p, i);
      var n = Module['_sqlite3_column_bytes'](p, i);
      return HEAPU8.slice(pb, pb + n);
    }
    default:
      return null;
  }
};

// get(params): the current row as an array (binds params first and steps
// when given, as sql.js does).
Statement.prototype.get = function (params) {
  if (params != null && this.bind(params)) this.step();
  var n = Module['_sqlite3_data_count'](this.live());
  var row = new Array(n);
  for (var i = 0; i < n; i++) row[i] = this.columnValue(i);
  return row;
};

Statement.prototype.getColumnNames = function () {
  var p = this.live();
  var n = Module['_sqlite3_column_count'](p);
  var names = new Array(n);
  for (var i = 0; i < n; i++) names[i] = UTF8ToString(Module['_sqlite3_column_name'](p, i));
  return names;
};

Statement.prototype.getAsObject = function (params) {
  var values = this.get(params);
  var names = this.getColumnNames();
  var o = {};
  for (var i = 0; i < names.length; i++) o[names[i]] = values[i];
  return o;
};

Statement.prototype.getSQL = function () {
  return UTF8ToString(Module['_sqlite3_sql'](this.live()));
};

// run(params): bind, step to the end, reset.
Statement.prototype.run = function (params) {
  if (params != null) this.bind(params);
  this.step();
  return this.reset();
};

Statement.prototype.reset = function () {
  Module['_sqlite3_reset'](this.live());
  return true;
};

// free(): finalizes the statement; true when it was live.
Statement.prototype.free = function () {
  if (!this.pStmt) return false;
  Module['_sqlite3_finalize'](this.pStmt);
  this.freeBound();
  delete this.db.statements[this.pStmt];
  this.pStmt = 0;
  return true;
};

// new Database(bytes): an in-memory database, empty or holding the image
// bytes (a Uint8Array of an SQLite database file, as export() returns).
function Database(bytes) {
  nosqlInit();
  this.pDb = 0;
  this.statements = {};
  var pp = Module['_malloc'](4);
  var zName = nosqlAllocString(':memory:');
  var rc = Module['_sqlite3_open_v2'](zName, pp, 0x02 | 0x04, 0);
  Module['_free'](zName);
  this.pDb = getValue(pp, 'i32');
  Module['_free'](pp);
  if (rc !== NOSQL_OK) {
    var msg = this.pDb ? UTF8ToString(Module['_sqlite3_errmsg'](this.pDb)) : 'out of memory';
    Module['_sqlite3_close_v2'](this.pDb);
    this.pDb = 0;
    throw new Error(msg);
  }
  if (bytes != null) this.load(nosqlBytes(bytes));
}

Database.prototype.live = function () {
  if (!this.pDb) throw new Error('nosql: the database is closed');
  return this.pDb;
};

Database.prototype.load = function (b) {
  // sqlite3_deserialize takes ownership of a sqlite3_malloc'd copy
  // (FREEONCLOSE | RESIZEABLE), so the image can grow and is freed with it.
  var p = Module['_sqlite3_malloc'](b.length || 1);
  if (p === 0) throw new Error('nosql: out of memory');
  HEAPU8.set(b, p);
  var zMain = nosqlAllocString('main');
  var rc = Module['_sqlite3_deserialize'](this.pDb, zMain, p, b.length, 0, b.length, 0, 1 | 2);
  Module['_free'](zMain);
  if (rc !== NOSQL_OK) throw new Error(UTF8ToString(Module['_sqlite3_errmsg'](this.pDb)));
};

// Prepares the first statement of the heap string at *ppz, advancing *ppz
// past it; returns 0 when only whitespace or comments were left.
Database.prototype.prepareNext = function (ppz) {
  var ppStmt = ppz + 4;
  var rc = Module['_sqlite3_prepare_v2'](this.pDb, getValue(ppz, 'i32'), -1, ppStmt, ppz);
  if (rc !== NOSQL_OK) throw new Error(UTF8ToString(Module['_sqlite3_errmsg'](this.pDb)));
  return getValue(ppStmt, 'i32');
};

// iterateStatements(sql): yields a Statement for each statement of sql in
// turn (each freed when the next one is asked for); stops at the first
// error by throwing it.
Database.prototype.iterateStatements = function* (sql) {
  this.live();
  var zSql = nosqlAllocString(sql);
  var ppz = Module['_malloc'](8);
  setValue(ppz, zSql, 'i32');
  var st = null;
  try {
    for (;;) {
      var p = this.prepareNext(ppz);
      if (p === 0) {
        if (HEAPU8[getValue(ppz, 'i32')] === 0) break;
        continue;
      }
      st = new Statement(this, p);
      this.statements[p] = st;
      yield st;
      st.free();
      st = null;
    }
  } finally {
    if (st) st.free();
    Module['_free'](ppz);
    Module['_free'](zSql);
  }
};

// exec(sql, params): runs every statement of sql; returns one
// {columns, values} for each statement that returned rows. params (as in
// bind) go to the first statement.
Database.prototype.exec = function (sql, params) {
  var results = [];
  var first = true;
  for (var st of this.iterateStatements(sql)) {
    if (first && params != null) st.bind(params);
    first = false;
    var res = null;
    while (st.step()) {
      if (res === null) {
        res = { columns: st.getColumnNames(), values: [] };
        results.push(res);
      }
      res.values.push(st.get());
    }
  }
  return results;
};

// run(sql, params): exec without the results; returns the database.
Database.prototype.run = function (sql, params) {
  this.exec(sql, params);
  return this;
};

// each(sql, params, callback, done): callback(row object) for each row of
// the first statement of sql, then done().
Database.prototype.each = function (sql, params, callback, done) {
  if (typeof params === 'function') {
    done = callback;
    callback = params;
    params = undefined;
  }
  var st = this.prepare(sql, params);
  try {
    while (st.step()) callback(st.getAsObject());
  } finally {
    st.free();
  }
  return typeof done === 'function' ? done() : undefined;
};

// prepare(sql, params): the Statement of the first statement of sql.
Database.prototype.prepare = function (sql, params) {
  this.live();
  var zSql = nosqlAllocString(sql);
  var ppz = Module['_malloc'](8);
  setValue(ppz, zSql, 'i32');
  var p;
  try {
    p = this.prepareNext(ppz);
  } finally {
    Module['_free'](ppz);
    Module['_free'](zSql);
  }
  if (p === 0) throw new Error('nosql: nothing to prepare');
  var st = new Statement(this, p);
  this.statements[p] = st;
  if (params != null) st.bind(params);
  return st;
};

// export(): the database image as a Uint8Array (sqlite3_serialize).
Database.prototype.export = function () {
  this.live();
  var pSize = Module['_malloc'](8);
  var zMain = nosqlAllocString('main');
  var p = Module['_sqlite3_serialize'](this.pDb, zMain, pSize, 0);
  var n = getValue(pSize, 'i32');
  Module['_free'](zMain);
  Module['_free'](pSize);
  if (p === 0) {
    if (n === 0) return new Uint8Array(0);
    throw new Error('nosql: out of memory');
  }
  var out = HEAPU8.slice(p, p + n);
  Module['_sqlite3_free'](p);
  return out;
};

Database.prototype.getRowsModified = function () {
  return Module['_sqlite3_changes'](this.live());
};

// close(): frees every statement and the connection; true when it was open.
Database.prototype.close = function () {
  if (!this.pDb) return false;
  for (var k in this.statements) this.statements[k].free();
  Module['_sqlite3_close_v2'](this.pDb);
  this.pDb = 0;
  return true;
};

// complete(sql): true when sql ends a statement (sqlite3_complete), for
// hosts that read statements line by line as the sqlite3 shell does.
Module['complete'] = function (sql) {
  var z = nosqlAllocString(sql);
  var r = Module['_sqlite3_complete'](z);
  Module['_free'](z);
  return r !== 0;
};

Module['Database'] = Database;
Module['Statement'] = Statement;
