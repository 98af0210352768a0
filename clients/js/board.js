// One subscribed board: the mirror (mirror.js) the application reads, the
// events it listens to, and the actions it sends. The client (client.js)
// feeds it the daemon's messages for this board and carries its actions.
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

import { BoardMirror } from './mirror.js';
import { Emitter } from './emitter.js';
import { PendingActions } from './pending.js';
import { deepEqual } from './patch.js';

export class Board {
  constructor(client, name) {
    this.name = name;
    this.client = client;
    this.mirror = new BoardMirror(name);
    this.optimistic = new PendingActions({ session: client.session });
    this.events = new Emitter();
    this.viewers = null;
    this.following = null;
    this.lastEpoch = null;     // survives a deletion, to name the resync
    this.deletedSince = false; // a `deleted` came after the last snapshot
    this.awaiting = null;      // { seq, since }: our subscribe's answer has not begun
    this.ready = false;
    this.whenReady = new Promise((resolve, reject) => { this.resolveReady = resolve; this.rejectReady = reject; });
    this.whenReady.catch(() => { /* the caller of subscribe() gets it */ });
  }

  /** The board to show: `confirmed` with the actions not yet answered applied on top (the same object while none changes it); null before the first snapshot and after a deletion. Read-only: patches share unchanged parts. */
  get state() { return this.optimistic.state; }
  /** The daemon's board document at `rev` (equal to GET /api/boards/NAME then); null before the first snapshot and after a deletion. Read-only. */
  get confirmed() { return this.mirror.state; }
  get rev() { return this.mirror.rev; }
  /** The actions called for this board and not yet answered, in the order called: [{ key, action }]. */
  get pending() { return this.optimistic.entries.map(({ key, action }) => ({ key, action })); }
  get epoch() { return this.mirror.epoch; }

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

  // ---- fed by the client ----

  subscribeMessage(seq) {
    const since = this.mirror.position;
    this.awaiting = { seq, since: since !== null };
    return since ? { type: 'subscribe', board: this.name, since } : { type: 'subscribe', board: this.name };
  }

  // An answer to an action sent after our subscribe: the subscribe's answer
  // (queued before it) is complete, so a later snapshot was not asked for.
  answeredAfter(seq) {
    if (this.awaiting && this.awaiting.seq < seq) this.awaiting = null;
  }

  disconnected() { this.awaiting = null; }

  // ---- the actions called for this board (client.js), answered or not ----

  // Shown at once: a `local` change when the shown board changed.
  acted(key, action) {
    this.localChange(() => this.optimistic.act(key, action));
  }

  // An ack changes what is shown only when our own patch was not told apart (then the action stops being applied twice).
  acked(key, rev) {
    this.localChange(() => this.optimistic.ack(key, rev));
  }

  // The daemon refused it, or the outbox gave it up: always told, even when nothing shown changes.
  rolledBack(key, error) {
    const entry = this.optimistic.refuse(key);
    if (entry === null || !this.ready) return;
    this.events.emit('change', { ...this.localFields(), rolledBack: { key, action: entry.action, error } });
  }

  // The connection's session, from `hello`: the `by` of the patches our actions make.
  greeted(session) { this.optimistic.session = session; }

  localChange(step) {
    const before = this.optimistic.state;
    step();
    if (!this.ready || deepEqual(before, this.optimistic.state)) return;
    this.events.emit('change', this.localFields());
  }

  localFields() {
    return { local: true, rev: this.rev, epoch: this.epoch, ops: null, state: this.state, confirmed: this.confirmed, resynced: false };
  }

  receive(m) {
    switch (m.type) {
      case 'snapshot': return this.snapshot(m);
      case 'patch': return this.patch(m);
      case 'presence':
        this.viewers = m.viewers;
        this.following = m.following ?? null;
        this.events.emit('presence', { viewers: this.viewers, following: this.following });
        return;
      case 'deleted':
        this.mirror.apply(m);
        this.optimistic.confirm(null, null);
        this.deletedSince = true;
        this.events.emit('deleted', { board: this.name });
        return;
      default:
    }
  }

  snapshot(m) {
    const reason = this.deletedSince || (this.lastEpoch !== null && m.epoch !== this.lastEpoch) ? 'epoch'
      : this.awaiting ? 'pruned' : 'lagging';
    this.mirror.apply(m);
    this.optimistic.confirm(this.mirror.state, this.mirror.rev);
    this.lastEpoch = m.epoch;
    this.deletedSince = false;
    this.awaiting = null;
    if (!this.ready) {
      this.ready = true;
      this.resolveReady(this);
      return;
    }
    if (reason === 'lagging') this.client.answersLost();
    this.events.emit('change', { rev: m.rev, epoch: m.epoch, ops: null, state: this.state, confirmed: this.confirmed, resynced: true, reason });
  }

  patch(m) {
    this.awaiting = null;
    const before = this.mirror.state;
    const out = this.mirror.apply(m);
    if (out.kind === 'changed') {
      this.optimistic.patched(before, this.mirror.state, m.rev, m.by);
      const change = { rev: m.rev, epoch: m.epoch, ops: m.ops, state: this.state, confirmed: this.confirmed, resynced: false };
      if (m.by !== undefined) change.by = m.by;
      this.events.emit('change', change);
    } else if (out.kind === 'outOfStep') {
      // A patch that did not apply cleared the mirror: show nothing rather than a wrong board.
      if (this.mirror.state === null) this.optimistic.confirm(null, null);
      // Never from a daemon that keeps its guarantees; ask again rather than show a wrong board.
      this.client.resubscribe(this);
    }
  }

  // The daemon refused our subscribe (or resubscribe): `not_found` once the
  // board is gone, `forbidden` for a token that may not read it.
  refused(error) {
    this.awaiting = null;
    if (!this.ready) { this.rejectReady(error); return; }
    if (error.code === 'not_found' && this.mirror.state !== null) {
      this.mirror.clear();
      this.optimistic.confirm(null, null);
      this.events.emit('deleted', { board: this.name });
    }
    this.events.emit('error', error);
  }
}
