// moves.test.mjs — the page's cube model (web/src/cube.js) against the
// server, no browser: random move sequences in every notation form the
// server sends are parsed into the same layer turns as the server's own
// `animation`, and applying them gives the server's facelets, for sizes 1
// to 17. A drag's move carries the dragged sticker the way it was dragged.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, call } from './lib/harness.mjs';
import { applyTurns, dragMove, geometry, parseFlat, parseMove, solvedFacelets } from '../../web/src/cube.js';

let srv;
before(async () => { srv = await startServer(); });
after(async () => { await srv.stop(); });

// A small deterministic generator, so a failure can be replayed.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomMove(n, r) {
  const pick = (a) => a[Math.floor(r() * a.length)];
  const amount = pick(['', '', '2', "'", "2'", '3', '0']);
  const face = pick(['R', 'U', 'F', 'D', 'L', 'B']);
  const kind = r();
  if (kind < 0.1) return pick(['x', 'y', 'z']) + amount;
  if (kind < 0.18 && n % 2 === 1 && n >= 3) return pick(['M', 'E', 'S']) + amount;
  if (kind < 0.24 && n >= 3) return pick(['m', 'e', 's']) + amount;
  if (kind < 0.45 && n >= 2) return `${face}w${amount}`;
  if (kind < 0.6 && n >= 3) return `${1 + Math.floor(r() * n)}${face}${amount}`;
  if (kind < 0.72 && n >= 3) return `${1 + Math.floor(r() * n)}${face}w${amount}`;
  if (kind < 0.82 && n >= 3) {
    const a = 1 + Math.floor(r() * n);
    const b = a + Math.floor(r() * (n - a + 1));
    return a < b ? `${a}-${b}${face}w${amount}` : `${face}${amount}`;
  }
  if (kind < 0.86 && n >= 2) return `${face.toLowerCase()}${amount}`;
  return face + amount;
}

for (const n of [1, 2, 3, 4, 5, 6, 7, 10, 17]) {
  test(`${n}×${n}: parsed turns and facelets equal the server's`, async () => {
    const r = rng(1000 + n);
    for (let round = 0; round < 6; round++) {
      const moves = Array.from({ length: 25 }, () => randomMove(n, r)).join(' ');
      const res = await call(srv.url, 'POST', '/v1/apply', { size: n, moves, include: ['animation'] });
      assert.equal(res.status, 200, `${moves}: ${res.text}`);
      const turns = parseFlat(moves, n);
      const theirs = res.body.animation.map((a) => ({ axis: a.axis, lo: a.layers[0], hi: a.layers[1], q: ((a.angle / 90) % 4 + 4) % 4 }));
      const ours = turns.map((t) => ({ ...t, q: ((t.q % 4) + 4) % 4 }));
      assert.deepEqual(ours.filter((t) => t.q), theirs.filter((t) => t.q), moves);
      assert.equal(applyTurns(solvedFacelets(n), n, turns), res.body.facelets, moves);
      // the canonical spelling the server sends back reads the same
      assert.equal(applyTurns(solvedFacelets(n), n, parseFlat(res.body.moves.canonical, n)), res.body.facelets);
    }
  });
}

test('structured text is left to the server; bad tokens say where', () => {
  assert.equal(parseFlat('[R, U] (R U)2', 3), null);
  assert.throws(() => parseFlat('R U Q', 3), (e) => e.offset === 4);
  assert.throws(() => parseMove('M', 4), /odd/);
  assert.throws(() => parseMove('5R', 4), /layers/);
});

const DIRS = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];

for (const n of [2, 3, 4, 5]) {
  test(`${n}×${n}: a drag moves its sticker along the drag`, () => {
    const g = geometry(n);
    const half = (n - 1) / 2;
    for (let f = 0; f < g.length; f++) {
      for (const dir of DIRS) {
        const text = dragMove(n, f, dir);
        const inPlane = dir.every((v, i) => v === 0 || g[f].normal[i] === 0);
        if (!inPlane) { assert.equal(text, ''); continue; }
        const t = parseMove(text, n);
        assert.equal(t.lo, t.hi, text);
        // follow a marked sticker: where does facelet f go?
        const marked = solvedFacelets(n).split('').map((_, i) => (i === f ? 'X' : '.')).join('');
        const to = applyTurns(marked, n, [t]).indexOf('X');
        const c = (p, nv) => p.map((v, i) => v - half + nv[i] * 0.5);
        const before = c(g[f].pos, g[f].normal);
        const afterP = c(g[to].pos, g[to].normal);
        const moved = afterP.reduce((s, v, i) => s + (v - before[i]) * dir[i], 0);
        assert.ok(moved > 0, `${text} from facelet ${f} along ${dir}: ${moved}`);
      }
    }
  });
}
