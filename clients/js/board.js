// One subscribed board as the application sees it: the board the session
// (session.js) keeps — its mirror and the actions not yet answered on top —
// the events it listens to, and the actions it sends. The client
// (client.js) runs the session and passes each board its outputs.
//
// Resyncs (docs/CLIENTS.md, "Resume and resync"): a snapshot after the first
// one replaces the mirror, and the application is told why — `epoch` (the
// board's history was cut: another epoch, or the board was deleted),
// `pruned` (it answers our subscribe, same epoch: the daemon no longer keeps
// the revs we missed) or `lagging` (unasked: the daemon dropped our queue).
//
// Optimistic state (docs/CLIENTS.md, "Optimistic state"): `state` is the
// mirror with the actions called for this board and not yet answered
// applied on top (pending.js); `confirmed` is the mirror alone. An action
// shows at once, as a `local` change; a refusal takes it out again, told as
// a `local` change carrying `rolledBack`.

import { Emitter } from './emitter.js';

export class Board {
  constructor(client, name) {
    this.name = name;
    this.client = client;
    this.events = new Emitter();
    this.viewers = null;
    this.following = null;
    this.kept = null;          // the session's entry last seen: read after the session let the board go
    this.ready = false;
    this.renew();
  }

  // A promise for the first snapshot: once at the start, again after a refusal.
  renew() {
    this.failed = false;
    this.whenReady = new Promise((resolve, reject) => { this.resolveReady = resolve; this.rejectReady = reject; });
    this.whenReady.catch(() => { /* the caller of subscribe() gets it */ });
  }

  get entry() {
    const e = this.client.machine.board(this.name);
    if (e) this.kept = e;
    return this.kept;
  }

  /** The board to show: `confirmed` with the actions not yet answered applied on top (the same object while none changes it); null before the first snapshot and after a deletion. Read-only: patches share unchanged parts. */
  get state() { return this.entry?.shown ?? null; }
  /** The daemon's board document at `rev` (equal to GET /api/boards/NAME then); null before the first snapshot and after a deletion. Read-only. */
  get confirmed() { return this.entry?.mirror.state ?? null; }
  get rev() { return this.entry?.mirror.rev ?? null; }
  /** The actions called for this board and not yet answered, in the order called: [{ key, action }]. */
  get pending() { return (this.entry?.pending.entries ?? []).map(({ key, action }) => ({ key, action })); }
  get epoch() { return this.entry?.mirror.epoch ?? null; }

  on(event, listener) { return this.events.on(event, listener); }
  off(event, listener) { this.events.off(event, listener); }

  // ---- actions: each resolves with the rev of its ack; options: { signal } (client.act) ----
  act(action, options) { return this.client.act(this.name, action, options); }
  toggle(section, options) { return this.act({ type: 'toggle', section }, options); }
  expand(section, options) { return this.act({ type: 'expand', section }, options); }
  collapse(section, options) { return this.act({ type: 'collapse', section }, options); }
  expandAll(options) { return this.act({ type: 'expandAll' }, options); }
  collapseAll(options) { return this.act({ type: 'collapseAll' }, options); }
  focus(section, item, options) { return this.act({ type: 'focus', section, item }, options); }
  clearFocus(options) { return this.act({ type: 'clearFocus' }, options); }
  revert(rev, options) { return this.act({ type: 'revert', rev }, options); }

  /** GET /api/boards/NAME/history: { board, epoch, rev, more, entries }. query: { since, before, limit }. */
  history(query = {}) { return this.client.history(this.name, query); }

  /** Stops receiving the board; its actions still work. */
  unsubscribe() { this.client.unsubscribe(this.name); }

  // ---- the session's outputs for this board (client.js) ----

  readied() {
    if (this.ready) return;
    this.ready = true;
    this.resolveReady(this);
  }

  refused(error) {
    if (this.ready) return;
    this.failed = true;
    this.rejectReady(error);
  }

  // A change of the session's vocabulary, as the application is told it.
  changed(c) {
    const change = { rev: c.rev, epoch: c.epoch, ops: c.ops, state: c.state, confirmed: c.confirmed, resynced: c.resynced };
    if (c.resynced) change.reason = c.reason;
    if (c.by !== undefined) change.by = c.by;
    if (c.local) change.local = true;
    if (c.rolledBack) {
      const { key, action, call, code, message } = c.rolledBack;
      change.rolledBack = { key, action, error: this.client.rejection(call, code, message, this.name) };
    }
    this.events.emit('change', change);
  }

  presence({ viewers, following }) {
    this.viewers = viewers;
    this.following = following;
    this.events.emit('presence', { viewers, following });
  }
}

