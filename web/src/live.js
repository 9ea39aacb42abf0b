// live.js — a session's live events (Server-Sent Events) with the
// connection state a player sees: live, reconnecting, offline.
//
// The browser's EventSource reconnects by itself after a dropped stream and
// sends Last-Event-ID, so the server replays exactly what was missed. When
// it gives up (the server answered an error, or was down when it tried),
// this opens a new stream with ?after=<the last version we have>, backing
// off from 1 s to 15 s. EventSource cannot send headers: a private
// session's stream carries a *read* token as ?token= (never a write
// token), as the API allows.

const TYPES = ['state', 'moves', 'undo', 'redo', 'reset', 'presence', 'solve', 'timed', 'delete'];

export class LiveStream {
  // opts: {id, readToken, after() → version to resume from,
  //        onEvent(type, data, lastEventId), onStatus(status, detail)}
  constructor(opts) {
    this.opts = opts;
    this.es = null;
    this.timer = 0;
    this.backoff = 1000;
    this.closed = false;
    this.status = '';
    this.connect();
  }

  url() {
    const q = new URLSearchParams();
    // no version yet: the stream starts with the state as it is now
    const after = this.opts.after();
    if (after >= 0) q.set('after', String(after));
    if (this.opts.readToken) q.set('token', this.opts.readToken);
    return `/v1/sessions/${encodeURIComponent(this.opts.id)}/events?${q}`;
  }

  setStatus(s, detail) {
    if (s === this.status) return;
    this.status = s;
    this.opts.onStatus(s, detail);
  }

  connect() {
    if (this.closed) return;
    const es = new EventSource(this.url());
    this.es = es;
    this.setStatus('connecting');
    es.onopen = () => {
      this.backoff = 1000;
      this.setStatus('live');
    };
    es.onerror = () => {
      if (this.closed || es !== this.es) return;
      if (es.readyState === EventSource.CONNECTING) {
        this.setStatus('reconnecting');
        return;
      }
      // closed for good: try again later from where we are
      es.close();
      this.setStatus('offline', Math.round(this.backoff / 1000));
      this.timer = setTimeout(() => this.connect(), this.backoff);
      this.backoff = Math.min(15000, this.backoff * 2);
    };
    for (const t of TYPES)
      es.addEventListener(t, (e) => {
        let data;
        try {
          data = JSON.parse(e.data);
        } catch {
          return;
        }
        this.opts.onEvent(t, data, e.lastEventId);
        if (t === 'delete') this.close();
      });
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.es) this.es.close();
    this.es = null;
  }
}
