// phone.test.mjs — issue 64's defect 6 and the phone layout: on a phone
// (390×844, touch) a swipe on the cube's background scrolls the page, a
// swipe that starts on a sticker turns its layer instead, the on-screen
// move buttons turn the cube, and while a solution is stepped from the
// Solve panel far down the page, the cube stays on screen.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, call, shownState, openSession, swipe, solverReady } from './lib/harness.mjs';

let srv;
let browser;
before(async () => {
  srv = await startServer();
  browser = await launch();
  await solverReady(srv.url);
});
after(async () => {
  await browser.close();
  await srv.stop();
});

const onScreen = (page, sel) => page.$eval(sel, (e) => {
  const r = e.getBoundingClientRect();
  return r.top >= -0.5 && r.bottom <= window.innerHeight + 0.5 && r.height > 100;
});

test('6: a phone scrolls from the cube, turns by buttons and stickers, and keeps the cube in sight', async () => {
  const { id, write_token: t, facelets } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, scramble: true, seed: 6 })).body;
  const page = await newPage(browser, { width: 390, height: 844, touch: true, motion: false });
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await shownState(page, 0);
  const vp = await page.$eval('#viewport', (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
  assert.ok(vp.w >= 340 && vp.h >= 250, `the cube is big enough to play: ${JSON.stringify(vp)}`);

  // a swipe up on the background (the viewport's left edge, no sticker)
  // scrolls the page
  await swipe(page, vp.x + 12, vp.y + vp.h * 0.85, vp.x + 12, vp.y + vp.h * 0.1);
  await page.waitForFunction(() => window.scrollY > 60, null, { timeout: 5000 });
  assert.equal((await call(srv.url, 'GET', `/v1/sessions/${id}`)).body.version, 0, 'scrolling turned nothing');

  // the move buttons
  await page.tap('#move-pad button[data-move="R"]');
  await shownState(page, 1);
  await page.tap(`#move-pad button[data-move="U'"]`);
  const two = await shownState(page, 2);
  const api = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  assert.equal(two, api.facelets);
  assert.equal((await call(srv.url, 'POST', '/v1/apply', { facelets, moves: "R U'" })).body.facelets, api.facelets);

  // a swipe that starts on a sticker (the cube's centre) turns a layer,
  // and the page does not scroll
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForFunction(() => window.scrollY === 0);
  const c = await page.$eval('#viewport', (e) => { const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
  await swipe(page, c.x, c.y + 10, c.x, c.y - 70);
  await shownState(page, 3);
  assert.equal(await page.evaluate(() => window.scrollY), 0);

  // the Solve panel is far down; stepping a solution there keeps the
  // cube on screen
  await page.$eval('#solve', (e) => e.scrollIntoView({ block: 'center' }));
  await page.tap('#solve');
  await page.waitForSelector('#solution:not([hidden])');
  await page.$eval('#step-fwd', (e) => e.scrollIntoView({ block: 'end' }));
  assert.ok(await page.evaluate(() => window.scrollY > 300), 'the page is scrolled down to the panel');
  await page.tap('#step-fwd');
  await page.waitForSelector('#step-label[data-step="1"]');
  assert.ok(await onScreen(page, '#viewport'), 'the cube is in sight while stepping');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
