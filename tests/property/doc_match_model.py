#!/usr/bin/env python3
"""doc_match_model.py: doc_match (ext/doc_match.c) against a second, independent
evaluator of MongoDB find filters, written here in Python from MongoDB's
documented semantics (standard library only).

It draws random documents (nested arrays and arrays of arrays, missing paths,
nulls, integers, reals, integers at the 32- and 64-bit edges, strings) and
random filters (every query operator doc_match implements, dotted paths with
numeric parts), evaluates each pair with the model, and writes a sqllogictest
file whose expected rows are the model's answers:

    python3 tests/property/doc_match_model.py [--cases N] [--seed S] > build/property/doc_match.test
    build/slt --ext dist/nosql build/property/doc_match.test

(Debian's python3 sqlite3 module cannot load extensions, so the file is run by
the suite's runner.) The same seed gives the same file.
"""
import argparse
import json
import math
import random
import re

MISSING = object()  # The value of a path that reaches nothing


class Obj:
    """A JSON object: members in order (the order matters for equality)."""

    def __init__(self, pairs):
        self.pairs = list(pairs)

    def get(self, key):
        for k, v in self.pairs:
            if k == key:
                return v
        return MISSING


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def norm(v):
    """Integers beyond int64 are doubles, as in MongoDB and doc_match."""
    if is_num(v) and isinstance(v, int) and not -(2**63) <= v < 2**63:
        return float(v)
    return v


# ---- BSON order -------------------------------------------------------------

def rank(v):
    if v is None:
        return 1
    if isinstance(v, bool):
        return 6
    if is_num(v):
        return 2
    if isinstance(v, str):
        return 3
    if isinstance(v, Obj):
        return 4
    return 5  # list


def sign(x):
    return (x > 0) - (x < 0)


def compare(a, b):
    a, b = norm(a), norm(b)
    ra, rb = rank(a), rank(b)
    if ra != rb:
        return sign(ra - rb)
    if ra == 2:  # Python compares int with float exactly
        return (a > b) - (a < b)
    if ra == 3:
        x, y = a.encode("utf-8"), b.encode("utf-8")
        return (x > y) - (x < y)
    if ra == 6:
        return (a > b) - (a < b)
    if ra == 5:
        for x, y in zip(a, b):
            c = compare(x, y)
            if c:
                return c
        return sign(len(a) - len(b))
    if ra == 4:
        for (ka, va), (kb, vb) in zip(a.pairs, b.pairs):
            c = sign(rank(norm(va)) - rank(norm(vb)))
            if c:
                return c
            x, y = ka.encode("utf-8"), kb.encode("utf-8")
            if x != y:
                return (x > y) - (x < y)
            c = compare(va, vb)
            if c:
                return c
        return sign(len(a.pairs) - len(b.pairs))
    return 0  # null


def type_code(v):
    v = norm(v)
    if v is None:
        return 10
    if isinstance(v, bool):
        return 8
    if isinstance(v, int):
        return 16 if -(2**31) <= v < 2**31 else 18
    if isinstance(v, float):
        return 1
    if isinstance(v, str):
        return 2
    if isinstance(v, Obj):
        return 3
    return 4


# Every alias MongoDB knows (matcher_type_set.cpp, bsontypes.cpp); JSON never holds the BSON-only ones.
ALIASES = {"double": {1}, "string": {2}, "object": {3}, "array": {4}, "binData": {5}, "undefined": {6},
           "objectId": {7}, "bool": {8}, "date": {9}, "null": {10}, "regex": {11}, "dbPointer": {12},
           "javascript": {13}, "symbol": {14}, "javascriptWithScope": {15}, "int": {16}, "timestamp": {17},
           "long": {18}, "decimal": {19}, "minKey": {-1}, "maxKey": {127}, "number": {1, 16, 18, 19}}


def array_index(part):
    """The element a path part names in an array: its name as BSON writes it ("1", not "01"), else -1."""
    if part.isdigit() and part.isascii() and len(part) <= 9 and (part == "0" or part[0] != "0"):
        return int(part)
    return -1


# ---- Paths ------------------------------------------------------------------

def reach(doc, parts, expand_leaf):
    """Every value the dotted path reaches (MISSING counts), MongoDB's rules."""
    out = []

    def go(v, i):
        if i == len(parts):
            if expand_leaf and isinstance(v, list):
                out.extend(v)
            out.append(v)
            return
        if isinstance(v, Obj):
            go(v.get(parts[i]), i + 1)
        elif isinstance(v, list):
            index = array_index(parts[i])
            for k, e in enumerate(v):
                if isinstance(e, Obj):
                    go(e, i)
                if k == index:
                    if i + 1 == len(parts):
                        out.append(e)
                    elif isinstance(e, (list, Obj)):
                        go(e, i + 1)
        else:
            out.append(MISSING)

    if isinstance(doc, list):
        # An array matched as a document ($elemMatch on an element that is an array): its keys are the indexes.
        index = array_index(parts[0])
        go(doc[index] if 0 <= index < len(doc) else MISSING, 1)
    else:
        go(doc, 0)
    return out


