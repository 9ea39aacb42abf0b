#!/usr/bin/python3
"""dataset_ref.py N [DIR] — the NumPy reference for bench/dataset.sh: N
3x3 random-walk samples (depth 1-20, never the same face twice running,
never D/L/B before U/R/F), their 364 features and depth, made the way a
researcher would write it in NumPy on one core, written to DIR as .npy.
Prints "dataset.ref.numpy: <samples/s> samples/s".

The sticker model is built here from the conventions of DESIGN.md
(facelets U R F D L B, each face row by row as seen from outside) by
rotating sticker positions in 3-D, independently of cubed; it checks
itself against DESIGN.md's state after R."""
import os
import sys
import time

import numpy as np

# (face normal, (row, col) -> (x, y, z) of the sticker's cubie)
FACES = [
    ((0, 1, 0), lambda r, c: (c - 1, 1, r - 1)),    # U: B at the top
    ((1, 0, 0), lambda r, c: (1, 1 - r, 1 - c)),    # R
    ((0, 0, 1), lambda r, c: (c - 1, 1 - r, 1)),    # F
    ((0, -1, 0), lambda r, c: (c - 1, -1, 1 - r)),  # D: F at the top
    ((-1, 0, 0), lambda r, c: (-1, 1 - r, c - 1)),  # L
    ((0, 0, -1), lambda r, c: (1 - c, 1 - r, -1)),  # B
]
STICKERS = [(np.array(FACES[f][1](i // 3, i % 3)), np.array(FACES[f][0]))
            for f in range(6) for i in range(9)]
WHERE = {(tuple(p), tuple(n)): k for k, (p, n) in enumerate(STICKERS)}


def quarter_perm(face):
    """new[perm] : the clockwise quarter turn of face, as a gather."""
    ax = np.array(FACES[face][0])
    perm = np.arange(54)
    for k, (p, n) in enumerate(STICKERS):
        if p @ ax > 0:
            # clockwise seen from outside: -90 degrees about the normal
            rot = lambda v: -np.cross(ax, v) + ax * (ax @ v)
            perm[WHERE[(tuple(rot(p)), tuple(rot(n)))]] = k
    return perm


Q = [quarter_perm(f) for f in range(6)]
MOVES = []  # 18 gathers: face f, 1 2 3 quarter turns
for f in range(6):
    p = np.arange(54)
    for q in range(3):
        p = p[Q[f]]
        MOVES.append(p.copy())
MOVES = np.array(MOVES)
SOLVED = np.repeat(np.arange(6, dtype=np.uint8), 9)
after_r = "".join("URFDLB"[c] for c in SOLVED[MOVES[3]])
assert after_r == "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB", after_r

CF = [(8, 9, 20), (6, 18, 38), (0, 36, 47), (2, 45, 11), (29, 26, 15),
      (27, 44, 24), (33, 53, 42), (35, 17, 51)]
EF = [(5, 10), (7, 19), (3, 37), (1, 46), (32, 16), (28, 25), (30, 43),
      (34, 52), (23, 12), (21, 41), (50, 39), (48, 14)]
# colours -> piece, twist: 6^3 (corners) and 6^2 (edges) lookups
CPIECE = np.zeros(216, np.int64); CTW = np.zeros(216, np.int64)
for p, fc in enumerate(CF):
    col = [SOLVED[i] for i in fc]
    for t in range(3):
        c = [col[(k - t) % 3] for k in range(3)]
        CPIECE[c[0] * 36 + c[1] * 6 + c[2]] = p; CTW[c[0] * 36 + c[1] * 6 + c[2]] = t
EPIECE = np.zeros(36, np.int64); EFL = np.zeros(36, np.int64)
for p, fe in enumerate(EF):
    a, b = SOLVED[fe[0]], SOLVED[fe[1]]
    EPIECE[a * 6 + b] = p; EPIECE[b * 6 + a] = p; EFL[b * 6 + a] = 1


def generate(n, rng):
    depth = rng.integers(1, 21, n).astype(np.uint8)
    st = np.tile(SOLVED, (n, 1))
    last = np.full(n, -1)
    for step in range(20):
        face = rng.integers(0, 6, n)
        bad = (face == last) | ((last >= 3) & (face == last - 3))
        while bad.any():  # redraw the forbidden faces
            face[bad] = rng.integers(0, 6, bad.sum())
            bad = (face == last) | ((last >= 3) & (face == last - 3))
        mv = face * 3 + rng.integers(0, 3, n)
        live = depth > step
        st[live] = st[live][np.arange(live.sum())[:, None], MOVES[mv[live]]]
        last = np.where(live, face, last)
    return features(st), depth


def features(st):
    n = len(st)
    rows = np.arange(n)
    feat = np.zeros((n, 364), np.uint8)
    feat[:, :324] = (st[:, :, None] == np.arange(6)).reshape(n, 324)
    for i, fc in enumerate(CF):
        key = st[:, fc[0]] * 36 + st[:, fc[1]] * 6 + st[:, fc[2]]
        p = CPIECE[key]
        feat[rows, 324 + p] = p == i
        feat[rows, 344 + p] = CTW[key] == 0
    for i, fe in enumerate(EF):
        key = st[:, fe[0]] * 6 + st[:, fe[1]]
        p = EPIECE[key]
        feat[rows, 332 + p] = p == i
        feat[rows, 352 + p] = EFL[key] == 0
    return feat


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    out = sys.argv[2] if len(sys.argv) > 2 else None
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    done = 0
    feats, depths = [], []
    while done < n:
        k = min(50000, n - done)
        f, d = generate(k, rng)
        feats.append(f); depths.append(d)
        done += k
    if out:
        os.makedirs(out, exist_ok=True)
        np.save(os.path.join(out, "features.npy"), np.concatenate(feats))
        np.save(os.path.join(out, "depth.npy"), np.concatenate(depths))
    el = time.perf_counter() - t0
    print("dataset.ref.numpy: %.0f samples/s" % (n / el))


if __name__ == "__main__":
    main()
