// One client's session with the daemon, as a machine: connecting (with a
// token, asked again on `authExpiring`), `hello`, the subscriptions sent
// again with `since` after every reconnect, the mirrors (mirror.js) and the
// resync reasons (`epoch`, `pruned`, `lagging`), the outbox (outbox.js),
// the pending actions shown on top of each mirror (pending.js), and the
// backoff between connections (backoff.js). The JavaScript twin of
// Sources/FoldSession/SessionMachine.swift; Tests/vectors/session.json pins
// both, input by input.
//
// Pure: no socket, no timer, no clock, no randomness of its own. Every
// input is something the transport, the application or a timer said, given
// with the time (`now`, seconds) and a number in [0, 1] for the backoff;
// every output is what the shell (client.js) must do. Inputs and outputs
// are objects of one key, in session.json's vocabulary:
//
//   in:  start | token {token, failure, refresh} | received <message> |
//        closed {reason, status} | retry | tick | subscribe {board} |
//        unsubscribe {board} | act {call, board, action, ifRev} |
//        cancel {call} | view {following} | close | suspend | resume |
//        resubscribe | relinked
//   out: connect {token, endpoint} | askToken {refresh} | send <message> | disconnect |
//        state {name, reason, retryIn} | retry {after} | tick {after} |
//        resolve {call, rev} | reject {call, code, message} | ready {board} |
//        refused {board, code, message} | change {board, rev, epoch, ops, state,
//        confirmed, resynced, reason, local, rolledBack {key, action, call, code, message}, by} |
//        presence {board, viewers, following} | deleted {board} |
//        tokenFailed {message} | finished
//
// `endpoints` (the constructor's) is how many URLs the shell connects to:
// `connect` names one by its index; after a failure the next is tried at
// once, and the backoff comes between whole rounds (every URL failed since
// the last `hello`).
//
// Not in the vectors: the JavaScript client's own `resubscribe` (the stream
// transport reopened its streams with a fresh token: every board resumes
// with `since`) and `relinked` (the transport was replaced under a live
// session: the answers awaited on the old one are lost, and the `hello` of
// the one replacing it follows).

import { BoardMirror } from './mirror.js';
import { PendingActions } from './pending.js';
import { Outbox, outboxLimits } from './outbox.js';
import { backoffDelay } from './backoff.js';
import { deepEqual } from './patch.js';

// The sessions a patch's `by` is compared with: this connection's and the ones before it.
const SESSIONS_KEPT = 16;

// One subscribed board.
class Entry {
  constructor(board, sessions) {
    this.mirror = new BoardMirror(board);
    this.pending = new PendingActions();
    for (const s of sessions) this.pending.session = s;
    this.awaited = true;       // someone waits for the first snapshot (ready or refused)
    this.subscribing = false;  // a subscribe was sent and not answered: a snapshot with the same epoch means `pruned`
    this.deleted = false;      // the next snapshot starts another epoch
  }

  // What the board shows: the mirror with the pending actions on top.
  get shown() { return this.mirror.state === null ? null : this.pending.state; }
}

export class Session {
  /** token: 'none', { value }, or 'provider' (asked with askToken before every connection and on authExpiring); endpoints: how many URLs. */
  constructor({ clientId, token = 'none', outbox = {}, endpoints = 1 } = {}) {
    if (typeof clientId !== 'string' || clientId === '') throw new TypeError('foldsync: a session needs a clientId');
    this.token = token;
    this.phase = 'idle';       // idle, connecting, open, waiting, suspended, closing, closed
    this.attempt = 0;          // failed rounds since the last hello (backoff.js)
    this.endpoints = Math.max(1, endpoints);
    this.endpoint = 0;         // the URL in use, an index below `endpoints`
    this.failedInARow = 0;     // URLs that failed since the last hello
    this.entries = new Map();  // board name -> Entry
    this.outbox = new Outbox(clientId, outboxLimits(outbox));
    this.shownAs = new Map();  // ticket -> { board, key, action, ifRev }: what each action in the outbox shows as
    this.sessions = [];
    this.linked = false;       // a connection exists (opening or open): a send has somewhere to go
    this.ticking = false;      // a tick is due
    this.following = true;
    this.resumeWhenClosed = false;
    this.out = [];
  }

  get clientId() { return this.outbox.clientId; }
  get closed() { return this.phase === 'closing' || this.phase === 'closed'; }
  /** The board's mirror and pending actions, or undefined when it is not subscribed. */
  board(name) { return this.entries.get(name); }