# ---- The evaluator ----------------------------------------------------------

def equal(x, v):
    if x is None:
        return v is MISSING or v is None
    return v is not MISSING and compare(v, x) == 0


def value_test(op, arg, v):
    """One operator on one value v (MISSING allowed), without any traversal."""
    if op == "$eq":
        return equal(arg, v)
    if op in ("$gt", "$gte", "$lt", "$lte"):
        if arg is None:
            return op in ("$gte", "$lte") and (v is MISSING or v is None)
        if v is MISSING or rank(norm(v)) != rank(norm(arg)):
            return False
        c = compare(v, arg)
        return {"$gt": c > 0, "$gte": c >= 0, "$lt": c < 0, "$lte": c <= 0}[op]
    if op == "$in":
        return any(equal(x, v) for x in arg)
    if op == "$exists":
        return v is not MISSING
    if op == "$type":
        codes = set()
        for t in arg if isinstance(arg, list) else [arg]:
            codes |= ALIASES[t] if isinstance(t, str) else {t}
        return v is not MISSING and type_code(v) in codes
    if op == "$size":
        return isinstance(v, list) and len(v) == arg
    if op == "$mod":
        if v is MISSING or not is_num(v):
            return False
        n = norm(v)
        if isinstance(n, float):
            # MongoDB 5.1: a double that is not finite, or whose integer part is no int64, matches nothing.
            if not math.isfinite(n) or not -(2**63) <= math.trunc(n) < 2**63:
                return False
            n = math.trunc(n)
        d, r = int(arg[0]), int(arg[1])  # reals truncated toward zero
        m = abs(n) % abs(d)
        return (-m if n < 0 else m) == r
    if op == "$regex":
        pattern, flags = arg
        return isinstance(v, str) and re.search(pattern, v, re.I if "i" in flags else 0) is not None
    if op == "$elemMatchQuery":
        return isinstance(v, list) and any(isinstance(e, (Obj, list)) and match(e, arg) for e in v)
    if op == "$elemMatchValue":
        return isinstance(v, list) and any(ops_hold(arg, lambda ex: [e]) for e in v)
    raise ValueError(op)


def ops_hold(ops, candidates):
    """The operators of Obj ops on a path; candidates(expand) lists the values it reaches."""
    items = dict(ops.pairs)
    for op, arg in ops.pairs:
        if op == "$options":
            continue
        if op == "$regex":
            arg = (arg, items.get("$options", ""))
        if op == "$ne":
            ok = not any(value_test("$eq", arg, v) for v in candidates(True))
        elif op == "$nin":
            ok = not any(value_test("$in", arg, v) for v in candidates(True))
        elif op == "$not":
            ok = not ops_hold(arg, candidates)
        elif op == "$exists":
            found = any(value_test("$exists", None, v) for v in candidates(True))
            ok = found if arg else not found
        elif op == "$all":
            ok = len(arg) > 0 and all(any(value_test("$eq", x, v) for v in candidates(True)) for x in arg)
        elif op == "$elemMatch":
            first = arg.pairs[0][0] if arg.pairs else ""
            kind = "$elemMatchValue" if first.startswith("$") and first not in ("$and", "$or", "$nor") else "$elemMatchQuery"
            ok = any(value_test(kind, arg, v) for v in candidates(False))
        elif op == "$size":
            ok = any(value_test(op, arg, v) for v in candidates(False))
        else:
            ok = any(value_test(op, arg, v) for v in candidates(True))
        if not ok:
            return False
    return True


def match(doc, flt):
    for key, cond in flt.pairs:
        if key in ("$and", "$or", "$nor"):
            results = [match(doc, f) for f in cond]
            ok = all(results) if key == "$and" else any(results) if key == "$or" else not any(results)
        else:
            parts = key.split(".")
            reach_it = lambda expand, parts=parts: reach(doc, parts, expand)
            if isinstance(cond, Obj) and cond.pairs and cond.pairs[0][0].startswith("$"):
                ok = ops_hold(cond, reach_it)
            else:
                ok = any(equal(cond, v) for v in reach_it(True))
        if not ok:
            return False
    return True


# ---- Random documents and filters ---------------------------------------------

KEYS = ["a", "b", "c", "0", "1", "01"]
PATHS = ["a", "b", "a.b", "a.0", "a.1", "a.b.c", "a.0.b", "b.c", "c", "a.c", "0", "a.1.b", "a.01", "a.00",
         "a.0.01", "01"]
