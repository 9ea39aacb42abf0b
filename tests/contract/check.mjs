// check.mjs — the contract check: starts the server binary on a free
// loopback port with a fresh database, sends a representative request for
// every operation in openapi.yaml and every status it lists that a client
// can provoke, and checks each live response against the contract:
//
//   * the status is the one the case expects and one the operation lists;
//   * the media type is one the response lists (none when it lists none,
//     and then the body is empty);
//   * the body validates against the response's schema ($refs resolved,
//     problem bodies included) with JSON Schema 2020-12;
//   * every header the response lists is present and fits its schema, and
//     ETag, Location, WWW-Authenticate, Retry-After and Allow are not sent
//     where the response does not list them;
//   * a request that succeeds fits the operation's request body schema
//     and parameters, so the contract accepts what the server accepts.
//
// Finally every operation of the contract must have been exercised, so a
// route added to openapi.yaml without a case here fails too.
//
// The solving routes need the solver tables: the main server uses
// $CUBED_TABLES when set (make contract passes the shared cache, as make
// test does), else builds them in its own directory; the check waits (at
// most 120 s) until /readyz says both are ready before sending them.
//
// Usage: node check.mjs <cubed binary> <openapi.yaml> [schema dir]
// Exit status 0 when everything matches, 1 with a report otherwise.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

const [bin, specPath, schemaDir] = process.argv.slice(2);
if (!bin || !specPath) {
	console.error('usage: node check.mjs <cubed binary> <openapi.yaml> [schema dir]');
	process.exit(2);
}

