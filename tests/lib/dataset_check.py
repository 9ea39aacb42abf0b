#!/usr/bin/python3
"""dataset_check.py DIR [--laws] [--hist=a,b,...] — a `cubed dataset`
directory as NumPy reads it (Debian's python3-numpy; run by
tests/unit/check_dataset.c and tests/http/check_http_dataset.c).

Checks: every file meta.json lists is a version-1.0 .npy, C order,
little-endian, of the dtype and shape meta.json says, and loads with
mmap_mode="r"; features_packed unpacks to features; features' one-hot
part is the stickers; 2x2 --all has index i at row i; with --laws the
label laws (optimal <= twophase <= depth wherever present, optimal <=
depth); with --hist the optimal label's histogram. Exits 0, or 1 with
what failed."""
import json
import os
import sys

import numpy as np


def fail(msg):
    print("dataset_check: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    if not args:
        fail("usage: dataset_check.py DIR [--laws] [--hist=...]")
    d = args[0]
    laws = "--laws" in args
    hist = None
    for a in args[1:]:
        if a.startswith("--hist="):
            hist = [int(x) for x in a[len("--hist="):].split(",")]
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    for key in ("size", "metric", "states", "depth", "seed", "count", "shard",
                "columns", "labels", "missing", "cubed_version", "files"):
        if key not in meta:
            fail("meta.json has no %s" % key)
    if meta["missing"] != 255:
        fail("missing is %r" % meta["missing"])
    rows = meta["shard"]["rows"]
    n = meta["size"]
    cols = {}
    for name, info in meta["files"].items():
        path = os.path.join(d, info["file"])
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version != (1, 0):
                fail("%s: version %r, not 1.0" % (name, version))
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            if f.tell() % 64:
                fail("%s: data starts at %d, not a multiple of 64" % (name, f.tell()))
        if fortran:
            fail("%s: Fortran order" % name)
        want = np.dtype(info["dtype"]).newbyteorder("<")
        if dtype != want:
            fail("%s: dtype %s, meta says %s" % (name, dtype, info["dtype"]))
        if list(shape) != info["shape"] or shape[0] != rows:
            fail("%s: shape %r, meta says %r (rows %d)" % (name, shape, info["shape"], rows))
        if os.path.getsize(path) != info["bytes"]:
            fail("%s: %d bytes, meta says %d" % (name, os.path.getsize(path), info["bytes"]))
        a = np.load(path, mmap_mode="r")
        if not isinstance(a, np.memmap) or not a.flags["C_CONTIGUOUS"]:
            fail("%s: not a C-ordered memory map" % name)
        cols[name] = a
    if sorted(cols) != sorted(meta["columns"] + meta["labels"]):
        fail("files %r for columns %r and labels %r" % (sorted(cols), meta["columns"], meta["labels"]))

    nf = {2: 160, 3: 364}.get(n)
    if "features" in cols and "features_packed" in cols:
        un = np.unpackbits(cols["features_packed"], axis=1, count=nf)
        if not np.array_equal(un, cols["features"]):
            fail("features_packed does not unpack to features")
    if "features" in cols:
        f = cols["features"]
        if f.max(initial=0) > 1:
            fail("a feature is not 0 or 1")
        if "stickers" in cols:
            st = cols["stickers"].reshape(rows, -1)
            onehot = (st[:, :, None] == np.arange(6)[None, None, :]).reshape(rows, -1)
            if not np.array_equal(onehot.astype(np.uint8), f[:, :onehot.shape[1]]):
                fail("features' one-hot part is not the stickers")
    if "stickers" in cols:
        st = cols["stickers"]
        if st.shape[1:] != (6, n, n) or st.max(initial=0) > 5:
            fail("stickers shape %r or colour above 5" % (st.shape,))
        # every colour on n*n stickers
        counts = np.stack([(st == c).sum(axis=(1, 2, 3)) for c in range(6)], axis=1)
        if not (counts == n * n).all():
            fail("a sample's colours are not n*n each")
    if meta["states"] == "all" and "index" in cols:
        ix = cols["index"]
        first = meta["shard"]["first"]
        if not (ix[:, 0] == 0).all() or not np.array_equal(
                ix[:, 1], np.arange(first, first + rows, dtype=np.uint64)):
            fail("--all: index is not the row number")

    miss = 255
    if laws:
        dep = cols.get("depth")
        tp = cols.get("twophase")
        op = cols.get("optimal")
        if op is not None and tp is not None:
            both = (op != miss) & (tp != miss)
            if not (op[both] <= tp[both]).all():
                fail("optimal > twophase somewhere")
        if op is not None and dep is not None:
            have = op != miss
            if not (op[have] <= dep[have]).all():
                fail("optimal > depth somewhere")
        if tp is not None and dep is not None:
            have = tp != miss
            if not (tp[have] <= dep[have]).all():
                fail("twophase > depth somewhere")
            if meta["depth"] and meta["depth"][1] <= 12 and (tp == miss).mean() > 0.1:
                fail("twophase missing for %.1f %% of walks" % (100 * (tp == miss).mean()))
    if hist is not None:
        h = np.bincount(cols["optimal"], minlength=len(hist))
        if list(h) != hist:
            fail("optimal histogram %r, not %r" % (list(h), hist))

    # zero copy into PyTorch where it is installed (it is not a test
    # dependency): the tensor shares the memory map's bytes
    try:
        import torch  # noqa: F401
    except ImportError:
        torch = None
    if torch is not None and "features" in cols:
        t = torch.from_numpy(cols["features"])
        if t.data_ptr() != cols["features"].ctypes.data:
            fail("torch.from_numpy copied")
    print("ok %s: %d rows, %s" % (d, rows, ", ".join(sorted(cols))))


if __name__ == "__main__":
    main()
