// timer.test.mjs — a timed solve on the play page: "Timed solve" on a
// solved cube scrambles it (a scramble the page shows as text) and starts
// the 15 s inspection; the clock starts on the first turn and stops on the
// move that solves the cube, with "solved!", the time and the moves, whose
// HTM is the API's count of the moves made; the Times panel lists it. The
// turn speed is kept across a reload.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, newPage, call, shownState, openSession, keys, solverReady } from './lib/harness.mjs';

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
  await page.click('#timer-start');
  await page.waitForSelector('#timer-display[data-state="inspecting"]');
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
  assert.match(await page.textContent('#solved-flash'), /solved!/);
  const htm = 1 + (await call(srv.url, 'POST', '/v1/alg', { size: 3, moves: `R' ${inverse}` })).body.htm;
  assert.equal(await page.$eval('#solved-flash', (e) => e.dataset.htm), String(htm));
  assert.match(await page.textContent('#timer-moves'), new RegExp(`^${htm} HTM · \\d+ QTM · \\d+ STM$`));
  const ms = Number(await page.$eval('#solved-flash', (e) => e.dataset.ms));
  assert.ok(ms > 0 && ms < 60000, `a time: ${ms}`);
  assert.equal(await page.$$eval('#times li', (l) => l.length), 1);
  assert.match(await page.textContent('#time-stats [data-stat="best"] dd'), /^\d+\.\d\d$/);

  // the turn speed is the player's: kept across a reload
  await page.selectOption('#speed', '70');
  await page.reload();
  await page.waitForSelector('#viewport[data-ready="1"]');
  assert.equal(await page.inputValue('#speed'), '70');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
