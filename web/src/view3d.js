// view3d.js — the cube in 3D with three.js (WebGL): built from the server's
// render data (every visible cubie's position and the letters its sides
// show), drawn as two instanced meshes — one for the cubies' black bodies,
// one for all 6·n² stickers — so a 33×33 (12,000 instances) is two draw
// calls. A turn animates by moving only the instances in the turning
// layers, then the stickers take the new state's colours and every
// instance goes home. The camera orbits on a drag of the background; a
// drag that starts on a sticker turns its layer.

import {
  BoxGeometry, Color, InstancedMesh, Matrix4, MeshBasicMaterial, PerspectiveCamera,
  Quaternion, Raycaster, Scene, Shape, ShapeGeometry, Vector2, Vector3, WebGLRenderer,
} from 'three';
import { FACES, geometry, indexAt, dragMove } from './cube.js';
import { SCHEME } from './colors.js';

const AXIS_VEC = { x: new Vector3(1, 0, 0), y: new Vector3(0, 1, 0), z: new Vector3(0, 0, 1) };
const AXIS_IDX = { x: 0, y: 1, z: 2 };
// The default camera: 35° round from the front towards R, 28° above, so U,
// F and R show. Tests point at stickers with the same numbers (data-camera).
export const DEFAULT_VIEW = { azimuth: 35, elevation: 28, fov: 30 };
const QUARTER_MS = 150;

export function webglAvailable() {
  try {
    const c = document.createElement('canvas');
    return !!(c.getContext('webgl2') || c.getContext('webgl'));
  } catch {
    return false;
  }
}

function roundedSquare(size, radius) {
  const h = size / 2;
  const s = new Shape();
  s.moveTo(-h + radius, -h);
  s.lineTo(h - radius, -h);
  s.quadraticCurveTo(h, -h, h, -h + radius);
  s.lineTo(h, h - radius);
  s.quadraticCurveTo(h, h, h - radius, h);
  s.lineTo(-h + radius, h);
  s.quadraticCurveTo(-h, h, -h, h - radius);
  s.lineTo(-h, -h + radius);
  s.quadraticCurveTo(-h, -h, -h + radius, -h);
  return new ShapeGeometry(s, 3);
}

