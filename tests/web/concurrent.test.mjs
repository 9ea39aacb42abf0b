// concurrent.test.mjs — must show 5: two pages moving at once both end on
// the same state as the API with no move lost, and the 412 path runs:
// page B's live stream is held back while A moves, so B's next move goes
// out against a stale version, is refused with 412, and B recovers by
// refetching and sending the same move again — never dropping it.

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

const FACES = ['r', 'u', 'f', 'd', 'l', 'b', 'Shift+R', 'Shift+U', 'Shift+F', 'Shift+D', 'Shift+L', 'Shift+B'];

test('a stale move (412) is refetched and sent again; two pages typing at once lose nothing', async () => {
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3 })).body;
  const auth = { Authorization: `Bearer ${t}` };
  const tok = (await call(srv.url, 'POST', `/v1/sessions/${id}/tokens`, { role: 'write', name: 'bea' }, auth)).body.token;
  const a = await newPage(browser);
  const b = await newPage(browser, { motion: false }); // A animates, B does not
  // B's stream waits at a gate until A has moved
  let open;
  const gate = new Promise((r) => { open = r; });
  await b.route('**/v1/sessions/*/events*', async (route) => {
    await gate;
    await route.continue();
  });
  await openSession(a, srv.url, id, { t, role: 'owner' });
  await openSession(b, srv.url, id, { t: tok, role: 'play' });
  await keys(a, 'r', 'u');
  await shownState(a, 2);
  // B still believes in version 0: its move is refused, then applied
  await keys(b, 'f');
  const shown = await shownState(b, 3, 5000);
  const api = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  assert.equal(shown, api.facelets);
  const want = (await call(srv.url, 'POST', '/v1/apply', { size: 3, moves: 'R U F' })).body.facelets;
  assert.equal(api.facelets, want, 'B\'s F went on top of A\'s R U');
  const moves = b.statuses.filter((s) => s.method === 'POST' && s.url.endsWith('/moves'));
  assert.deepEqual(moves.map((s) => s.status), [412, 200]);
  open();
  assert.equal(await shownState(a, 3), api.facelets);

  // both at once: 12 moves each, typed as fast as the keyboard goes
  const seqA = FACES.slice();
  const seqB = FACES.slice().reverse();
  await Promise.all([keys(a, ...seqA), keys(b, ...seqB)]);
  const end = 3 + seqA.length + seqB.length;
  const fa = await shownState(a, end, 15000);
  const fb = await shownState(b, end, 15000);
  const fin = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  assert.equal(fin.version, end, 'every move is one version: none lost, none doubled');
  assert.equal(fa, fin.facelets);
  assert.equal(fb, fin.facelets);
  const hist = (await call(srv.url, 'GET', `/v1/sessions/${id}/history?after=3&limit=100`)).body.events;
  const by = (who) => hist.filter((e) => e.actor === who).map((e) => e.moves);
  const spell = (k) => (k.startsWith('Shift+') ? `${k.slice(6)}'` : k.toUpperCase());
  assert.deepEqual(by('owner'), seqA.map(spell));
  assert.deepEqual(by('bea'), seqB.map(spell));
  const stale = [...a.statuses, ...b.statuses].filter((s) => s.status === 412).length;
  assert.ok(stale >= 1);
  for (const p of [a, b]) {
    assert.deepEqual(p.problems.filter((x) => !/ 412 /.test(x) && !/status of 412/.test(x)), []);
    await p.context().close();
  }
});
