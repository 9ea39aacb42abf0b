// live.test.mjs — must show 2: page A creates a cube in the lobby and
// copies a co-player link; page B opens it in a second, isolated browser
// context; a move typed in A is on B's screen within 1 s, and B shows
// exactly the API's state. Presence counts both pages. When the server
// goes away and comes back, B says so and resumes from where it was, with
// no event lost or shown twice.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, call, shownState, keys } from './lib/harness.mjs';

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

test('a move in A shows in B within 1 s, and B equals the API', async () => {
  const a = await newPage(browser, { permissions: ['clipboard-read', 'clipboard-write'] });
  await a.goto(`${srv.url}/`);
  await a.click('#create-btn');
  await a.waitForSelector('#viewport[data-ready="1"]', { timeout: 10000 });
  await shownState(a, 0);
  await a.click('#share-play');
  await a.waitForSelector('#share-link:not([hidden])');
  const link = await a.inputValue('#share-link');
  assert.match(link, /#\/s\/[A-Za-z0-9_-]+\?t=ct_[A-Za-z0-9_-]{32}&role=play$/);
  assert.equal(await a.evaluate(() => navigator.clipboard.readText()), link);
  const id = /#\/s\/([^?]+)/.exec(link)[1];

  const b = await newPage(browser); // its own context: nothing shared with A
  await b.goto(link);
  await b.waitForSelector('#viewport[data-ready="1"]', { timeout: 10000 });
  await shownState(b, 0);
  assert.equal(await b.textContent('#role'), 'co-player');
  await a.waitForSelector('#presence:has-text("2 watching")');
  await b.waitForSelector('#conn[data-state="live"]');

  for (const [k, v] of [['r', 1], ['Shift+U', 2], ['f', 3]]) {
    const t0 = Date.now();
    await keys(a, k);
    const shown = await shownState(b, v, 1000);
    const ms = Date.now() - t0;
    assert.ok(ms <= 1000, `${k}: ${ms} ms`);
    const api = await call(srv.url, 'GET', `/v1/sessions/${id}`);
    assert.equal(api.body.version, v);
    assert.equal(shown, api.body.facelets);
    assert.equal(await shownState(a, v), api.body.facelets);
  }
  // B wrote the history A made, with A as the actor
  const acts = await b.$$eval('#events li', (ls) => ls.map((l) => l.textContent));
  assert.equal(acts.length, 4);
  assert.match(acts[0], /^F — owner/);
  assert.match(acts[1], /^U' — owner/);
  for (const p of [a, b]) {
    assert.deepEqual(p.problems, []);
    await p.context().close();
  }
});

test('B survives the server going away: it says so, then resumes with nothing lost or doubled', async () => {
  const created = await call(srv.url, 'POST', '/v1/sessions', { size: 3 });
  const { id, write_token: owner } = created.body;
  const b = await newPage(browser);
  await b.goto(`${srv.url}/#/s/${id}`);
  await b.waitForSelector('#viewport[data-ready="1"]', { timeout: 10000 });
  await b.waitForSelector('#conn[data-state="live"]');
  const auth = { Authorization: `Bearer ${owner}` };
  await call(srv.url, 'POST', `/v1/sessions/${id}/moves`, { moves: 'R' }, auth);
  await shownState(b, 1);

  // the same server, database and port, after a stop
  const port = srv.port;
  const dir = srv.dir;
  await srv.stop({ keep: true });
  await b.waitForSelector('#conn:not([data-state="live"])', { timeout: 5000 });
  srv = await startServer(['--port', String(port)], { dir });
  await call(srv.url, 'POST', `/v1/sessions/${id}/moves`, { moves: 'U' }, auth);
  await call(srv.url, 'POST', `/v1/sessions/${id}/moves`, { moves: "F'" }, auth);
  const shown = await shownState(b, 3, 20000);
  const api = await call(srv.url, 'GET', `/v1/sessions/${id}`);
  assert.equal(shown, api.body.facelets);
  await b.waitForSelector('#conn[data-state="live"]');
  const versions = await b.$$eval('#events li', (ls) => ls.map((l) => Number(l.dataset.version)));
  assert.deepEqual(versions, [3, 2, 1, 0]);
  // nothing failed but the requests the outage cut or refused
  assert.deepEqual(b.problems.filter((p) => !/\/events|ERR_CONNECTION_(RESET|REFUSED)/.test(p)), []);
  await b.context().close();
});