export class View3D {
  // container: the element to fill; hooks: {onMove(text), canTurn()}.
  constructor(container, hooks) {
    this.container = container;
    this.hooks = hooks;
    this.renderer = new WebGLRenderer({ antialias: true, alpha: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.canvas = this.renderer.domElement;
    this.canvas.className = 'cube3d';
    container.appendChild(this.canvas);
    this.scene = new Scene();
    this.camera = new PerspectiveCamera(DEFAULT_VIEW.fov, 1, 0.1, 2000);
    this.view = { ...DEFAULT_VIEW, zoom: 1 };
    this.n = 0;
    this.queue = [];
    this.anim = null;
    this.dirty = true;
    this.raf = 0;
    this.pointer = null;
    // a player who asked the system for less motion gets turns without
    // the animation
    this.motion = window.matchMedia('(prefers-reduced-motion: reduce)');
    this.quarterMs = QUARTER_MS; // a quarter turn's animation; 0: none
    this.colors = {};
    for (const f of FACES) this.colors[f] = new Color(SCHEME[f]);
    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(container);
    this.canvas.addEventListener('pointerdown', (e) => this.down(e));
    this.canvas.addEventListener('pointermove', (e) => this.move(e));
    this.canvas.addEventListener('pointerup', (e) => this.up(e));
    this.canvas.addEventListener('pointercancel', (e) => this.up(e));
    this.canvas.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    // touch: a finger that lands on a sticker turns it, so the page must
    // not scroll; anywhere else the browser scrolls vertically (CSS
    // touch-action: pan-y) and a sideways swipe looks around
    this.canvas.addEventListener('touchstart', (e) => {
      if (e.touches.length === 1 && this.hooks.canTurn() && !this.anim && this.pick(e.touches[0]) >= 0) e.preventDefault();
    }, { passive: false });
    this.resize();
  }

  // Build the cube from render data {size, cubies: [{position, stickers}]}
  // with the state facelets (which the stickers must show).
  build(render, facelets) {
    this.clear();
    const n = render.size;
    this.n = n;
    const m = n - 1;
    const half = m / 2;
    const geo = geometry(n);
    this.bodyPos = render.cubies.map((c) => c.position);
    this.bodies = new InstancedMesh(new BoxGeometry(0.98, 0.98, 0.98),
      new MeshBasicMaterial({ color: 0x0b0c0f }), this.bodyPos.length);
    this.bodyBase = [];
    this.bodyPos.forEach((p, i) => {
      const mat = new Matrix4().makeTranslation(p[0] - half, p[1] - half, p[2] - half);
      this.bodyBase.push(mat);
      this.bodies.setMatrixAt(i, mat);
    });
    this.stickers = new InstancedMesh(roundedSquare(0.86, 0.12),
      new MeshBasicMaterial({ color: 0xffffff }), geo.length);
    this.stickerBase = [];
    const zAxis = new Vector3(0, 0, 1);
    geo.forEach((g, f) => {
      const nv = new Vector3(...g.normal);
      const q = new Quaternion().setFromUnitVectors(zAxis, nv);
      const pos = new Vector3(g.pos[0] - half, g.pos[1] - half, g.pos[2] - half).addScaledVector(nv, 0.502);
      const mat = new Matrix4().compose(pos, q, new Vector3(1, 1, 1));
      this.stickerBase.push(mat);
      this.stickers.setMatrixAt(f, mat);
    });
    // the render data's letters, placed by position and side
    const letters = new Array(geo.length).fill('?');
    for (const c of render.cubies)
      for (const [side, letter] of Object.entries(c.stickers))
        letters[indexAt(side, n, c.position)] = letter;
    this.paint(letters.join(''));
    if (facelets && letters.join('') !== facelets) this.paint(facelets);
    this.scene.add(this.bodies, this.stickers);
    this.stickerGeo = geo;
    this.resetView();
  }

  clear() {
    this.queue = [];
    this.anim = null;
    for (const mesh of [this.bodies, this.stickers]) {
      if (!mesh) continue;
      this.scene.remove(mesh);
      mesh.geometry.dispose();
      mesh.material.dispose();
      mesh.dispose();
    }
    this.bodies = this.stickers = null;
  }

  paint(facelets) {
    if (!this.stickers) return;
    for (let f = 0; f < facelets.length; f++)
      this.stickers.setColorAt(f, this.colors[facelets[f]] || this.colors.U);
    this.stickers.instanceColor.needsUpdate = true;
    this.facelets = facelets;
    this.kick();
  }

  // Show facelets at once, dropping queued animations.
  snap(facelets) {
    this.finishAnim();
    const waiting = this.queue;
    this.queue = [];
    for (const a of waiting) a.resolve();
    this.paint(facelets);
  }

  // Animate turns (a list), ending on facelets. hooks {onStart, onEnd}
  // are called at the first frame of this change and after its last.
  animate(turns, facelets, hooks = {}) {
    return new Promise((resolve) => {
      this.queue.push({ turns: turns.slice(), facelets, hooks, resolve, started: false });
      this.kick();
    });
  }

  get busy() {
    return !!this.anim || this.queue.length > 0;
  }

  startNext(now) {
    while (this.queue.length) {
      const item = this.queue[0];
      if (!item.started) {
        item.started = true;
        if (item.hooks.onStart) item.hooks.onStart();
      }
      // a long backlog is shown quickly: at most ~10 animated turns wait
      const backlog = this.queue.reduce((k, it) => k + it.turns.length, 0);
      if (backlog > 40 || item.turns.length === 0 || this.motion.matches || this.quarterMs === 0) {
        this.queue.shift();
        this.paint(item.facelets);
        if (item.hooks.onEnd) item.hooks.onEnd();
        item.resolve();
        continue;
      }
      const t = item.turns.shift();
      const q = ((t.q % 4) + 4) % 4; // 1: +90°, 2: 180°, 3: -90°
      if (q === 0) continue;
      const angle = (q === 3 ? -1 : q) * (Math.PI / 2);
      const speed = Math.max(1, backlog / 2);
      const a = AXIS_IDX[t.axis];
      const inLayer = (p) => p[a] >= t.lo && p[a] <= t.hi;
      this.anim = {
        item,
        axis: AXIS_VEC[t.axis],
        angle,
        t0: now,
        ms: ((q === 2 ? 1.5 : 1) * this.quarterMs) / speed,
        bodies: this.bodyPos.flatMap((p, i) => (inLayer(p) ? [i] : [])),
        stickers: this.stickerGeo.flatMap((g, i) => (inLayer(g.pos) ? [i] : [])),
      };
      return;
    }
  }

  // Put the turning instances at `fraction` of the turn.
  pose(fraction) {
    const a = this.anim;
    const r = new Matrix4().makeRotationAxis(a.axis, a.angle * fraction);
    const m = new Matrix4();
    for (const i of a.bodies) this.bodies.setMatrixAt(i, m.multiplyMatrices(r, this.bodyBase[i]));
    for (const i of a.stickers) this.stickers.setMatrixAt(i, m.multiplyMatrices(r, this.stickerBase[i]));
    this.bodies.instanceMatrix.needsUpdate = true;
    this.stickers.instanceMatrix.needsUpdate = true;
  }

  finishAnim() {
    const a = this.anim;
    if (!a) return;
    for (const i of a.bodies) this.bodies.setMatrixAt(i, this.bodyBase[i]);
    for (const i of a.stickers) this.stickers.setMatrixAt(i, this.stickerBase[i]);
    this.bodies.instanceMatrix.needsUpdate = true;
    this.stickers.instanceMatrix.needsUpdate = true;
    this.anim = null;
    const item = a.item;
    if (item.turns.length === 0 && this.queue[0] === item) {
      this.queue.shift();
      this.paint(item.facelets);
      if (item.hooks.onEnd) item.hooks.onEnd();
      item.resolve();
    }
  }

  kick() {
    this.dirty = true;
    if (!this.raf) this.raf = requestAnimationFrame((t) => this.frame(t));
  }

  frame(now) {
    this.raf = 0;
    if (!this.anim && this.queue.length) this.startNext(now);
    if (this.anim) {
      const f = Math.min(1, (now - this.anim.t0) / this.anim.ms);
      const eased = f < 1 ? 1 - (1 - f) * (1 - f) * (1 - f) : 1;
      if (f >= 1) this.finishAnim();
      else this.pose(eased);
      this.dirty = true;
    }
    if (this.dirty) {
      this.dirty = false;
      this.renderer.render(this.scene, this.camera);
      if (this.hooks.rendered && this.stickers) this.hooks.rendered();
    }
    if (this.anim || this.queue.length) this.kick();
  }

  resize() {
    const w = this.container.clientWidth;
    const h = this.container.clientHeight;
    if (!w || !h) return;
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.placeCamera();
  }

  resetView() {
    this.view = { ...DEFAULT_VIEW, zoom: 1 };
    this.placeCamera();
  }

  placeCamera() {
    const { azimuth, elevation, zoom } = this.view;
    const n = Math.max(this.n, 1);
    // far enough that the cube's bounding sphere fits the narrower side
    const radius = n * 0.9;
    const fovV = (this.camera.fov * Math.PI) / 180;
    const fovH = 2 * Math.atan(Math.tan(fovV / 2) * this.camera.aspect);
    const d = (radius / Math.sin(Math.min(fovV, fovH) / 2)) * 1.08 * zoom;
    const az = (azimuth * Math.PI) / 180;
    const el = (elevation * Math.PI) / 180;
    this.camera.position.set(d * Math.cos(el) * Math.sin(az), d * Math.sin(el), d * Math.cos(el) * Math.cos(az));
    this.camera.up.set(0, 1, 0);
    this.camera.lookAt(0, 0, 0);
    this.camera.updateProjectionMatrix();
    this.camera.updateMatrixWorld();
    const p = this.camera.position;
    this.canvas.dataset.camera = JSON.stringify({
      fov: this.camera.fov, position: [p.x, p.y, p.z], target: [0, 0, 0], up: [0, 1, 0],
      width: this.canvas.clientWidth, height: this.canvas.clientHeight, size: this.n,
    });
    this.kick();
  }

  // ---- pointer: turn a layer from a sticker, or orbit --------------------

  ndc(e) {
    const r = this.canvas.getBoundingClientRect();
    return new Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
  }

  pick(e) {
    if (!this.stickers) return -1;
    const ray = new Raycaster();
    ray.setFromCamera(this.ndc(e), this.camera);
    const hit = ray.intersectObject(this.stickers, false)[0];
    return hit && hit.instanceId !== undefined ? hit.instanceId : -1;
  }

  down(e) {
    const f = this.hooks.canTurn() && !this.anim ? this.pick(e) : -1;
    this.pointer = { id: e.pointerId, x: e.clientX, y: e.clientY, f, view: { ...this.view } };
    this.canvas.setPointerCapture(e.pointerId);
  }

  move(e) {
    const p = this.pointer;
    if (!p || p.id !== e.pointerId) return;
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    if (p.f < 0) {
      this.view.azimuth = p.view.azimuth - dx * 0.4;
      this.view.elevation = Math.max(-85, Math.min(85, p.view.elevation + dy * 0.4));
      this.placeCamera();
      return;
    }
    if (Math.hypot(dx, dy) < 10) return;
    const text = this.dragText(p.f, dx, dy);
    this.pointer = null;
    if (text) this.hooks.onMove(text);
  }

  up(e) {
    if (this.pointer && this.pointer.id === e.pointerId) this.pointer = null;
  }

  wheel(e) {
    e.preventDefault();
    this.view.zoom = Math.max(0.5, Math.min(3, this.view.zoom * Math.exp(e.deltaY * 0.001)));
    this.placeCamera();
  }

  // The in-face direction whose picture on screen best follows the drag.
  dragText(f, dx, dy) {
    const g = this.stickerGeo[f];
    const half = (this.n - 1) / 2;
    const c = new Vector3(g.pos[0] - half, g.pos[1] - half, g.pos[2] - half)
      .addScaledVector(new Vector3(...g.normal), 0.5);
    const c0 = c.clone().project(this.camera);
    let best = null;
    let bestDot = -Infinity;
    for (let a = 0; a < 3; a++) {
      if (g.normal[a] !== 0) continue;
      for (const s of [1, -1]) {
        const dir = [0, 0, 0];
        dir[a] = s;
        const c1 = c.clone().add(new Vector3(...dir)).project(this.camera);
        const sx = c1.x - c0.x;
        const sy = -(c1.y - c0.y);
        const len = Math.hypot(sx, sy) || 1;
        const dot = (sx * dx + sy * dy) / len;
        if (dot > bestDot) { bestDot = dot; best = dir; }
      }
    }
    return best ? dragMove(this.n, f, best) : '';
  }

  dispose() {
    cancelAnimationFrame(this.raf);
    this.resizeObserver.disconnect();
    this.clear();
    this.renderer.dispose();
    this.canvas.remove();
  }
}

