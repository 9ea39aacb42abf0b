// solve.test.mjs — the Solve and Patterns panels, and the README's
// screenshot: a scrambled 3×3 solved by the beginner method shows its
// seven stages by name; stepping forward and back shows exactly the state
// after that many moves of the solution (without changing the session);
// "Do it on the cube" solves the session, and the patterns panel then says
// every named pattern holds. The screenshot goes to $CUBED_SCREENSHOT
// (make screenshot: docs/screenshot.png), else to build/web-test/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { startServer, launch, newPage, call, shownState, openSession, keys, ROOT } from './lib/harness.mjs';

let srv;
let browser;
before(async () => {
  srv = await startServer();
  browser = await launch();
  // the solver's tables load in the background: wait for them (deadline)
  const until = Date.now() + 60000;
  for (;;) {
    const r = await call(srv.url, 'GET', '/readyz');
    if (r.body && r.body.solver['3x3'].tables === 'ready') break;
    if (Date.now() > until) throw new Error(`solver tables not ready: ${r.text}`);
    await new Promise((res) => setTimeout(res, 100)); // polling a server's state, not ordering
  }
});
after(async () => {
  await browser.close();
  await srv.stop();
});

test('a staged solution steps forward and back, then solves the cube; patterns follow', async () => {
  const created = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, scramble: true, seed: 2026, title: 'Sunday practice' })).body;
  const { id, write_token: t } = created;
  const page = await newPage(browser, { width: 1280, height: 800 });
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await keys(page, 'r', 'u', 'Shift+R');
  const start = await shownState(page, 3);
  await page.waitForSelector('#patterns[data-version="3"]');
  assert.equal(await page.$eval('#patterns li[data-name="solved"]', (e) => e.dataset.holds), 'false');

  await page.selectOption('#method', 'beginner');
  await page.click('#solve');
  await page.waitForSelector('#solution:not([hidden])');
  const names = await page.$$eval('#stages .sol-stage', (s) => s.map((e) => e.dataset.stage));
  assert.deepEqual(names, ['cross', 'first_layer_corners', 'second_layer', 'last_layer_edge_orientation',
    'last_layer_edge_permutation', 'last_layer_corner_permutation', 'last_layer_corner_orientation']);
  const tokens = await page.$$eval('#stages button[data-i]', (b) => b.map((e) => e.textContent));
  assert.ok(tokens.length > 20);
  const after = async (k) => (await call(srv.url, 'POST', '/v1/apply', { facelets: start, moves: tokens.slice(0, k).join(' ') })).body.facelets;

  for (let i = 0; i < 3; i++) await page.click('#step-fwd');
  await page.waitForSelector('#step-label[data-step="3"]');
  await page.waitForFunction((f) => document.querySelector('#viewport').dataset.facelets === f, await after(3));
  assert.equal(await page.$eval('#viewport', (e) => e.dataset.mode), 'preview');
  await page.click('#step-back');
  await page.waitForFunction((f) => document.querySelector('#viewport').dataset.facelets === f, await after(2));
  await page.click(`#stages button[data-i="9"]`);
  await page.waitForFunction((f) => document.querySelector('#viewport').dataset.facelets === f, await after(10));
  assert.match(await page.textContent('#step-label'), /^move 10 of \d+ — /);
  assert.equal((await call(srv.url, 'GET', `/v1/sessions/${id}`)).body.version, 3, 'a preview changes nothing');

  const shot = process.env.CUBED_SCREENSHOT ? resolve(ROOT, process.env.CUBED_SCREENSHOT) : join(ROOT, 'build', 'web-test', 'screenshot.png');
  mkdirSync(dirname(shot), { recursive: true });
  await page.screenshot({ path: shot });

  await page.click('#solution-apply');
  const solved = await shownState(page, 4, 20000);
  assert.equal(solved, 'UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB');
  assert.equal((await call(srv.url, 'GET', `/v1/sessions/${id}`)).body.facelets, solved);
  await page.waitForSelector('#patterns[data-version="4"]');
  const holds = await page.$$eval('#patterns li', (l) => l.map((e) => e.dataset.holds));
  assert.ok(holds.length >= 7 && holds.every((h) => h === 'true'), holds.join());
  assert.ok(await page.isHidden('#solution'));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
