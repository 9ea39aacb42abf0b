#!/usr/bin/env python3
"""solve_default.py — default solves through the server, as a player or a
script sends them, for two builds side by side in the same run (issue 62):

  python3 bench/solve_default.py NEW_BIN TABLES [OLD_BIN]

NEW_BIN and OLD_BIN are cubed binaries (OLD_BIN, built from an earlier
commit, is optional: without it only the new figures print); TABLES a
solver table directory both servers share (the near tables, level 0 of the
optimal solver, are built there once if missing).

1. 3×3, 1,000 uniformly random states (GET /v1/scramble?size=3&seed=i):
   the default POST /v1/solve's elapsed_ms as the server measures it,
   median and p99, and the mean length.
2. 3×3 random walks of 1 to 14 face turns, 100 each (never the same face
   twice in a row): the default answer's mean length beside the walk's
   length, and the optimal length of the first 30 (optimal jobs on a
   server with the level-0 tables).
3. 7×7 default solves (10 scrambles) with 0, 1 and 2 cores kept busy by
   spinning processes: the share answered 200 and their mean moves.
4. When TABLES holds the optimal solver's level 2 (cubed-optimal-2.bin),
   part 1 again on a server that preloads them (--optimal-preload): the
   near search then reads them instead of level 0.

Each figure prints as `name: value unit`, the old build's beside it."""
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, binary, tables, warm, extra=()):
        self.dir = tempfile.mkdtemp(prefix="cubed-bench-solve-")
        self.port = free_port()
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1",
                "--db", os.path.join(self.dir, "c.db"), "--tables", tables,
                "--quiet", "--rate-limit", "0", "--max-solve-ms", "60000"]
        if warm is not None:
            args += ["--solver-warm", "1" if warm else "0"]
        args += list(extra)
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + 600
        while True:
            try:
                r = self.get("/readyz")
                sv = r.get("solver", {})
                near = sv.get("near", {}).get("tables", "ready")
                if (sv.get("3x3", {}).get("tables") == "ready" and
                        sv.get("2x2", {}).get("tables") == "ready" and
                        (near == "ready" or not warm)):
                    break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                raise SystemExit("server %s did not get ready" % binary)
            time.sleep(0.2)

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=120) as r:
            return json.loads(r.read())

    def post(self, path, body):
        req = urllib.request.Request(
            self.base + path, data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


FACES = "URFDLB"


def walk(rng, d):
    out, last = [], -1
    for _ in range(d):
        f = rng.randrange(6)
        while f == last:
            f = rng.randrange(6)
        last = f
        out.append(FACES[f] + ["", "2", "'"][rng.randrange(3)])
    return " ".join(out)


def optimal_ready(srv, seconds=900):
    """Wait until srv's optimal tables are in memory."""
    deadline = time.time() + seconds
    while srv.get("/readyz").get("solver", {}).get("optimal", {}).get(
            "tables") != "ready":
        if time.time() > deadline:
            raise SystemExit("the optimal tables were not ready")
        time.sleep(0.5)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


def random_states(srv, n):
    times, lengths = [], []
    for i in range(n):
        f = srv.get("/v1/scramble?size=3&seed=%d" % (1000 + i))["facelets"]
        st, j = srv.post("/v1/solve", {"facelets": f})
        assert st == 200, (st, j)
        times.append(j["elapsed_ms"])
        lengths.append(j["length"])
    return times, lengths


def walks(srv, per_depth, depths):
    rng = random.Random(62)
    out = {}
    states = {}
    for d in depths:
        lens = []
        for _ in range(per_depth):
            w = walk(rng, d)
            st, a = srv.post("/v1/apply", {"size": 3, "moves": w})
            assert st == 200, (st, a)
            st, j = srv.post("/v1/solve", {"facelets": a["facelets"]})
            assert st == 200, (st, j)
            lens.append(j["length"])
            states.setdefault(d, []).append(a["facelets"])
        out[d] = lens
    return out, states


def optimal_lengths(binary, tables, facelets):
    """The optimal lengths of the states: optimal jobs (POST /v1/solve
    method optimal) on a server of the new build with the level-0 tables
    (the near tables' file, shared)."""
    srv = Server(binary, tables, warm=False, extra=["--optimal-level", "0"])
    try:
        lens = []
        for f in facelets:
            st, j = srv.post("/v1/solve", {"facelets": f, "method": "optimal"})
            assert st == 202, (st, j)
            jid = j["id"]
            while True:
                j = srv.get("/v1/jobs/%s" % jid)
                if j["state"] == "done":
                    lens.append(j["result"]["length"])
                    break
                assert j["state"] in ("queued", "running"), j
                time.sleep(0.02)
        return lens
    finally:
        srv.stop()


def busy(k):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(k)]


