// net.js — the flat net of the cube on a 2D canvas: U above F, then L F R
// B in a row, D below F, each face row by row as the facelets string
// orders it (so the picture is the state, letter for letter). Always
// available, cheap for any size, and the whole view when WebGL is missing:
// a drag across a row or column turns that layer.

import { FACES, dragMove } from './cube.js';
import { SCHEME } from './colors.js';

// Where each face sits in the net, in face units.
const SLOT = { U: [1, 0], L: [0, 1], F: [1, 1], R: [2, 1], B: [3, 1], D: [1, 2] };
// The 3D directions of a face's "right" and "down" on the net.
const SCREEN = {
  U: [[1, 0, 0], [0, 0, 1]], L: [[0, 0, 1], [0, -1, 0]], F: [[1, 0, 0], [0, -1, 0]],
  R: [[0, 0, -1], [0, -1, 0]], B: [[-1, 0, 0], [0, -1, 0]], D: [[1, 0, 0], [0, 0, -1]],
};
const GAP = 4;

export class NetView {
  // canvas: the element to draw on; onMove(text): a drag made a move
  // (null: the net is for looking only). opts.fill: the canvas fills its
  // box (CSS sizes it) and the net is fitted inside, centred; otherwise
  // the canvas takes the net's height for its width.
  constructor(canvas, onMove, opts = {}) {
    this.canvas = canvas;
    this.onMove = onMove;
    this.fill = !!opts.fill;
    this.n = 0;
    this.facelets = '';
    this.enabled = true;
    this.drag = null;
    // every listener goes with dispose(): the canvas outlives this view
    // when another cube is opened in the same tab
    this.abort = new AbortController();
    this.resizeObserver = new ResizeObserver(() => this.draw());
    this.resizeObserver.observe(canvas);
    if (onMove) {
      const on = (type, fn, o = {}) => canvas.addEventListener(type, fn, { ...o, signal: this.abort.signal });
      on('pointerdown', (e) => this.down(e));
      on('pointermove', (e) => this.move(e));
      on('pointerup', () => { this.drag = null; });
      on('pointercancel', () => { this.drag = null; });
      // a finger on a sticker turns it; anywhere else it scrolls the page
      on('touchstart', (e) => {
        const t = e.touches[0];
        const r = canvas.getBoundingClientRect();
        if (this.enabled && e.touches.length === 1 && this.hit(t.clientX - r.left, t.clientY - r.top) >= 0) e.preventDefault();
      }, { passive: false });
    }
  }

  set(n, facelets) {
    this.n = n;
    this.facelets = facelets;
    this.draw();
  }

  // The net's place in the canvas (CSS pixels): face size, sticker size,
  // and the offset of its top-left corner.
  layout() {
    const w = this.canvas.clientWidth;
    let face = Math.max(1, (w - 3 * GAP) / 4);
    if (this.fill) face = Math.max(1, Math.min(face, (this.canvas.clientHeight - 2 * GAP) / 3));
    const ox = this.fill ? Math.max(0, (w - (4 * face + 3 * GAP)) / 2) : 0;
    const oy = this.fill ? Math.max(0, (this.canvas.clientHeight - (3 * face + 2 * GAP)) / 2) : 0;
    return { face, s: face / this.n, gap: GAP, ox, oy };
  }

  draw() {
    const { canvas, n, facelets } = this;
    if (!n || facelets.length !== 6 * n * n) return;
    const w = canvas.clientWidth;
    if (w === 0) return;
    const { face, s, ox, oy } = this.layout();
    let h = canvas.clientHeight;
    if (!this.fill) {
      h = Math.ceil(3 * face + 2 * GAP);
      if (canvas.style.height !== `${h}px`) canvas.style.height = `${h}px`;
    }
    if (h === 0) return;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const inset = s >= 8 ? Math.min(2, s * 0.06) : 0;
    const round = s >= 10 ? s * 0.12 : 0;
    for (let fi = 0; fi < 6; fi++) {
      const f = FACES[fi];
      const [fx, fy] = SLOT[f];
      const x0 = ox + fx * (face + GAP);
      const y0 = oy + fy * (face + GAP);
      ctx.fillStyle = '#111418';
      ctx.fillRect(x0, y0, face, face);
      for (let r = 0; r < n; r++)
        for (let c = 0; c < n; c++) {
          ctx.fillStyle = SCHEME[facelets[fi * n * n + r * n + c]] || '#888';
          const x = x0 + c * s + inset;
          const y = y0 + r * s + inset;
          const sz = s - 2 * inset;
          if (round) {
            ctx.beginPath();
            ctx.roundRect(x, y, sz, sz, round);
            ctx.fill();
          } else {
            // whole pixels, so neighbouring stickers never blend
            ctx.fillRect(Math.floor(x), Math.floor(y), Math.ceil(sz + (x - Math.floor(x))), Math.ceil(sz + (y - Math.floor(y))));
          }
        }
    }
    // for tests and tools: where the stickers are, in CSS pixels
    canvas.dataset.layout = JSON.stringify({ n, face, gap: GAP, s, ox, oy });
    canvas.dataset.facelets = n <= 16 ? facelets : '';
  }

  // The facelet under a point (CSS pixels in the canvas), or -1.
  hit(x, y) {
    const { face, s, ox, oy } = this.layout();
    for (let fi = 0; fi < 6; fi++) {
      const [fx, fy] = SLOT[FACES[fi]];
      const x0 = ox + fx * (face + GAP);
      const y0 = oy + fy * (face + GAP);
      if (x >= x0 && x < x0 + face && y >= y0 && y < y0 + face) {
        const c = Math.min(this.n - 1, Math.floor((x - x0) / s));
        const r = Math.min(this.n - 1, Math.floor((y - y0) / s));
        return fi * this.n * this.n + r * this.n + c;
      }
    }
    return -1;
  }

  down(e) {
    if (!this.enabled) return;
    const rect = this.canvas.getBoundingClientRect();
    const f = this.hit(e.clientX - rect.left, e.clientY - rect.top);
    if (f < 0) return;
    this.drag = { f, x: e.clientX, y: e.clientY };
    this.canvas.setPointerCapture(e.pointerId);
  }

  move(e) {
    const d = this.drag;
    if (!d || !this.enabled) return;
    const dx = e.clientX - d.x;
    const dy = e.clientY - d.y;
    const min = Math.max(8, this.layout().s * 0.4);
    if (Math.hypot(dx, dy) < min) return;
    this.drag = null;
    const face = FACES[Math.floor(d.f / (this.n * this.n))];
    const [right, down] = SCREEN[face];
    const dir = Math.abs(dx) > Math.abs(dy)
      ? right.map((v) => v * Math.sign(dx))
      : down.map((v) => v * Math.sign(dy));
    const text = dragMove(this.n, d.f, dir);
    if (text && this.onMove) this.onMove(text);
  }

  dispose() {
    this.resizeObserver.disconnect();
    this.abort.abort();
    this.drag = null;
    this.onMove = null;
  }
}
