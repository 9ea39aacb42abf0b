// pixels.test.mjs — must show 3: what is drawn is the state. With the
// page's fixed default camera (read from data-camera), this test projects
// each sticker centre on the visible faces with its own geometry and
// camera maths (not the page's) and samples the WebGL canvas there: after
// a known algorithm every sampled colour is the expected sticker colour,
// for a 3×3 (moves made with the keyboard, so the animation's last frame
// is what is checked) and a 12×12. The 2D net is sampled at every sticker
// and matches the facelets exactly.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, call, shownState, openSession, keys } from './lib/harness.mjs';

// The colour scheme (docs/conventions.md's default), as the page must draw it.
const RGB = {
  U: [255, 255, 255], R: [208, 2, 27], F: [31, 163, 58],
  D: [255, 213, 0], L: [255, 122, 0], B: [22, 96, 216],
};
const FACES = ['U', 'R', 'F', 'D', 'L', 'B'];
const NORMAL = { U: [0, 1, 0], R: [1, 0, 0], F: [0, 0, 1], D: [0, -1, 0], L: [-1, 0, 0], B: [0, 0, -1] };

// Centre of facelet (face, r, c) in world units (cubies of size 1, the
// cube centred on the origin), from the facelets convention.
function centre(face, n, r, c) {
  const h = n / 2;
  const u = (x) => x + 0.5 - h; // grid index → coordinate
  switch (face) {
    case 'U': return [u(c), h, u(r)];
    case 'D': return [u(c), -h, u(n - 1 - r)];
    case 'F': return [u(c), u(n - 1 - r), h];
    case 'B': return [u(n - 1 - c), u(n - 1 - r), -h];
    case 'R': return [h, u(n - 1 - r), u(n - 1 - c)];
    case 'L': return [-h, u(n - 1 - r), u(c)];
  }
}

const sub = (a, b) => a.map((v, i) => v - b[i]);
const dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);
const norm = (a) => a.map((v) => v / Math.hypot(...a));
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

// A pinhole camera looking from position at target: world point → pixel.
function projector(cam) {
  const f = norm(sub(cam.target, cam.position));
  const r = norm(cross(f, cam.up));
  const u = cross(r, f);
  const t = Math.tan((cam.fov * Math.PI) / 360);
  const aspect = cam.width / cam.height;
  return (p) => {
    const d = sub(p, cam.position);
    const z = dot(d, f);
    const x = dot(d, r) / (z * t * aspect);
    const y = dot(d, u) / (z * t);
    return [((x + 1) / 2) * cam.width, ((1 - y) / 2) * cam.height];
  };
}

function nearest(px) {
  let best = null;
  let bd = Infinity;
  for (const [k, c] of Object.entries(RGB)) {
    const d = Math.hypot(px[0] - c[0], px[1] - c[1], px[2] - c[2]);
    if (d < bd) { bd = d; best = k; }
  }
  return { letter: best, dist: bd };
}

// Sample the 3D canvas at each visible sticker's centre; return mismatches.
async function check3d(page, facelets) {
  const cam = JSON.parse(await page.$eval('canvas.cube3d', (c) => c.dataset.camera));
  const n = cam.size;
  const project = projector(cam);
  const points = [];
  for (let fi = 0; fi < 6; fi++) {
    const face = FACES[fi];
    const toCam = sub(cam.position, centre(face, n, (n - 1) / 2, (n - 1) / 2));
    if (dot(toCam, NORMAL[face]) <= 0) continue; // faces away
    for (let r = 0; r < n; r++)
      for (let c = 0; c < n; c++) {
        const [x, y] = project(centre(face, n, r, c));
        points.push({ face, r, c, x: Math.round(x), y: Math.round(y), want: facelets[fi * n * n + r * n + c] });
      }
  }
  const pixels = await page.$eval('canvas.cube3d', (c, pts) => {
    const k = document.createElement('canvas');
    k.width = c.width;
    k.height = c.height;
    const ctx = k.getContext('2d');
    ctx.drawImage(c, 0, 0);
    const sx = c.width / c.clientWidth;
    return pts.map((p) => Array.from(ctx.getImageData(Math.round(p.x * sx), Math.round(p.y * sx), 1, 1).data));
  }, points);
  const faces = new Set(points.map((p) => p.face));
  const bad = [];
  points.forEach((p, i) => {
    const got = nearest(pixels[i]);
    if (got.letter !== p.want || got.dist > 30) bad.push(`${p.face}${p.r},${p.c} want ${p.want} got ${pixels[i]}`);
  });
  return { bad, faces: [...faces].sort().join(''), count: points.length };
}

