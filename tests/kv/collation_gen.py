#!/usr/bin/env python3
"""collation_gen.py: writes tests/kv/collation.test, the generic test of
"one key, one row" (issue 35, item 1) for every function that reads or
writes by key: kv_cas (both forms), kv_delete_if, kv_mget, doc_update and
doc_upsert on a table t(key, value, doc, version), and kv_incr and kv_get
on a nosql_counters(name, value) created beforehand the same way (each on a
new connection, which checks when it prepares its statements).

Each case is a table whose key column has one collation (BINARY, NOCASE,
RTRIM or none declared) and whose unique index has one collation (BINARY,
NOCASE, RTRIM) and one form (a column constraint, a table UNIQUE or PRIMARY
KEY constraint, a WITHOUT ROWID primary key, CREATE UNIQUE INDEX, a partial
index, an index on two columns, an index on an expression). The same four
rows are inserted into each ('A', 'a', 'a ' and 'b'; OR IGNORE keeps those
the unique index admits, which this script works out too), then each
function is called with the key 'a' on a fresh copy. A small model written
here says what must happen:

  - the table is refused, with the exact message, and nothing changes, when
    the key column has no unique index of its own collation (the one
    "WHERE key = ?" uses): no unique index on the key column alone (partial,
    multi-column and expression indexes do not count), or only indexes of
    another collation (a coarser one too: an insert would then conflict
    with a row the key does not find);
  - otherwise at most one row matches 'a' under the key's collation (the
    script stops with an error if its own model finds two, or if an insert
    would conflict with a row the key does not find), and the call changes
    exactly that row, or inserts one, or changes nothing, as the model
    says.

The whole table is compared before and after every call. Run

    python3 tests/kv/collation_gen.py > tests/kv/collation.test
    python3 tests/kv/collation_gen.py --check tests/kv/collation.test

The second form (a step of tests/run.sh) fails when the committed file is
not what this script writes: edit the script, never the .test file.
Standard library only.
"""
import argparse
import sys

KEY_COLLS = [None, "BINARY", "NOCASE", "RTRIM"]
INDEX_COLLS = ["BINARY", "NOCASE", "RTRIM"]
ROWS = [("A", "old", '{"n":1}', 1), ("a", "old", '{"n":2}', 2), ("a ", "old", '{"n":3}', 3), ("b", "old", '{"n":4}', 4)]
PROBE = "a"
KV_LAYOUT = "a (key PRIMARY KEY, value) table"
DOC_LAYOUT = "a (key PRIMARY KEY, doc, version INTEGER) table"
COUNTER_LAYOUT = "a (name TEXT PRIMARY KEY, value INTEGER) table"


def equal(coll, a, b):
    """a = b under SQLite's built-in collation coll (ASCII text only here)."""
    if coll == "NOCASE":
        return a.lower() == b.lower()
    if coll == "RTRIM":
        return a.rstrip(" ") == b.rstrip(" ")
    return a == b


def sql_text(s):
    return "'" + s.replace("'", "''") + "'"


class Variant:
    """One unique index: how it is declared, how it admits rows, whether it counts."""

    def __init__(self, name, coll, counts, describe, table_tail="", column_tail="", after="",
                 without_rowid=False, clash=None):
        self.name = name              # For the comment line
        self.coll = coll              # The index's collation as index_xinfo reports it
        self.counts = counts          # A unique index on the key column alone, not partial
        self.describe = describe      # "its unique index 't_key'" (messages)
        self.table_tail = table_tail  # Table constraint text, after the columns
        self.column_tail = column_tail  # Column constraint text, after "key TEXT [COLLATE c]"
        self.after = after            # CREATE UNIQUE INDEX statement, or ""
        self.without_rowid = without_rowid
        # clash(row_a, row_b): the index refuses the two rows together.
        self.clash = clash or (lambda a, b: equal(coll, a[0], b[0]))


