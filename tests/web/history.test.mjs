// history.test.mjs — must show 4: the timeline shows version k's state
// (from the slider and from the event list); undo, redo and reset, pressed
// on either page, change what both pages show exactly as the API says; a
// fork ("continue from here") opens a new cube that starts from the
// version shown and leaves the original alone.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, call, shownState, openSession, keys } from './lib/harness.mjs';

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

const state = async (id, v) =>
  (await call(srv.url, 'GET', `/v1/sessions/${id}${v === undefined ? '' : `?version=${v}`}`)).body;

test('time travel, undo, redo, reset and fork on two pages', async () => {
  const created = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, scramble: true, seed: 7 })).body;
  const { id, write_token: t } = created;
  const tok = (await call(srv.url, 'POST', `/v1/sessions/${id}/tokens`, { role: 'write', name: 'bob' },
    { Authorization: `Bearer ${t}` })).body.token;
  // turns without animation: this test is about states (pixels.test.mjs
  // and live.test.mjs watch the animation)
  const a = await newPage(browser, { motion: false });
  const b = await newPage(browser, { motion: false });
  await openSession(a, srv.url, id, { t, role: 'owner' });
  await openSession(b, srv.url, id, { t: tok, role: 'play' });
  await keys(a, 'r', 'u', 'f');
  await shownState(a, 3);
  await shownState(b, 3);

  // the timeline: the slider to version 1
  await a.$eval('#timeline', (e) => { e.value = '1'; e.dispatchEvent(new Event('change')); });
  await a.waitForSelector('#viewport[data-mode="history"][data-version="1"]');
  assert.equal(await a.$eval('#viewport', (e) => e.dataset.facelets), (await state(id, 1)).facelets);
  assert.match(await a.textContent('#banner'), /Version 1 of 3/);
  assert.ok(await a.$eval('#moves', (e) => e.disabled), 'no moves while looking back');
  // the event list: version 2
  await a.click('#events li[data-version="2"]');
  await a.waitForSelector('#viewport[data-mode="history"][data-version="2"]');
  assert.equal(await a.$eval('#viewport', (e) => e.dataset.facelets), (await state(id, 2)).facelets);
  // a move elsewhere while A looks back does not move A's picture
  await keys(b, 'd');
  await shownState(b, 4);
  assert.equal(await a.$eval('#viewport', (e) => e.dataset.version), '2');
  await a.click('#to-live');
  assert.equal(await shownState(a, 4), (await state(id)).facelets);

  // undo on A, redo on B, reset on A: both pages, as the API says
  await a.click('#undo');
  for (const p of [a, b]) assert.equal(await shownState(p, 5), (await state(id)).facelets);
  assert.equal((await state(id)).facelets, (await state(id, 3)).facelets);
  await b.waitForSelector('#redo:not([disabled])');
  await b.click('#redo');
  for (const p of [a, b]) assert.equal(await shownState(p, 6), (await state(id)).facelets);
  assert.equal((await state(id)).facelets, (await state(id, 4)).facelets);
  await a.click('#reset'); // the confirm dialog is accepted
  for (const p of [a, b]) assert.equal(await shownState(p, 7), (await state(id)).facelets);
  assert.equal((await state(id)).facelets, created.facelets);
  await a.waitForSelector('#undo[disabled]');
  const types = await b.$$eval('#events li', (ls) => ls.map((l) => l.dataset.type));
  assert.deepEqual(types, ['reset', 'redo', 'undo', 'moves', 'moves', 'moves', 'moves', 'create']);

  // fork from version 2: a new cube, A's own, starting there
  await a.click('#events li[data-version="2"]');
  await a.waitForSelector('#viewport[data-mode="history"][data-version="2"]');
  await a.click('#fork');
  await a.waitForFunction((old) => !location.hash.includes(old), id);
  await a.waitForSelector('#viewport[data-ready="1"][data-mode="live"]');
  const fid = /#\/s\/([^?]+)/.exec(a.url())[1];
  const forked = await state(fid);
  assert.equal(forked.version, 0);
  assert.equal(forked.facelets, (await state(id, 2)).facelets);
  assert.equal(await shownState(a, 0), forked.facelets);
  assert.equal(await a.textContent('#role'), 'owner');
  await keys(a, 'l');
  await shownState(a, 1);
  assert.equal((await state(id)).version, 7, 'the original is untouched');
  assert.equal(await shownState(b, 7), (await state(id)).facelets);
  for (const p of [a, b]) {
    assert.deepEqual(p.problems, []);
    await p.context().close();
  }
});
