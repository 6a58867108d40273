// docs/playground/script.js: runs a script the way the sqlite3 shell reads
// one (sql/*.sql are written for it), on a Database of dist/wasm/nosql.mjs.
// Shared by the playground's worker and tests/wasm/ (an ES module with no
// dependencies).
//
// Like the shell, a line starting with '.' is a dot-command when no
// statement is pending; lines that hold only blanks and comments then are
// skipped; other lines gather until they end a statement (sqlite3_complete).
// Dot-commands: .print prints its arguments (quoted ones unquoted, as the
// shell does); .load, .headers, .mode, .separator, .timer, .width, .bail
// and .echo are accepted and ignored (the extension is compiled in; the
// grid shows results in one shape); any other one is an error.

const IGNORED = new Set(['load', 'headers', 'header', 'mode', 'separator', 'timer', 'width', 'bail', 'echo', 'nullvalue']);

// The arguments of a dot-command line, split and unquoted as the shell does.
export function dotArgs(line) {
  const args = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i])) i++;
    if (i >= line.length) break;
    const q = line[i];
    let a = '';
    if (q === '"' || q === "'") {
      i++;
      while (i < line.length && line[i] !== q) {
        if (q === '"' && line[i] === '\\' && i + 1 < line.length) {
          const c = line[++i];
          a += c === 'n' ? '\n' : c === 't' ? '\t' : c;
        } else {
          a += line[i];
        }
        i++;
      }
      i++;
    } else {
      while (i < line.length && !/\s/.test(line[i])) a += line[i++];
    }
    args.push(a);
  }
  return args;
}

// The lines the sqlite3 shell prints for the rows (id, parent, notused,
// detail) of an EXPLAIN QUERY PLAN: "QUERY PLAN" and a tree drawn with
// |-- and `-- (the shell's eqp_render).
export function eqpLines(values) {
  const out = ['QUERY PLAN'];
  const level = (parent, prefix) => {
    const kids = values.filter((r) => r[1] === parent);
    kids.forEach((r, i) => {
      const last = i === kids.length - 1;
      out.push(prefix + (last ? '`--' : '|--') + r[3]);
      level(r[0], prefix + (last ? '   ' : '|  '));
    });
  };
  level(0, '');
  return out;
}

// True for an EXPLAIN QUERY PLAN statement (leading comments allowed).
export function isQueryPlan(sql) {
  return /^explain\s+query\s+plan\b/i.test(sql.replace(/^(\s+|--[^\n]*|\/\*[\s\S]*?\*\/)*/, ''));
}

// True when s holds nothing but blanks and SQL comments.
function blank(s) {
  return s.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '').trim() === '';
}

// The script's items in order: {dot: name, args, line} or {sql}.
// complete(sql) is sqlite3_complete (SQL.complete).
export function splitScript(text, complete) {
  const items = [];
  let sql = '';
  for (const line of text.split(/\r?\n/)) {
    if (sql === '' && line.startsWith('.')) {
      const args = dotArgs(line.slice(1));
      items.push({ dot: args[0] || '', args: args.slice(1), line });
      continue;
    }
    if (sql === '' && blank(line)) continue;
    sql += line + '\n';
    if (complete(sql)) {
      items.push({ sql });
      sql = '';
    }
  }
  if (!blank(sql)) items.push({ sql });
  return items;
}

// Runs text on db, calling emit with {type: 'print', text},
// {type: 'rows', sql, columns, values, ms, eqp} for each statement that
// has result columns (eqp: an EXPLAIN QUERY PLAN, see eqpLines), and stops at the first error, emitting
// {type: 'error', message, sql} (the extension's message as SQLite gives
// it). Returns the number of statements run.
export function runScript(SQL, db, text, emit) {
  let n = 0;
  for (const item of splitScript(text, SQL.complete)) {
    if (item.dot !== undefined) {
      if (item.dot === 'print') {
        emit({ type: 'print', text: item.args.join(' ') });
      } else if (!IGNORED.has(item.dot)) {
        emit({ type: 'error', message: 'unknown or unsupported dot-command: ' + item.line, sql: item.line });
        return n;
      }
      continue;
    }
    let current = item.sql;
    try {
      for (const st of db.iterateStatements(item.sql)) {
        current = st.getSQL();
        const t0 = performance.now();
        const columns = st.getColumnNames();
        const values = [];
        while (st.step()) values.push(st.get());
        const ms = performance.now() - t0;
        n++;
        if (columns.length > 0) emit({ type: 'rows', sql: current, columns, values, ms, eqp: isQueryPlan(current) });
      }
    } catch (e) {
      emit({ type: 'error', message: e.message, sql: current.trim() });
      return n;
    }
  }
  return n;
}
