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

test('2: a solution stays usable at its last move, and goes visibly stale when the cube changes', async () => {
  const created = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, scramble: true, seed: 11 })).body;
  const { id, write_token: t } = created;
  const page = await newPage(browser, { motion: false });
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await shownState(page, 0);
  await page.selectOption('#method', 'twophase');
  await page.click('#solve');
  await page.waitForSelector('#solution:not([hidden])');
  const L = await page.$$eval('#stages button[data-i]', (b) => b.length);
  await page.click('#step-last');
  await page.waitForSelector(`#step-label[data-step="${L}"]`);
  assert.ok(await page.isEnabled('#solution-apply'), 'at the last move the solution can still be done');
  // someone moves the cube: the panel says so at once
  await call(srv.url, 'POST', `/v1/sessions/${id}/moves`, { moves: 'U' }, { Authorization: `Bearer ${t}` });
  await page.waitForSelector('#solution-stale:not([hidden])');
  assert.ok(await page.isDisabled('#solution-apply'));
  // and solving again solves what is there now
  await page.click('#solve-again');
  await page.waitForSelector('#solution-stale[hidden]', { state: 'attached' });
  await page.click('#solution-apply');
  assert.equal(await shownState(page, 2, 20000), 'UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('8: a solver that runs out of time says so, and "Try again" asks with more time', async () => {
  // (a 3×3: what is tested is the page's answer to that reply, which is
  // the same for any size, and a 3×3 solves at once when asked again)
  const created = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, scramble: true, seed: 8 })).body;
  const { id, write_token: t } = created;
  const page = await newPage(browser, { motion: false });
  // the busy machine of the report (a 7×7): the first solve answers as
  // the server does when the reduction runs out of time
  const asked = [];
  await page.route('**/v1/solve', async (route) => {
    asked.push(route.request().postDataJSON());
    if (asked.length > 1) return route.continue();
    return route.fulfill({
      status: 422, contentType: 'application/problem+json',
      body: JSON.stringify({
        type: 'urn:cubed:problem:invalid_request', title: 'Invalid Request', status: 422,
        detail: 'the reduction did not finish in 3000 ms', code: 'no_solution_found', field: 'timeout_ms',
      }),
    });
  });
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await page.click('#solve');
  await page.waitForSelector('#solve-error-box:not([hidden])');
  assert.match(await page.textContent('#solve-error'), /ran out of time.*busy.*try again/i);
  assert.ok(await page.isVisible('#solve-retry'));
  await page.click('#solve-retry');
  await page.waitForSelector('#solution:not([hidden])', { timeout: 20000 });
  assert.ok(await page.isHidden('#solve-error-box'));
  assert.equal(asked[1].timeout_ms, 10000);
  assert.equal(asked[1].facelets, created.facelets);
  // the failed request is the test's own doing: only it may be in the log
  assert.deepEqual(page.problems.filter((p) => !/status of 422/.test(p)), []);
  await page.context().close();
});
