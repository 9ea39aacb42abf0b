// cube.js — the page's model of an n×n×n cube: where each facelet sits in
// space, how a layer turn moves facelets, and the canonical move notation
// the server sends (events, write replies, solutions) turned into layer
// turns. Pure functions on strings and numbers, no DOM, so the same module
// runs in node for the tests. The server stays the authority on state: the
// page uses this to animate and to follow cubes whose events carry moves
// only (n > 16), and checks itself against the facelets the server sends.
//
// Conventions (docs/conventions.md): faces U R F D L B; x towards R, y towards U, z
// towards F; grid coordinates i, j, k count 0…n-1 from the L, D and B
// sides; facelets are face by face, each row by row as seen from outside
// in the usual net. A turn is {axis, lo, hi, q}: the layers lo…hi along
// the axis turn q quarter turns about the + axis by the right-hand rule
// (R is q = -1 about x), as in the server's `animation`.

export const FACES = ['U', 'R', 'F', 'D', 'L', 'B'];

// Outward normal of each face.
export const NORMALS = {
  U: [0, 1, 0], R: [1, 0, 0], F: [0, 0, 1],
  D: [0, -1, 0], L: [-1, 0, 0], B: [0, 0, -1],
};

const AXES = ['x', 'y', 'z'];

// The grid position [i, j, k] of facelet (row r, column c) of a face.
export function gridOf(face, n, r, c) {
  const m = n - 1;
  switch (face) {
    case 'U': return [c, m, r];
    case 'D': return [c, 0, m - r];
    case 'F': return [c, m - r, m];
    case 'B': return [m - c, m - r, 0];
    case 'R': return [m, m - r, m - c];
    case 'L': return [0, m - r, c];
  }
  throw new Error(`no face ${face}`);
}

// The facelet index of the sticker at grid position p on face.
export function indexAt(face, n, p) {
  const m = n - 1;
  const [i, j, k] = p;
  let r, c;
  switch (face) {
    case 'U': r = k; c = i; break;
    case 'D': r = m - k; c = i; break;
    case 'F': r = m - j; c = i; break;
    case 'B': r = m - j; c = m - i; break;
    case 'R': r = m - j; c = m - k; break;
    case 'L': r = m - j; c = k; break;
    default: throw new Error(`no face ${face}`);
  }
  return FACES.indexOf(face) * n * n + r * n + c;
}

// Facelet index → {face, r, c, pos, normal}, cached per size.
const geometryCache = new Map();
export function geometry(n) {
  let g = geometryCache.get(n);
  if (g) return g;
  g = [];
  for (const face of FACES)
    for (let r = 0; r < n; r++)
      for (let c = 0; c < n; c++)
        g.push({ face, r, c, pos: gridOf(face, n, r, c), normal: NORMALS[face] });
  geometryCache.set(n, g);
  if (geometryCache.size > 8) geometryCache.delete(geometryCache.keys().next().value);
  return g;
}

function faceOfNormal(v) {
  for (const f of FACES) {
    const nv = NORMALS[f];
    if (nv[0] === v[0] && nv[1] === v[1] && nv[2] === v[2]) return f;
  }
  throw new Error('not a face normal');
}

// Rotate integer vector v (centred coordinates) by q quarter turns about
// axis a (0, 1, 2) by the right-hand rule.
function rot(v, a, q) {
  let [x, y, z] = v;
  q = ((q % 4) + 4) % 4;
  for (let t = 0; t < q; t++) {
    if (a === 0) [y, z] = [-z, y];
    else if (a === 1) [z, x] = [-x, z];
    else [x, y] = [-y, x];
  }
  return [x, y, z];
}

