// access.test.mjs — must show 6: a watch-only link (from the owner's Share
// panel) shows the cube live but cannot move it: its controls are
// disabled, keys and drags send nothing, and the server refuses its token
// anyway. A private cube cannot be opened without a token; the owner's
// co-player link works, and its live stream carries a read token, never
// the write token, in its URL. The owner's Share panel manages the cube:
// the invited co-player is listed and revoked from the page (their next
// move is refused, their page says so and turns watch-only), and the cube
// is deleted from the page (the owner is back in the lobby, the
// co-player sees it go, the API has no such session).

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

test('a watch-only page cannot move the cube', async () => {
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3 })).body;
  const owner = await newPage(browser, { motion: false });
  await openSession(owner, srv.url, id, { t, role: 'owner' });
  await owner.click('#share-watch');
  await owner.waitForSelector('#share-link[data-role="watch"]:not([hidden])');
  const link = await owner.inputValue('#share-link');
  assert.match(link, /\?t=ct_[A-Za-z0-9_-]{32}&role=watch$/);
  const readToken = new URL(link.replace('#', '')).searchParams.get('t');

  const w = await newPage(browser, { motion: false });
  await w.goto(link);
  await w.waitForSelector('#viewport[data-ready="1"]');
  await shownState(w, 0);
  assert.equal(await w.textContent('#role'), 'watch-only');
  assert.match(await w.textContent('#banner'), /Watch-only/);
  for (const sel of ['#undo', '#redo', '#reset', '#moves', '#apply'])
    assert.ok(await w.$eval(sel, (e) => e.disabled), `${sel} is disabled`);
  // keys and a drag across the front face send nothing
  await keys(w, 'r', 'u', 'Shift+F', 'Control+z');
  const box = await w.$eval('canvas.cube3d', (c) => { const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
  await w.mouse.move(box[0] + box[2] * 0.42, box[1] + box[3] * 0.55);
  await w.mouse.down();
  await w.mouse.move(box[0] + box[2] * 0.42, box[1] + box[3] * 0.30, { steps: 5 });
  await w.mouse.up();
  // the owner's move still shows live on the watcher
  await keys(owner, 'l');
  const shown = await shownState(w, 1);
  const api = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  assert.equal(api.version, 1);
  assert.equal(shown, api.facelets);
  // no write (a stream ticket, how the page checks its token, writes nothing)
  assert.deepEqual(w.statuses.filter((s) => s.method === 'POST' && s.url.includes('/v1/sessions/') && !s.url.endsWith('/tickets')), []);
  // and the server refuses the token: the page's controls are not the only guard
  const r = await call(srv.url, 'POST', `/v1/sessions/${id}/moves`, { moves: 'R' }, { Authorization: `Bearer ${readToken}` });
  assert.equal(r.status, 403);
  assert.equal(r.body.code, 'read_only_token');
  // a co-player link's role claim cannot lift that: the page learns from the 403
  const lie = await newPage(browser, { motion: false });
  await openSession(lie, srv.url, id, { t: readToken, role: 'play' });
  await keys(lie, 'r');
  await lie.waitForSelector('#write-error:not([hidden])');
  assert.match(await lie.textContent('#write-error'), /can watch but not move/);
  assert.equal(await lie.textContent('#role'), 'watch-only');
  assert.equal(await shownState(lie, 1), api.facelets, 'the optimistic turn was taken back');
  assert.equal((await call(srv.url, 'GET', `/v1/sessions/${id}`)).body.version, 1);
  for (const p of [owner, w]) assert.deepEqual(p.problems, []);
  for (const p of [owner, w, lie]) await p.context().close();
});

test('a private cube needs its token; its stream carries a read token only', async () => {
  const created = (await call(srv.url, 'POST', '/v1/sessions', { size: 2, visibility: 'private' })).body;
  const { id, write_token: t, read_token: rt } = created;
  const stranger = await newPage(browser, { motion: false });
  await stranger.goto(`${srv.url}/#/s/${id}`);
  await stranger.waitForSelector('#load-error');
  assert.match(await stranger.textContent('#load-error'), /no such cube.*private/i);
  assert.equal(await stranger.$eval('#viewport', (e) => e.dataset.error), 'no_such_session');
  assert.equal(await stranger.$$eval('canvas.cube3d', (c) => c.length), 0);
  await stranger.context().close();

  const owner = await newPage(browser, { motion: false });
  await openSession(owner, srv.url, id, { t, rt, role: 'owner' });
  await owner.click('#share-play');
  await owner.waitForSelector('#share-link[data-role="play"]:not([hidden])');
  const link = await owner.inputValue('#share-link');
  const q = new URL(link.replace('#', '')).searchParams;
  const b = await newPage(browser, { motion: false });
  await b.goto(link);
  await b.waitForSelector('#viewport[data-ready="1"]');
  await b.waitForSelector('#conn[data-state="live"]');
  await keys(owner, 'r');
  // the owner's write acknowledged (its page settles at version 1) before
  // the API is asked: a GET sent right after the key press may overtake it
  await shownState(owner, 1);
  const api = (await call(srv.url, 'GET', `/v1/sessions/${id}`, undefined, { Authorization: `Bearer ${t}` })).body;
  assert.equal(api.version, 1);
  assert.equal(await shownState(b, 1), api.facelets);
  for (const [p, write] of [[owner, t], [b, q.get('t')]]) {
    const streams = p.statuses.filter((s) => s.url.includes('/events'));
    assert.ok(streams.length >= 1);
    for (const s of streams) {
      const tok = new URL(s.url).searchParams.get('token');
      assert.ok(tok, 'a private stream needs a token');
      assert.notEqual(tok, write, 'never a write token in a URL');
      assert.notEqual(tok, t);
    }
    for (const s of p.statuses.filter((x) => !x.url.includes('/events'))) assert.doesNotMatch(s.url, /ct_/);
    assert.deepEqual(p.problems, []);
    await p.context().close();
  }
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
