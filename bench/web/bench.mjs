// bench.mjs — the web page's figures (make bench-web), each printed as a
// "name: value unit" line beside a reference from the same run:
//
//   web.first_render.<n>.ms   navigation start → the first frame showing
//                             the cube (the page's 'cubed:first-render'
//                             mark), median of LOADS fresh contexts;
//   api.session_render.<n>.ms the API call the page makes for it (GET the
//                             session with render data), from node;
//   web.move_visible.p50/p99  A's keydown → B's first frame of that move
//                             (B's 'cubed:v<V>:start' mark), over MOVES
//                             moves, one at a time;
//   web.move_settled.p50/p99  the same to the end of B's animation;
//   api.move_roundtrip.p50/p99 the same moves' POST …/moves as A's page
//                             timed it (Resource Timing: request start →
//                             response end).
//
// Both pages run in one Chromium (software WebGL), so their clocks are one
// (performance.timeOrigin + a mark's time). Environment: CUBED_BIN,
// CUBED_WEB_ROOT, CUBED_TABLES as for the tests; MOVES (100), LOADS (7).

import { startServer, launch, newPage, call, shownState, openSession } from '../../tests/web/lib/harness.mjs';

const MOVES = Number(process.env.MOVES || 100);
const LOADS = Number(process.env.LOADS || 7);
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const median = (xs) => q(xs, 0.5);
const out = (name, v, unit) => console.log(`${name}: ${v.toFixed(1)} ${unit}`);

const srv = await startServer(['--rate-limit', '0']);
const browser = await launch();
try {
  for (const n of [3, 17]) {
    const { id } = (await call(srv.url, 'POST', '/v1/sessions', { size: n, scramble: true, seed: 1 })).body;
    const loads = [];
    const apis = [];
    for (let i = 0; i < LOADS; i++) {
      const t0 = performance.now();
      await call(srv.url, 'GET', `/v1/sessions/${id}?include=render`);
      apis.push(performance.now() - t0);
      const page = await newPage(browser);
      await openSession(page, srv.url, id);
      loads.push(await page.evaluate(() => performance.getEntriesByName('cubed:first-render')[0].startTime));
      await page.context().close();
    }
    out(`web.first_render.${n}.ms`, median(loads), 'ms');
    out(`api.session_render.${n}.ms`, median(apis), 'ms');
  }

  const { id, write_token: t } = (await call(srv.url, 'POST', '/v1/sessions', { size: 3 })).body;
  const tok = (await call(srv.url, 'POST', `/v1/sessions/${id}/tokens`, { role: 'write' }, { Authorization: `Bearer ${t}` })).body.token;
  const a = await newPage(browser);
  const b = await newPage(browser);
  await openSession(a, srv.url, id, { t, role: 'owner' });
  await openSession(b, srv.url, id, { t: tok, role: 'play' });
  await b.waitForSelector('#conn[data-state="live"]');
  // the bench's own probe: when A's page saw each key (not part of the page)
  await a.evaluate(() => {
    performance.setResourceTimingBufferSize(100000);
    performance.clearResourceTimings();
    window.__keys = [];
    window.addEventListener('keydown', (e) => {
      if (e.key !== 'Shift') window.__keys.push(performance.timeOrigin + e.timeStamp);
    }, { capture: true });
  });
  const keys = ['r', 'u', 'f', 'Shift+R', 'Shift+U', 'Shift+F', 'l', 'd', 'b'];
  for (let i = 0; i < MOVES; i++) {
    await a.keyboard.press(keys[i % keys.length]);
    await shownState(b, i + 1, 10000);
  }
  const down = await a.evaluate(() => window.__keys);
  const marks = await b.evaluate(() => performance.getEntriesByType('mark')
    .filter((m) => /^cubed:v\d+:(start|end)$/.test(m.name))
    .map((m) => [m.name, performance.timeOrigin + m.startTime]));
  // the first mark of each version (a version is marked once, unless a
  // refetch showed it again)
  const at = {};
  for (const [name, t] of marks) if (!(name in at)) at[name] = t;
  const visible = [];
  const settled = [];
  for (let v = 1; v <= MOVES; v++) {
    visible.push(at[`cubed:v${v}:start`] - down[v - 1]);
    settled.push(at[`cubed:v${v}:end`] - down[v - 1]);
  }
  const rtt = await a.evaluate(() => performance.getEntriesByType('resource')
    .filter((r) => r.name.endsWith('/moves'))
    .map((r) => r.responseEnd - r.requestStart));
  if (rtt.length !== MOVES) throw new Error(`A made ${rtt.length} writes for ${MOVES} moves`);
  out('web.move_visible.p50', median(visible), 'ms');
  out('web.move_visible.p99', q(visible, 0.99), 'ms');
  out('web.move_settled.p50', median(settled), 'ms');
  out('web.move_settled.p99', q(settled, 0.99), 'ms');
  out('api.move_roundtrip.p50', median(rtt), 'ms');
  out('api.move_roundtrip.p99', q(rtt, 0.99), 'ms');
  const api = (await call(srv.url, 'GET', `/v1/sessions/${id}`)).body;
  if (api.version !== MOVES || (await shownState(b, MOVES)) !== api.facelets) throw new Error('B does not show the API\'s state');
} finally {
  await browser.close();
  await srv.stop();
}