INF = float("inf")
SCALARS = [None, True, False, 0, 1, 2, 5, -1, 5.0, 2.5, -2.5, 1e20, 2147483647, 2147483648,
           9223372036854775807, -9223372036854775808, 12345678901234567890, "", "a", "b", "ab", "B", "é",
           1e19, -1e19, 9223372036854775807.0, -9223372036854775808.0, 9223372036854774784.0, INF, -INF, -0.0]


POOL = []   # Values and paths of the current document: operands drawn from it match more often
PATH_POOL = []


def collect(v, path):
    """Fill POOL and PATH_POOL from document v."""
    POOL.append(v)
    if path:
        PATH_POOL.append(path)
    if isinstance(v, Obj):
        for k, x in v.pairs:
            collect(x, path + "." + k if path else k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            collect(x, path + "." + str(i) if path else str(i))
            if isinstance(x, Obj):
                for k, y in x.pairs:
                    collect(y, path + "." + k if path else k)


def rnd_path(rng):
    return rng.choice(PATH_POOL) if PATH_POOL and rng.random() < 0.6 else rng.choice(PATHS)


def rnd_value(rng, depth):
    if POOL and rng.random() < 0.4:
        return rng.choice(POOL)
    r = rng.random()
    if depth <= 0 or r < 0.5:
        return rng.choice(SCALARS)
    if r < 0.75:
        return [rnd_value(rng, depth - 1) for _ in range(rng.randrange(4))]
    keys = rng.sample(KEYS, rng.randrange(4))
    return Obj((k, rnd_value(rng, depth - 1)) for k in keys)


def rnd_doc(rng):
    keys = rng.sample(KEYS, rng.randrange(1, 4))
    return Obj((k, rnd_value(rng, 3)) for k in keys)


def rnd_ops(rng, depth, value_form=False):
    """An Obj of operators (valid ones only)."""
    choices = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$type", "$size",
               "$all", "$mod", "$regex", "$not", "$elemMatch"]
    pairs = []
    for op in rng.sample(choices, 1 if rng.random() < 0.7 else 2):
        if op in ("$not", "$elemMatch") and depth <= 0:
            op = "$gte"
        if op in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte"):
            arg = rnd_value(rng, 1)
        elif op in ("$in", "$nin", "$all"):
            arg = [rnd_value(rng, 1) for _ in range(rng.randrange(4))]
        elif op == "$exists":
            arg = rng.choice([True, False, 0, 1])
        elif op == "$type":
            arg = rng.choice(list(ALIASES) + [1, 2, 5, 13, 16, 18, 19, -1, 127, ["int", "string"],
                                              ["null", "array"], ["date", 1]])
        elif op == "$size":
            arg = rng.randrange(4)
        elif op == "$mod":
            arg = [rng.choice([2, 3, -2, 7, 2.5, 1024, -1, 9223372036854775807, -9223372036854775808.0]),
                   rng.choice([0, 1, -1, -0.5, 4.9])]
        elif op == "$regex":
            pairs.append(("$regex", rng.choice(["^a", "b$", "a", "^$", "A|é"])))
            if rng.random() < 0.5:
                pairs.append(("$options", "i"))
            continue
        elif op == "$not":
            arg = rnd_ops(rng, depth - 1)
        else:
            arg = rnd_ops(rng, depth - 1, True) if rng.random() < 0.5 else rnd_filter(rng, depth - 1)
        pairs.append((op, arg))
    return Obj(pairs)


def rnd_filter(rng, depth):
    pairs = []
    for _ in range(1 if rng.random() < 0.7 else 2):
        r = rng.random()
        if r < 0.12 and depth > 0:
            pairs.append((rng.choice(["$and", "$or", "$nor"]), [rnd_filter(rng, depth - 1) for _ in range(rng.randrange(1, 3))]))
        elif r < 0.35:
            pairs.append((rnd_path(rng), rnd_value(rng, 1)))
        else:
            pairs.append((rnd_path(rng), rnd_ops(rng, depth)))
    return Obj(pairs)


def dumps(v):
    if isinstance(v, Obj):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dumps(x) for k, x in v.pairs) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else "1e400" if v > 0 else "-1e400"  # JSON reads those as infinities
    return json.dumps(v, ensure_ascii=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print("# Generated by tests/property/doc_match_model.py --cases %d --seed %d: each expected row"
          % (args.cases, args.seed))
    print("# is the Python model's answer.\n")
    for i in range(args.cases):
        POOL.clear()
        PATH_POOL.clear()
        doc = rnd_doc(rng)
        collect(doc, "")
        POOL.pop(0)  # Not the document itself
        flt = rnd_filter(rng, 2)
        expected = 1 if match(doc, flt) else 0
        sql = "SELECT doc_match('%s', '%s')" % (dumps(doc).replace("'", "''"), dumps(flt).replace("'", "''"))
        print("query I nosort\n%s\n----\n%d\n" % (sql, expected))


if __name__ == "__main__":
    main()
