// share.test.mjs — the owner's Share panel manages the cube: the invited
// co-player is listed and revoked from the page (their next move is
// refused, and their page says so and turns watch-only), and the cube is
// deleted from the page (the owner is back in the lobby, the co-player
// sees it go, the API has no such session).

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

test('revoke an invite and delete the cube from the page', async () => {
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3, title: 'Shared' })).body;
  const owner = await newPage(browser, { motion: false });
  await openSession(owner, srv.url, id, { t, role: 'owner' });
  await owner.waitForSelector('#invites li.muted');
  await owner.click('#share-play');
  await owner.waitForSelector('#share-link[data-role="play"]:not([hidden])');
  const link = await owner.inputValue('#share-link');
  await owner.waitForSelector('#invites li[data-tid]');
  const name = await owner.$eval('#invites li[data-tid]', (e) => e.dataset.name);

  const b = await newPage(browser, { motion: false });
  await b.goto(link);
  await b.waitForSelector('#viewport[data-ready="1"][data-role="play"]');
  await keys(b, 'r');
  await shownState(b, 1);
  const ev = (await call(srv.url, 'GET', `/v1/sessions/${id}/history?after=0`)).body.events[0];
  assert.equal(ev.actor, name);

  // revoke: the invite leaves the list, the token stops working
  await owner.click(`#invites button[data-name="${name}"]`);
  await owner.waitForSelector('#invites li.muted');
  const list = (await call(srv.url, 'GET', `/v1/sessions/${id}/tokens`, undefined, { Authorization: `Bearer ${t}` })).body.tokens;
  assert.ok(list.find((x) => x.name === name).revoked_at);
  await keys(b, 'u');
  await b.waitForSelector('#write-error:not([hidden])');
  assert.match(await b.textContent('#write-error'), /revoked/);
  await b.waitForSelector('#viewport[data-role="watch"]');
  assert.equal(await shownState(b, 1), (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body.facelets);

  // delete: the owner is back in the lobby, the watcher sees it go
  await owner.click('#delete-cube');
  await owner.waitForSelector('#lobby:not([hidden])');
  assert.equal((await call(srv.url, 'GET', `/v1/sessions/${id}`)).status, 404);
  assert.doesNotMatch(await owner.textContent('#recent'), /Shared/);
  await b.waitForFunction(() => /deleted/.test(document.querySelector('#banner').textContent));
  for (const p of [owner, b]) {
    assert.deepEqual(p.problems.filter((x) => !/status of 403/.test(x)), []);
    await p.context().close();
  }
});
