// a11y.test.mjs — axe-core (pinned in tests/web) finds no serious or
// critical violation on the lobby and the play page (owner, watch-only,
// with a solution open), and the play page's controls are reachable by
// keyboard alone.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, call, shownState, openSession, keys, axeViolations } from './lib/harness.mjs';

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

test('axe: the lobby and the play page have no serious or critical violation', async () => {
  const page = await newPage(browser, { motion: false });
  await page.goto(`${srv.url}/`);
  await page.waitForSelector('#lobby:not([hidden])');
  assert.deepEqual(await axeViolations(page), [], 'lobby');
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, scramble: true, seed: 4 })).body;
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await keys(page, 'r');
  await shownState(page, 1);
  await page.click('#share-watch');
  await page.waitForSelector('#share-link:not([hidden])');
  assert.deepEqual(await axeViolations(page), [], 'play, owner');
  const w = await newPage(browser, { motion: false });
  await openSession(w, srv.url, id, {});
  await w.waitForSelector('#banner:not([hidden])');
  assert.deepEqual(await axeViolations(w), [], 'play, watch-only');
  for (const p of [page, w]) {
    assert.deepEqual(p.problems, []);
    await p.context().close();
  }
});

test('keyboard: every control of the play page takes the focus by Tab', async () => {
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3 })).body;
  const page = await newPage(browser, { motion: false });
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await keys(page, 'r', 'u');
  await shownState(page, 2);
  const want = await page.$$eval('#play button, #play input, #play select, #play a[href]', (els) =>
    els.filter((e) => !e.disabled && e.offsetParent !== null).map((e) => e.id || e.dataset.move || e.textContent.trim()).filter(Boolean));
  // every element that takes the focus, recorded by the page as Tab moves
  await page.evaluate(() => {
    window.focused = new Set();
    document.addEventListener('focusin', (e) => {
      const el = e.target;
      if (el.closest('#play')) window.focused.add(el.id || el.dataset.move || el.textContent.trim());
    });
    if (document.activeElement) document.activeElement.blur();
  });
  for (let i = 0; i < want.length + 40; i++) await page.keyboard.press('Tab');
  const seen = new Set(await page.evaluate(() => [...window.focused]));
  assert.deepEqual(want.filter((k) => !seen.has(k)), [], 'controls Tab never reaches');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
