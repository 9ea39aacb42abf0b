// harness.mjs — what every browser test needs: a cubed server of its own
// (build/cubed on a free 127.0.0.1 port with a database in a temporary
// directory, stopped by its pid), Debian's headless Chromium through
// playwright-core with a fresh profile, pages that record every console
// error and failed request, the API from node, and waiting for a state
// with a deadline (never a sleep).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

export const ROOT = resolve(new URL('../../..', import.meta.url).pathname);
const BIN = resolve(ROOT, process.env.CUBED_BIN || 'build/cubed');
const WEB = resolve(ROOT, process.env.CUBED_WEB_ROOT || 'build/web');
const CHROMIUM = process.env.CUBED_CHROMIUM || '/usr/bin/chromium';

// Start a server; extra: more command-line options. Resolves when it
// listens (10 s at most).
// opts.dir: reuse a database directory (one a stop({keep: true}) left).
export async function startServer(extra = [], opts = {}) {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run make first`);
  const dir = opts.dir || mkdtempSync(join(tmpdir(), 'cubed-web-'));
  // no big-cube tables made at start that a test did not ask for
  // and a stop at once: no drain (--drain-s, 5 s by default) before it
  const args = ['--port', '0', '--bind', '127.0.0.1', '--db', join(dir, 'cubed.db'), '--quiet',
    '--solver-warm', '0', '--drain-s', '0'];
  if (!extra.includes('--web-root')) args.push('--web-root', WEB);
  if (existsSync(join(ROOT, 'openapi.yaml'))) args.push('--openapi', join(ROOT, 'openapi.yaml'));
  if (process.env.CUBED_TABLES) args.push('--tables', resolve(ROOT, process.env.CUBED_TABLES));
  else args.push('--solver', '0');
  args.push(...extra);
  // options only from the command line: CUBED_* of the runner stay out
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CUBED_')));
  const child = spawn(BIN, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT, env });
  let log = '';
  const port = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`cubed did not listen within 10 s:\n${log}`)), 10000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      log += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        res(Number(m[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`cubed exited (${code}) before listening:\n${log}`));
    });
  });
  const exited = new Promise((r) => child.on('exit', (code, sig) => r({ code, sig })));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    dir,
    log: () => log,
    // SIGTERM by pid (SIGKILL after 10 s); the directory goes unless
    // kept. A server that does not stop cleanly with status 0 (a crash, a
    // sanitizer's report, a leak at exit) fails the test that stops it.
    async stop({ keep = false } = {}) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10000);
      const r = await exited;
      clearTimeout(t);
      if (!keep) rmSync(dir, { recursive: true, force: true });
      if (r.code !== 0) throw new Error(`cubed stopped with ${r.code ?? r.sig}:\n${log.slice(-4000)}`);
      return r;
    },
  };
}

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-dev-shm-usage',
];

// webgl: false starts Chromium with WebGL (and every 3D API) off.
export async function launch({ webgl = true } = {}) {
  const args = [...CHROMIUM_ARGS];
  if (webgl) args.push('--use-angle=swiftshader', '--enable-unsafe-swiftshader');
  else args.push('--disable-webgl', '--disable-3d-apis');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (or set CUBED_CHROMIUM)`);
  // playwright-core's launch uses a fresh temporary profile every time
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args, timeout: 30000 });
}

