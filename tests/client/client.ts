// client.ts — a small typed cubed client, type-checked with tsc --strict
// against the types openapi-typescript generates from openapi.yaml
// (gen/api.d.ts, made by `npm run gen`), then run against a live server it
// spawns (make client-check).
//
// Two things are checked:
//   * at compile time, that every main route's request and response body
//     types are precise — not `unknown` or `any`, which is what the
//     generator makes of schemas it cannot express — and that they say
//     what the server takes (required members required, optional ones
//     optional; see the Assert and @ts-expect-error lines below);
//   * at run time, that a client written only against those types works:
//     each main route answers with the status and values the types and
//     the contract promise.
//
// Usage: node build/client.js <cubed binary> [tables dir]
// Exit status 0 when everything holds, 1 with the reason otherwise.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { components, paths } from './gen/api.js';

type Schemas = components['schemas'];

// ---- types from the contract ---------------------------------------------

type Method = 'get' | 'post' | 'delete';
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<C> = C extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON request body of an operation. */
type ReqBody<O> = O extends { requestBody?: infer RB } ? JsonOf<NonNullable<RB>> : never;
/** The JSON body of one of an operation's responses. */
type ResBody<O, S extends number> = O extends { responses: infer R }
	? S extends keyof R ? JsonOf<R[S]> : never
	: never;

// ---- the type-level checks -------------------------------------------------
// A body type that is `unknown` (or `any`) lets a client send or read
// anything unchecked: the generator's answer to schemas it cannot express.
// Each line below stops compiling if that happens to a main route again.

type IsAny<T> = 0 extends 1 & T ? true : false;
type IsUnknown<T> = unknown extends T ? true : false;
type Precise<T> = IsAny<T> extends true ? false : IsUnknown<T> extends true ? false : [T] extends [never] ? false : true;
type Assert<T extends true> = T;

export type BodiesArePrecise = [
	Assert<Precise<ReqBody<Op<'/v1/apply', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/apply', 'post'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/alg', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/alg', 'post'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/convert', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/convert', 'post'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/validate', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/validate', 'post'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/match', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/match', 'post'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/pieces', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/pieces', 'post'>, 200>>>,
	Assert<Precise<ResBody<Op<'/v1/patterns', 'get'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/solve', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/solve', 'post'>, 200>>>,
	Assert<Precise<ResBody<Op<'/v1/scramble', 'get'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/sessions', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions', 'post'>, 201>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}', 'get'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/sessions/{id}/moves', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/moves', 'post'>, 200>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/undo', 'post'>, 200>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/redo', 'post'>, 200>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/reset', 'post'>, 200>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/fork', 'post'>, 201>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/history', 'get'>, 200>>>,
	Assert<Precise<ReqBody<Op<'/v1/sessions/{id}/tokens', 'post'>>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/tokens', 'post'>, 201>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/tickets', 'post'>, 201>>>,
	Assert<Precise<ResBody<Op<'/v1/sessions/{id}/solve', 'post'>, 201>>>,
	Assert<Precise<ResBody<Op<'/version', 'get'>, 200>>>,
];

// The types say what the server takes: a cube needs a size or facelets …
// @ts-expect-error an apply without size or facelets is not an ApplyRequest
export const noCube: Schemas['ApplyRequest'] = { moves: 'R' };
// @ts-expect-error a convert needs one source
export const noSource: Schemas['ConvertRequest'] = { include: ['faces'] };
// @ts-expect-error a match needs a pattern or a name
export const noPattern: Schemas['MatchRequest'] = { facelets: 'UUUURRRRFFFFDDDDLLLLBBBB' };
// @ts-expect-error a session needs a size or facelets
export const noSession: Schemas['SessionCreateRequest'] = { title: 't' };
// … while optional members stay optional (a default is not a requirement).
export const bareSolve: Schemas['SolveRequest'] = { facelets: 'UUUURRRRFFFFDDDDLLLLBBBB' };
export const bareApply: Schemas['ApplyRequest'] = { size: 3 };
export const bareAlg: Schemas['AlgRequest'] = { moves: 'R' };
export const bareMatch: Schemas['MatchRequest'] = { facelets: 'UUUURRRRFFFFDDDDLLLLBBBB', name: 'solved' };
// @ts-expect-error members are checked: no such member
export const typo: Schemas['SolveRequest'] = { facelets: 'U', timeout: 5 };

