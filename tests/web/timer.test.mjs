// timer.test.mjs — a timed solve on the play page: "Timed solve" on a
// solved cube scrambles it (a scramble the page shows as text) and starts
// the 15 s inspection; the clock starts on the first turn and stops on the
// move that solves the cube, with "solved!", the time and the moves, whose
// HTM is the API's count of the moves made. The server keeps it: the Times
// panel shows the server's list and each player's best, mean, ao5 and ao12
// exactly as GET …/timed says, after a reload too; a solve running when
// the page reloads goes on running and is recorded when it ends; another
// device watching follows the clock live (the stream's timed event). The
// turn speed is kept across a reload.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, call, shownState, openSession, keys, solverReady } from './lib/harness.mjs';

// "1:02.34", "9.87", as the page shows a time (web/src/timer.js)
const fmt = (ms) => {
  if (ms === null) return '–';
  if (ms === 'DNF') return 'DNF';
  const cs = Math.floor(ms / 10);
  const sec = Math.floor(cs / 100);
  const m = Math.floor(sec / 60);
  const frac = String(cs % 100).padStart(2, '0');
  return m ? `${m}:${String(sec % 60).padStart(2, '0')}.${frac}` : `${sec}.${frac}`;
};

// The Times panel's statistics are the API's, player by player.
async function statsMatch(page, id) {
  const api = (await call(srv.url, 'GET', `/v1/sessions/${id}/timed`)).body;
  for (const [who, st] of Object.entries(api.players))
    for (const k of ['best', 'mean', 'ao5', 'ao12'])
      assert.equal(await page.textContent(`#time-stats tr[data-player="${who}"] td[data-stat="${k}"]`), fmt(st[k]), `${who} ${k}`);
  return api;
}

let srv;
let browser;
before(async () => {
  srv = await startServer();
  browser = await launch();
  await solverReady(srv.url); // a 3×3 scramble is random-state: the solver's tables
});
after(async () => {
  await browser.close();
  await srv.stop();
});

test('a timed solve: scramble, inspection, first turn, solved! with time and moves', async () => {
  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3 })).body;
  const page = await newPage(browser, { motion: false });
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await shownState(page, 0);
  // a second device watching: it follows the clock live
  const watcher = await newPage(browser, { motion: false });
  await openSession(watcher, srv.url, id, {});
  await watcher.waitForSelector('#conn[data-state="live"]');
  await page.click('#timer-start');
  await page.waitForSelector('#timer-display[data-state="inspecting"]');
  await watcher.waitForSelector('#timer-display[data-state="inspecting"]');
  const scrambled = await shownState(page, 1);
  const scramble = await page.textContent('#scramble-text');
  const ev = (await call(srv.url, 'GET', `/v1/sessions/${id}/history?after=0`)).body.events[0];
  assert.equal(ev.moves, scramble, 'the scramble shown is the one applied');
  assert.equal((await call(srv.url, 'POST', '/v1/apply', { size: 3, moves: scramble })).body.facelets, scrambled);
  assert.match(await page.textContent('#timer-display'), /^1[45]$/, 'inspection counts down from 15');

  // the first turn starts the clock
  await keys(page, 'r');
  await page.waitForSelector('#timer-display[data-state="running"]');
  await shownState(page, 2);
  // the rest, typed: R' then the scramble undone
  const inverse = (await call(srv.url, 'POST', '/v1/alg', { size: 3, moves: scramble })).body.inverse;
  await page.fill('#moves', `R' ${inverse}`);
  await page.press('#moves', 'Enter');
  await shownState(page, 3);
  await page.waitForSelector('#timer-display[data-state="done"]');
  await page.waitForSelector('#solved-flash:not([hidden])');
  await watcher.waitForSelector('#timer-display[data-state="done"]');
  await watcher.waitForSelector('#times[data-count="1"] li[data-status="solved"]');
  assert.deepEqual(watcher.problems, []);
  await watcher.context().close();
  assert.match(await page.textContent('#solved-flash'), /solved!/);
  const htm = 1 + (await call(srv.url, 'POST', '/v1/alg', { size: 3, moves: `R' ${inverse}` })).body.htm;
  assert.equal(await page.$eval('#solved-flash', (e) => e.dataset.htm), String(htm));
  assert.match(await page.textContent('#timer-moves'), new RegExp(`^${htm} HTM · \\d+ QTM · \\d+ STM$`));
  const ms = Number(await page.$eval('#solved-flash', (e) => e.dataset.ms));
  assert.ok(ms > 0 && ms < 60000, `a time: ${ms}`);
  // the server's record: who, the scramble, the moves, the time
  await page.waitForSelector('#times[data-count="1"] li[data-status="solved"]');
  let api = await statsMatch(page, id);
  const rec = api.timed_solves[0];
  assert.equal(rec.status, 'solved');
  assert.equal(rec.actor, 'owner');
  assert.equal(rec.scramble, scramble);
  assert.equal(rec.version, 1);
  assert.equal(rec.end_version, 3);
  assert.equal(rec.moves.htm, htm);
  assert.equal(api.players.owner.best, rec.ms);
  assert.match(await page.textContent('#times li[data-status="solved"] .time'), /^\d+\.\d\d$/);

  // a second solve, running when the page reloads: it goes on, and the
  // server records it when it ends
  await page.click('#timer-start');
  await page.waitForSelector('#timer-display[data-state="inspecting"]');
  await shownState(page, 4);
  const scramble2 = await page.textContent('#scramble-text');
  await page.waitForFunction(() => document.querySelector('#times').dataset.count === '2');
  await keys(page, 'u');
  await shownState(page, 5);
  await page.reload();
  await page.waitForSelector('#viewport[data-ready="1"]');
  await page.waitForSelector('#timer-display[data-state="running"]');
  assert.equal(await page.textContent('#scramble-text'), scramble2);
  const inverse2 = (await call(srv.url, 'POST', '/v1/alg', { size: 3, moves: scramble2 })).body.inverse;
  await page.fill('#moves', `U' ${inverse2}`);
  await page.press('#moves', 'Enter');
  await page.waitForSelector('#timer-display[data-state="done"]');
  await page.waitForSelector('#times[data-count="2"] li[data-id="2"][data-status="solved"]');
  api = await statsMatch(page, id);
  assert.equal(api.timed_solves[1].status, 'solved');
  assert.equal(api.players.owner.count, 2);
  assert.equal(api.players.owner.mean, Math.round((api.timed_solves[0].ms + api.timed_solves[1].ms) / 2));

  // the turn speed is the player's: kept across a reload
  await page.selectOption('#speed', '70');
  await page.reload();
  await page.waitForSelector('#viewport[data-ready="1"]');
  assert.equal(await page.inputValue('#speed'), '70');
  // after the reload, the list and the averages are still the server's
  await page.waitForSelector('#times[data-count="2"]');
  await statsMatch(page, id);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
