// api.js — the page's only way to the server: fetch against cubed's public
// JSON API (openapi.yaml), as any other client would. Every non-2xx answer
// becomes an ApiError carrying the problem+json fields (code, detail,
// offset, current_version…), so each part of the page can show the
// server's own sentence where the problem happened.

export class ApiError extends Error {
  constructor(status, problem, headers) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || (status ? `http_${status}` : 'network');
    this.problem = problem;
    this.headers = headers;
  }
  get retryAfter() {
    const v = this.headers && this.headers.get('Retry-After');
    const s = v ? Number(v) : NaN;
    return Number.isFinite(s) ? s : null;
  }
}

// A request failed before any answer (server down, network gone).
export class NetworkError extends ApiError {
  constructor(cause) {
    super(0, { detail: 'the server cannot be reached', code: 'network' }, null);
    this.cause = cause;
  }
}

// One request: method, path (with query), JSON body or undefined, options
// {token, ifMatch, idempotencyKey, signal}. Returns {status, body, etag,
// headers}; throws ApiError (or NetworkError).
export async function request(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  if (opts.ifMatch !== undefined) headers['If-Match'] = `"v${opts.ifMatch}"`;
  if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: opts.signal,
      cache: 'no-store',
    });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new NetworkError(e);
  }
  const text = await res.text().catch(() => '');
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (!res.ok) throw new ApiError(res.status, json || { detail: `HTTP ${res.status}` }, res.headers);
  const etag = res.headers.get('ETag');
  const m = etag && /^"v(\d+)"$/.exec(etag);
  return { status: res.status, body: json, etag: m ? Number(m[1]) : null, headers: res.headers };
}

const enc = encodeURIComponent;

export const api = {
  createSession: (req) => request('POST', '/v1/sessions', req),
  getSession: (id, token, query = '') =>
    request('GET', `/v1/sessions/${enc(id)}${query ? `?${query}` : ''}`, undefined, { token }),
  write: (id, kind, body, token, ifMatch, idempotencyKey) =>
    request('POST', `/v1/sessions/${enc(id)}/${kind}`, body, { token, ifMatch, idempotencyKey }),
  fork: (id, version, token) => request('POST', `/v1/sessions/${enc(id)}/fork`, { version }, { token }),
  history: (id, token, after, limit) =>
    request('GET', `/v1/sessions/${enc(id)}/history?${after === null ? '' : `after=${after}&`}limit=${limit}`,
      undefined, { token }),
  mintToken: (id, role, token) => request('POST', `/v1/sessions/${enc(id)}/tokens`, { role }, { token }),
  tokens: (id, token) => request('GET', `/v1/sessions/${enc(id)}/tokens`, undefined, { token }),
  revoke: (id, tid, token) => request('DELETE', `/v1/sessions/${enc(id)}/tokens/${enc(tid)}`, undefined, { token }),
  deleteSession: (id, token) => request('DELETE', `/v1/sessions/${enc(id)}`, undefined, { token }),
  // a stream ticket: also how a page learns whether its token still works
  ticket: (id, token) => request('POST', `/v1/sessions/${enc(id)}/tickets`, undefined, { token }),
  solve: (facelets, method, extra = {}) => request('POST', '/v1/solve', { facelets, ...(method ? { method } : {}), ...extra }),
  patterns: (size) => request('GET', `/v1/patterns?size=${size}`),
  timed: (id, token) => request('GET', `/v1/sessions/${enc(id)}/timed`, undefined, { token }),
  timedStart: (id, version, token) => request('POST', `/v1/sessions/${enc(id)}/timed`, { version }, { token }),
  raceCreate: (body) => request('POST', '/v1/races', body),
  race: (id) => request('GET', `/v1/races/${enc(id)}`),
  raceJoin: (id, name) => request('POST', `/v1/races/${enc(id)}/players`, { name }),
  raceStart: (id, token, countdownMs = 3000) => request('POST', `/v1/races/${enc(id)}/start`, { countdown_ms: countdownMs }, { token }),
  scramble: (size) => request('GET', `/v1/scramble?size=${size}`),
  match: (facelets, name) => request('POST', '/v1/match', { facelets, name, first: true }),
  applyRaw: (body) => request('POST', '/v1/apply', body),
  animation: (size, moves) => request('POST', '/v1/apply', { size, moves, include: ['animation'] }),
  alg: (size, moves) => request('POST', '/v1/alg', { size, moves }),
};

// A key for Idempotency-Key: unique per attempt of one request.
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