const spec = YAML.parse(readFileSync(specPath, 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema(spec, 'openapi');
const compiled = new Map();
function validator(pointer) {
	if (!compiled.has(pointer))
		compiled.set(pointer, ajv.compile({ $ref: 'openapi#' + pointer }));
	return compiled.get(pointer);
}

// A JSON pointer to a schema inside the document, for a schema object that
// may be a $ref or inline (found by walking the document from `base`).
function schemaPointer(base, schema) {
	if (schema && typeof schema.$ref === 'string' && schema.$ref.startsWith('#'))
		return schema.$ref.slice(1);
	return base;
}
function esc(s) {
	return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
function deref(obj) {
	let ptr = null;
	while (obj && typeof obj.$ref === 'string') {
		ptr = obj.$ref.slice(1);
		obj = ptr.split('/').slice(1).reduce(
			(o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
	}
	return [obj, ptr];
}

// ---- the server ---------------------------------------------------------

const servers = [];
async function startServer(extra = []) {
	const dir = mkdtempSync(join(tmpdir(), 'cubed-contract-'));
	const args = ['--port', '0', '--bind', '127.0.0.1', '--db', join(dir, 'cubed.db'),
		'--openapi', resolve(specPath), '--quiet', '--solver-warm', '0', ...extra];
	if (schemaDir) args.push('--schema', resolve(schemaDir));
	const child = spawn(resolve(bin), args, { stdio: ['ignore', 'ignore', 'pipe'] });
	const srv = { child, dir, log: '' };
	servers.push(srv);
	srv.port = await new Promise((ok, fail) => {
		const timer = setTimeout(() => fail(new Error(`no "listening" line within 10 s:\n${srv.log}`)), 10000);
		child.stderr.on('data', (d) => {
			srv.log += d;
			const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\n/.exec(srv.log);
			if (m) {
				clearTimeout(timer);
				ok(Number(m[1]));
			}
		});
		child.on('exit', (code) => fail(new Error(`server exited (${code}) before listening:\n${srv.log}`)));
	});
	srv.base = `http://127.0.0.1:${srv.port}`;
	return srv;
}
// Poll /readyz (outside the checked exchanges) until both sizes' solver
// tables are ready; throw after `seconds`, saying what they were.
async function waitTables(srv, seconds = 120) {
	const until = Date.now() + seconds * 1000;
	let last = '(no answer)';
	while (Date.now() < until) {
		try {
			const r = await fetch(srv.base + '/readyz');
			const j = await r.json();
			last = JSON.stringify(j.solver);
			if (j.solver?.['3x3']?.tables === 'ready' && j.solver?.['2x2']?.tables === 'ready') return;
			if (['failed', 'off'].includes(j.solver?.['3x3']?.tables) || ['failed', 'off'].includes(j.solver?.['2x2']?.tables))
				break;
		} catch (e) {
			last = e.message;
		}
		await new Promise((ok) => setTimeout(ok, 200));
	}
	throw new Error(`the solver tables were not ready within ${seconds} s: /readyz solver ${last}`);
}

const tableDirs = [];
async function stopServer(s) {
	if (s.child.exitCode === null && s.child.signalCode === null) {
		const done = new Promise((ok) => s.child.on('exit', ok));
		s.child.kill('SIGTERM');
		// a pending timer would keep node alive for its 10 s
		let timer;
		await Promise.race([done, new Promise((ok) => { timer = setTimeout(ok, 10000); })]);
		clearTimeout(timer);
		if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
	}
}
async function stopServers() {
	for (const s of servers) {
		await stopServer(s);
		rmSync(s.dir, { recursive: true, force: true });
	}
	for (const d of tableDirs) rmSync(d, { recursive: true, force: true });
}

// ---- matching a request to its operation --------------------------------

const operations = [];
for (const [tpl, item] of Object.entries(spec.paths)) {
	const re = new RegExp('^' + tpl.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$');
	for (const method of ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'])
		if (item[method])
			operations.push({ tpl, method, re, op: item[method], item, key: `${method.toUpperCase()} ${tpl}` });
}
// The router's table states each route's policies as data (`cubed
// routes`): the body it takes, whether a bearer token may or must come,
// whether Idempotency-Key is honoured. Each must be what the contract
// says of the operation, and every route an operation of it.
function checkRouteTable(problems) {
	const out = execFileSync(bin, ['routes'], { encoding: 'utf8' });
	const rows = out.trim().split('\n').map((l) => l.split('\t'));
	for (const [method, pattern, body, auth, idem] of rows) {
		const tpl = pattern.replace('{jid}', '{id}');
		const item = spec.paths[pattern] || spec.paths[tpl];
		const op = item && item[method.toLowerCase()];
		const where = `${method} ${pattern}`;
		if (!op) {
			problems.push(`${where}: a route of the server that the contract does not have`);
			continue;
		}
		const [rb] = deref(op.requestBody);
		const specBody = !rb ? 'none' : rb.required ? 'required' : 'optional';
		// a route that takes no body ignores one; the page's routes and
		// the ops routes say nothing
		if (specBody !== body && !(body === 'none' && !rb))
			problems.push(`${where}: body ${body} in the route table, ${specBody} in the contract`);
		const sec = op.security ?? spec.security ?? [];
		const named = sec.filter((s) => Object.keys(s).length > 0).length > 0;
		const anon = sec.length === 0 || sec.some((s) => Object.keys(s).length === 0);
		const specAuth = !named ? 'none' : anon ? 'optional' : 'required';
		if (specAuth !== auth)
			problems.push(`${where}: auth ${auth} in the route table, ${specAuth} in the contract`);
		const params = [...(item.parameters || []), ...(op.parameters || [])].map((p) => deref(p)[0]);
		const specIdem = params.some((p) => p && p.in === 'header' && p.name === 'Idempotency-Key');
		if (specIdem !== (idem === 'idem'))
			problems.push(`${where}: Idempotency-Key ${idem === 'idem' ? 'honoured' : 'ignored'} by the router, ${specIdem ? 'declared' : 'not declared'} in the contract`);
	}
}

const exercised = new Set();
function findOperation(method, path) {
	const p = path.split('?')[0];
	const m = method.toLowerCase();
	// a literal path wins over a template
	const hits = operations.filter((o) => o.method === m && o.re.test(p));
	hits.sort((a, b) => (a.tpl.includes('{') ? 1 : 0) - (b.tpl.includes('{') ? 1 : 0));
	return hits[0];
}
function findPath(path) {
	const p = path.split('?')[0];
	return operations.find((o) => o.re.test(p));
}

// ---- checking one exchange ----------------------------------------------

const failures = [];
let checked = 0;
const SIGNIFICANT = ['etag', 'location', 'www-authenticate', 'retry-after', 'allow'];

function fmtErrors(errors) {
	return (errors || []).slice(0, 6).map((e) => `${e.instancePath || '/'} ${e.message}` +
		(e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : '')).join('; ');
}

function checkParams(c, o, url, headers, problems) {
	const params = [...(o.item.parameters || []), ...(o.op.parameters || [])].map((p) => deref(p)[0]);
	const q = new URL(url, 'http://x').searchParams;
	for (const name of q.keys())
		if (!params.some((p) => p.in === 'query' && p.name === name))
			problems.push(`query parameter "${name}" is not in the contract`);
	for (const p of params) {
		if (p.in !== 'query' || !q.has(p.name)) continue;
		let v = q.get(p.name);
		const [sch] = deref(p.schema);
		if (sch.type === 'integer') v = /^\d+$/.test(v) ? Number(v) : v;
		if (sch.type === 'array') v = v.split(',');
		const ok = ajv.validate(p.schema.$ref ? { $ref: 'openapi#' + p.schema.$ref.slice(1) } : p.schema, v);
		if (!ok) problems.push(`query parameter ${p.name}=${q.get(p.name)} does not fit its schema: ${fmtErrors(ajv.errors)}`);
	}
	for (const h of Object.keys(headers || {})) {
		const lh = h.toLowerCase();
		if (['content-type', 'authorization'].includes(lh)) continue;
		if (!params.some((p) => p.in === 'header' && p.name.toLowerCase() === lh))
			problems.push(`request header ${h} is not in the contract`);
	}
	if (headers && Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
		const sec = o.op.security ?? spec.security ?? [];
		if (!sec.some((s) => s.writeToken))
			problems.push('sends Authorization, but the operation has no bearer security');
	}
}

async function exchange(c, srv) {
	const url = srv.base + c.path;
	const headers = { ...(c.headers || {}) };
	let body;
	if (c.raw !== undefined) body = c.raw;
	else if (c.body !== undefined) body = JSON.stringify(c.body);
	if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
		headers['Content-Type'] = 'application/json';
	if (c.stream) {
		// a live stream never ends: read until it holds `until`, then hang up
		const ac = new AbortController();
		const timer = setTimeout(() => ac.abort(), 5000);
		const res = await fetch(url, { method: c.method, headers, redirect: 'manual', signal: ac.signal });
		let text = '';
		if (res.status === 200) {
			const reader = res.body.getReader();
			const dec = new TextDecoder();
			try {
				while (!text.includes(c.stream)) {
					const { value, done } = await reader.read();
					if (done) break;
					text += dec.decode(value, { stream: true });
				}
			} catch (e) {
				text += `\n(aborted: ${e.message})`;
			}
			ac.abort();
		} else {
			text = await res.text();
		}
		clearTimeout(timer);
		return { res, text };
	}
	const res = await fetch(url, { method: c.method, headers, body, redirect: 'manual' });
	const text = c.method === 'HEAD' ? '' : await res.text();
	return { res, text };
}

async function run(c, srv) {
	const label = `${c.name}: ${c.method} ${c.path.replace(/ct_[A-Za-z0-9_-]+/g, 'ct_…')}`;
	const problems = [];
	let res, text;
	try {
		({ res, text } = await exchange(c, srv));
	} catch (e) {
		failures.push(`${label}\n    request failed: ${e.message}`);
		return {};
	}
	checked++;
	const o = findOperation(c.method, c.path);
	let json;
	if (!o) {
		// a path the contract does not have, or a method it does not list
		// there: only 404 / 405 problems are allowed
		const p = findPath(c.path);
		if (!(res.status === 404 && !p) && !(res.status === 405 && p))
			problems.push(`no operation ${c.method} for this path in the contract, yet status ${res.status}`);
		const [resp] = deref({ $ref: res.status === 405 ? '#/components/responses/MethodNotAllowed' : '#/components/responses/NotFound' });
		checkResponse(resp, `/components/responses/${res.status === 405 ? 'MethodNotAllowed' : 'NotFound'}`, res, text, problems);
	} else {
		exercised.add(o.key);
		const responses = o.op.responses;
		const code = String(res.status);
		if (res.status !== c.status)
			problems.push(`status ${res.status}, the case expects ${c.status}: ${text.slice(0, 300)}`);
		const raw = responses[code] ?? responses[code[0] + 'XX'] ?? responses.default;
		if (!raw) {
			problems.push(`status ${res.status} is not listed for ${o.key} (lists ${Object.keys(responses).join(', ')})`);
		} else {
			const [resp, ptr] = deref(raw);
			const base = ptr ?? `/paths/${esc(o.tpl)}/${o.method}/responses/${code}`;
			json = checkResponse(resp, base, res, text, problems);
		}
		if (res.status < 300) {
			checkParams(c, o, c.path, c.headers, problems);
			if (c.body !== undefined && o.op.requestBody) {
				const [rb] = deref(o.op.requestBody);
				const media = rb.content?.['application/json'];
				if (media && !ajv.validate({ $ref: 'openapi#' + schemaPointer(`/paths/${esc(o.tpl)}/${o.method}/requestBody/content/application~1json/schema`, media.schema) }, c.body))
					problems.push(`the request body the server accepted does not fit the contract: ${fmtErrors(ajv.errors)}`);
			}
		}
	}
	if (c.check && problems.length === 0) {
		try {
			c.check(json, res, text);
		} catch (e) {
			problems.push(e.message);
		}
	}
	if (problems.length)
		failures.push(`${label}\n    ${problems.join('\n    ')}`);
	return { res, json, text };
}

function checkResponse(resp, base, res, text, problems) {
	const ct = res.headers.get('content-type');
	const media = ct ? ct.split(';')[0].trim().toLowerCase() : null;
	let json;
	if (resp.content) {
		const entry = media && Object.entries(resp.content).find(([k]) => k.toLowerCase() === media);
		if (!entry) {
			problems.push(`Content-Type ${ct}, the contract lists ${Object.keys(resp.content).join(', ')}`);
		} else if (text !== '') {
			const [mt, m] = entry;
			let value = text;
			if (/[/+]json$/.test(mt)) {
				try {
					value = json = JSON.parse(text);
				} catch (e) {
					problems.push(`body is not JSON: ${text.slice(0, 200)}`);
					return undefined;
				}
			}
			if (m.schema) {
				const ptr = schemaPointer(`${base}/content/${esc(mt)}/schema`, m.schema);
				const v = validator(ptr);
				if (!v(value))
					problems.push(`body does not fit ${ptr}: ${fmtErrors(v.errors)}\n      body: ${text.slice(0, 400)}`);
			}
		}
	} else if (text !== '') {
		problems.push(`the contract lists no body, got ${ct}: ${text.slice(0, 200)}`);
	}
	const declared = Object.keys(resp.headers || {}).map((h) => h.toLowerCase());
	for (const [name, hdef] of Object.entries(resp.headers || {})) {
		const [h, hptr] = deref(hdef);
		const v = res.headers.get(name);
		if (v === null) {
			if (h.required !== false) problems.push(`header ${name} is missing`);
			continue;
		}
		if (h.schema) {
			const ptr = hptr ? `${hptr}/schema` : `${base}/headers/${esc(name)}/schema`;
			const val = validator(ptr);
			if (!val(v)) problems.push(`header ${name}: ${JSON.stringify(v)} does not fit: ${fmtErrors(val.errors)}`);
		}
	}
	for (const h of SIGNIFICANT)
		if (res.headers.get(h) !== null && !declared.includes(h))
			problems.push(`header ${h} is sent but the contract does not list it for this response`);
	return json;
}

function expect(cond, what) {
	if (!cond) throw new Error(what);
}

// ---- the cases ----------------------------------------------------------

const SOLVED3 = 'UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB';
const AFTER_R = 'UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB';

async function main() {
	// level 0: the optimal solver's smallest tables (75 MB, seconds to
	// build, shared through $CUBED_TABLES like the others). 4×4 and 5×5
	// stage by stage: with their phase tables in $CUBED_TABLES (make
	// test-slow leaves them there) the first 4×4 solve loads them, and
	// whether 'solve 4x4 pll parity' still takes the stage path that has
	// a pll_parity stage would depend on how soon that load ends
	const srv = await startServer(['--max-body', '65536', '--optimal-level', '0',
		'--solver-4x4', '0', '--solver-5x5', '0']);
	const big = '{"size": 3, "moves": "' + 'R '.repeat(40000) + '"}';

	// stateless routes and ops
	const stateless = [
		{ name: 'health', method: 'GET', path: '/healthz', status: 200 },
		{ name: 'health head', method: 'HEAD', path: '/healthz', status: 200 },
		{ name: 'health preflight', method: 'OPTIONS', path: '/healthz', status: 204 },
		{ name: 'health 405', method: 'POST', path: '/healthz', status: 405 },
		{ name: 'contract', method: 'GET', path: '/openapi.yaml', status: 200 },
		{ name: 'contract head', method: 'HEAD', path: '/openapi.yaml', status: 200 },
		{ name: 'contract preflight', method: 'OPTIONS', path: '/openapi.yaml', status: 204 },
		{ name: 'version', method: 'GET', path: '/version', status: 200,
			check: (j) => expect(j.name === 'cubed' && j.libraries.libmicrohttpd === '0.9.75', `not cubed on libmicrohttpd 0.9.75: ${JSON.stringify(j)}`) },
		{ name: 'version head', method: 'HEAD', path: '/version', status: 200 },
		{ name: 'version preflight', method: 'OPTIONS', path: '/version', status: 204 },
		{ name: 'version 405', method: 'POST', path: '/version', raw: '', status: 405 },
		{ name: 'ready', method: 'GET', path: '/readyz', status: 200,
			check: (j) => expect(j.database === 'ok' && j.solver && j.solver['3x3'] && j.solver['2x2'], 'database is not ok, or no solver member') },
		{ name: 'ready head', method: 'HEAD', path: '/readyz', status: 200 },
		{ name: 'ready preflight', method: 'OPTIONS', path: '/readyz', status: 204 },
		{ name: 'ready 405', method: 'DELETE', path: '/readyz', status: 405 },
		{ name: 'metrics head', method: 'HEAD', path: '/metrics', status: 200 },
		{ name: 'metrics preflight', method: 'OPTIONS', path: '/metrics', status: 204 },
		{ name: 'metrics 405', method: 'POST', path: '/metrics', raw: '', status: 405 },
		{ name: 'no such path', method: 'GET', path: '/nope', status: 404 },
		{ name: 'apply', method: 'POST', path: '/v1/apply', body: { size: 3, moves: 'R' }, status: 200,
			check: (j) => expect(j.facelets === AFTER_R, 'wrong state') },
		{ name: 'apply include', method: 'POST', path: '/v1/apply', body: { size: 3, moves: "R U'", format: 'cubie', include: ['facelets', 'index', 'orientation', 'features', 'render', 'animation', 'faces'] }, status: 200 },
		{ name: 'apply 400', method: 'POST', path: '/v1/apply', raw: '{"size": 3,', status: 400 },
		{ name: 'apply 405', method: 'GET', path: '/v1/apply', status: 405 },
		{ name: 'apply 413', method: 'POST', path: '/v1/apply', raw: big, status: 413 },
		{ name: 'apply 415', method: 'POST', path: '/v1/apply', raw: '{}', headers: { 'Content-Type': 'text/plain' }, status: 415 },
		{ name: 'apply 422 notation', method: 'POST', path: '/v1/apply', body: { size: 3, moves: 'R Q' }, status: 422 },
		{ name: 'apply 422 invalid cube', method: 'POST', path: '/v1/apply', body: { facelets: 'UUUUUUUUFURRRRRRRRFFRFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB', format: 'cubie' }, status: 422 },
		{ name: 'apply preflight', method: 'OPTIONS', path: '/v1/apply', status: 204 },
		{ name: 'alg', method: 'POST', path: '/v1/alg', body: { moves: '[R, U] (R U)2' }, status: 200 },
		{ name: 'alg 422', method: 'POST', path: '/v1/alg', body: { moves: 'R', extra: 1 }, status: 422 },
		{ name: 'alg preflight', method: 'OPTIONS', path: '/v1/alg', status: 204 },
		{ name: 'convert', method: 'POST', path: '/v1/convert', body: { size: 3, index: '5771278630723606528', include: ['faces', 'features', 'render'] }, status: 200 },
		{ name: 'convert 422', method: 'POST', path: '/v1/convert', body: { size: 3 }, status: 422 },
		{ name: 'convert preflight', method: 'OPTIONS', path: '/v1/convert', status: 204 },
		{ name: 'validate', method: 'POST', path: '/v1/validate', body: { facelets: 'UUUUUUUUFURRRRRRRRFFRFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB' }, status: 200 },
		{ name: 'validate big', method: 'POST', path: '/v1/validate', body: { facelets: 'U'.repeat(16) + 'R'.repeat(16) + 'F'.repeat(16) + 'D'.repeat(16) + 'L'.repeat(16) + 'B'.repeat(16) }, status: 200 },
		{ name: 'validate 422', method: 'POST', path: '/v1/validate', body: {}, status: 422 },
		{ name: 'validate preflight', method: 'OPTIONS', path: '/v1/validate', status: 204 },
		{ name: 'match', method: 'POST', path: '/v1/match', body: { facelets: AFTER_R, name: 'cross' }, status: 200,
			check: (j) => expect(j.matched && j.orientations.length === 4 && j.orientations.every((o) => o.face === 'L'), 'not the L cross in 4 rotations') },
		{ name: 'match text', method: 'POST', path: '/v1/match', body: { facelets: 'UUUURRRRFFFFDDDDLLLLBBBB', pattern: '111133**55******44**22**', first: true }, status: 200,
			check: (j) => expect(j.matched && j.orientations.length === 1, 'first: not one orientation') },
		{ name: 'match none', method: 'POST', path: '/v1/match', body: { facelets: AFTER_R, name: 'solved' }, status: 200,
			check: (j) => expect(!j.matched && j.orientations.length === 0, 'R is not solved') },
		{ name: 'match 400', method: 'POST', path: '/v1/match', raw: '{"facelets": ', status: 400 },
		{ name: 'match 405', method: 'GET', path: '/v1/match', status: 405 },
		{ name: 'match 413', method: 'POST', path: '/v1/match', raw: big, status: 413 },
		{ name: 'match 415', method: 'POST', path: '/v1/match', raw: '{}', headers: { 'Content-Type': 'text/plain' }, status: 415 },
		{ name: 'match 422 pattern', method: 'POST', path: '/v1/match', body: { facelets: SOLVED3, pattern: 'UUUx' }, status: 422,
			check: (j) => expect(j.code === 'bad_pattern_char' && j.offset === 3 && j.field === 'pattern', 'not bad_pattern_char at 3') },
		{ name: 'match 422 name', method: 'POST', path: '/v1/match', body: { facelets: SOLVED3, name: 'centers_solved' }, status: 422,
			check: (j) => expect(j.code === 'unknown_pattern' && j.field === 'name', 'not unknown_pattern') },
		{ name: 'match preflight', method: 'OPTIONS', path: '/v1/match', status: 204 },
		{ name: 'patterns', method: 'GET', path: '/v1/patterns?size=3', status: 200,
			check: (j) => expect(j.patterns.map((p) => p.name).join() === 'solved,cross,first_layer,f2l,eo,oll,pll', 'not the 3×3 names in order') },
		{ name: 'patterns big', method: 'GET', path: '/v1/patterns?size=64', status: 200,
			check: (j) => expect(j.patterns[2].name === 'reduced' && j.patterns[2].parts.length === 13, 'reduced has not 13 parts') },
		{ name: 'patterns head', method: 'HEAD', path: '/v1/patterns?size=2', status: 200 },
		{ name: 'patterns head 422', method: 'HEAD', path: '/v1/patterns?size=65', status: 422 },
		{ name: 'patterns 405', method: 'POST', path: '/v1/patterns', raw: '', status: 405 },
		{ name: 'patterns 422 size', method: 'GET', path: '/v1/patterns?size=65', status: 422,
			check: (j) => expect(j.code === 'too_large_for_representation' && j.limit === 64, 'not limited at 64') },
		{ name: 'patterns 422 missing', method: 'GET', path: '/v1/patterns', status: 422 },
		{ name: 'patterns 422 parameter', method: 'GET', path: '/v1/patterns?size=3&n=3', status: 422 },
		{ name: 'patterns preflight', method: 'OPTIONS', path: '/v1/patterns', status: 204 },
		{ name: 'pieces', method: 'POST', path: '/v1/pieces', body: { facelets: AFTER_R }, status: 200,
			check: (j) => expect(j.pieces.length === 20 && j.pieces[0].position === 'UBR', 'not 20 pieces, URF at UBR') },
		{ name: 'pieces one', method: 'POST', path: '/v1/pieces', body: { facelets: AFTER_R, piece: 'FUR' }, status: 200,
			check: (j) => expect(j.piece.piece === 'URF' && j.piece.position === 'UBR' && j.piece.orientation === 1, 'URF is not at UBR twisted once') },
		{ name: 'pieces 400', method: 'POST', path: '/v1/pieces', raw: '{', status: 400 },
		{ name: 'pieces 405', method: 'GET', path: '/v1/pieces', status: 405 },
		{ name: 'pieces 413', method: 'POST', path: '/v1/pieces', raw: big, status: 413 },
		{ name: 'pieces 415', method: 'POST', path: '/v1/pieces', raw: '{}', headers: { 'Content-Type': 'text/plain' }, status: 415 },
		{ name: 'pieces 422 piece', method: 'POST', path: '/v1/pieces', body: { facelets: AFTER_R, piece: 'UD' }, status: 422 },
		{ name: 'pieces 422 invalid cube', method: 'POST', path: '/v1/pieces', body: { facelets: 'UUUUUUUUFURRRRRRRRFFRFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB' }, status: 422 },
		{ name: 'pieces preflight', method: 'OPTIONS', path: '/v1/pieces', status: 204 },
	];
	for (const c of stateless) await run(c, srv);

	// the web page (the server's default web root, build/web beside the
	// binary) and one of its assets, named as index.html names them
	const page = await run({ name: 'page', method: 'GET', path: '/', status: 200,
		check: (j, res, text) => expect(/<script type="module" src="\/assets\/main-[A-Z0-9]{8}\.js">/.test(text), 'no bundled script') }, srv);
	const pageTag = page.res && page.res.headers.get('etag');
	const asset = ((page.text || '').match(/\/assets\/main-[A-Z0-9]{8}\.js/) || ['/assets/main-missing.js'])[0];
	for (const c of [
		{ name: 'page head', method: 'HEAD', path: '/', status: 200 },
		{ name: 'page 304', method: 'GET', path: '/', headers: { 'If-None-Match': pageTag }, status: 304 },
		{ name: 'page head 304', method: 'HEAD', path: '/', headers: { 'If-None-Match': '*' }, status: 304 },
		{ name: 'page preflight', method: 'OPTIONS', path: '/', status: 204 },
		{ name: 'page 405', method: 'POST', path: '/', raw: '', status: 405 },
		{ name: 'asset', method: 'GET', path: asset, status: 200 },
		{ name: 'asset gzip', method: 'GET', path: asset, headers: { 'Accept-Encoding': 'gzip' }, status: 200 },
		{ name: 'asset head', method: 'HEAD', path: asset, status: 200 },
		{ name: 'asset preflight', method: 'OPTIONS', path: asset, status: 204 },
		{ name: 'asset 404', method: 'GET', path: '/assets/main-ZZZZZZZZ.js', status: 404 },
	]) {
		const r = await run(c, srv);
		if (c.name === 'asset') {
			const tag = r.res && r.res.headers.get('etag');
			await run({ name: 'asset 304', method: 'GET', path: asset, headers: { 'If-None-Match': tag }, status: 304 }, srv);
			await run({ name: 'asset head 304', method: 'HEAD', path: asset, headers: { 'If-None-Match': tag }, status: 304 }, srv);
		}
	}

	// solving: once the tables are ready
	await waitTables(srv);
	const SCRAMBLED = 'LBURUDLLDBFFLRURDDBULBFFDBBRRULDLDFRUDUFLDFBBRUFRBUFRL'; // seed 42
	const TURNED = 'LFBUFBBBDRRULDLDFRUDBDLBUFFFULUBRRRFDLLDURUBLRLBDRFDUF'; // that, then x y'
	const SOLVED2 = 'UUUURRRRFFFFDDDDLLLLBBBB';
	const SOLVED4 = 'U'.repeat(16) + 'R'.repeat(16) + 'F'.repeat(16) + 'D'.repeat(16) + 'L'.repeat(16) + 'B'.repeat(16);
	// a solved 4×4 with the UF and UB dedges swapped (PLL parity), and
	// one with a single wing flipped in place (no such cube)
	const PLL4 = 'U'.repeat(16) + 'R'.repeat(16) + 'FBBF' + 'F'.repeat(12) + 'D'.repeat(16) + 'L'.repeat(16) + 'BFFB' + 'B'.repeat(12);
	const WING4 = 'U'.repeat(13) + 'FUU' + 'R'.repeat(16) + 'FUFF' + 'F'.repeat(12) + 'D'.repeat(16) + 'L'.repeat(16) + 'B'.repeat(16);
	const TWISTED = 'UUUUUUUUFURRRRRRRRFFRFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB';
	const problem = (code, field) => (j) => expect(j.code === code && (field === undefined || j.field === field),
		`not ${code}${field ? ' on ' + field : ''}: ${JSON.stringify(j)}`);
	const solving = [
		{ name: 'ready solver', method: 'GET', path: '/readyz', status: 200,
			check: (j) => expect(j.solver['3x3'].tables === 'ready' && j.solver['2x2'].tables === 'ready', 'tables not ready') },
		{ name: 'solve', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R }, status: 200,
			check: (j) => expect(j.solution === "R'" && j.length === 1 && j.method === 'twophase' && j.size === 3, `not R': ${JSON.stringify(j)}`) },
		{ name: 'solve limits', method: 'POST', path: '/v1/solve', body: { facelets: SCRAMBLED, method: 'twophase', max_length: 21, timeout_ms: 2000 }, status: 200,
			check: (j) => expect(j.length <= 21 && j.solution.split(' ').length === j.length, 'length') },
		{ name: 'solve turned', method: 'POST', path: '/v1/solve', body: { facelets: TURNED }, status: 200,
			check: (j) => expect(j.orientation.up === 'F' && j.orientation.front === 'L', `orientation ${JSON.stringify(j.orientation)}`) },
		{ name: 'solve solved', method: 'POST', path: '/v1/solve', body: { facelets: SOLVED3, max_length: 0 }, status: 200,
			check: (j) => expect(j.solution === '' && j.length === 0, 'not empty') },
		{ name: 'solve 2x2', method: 'POST', path: '/v1/solve', body: { facelets: 'RUBDLFUFDFDBFLDUURLRRBLB', method: 'optimal', max_length: 11 }, status: 200,
			check: (j) => expect(j.size === 2 && j.method === 'optimal' && j.length <= 8, `2×2: ${JSON.stringify(j)}`) },
		{ name: 'solve 2x2 solved', method: 'POST', path: '/v1/solve', body: { facelets: SOLVED2 }, status: 200,
			check: (j) => expect(j.length === 0, 'not empty') },
		{ name: 'solve beginner', method: 'POST', path: '/v1/solve', body: { facelets: SCRAMBLED, method: 'beginner' }, status: 200,
			check: (j) => expect(j.method === 'beginner' && j.stages.length === 7 && j.stages.reduce((a, st) => a + st.length, 0) === j.length &&
				j.stages[6].facelets === SOLVED3, `beginner: ${JSON.stringify(j)}`) },
		{ name: 'solve target', method: 'POST', path: '/v1/solve', body: { facelets: SCRAMBLED, target: 'cross' }, status: 200,
			check: (j) => expect(j.target === 'cross' && j.optimal === true && j.length <= 8 && j.stages === undefined, `target: ${JSON.stringify(j)}`) },
		{ name: 'solve target beginner', method: 'POST', path: '/v1/solve', body: { facelets: SCRAMBLED, method: 'beginner', target: 'f2l' }, status: 200,
			check: (j) => expect(j.target === 'f2l' && j.optimal === false && j.stages.length === 3, `target f2l: ${JSON.stringify(j)}`) },
		{ name: 'solve 400', method: 'POST', path: '/v1/solve', raw: '{"facelets": "', status: 400 },
		{ name: 'solve 405', method: 'GET', path: '/v1/solve', status: 405 },
		{ name: 'solve 413', method: 'POST', path: '/v1/solve', raw: big, status: 413 },
		{ name: 'solve 415', method: 'POST', path: '/v1/solve', raw: '{}', headers: { 'Content-Type': 'text/plain' }, status: 415 },
		{ name: 'solve 422 missing', method: 'POST', path: '/v1/solve', body: {}, status: 422, check: problem('missing_field', 'facelets') },
		{ name: 'solve 422 field', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, size: 3 }, status: 422, check: problem('unknown_field', 'size') },
		{ name: 'solve 422 type', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, max_length: '5' }, status: 422, check: problem('wrong_type', 'max_length') },
		{ name: 'solve 422 facelets', method: 'POST', path: '/v1/solve', body: { facelets: 'UUUUUUX' }, status: 422 },
		{ name: 'solve 422 invalid cube', method: 'POST', path: '/v1/solve', body: { facelets: TWISTED }, status: 422,
			check: (j) => expect(j.type === 'urn:cubed:problem:invalid_cube' && j.errors[0].code === 'twist', 'not invalid_cube twist') },
		{ name: 'solve 4x4 solved', method: 'POST', path: '/v1/solve', body: { facelets: SOLVED4 }, status: 200,
			check: (j) => expect(j.method === 'reduction' && j.length === 0 && j.stages.length === 5 && j.oll_parity === 0 && j.pll_parity === false, `4×4: ${JSON.stringify(j)}`) },
		{ name: 'solve 4x4 pll parity', method: 'POST', path: '/v1/solve', body: { facelets: PLL4, method: 'reduction', timeout_ms: 5000 }, status: 200,
			check: (j) => expect(j.method === 'reduction' && j.pll_parity === true && j.stages[3].name === 'pll_parity' && j.stages[3].length > 0 &&
				j.stages.reduce((a, st) => a + st.length, 0) === j.length, `4×4 PLL parity: ${JSON.stringify(j)}`) },
		{ name: 'solve 422 size', method: 'POST', path: '/v1/solve', body: { facelets: 'URFDLB' }, status: 422, check: problem('not_applicable', 'facelets') },
		{ name: 'solve 422 method 4x4', method: 'POST', path: '/v1/solve', body: { facelets: SOLVED4, method: 'twophase' }, status: 422, check: problem('method_unavailable', 'method') },
		{ name: 'solve 422 wing', method: 'POST', path: '/v1/solve', body: { facelets: WING4 }, status: 422,
			check: (j) => expect(j.type === 'urn:cubed:problem:invalid_cube' && j.errors.length === 1 && j.errors[0].code === 'duplicate_edge', `not invalid_cube duplicate_edge: ${JSON.stringify(j)}`) },
		{ name: 'solve 422 method', method: 'POST', path: '/v1/solve', body: { facelets: SOLVED2, method: 'twophase' }, status: 422, check: problem('method_unavailable', 'method') },
		{ name: 'solve 422 target', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, target: 'crosss' }, status: 422, check: problem('unknown_pattern', 'target') },
		{ name: 'solve 422 target place', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, target: 'X' + '*'.repeat(53) }, status: 422,
			check: (j) => expect(j.type === 'urn:cubed:problem:invalid_pattern' && j.code === 'bad_pattern_char' && j.field === 'target' && j.offset === 0, `not bad_pattern_char at 0: ${JSON.stringify(j)}`) },
		{ name: 'solve 422 target 2x2', method: 'POST', path: '/v1/solve', body: { facelets: SOLVED2, target: 'cross' }, status: 422, check: problem('not_applicable', 'target') },
		{ name: 'solve 422 max_length', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, max_length: 31 }, status: 422,
			check: (j) => expect(j.code === 'value_out_of_range' && j.field === 'max_length' && j.limit === 30, 'not out of range, limit 30') },
		{ name: 'solve 422 timeout', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, timeout_ms: 0 }, status: 422,
			check: (j) => expect(j.code === 'value_out_of_range' && j.field === 'timeout_ms' && j.limit === 10000, 'not out of range, limit 10000') },
		{ name: 'solve 422 no solution', method: 'POST', path: '/v1/solve', body: { facelets: SCRAMBLED, max_length: 5 }, status: 422, check: problem('no_solution_found', 'max_length') },
		{ name: 'solve 422 no solution at 0', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, max_length: 0 }, status: 422, check: problem('no_solution_found', 'max_length') },
		{ name: 'solve preflight', method: 'OPTIONS', path: '/v1/solve', status: 204 },

		{ name: 'scramble', method: 'GET', path: '/v1/scramble?size=3&seed=42', status: 200,
			check: (j) => expect(j.kind === 'random-state' && j.seed === 42 && j.facelets === SCRAMBLED && j.length <= 21, `not seed 42's: ${JSON.stringify(j)}`) },
		{ name: 'scramble 2x2', method: 'GET', path: '/v1/scramble?size=2&seed=7', status: 200,
			check: (j) => expect(j.kind === 'random-state' && j.length <= 11, 'not random-state ≤ 11') },
		{ name: 'scramble 4x4', method: 'GET', path: '/v1/scramble?size=4', status: 200,
			check: (j) => expect(j.kind === 'random-move' && j.length === 40 && Number.isSafeInteger(j.seed), 'not random-move 40 with a seed') },
		{ name: 'scramble big seed', method: 'GET', path: '/v1/scramble?size=5&seed=9007199254740991', status: 200,
			check: (j) => expect(j.length === 60 && j.seed === 9007199254740991, 'not 60 moves from the largest seed') },
		{ name: 'scramble head', method: 'HEAD', path: '/v1/scramble?size=3&seed=1', status: 200 },
		{ name: 'scramble head 422', method: 'HEAD', path: '/v1/scramble?size=1', status: 422 },
		{ name: 'scramble 405', method: 'POST', path: '/v1/scramble', raw: '', status: 405 },
		{ name: 'scramble 422 size', method: 'GET', path: '/v1/scramble?size=1025', status: 422, check: problem('size_out_of_range', 'size') },
		{ name: 'scramble 422 missing', method: 'GET', path: '/v1/scramble', status: 422, check: problem('missing_parameter', 'size') },
		{ name: 'scramble 422 seed', method: 'GET', path: '/v1/scramble?size=3&seed=9007199254740992', status: 422, check: problem('value_out_of_range', 'seed') },
		{ name: 'scramble 422 parameter', method: 'GET', path: '/v1/scramble?size=3&n=1', status: 422, check: problem('unknown_parameter', 'n') },
		{ name: 'scramble preflight', method: 'OPTIONS', path: '/v1/scramble', status: 204 },
	];
	for (const c of solving) await run(c, srv);
	// the same seed, the same scramble
	const again = await run({ name: 'scramble again', method: 'GET', path: '/v1/scramble?size=3&seed=42', status: 200 }, srv);
	const once = await run({ name: 'scramble once more', method: 'GET', path: '/v1/scramble?size=3&seed=42', status: 200 }, srv);
	if (again.json && once.json && JSON.stringify(again.json) !== JSON.stringify(once.json))
		failures.push(`scramble seed 42 twice differs:\n    ${JSON.stringify(again.json)}\n    ${JSON.stringify(once.json)}`);

	// sessions
	const s = '/v1/sessions';
	const created = (await run({ name: 'create', method: 'POST', path: s, body: { size: 3, title: 'contract' }, status: 201,
		check: (j, res) => {
			expect(j.facelets === SOLVED3 && j.version === 0, 'not a solved version 0');
			expect(res.headers.get('location') === `${s}/${j.id}`, 'Location is not the session path');
			expect(res.headers.get('etag') === '"v0"', 'ETag is not "v0"');
		} }, srv)).json;
	if (!created) throw new Error(`cannot create a session; failures so far:\n${failures.join('\n')}`);
	const id = created.id;
	const auth = { Authorization: `Bearer ${created.write_token}` };
	const path = `${s}/${id}`;
	const seeded = [
		{ name: 'create seeded', method: 'POST', path: s, body: { size: 3, scramble: true, seed: 42 }, status: 201,
			check: (j) => expect(j.seed === 42 && typeof j.scramble === 'string', 'no seed/scramble') },
		{ name: 'create random', method: 'POST', path: s, body: { size: 4, scramble: true }, status: 201 },
		{ name: 'create given', method: 'POST', path: s, body: { facelets: AFTER_R, scramble: "R'", visibility: 'private' }, status: 201,
			check: (j) => expect(j.facelets === SOLVED3, 'scramble not applied') },
		{ name: 'create 400', method: 'POST', path: s, raw: '[', status: 400 },
		{ name: 'create 405', method: 'GET', path: s, status: 405 },
		{ name: 'create 413', method: 'POST', path: s, raw: big, status: 413 },
		{ name: 'create 415', method: 'POST', path: s, raw: '{}', headers: { 'Content-Type': 'text/csv' }, status: 415 },
		{ name: 'create 422 missing', method: 'POST', path: s, body: {}, status: 422 },
		{ name: 'create 422 size', method: 'POST', path: s, body: { size: 200 }, status: 422,
			check: (j) => expect(j.code === 'size_out_of_range' && j.limit === 128, 'not size_out_of_range 128') },
		{ name: 'create 422 seed', method: 'POST', path: s, body: { size: 3, seed: 1 }, status: 422 },
		{ name: 'create 422 visibility', method: 'POST', path: s, body: { size: 3, visibility: 'secret' }, status: 422 },
		{ name: 'create 422 title', method: 'POST', path: s, body: { size: 3, title: 'x'.repeat(201) }, status: 422 },
		{ name: 'create 422 scramble', method: 'POST', path: s, body: { size: 3, scramble: 'R Q' }, status: 422,
			check: (j) => expect(j.field === 'scramble' && j.offset === 2, 'not field scramble, offset 2') },
		{ name: 'create 422 facelets', method: 'POST', path: s, body: { facelets: 'UUUUUX' }, status: 422 },
		{ name: 'create preflight', method: 'OPTIONS', path: s, status: 204 },
	];
	for (const c of seeded) await run(c, srv);

	// races: a room, two players, the host's start, the room's read
	const race = (await run({ name: 'race create', method: 'POST', path: '/v1/races', body: { size: 3, title: 'contract' }, status: 201,
		check: (j, res) => {
			expect(j.status === 'open' && j.players.length === 0 && j.scramble === null, 'not an open race');
			expect(res.headers.get('location') === `/v1/races/${j.id}`, 'Location is not the race path');
		} }, srv)).json;
	if (race) {
		const rp = `/v1/races/${race.id}`;
		const host = { Authorization: `Bearer ${race.host_token}` };
		const raceCases = [
			{ name: 'race create default', method: 'POST', path: '/v1/races', status: 201, check: (j) => expect(j.size === 3, 'not size 3') },
			{ name: 'race create 422 size', method: 'POST', path: '/v1/races', body: { size: 9 }, status: 422,
				check: (j) => expect(j.code === 'size_out_of_range' && j.limit === 7, 'not size_out_of_range 7') },
			{ name: 'race create 422 field', method: 'POST', path: '/v1/races', body: { colour: 1 }, status: 422, check: problem('unknown_field', 'colour') },
			{ name: 'race create 400', method: 'POST', path: '/v1/races', raw: '{', status: 400 },
			{ name: 'race create 415', method: 'POST', path: '/v1/races', headers: { 'Content-Type': 'text/plain' }, raw: '{}', status: 415 },
			{ name: 'race create 405', method: 'GET', path: '/v1/races', status: 405 },
			{ name: 'race create preflight', method: 'OPTIONS', path: '/v1/races', status: 204 },
			{ name: 'race start 409 empty', method: 'POST', path: `${rp}/start`, headers: host, status: 409, check: problem('race_started') },
			{ name: 'race join', method: 'POST', path: `${rp}/players`, body: { name: 'ann' }, status: 201,
				check: (j) => expect(j.seat === 1 && j.race.players.length === 1 && typeof j.write_token === 'string', 'not seat 1') },
			{ name: 'race join 2', method: 'POST', path: `${rp}/players`, body: { name: 'bob' }, status: 201, check: (j) => expect(j.seat === 2, 'not seat 2') },
			{ name: 'race join 409 name', method: 'POST', path: `${rp}/players`, body: { name: 'bob' }, status: 409, check: problem('name_taken', 'name') },
			{ name: 'race join 422 name', method: 'POST', path: `${rp}/players`, body: { name: 'no spaces' }, status: 422, check: problem('bad_name', 'name') },
			{ name: 'race join 422 missing', method: 'POST', path: `${rp}/players`, body: {}, status: 422 },
			{ name: 'race join 404', method: 'POST', path: '/v1/races/AAAAAAAAAAAAAAAAAAAAAA/players', body: { name: 'x' }, status: 404, check: problem('no_such_race') },
			{ name: 'race join preflight', method: 'OPTIONS', path: `${rp}/players`, status: 204 },
			{ name: 'race start 401', method: 'POST', path: `${rp}/start`, status: 401 },
			{ name: 'race start 403', method: 'POST', path: `${rp}/start`, headers: { Authorization: `Bearer ${created.write_token}` }, status: 403, check: problem('wrong_token') },
			{ name: 'race start 422', method: 'POST', path: `${rp}/start`, headers: host, body: { countdown_ms: 99999 }, status: 422,
				check: (j) => expect(j.code === 'value_out_of_range' && j.limit === 10000, 'not value_out_of_range 10000') },
			{ name: 'race start', method: 'POST', path: `${rp}/start`, headers: host, body: { countdown_ms: 0 }, status: 200,
				check: (j) => expect(typeof j.scramble === 'string' && j.go_at !== null && j.players.length === 2, `not started: ${JSON.stringify(j).slice(0, 200)}`) },
			{ name: 'race start 409 again', method: 'POST', path: `${rp}/start`, headers: host, status: 409, check: problem('race_started') },
			{ name: 'race join 409 started', method: 'POST', path: `${rp}/players`, body: { name: 'cy' }, status: 409, check: problem('race_started') },
			{ name: 'race start preflight', method: 'OPTIONS', path: `${rp}/start`, status: 204 },
			{ name: 'race get', method: 'GET', path: rp, status: 200,
				check: (j) => expect(j.status === 'racing' && j.players.every((p) => p.result === null && p.place === null), `not racing: ${JSON.stringify(j).slice(0, 200)}`) },
			{ name: 'race head', method: 'HEAD', path: rp, status: 200 },
			{ name: 'race get 404', method: 'GET', path: '/v1/races/AAAAAAAAAAAAAAAAAAAAAA', status: 404, check: problem('no_such_race') },
			{ name: 'race get 404 shape', method: 'GET', path: '/v1/races/no.such', status: 404, check: problem('no_such_race') },
			{ name: 'race head 404', method: 'HEAD', path: '/v1/races/AAAAAAAAAAAAAAAAAAAAAA', status: 404 },
			{ name: 'race get 422', method: 'GET', path: `${rp}?x=1`, status: 422, check: problem('unknown_parameter', 'x') },
			{ name: 'race get 405', method: 'DELETE', path: rp, status: 405 },
			{ name: 'race preflight', method: 'OPTIONS', path: rp, status: 204 },
		];
		for (const c of raceCases) await run(c, srv);
	}
	const priv = (await run({ name: 'create private', method: 'POST', path: s, body: { size: 2, visibility: 'private', title: 'p' }, status: 201 }, srv)).json;
	const solveSes = (await run({ name: 'create to solve', method: 'POST', path: s, body: { size: 3, scramble: true, seed: 42 }, status: 201 }, srv)).json;
	const bigSes = (await run({ name: 'create 4x4', method: 'POST', path: s, body: { size: 4 }, status: 201 }, srv)).json;
	if (!priv || !solveSes || !bigSes) throw new Error(`cannot create sessions; failures so far:\n${failures.join('\n')}`);
	const solvePath = `${s}/${solveSes.id}`;
	await run({ name: 'moves to solve', method: 'POST', path: `${solvePath}/moves`, headers: { Authorization: `Bearer ${solveSes.write_token}` }, body: { moves: "x y'" }, status: 200 }, srv);
	// a read of a scrambled session says its scramble (a write's reply does not)
	await run({ name: 'get scrambled', method: 'GET', path: solvePath, status: 200,
		check: (j) => expect(j.scramble === solveSes.scramble, 'no scramble in the read') }, srv);
	await run({ name: 'get scrambled faces', method: 'GET', path: `${solvePath}?format=faces&version=0`, status: 200,
		check: (j) => expect(j.scramble === solveSes.scramble, 'no scramble in the faces read') }, srv);

	const cases = [
		{ name: 'get', method: 'GET', path, status: 200 },
		{ name: 'get head', method: 'HEAD', path, status: 200 },
		{ name: 'get 304', method: 'GET', path, headers: { 'If-None-Match': '"v0"' }, status: 304 },
		{ name: 'get head 304', method: 'HEAD', path, headers: { 'If-None-Match': '*' }, status: 304 },
		{ name: 'get formats', method: 'GET', path: `${path}?format=cubie&include=index,orientation,features,render,faces,facelets`, status: 200 },
		{ name: 'get index', method: 'GET', path: `${path}?format=index&version=0`, status: 200 },
		{ name: 'get faces', method: 'GET', path: `${path}?format=faces`, status: 200 },
		{ name: 'get 404', method: 'GET', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA`, status: 404 },
		{ name: 'get 404 bad id', method: 'GET', path: `${s}/no.such`, status: 404 },
		{ name: 'get 404 long id', method: 'GET', path: `${s}/${'A'.repeat(60)}`, status: 404 },
		{ name: 'get 404 version', method: 'GET', path: `${path}?version=5`, status: 404 },
		{ name: 'get head 404', method: 'HEAD', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA`, status: 404 },
		{ name: 'get 405', method: 'PUT', path, raw: '{}', status: 405 },
		{ name: 'get 422 parameter', method: 'GET', path: `${path}?foo=1`, status: 422 },
		{ name: 'get 422 version', method: 'GET', path: `${path}?version=-1`, status: 422 },
		{ name: 'get 422 format', method: 'GET', path: `${path}?format=render`, status: 422 },
		{ name: 'get 422 include', method: 'GET', path: `${path}?include=animation`, status: 422 },
		{ name: 'get private 404', method: 'GET', path: `${s}/${priv.id}`, status: 404 },
		{ name: 'get private', method: 'GET', path: `${s}/${priv.id}`, headers: { Authorization: `Bearer ${priv.write_token}` }, status: 200,
			check: (j) => expect(j.visibility === 'private', 'not private') },
		{ name: 'session preflight', method: 'OPTIONS', path, status: 204 },

		{ name: 'moves', method: 'POST', path: `${path}/moves`, headers: auth, body: { moves: 'R' }, status: 200,
			check: (j, res) => expect(j.facelets === AFTER_R && res.headers.get('etag') === '"v1"', 'not v1 after R') },
		{ name: 'moves if-match', method: 'POST', path: `${path}/moves`, headers: { ...auth, 'If-Match': '"v1"' }, body: { moves: "R'" }, status: 200 },
		{ name: 'moves 400', method: 'POST', path: `${path}/moves`, headers: auth, raw: '{"moves": "R", "moves": "U"}', status: 400 },
		{ name: 'moves 401', method: 'POST', path: `${path}/moves`, body: { moves: 'R' }, status: 401 },
		{ name: 'moves 401 scheme', method: 'POST', path: `${path}/moves`, headers: { Authorization: 'Basic eDp5' }, body: { moves: 'R' }, status: 401 },
		{ name: 'moves 403', method: 'POST', path: `${path}/moves`, headers: { Authorization: `Bearer ${priv.write_token}` }, body: { moves: 'R' }, status: 403 },
		{ name: 'moves 404', method: 'POST', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/moves`, headers: auth, body: { moves: 'R' }, status: 404 },
		{ name: 'moves 405', method: 'GET', path: `${path}/moves`, status: 405 },
		{ name: 'moves 412', method: 'POST', path: `${path}/moves`, headers: { ...auth, 'If-Match': '"v0"' }, body: { moves: 'R' }, status: 412,
			check: (j, res) => expect(j.current_version === 2 && res.headers.get('etag') === '"v2"', 'not current_version 2') },
		{ name: 'moves 412 junk', method: 'POST', path: `${path}/moves`, headers: { ...auth, 'If-Match': 'junk' }, body: { moves: 'R' }, status: 412 },
		{ name: 'moves 413', method: 'POST', path: `${path}/moves`, headers: auth, raw: big, status: 413 },
		{ name: 'moves 415', method: 'POST', path: `${path}/moves`, headers: { ...auth, 'Content-Type': 'text/plain' }, raw: '{}', status: 415 },
		{ name: 'moves 422 field', method: 'POST', path: `${path}/moves`, headers: auth, body: { move: 'R' }, status: 422 },
		{ name: 'moves 422 notation', method: 'POST', path: `${path}/moves`, headers: auth, body: { moves: 'R 4R' }, status: 422 },
		{ name: 'moves 422 limit', method: 'POST', path: `${path}/moves`, headers: auth, body: { moves: '(R)100001' }, status: 422 },
		{ name: 'moves preflight', method: 'OPTIONS', path: `${path}/moves`, status: 204 },

		{ name: 'undo', method: 'POST', path: `${path}/undo`, headers: auth, status: 200,
			check: (j) => expect(j.event.type === 'undo' && j.facelets === AFTER_R, 'undo did not revert R\'') },
		{ name: 'undo empty body', method: 'POST', path: `${path}/undo`, headers: auth, body: {}, status: 200 },
		{ name: 'undo 409', method: 'POST', path: `${path}/undo`, headers: auth, status: 409 },
		{ name: 'undo 400', method: 'POST', path: `${path}/undo`, headers: auth, raw: '{', status: 400 },
		{ name: 'undo 401', method: 'POST', path: `${path}/undo`, status: 401 },
		{ name: 'undo 403', method: 'POST', path: `${path}/undo`, headers: { Authorization: 'Bearer ct_x' }, status: 403 },
		{ name: 'undo 404', method: 'POST', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/undo`, headers: auth, status: 404 },
		{ name: 'undo 405', method: 'DELETE', path: `${path}/undo`, status: 405 },
		{ name: 'undo 412', method: 'POST', path: `${path}/undo`, headers: { ...auth, 'If-Match': '"v1"' }, status: 412 },
		{ name: 'undo 413', method: 'POST', path: `${path}/undo`, headers: auth, raw: big, status: 413 },
		{ name: 'undo 415', method: 'POST', path: `${path}/undo`, headers: { ...auth, 'Content-Type': 'text/plain' }, raw: 'x', status: 415 },
		{ name: 'undo 422', method: 'POST', path: `${path}/undo`, headers: auth, body: { steps: 2 }, status: 422 },
		{ name: 'undo preflight', method: 'OPTIONS', path: `${path}/undo`, status: 204 },

		{ name: 'redo', method: 'POST', path: `${path}/redo`, headers: auth, status: 200 },
		{ name: 'redo if-match', method: 'POST', path: `${path}/redo`, headers: { ...auth, 'If-Match': '"v5"' }, status: 200 },
		{ name: 'redo 409', method: 'POST', path: `${path}/redo`, headers: auth, status: 409 },
		{ name: 'redo 400', method: 'POST', path: `${path}/redo`, headers: auth, raw: 'nope', status: 400 },
		{ name: 'redo 401', method: 'POST', path: `${path}/redo`, status: 401 },
		{ name: 'redo 403', method: 'POST', path: `${path}/redo`, headers: { Authorization: 'Bearer ct_x' }, status: 403 },
		{ name: 'redo 404', method: 'POST', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/redo`, headers: auth, status: 404 },
		{ name: 'redo 405', method: 'GET', path: `${path}/redo`, status: 405 },
		{ name: 'redo 412', method: 'POST', path: `${path}/redo`, headers: { ...auth, 'If-Match': '"v0"' }, status: 412 },
		{ name: 'redo 413', method: 'POST', path: `${path}/redo`, headers: auth, raw: big, status: 413 },
		{ name: 'redo 415', method: 'POST', path: `${path}/redo`, headers: { ...auth, 'Content-Type': 'text/plain' }, raw: 'x', status: 415 },
		{ name: 'redo 422', method: 'POST', path: `${path}/redo`, headers: auth, body: { x: 1 }, status: 422 },
		{ name: 'redo preflight', method: 'OPTIONS', path: `${path}/redo`, status: 204 },

		{ name: 'history', method: 'GET', path: `${path}/history`, status: 200,
			check: (j) => expect(j.events.length === 7 && j.next === null, `7 events, next null: ${JSON.stringify(j).slice(0, 200)}`) },
		{ name: 'history page', method: 'GET', path: `${path}/history?after=1&limit=2`, status: 200,
			check: (j) => expect(j.events.length === 2 && j.next === 3, 'not 2 events, next 3') },
		{ name: 'history head', method: 'HEAD', path: `${path}/history?limit=1000`, status: 200 },
		{ name: 'history head 404', method: 'HEAD', path: `${s}/${priv.id}/history`, status: 404 },
		{ name: 'history 404', method: 'GET', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/history`, status: 404 },
		{ name: 'history private 404', method: 'GET', path: `${s}/${priv.id}/history`, status: 404 },
		{ name: 'history private', method: 'GET', path: `${s}/${priv.id}/history`, headers: { Authorization: `Bearer ${priv.write_token}` }, status: 200 },
		{ name: 'history 405', method: 'POST', path: `${path}/history`, raw: '', status: 405 },
		{ name: 'history 422 limit', method: 'GET', path: `${path}/history?limit=1001`, status: 422 },
		{ name: 'history 422 after', method: 'GET', path: `${path}/history?after=x`, status: 422 },
		{ name: 'history 422 parameter', method: 'GET', path: `${path}/history?page=2`, status: 422 },
		{ name: 'history preflight', method: 'OPTIONS', path: `${path}/history`, status: 204 },

		{ name: 'fork', method: 'POST', path: `${path}/fork`, status: 201,
			check: (j) => expect(j.forked_from.id === id && j.forked_from.version === 6, `forked_from is not ${id} at 6 (the current version): ${JSON.stringify(j.forked_from)}`) },
		{ name: 'fork version', method: 'POST', path: `${path}/fork`, body: { version: 1 }, status: 201,
			check: (j) => expect(j.facelets === AFTER_R && j.forked_from.version === 1, 'fork at 1 is not R') },
		{ name: 'fork private', method: 'POST', path: `${s}/${priv.id}/fork`, headers: { Authorization: `Bearer ${priv.write_token}` }, body: {}, status: 201 },
		{ name: 'fork private 404', method: 'POST', path: `${s}/${priv.id}/fork`, status: 404 },
		{ name: 'fork 404 version', method: 'POST', path: `${path}/fork`, body: { version: 99 }, status: 404 },
		{ name: 'fork 400', method: 'POST', path: `${path}/fork`, raw: '{"version": }', status: 400 },
		{ name: 'fork 405', method: 'GET', path: `${path}/fork`, status: 405 },
		{ name: 'fork 413', method: 'POST', path: `${path}/fork`, raw: big, status: 413 },
		{ name: 'fork 415', method: 'POST', path: `${path}/fork`, headers: { 'Content-Type': 'text/plain' }, raw: '{}', status: 415 },
		{ name: 'fork 422', method: 'POST', path: `${path}/fork`, body: { version: -1 }, status: 422 },
		{ name: 'fork 422 type', method: 'POST', path: `${path}/fork`, body: { version: '1' }, status: 422 },
		{ name: 'fork preflight', method: 'OPTIONS', path: `${path}/fork`, status: 204 },

		{ name: 'reset', method: 'POST', path: `${path}/reset`, headers: auth, status: 200,
			check: (j) => expect(j.facelets === SOLVED3 && !j.can_undo && !j.can_redo, 'reset') },
		{ name: 'reset if-match', method: 'POST', path: `${path}/reset`, headers: { ...auth, 'If-Match': 'W/"v7"' }, body: {}, status: 200 },
		{ name: 'reset 400', method: 'POST', path: `${path}/reset`, headers: auth, raw: '{"a":1}x', status: 400 },
		{ name: 'reset 401', method: 'POST', path: `${path}/reset`, status: 401 },
		{ name: 'reset 403', method: 'POST', path: `${path}/reset`, headers: { Authorization: 'Bearer ct_x' }, status: 403 },
		{ name: 'reset 404', method: 'POST', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/reset`, headers: auth, status: 404 },
		{ name: 'reset 405', method: 'GET', path: `${path}/reset`, status: 405 },
		{ name: 'reset 412', method: 'POST', path: `${path}/reset`, headers: { ...auth, 'If-Match': '"v1"' }, status: 412 },
		{ name: 'reset 413', method: 'POST', path: `${path}/reset`, headers: auth, raw: big, status: 413 },
		{ name: 'reset 415', method: 'POST', path: `${path}/reset`, headers: { ...auth, 'Content-Type': 'text/plain' }, raw: 'x', status: 415 },
		{ name: 'reset 422', method: 'POST', path: `${path}/reset`, headers: auth, body: { to: 0 }, status: 422 },
		{ name: 'reset preflight', method: 'OPTIONS', path: `${path}/reset`, status: 204 },

		{ name: 'session solve', method: 'POST', path: `${solvePath}/solve`, status: 201,
			check: (j, res) => expect(j.session_id === solveSes.id && j.version === 1 && j.length > 0 && res.headers.get('etag') === '"v1"', `not a solve of v1: ${JSON.stringify(j)}`) },
		{ name: 'session solve method', method: 'POST', path: `${solvePath}/solve`, body: { method: 'twophase' }, status: 201 },
		{ name: 'session solve private', method: 'POST', path: `${s}/${priv.id}/solve`, headers: { Authorization: `Bearer ${priv.write_token}` }, body: {}, status: 201,
			check: (j) => expect(j.method === 'optimal' && j.length === 0, 'the private 2×2 is solved: optimal, 0 moves') },
		{ name: 'session solve private 404', method: 'POST', path: `${s}/${priv.id}/solve`, status: 404 },
		{ name: 'session solve 400', method: 'POST', path: `${solvePath}/solve`, raw: '{"method"', status: 400 },
		{ name: 'session solve 404', method: 'POST', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/solve`, status: 404 },
		{ name: 'session solve 405', method: 'GET', path: `${solvePath}/solve`, status: 405 },
		{ name: 'session solve 413', method: 'POST', path: `${solvePath}/solve`, raw: big, status: 413 },
		{ name: 'session solve 415', method: 'POST', path: `${solvePath}/solve`, headers: { 'Content-Type': 'text/plain' }, raw: '{}', status: 415 },
		{ name: 'session solve 422 field', method: 'POST', path: `${solvePath}/solve`, body: { max_length: 3 }, status: 422, check: problem('unknown_field', 'max_length') },
		{ name: 'session solve 422 method', method: 'POST', path: `${solvePath}/solve`, body: { method: 'reduction' }, status: 422, check: problem('method_unavailable', 'method') },
		{ name: 'session solve big', method: 'POST', path: `${s}/${bigSes.id}/solve`, status: 201,
			check: (j) => expect(j.method === 'reduction' && j.length === j.solution.split(' ').filter((m) => m).length, `big session solve: ${JSON.stringify(j)}`) },
		{ name: 'session solve 422 method big', method: 'POST', path: `${s}/${bigSes.id}/solve`, body: { method: 'twophase' }, status: 422, check: problem('method_unavailable', 'method') },
		{ name: 'session solve preflight', method: 'OPTIONS', path: `${solvePath}/solve`, status: 204 },
		{ name: 'solves', method: 'GET', path: `${solvePath}/solves`, status: 200,
			check: (j) => expect(j.solves.length === 2 && j.solves[0].id < j.solves[1].id && j.next === null, `2 solves, increasing: ${JSON.stringify(j).slice(0, 300)}`) },
		{ name: 'solves page', method: 'GET', path: `${solvePath}/solves?limit=1`, status: 200,
			check: (j) => expect(j.solves.length === 1 && j.next === j.solves[0].id, 'next is not the last id') },
		{ name: 'solves after', method: 'GET', path: `${solvePath}/solves?after=0&limit=1000`, status: 200 },
		{ name: 'solves head', method: 'HEAD', path: `${solvePath}/solves`, status: 200 },
		{ name: 'solves head 404', method: 'HEAD', path: `${s}/${priv.id}/solves`, status: 404 },
		{ name: 'solves private 404', method: 'GET', path: `${s}/${priv.id}/solves`, status: 404 },
		{ name: 'solves private', method: 'GET', path: `${s}/${priv.id}/solves`, headers: { Authorization: `Bearer ${priv.write_token}` }, status: 200,
			check: (j) => expect(j.solves.length === 1, 'the private session has one solve') },
		{ name: 'solves 404', method: 'GET', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/solves`, status: 404 },
		{ name: 'solves 405', method: 'POST', path: `${solvePath}/solves`, raw: '', status: 405 },
		{ name: 'solves 422 limit', method: 'GET', path: `${solvePath}/solves?limit=0`, status: 422,
			check: (j) => expect(j.code === 'value_out_of_range' && j.limit === 1000, 'not out of range, limit 1000') },
		{ name: 'solves 422 parameter', method: 'GET', path: `${solvePath}/solves?version=1`, status: 422, check: problem('unknown_parameter', 'version') },
		{ name: 'solves preflight', method: 'OPTIONS', path: `${solvePath}/solves`, status: 204 },
		// timed solves: a start on the scrambled session, then its list
		{ name: 'timed start', method: 'POST', path: `${solvePath}/timed`, headers: { Authorization: `Bearer ${solveSes.write_token}` }, status: 201,
			check: (j) => expect(j.status === 'inspecting' && j.actor === 'owner' && j.started_at === null, `not inspecting: ${JSON.stringify(j)}`) },
		{ name: 'timed start version 0', method: 'POST', path: `${solvePath}/timed`, headers: { Authorization: `Bearer ${solveSes.write_token}` }, body: { version: 0 }, status: 201,
			check: (j) => expect(j.version === 0 && j.scramble === solveSes.scramble, 'not the session\'s scramble at version 0') },
		{ name: 'timed start 401', method: 'POST', path: `${solvePath}/timed`, status: 401 },
		{ name: 'timed start 403', method: 'POST', path: `${solvePath}/timed`, headers: { Authorization: `Bearer ${priv.write_token}` }, status: 403 },
		{ name: 'timed start 404', method: 'POST', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/timed`, headers: { Authorization: `Bearer ${solveSes.write_token}` }, status: 404 },
		{ name: 'timed start 422 version', method: 'POST', path: `${solvePath}/timed`, headers: { Authorization: `Bearer ${solveSes.write_token}` }, body: { version: 99 }, status: 422,
			check: (j) => expect(j.code === 'value_out_of_range' && j.field === 'version', 'not value_out_of_range on version') },
		{ name: 'timed start 422 field', method: 'POST', path: `${solvePath}/timed`, headers: { Authorization: `Bearer ${solveSes.write_token}` }, body: { when: 1 }, status: 422, check: problem('unknown_field', 'when') },
		{ name: 'timed start 415', method: 'POST', path: `${solvePath}/timed`, headers: { Authorization: `Bearer ${solveSes.write_token}`, 'Content-Type': 'text/plain' }, raw: '{}', status: 415 },
		{ name: 'timed', method: 'GET', path: `${solvePath}/timed`, status: 200,
			check: (j) => expect(j.timed_solves.length === 2 && j.timed_solves[0].status === 'abandoned' && j.players.owner.count === 0, `two timed solves: ${JSON.stringify(j).slice(0, 300)}`) },
		{ name: 'timed head', method: 'HEAD', path: `${solvePath}/timed`, status: 200 },
		{ name: 'timed head 404', method: 'HEAD', path: `${s}/${priv.id}/timed`, status: 404 },
		{ name: 'timed private 404', method: 'GET', path: `${s}/${priv.id}/timed`, status: 404 },
		{ name: 'timed 422 parameter', method: 'GET', path: `${solvePath}/timed?limit=1`, status: 422, check: problem('unknown_parameter', 'limit') },
		{ name: 'timed 405', method: 'PUT', path: `${solvePath}/timed`, raw: '{}', status: 405 },
		{ name: 'timed preflight', method: 'OPTIONS', path: `${solvePath}/timed`, status: 204 },

		{ name: 'metrics', method: 'GET', path: '/metrics', status: 200,
			check: (j, res, text) => {
				expect(text.includes('cubed_http_requests_total{route="/v1/sessions/{id}/moves",status="200"}'), 'no moves 200 count');
				expect(text.includes('cubed_commit_batch_size_bucket{le="+Inf"}'), 'no commit batch histogram');
			} },

		{ name: 'delete 401', method: 'DELETE', path, status: 401 },
		{ name: 'delete 403', method: 'DELETE', path, headers: { Authorization: `Bearer ${priv.write_token}` }, status: 403 },
		{ name: 'delete', method: 'DELETE', path, headers: auth, status: 204 },
		{ name: 'delete 404', method: 'DELETE', path, headers: auth, status: 404 },
		{ name: 'deleted 404', method: 'GET', path, status: 404 },
	];
	for (const c of cases) await run(c, srv);

	// multiplayer: tokens, idempotent retries, live streams
	const live = (await run({ name: 'create live', method: 'POST', path: s, body: { size: 3 }, status: 201 }, srv)).json;
	const lp = `${s}/${live.id}`;
	const owner = { Authorization: `Bearer ${live.write_token}` };
	const alice = (await run({ name: 'token add', method: 'POST', path: `${lp}/tokens`, headers: owner, body: { role: 'write', name: 'alice' }, status: 201,
		check: (j, res) => expect(j.id === 1 && j.name === 'alice' && j.token.startsWith('ct_') && res.headers.get('location') === `${lp}/tokens/1`, 'not token 1 alice') }, srv)).json;
	const reader = (await run({ name: 'token add read', method: 'POST', path: `${lp}/tokens`, headers: owner, body: { role: 'read' }, status: 201 }, srv)).json;
	const liveCases = [
		{ name: 'token 401', method: 'POST', path: `${lp}/tokens`, body: { role: 'read' }, status: 401 },
		{ name: 'token 403', method: 'POST', path: `${lp}/tokens`, headers: { Authorization: `Bearer ${alice.token}` }, body: { role: 'read' }, status: 403,
			check: (j) => expect(j.code === 'owner_only', 'not owner_only') },
		{ name: 'token 404', method: 'POST', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/tokens`, headers: owner, body: { role: 'read' }, status: 404 },
		{ name: 'token 409', method: 'POST', path: `${lp}/tokens`, headers: owner, body: { role: 'read', name: 'alice' }, status: 409 },
		{ name: 'token 400', method: 'POST', path: `${lp}/tokens`, headers: owner, raw: '{', status: 400 },
		{ name: 'token 413', method: 'POST', path: `${lp}/tokens`, headers: owner, raw: big, status: 413 },
		{ name: 'token 415', method: 'POST', path: `${lp}/tokens`, headers: { ...owner, 'Content-Type': 'text/plain' }, raw: '{}', status: 415 },
		{ name: 'token 422', method: 'POST', path: `${lp}/tokens`, headers: owner, body: { role: 'admin' }, status: 422 },
		{ name: 'token 405', method: 'PUT', path: `${lp}/tokens`, raw: '{}', status: 405 },
		{ name: 'tokens', method: 'GET', path: `${lp}/tokens`, headers: owner, status: 200,
			check: (j) => expect(j.tokens.length === 2 && !JSON.stringify(j).includes('ct_'), 'not two tokens without secrets') },
		{ name: 'tokens head', method: 'HEAD', path: `${lp}/tokens`, headers: owner, status: 200 },
		{ name: 'tokens head 401', method: 'HEAD', path: `${lp}/tokens`, status: 401 },
		{ name: 'tokens head 403', method: 'HEAD', path: `${lp}/tokens`, headers: { Authorization: `Bearer ${alice.token}` }, status: 403 },
		{ name: 'tokens 401', method: 'GET', path: `${lp}/tokens`, status: 401 },
		{ name: 'tokens 403', method: 'GET', path: `${lp}/tokens`, headers: { Authorization: `Bearer ${reader.token}` }, status: 403 },
		{ name: 'tokens 404', method: 'GET', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/tokens`, headers: owner, status: 404 },
		{ name: 'tokens 422', method: 'GET', path: `${lp}/tokens?x=1`, headers: owner, status: 422 },
		{ name: 'tokens preflight', method: 'OPTIONS', path: `${lp}/tokens`, status: 204 },
		{ name: 'moves co-player', method: 'POST', path: `${lp}/moves`, headers: { Authorization: `Bearer ${alice.token}`, 'Idempotency-Key': 'a-1' }, body: { moves: 'R' }, status: 200,
			check: (j) => expect(j.event.actor === 'alice' && j.version === 1, 'not alice at v1') },
		{ name: 'moves replayed', method: 'POST', path: `${lp}/moves`, headers: { Authorization: `Bearer ${alice.token}`, 'Idempotency-Key': 'a-1' }, body: { moves: 'R' }, status: 200,
			check: (j, res) => expect(j.version === 1 && res.headers.get('idempotent-replayed') === 'true', 'not a replay of v1') },
		{ name: 'moves key reused', method: 'POST', path: `${lp}/moves`, headers: { Authorization: `Bearer ${alice.token}`, 'Idempotency-Key': 'a-1' }, body: { moves: 'U' }, status: 422,
			check: (j) => expect(j.code === 'idempotency_key_reused', 'not idempotency_key_reused') },
		{ name: 'moves read token 403', method: 'POST', path: `${lp}/moves`, headers: { Authorization: `Bearer ${reader.token}` }, body: { moves: 'R' }, status: 403,
			check: (j) => expect(j.code === 'read_only_token', 'not read_only_token') },
		{ name: 'watch', method: 'GET', path: `${lp}/events`, stream: 'event: state', status: 200,
			check: (j, res, text) => expect(res.headers.get('content-type') === 'text/event-stream' && text.includes('id: 1\nevent: state'), `not a state event at 1: ${text}`) },
		{ name: 'watch replay', method: 'GET', path: `${lp}/events?after=0`, stream: 'event: moves', status: 200,
			check: (j, res, text) => expect(text.includes('id: 1\nevent: moves\ndata: {"version":1,"type":"moves","moves":"R","actor":"alice"'), `no replay of v1: ${text}`) },
		{ name: 'watch last-event-id', method: 'GET', path: `${lp}/events`, headers: { 'Last-Event-ID': '0' }, stream: 'event: moves', status: 200 },
		{ name: 'watch head', method: 'HEAD', path: `${lp}/events`, status: 200 },
		{ name: 'watch head 404', method: 'HEAD', path: `${s}/${priv.id}/events`, status: 404 },
		{ name: 'watch head 422', method: 'HEAD', path: `${lp}/events?after=9`, status: 422 },
		{ name: 'watch 404', method: 'GET', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/events`, status: 404 },
		{ name: 'watch private 404', method: 'GET', path: `${s}/${priv.id}/events`, status: 404 },
		{ name: 'watch private', method: 'GET', path: `${s}/${priv.id}/events?token=${priv.read_token}`, stream: 'event: state', status: 200 },
		{ name: 'watch 405', method: 'POST', path: `${lp}/events`, raw: '', status: 405 },
		{ name: 'watch 422', method: 'GET', path: `${lp}/events?after=9`, status: 422,
			check: (j) => expect(j.code === 'value_out_of_range' && j.current_version === 1, 'not value_out_of_range at 1') },
		{ name: 'watch 422 header', method: 'GET', path: `${lp}/events`, headers: { 'Last-Event-ID': 'x' }, status: 422 },
		{ name: 'watch preflight', method: 'OPTIONS', path: `${lp}/events`, status: 204 },
		{ name: 'watch owner token in url', method: 'GET', path: `${lp}/events?token=${live.write_token}`, status: 403,
			check: (j) => expect(j.code === 'token_in_url' && j.field === 'token', 'not token_in_url') },
		{ name: 'watch head token in url', method: 'HEAD', path: `${s}/${priv.id}/events?token=${priv.write_token}`, status: 403 },
		{ name: 'ticket', method: 'POST', path: `${s}/${priv.id}/tickets`, headers: { Authorization: `Bearer ${priv.write_token}` }, status: 201,
			check: (j, res) => expect(j.events === `${s}/${priv.id}/events?ticket=${j.ticket}` && j.expires_in === 60 && res.headers.get('cache-control') === 'no-store', `not a 60 s ticket: ${JSON.stringify(j)}`) },
		{ name: 'ticket 401', method: 'POST', path: `${lp}/tickets`, status: 401 },
		{ name: 'ticket 403', method: 'POST', path: `${lp}/tickets`, headers: { Authorization: `Bearer ${priv.write_token}` }, status: 403,
			check: (j) => expect(j.code === 'wrong_token', 'not wrong_token') },
		// a private session is not there for a client without its token
		{ name: 'ticket private no token 404', method: 'POST', path: `${s}/${priv.id}/tickets`, status: 404,
			check: (j) => expect(j.code === 'no_such_session', 'not no_such_session') },
		{ name: 'ticket private wrong token 404', method: 'POST', path: `${s}/${priv.id}/tickets`, headers: owner, status: 404,
			check: (j) => expect(j.code === 'no_such_session', 'not no_such_session') },
		{ name: 'ticket 404', method: 'POST', path: `${s}/AAAAAAAAAAAAAAAAAAAAAA/tickets`, headers: owner, status: 404 },
		{ name: 'ticket 405', method: 'GET', path: `${s}/${priv.id}/tickets`, status: 405 },
		{ name: 'ticket 413', method: 'POST', path: `${s}/${priv.id}/tickets`, headers: owner, raw: big, status: 413 },
		{ name: 'ticket preflight', method: 'OPTIONS', path: `${s}/${priv.id}/tickets`, status: 204 },
		{ name: 'revoke 403', method: 'DELETE', path: `${lp}/tokens/1`, headers: { Authorization: `Bearer ${alice.token}` }, status: 403 },
		{ name: 'revoke 401', method: 'DELETE', path: `${lp}/tokens/1`, status: 401 },
		{ name: 'revoke', method: 'DELETE', path: `${lp}/tokens/1`, headers: owner, status: 204 },
		{ name: 'revoke 404', method: 'DELETE', path: `${lp}/tokens/1`, headers: owner, status: 404,
			check: (j) => expect(j.code === 'no_such_token', 'not no_such_token') },
		{ name: 'revoke 405', method: 'GET', path: `${lp}/tokens/1`, status: 405 },
		{ name: 'revoke preflight', method: 'OPTIONS', path: `${lp}/tokens/1`, status: 204 },
		{ name: 'moves revoked 403', method: 'POST', path: `${lp}/moves`, headers: { Authorization: `Bearer ${alice.token}` }, body: { moves: 'R' }, status: 403,
			check: (j) => expect(j.code === 'wrong_token', 'not wrong_token') },
	];
	for (const c of liveCases) await run(c, srv);
	// the ticket just minted opens the private stream
	const t = (await run({ name: 'ticket for watch', method: 'POST', path: `${s}/${priv.id}/tickets`, headers: { Authorization: `Bearer ${priv.read_token}` }, status: 201 }, srv)).json;
	if (t)
		await run({ name: 'watch private ticket', method: 'GET', path: t.events, stream: 'event: state', status: 200 }, srv);

	// caching: deterministic replies revalidate (fetch sends
	// Accept-Encoding, so the tags carry the coding; a 304 repeats it)
	for (const path of ['/openapi.yaml', '/v1/scramble?size=5&seed=3']) {
		const first = await run({ name: `etag ${path}`, method: 'GET', path, status: 200,
			check: (j, res) => expect(/^public, max-age=[0-9]+$/.test(res.headers.get('cache-control')) && res.headers.get('etag'), 'no public caching or no ETag') }, srv);
		const tag = first.res?.headers.get('etag');
		if (tag)
			await run({ name: `304 ${path}`, method: 'GET', path, headers: { 'If-None-Match': tag }, status: 304,
				check: (j, res) => expect(res.headers.get('etag') === tag, `304 with ETag ${res.headers.get('etag')}, sent ${tag}`) }, srv);
	}

	// optimal solves as jobs (level 0 on this server): 202 with the job,
	// GET until done, DELETE; a random state runs far longer than this
	// check, which makes it the job to cancel
	const jobCase = (name, method, path, status, check) => ({ name, method, path, status, check });
	const accepted = (j, res) => expect(['queued', 'running', 'done'].includes(j.state) && j.method === 'optimal' &&
		res.headers.get('location') === `/v1/jobs/${j.id}` && res.headers.get('retry-after') !== null,
		`not a new job with its Location: ${JSON.stringify(j)}`);
	const short = (await run({ name: 'solve optimal', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, method: 'optimal' }, status: 202, check: accepted }, srv)).json;
	const long = (await run({ name: 'solve optimal long', method: 'POST', path: '/v1/solve', body: { facelets: SCRAMBLED, method: 'optimal', max_length: 20, timeout_ms: 600000 }, status: 202, check: accepted }, srv)).json;
	const sesJob = (await run({ name: 'session solve optimal', method: 'POST', path: `${solvePath}/solve`, body: { method: 'optimal' }, status: 202,
		check: (j, res) => { accepted(j, res); expect(j.session_id === solveSes.id && j.version === 1 && j.solve_id === null && res.headers.get('etag') === '"v1"', `not a job of v1: ${JSON.stringify(j)}`); } }, srv)).json;
	if (!short || !long || !sesJob) throw new Error(`cannot submit jobs; failures so far:\n${failures.join('\n')}`);
	// the short one finishes once the tables are loaded (outside the checked exchanges)
	const until = Date.now() + 240000;
	for (;;) {
		const j = await (await fetch(`${srv.base}/v1/jobs/${short.id}`)).json();
		if (j.state === 'done') break;
		if (j.state !== 'queued' && j.state !== 'running') throw new Error(`the optimal job ended ${JSON.stringify(j)}`);
		if (Date.now() > until) throw new Error(`the optimal job did not finish in 240 s: ${JSON.stringify(j)}`);
		await new Promise((ok) => setTimeout(ok, 100));
	}
	const jobs = [
		jobCase('job', 'GET', `/v1/jobs/${short.id}`, 200,
			(j) => expect(j.state === 'done' && j.result.solution === "R'" && j.result.length === 1 && j.result.optimal === true && j.result.metric === 'htm',
				`not R' done: ${JSON.stringify(j)}`)),
		jobCase('job head', 'HEAD', `/v1/jobs/${short.id}`, 200),
		jobCase('job 409', 'DELETE', `/v1/jobs/${short.id}`, 409,
			(j) => expect(j.code === 'job_finished' && j.state === 'done', `not job_finished: ${JSON.stringify(j)}`)),
		jobCase('job running', 'GET', `/v1/jobs/${long.id}`, 200,
			(j, res) => expect(['queued', 'running'].includes(j.state) && res.headers.get('retry-after') === '1', `not in progress: ${JSON.stringify(j)}`)),
		jobCase('job delete', 'DELETE', `/v1/jobs/${long.id}`, 200,
			(j) => expect(j.state === 'cancelled' && j.finished_at !== null, `not cancelled: ${JSON.stringify(j)}`)),
		jobCase('job delete session', 'DELETE', `/v1/jobs/${sesJob.id}`, 200),
		jobCase('job 404', 'GET', '/v1/jobs/nope', 404, problem('no_such_job')),
		jobCase('job head 404', 'HEAD', '/v1/jobs/nope', 404),
		jobCase('job delete 404', 'DELETE', '/v1/jobs/nope', 404, problem('no_such_job')),
		jobCase('job 410', 'GET', '/v1/jobs/j00000000-1-0123456789abcdef', 410,
			(j) => expect(j.code === 'job_lost' && j.state === 'lost', `not job_lost: ${JSON.stringify(j)}`)),
		jobCase('job head 410', 'HEAD', '/v1/jobs/j00000000-1-0123456789abcdef', 410),
		jobCase('job delete 410', 'DELETE', '/v1/jobs/j00000000-1-0123456789abcdef', 410),
		{ name: 'job 405', method: 'POST', path: '/v1/jobs/x', raw: '', status: 405 },
		jobCase('job preflight', 'OPTIONS', '/v1/jobs/x', 204),
		{ name: 'ready optimal', method: 'GET', path: '/readyz', status: 200,
			check: (j) => expect(j.solver.optimal.tables === 'ready' && j.solver.optimal.level === 0 && j.solver.optimal.jobs.kept >= 3, `optimal: ${JSON.stringify(j.solver.optimal)}`) },
		{ name: 'solve optimal 422 target', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, method: 'optimal', target: 'cross' }, status: 422, check: problem('not_applicable', 'target') },
		{ name: 'solve optimal 422 timeout', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, method: 'optimal', timeout_ms: 0 }, status: 422, check: problem('value_out_of_range', 'timeout_ms') },
	];
	for (const c of jobs) await run(c, srv);

	// datasets (docs/dataset.md): a column's .npy streamed, meta.json,
	// NDJSON, a range, 416, bad parameters; a solver-labelled job and
	// its files
	const dq = 'count=50&depth=1-12&seed=3';
	const npy = (len) => (j, res, text) => expect(res.headers.get('content-type') === 'application/octet-stream' &&
		res.headers.get('content-length') === String(len) && res.headers.get('accept-ranges') === 'bytes', `not a ${len}-byte .npy`);
	const datasets = [
		{ name: 'dataset', method: 'GET', path: `/v1/dataset?${dq}&column=depth`, status: 200, check: npy(128 + 50) },
		{ name: 'dataset head', method: 'HEAD', path: `/v1/dataset?${dq}&column=features`, status: 200,
			check: (j, res) => expect(res.headers.get('content-length') === String(128 + 50 * 364), 'no Content-Length') },
		{ name: 'dataset meta', method: 'GET', path: `/v1/dataset?${dq}&column=meta`, status: 200,
			check: (j) => expect(j.format === 'cubed-dataset' && j.files.depth.shape[0] === 50, `not the meta: ${JSON.stringify(j)}`) },
		{ name: 'dataset ndjson', method: 'GET', path: `/v1/dataset?count=3&depth=2&columns=index&format=ndjson`, status: 200,
			check: (j, res, text) => expect(text.trim().split('\n').length === 3 && JSON.parse(text.split('\n')[0]).depth === 2, `not 3 lines: ${text}`) },
		{ name: 'dataset 206', method: 'GET', path: `/v1/dataset?${dq}&column=depth`, headers: { Range: 'bytes=128-137' }, status: 206,
			check: (j, res) => expect(res.headers.get('content-range') === 'bytes 128-137/178', `Content-Range ${res.headers.get('content-range')}`) },
		{ name: 'dataset 416', method: 'GET', path: `/v1/dataset?${dq}&column=depth`, headers: { Range: 'bytes=178-' }, status: 416,
			check: (j, res) => expect(j.code === 'range_not_satisfiable' && res.headers.get('content-range') === 'bytes */178', 'not 416 */178') },
		{ name: 'dataset 422', method: 'GET', path: '/v1/dataset?count=10&depth=9-3&column=depth', status: 422, check: problem('bad_parameter', 'depth') },
		{ name: 'dataset 422 limit', method: 'GET', path: '/v1/dataset?count=10&depth=1-101&column=depth', status: 422,
			check: (j) => expect(j.code === 'limit_exceeded' && j.field === 'depth' && j.limit === 100, `not limit_exceeded: ${JSON.stringify(j)}`) },
		{ name: 'dataset 422 job', method: 'GET', path: '/v1/dataset?count=10&depth=1-5&labels=twophase&column=twophase', status: 422,
			check: problem('dataset_needs_job', 'labels') },
		{ name: 'dataset preflight', method: 'OPTIONS', path: '/v1/dataset', status: 204 },
		{ name: 'dataset 405', method: 'DELETE', path: '/v1/dataset', status: 405 },
	];
	for (const c of datasets) await run(c, srv);
	const djob = (await run({ name: 'dataset job', method: 'POST', path: `/v1/dataset?${dq}&labels=depth,twophase,optimal`, status: 202,
		check: (j, res) => expect(j.kind === 'dataset' && res.headers.get('location') === `/v1/jobs/${j.id}`, `not a dataset job: ${JSON.stringify(j)}`) }, srv)).json;
	if (djob) {
		const until3 = Date.now() + 240000;
		for (;;) {
			const j = await (await fetch(`${srv.base}/v1/jobs/${djob.id}`)).json();
			if (j.state === 'done') break;
			if (j.state !== 'queued' && j.state !== 'running') throw new Error(`the dataset job ended ${JSON.stringify(j)}`);
			if (Date.now() > until3) throw new Error(`the dataset job did not finish: ${JSON.stringify(j)}`);
			await new Promise((ok) => setTimeout(ok, 100));
		}
		for (const c of [
			{ name: 'dataset job done', method: 'GET', path: `/v1/jobs/${djob.id}`, status: 200,
				check: (j) => expect(j.state === 'done' && j.progress.done === 50 && j.files.length === 5, `not done with 5 files: ${JSON.stringify(j)}`) },
			{ name: 'dataset job file', method: 'GET', path: `/v1/jobs/${djob.id}/files/twophase.npy`, status: 200, check: npy(128 + 50) },
			{ name: 'dataset job file head', method: 'HEAD', path: `/v1/jobs/${djob.id}/files/optimal.npy`, status: 200 },
			{ name: 'dataset job file 206', method: 'GET', path: `/v1/jobs/${djob.id}/files/depth.npy`, headers: { Range: 'bytes=-10' }, status: 206 },
			{ name: 'dataset job meta', method: 'GET', path: `/v1/jobs/${djob.id}/files/meta.json`, status: 200,
				check: (j) => expect(j.labels.join() === 'depth,twophase,optimal', `labels ${j.labels}`) },
			{ name: 'dataset job file 404', method: 'GET', path: `/v1/jobs/${djob.id}/files/stickers.npy`, status: 404, check: problem('no_such_file') },
			{ name: 'dataset job file preflight', method: 'OPTIONS', path: `/v1/jobs/${djob.id}/files/meta.json`, status: 204 },
		]) await run(c, srv);
	}
	const dlong = (await run({ name: 'dataset job long', method: 'POST', path: '/v1/dataset?count=1000000&labels=twophase&twophase_nodes=1000000', status: 202 }, srv)).json;
	if (dlong) {
		await run({ name: 'dataset job file not done', method: 'GET', path: `/v1/jobs/${dlong.id}/files/twophase.npy`, status: 409,
			check: (j) => expect(j.code === 'job_not_done', 'not job_not_done') }, srv);
		await run({ name: 'dataset job cancel', method: 'DELETE', path: `/v1/jobs/${dlong.id}`, status: 200,
			check: (j) => expect(j.kind === 'dataset' && j.state === 'cancelled', 'not cancelled') }, srv);
	}

	// the job caps: one worker, one waiting job per client (429), and a
	// queue of one (503), each with Retry-After
	const capped = await startServer(['--optimal-level', '0', '--solve-workers', '1', '--solve-client-queued', '1', '--solve-queue', '4']);
	const queued = await startServer(['--optimal-level', '0', '--solve-workers', '1', '--solve-client-queued', '4', '--solve-queue', '1']);
	for (const [server, status, code] of [[capped, 429, 'too_many_jobs'], [queued, 503, 'queue_full']]) {
		const body = { facelets: SCRAMBLED, method: 'optimal' };
		for (let i = 0; i < 2; i++) {
			const r = await fetch(`${server.base}/v1/solve`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
			if (r.status !== 202) throw new Error(`job ${i} on the capped server: ${r.status} ${await r.text()}`);
			const j = await r.json();
			// the first one must be running before the second waits
			const until2 = Date.now() + 240000;
			while (i === 0) {
				const g = await (await fetch(`${server.base}/v1/jobs/${j.id}`)).json();
				if (g.state === 'running') break;
				if (Date.now() > until2) throw new Error(`the first job did not start: ${JSON.stringify(g)}`);
				await new Promise((ok) => setTimeout(ok, 100));
			}
		}
		await run({ name: `solve optimal ${status}`, method: 'POST', path: '/v1/solve', body, status,
			check: (j, res) => expect(j.code === code && res.headers.get('retry-after') !== null, `not ${code} with Retry-After: ${JSON.stringify(j)}`) }, server);
		await stopServer(server);
	}

	// 503 tables_not_ready: a server building its tables in an empty
	// directory, asked at once (the 3×3 tables take seconds), and one
	// run with --solver 0 (tables off for good)
	const fresh = mkdtempSync(join(tmpdir(), 'cubed-contract-tables-'));
	tableDirs.push(fresh);
	const building = await startServer(['--tables', fresh]);
	await run({ name: 'solve 503', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R }, status: 503,
		check: (j, res) => expect(j.code === 'tables_not_ready' && ['loading', 'building'].includes(j.tables) && res.headers.get('retry-after') !== null,
			`not tables_not_ready loading/building with Retry-After: ${JSON.stringify(j)}`) }, building);
	await stopServer(building);
	const off = await startServer(['--solver', '0']);
	await run({ name: 'ready off', method: 'GET', path: '/readyz', status: 200,
		check: (j) => expect(j.solver['3x3'].tables === 'off' && j.solver['2x2'].tables === 'off', 'tables not off') }, off);
	await run({ name: 'solve 503 off', method: 'POST', path: '/v1/solve', body: { facelets: SOLVED2 }, status: 503,
		check: (j, res) => expect(j.code === 'tables_not_ready' && j.tables === 'off' && res.headers.get('retry-after') === null, 'not tables off, or a Retry-After for a wait that will not help') }, off);
	await run({ name: 'scramble 503', method: 'GET', path: '/v1/scramble?size=3', status: 503 }, off);
	await run({ name: 'solve optimal 503 off', method: 'POST', path: '/v1/solve', body: { facelets: AFTER_R, method: 'optimal' }, status: 503,
		check: (j) => expect(j.code === 'no_jobs', 'not no_jobs') }, off);
	await run({ name: 'job 503 off', method: 'GET', path: '/v1/jobs/nope', status: 503,
		check: (j) => expect(j.code === 'no_jobs', 'not no_jobs') }, off);
	await run({ name: 'ready optimal off', method: 'GET', path: '/readyz', status: 200,
		check: (j) => expect(j.solver.optimal.tables === 'off', 'optimal tables not off') }, off);
	await run({ name: 'scramble head 503', method: 'HEAD', path: '/v1/scramble?size=2', status: 503 }, off);
	const offSes = (await run({ name: 'create off', method: 'POST', path: s, body: { size: 3 }, status: 201 }, off)).json;
	if (offSes)
		await run({ name: 'session solve 503', method: 'POST', path: `${s}/${offSes.id}/solve`, status: 503,
			check: (j) => expect(j.code === 'tables_not_ready', 'not tables_not_ready') }, off);

	// 503: a server that may hold one session
	const small = await startServer(['--max-sessions', '1']);
	await run({ name: 'create one', method: 'POST', path: s, body: { size: 2 }, status: 201 }, small);
	await run({ name: 'create 503', method: 'POST', path: s, body: { size: 2 }, status: 503,
		check: (j) => expect(j.code === 'too_many_sessions', 'not too_many_sessions') }, small);

	// the HTTP layer's limits (server/http/guard.c): 429 past the rate (never
	// on the ops routes), 431 past --max-header, 503 on a connection past
	// --max-connections-per-ip
	const tight = await startServer(['--rate-limit', '1', '--rate-burst', '2', '--max-header', '1024', '--solver', '0']);
	await run({ name: 'patterns burst 1', method: 'GET', path: '/v1/patterns?size=3', status: 200 }, tight);
	await run({ name: 'patterns burst 2', method: 'GET', path: '/v1/patterns?size=2', status: 200 }, tight);
	await run({ name: 'patterns 429', method: 'GET', path: '/v1/patterns?size=3', status: 429,
		check: (j, res) => expect(j.code === 'too_many_requests' && j.limit === 1 && res.headers.get('retry-after') === '1',
			`not too_many_requests, limit 1, Retry-After 1: ${JSON.stringify(j)}`) }, tight);
	await run({ name: 'apply 429', method: 'POST', path: '/v1/apply', body: { size: 3 }, status: 429 }, tight);
	await run({ name: 'create 429', method: 'POST', path: s, body: { size: 3 }, status: 429 }, tight);
	await run({ name: 'health past the rate', method: 'GET', path: '/healthz', status: 200,
		check: (j, res) => expect(res.headers.get('x-content-type-options') === 'nosniff' &&
			res.headers.get('content-security-policy') === "default-src 'none'; frame-ancestors 'none'",
			'no security headers') }, tight);
	await run({ name: 'health 431', method: 'GET', path: '/healthz', headers: { 'X-Pad': 'p'.repeat(1100) }, status: 431,
		check: (j) => expect(j.code === 'headers_too_large' && j.limit === 1024, 'not headers_too_large, limit 1024') }, tight);
	const one = await startServer(['--max-connections-per-ip', '1', '--solver', '0']);
	const { connect } = await import('node:net');
	const hold = connect(one.port, '127.0.0.1');
	await new Promise((ok, fail) => { hold.on('connect', ok); hold.on('error', fail); });
	// the kernel's handshake is not the server taking the connection: poll
	// /healthz (outside the checked exchanges; each poll on a connection
	// of its own, so that a 200 from before the server took the held one
	// keeps no slot) until the held connection fills the address's one
	// slot, within 10 s
	for (const until = Date.now() + 10000; ;) {
		const r = await fetch(`${one.base}/healthz`, { headers: { Connection: 'close' } });
		await r.arrayBuffer();
		if (r.status === 503) break;
		if (Date.now() > until) throw new Error(`/healthz still ${r.status} 10 s after a connection was held at --max-connections-per-ip 1`);
		await new Promise((ok) => setTimeout(ok, 20));
	}
	await run({ name: 'health 503 connections', method: 'GET', path: '/healthz', status: 503,
		check: (j, res) => expect(j.code === 'too_many_connections' && j.limit === 1 && res.headers.get('retry-after') === '1',
			`not too_many_connections, limit 1: ${JSON.stringify(j)}`) }, one);
	hold.destroy();
}

let crashed = null;
checkRouteTable(failures);
try {
	await main();
} catch (e) {
	crashed = e;
}
await stopServers();
const missing = operations.filter((o) => !exercised.has(o.key)).map((o) => o.key);
if (crashed) failures.push(`the check stopped: ${crashed.stack || crashed}`);
for (const m of missing) failures.push(`${m}: no case exercises this operation of the contract`);
if (failures.length) {
	console.error(`contract: ${failures.length} mismatch(es) in ${checked} exchanges:\n`);
	for (const f of failures) console.error(`✗ ${f}\n`);
	process.exit(1);
}
console.log(`contract: ${checked} exchanges, ${exercised.size} operations, all match ${specPath}`);