  /** now: seconds; random: in [0, 1], spreads the backoff. */
  handle(input, now, random = 0.5) {
    this.out = [];
    const [kind, body = {}] = Object.entries(input)[0] ?? [];
    switch (kind) {
      case 'start':
        if (this.phase === 'idle') this.connect();
        break;
      case 'token': {
        const value = body.token ?? null;
        if (body.failure !== undefined && body.failure !== null) this.emit('tokenFailed', { message: body.failure });
        if (body.refresh) {
          if (value !== null && this.phase === 'open') this.send({ type: 'auth', token: value });
        } else if (this.phase === 'connecting' && !this.linked) {
          this.open(value);
        }
        break;
      }
      case 'received':
        if (this.linked) this.received(body, now);
        break;
      case 'closed':
        this.closedInput(body.reason ?? '', body.status ?? null, random);
        break;
      case 'retry':
        if (this.phase === 'waiting') this.connect();
        break;
      case 'subscribe':
        this.subscribe(body.board);
        break;
      case 'unsubscribe':
        if (this.entries.delete(body.board) && this.phase === 'open') this.send({ type: 'unsubscribe', board: body.board });
        break;
      case 'resubscribe':
        if (this.phase === 'open') this.resubscribe();
        break;
      case 'relinked':
        if (this.phase !== 'open') break;
        this.outbox.lost();
        this.phase = 'connecting';
        break;
      case 'act':
        this.act(body.call, body.board, body.action, body.ifRev ?? null, now);
        break;
      case 'cancel':
        this.run(this.outbox.cancel(body.call));
        break;
      case 'view':
        this.following = body.following;
        if (this.phase === 'open') this.send({ type: 'view', following: body.following });
        break;
      case 'close':
        this.close();
        break;
      case 'suspend':
        if (this.phase !== 'connecting' && this.phase !== 'open' && this.phase !== 'waiting') break;
        this.resumeWhenClosed = false;
        this.phase = 'suspended';
        this.emit('state', { name: 'suspended' });
        if (this.linked) this.emit('disconnect', {});
        break;
      case 'resume':
        if (this.phase !== 'suspended' && this.phase !== 'waiting') break;
        this.attempt = 0;
        this.failedInARow = 0;
        // Still closing the connection `suspend` ended: the next one opens once it is gone.
        if (this.linked) this.resumeWhenClosed = true; else this.connect();
        break;
      case 'tick':
        this.ticking = false;
        if (this.phase !== 'closed') this.run(this.outbox.tick(now));
        break;
      default:
        throw new TypeError(`foldsync: no session input "${kind}"`);
    }
    return this.out;
  }

  /** An action a previous page left in its saved outbox (outbox-store.js), before `start`. */
  restore(ticket, saved, counter) {
    this.outbox.counter = Math.max(this.outbox.counter, counter);
    this.outbox.restore(ticket, saved);
    this.shown(this.outbox.items[this.outbox.items.length - 1]);
  }

  resubscribe() {
    for (const name of [...this.entries.keys()].sort()) {
      const e = this.entries.get(name);
      e.subscribing = true;
      this.send(subscribeMessage(name, e.mirror.position));
    }
  }

  emit(kind, body) { this.out.push({ [kind]: body }); }

  send(message) {
    if (this.linked) this.out.push({ send: message });
  }

  connect() {
    this.phase = 'connecting';
    this.emit('state', { name: 'connecting' });
    if (this.token === 'provider') this.emit('askToken', { refresh: false });
    else this.open(this.token === 'none' || this.token === null || this.token === undefined ? null : this.token.value);
  }

  open(token) {
    this.linked = true;
    this.emit('connect', { token, endpoint: this.endpoint });
  }

  received(m, now) {
    switch (m.type) {
      case 'hello': {
        if (typeof m.session === 'string') {
          this.sessions = [...this.sessions, m.session].slice(-SESSIONS_KEPT);
          for (const e of this.entries.values()) e.pending.session = m.session;
        }
        if (this.phase !== 'connecting' && this.phase !== 'open') return;
        this.phase = 'open';
        this.attempt = 0;
        this.failedInARow = 0;
        this.emit('state', { name: 'connected' });
        // `view` first, so presence never counts us following for a moment.
        if (!this.following) this.send({ type: 'view', following: false });
        this.resubscribe();
        // Behind the subscribes on the same connection: the daemon has resubscribed each board before it judges them.
        this.run(this.outbox.ready(now));
        return;
      }
      case 'authExpiring':
        if (this.token === 'provider') this.emit('askToken', { refresh: true });
        return;
      case 'ack':
        if (m.id !== undefined && m.id !== null) this.run(this.outbox.answered(m.id, m.rev ?? 0, null));
        return;
      case 'error':
        return this.error(m);
      case 'snapshot': case 'patch': case 'presence': case 'deleted':
        if (typeof m.board === 'string' && this.entries.has(m.board)) this.apply(m, this.entries.get(m.board));
        return;
      default:   // a newer daemon's message: ignored, as the protocol asks
    }
  }