def variants(key_coll):
    """The unique indexes tried against a key column of collation key_coll (None: none declared)."""
    own = key_coll or "BINARY"
    out = [
        Variant("column constraint UNIQUE", own, True, "its UNIQUE constraint", column_tail=" UNIQUE"),
        Variant("column constraint PRIMARY KEY", own, True, "its PRIMARY KEY", column_tail=" PRIMARY KEY"),
    ]
    for c in INDEX_COLLS:
        out += [
            Variant(f"UNIQUE(key COLLATE {c})", c, True, "its UNIQUE constraint",
                    table_tail=f", UNIQUE(key COLLATE {c})"),
            Variant(f"PRIMARY KEY(key COLLATE {c})", c, True, "its PRIMARY KEY",
                    table_tail=f", PRIMARY KEY(key COLLATE {c})"),
            Variant(f"PRIMARY KEY(key COLLATE {c}) WITHOUT ROWID", c, True, "its PRIMARY KEY",
                    table_tail=f", PRIMARY KEY(key COLLATE {c})", without_rowid=True),
            Variant(f"CREATE UNIQUE INDEX t_key ON t(key COLLATE {c})", c, True, "its unique index 't_key'",
                    after=f"CREATE UNIQUE INDEX t_key ON t(key COLLATE {c})"),
            Variant(f"partial CREATE UNIQUE INDEX t_key ON t(key COLLATE {c}) WHERE key <> ''", c, False, None,
                    after=f"CREATE UNIQUE INDEX t_key ON t(key COLLATE {c}) WHERE key <> ''"),
            Variant(f"two-column CREATE UNIQUE INDEX t_key ON t(key COLLATE {c}, doc)", c, False, None,
                    after=f"CREATE UNIQUE INDEX t_key ON t(key COLLATE {c}, doc)",
                    clash=lambda a, b, c=c: equal(c, a[0], b[0]) and a[2] == b[2]),
        ]
    out.append(Variant("expression CREATE UNIQUE INDEX t_key ON t(lower(key))", "BINARY", False, None,
                       after="CREATE UNIQUE INDEX t_key ON t(lower(key))",
                       clash=lambda a, b: a[0].lower() == b[0].lower()))
    return out


def refusal(func, key_coll, v):
    """The message that refuses the table for func, or None when the key is unique under its collation."""
    own = key_coll or "BINARY"
    if v.counts and v.coll == own:
        return None
    counters = func in ("kv_incr", "kv_get")
    table, key = ("nosql_counters", "name") if counters else ("t", "key")
    if not v.counts:
        layout = COUNTER_LAYOUT if counters else DOC_LAYOUT if func.startswith("doc_") else KV_LAYOUT
        return f"{func}: table '{table}' has no PRIMARY KEY or UNIQUE constraint on {key} (expected {layout})"
    declared = f"COLLATE {key_coll}" if key_coll else "no COLLATE"
    describe = counter_sql(v.describe) if counters else v.describe
    return (f"{func}: key column '{key}' of table '{table}' ({declared}) has no unique index under {own}: "
            f"{describe} uses {v.coll}")


def counter_sql(text):
    """A variant's SQL (or description) on nosql_counters(name, value) instead of t(key, value, doc, version)."""
    return text.replace("ON t(", "ON nosql_counters(").replace("key", "name").replace(", doc)", ", value)")


def admitted(v):
    rows = []
    for r in ROWS:
        if not any(v.clash(r, s) for s in rows):
            rows.append(r)
    return rows


def table_rows(rows):
    """The expected output of TABLE_QUERY."""
    out = []
    for k, val, doc, ver in sorted(rows, key=lambda r: r[0].encode()):
        out.append("\t".join([sql_text(k), "NULL" if val is None else val, "NULL" if doc is None else doc,
                              "NULL" if ver is None else str(ver)]))
    return out


TABLE_QUERY = "SELECT quote(key), value, doc, version FROM t ORDER BY key COLLATE BINARY"

