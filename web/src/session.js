// session.js — one open session as the page keeps it: the state the server
// confirmed (version and facelets), the player's writes waiting to be sent,
// and the live events arriving. One loop handles both in order, so the
// page never applies an event twice, never skips one, and never sends a
// write against a version it has not seen:
//
// - a move the player makes is shown at once (optimistically) and queued;
//   the loop sends it with If-Match: "v<confirmed version>";
// - 200: the reply is the new confirmed state (the event that will also
//   arrive on the stream is then recognised by its version and skipped);
// - 412 (someone wrote first): the loop refetches the session, shows what
//   happened meanwhile, and sends the same move again against the new
//   version — the player's move is never dropped;
// - a network error, 429 or 503: the same request again after a pause,
//   with the same Idempotency-Key, so it cannot be applied twice;
// - any other refusal (a watch-only token, bad notation, nothing to undo)
//   is shown where it happened and the optimistic move is taken back.
//
// Events on the stream are applied in version order; a gap (which the
// server's replay should never leave) is closed by refetching.

import { api, newKey, ApiError } from './api.js';
import { applyTurns, parseFlat, turnOfAnimation } from './cube.js';
import { LiveStream } from './live.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Session {
  // info: the session JSON from GET; access: {token, readToken, role};
  // display: {live(turns, facelets, hooks), settle(facelets)};
  // ui: callbacks (see main.js).
  constructor(info, access, display, ui) {
    this.id = info.id;
    this.n = info.size;
    this.access = access;
    this.display = display;
    this.ui = ui;
    this.meta = info;
    this.confirmed = { version: info.version, facelets: info.facelets };
    this.shown = info.facelets; // what the display ends on
    this.inbox = [];
    this.outbox = [];
    this.looping = false;
    this.closed = false;
    this.deleted = false;
    this.stats = { stale: 0, retries: 0, sent: 0 };
    this.metaTimer = 0;
    this.live = new LiveStream({
      id: this.id,
      readToken: access.streamToken,
      after: () => this.confirmed.version,
      onEvent: (type, data) => this.onStreamEvent(type, data),
      onStatus: (s, detail) => this.ui.status(s, detail),
    });
  }

  get canWrite() {
    return (this.access.role === 'owner' || this.access.role === 'play') && !this.deleted;
  }

  close() {
    this.closed = true;
    this.live.close();
    clearTimeout(this.metaTimer);
  }

  // ---- input ------------------------------------------------------------

  // A move from the keyboard, a drag or a solution step: shown now, sent
  // by the loop. text is a flat move sequence.
  move(text, source = 'keys') {
    if (this.closed || !this.canWrite) return false;
    let turns;
    try {
      turns = parseFlat(text, this.n);
    } catch {
      turns = null;
    }
    if (!turns) return this.write('moves', text, source);
    this.shown = applyTurns(this.shown, this.n, turns);
    this.outbox.push({ kind: 'moves', text, turns, optimistic: true, source, key: newKey(), tries: 0 });
    this.display.live(turns, this.shown, {});
    this.ui.queued(this.outbox.length);
    this.kick();
    return true;
  }

  // A write shown only once the server answers: typed notation, undo,
  // redo, reset.
  // strict: a 412 refuses it instead of sending it again (a solution
  // found for one version means nothing on another).
  write(kind, text, source = kind, strict = false) {
    if (this.closed || !this.canWrite) return false;
    this.outbox.push({ kind, text, optimistic: false, source, strict, key: newKey(), tries: 0 });
    this.ui.queued(this.outbox.length);
    this.kick();
    return true;
  }

  // ---- the loop ---------------------------------------------------------

  onStreamEvent(type, data) {
    if (this.closed) return;
    switch (type) {
      case 'state':
      case 'moves':
      case 'undo':
      case 'redo':
      case 'reset':
        this.inbox.push(data);
        this.kick();
        break;
      case 'presence':
        this.meta.watchers = data.watchers;
        this.ui.meta(this.meta);
        break;
      case 'solve':
        this.ui.notice(`${data.actor || 'someone'} asked for a solution (${data.method || 'solver'})`);
        break;
      case 'timed':
        this.ui.timed(data);
        break;
      case 'delete':
        this.deleted = true;
        this.ui.deleted();
        break;
    }
  }

  kick() {
    if (!this.looping) this.loop();
  }

  async loop() {
    this.looping = true;
    try {
      while (!this.closed) {
        if (this.inbox.length) {
          await this.applyEvent(this.inbox.shift());
        } else if (this.outbox.length) {
          await this.send(this.outbox[0]);
        } else {
          break;
        }
      }
    } catch (e) {
      this.ui.error('live', e);
    } finally {
      this.looping = false;
    }
    // something may have arrived while the last step finished
    if (!this.closed && (this.inbox.length || this.outbox.length)) this.kick();
  }

  // What the display should end on: the confirmed state plus the moves
  // shown but not yet confirmed.
  expected() {
    let f = this.confirmed.facelets;
    for (const w of this.outbox) if (w.optimistic) f = applyTurns(f, this.n, w.turns);
    return f;
  }

  async turnsOf(text) {
    if (!text) return [];
    try {
      const t = parseFlat(text, this.n);
      if (t) return t;
    } catch {
      /* not a flat sequence: ask the server */
    }
    try {
      const r = await api.animation(this.n, text);
      return r.body.animation.map(turnOfAnimation);
    } catch {
      return null; // too long to animate: the state is shown at once
    }
  }

  // Show a confirmed change (turns may be null: no animation).
  present(turns, version, actor) {
    const target = this.expected();
    this.shown = target;
    const hooks = {
      onStart: () => this.ui.visible(version, 'start', actor),
      onEnd: () => this.ui.visible(version, 'end', actor),
    };
    this.display.live(turns || [], target, hooks);
  }

  async applyEvent(ev) {
    const cur = this.confirmed.version;
    if (ev.type === 'state') {
      if (ev.version === cur) return;
      return this.refetch();
    }
    if (ev.version <= cur) return; // already have it (our own write)
    if (ev.version > cur + 1) return this.refetch();
    const turns = ev.type === 'reset' ? null : await this.turnsOf(ev.moves);
    let facelets = ev.facelets;
    if (!facelets) {
      if (ev.type === 'reset' || turns === null) return this.refetch();
      facelets = applyTurns(this.confirmed.facelets, this.n, turns);
    }
    if (this.confirmed.version !== cur) return; // a refetch overtook us
    this.confirmed = { version: ev.version, facelets };
    this.meta.version = ev.version;
    this.meta.can_undo = ev.type !== 'reset' ? true : false;
    if (ev.type === 'moves') this.meta.can_redo = false;
    this.ui.event(ev);
    this.present(turns, ev.version, ev.actor);
    this.refreshMetaSoon();
  }

  // Read the session again (after a 412, a gap, or a stream that started
  // afresh) and show the events that happened meanwhile.
  async refetch() {
    const r = await this.getWithRetry();
    if (!r) return;
    const s = r.body;
    const from = this.confirmed.version;
    if (s.version < from) return;
    // events already on the stream show how we got there
    const between = this.inbox.filter((e) => e.version > from && e.version <= s.version);
    this.inbox = this.inbox.filter((e) => e.version > s.version);
    this.confirmed = { version: s.version, facelets: s.facelets };
    Object.assign(this.meta, s);
    this.ui.meta(this.meta);
    if (between.length === s.version - from) {
      for (const e of between) this.ui.event(e);
    } else if (s.version > from) {
      this.ui.historyGap(from);
    }
    let turns = [];
    for (const e of between) {
      const t = e.type === 'reset' ? null : await this.turnsOf(e.moves);
      if (t === null) { turns = null; break; }
      turns.push(...t);
    }
    this.present(turns, s.version, between.length ? between[between.length - 1].actor : null);
  }

  async getWithRetry() {
    for (let i = 0; !this.closed; i++) {
      try {
        return await api.getSession(this.id, this.access.token);
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
          this.deleted = true;
          this.ui.deleted();
          return null;
        }
        await sleep(Math.min(5000, 250 * 2 ** i));
      }
    }
    return null;
  }

  async send(w) {
    const body = w.kind === 'moves' ? { moves: w.text } : undefined;
    let r;
    try {
      this.stats.sent++;
      r = await api.write(this.id, w.kind, body, this.access.token, this.confirmed.version, w.key);
    } catch (e) {
      return this.refused(w, e);
    }
    this.outbox.shift();
    this.ui.queued(this.outbox.length);
    const s = r.body;
    const from = this.confirmed.version;
    if (s.version !== from + 1) {
      // cannot happen with If-Match; be safe and read it all again
      this.confirmed = { version: from, facelets: this.confirmed.facelets };
      return this.refetch();
    }
    this.confirmed = { version: s.version, facelets: s.facelets };
    Object.assign(this.meta, s);
    delete this.meta.event;
    this.ui.meta(this.meta);
    this.ui.event(s.event);
    this.ui.accepted(w, s);
    if (w.optimistic) {
      // already shown; settle on exactly what the server says
      this.shown = this.expected();
      this.display.live([], this.shown, {
        onStart: () => this.ui.visible(s.version, 'start', s.event.actor),
        onEnd: () => this.ui.visible(s.version, 'end', s.event.actor),
      });
    } else {
      const turns = s.event.type === 'reset' ? null : await this.turnsOf(s.event.moves);
      this.present(turns, s.version, s.event.actor);
    }
  }

  async refused(w, e) {
    const status = e instanceof ApiError ? e.status : 0;
    if (status === 412 && !w.strict) {
      // someone wrote first: catch up, then the same move again
      this.stats.stale++;
      w.key = newKey();
      w.tries++;
      await this.refetch();
      if (w.tries > 20) await sleep(Math.min(2000, 50 * w.tries));
      return;
    }
    if (status === 0 || status === 429 || status >= 500) {
      // not answered, or not now: the same request (same key) later
      this.stats.retries++;
      w.tries++;
      const wait = (e.retryAfter ?? Math.min(8, 0.25 * 2 ** Math.min(w.tries, 5))) * 1000;
      this.ui.status(status === 0 ? 'offline' : 'busy', Math.round(wait / 1000));
      await sleep(wait);
      if (!this.closed && this.live.status === 'live') this.ui.status('live');
      return;
    }
    // refused for good: take the move back and say why where it was made
    this.outbox.shift();
    this.ui.queued(this.outbox.length);
    if (status === 403 && (e.code === 'read_only_token' || e.code === 'wrong_token')) {
      // a watch-only token, or one the owner revoked: this page watches
      this.access.role = 'watch';
      if (e.code === 'wrong_token') this.ui.revoked();
      this.ui.meta(this.meta);
    }
    if (w.optimistic) {
      this.shown = this.expected();
      this.display.live([], this.shown, {});
    }
    this.ui.refused(w, e);
    if (status === 412) await this.refetch();
  }

  refreshMetaSoon() {
    clearTimeout(this.metaTimer);
    this.metaTimer = setTimeout(async () => {
      try {
        const r = await api.getSession(this.id, this.access.token, 'format=facelets');
        if (r.body.version === this.confirmed.version) {
          Object.assign(this.meta, r.body);
          this.ui.meta(this.meta);
        }
      } catch {
        /* a later event refreshes it again */
      }
    }, 250);
  }
}