  error(m) {
    const error = { code: m.code, message: m.message ?? '' };
    if (m.id !== undefined && m.id !== null) return this.run(this.outbox.answered(m.id, null, error));
    const e = typeof m.board === 'string' ? this.entries.get(m.board) : undefined;
    if (!e) return;
    // A subscription refused or ended (not_found, forbidden): whoever waits for it hears why.
    if (e.awaited) {
      e.awaited = false;
      this.emit('refused', { board: m.board, ...error });
    }
    if (e.mirror.position === null) this.entries.delete(m.board);
    // Resubscribing found it gone: deleted while we were away.
    else if (m.code === 'not_found' && e.mirror.state !== null) this.apply({ type: 'deleted', board: m.board }, e);
  }

  apply(m, e) {
    const name = e.mirror.board;
    const had = e.mirror.position;
    const before = e.mirror.state;
    const outcome = e.mirror.apply(m);
    switch (outcome.kind) {
      case 'changed': {
        const p = e.mirror.position;
        if (p === null) return;
        if (m.type === 'snapshot') return this.snapshot(e, had, p);
        e.subscribing = false;
        if (before !== null) e.pending.patched(before, e.mirror.state, p.rev, m.by);
        else e.pending.confirm(e.mirror.state, p.rev);
        return this.changed(e, { ops: m.ops, reason: null, by: m.by });
      }
      case 'deleted':
        e.deleted = true;
        e.pending.confirm(null, null);
        this.emit('deleted', { board: name });
        return;
      case 'outOfStep':
        // A patch that did not apply cleared the mirror: show nothing rather than a wrong board.
        if (e.mirror.state === null) e.pending.confirm(null, null);
        // Asked again: the snapshot that answers is the daemon's whole board (`pruned`), not a dropped queue.
        e.subscribing = true;
        this.send(subscribeMessage(name, null));
        return;
      case 'presence':
        this.emit('presence', { board: name, viewers: outcome.viewers ?? null, following: outcome.following ?? null });
        return;
      default:
    }
  }

  snapshot(e, had, p) {
    let reason = null;
    if (had !== null || e.deleted) {
      reason = e.deleted || had.epoch !== p.epoch ? 'epoch' : e.subscribing ? 'pruned' : 'lagging';
    }
    // An unasked-for snapshot: acks queued behind it were dropped (guarantee 2).
    if (reason === 'lagging') this.run(this.outbox.answersDropped());
    const first = had === null && !e.deleted;
    e.deleted = false;
    e.subscribing = false;
    e.pending.confirm(e.mirror.state, p.rev);
    // The first snapshot is the board's start, not a change: `ready` says it.
    if (!first) this.changed(e, { ops: null, reason });
    if (e.awaited) {
      e.awaited = false;
      this.emit('ready', { board: e.mirror.board });
    }
  }

  // A change of the daemon's: a patch (`ops`) or a resync (`reason`).
  changed(e, { ops, reason, by }) {
    const change = this.changeOf(e, { ops, resynced: ops === null && reason !== null, reason, local: false, rolledBack: null });
    if (by !== undefined && by !== null) change.by = by;
    this.emit('change', change);
  }

  // A change of the pending actions: told when the board shown moved, or an action was rolled back.
  local(e, was, rolledBack = null) {
    if (e.mirror.state === null) return;
    if (rolledBack === null && deepEqual(was, e.shown)) return;
    this.emit('change', this.changeOf(e, { ops: null, resynced: false, reason: null, local: true, rolledBack }));
  }

  changeOf(e, fields) {
    const p = e.mirror.position;
    return { board: e.mirror.board, rev: p.rev, epoch: p.epoch, state: e.shown, confirmed: e.mirror.state, ...fields };
  }