// Where each facelet goes under one turn: dest[f] (a permutation), cached
// per (n, axis, lo, hi, q).
const permCache = new Map();
function permutation(n, t) {
  const q = ((t.q % 4) + 4) % 4;
  const key = `${n}:${t.axis}:${t.lo}:${t.hi}:${q}`;
  let p = permCache.get(key);
  if (p) return p;
  const a = AXES.indexOf(t.axis);
  const g = geometry(n);
  p = new Int32Array(g.length);
  const m = n - 1;
  for (let f = 0; f < g.length; f++) {
    const { pos, normal } = g[f];
    if (q === 0 || pos[a] < t.lo || pos[a] > t.hi) { p[f] = f; continue; }
    // doubled centred coordinates keep the half steps of even n whole
    const cv = [2 * pos[0] - m, 2 * pos[1] - m, 2 * pos[2] - m];
    const nv = rot(cv, a, q);
    const face = faceOfNormal(rot(normal, a, q));
    p[f] = indexAt(face, n, nv.map((v) => (v + m) / 2));
  }
  permCache.set(key, p);
  if (permCache.size > 256) permCache.delete(permCache.keys().next().value);
  return p;
}

// The facelets after turns (an array of turns) applied to facelets.
export function applyTurns(facelets, n, turns) {
  let cur = facelets;
  for (const t of turns) {
    if (((t.q % 4) + 4) % 4 === 0) continue;
    const p = permutation(n, t);
    const out = new Array(cur.length);
    for (let f = 0; f < cur.length; f++) out[p[f]] = cur[f];
    cur = out.join('');
  }
  return cur;
}

export function solvedFacelets(n) {
  return FACES.map((f) => f.repeat(n * n)).join('');
}

// ---- notation ----------------------------------------------------------

export class NotationError extends Error {
  constructor(message, offset) {
    super(message);
    this.offset = offset;
  }
}

