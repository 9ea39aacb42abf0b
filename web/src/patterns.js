// patterns.js — the named patterns of GET /v1/patterns matched here, in
// the page, so the Patterns panel costs no request per move: the server
// lists each pattern's texts once, and this file tries them in the 24
// whole-cube orientations as /v1/match does (the pattern language of
// docs/conventions.md: a face letter is that colour, places with the same
// digit share a colour and different digits differ, `*` is anything;
// every part of a named pattern must fit in one orientation).
// The orientation order is the server's (the face the pattern's U lands
// on, U R F D L B, then its four rotations), so "the first match" names
// the same face the API would.

import { applyTurns, FACES } from './cube.js';

// A whole-cube rotation taking U to each face (y turns first fix U, so
// which one is chosen does not change the face a match is reported on).
const TO_FACE = {
  U: [],
  R: [{ axis: 'z', q: -1 }],
  F: [{ axis: 'x', q: 1 }],
  D: [{ axis: 'x', q: 2 }],
  L: [{ axis: 'z', q: 1 }],
  B: [{ axis: 'x', q: -1 }],
};

// One part compiled for one orientation: the places that say something,
// with what they say (a letter's code, or a digit 1–6 as -1…-6).
function compilePart(text, n, face, k) {
  const turns = [];
  for (let i = 0; i < k; i++) turns.push({ axis: 'y', lo: 0, hi: n - 1, q: -1 });
  for (const t of TO_FACE[face]) turns.push({ axis: t.axis, lo: 0, hi: n - 1, q: t.q });
  const moved = applyTurns(text, n, turns);
  const at = [];
  const want = [];
  for (let i = 0; i < moved.length; i++) {
    const ch = moved[i];
    if (ch === '*') continue;
    at.push(i);
    want.push(ch >= '1' && ch <= '6' ? -(ch.charCodeAt(0) - 48) : ch.charCodeAt(0));
  }
  return { at: Int32Array.from(at), want: Int32Array.from(want) };
}

function fits(part, facelets) {
  const bound = [0, 0, 0, 0, 0, 0, 0]; // digit → colour code (0: free)
  const used = new Set();
  const { at, want } = part;
  for (let j = 0; j < at.length; j++) {
    const have = facelets.charCodeAt(at[j]);
    const w = want[j];
    if (w > 0) {
      if (have !== w) return false;
    } else if (bound[-w] === 0) {
      if (used.has(have)) return false; // another digit has this colour
      bound[-w] = have;
      used.add(have);
    } else if (bound[-w] !== have) {
      return false;
    }
  }
  return true;
}

export class PatternSet {
  // list: GET /v1/patterns's `patterns` ({name, description, parts}).
  constructor(n, list) {
    this.n = n;
    this.list = list;
    this.compiled = new Map(); // name → [24 orientations][parts]
  }

  orientations(p) {
    let c = this.compiled.get(p.name);
    if (!c) {
      c = [];
      for (const face of FACES)
        for (let k = 0; k < 4; k++) c.push({ face, parts: p.parts.map((t) => compilePart(t, this.n, face, k)) });
      this.compiled.set(p.name, c);
    }
    return c;
  }

  // {matched, face}: the first orientation in the server's order that fits.
  match(name, facelets) {
    const p = this.list.find((x) => x.name === name);
    if (!p || facelets.length !== 6 * this.n * this.n) return { matched: false, face: '' };
    for (const o of this.orientations(p))
      if (o.parts.every((part) => fits(part, facelets))) return { matched: true, face: o.face };
    return { matched: false, face: '' };
  }

  // Every pattern at once: name → {matched, face}.
  all(facelets) {
    const out = {};
    for (const p of this.list) out[p.name] = this.match(p.name, facelets);
    return out;
  }
}
