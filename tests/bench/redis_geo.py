#!/usr/bin/python3
"""redis_geo.py: the geohash radius benchmark against Redis GEOSEARCH.

    /usr/bin/python3 tests/bench/redis_geo.py [--size X] [--reps N] [--dir DIR]

Runs `build/bench/bench --only geohash --save DIR` (1M points uniform on the
sphere, radius queries of about 10, 100, 1,600 and 10,000 hits centred on
data points), starts a redis-server of its own on a private port with no
persistence, loads the same points with GEOADD, asks the same circles with
GEOSEARCH ... FROMLONLAT ... BYRADIUS ... m, and prints one table: hits per
query (ours and Redis's), Redis's server time per call (INFO commandstats
usec_per_call, which excludes the network), our time per query for each
layout of the recipe (the bench's median, in-process), and the ratios.
The load average is printed before and after: the machine may be shared.

Redis keeps latitudes within +-85.05112878 (its Web Mercator limit): points
beyond are not loaded, and circles that reach beyond are left out of the
hit comparison (they are counted). Redis compares distances from the 52-bit
positions its scores decode to, so a point within a few centimetres of a
circle may be counted by one side only: the hit counts must agree to 0.1%.

With --nearest it runs the geo_nearest workload instead (`bench --only
geo_nearest`: the same 1M points, 20 centres on data points) and asks Redis
GEOSEARCH ... FROMLONLAT ... BYRADIUS r m ASC COUNT k for k = 1, 10 and 100,
r the radius that holds about 100 points (Redis needs a radius; ours is
chosen by geo_nearest itself): Redis's server time per call against
geo_nearest's time per query, and the ids of both answers compared. Ours
is given twice: a statement joining the centres to geo_nearest, a burst as
short as Redis's calls (tests/bench/nearest_ours.py, with its CPU time),
and the bench's median, which a loaded machine inflates more.

Skips (exit 0) with a message naming the package when redis-server is
missing: `apt-get install redis-server`.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nearest_ours  # noqa: E402  (beside this script)

REDIS_MAX_LAT = 85.05112878


class Resp:
    """A minimal RESP2 client: enough for GEOADD, GEOSEARCH, INFO, CONFIG."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    @staticmethod
    def encode(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            b = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(b), b))
        return b"".join(out)

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError("redis: " + rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise RuntimeError("redis: unexpected reply %r" % line)

    def pipeline(self, commands):
        self.sock.sendall(b"".join(self.encode(c) for c in commands))
        return [self.reply() for _ in commands]

    def call(self, *args):
        return self.pipeline([args])[0]


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def read_tsv(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def our_figures(path):
    """{target hits: {variant: us per query}} from the bench's --json file."""
    with open(path) as f:
        res = json.load(f)["results"]
    out = {}
    for r in res:
        w = r["workload"]
        if not w.startswith("geohash: radius search, ~"):
            continue
        target = int(w.split("~")[1].split()[0])
        out.setdefault(target, {})[r["variant"]] = r["ns_per_unit"] / 1000.0
    return out


def start_redis(server):
    """A redis-server of our own on a free loopback port, no persistence: (proc, conn, dir, version)."""
    port = free_port()
    rdir = tempfile.mkdtemp(prefix="nosql-redis-")
    proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", rdir, "--daemonize", "no",
                             "--protected-mode", "yes", "--loglevel", "warning"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    conn = None
    for _ in range(100):
        try:
            conn = Resp(port)
            conn.call("PING")
            break
        except (OSError, ConnectionError):
            conn = None
            time.sleep(0.05)
    if conn is None:
        proc.terminate()
        proc.wait()
        shutil.rmtree(rdir, ignore_errors=True)
        raise RuntimeError("redis-server did not start on port %d" % port)
    version = conn.call("INFO", "server").decode().split("redis_version:")[1].split()[0]
    return proc, conn, rdir, version


def load_points(conn, points):
    """GEOADD the points, 1000 per command, pipelined; returns (loaded, skipped beyond Redis's latitudes)."""
    skipped = 0
    batch, cmds = [], []
    for pid, lat, lon in points:
        if abs(float(lat)) > REDIS_MAX_LAT:
            skipped += 1
            continue
        batch += [lon, lat, pid]
        if len(batch) == 3000:
            cmds.append(["GEOADD", "pts"] + batch)
            batch = []
        if len(cmds) == 50:
            conn.pipeline(cmds)
            cmds = []
    if batch:
        cmds.append(["GEOADD", "pts"] + batch)
    if cmds:
        conn.pipeline(cmds)
    return conn.call("ZCARD", "pts"), skipped


def usec_per_call(conn, command):
    """INFO commandstats: (usec_per_call, calls) of command since the last CONFIG RESETSTAT."""
    stats = conn.call("INFO", "commandstats").decode()
    line = [l for l in stats.split("\r\n") if l.startswith("cmdstat_%s:" % command)][0]
    fields = dict(kv.split("=") for kv in line.split(":", 1)[1].split(","))
    return float(fields["usec_per_call"]), int(fields["calls"])


def run_bench(args, work, only, results):
    """Run the bench workload `only` with --save work; False (after printing why) on failure."""
    if not os.access(args.bench, os.X_OK):
        print("redis_geo: %s is missing: run `make build/bench/bench` first" % args.bench)
        return False
    t0 = time.time()
    out = subprocess.run([args.bench, "--only", only, "--size", args.size, "--reps",
                          str(args.reps), "--save", work, "--json", results],
                         stdout=subprocess.PIPE, text=True)
    with open(os.path.join(work, only + ".out"), "w") as f:
        f.write(out.stdout)
    if out.returncode != 0:
        print(out.stdout)
        print("redis_geo: the bench failed (exit %d)" % out.returncode)
        return False
    print("bench: %.0f s, output in %s/%s.out" % (time.time() - t0, work, only))
    return True


def nearest(args, server, work):
    """--nearest: GEOSEARCH ... ASC COUNT k against geo_nearest."""
    results = os.path.join(work, "nearest.json")
    if not args.reuse and not run_bench(args, work, "geo_nearest", results):
        return 2
    points = read_tsv(os.path.join(work, "nearest_points.tsv"))
    queries = read_tsv(os.path.join(work, "nearest_queries.tsv"))
    with open(results) as f:
        ours = {}
        for r in json.load(f)["results"]:
            w = r["workload"]
            if w.startswith("geo_nearest: k = ") and w.split("= ")[1].isdigit() \
                    and "geo_nearest: rings" in r["variant"]:
                ours[int(w.split("= ")[1])] = r["ns_per_unit"] / 1000.0
    if not args.reuse and os.path.exists(os.path.join(work, "ours.db")):
        os.remove(os.path.join(work, "ours.db"))
    db = nearest_ours.connect(work)
    proc, conn, rdir, version = start_redis(server)
    try:
        t0 = time.time()
        loaded, skipped = load_points(conn, points)
        print("redis %s: %d points loaded in %.1f s (%d beyond +-%.2f latitude left out)"
              % (version, loaded, time.time() - t0, skipped, REDIS_MAX_LAT))
        short = nearest_ours.measure(db, args.reps)
        rows = []
        for k in sorted({int(q[0]) for q in queries}):
            qs = [q for q in queries if int(q[0]) == k
                  and abs(float(q[1])) + float(q[3]) / 6372797.560856 * 57.29577951308232 <= REDIS_MAX_LAT]
            # A warm-up round first (the set was just loaded), then the timed rounds.
            conn.pipeline([["GEOSEARCH", "pts", "FROMLONLAT", q[2], q[1], "BYRADIUS", q[3], "m", "ASC", "COUNT", k]
                           for q in qs])
            conn.call("CONFIG", "RESETSTAT")
            same = nOurs = nRedis = 0
            for rnd in range(args.reps):
                replies = conn.pipeline([["GEOSEARCH", "pts", "FROMLONLAT", q[2], q[1], "BYRADIUS", q[3], "m",
                                          "ASC", "COUNT", k] for q in qs])
                if rnd:
                    continue
                for q, r in zip(qs, replies):
                    mine = q[4].split(",") if q[4] else []
                    theirs = [m.decode() for m in r]
                    nOurs += len(mine)
                    nRedis += len(theirs)
                    same += mine == theirs
            usec, calls = usec_per_call(conn, "geosearch")
            rows.append((k, len(qs), nOurs, nRedis, same, usec, calls, ours.get(k), short[k]))
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(rdir, ignore_errors=True)
    print()
    print("| k | queries | rows ours / Redis | same ids in order | Redis us/call | geo_nearest us, short statement"
          " (x Redis) | its CPU us | geo_nearest us, bench (x Redis) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (k, nq, no, nr, same, usec, calls, mine, (cpu, wall)) in rows:
        print("| %d | %d | %d / %d | %d of %d | %.1f | %.1f (%.2fx) | %.1f | %s |"
              % (k, nq, no, nr, same, nq, usec, wall * 1000, wall * 1000 / usec, cpu * 1000,
                 "%.1f (%.2fx)" % (mine, mine / usec) if mine and usec else "-"))
    print()
    print("Redis: usec_per_call over %d rounds after a warm-up (BYRADIUS r holding ~100 points, ASC COUNT k);"
          " ours: the median round of one statement joining the centres to geo_nearest (tests/bench/nearest_ours.py: a burst as"
          " short as Redis's calls), and the bench's median per query, a process kept busy that a loaded machine"
          " preempts more (geo_nearest chooses its own radius)." % args.reps)
    print("load average after: %s" % loadavg())
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/bench/bench")
    ap.add_argument("--size", default="1")
    ap.add_argument("--reps", type=int, default=5, help="bench reps and GEOSEARCH rounds")
    ap.add_argument("--dir", help="keep the data here (default: a temporary directory)")
    ap.add_argument("--reuse", action="store_true", help="use the data and results already in --dir")
    ap.add_argument("--nearest", action="store_true", help="GEOSEARCH ... ASC COUNT k against geo_nearest")
    args = ap.parse_args()

    server = shutil.which("redis-server")
    if server is None:
        print("SKIP redis_geo: redis-server not found (apt-get install redis-server)")
        return 0
    work = args.dir or tempfile.mkdtemp(prefix="nosql-redis-geo-")
    os.makedirs(work, exist_ok=True)
    results = os.path.join(work, "geohash.json")
    print("load average before: %s" % loadavg())
    if args.nearest:
        rc = nearest(args, server, work)
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)
        return rc
    if not args.reuse and not run_bench(args, work, "geohash", results):
        return 2
    points = read_tsv(os.path.join(work, "geohash_points.tsv"))
    queries = read_tsv(os.path.join(work, "geohash_queries.tsv"))
    ours = our_figures(results)

    try:
        proc, conn, rdir, version = start_redis(server)
    except RuntimeError as e:
        print("redis_geo: %s" % e)
        return 2
    try:
        t0 = time.time()
        loaded, skipped = load_points(conn, points)
        print("redis %s: %d points loaded in %.1f s (%d beyond +-%.2f latitude left out)"
              % (version, loaded, time.time() - t0, skipped, REDIS_MAX_LAT))

        rows = []
        bad = 0
        for target in sorted({int(q[0]) for q in queries}):
            qs = [q for q in queries if int(q[0]) == target]
            # Redis refuses a centre beyond its latitude limit (the whole call fails): not asked.
            nFar = sum(1 for q in qs if abs(float(q[1])) > REDIS_MAX_LAT)
            qs = [q for q in qs if abs(float(q[1])) <= REDIS_MAX_LAT]
            ourHits = redisHits = 0
            nDiff = 0
            conn.call("CONFIG", "RESETSTAT")
            for rnd in range(args.reps):
                replies = conn.pipeline([["GEOSEARCH", "pts", "FROMLONLAT", q[2], q[1], "BYRADIUS", q[3], "m"]
                                         for q in qs])
                if rnd:
                    continue
                for q, r in zip(qs, replies):
                    lat, radius = float(q[1]), float(q[3])
                    # A circle reaching past Redis's latitude limit is not comparable.
                    if abs(lat) + radius / 6372797.560856 * 57.29577951308232 > REDIS_MAX_LAT:
                        nFar += 1
                        continue
                    ourHits += int(q[4])
                    redisHits += len(r)
                    if len(r) != int(q[4]):
                        nDiff += 1
            usec, calls = usec_per_call(conn, "geosearch")
            agree = ourHits > 0 and abs(ourHits - redisHits) <= max(1, ourHits // 1000)
            if not agree:
                bad += 1
            rows.append((target, len(qs), nFar, ourHits, redisHits, nDiff, agree, calls, usec,
                         ours.get(target, {})))
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(rdir, ignore_errors=True)

    layouts = [("plain (gh) + rowid", "plain index (gh)"),
               ("covering (gh, lat, lon)", "covering index (gh, lat, lon)"),
               ("WITHOUT ROWID (gh, id)", "WITHOUT ROWID table keyed (gh, id)"),
               ("WITHOUT ROWID (code, id), integer cover", "60-bit code"),
               ("R*Tree", "R*Tree box")]
    print()
    print("| hits (target) | queries | hits ours / Redis | agree | Redis us/call | "
          + " | ".join("%s us (x Redis)" % name for name, _ in layouts) + " |")
    print("|---:|---:|---:|---|---:|" + "---:|" * len(layouts))
    for (target, nq, nFar, oh, rh, nDiff, agree, calls, usec, mine) in rows:
        cells = []
        for _, key in layouts:
            v = [t for name, t in mine.items() if key in name]
            cells.append("%.1f (%.2fx)" % (v[0], v[0] / usec) if v and usec > 0 else "-")
        print("| %d | %d%s | %d / %d | %s | %.1f | %s |"
              % (target, nq, " (%d far north/south)" % nFar if nFar else "", oh, rh,
                 "yes" if agree else "NO (%d queries differ)" % nDiff, usec, " | ".join(cells)))
    print()
    print("Redis: usec_per_call over %d rounds of each query; ours: the bench's median per query."
          % args.reps)
    print("load average after: %s" % loadavg())
    if not args.dir:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