// Which axis a face turns about, the grid side its layer 1 is on, and the
// quarter-turn sign of its clockwise turn.
const FACE_TURN = {
  R: { axis: 'x', high: true, q: -1 },
  L: { axis: 'x', high: false, q: 1 },
  U: { axis: 'y', high: true, q: -1 },
  D: { axis: 'y', high: false, q: 1 },
  F: { axis: 'z', high: true, q: -1 },
  B: { axis: 'z', high: false, q: 1 },
};
const SLICE = { M: 'L', E: 'D', S: 'F' };
const ROTATION = { x: 'R', y: 'U', z: 'F' };
const MOVE_RE = /^(?:(\d+)(?:-(\d+))?)?([URFDLBurfdlbMESmesxyz])(w|v)?(\d*)('?)$/;

// One move token ("R", "3Rw2'", "2-4Lw", "M", "x") on an n cube → a
// turn, or null for a pause ("."). Throws NotationError (offset 0 of the
// token) for anything else.
export function parseMove(tok, n) {
  if (tok === '.') return null;
  const m = MOVE_RE.exec(tok);
  if (!m) throw new NotationError(`"${tok}" is not a move`, 0);
  let [, a, b, fam, suffix, amount, prime] = m;
  const amt = amount === '' ? 1 : Number(amount);
  const sign = prime ? -1 : 1;
  let face, lo, hi; // depths from the face, 1-based
  if (fam in ROTATION || suffix === 'v') {
    if (a !== undefined) throw new NotationError(`"${tok}": a rotation takes no layers`, 0);
    let f = fam in ROTATION ? ROTATION[fam] : fam.toUpperCase();
    const t = FACE_TURN[f];
    return { axis: t.axis, lo: 0, hi: n - 1, q: (t.high ? -1 : 1) * amt * sign };
  }
  if (fam in SLICE || 'mes'.includes(fam)) {
    if (a !== undefined || suffix) throw new NotationError(`"${tok}": a slice takes no layers`, 0);
    face = SLICE[fam.toUpperCase()];
    if (fam === fam.toUpperCase()) {
      if (n % 2 === 0 || n < 3) throw new NotationError(`"${tok}": ${fam} needs an odd cube of 3 or more`, 0);
      lo = hi = (n + 1) / 2;
    } else {
      if (n < 3) throw new NotationError(`"${tok}": no inner layers`, 0);
      lo = 2; hi = n - 1;
    }
  } else {
    const wide = suffix === 'w' || fam === fam.toLowerCase();
    face = fam.toUpperCase();
    if (b !== undefined) { lo = Number(a); hi = Number(b); }
    else if (wide) { lo = 1; hi = a === undefined ? 2 : Number(a); }
    else { lo = hi = a === undefined ? 1 : Number(a); }
  }
  if (lo < 1 || hi > n || lo > hi) throw new NotationError(`"${tok}": layers ${lo}–${hi} of a ${n}-layer cube`, 0);
  const t = FACE_TURN[face];
  const g0 = t.high ? n - hi : lo - 1;
  const g1 = t.high ? n - lo : hi - 1;
  return { axis: t.axis, lo: g0, hi: g1, q: t.q * amt * sign };
}

// A flat move sequence (canonical text without groups) → turns, or null
// when the text has structure (brackets, groups) that needs the server's
// expansion. Throws NotationError with the token's offset in text.
export function parseFlat(text, n) {
  if (/[()[\]:,]/.test(text)) return null;
  const turns = [];
  const re = /\S+/g;
  let m;
  while ((m = re.exec(text))) {
    try {
      const t = parseMove(m[0], n);
      if (t) turns.push(t);
    } catch (e) {
      if (e instanceof NotationError) throw new NotationError(e.message, m.index);
      throw e;
    }
  }
  return turns;
}

// A turn from the server's `animation` entry.
export function turnOfAnimation(a) {
  return { axis: a.axis, lo: a.layers[0], hi: a.layers[1], q: a.angle / 90 };
}

// The text of a single-layer turn: grid layer `layer` about axis, q
// quarter turns (±1, 2). Named from the nearer face; the middle layer of
// an odd cube as M, E or S.
export function moveText(n, axis, layer, q) {
  q = ((q % 4) + 4) % 4;
  if (q === 0) return '';
  const [hiFace, loFace, slice] = { x: ['R', 'L', 'M'], y: ['U', 'D', 'E'], z: ['F', 'B', 'S'] }[axis];
  const m = n - 1;
  let name, cw; // cw: the q of the named move's clockwise turn
  if (n % 2 === 1 && n >= 3 && 2 * layer === m) {
    name = slice;
    cw = slice === 'S' ? -1 : 1;
  } else if (2 * layer > m) {
    const d = m - layer + 1;
    name = (d > 1 ? d : '') + hiFace;
    cw = -1;
  } else {
    const d = layer + 1;
    name = (d > 1 ? d : '') + loFace;
    cw = 1;
  }
  if (q === 2) return name + '2';
  return q === ((cw % 4) + 4) % 4 ? name : name + "'";
}

function cross(a, b) {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

// The move a drag makes: a drag along unit axis vector dir (one of ±x, ±y,
// ±z, in the face's plane) that starts on facelet f turns the layer
// through that sticker about normal × dir, a quarter turn that carries the
// sticker along dir. Returns the move's text ('' if dir is not in the
// face's plane).
export function dragMove(n, f, dir) {
  const g = geometry(n)[f];
  const ax = cross(g.normal, dir);
  const a = ax.findIndex((v) => v !== 0);
  if (a < 0) return '';
  const q = ax[a] > 0 ? 1 : -1;
  return moveText(n, AXES[a], g.pos[a], q);
}

// The inverse of a flat move sequence, in the same spelling ("R U2 F'" →
// "F U2 R'"); a text with structure (brackets, groups) is shown as the
// inverse of itself: "(…)'".
export function invertFlat(text) {
  const t = (text || '').trim();
  if (!t) return '';
  if (/[()[\]:,]/.test(t)) return `(${t})'`;
  return t.split(/\s+/).reverse()
    .map((m) => (m === '.' ? m : m.endsWith("'") ? m.slice(0, -1) : /\D2$/.test(m) ? m : `${m}'`))
    .join(' ');
}
