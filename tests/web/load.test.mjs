// load.test.mjs — must show 1: the page loads with no console errors and
// no failed requests, in the lobby and in a session, under its strict
// Content-Security-Policy; and how the server serves it: content types,
// strong ETags answered 304, Cache-Control, gzip, no inline script, a
// clear 404 for a page that was not built. Also the notation box: the
// server's error shown at its offset, the state unchanged.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startServer, launch, newPage, call, shownState, openSession, ROOT } from './lib/harness.mjs';

// the servers started here by hand see no CUBED_* settings of the runner's
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CUBED_')));

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

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

test('the page and its assets: types, ETag/304, Cache-Control, CSP, gzip', async () => {
  const page = await fetch(`${srv.url}/`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(page.headers.get('content-security-policy'), CSP);
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  const etag = page.headers.get('etag');
  assert.match(etag, /^"[0-9a-f]{32}(-gzip|-br)?"$/);
  const html = await page.text();
  // every script is a file of the server's: no inline code at all
  const scripts = html.match(/<script\b[^>]*>/g);
  assert.ok(scripts.length >= 1);
  for (const s of scripts) assert.match(s, /src="\/assets\/main-[A-Z0-9]{8}\.js"/);
  assert.doesNotMatch(html, /<script\b[^>]*>[^<\s]/);
  assert.doesNotMatch(html, /\son[a-z]+=|style="/);

  const again = await fetch(`${srv.url}/`, { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), etag);
  assert.equal(await again.text(), '');
  const weak = await fetch(`${srv.url}/`, { headers: { 'If-None-Match': `"nope", W/${etag}` } });
  assert.equal(weak.status, 304);
  const other = await fetch(`${srv.url}/`, { headers: { 'If-None-Match': '"0000"' } });
  assert.equal(other.status, 200);

  const js = html.match(/\/assets\/main-[A-Z0-9]{8}\.js/)[0];
  const css = html.match(/\/assets\/main-[A-Z0-9]{8}\.css/)[0];
  const plain = await fetch(srv.url + js, { headers: { 'Accept-Encoding': 'identity' } });
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(plain.headers.get('content-encoding'), null);
  assert.equal(plain.headers.get('vary'), 'Accept-Encoding');
  const body = Buffer.from(await plain.arrayBuffer());
  // node's fetch would undo the gzip itself: ask with http to see the bytes
  const gz = await new Promise((res, rej) => {
    import('node:http').then(({ get }) => get(srv.url + js, { headers: { 'Accept-Encoding': 'gzip, br;q=0.5' } }, (r) => {
      const chunks = [];
      r.on('data', (c) => chunks.push(c));
      r.on('end', () => res({ headers: r.headers, body: Buffer.concat(chunks) }));
    }).on('error', rej));
  });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.notEqual(gz.headers.etag, plain.headers.get('etag'));
  assert.ok(gz.body.length < body.length / 2);
  assert.deepEqual(gunzipSync(gz.body), body);
  // Brotli, which browsers ask for first (and the build makes for every
  // script and style sheet): smaller than gzip, the same bytes
  for (const asset of [js, css]) {
    const br = await new Promise((res, rej) => {
      import('node:http').then(({ get }) => get(srv.url + asset, { headers: { 'Accept-Encoding': 'gzip, deflate, br, zstd' } }, (r) => {
        const chunks = [];
        r.on('data', (c) => chunks.push(c));
        r.on('end', () => res({ headers: r.headers, body: Buffer.concat(chunks) }));
      }).on('error', rej));
    });
    assert.equal(br.headers['content-encoding'], 'br', asset);
    assert.equal(br.headers.vary, 'Accept-Encoding');
    const raw = Buffer.from(await (await fetch(srv.url + asset, { headers: { 'Accept-Encoding': 'identity' } })).arrayBuffer());
    assert.deepEqual(brotliDecompressSync(br.body), raw);
    if (asset === js) assert.ok(br.body.length < gz.body.length, `br ${br.body.length} < gzip ${gz.body.length}`);
  }
  const refused = await fetch(srv.url + js, { headers: { 'Accept-Encoding': 'gzip;q=0' } });
  assert.equal(refused.headers.get('content-encoding'), null);
  const cssRes = await fetch(srv.url + css);
  assert.equal(cssRes.headers.get('content-type'), 'text/css; charset=utf-8');

  const head = await fetch(`${srv.url}/`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('etag'), etag);

  const missing = await call(srv.url, 'GET', '/assets/main-ZZZZZZZZ.js');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('content-type'), 'application/problem+json');
  assert.equal(missing.body.code, 'not_found');
  for (const bad of ['/assets/..%2Fcubed.db', '/assets/.hidden', '/index.html', '/assets/a/b']) {
    const r = await call(srv.url, 'GET', bad);
    assert.equal(r.status, 404, bad);
  }
  const post = await call(srv.url, 'POST', '/', {});
  assert.equal(post.status, 405);
  // the API keeps its own policy
  const health = await fetch(`${srv.url}/healthz`);
  assert.equal(health.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");
});

test('lobby and a session load with no console error and no failed request', async () => {
  const page = await newPage(browser);
  await page.goto(`${srv.url}/`);
  await page.waitForSelector('#lobby:not([hidden])');
  await page.fill('#size', '4');
  await page.click('#create-btn');
  await page.waitForSelector('#viewport[data-ready="1"]', { timeout: 10000 });
  const v = await shownState(page, 0);
  const id = /#\/s\/([^?]+)/.exec(page.url())[1];
  const api = await call(srv.url, 'GET', `/v1/sessions/${id}`);
  assert.equal(v, api.body.facelets);
  assert.equal(api.body.size, 4);
  // the owner's token is in the fragment only: no request carried it in a URL
  for (const s of page.statuses) assert.doesNotMatch(s.url, /ct_/);
  await page.waitForSelector('#patterns[data-version="0"]');
  await page.goto(`${srv.url}/#/`);
  await page.waitForSelector('#recent a');
  assert.deepEqual(page.problems, []);
  assert.deepEqual(page.statuses.filter((s) => s.status >= 400), []);
  await page.context().close();
});

test('the notation box shows the server\'s error at its offset and changes nothing', async () => {
  const created = await call(srv.url, 'POST', '/v1/sessions', { size: 3 });
  const { id, write_token: t } = created.body;
  const page = await newPage(browser);
  await openSession(page, srv.url, id, { t, role: 'owner' });
  await page.fill('#moves', 'R U Q D');
  await page.click('#apply');
  await page.waitForSelector('#notation-error:not([hidden])');
  assert.equal(await page.$eval('#notation-error', (e) => e.dataset.offset), '4');
  assert.equal(await page.$eval('#notation-error', (e) => e.dataset.code), 'unknown_token');
  assert.equal(await page.$eval('#notation-echo mark', (e) => e.textContent), 'Q');
  assert.match(await page.textContent('#notation-detail'), /unknown token "Q" at offset 4/);
  const sel = await page.$eval('#moves', (e) => [e.selectionStart, e.selectionEnd]);
  assert.deepEqual(sel, [4, 5]);
  const api = await call(srv.url, 'GET', `/v1/sessions/${id}`);
  assert.equal(api.body.version, 0);
  // a structured algorithm the server accepts is applied as one write
  await page.fill('#moves', '[R, U] (M2 U)2 // comment');
  await page.click('#apply');
  const shown = await shownState(page, 1);
  const after1 = await call(srv.url, 'GET', `/v1/sessions/${id}`);
  assert.equal(shown, after1.body.facelets);
  assert.equal(await page.inputValue('#moves'), '');
  // only the 422 is a failed response; nothing on the console
  assert.deepEqual(page.problems.filter((p) => !/422/.test(p)), []);
  await page.context().close();
});

test('a server whose page was not built answers / with a 404 that says so; the API works', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cubed-noweb-'));
  try {
    mkdirSync(join(dir, 'bin'));
    copyFileSync(resolve(ROOT, process.env.CUBED_BIN || 'build/cubed'), join(dir, 'bin', 'cubed'));
    // the default web root is web/ beside the binary: missing here
    const child = spawn(join(dir, 'bin', 'cubed'), ['--port', '0', '--db', join(dir, 'db'), '--solver', '0',
      '--schema', join(ROOT, 'schema'), '--drain-s', '0'],
      { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir, env: cleanEnv });
    let log = '';
    const port = await new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error(log)), 10000);
      child.stderr.on('data', (d) => {
        log += d;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
        if (m) { clearTimeout(t); res(Number(m[1])); }
      });
      child.on('exit', () => { clearTimeout(t); rej(new Error(log)); });
    });
    const exited = new Promise((r) => child.on('exit', r));
    try {
      assert.match(log, /the web page is not built/);
      const r = await call(`http://127.0.0.1:${port}`, 'GET', '/');
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'page_not_built');
      assert.match(r.body.detail, /was not built/);
      const a = await call(`http://127.0.0.1:${port}`, 'GET', '/assets/main.js');
      assert.equal(a.body.code, 'page_not_built');
      const ok = await call(`http://127.0.0.1:${port}`, 'POST', '/v1/apply', { size: 3, moves: 'R' });
      assert.equal(ok.status, 200);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, log);
    }
    // an explicit --web-root that is not there stops the server at once
    const bad = spawn(join(dir, 'bin', 'cubed'), ['--port', '0', '--db', join(dir, 'db2'), '--solver', '0', '--schema', join(ROOT, 'schema'),
      '--web-root', join(dir, 'nope')],
      { stdio: ['ignore', 'ignore', 'pipe'], env: cleanEnv });
    let err = '';
    bad.stderr.on('data', (d) => { err += d; });
    const code = await new Promise((r) => bad.on('exit', r));
    assert.equal(code, 2);
    assert.match(err, /--web-root: .*nope\/index\.html/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
