// race.test.mjs — a three-player race from the lobby to the replay, in
// three browser contexts: the host makes the race and takes a seat, two
// friends open its link and take theirs, the host starts it; after the
// countdown each page opens its player's own cube with the race's
// scramble on it and a timed solve started; each solves it; the room's
// results table is the API's (places by time), and the replay plays every
// solve from the players' histories to the solved cube. axe-core finds no
// serious or critical violation on the race page. A race screenshot goes
// to $CUBED_RACE_SCREENSHOT (make screenshot: docs/race.png).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { startServer, launch, newPage, call, shownState, axeViolations, ROOT } from './lib/harness.mjs';

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

const SOLVED = 'UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB';

test('three players race: countdown, each solves their own cube, results, replay', async () => {
  const host = await newPage(browser, { motion: false, permissions: ['clipboard-read', 'clipboard-write'] });
  await host.goto(`${srv.url}/`);
  await host.fill('#race-title-in', 'Friday race');
  await host.click('#race-create-btn');
  await host.waitForSelector('#racepage[data-status="open"]');
  assert.match(host.url(), /#\/race\/[A-Za-z0-9_-]{22}$/, 'the address carries no secret');
  const rid = /#\/race\/(.+)$/.exec(host.url())[1];
  await host.fill('#race-name', 'ann');
  await host.click('#race-join button[type="submit"]');
  await host.waitForSelector('#racepage[data-players="1"]');
  await host.click('#race-copy');
  await host.waitForSelector('#race-link:not([hidden])');
  const link = await host.inputValue('#race-link');

  const friends = [];
  for (const name of ['bob', 'cy']) {
    const p = await newPage(browser, { motion: false });
    await p.goto(link);
    await p.waitForSelector('#race-join:not([hidden])');
    assert.ok(await p.isHidden('#race-start'), 'only the host starts');
    await p.fill('#race-name', name);
    await p.click('#race-join button[type="submit"]');
    await p.waitForSelector('#race-join', { state: 'hidden' });
    friends.push(p);
  }
  await host.waitForSelector('#racepage[data-players="3"]');
  assert.deepEqual(await axeViolations(host), [], 'race page');
  await host.click('#race-start');

  // the countdown, then each page is on its own cube, scrambled, inspecting
  const pages = [host, ...friends];
  let scramble = null;
  for (const p of pages) {
    await p.waitForSelector('#timer-display[data-state="inspecting"]', { timeout: 15000 });
    await shownState(p, 1);
    const s = await p.textContent('#scramble-text');
    scramble = scramble || s;
    assert.equal(s, scramble, 'one scramble for everyone');
    assert.ok(await p.isVisible('#race-strip'));
  }
  const race = (await call(srv.url, 'GET', `/v1/races/${rid}`)).body;
  assert.equal(race.scramble, scramble);
  const inverse = (await call(srv.url, 'POST', '/v1/alg', { size: 3, moves: scramble })).body.inverse;
  // each solves: ann at once, bob with a detour, cy last
  const plans = [inverse, `U U' ${inverse}`, `R R' ${inverse}`];
  for (let i = 0; i < 3; i++) {
    await pages[i].fill('#moves', plans[i]);
    await pages[i].press('#moves', 'Enter');
    assert.equal(await shownState(pages[i], 2), SOLVED);
    await pages[i].waitForSelector('#timer-display[data-state="done"]');
  }

  // back in the room: the results, as the API has them
  await host.click('#race-back');
  await host.waitForSelector('#racepage[data-status="finished"]', { timeout: 10000 });
  const api = (await call(srv.url, 'GET', `/v1/races/${rid}`)).body;
  assert.equal(api.status, 'finished');
  const rows = await host.$$eval('#race-results tr', (trs) => trs.map((t) => ({
    place: t.children[0].textContent, name: t.children[1].textContent, moves: t.children[3].textContent,
  })));
  assert.equal(rows.length, 3);
  const want = api.players.slice().sort((a, b) => a.place - b.place || a.seat - b.seat)
    .map((p) => ({ place: String(p.place), name: p.name, moves: String(p.result.moves.htm) }));
  assert.deepEqual(rows, want);
  const bob = api.players.find((p) => p.name === 'bob').result.moves.htm;
  const ann = api.players.find((p) => p.name === 'ann').result.moves.htm;
  assert.equal(bob, ann + 2);
  // everyone's progress line reached "solved"
  await host.waitForFunction(() => [...document.querySelectorAll('#race-players li')].every((l) => l.dataset.stage === 'solved'));

  // the replay: every solve again, to the solved cube
  await host.click('#race-replay-btn');
  await host.waitForSelector('#race-replay[data-done="3"]', { timeout: 20000 });
  const ends = await host.$$eval('#race-replay canvas', (cs) => cs.map((c) => c.dataset.facelets));
  assert.deepEqual(ends, [SOLVED, SOLVED, SOLVED]);
  const shot = process.env.CUBED_RACE_SCREENSHOT ? resolve(ROOT, process.env.CUBED_RACE_SCREENSHOT) : join(ROOT, 'build', 'web-test', 'race.png');
  mkdirSync(dirname(shot), { recursive: true });
  await host.screenshot({ path: shot });
  for (const p of pages) {
    assert.deepEqual(p.problems, []);
    await p.context().close();
  }
});