// ---- a minimal typed client ----------------------------------------------------

class Failure extends Error {}

function expect(cond: unknown, what: string): asserts cond {
	if (!cond) throw new Failure(what);
}

interface Reply<B> {
	body: B;
	res: Response;
}

let base = '';

/** One request; path parameters in `params` fill `{name}` in the path. */
async function call<P extends keyof paths, M extends Method, S extends number>(
	method: M,
	path: P,
	status: S,
	opts: {
		params?: Record<string, string | number>;
		query?: string;
		body?: ReqBody<Op<P, M>>;
		headers?: Record<string, string>;
	} = {},
): Promise<Reply<ResBody<Op<P, M>, S>>> {
	let url = String(path).replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(String(opts.params?.[k])));
	if (opts.query) url += '?' + opts.query;
	const headers: Record<string, string> = { ...(opts.headers ?? {}) };
	if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
	const res = await fetch(base + url, {
		method: method.toUpperCase(),
		headers,
		body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
	});
	const text = await res.text();
	expect(res.status === status, `${method.toUpperCase()} ${url}: status ${res.status}, expected ${status}: ${text.slice(0, 300)}`);
	// every reply names its request (issue 27)
	expect(/^[0-9a-f]{32}$/.test(res.headers.get('x-request-id') ?? ''), `${url}: no X-Request-Id`);
	const body = (text === '' ? undefined : JSON.parse(text)) as ResBody<Op<P, M>, S>;
	return { body, res };
}

// ---- the server ------------------------------------------------------------------

async function startServer(bin: string, tables: string | undefined): Promise<{ child: ChildProcess; dir: string }> {
	const dir = mkdtempSync(join(tmpdir(), 'cubed-client-'));
	const args = ['--port', '0', '--bind', '127.0.0.1', '--db', join(dir, 'cubed.db'), '--quiet',
		'--solver-warm', '0'];
	if (tables) args.push('--tables', tables);
	const child = spawn(resolve(bin), args, { stdio: ['ignore', 'ignore', 'pipe'] });
	let log = '';
	const port = await new Promise<number>((ok, fail) => {
		const timer = setTimeout(() => fail(new Failure(`no "listening" line within 10 s:\n${log}`)), 10000);
		child.stderr?.on('data', (d: Buffer) => {
			log += d.toString();
			const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
			if (m) {
				clearTimeout(timer);
				ok(Number(m[1]));
			}
		});
		child.on('exit', (code) => {
			clearTimeout(timer);
			fail(new Failure(`the server exited (${code}) before listening:\n${log}`));
		});
	});
	base = `http://127.0.0.1:${port}`;
	return { child, dir };
}