  closedInput(reason, status, random) {
    if (!this.linked) return;
    this.linked = false;
    this.outbox.lost();
    if (status === 401 || status === 403) {
      // Whoever waits for a first snapshot hears the refusal now, not after a retry that will be refused too.
      for (const name of [...this.entries.keys()].sort()) {
        const e = this.entries.get(name);
        if (!e.awaited) continue;
        e.awaited = false;
        this.emit('refused', { board: name, code: 'forbidden', message: reason });
      }
    }
    if (this.phase === 'closing') return this.finish();
    if (this.phase === 'suspended') {
      if (this.resumeWhenClosed) this.connect();
      this.resumeWhenClosed = false;
      return;
    }
    // The next URL at once; the backoff only once every URL failed in a row.
    this.endpoint = (this.endpoint + 1) % this.endpoints;
    if (++this.failedInARow < this.endpoints) {
      this.emit('state', { name: 'disconnected', reason, retryIn: 0 });
      return this.connect();
    }
    this.failedInARow = 0;
    this.phase = 'waiting';
    const delay = backoffDelay(this.attempt++, () => random) / 1000;
    this.emit('state', { name: 'disconnected', reason, retryIn: delay });
    this.emit('retry', { after: delay });
  }

  subscribe(name) {
    if (this.closed) return this.emit('refused', { board: name, code: 'closed', message: 'the client is closed' });
    const e = this.entries.get(name);
    if (e) {
      if (e.mirror.state !== null) this.emit('ready', { board: name }); else e.awaited = true;
      return;
    }
    const entry = new Entry(name, this.sessions);
    this.entries.set(name, entry);
    // Actions called before the subscribe show on it too.
    for (const a of this.shownAs.values()) if (a.board === name) entry.pending.act(a.key, withIfRev(a.action, a.ifRev));
    if (this.phase === 'open') {
      entry.subscribing = true;
      this.send(subscribeMessage(name, null));
    }
  }

  act(ticket, board, action, ifRev, now) {
    if (this.closed) return this.emit('reject', { call: ticket, code: 'closed', message: 'the client is closed: the action was not sent' });
    this.run(this.outbox.call(ticket, board, action, ifRev, now));
    const item = this.outbox.items[this.outbox.items.length - 1];
    if (item?.ticket !== ticket) return;
    this.shown(item);
  }

  /** An action in the outbox shows on its board until answered (a call, or one restored from a saved outbox). */
  shown(item) {
    this.shownAs.set(item.ticket, { board: item.board, key: item.key, action: item.action, ifRev: item.ifRev });
    const e = this.entries.get(item.board);
    if (!e) return;
    const was = e.shown;
    e.pending.act(item.key, withIfRev(item.action, item.ifRev));
    this.local(e, was);
  }

  close() {
    if (this.closed) return;
    const wasLinked = this.linked;
    this.phase = 'closing';
    this.run(this.outbox.closeAll());
    if (wasLinked) this.emit('disconnect', {}); else this.finish();
  }

  finish() {
    this.phase = 'closed';
    for (const name of [...this.entries.keys()].sort()) {
      const e = this.entries.get(name);
      if (!e.awaited) continue;
      e.awaited = false;
      this.emit('refused', { board: name, code: 'closed', message: 'the client was closed' });
    }
    this.emit('state', { name: 'closed' });
    this.emit('finished', {});
  }

  // Carries out what the outbox decided.
  run(effects) {
    for (const effect of effects) {
      if (effect.send) {
        const item = effect.send;
        const message = { ...item.action, board: item.board, id: item.key, key: item.key };
        if (item.ifRev !== null) message.ifRev = item.ifRev;
        this.send(message);
      } else if (effect.settle) {
        this.send({ type: 'settle', board: effect.settle.board, key: effect.settle.key, id: effect.settle.key });
      } else if (effect.resolve !== undefined) {
        const a = this.shownAs.get(effect.resolve);
        this.shownAs.delete(effect.resolve);
        const e = a && this.entries.get(a.board);
        if (e) {
          const was = e.shown;
          e.pending.ack(a.key, effect.rev);
          this.local(e, was);
        }
        this.emit('resolve', { call: effect.resolve, rev: effect.rev });
      } else if (effect.reject !== undefined) {
        const a = this.shownAs.get(effect.reject);
        this.shownAs.delete(effect.reject);
        const e = a && this.entries.get(a.board);
        if (e) {
          const was = e.shown;
          if (e.pending.refuse(a.key) !== null) this.local(e, was, { key: a.key, action: a.action, call: effect.reject, code: effect.code, message: effect.message });
        }
        this.emit('reject', { call: effect.reject, code: effect.code, message: effect.message });
      }
    }
    if (!this.ticking && this.outbox.items.length > 0 && !this.closed) {
      this.ticking = true;
      this.emit('tick', { after: 1 });
    }
  }
}

function subscribeMessage(board, since) {
  return since ? { type: 'subscribe', board, since } : { type: 'subscribe', board };
}

// The action as pending.js takes it: its ifRev inside.
function withIfRev(action, ifRev) {
  return ifRev === null ? action : { ...action, ifRev };
}
