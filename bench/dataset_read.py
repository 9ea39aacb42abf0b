#!/usr/bin/python3
"""dataset_read.py URL N [features] — GET /v1/dataset to a Python reader, for
bench/dataset.sh: N walk samples (depth 1-20) of a server at URL, the
features and depth columns read with http.client into NumPy arrays
(each .npy parsed with numpy.lib.format, the rows read straight into the
array's memory), the two downloads side by side in two threads. Prints
samples per second for features + depth, and for the packed features.
Checks the features against a second, Range-resumed download of the
same file. With "features", only the first figure (for CPU accounting)."""
import http.client
import io
import sys
import threading
import time
import urllib.parse

import numpy as np


def fetch(url, query, start=0):
    """The .npy of query, from byte start, as a NumPy array (whole file
    when start is 0) or the raw bytes (a resumed tail)."""
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    headers = {"Range": "bytes=%d-" % start} if start else {}
    c.request("GET", "/v1/dataset?" + query, headers=headers)
    r = c.getresponse()
    if r.status not in (200, 206):
        raise RuntimeError("%s: %d %s" % (query, r.status, r.read()[:200]))
    length = int(r.getheader("Content-Length"))
    if start:
        data = r.read()
        c.close()
        return data
    head = r.read(128)  # our headers are 64 or 128 bytes; read the rest below
    f = io.BytesIO(head)
    np.lib.format.read_magic(f)
    shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    hl = f.tell()
    out = np.empty(shape, dtype)
    view = memoryview(out.reshape(-1).view(np.uint8))
    got = len(head) - hl
    view[:got] = head[hl:]
    while got < length - hl:
        n = r.readinto(view[got:])
        if not n:
            raise RuntimeError("short read")
        got += n
    c.close()
    return out


def run(url, n, cols):
    q = "count=%d&depth=1-20&seed=5&column=" % n
    res = {}

    def one(col):
        res[col] = fetch(url, q + col)

    t0 = time.perf_counter()
    ts = [threading.Thread(target=one, args=(c,)) for c in cols]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return time.perf_counter() - t0, res


def main():
    url, n = sys.argv[1], int(sys.argv[2])
    only = len(sys.argv) > 3 and sys.argv[3] == "features"
    el, res = run(url, n, ["features", "depth"])
    f, d = res["features"], res["depth"]
    assert f.shape == (n, 364) and d.shape == (n,), (f.shape, d.shape)
    assert d.min() >= 1 and d.max() <= 20
    print("dataset.http.walk_features: %.0f samples/s" % (n / el))
    print("dataset.http.mb_per_s: %.1f MB/s" % ((f.nbytes + d.nbytes) / el / 1e6))
    if only:
        return
    el, res = run(url, n, ["features_packed", "depth"])
    p = res["features_packed"]
    assert np.array_equal(np.unpackbits(p[:1000], axis=1, count=364), f[:1000])
    print("dataset.http.walk_features_packed: %.0f samples/s" % (n / el))
    # an interrupted download resumed: the tail from byte k
    q = "count=%d&depth=1-20&seed=5&column=features" % min(n, 100000)
    whole = fetch(url, q)
    k = 128 + 364 * 777 + 5
    tail = fetch(url, q, start=k)
    raw = whole.reshape(-1).view(np.uint8).tobytes()
    assert tail == raw[k - 128:], "resumed bytes differ"


if __name__ == "__main__":
    main()