async function stopServer(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const done = new Promise((ok) => child.on('exit', ok));
	child.kill('SIGTERM');
	let timer: NodeJS.Timeout | undefined;
	await Promise.race([done, new Promise((ok) => { timer = setTimeout(ok, 10000); })]);
	clearTimeout(timer);
	if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Poll /readyz until both solver tables are ready (deadline 120 s). */
async function waitTables(): Promise<void> {
	const until = Date.now() + 120000;
	for (;;) {
		const { body } = await call('get', '/readyz', 200);
		if (body.solver['3x3'].tables === 'ready' && body.solver['2x2'].tables === 'ready') return;
		expect(Date.now() < until, `solver tables not ready within 120 s: ${JSON.stringify(body.solver)}`);
		await new Promise((ok) => setTimeout(ok, 200));
	}
}

// ---- the routes --------------------------------------------------------------------

const SOLVED3 = 'UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB';
const AFTER_R = 'UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB';

async function stateless(): Promise<void> {
	const applied = await call('post', '/v1/apply', 200, { body: { size: 3, moves: 'R' } });
	expect(applied.body.facelets === AFTER_R && applied.body.moves.htm === 1, 'apply R');
	const cubie = await call('post', '/v1/apply', 200, {
		body: { facelets: AFTER_R, moves: "R'", format: 'cubie', include: ['index', 'render'] },
	});
	expect(cubie.body.cubie !== undefined && cubie.body.index === '0', `apply R' to R: ${JSON.stringify(cubie.body).slice(0, 200)}`);
	expect(cubie.body.render !== undefined && cubie.body.render.cubies.length === 26, 'render: 26 cubies');

	const alg = await call('post', '/v1/alg', 200, { body: { moves: '[R, U]' } });
	expect(alg.body.expanded === "R U R' U'" && alg.body.inverse === '[U, R]', `alg: ${JSON.stringify(alg.body)}`);

	const conv = await call('post', '/v1/convert', 200, { body: { facelets: AFTER_R, include: ['faces'] } });
	expect(conv.body.size === 3 && conv.body.faces !== undefined, 'convert');
	const back = await call('post', '/v1/convert', 200, { body: { size: 3, index: conv.body.index ?? '' } });
	expect(back.body.facelets === AFTER_R, 'convert index → facelets');

	const val = await call('post', '/v1/validate', 200, { body: { facelets: SOLVED3 } });
	expect(val.body.valid && val.body.error_count === 0, 'validate solved');

	const match = await call('post', '/v1/match', 200, { body: { facelets: AFTER_R, name: 'cross' } });
	expect(match.body.matched && match.body.orientations.every((o) => o.face === 'L'), 'the L cross');

	const pats = await call('get', '/v1/patterns', 200, { query: 'size=3' });
	expect(pats.body.patterns.some((p) => p.name === 'pll'), 'patterns');

	const pieces = await call('post', '/v1/pieces', 200, { body: { facelets: AFTER_R, piece: 'URF' } });
	expect('piece' in pieces.body && pieces.body.piece !== undefined, 'one piece');

	const scr = await call('get', '/v1/scramble', 200, { query: 'size=3&seed=42' });
	expect(scr.body.kind === 'random-state' && scr.body.seed === 42 && scr.body.length <= 21, 'scramble');
	expect((scr.res.headers.get('cache-control') ?? '').startsWith('public'), 'a seeded scramble is cacheable');
	const solved = await call('post', '/v1/solve', 200, { body: { facelets: scr.body.facelets } });
	const check = await call('post', '/v1/apply', 200, { body: { facelets: scr.body.facelets, moves: solved.body.solution } });
	expect(check.body.facelets === SOLVED3, 'the solution solves the scramble');

	const v = await call('get', '/version', 200);
	expect(v.body.name === 'cubed' && v.body.libraries.libmicrohttpd.length > 0, 'version');
}

async function sessions(): Promise<void> {
	const made = await call('post', '/v1/sessions', 201, { body: { size: 3, visibility: 'private' } });
	const id = made.body.id;
	const owner = { Authorization: `Bearer ${made.body.write_token}` };
	const read = made.body.read_token;
	expect(read !== undefined, 'a private session has a read token');

	const got = await call('get', '/v1/sessions/{id}', 200, { params: { id }, headers: owner });
	expect(got.body.version === 0 && 'facelets' in got.body && got.body.facelets === SOLVED3, 'a new session is solved');
	const tag = got.res.headers.get('etag') ?? '';

	const moved = await call('post', '/v1/sessions/{id}/moves', 200, {
		params: { id }, headers: { ...owner, 'If-Match': tag }, body: { moves: 'R' },
	});
	expect(moved.body.version === 1 && moved.body.facelets === AFTER_R && moved.body.event.moves === 'R', 'moves R');
	await call('post', '/v1/sessions/{id}/moves', 412, { params: { id }, headers: { ...owner, 'If-Match': tag }, body: { moves: 'U' } });
	const undone = await call('post', '/v1/sessions/{id}/undo', 200, { params: { id }, headers: owner });
	expect(undone.body.facelets === SOLVED3 && undone.body.version === 2, 'undo');
	const redone = await call('post', '/v1/sessions/{id}/redo', 200, { params: { id }, headers: owner });
	expect(redone.body.facelets === AFTER_R, 'redo');
	const reset = await call('post', '/v1/sessions/{id}/reset', 200, { params: { id }, headers: owner });
	expect(reset.body.facelets === SOLVED3 && reset.body.version === 4, 'reset');
	const hist = await call('get', '/v1/sessions/{id}/history', 200, { params: { id }, headers: owner });
	expect(hist.body.events.map((e) => e.type).join() === 'create,moves,undo,redo,reset', `history ${hist.body.events.map((e) => e.type)}`);
	const fork = await call('post', '/v1/sessions/{id}/fork', 201, { params: { id }, headers: owner, body: { version: 1 } });
	expect(fork.body.facelets === AFTER_R && fork.body.forked_from.version === 1, 'fork at 1');

	const tok = await call('post', '/v1/sessions/{id}/tokens', 201, { params: { id }, headers: owner, body: { role: 'write', name: 'bob' } });
	expect(tok.body.role === 'write' && tok.body.token.startsWith('ct_'), 'a write token');

	// the event stream from a browser's point of view: the owner's token
	// may not ride in the URL; a ticket may
	await call('get', '/v1/sessions/{id}/events', 403, { params: { id }, query: `token=${made.body.write_token}` });
	const ticket = await call('post', '/v1/sessions/{id}/tickets', 201, { params: { id }, headers: owner });
	expect(ticket.body.events === `/v1/sessions/${id}/events?ticket=${ticket.body.ticket}`, 'the stream URL');
	const ac = new AbortController();
	const res = await fetch(base + ticket.body.events, { signal: ac.signal });
	expect(res.status === 200 && res.headers.get('content-type') === 'text/event-stream', `stream ${res.status}`);
	const reader = res.body?.getReader();
	let text = '';
	while (reader && !text.includes('event: state')) {
		const { value, done } = await reader.read();
		if (done) break;
		text += new TextDecoder().decode(value);
	}
	ac.abort();
	expect(text.includes('event: state'), `no state event: ${text}`);

	const solve = await call('post', '/v1/sessions/{id}/solve', 201, { params: { id: fork.body.id }, headers: { Authorization: `Bearer ${fork.body.write_token}` } });
	expect(solve.body.solution === "R'", `solve of the fork: ${solve.body.solution}`);

	await call('delete', '/v1/sessions/{id}', 204, { params: { id }, headers: owner });
	await call('get', '/v1/sessions/{id}', 404, { params: { id }, headers: owner });
}

async function main(): Promise<number> {
	const [bin, tables] = process.argv.slice(2);
	if (!bin) {
		console.error('usage: node client.js <cubed binary> [tables dir]');
		return 2;
	}
	const srv = await startServer(bin, tables ?? process.env.CUBED_TABLES);
	try {
		await waitTables();
		await stateless();
		await sessions();
	} finally {
		await stopServer(srv.child);
		rmSync(srv.dir, { recursive: true, force: true });
	}
	console.log('client-check: the typed client exercised every main route: 1 passed, 0 failed');
	return 0;
}

main().then(
	(code) => process.exit(code),
	(e: unknown) => {
		console.error(`client-check: ${e instanceof Error ? e.message : String(e)}`);
		console.error('client-check: 0 passed, 1 failed');
		process.exit(1);
	},
);