def seven(srv, count):
    ok, moves = 0, []
    for i in range(count):
        f = srv.get("/v1/scramble?size=7&seed=%d" % (70 + i))["facelets"]
        st, j = srv.post("/v1/solve", {"facelets": f})
        if st == 200:
            ok += 1
            moves.append(j["length"])
    return ok, moves


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    new, tables = sys.argv[1], sys.argv[2]
    old = sys.argv[3] if len(sys.argv) > 3 else None
    builds = [("new", new)] + ([("old", old)] if old else [])
    depths = list(range(1, 15))
    # SOLVE_BENCH_SCALE (1): a fraction for a quick look
    scale = float(os.environ.get("SOLVE_BENCH_SCALE", "1"))
    n_random, n_walk, n_seven = (max(1, int(1000 * scale)),
                                 max(1, int(100 * scale)),
                                 max(1, int(10 * scale)))
    results = {}
    for name, binary in builds:
        srv = Server(binary, tables, warm=True if name == "new" else None)
        try:
            t, l = random_states(srv, n_random)
            print("solve3.default.%s.median_ms: %.4f ms" % (name, statistics.median(t)))
            print("solve3.default.%s.p99_ms: %.3f ms" % (name, pct(t, 99)))
            print("solve3.default.%s.mean_length: %.2f moves" % (name, statistics.mean(l)))
            w, states = walks(srv, n_walk, depths)
            results[name] = w
            for k in (0, 1, 2):
                procs = busy(k)
                try:
                    ok, mv = seven(srv, n_seven)
                finally:
                    for p in procs:
                        p.kill()
                print("solve7.default.%s.busy%d.answered: %d/%d" % (name, k, ok, n_seven))
                print("solve7.default.%s.busy%d.mean_moves: %s moves" % (
                    name, k, "%.1f" % statistics.mean(mv) if mv else "none"))
        finally:
            srv.stop()
    # the near search on the optimal solver's own tables: a server that
    # preloads level 2 (when TABLES holds them: 2.5 GB, 17 min to build)
    if os.path.exists(os.path.join(tables, "cubed-optimal-2.bin")):
        srv = Server(new, tables, warm=True, extra=["--optimal-preload"])
        try:
            optimal_ready(srv)
            t, l = random_states(srv, n_random)
            print("solve3.default.new_level2.median_ms: %.4f ms" % statistics.median(t))
            print("solve3.default.new_level2.p99_ms: %.3f ms" % pct(t, 99))
            print("solve3.default.new_level2.mean_length: %.2f moves" % statistics.mean(l))
        finally:
            srv.stop()
    # the first 30 walks of each depth, their answers beside the optimum
    for d in depths:
        opt = optimal_lengths(new, tables, states[d][:30])
        print("walk%02d.optimal: %.2f moves" % (d, statistics.mean(opt)))
        for name, _ in builds:
            print("walk%02d.%s: %.2f moves (first 30: %.2f)" % (
                d, name, statistics.mean(results[name][d]),
                statistics.mean(results[name][d][:30])))


if __name__ == "__main__":
    main()