# (label, function name for messages, SQL, result types)
OPS = [
    ("kv_cas", "kv_cas", f"SELECT kv_cas('t', '{PROBE}', 'old', 'new')", "T"),
    ("kv_cas add", "kv_cas", f"SELECT kv_cas('t', '{PROBE}', NULL, 'new')", "T"),
    ("kv_delete_if", "kv_delete_if", f"SELECT kv_delete_if('t', '{PROBE}', 'old')", "T"),
    ("doc_update", "doc_update", f"SELECT doc_update('t', '{PROBE}', '{{\"$set\":{{\"n\":100}}}}')", "I"),
    ("doc_upsert", "doc_upsert", f"SELECT doc_upsert('t', '{PROBE}', '{{\"$set\":{{\"n\":100}}}}')", "I"),
    ("kv_mget", "kv_mget", f"SELECT quote(key), value FROM kv_mget('t', '[\"{PROBE}\"]')", "TT"),
]


def apply_counter(op, key_coll, rows):
    """The model of kv_incr('a') and kv_get('a') on an accepted nosql_counters: (result lines, rows after)."""
    own = key_coll or "BINARY"
    match = [i for i, r in enumerate(rows) if equal(own, r[0], PROBE)]
    assert len(match) <= 1
    rows = list(rows)
    if op == "kv_get":
        return ([str(rows[match[0]][1])] if match else ["NULL"]), rows
    if match:
        i = match[0]
        rows[i] = (rows[i][0], rows[i][1] + 1)
        return [str(rows[i][1])], rows
    rows.append((PROBE, 1))
    return ["1"], rows


COUNTER_QUERY = "SELECT quote(name), value FROM nosql_counters ORDER BY name COLLATE BINARY"
COUNTER_OPS = [("kv_incr", f"SELECT kv_incr('{PROBE}')"), ("kv_get", f"SELECT kv_get('{PROBE}')")]


def counter_rows(rows):
    return [sql_text(k) + "\t" + str(val) for k, val in sorted(rows, key=lambda r: r[0].encode())]


def apply(op, key_coll, v, rows):
    """The model: (result lines or None, error text or None, rows after) for op on an accepted table."""
    own = key_coll or "BINARY"
    match = [i for i, r in enumerate(rows) if equal(own, r[0], PROBE)]
    if len(match) > 1:
        raise SystemExit(f"model: key COLLATE {own} with {v.name} accepted but {PROBE!r} matches {len(match)} rows")
    rows = list(rows)
    i = match[0] if match else None
    new_row = None
    if op == "kv_cas":
        if i is None:
            return ["not_found"], None, rows
        if rows[i][1] != "old":
            return ["exists"], None, rows
        rows[i] = (rows[i][0], "new", rows[i][2], rows[i][3])
        return ["stored"], None, rows
    if op == "kv_delete_if":
        if i is None:
            return ["not_found"], None, rows
        if rows[i][1] != "old":
            return ["exists"], None, rows
        del rows[i]
        return ["deleted"], None, rows
    if op in ("doc_update", "doc_upsert") and i is not None:
        rows[i] = (rows[i][0], rows[i][1], '{"n":100}', rows[i][3] + 1)
        return [str(rows[i][3])], None, rows
    if op == "doc_update":
        return ["NULL"], None, rows
    if op == "kv_mget":
        return ([] if i is None else [sql_text(rows[i][0]) + "\t" + rows[i][1]]), None, rows
    if op == "kv_cas add" and i is not None:
        return ["exists"], None, rows
    # An insert of PROBE: kv_cas add (ON CONFLICT(key) DO NOTHING) or doc_upsert of an absent key.
    new_row = (PROBE, "new", None, None) if op == "kv_cas add" else (PROBE, None, '{"n":100}', 1)
    if any(v.clash(new_row, r) for r in rows):
        raise SystemExit(f"model: key COLLATE {own} with {v.name} accepted but inserting {PROBE!r} "
                         "conflicts with a row it does not find")
    rows.append(new_row)
    return (["stored"] if op == "kv_cas add" else ["1"]), None, rows


