// nowebgl.test.mjs — must show 7: in a Chromium with WebGL (and every 3D
// API) turned off, the page says so, shows the flat net as the cube, and
// the cube is still playable: keys and a drag across the net turn it, and
// the net shows exactly the API's state, sticker by sticker.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, call, shownState, openSession, keys } from './lib/harness.mjs';

const RGB = {
  U: [255, 255, 255], R: [208, 2, 27], F: [31, 163, 58],
  D: [255, 213, 0], L: [255, 122, 0], B: [22, 96, 216],
};

async function netLetters(page) {
  const { n, face, gap, s, ox = 0, oy = 0 } = JSON.parse(await page.$eval('#bignet', (c) => c.dataset.layout));
  const slot = [[1, 0], [2, 1], [1, 1], [1, 2], [0, 1], [3, 1]]; // U R F D L B
  const pts = [];
  for (let fi = 0; fi < 6; fi++)
    for (let r = 0; r < n; r++)
      for (let c = 0; c < n; c++)
        pts.push([ox + slot[fi][0] * (face + gap) + (c + 0.5) * s, oy + slot[fi][1] * (face + gap) + (r + 0.5) * s]);
  const px = await page.$eval('#bignet', (c, p) => {
    const ctx = c.getContext('2d');
    const k = c.width / c.clientWidth;
    return p.map(([x, y]) => Array.from(ctx.getImageData(Math.floor(x * k), Math.floor(y * k), 1, 1).data));
  }, pts);
  return px.map((p) => Object.keys(RGB).find((k) => RGB[k].every((v, i) => Math.abs(v - p[i]) <= 2)) || '?').join('');
}

let srv;
let browser;
before(async () => {
  srv = await startServer();
  browser = await launch({ webgl: false });
});
after(async () => {
  await browser.close();
  await srv.stop();
});

test('without WebGL the net is the cube, and it plays', async () => {
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, scramble: true, seed: 3 })).body;
  const page = await newPage(browser);
  await openSession(page, srv.url, id, { t, role: 'owner' });
  assert.equal(await page.evaluate(() => !!document.createElement('canvas').getContext('webgl')), false);
  assert.equal(await page.$eval('#viewport', (e) => e.dataset.webgl), '0');
  assert.equal(await page.$$eval('canvas.cube3d', (c) => c.length), 0);
  assert.ok(await page.isVisible('#bignet'));
  assert.match(await page.textContent('#view-note'), /WebGL is not available/);
  assert.ok(await page.$eval('#show-3d', (b) => b.disabled));
  const v0 = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body.facelets;
  assert.equal(await netLetters(page), v0);

  await keys(page, 'r', 'Shift+U');
  let api = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  assert.equal(await shownState(page, 2), (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body.facelets);
  api = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  assert.equal(await netLetters(page), api.facelets);

  // drag the top row of F to the right: U' (the row follows the pointer)
  const { face, gap, s, ox = 0, oy = 0 } = JSON.parse(await page.$eval('#bignet', (c) => c.dataset.layout));
  const box = await page.$eval('#bignet', (c) => { const r = c.getBoundingClientRect(); return [r.x, r.y]; });
  const x = box[0] + ox + (face + gap) + 0.5 * s;
  const y = box[1] + oy + (face + gap) + 0.5 * s;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 2 * s, y, { steps: 6 });
  await page.mouse.up();
  const shown = await shownState(page, 3);
  api = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  assert.equal(shown, api.facelets);
  assert.equal(await netLetters(page), api.facelets);
  const last = (await call(srv.url, 'GET', `/v1/sessions/${id}/history?after=2`)).body.events[0];
  assert.equal(last.moves, "U'");
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