// A page in a new, isolated context (its own storage and cookies) that
// records console errors, uncaught exceptions and failed requests.
// motion: false asks for reduced motion (turns shown without animation),
// for tests about state rather than animation. touch: a phone (touch
// input, a mobile viewport).
export async function newPage(browser, { width = 1280, height = 800, permissions = [], motion = true, touch = false } = {}) {
  const context = await browser.newContext({
    viewport: { width, height }, deviceScaleFactor: 1, reducedMotion: motion ? 'no-preference' : 'reduce',
    hasTouch: touch, isMobile: touch,
  });
  if (permissions.length) await context.grantPermissions(permissions);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  page.on('requestfailed', (r) => {
    // an event stream closed because the page moved on is not a failure
    if (r.url().includes('/events') && /ERR_ABORTED/.test(r.failure()?.errorText || '')) return;
    problems.push(`failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('dialog', (d) => d.accept());
  page.problems = problems;
  page.statuses = [];
  page.on('response', (r) => page.statuses.push({ url: r.url(), status: r.status(), method: r.request().method() }));
  return page;
}

// The JSON API from node.
export async function call(base, method, path, body, headers = {}) {
  const h = { ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const res = await fetch(base + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  return { status: res.status, body: json, headers: res.headers, text };
}

// Wait until the viewport says it shows version v with nothing pending;
// returns the facelets it shows.
export async function shownState(page, v, timeout = 5000) {
  await page.waitForSelector(`#viewport[data-version="${v}"][data-pending="0"][data-mode="live"]`, { timeout });
  return page.$eval('#viewport', (e) => e.dataset.facelets);
}

// Wait until the server's 3×3 solver tables are ready (they load in the
// background at start-up): polling the server's state, with a deadline.
export async function solverReady(base, timeout = 60000) {
  const until = Date.now() + timeout;
  for (;;) {
    const r = await call(base, 'GET', '/readyz');
    if (r.body && r.body.solver && r.body.solver['3x3'].tables === 'ready') return;
    if (Date.now() > until) throw new Error(`solver tables not ready: ${r.text}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

export async function openSession(page, base, id, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, x]) => x)).toString();
  await page.goto(`${base}/#/s/${id}${q ? `?${q}` : ''}`);
  await page.waitForSelector('#viewport[data-ready="1"]', { timeout: 10000 });
}

// Press keys on the page (outside any input).
export async function keys(page, ...ks) {
  for (const k of ks) await page.keyboard.press(k);
}

// The letters a flat net canvas shows: the colour at each sticker's
// centre (its layout is the canvas's data-layout), named by the nearest
// colour of the scheme (web/src/colors.js).
export async function netFacelets(page, sel = '#bignet') {
  return page.$eval(sel, (canvas) => {
    const L = JSON.parse(canvas.dataset.layout);
    const scheme = { U: [255, 255, 255], R: [208, 2, 27], F: [31, 163, 58], D: [255, 213, 0], L: [255, 122, 0], B: [22, 96, 216] };
    const slot = { U: [1, 0], L: [0, 1], F: [1, 1], R: [2, 1], B: [3, 1], D: [1, 2] };
    const dpr = canvas.width / canvas.clientWidth;
    const ctx = canvas.getContext('2d');
    let out = '';
    for (const f of 'URFDLB') {
      const [fx, fy] = slot[f];
      for (let r = 0; r < L.n; r++)
        for (let c = 0; c < L.n; c++) {
          const x = ((L.ox || 0) + fx * (L.face + L.gap) + (c + 0.5) * L.s) * dpr;
          const y = ((L.oy || 0) + fy * (L.face + L.gap) + (r + 0.5) * L.s) * dpr;
          const px = ctx.getImageData(Math.floor(x), Math.floor(y), 1, 1).data;
          let best = '?';
          let bd = Infinity;
          for (const [k, v] of Object.entries(scheme)) {
            const d = (v[0] - px[0]) ** 2 + (v[1] - px[1]) ** 2 + (v[2] - px[2]) ** 2;
            if (d < bd) { bd = d; best = k; }
          }
          out += best;
        }
    }
    return out;
  });
}

// axe-core (pinned in tests/web) run on the page as it is; returns the
// violations of impact serious or critical, as "rule: target" lines.
// Injected through the DevTools protocol, so the page's CSP stays on.
let axeSource = null;
export async function axeViolations(page) {
  if (!axeSource) {
    const { readFileSync } = await import('node:fs');
    axeSource = readFileSync(new URL('../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
  }
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(axeSource);
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return res.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.slice(0, 4).join(', ')}`);
}

// A one-finger swipe from (x0, y0) to (x1, y1) in CSS pixels as real touch
// input (the DevTools protocol), so the browser scrolls or not exactly as
// it would for a finger.
export async function swipe(page, x0, y0, x1, y1, steps = 8) {
  const cdp = await page.context().newCDPSession(page);
  const pt = (x, y) => [{ x, y, id: 1, radiusX: 4, radiusY: 4, force: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: pt(x0, y0) });
  for (let i = 1; i <= steps; i++)
    await cdp.send('Input.dispatchTouchEvent', {
      type: 'touchMove', touchPoints: pt(x0 + ((x1 - x0) * i) / steps, y0 + ((y1 - y0) * i) / steps),
    });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}
