// alg.test.mjs — an algorithm as a link: `#/alg?alg=…&setup=…` plays the
// algorithm from the setup's state on a cube of its own (no session):
// played to its end it shows exactly the API's state, steps back and
// forth, takes a speed, makes the same link to share, shows notation
// errors where they are, and passes axe-core. The play page's "Play as a
// link" opens the typed moves there from the state shown.

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

const apply = async (body) => (await call(srv.url, 'POST', '/v1/apply', body)).body.facelets;

test('an alg link plays to its end, steps, and shares itself', async () => {
  const page = await newPage(browser, { permissions: ['clipboard-read', 'clipboard-write'] });
  const alg = "[R, U] (M2 U)2 // a comment";
  const setup = 'F2 L';
  await page.goto(`${srv.url}/#/alg?alg=${encodeURIComponent(alg)}&setup=${encodeURIComponent(setup)}&speed=70`);
  await page.waitForSelector('#alg-view[data-ready="1"]');
  assert.equal(await page.inputValue('#alg-speed'), '70');
  const start = await apply({ size: 3, moves: setup });
  const end = await apply({ size: 3, moves: `${setup} ${alg.replace(/\/\/.*/, '')}` });
  assert.equal(await page.$eval('#alg-view', (e) => e.dataset.facelets), start);
  const L = (await call(srv.url, 'POST', '/v1/alg', { size: 3, moves: alg })).body.length;
  assert.equal(L, 8);
  assert.equal(await page.$$eval('#alg-moves button', (b) => b.length), L);
  await page.click('#alg-play');
  await page.waitForSelector(`#alg-step[data-step="${L}"]`, { timeout: 10000 });
  assert.equal(await page.$eval('#alg-view', (e) => e.dataset.facelets), end);
  // back one, forward one, to a move in the list
  await page.click('#alg-back');
  await page.waitForSelector(`#alg-step[data-step="${L - 1}"]`);
  assert.equal(await page.$eval('#alg-view', (e) => e.dataset.facelets),
    await apply({ size: 3, moves: `${setup} R U R' U' M2 U M2` }));
  await page.click('#alg-moves button[data-i="1"]');
  await page.waitForSelector('#alg-step[data-step="2"]');
  assert.equal(await page.$eval('#alg-view', (e) => e.dataset.facelets), await apply({ size: 3, moves: `${setup} R U` }));
  // the link to share is this page's
  await page.click('#alg-copy');
  await page.waitForSelector('#alg-link:not([hidden])');
  const link = await page.inputValue('#alg-link');
  const other = await newPage(browser, { motion: false });
  await other.goto(link);
  await other.waitForSelector('#alg-view[data-ready="1"]');
  await other.click('#alg-last');
  await other.waitForSelector(`#alg-step[data-step="${L}"]`);
  assert.equal(await other.$eval('#alg-view', (e) => e.dataset.facelets), end);
  assert.deepEqual(await axeViolations(page), [], 'alg page');
  for (const p of [page, other]) {
    assert.deepEqual(p.problems, []);
    await p.context().close();
  }
});

test('a notation error shows where it is; the play page opens its moves as a link', async () => {
  const page = await newPage(browser, { motion: false });
  await page.goto(`${srv.url}/#/alg?alg=${encodeURIComponent('R U Q')}`);
  await page.waitForSelector('#alg-error:not([hidden])');
  assert.match(await page.textContent('#alg-error'), /Algorithm: unknown token "Q".*character 5/);
  assert.equal(await page.$eval('#algpage', (e) => e.dataset.error), 'unknown_token');

  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, scramble: true, seed: 9 })).body;
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await keys(page, 'r');
  const here = await shownState(page, 1);
  await page.fill('#moves', "U R U' R'");
  await page.click('#as-link');
  await page.waitForSelector('#alg-view[data-ready="1"]');
  assert.equal(await page.$eval('#alg-view', (e) => e.dataset.facelets), here);
  await page.click('#alg-last');
  await page.waitForSelector('#alg-step[data-step="4"]');
  assert.equal(await page.$eval('#alg-view', (e) => e.dataset.facelets), await apply({ facelets: here, moves: "U R U' R'" }));
  assert.equal((await call(srv.url, 'GET', `/v1/sessions/${id}`)).body.version, 1, 'the session is untouched');
  assert.deepEqual(page.problems.filter((p) => !/status of 422/.test(p)), []);
  await page.context().close();
});