// Sample a net canvas at every sticker's centre: exact colours.
async function checkNet(page, sel, facelets) {
  const { n, face, gap, s, ox = 0, oy = 0 } = JSON.parse(await page.$eval(sel, (c) => c.dataset.layout));
  const slot = { U: [1, 0], L: [0, 1], F: [1, 1], R: [2, 1], B: [3, 1], D: [1, 2] };
  const pts = [];
  for (let fi = 0; fi < 6; fi++)
    for (let r = 0; r < n; r++)
      for (let c = 0; c < n; c++) {
        const [fx, fy] = slot[FACES[fi]];
        pts.push([ox + fx * (face + gap) + (c + 0.5) * s, oy + fy * (face + gap) + (r + 0.5) * s]);
      }
  const px = await page.$eval(sel, (c, p) => {
    const ctx = c.getContext('2d');
    const k = c.width / c.clientWidth;
    return p.map(([x, y]) => Array.from(ctx.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data));
  }, pts);
  const got = px.map((p) => {
    const m = nearest(p);
    return m.dist <= 2 ? m.letter : '?';
  }).join('');
  return got;
}

let srv;
let browser;
before(async () => {
  srv = await startServer();
  browser = await launch();
});
after(async () => {
  await browser.close();
  await srv.stop();
});

test('3×3: after R U F\' D2 L B\' (keys) the visible stickers and the net are the state', async () => {
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3 })).body;
  const page = await newPage(browser, { width: 1100, height: 800 });
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await keys(page, 'r', 'u', 'Shift+F', 'd', 'd', 'l', 'Shift+B');
  const shown = await shownState(page, 7, 10000);
  const api = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  const expected = (await call(srv.url, 'POST', '/v1/apply', { size: 3, moves: "R U F' D D L B'" })).body.facelets;
  assert.equal(api.facelets, expected);
  assert.equal(shown, expected);
  const r = await check3d(page, expected);
  assert.equal(r.faces, 'FRU');
  assert.equal(r.count, 27);
  assert.deepEqual(r.bad, []);
  // the check tells states apart: the solved colours are not what is drawn
  const solved = FACES.map((f) => f.repeat(9)).join('');
  assert.ok((await check3d(page, solved)).bad.length >= 10);
  assert.equal(await checkNet(page, '#mininet', expected), expected);
  await page.click('#show-net');
  assert.equal(await checkNet(page, '#bignet', expected), expected);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('12×12: after a known algorithm the visible stickers and the net are the state', async () => {
  const alg = "3Rw U2 5L' 2-4Fw Rw2 6U D' 4Bw2 x y' 7R2 Lw";
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 12, scramble: alg })).body;
  const expected = (await call(srv.url, 'POST', '/v1/apply', { size: 12, moves: alg })).body.facelets;
  const page = await newPage(browser, { width: 1100, height: 800 });
  await openSession(page, srv.url, id, { t, role: 'owner' });
  assert.equal(await shownState(page, 0), expected);
  const r = await check3d(page, expected);
  assert.equal(r.faces, 'FRU');
  assert.equal(r.count, 3 * 144);
  assert.deepEqual(r.bad, []);
  await keys(page, '3', 'r');
  const after = (await call(srv.url, 'POST', '/v1/apply', { size: 12, moves: `${alg} 3R` })).body.facelets;
  assert.equal(await shownState(page, 1), after);
  assert.deepEqual((await check3d(page, after)).bad, []);
  assert.ok((await check3d(page, expected)).bad.length > 0, 'the check tells states apart');
  await page.click('#show-net');
  assert.equal(await checkNet(page, '#bignet', after), after);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