def query(out, types, sql, lines):
    out.append(f"query {types} nosort")
    out.append(sql)
    out.append("----")
    out.extend(lines)
    out.append("")


def generate():
    out = [
        "# Generated by tests/kv/collation_gen.py: do not edit (run.sh checks that the two agree).",
        "# Every function that reads or writes by key, on key columns of each collation with unique",
        "# indexes of each collation and form: refused with its message, or one row changed as the",
        "# script's model says, the whole table compared before and after each call; kv_incr and",
        "# kv_get the same on a nosql_counters made the same way.",
        "",
    ]
    for key_coll in KEY_COLLS:
        col = "key TEXT" + (f" COLLATE {key_coll}" if key_coll else "")
        for v in variants(key_coll):
            rows = admitted(v)
            create = f"CREATE TABLE t({col}{v.column_tail}, value, doc, version INTEGER{v.table_tail})"
            if v.without_rowid:
                create += " WITHOUT ROWID"
            setup = ["DROP TABLE IF EXISTS t", create]
            if v.after:
                setup.append(v.after)
            setup.append("INSERT OR IGNORE INTO t VALUES " + ", ".join(
                f"({sql_text(k)}, {sql_text(val)}, {sql_text(doc)}, {ver})" for k, val, doc, ver in ROWS))
            verdict = "refused" if refusal("kv_cas", key_coll, v) else "accepted"
            out.append(f"# key {'COLLATE ' + key_coll if key_coll else '(no COLLATE)'}, {v.name}: {verdict}")
            out.append("")
            for n, (op, func, sql, types) in enumerate(OPS):
                out.append("statement ok")
                out.append("; ".join(setup))
                out.append("")
                if n == 0:
                    query(out, "TTTI", TABLE_QUERY, table_rows(rows))
                msg = refusal(func, key_coll, v)
                after = rows
                if msg is None:
                    lines, msg, after = apply(op, key_coll, v, rows)
                if msg is not None:
                    out.append(f"statement error {msg}")
                    out.append(sql)
                    out.append("")
                else:
                    query(out, types, sql, lines)
                query(out, "TTTI", TABLE_QUERY, table_rows(after))
            # kv_incr and kv_get on a nosql_counters made the same way, each on a new connection: a
            # connection checks when it prepares its statements (collation_cases.test shows the rest).
            ccreate = (f"CREATE TABLE nosql_counters(name TEXT{col[8:]}{counter_sql(v.column_tail)}, "
                       f"value INTEGER NOT NULL{counter_sql(v.table_tail)})")
            if v.without_rowid:
                ccreate += " WITHOUT ROWID"
            csetup = [ccreate] + ([counter_sql(v.after)] if v.after else [])
            csetup.append("INSERT OR IGNORE INTO nosql_counters VALUES " + ", ".join(
                f"({sql_text(k)}, {ver})" for k, val, doc, ver in ROWS))
            crows = [(k, ver) for k, val, doc, ver in rows]
            for func, sql in COUNTER_OPS:
                out.append("open :memory:")
                out.append("")
                out.append("statement ok")
                out.append("; ".join(csetup))
                out.append("")
                msg = refusal(func, key_coll, v)
                after = crows
                if msg is None:
                    lines, after = apply_counter(func, key_coll, crows)
                    query(out, "I", sql, lines)
                else:
                    out.append(f"statement error {msg}")
                    out.append(sql)
                    out.append("")
                query(out, "TI", COUNTER_QUERY, counter_rows(after))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", metavar="FILE", help="compare FILE with what this script writes")
    args = ap.parse_args()
    text = generate()
    if args.check is None:
        sys.stdout.write(text)
        return 0
    with open(args.check, encoding="utf-8") as f:
        same = f.read() == text
    if not same:
        print(f"FAIL {args.check} is not what tests/kv/collation_gen.py writes: regenerate it")
    print(f"{int(same)} passed, {int(not same)} failed")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
