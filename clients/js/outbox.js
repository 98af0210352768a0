// The outbox: every action the application called and the daemon has not
// answered yet, in the order called, each with the key that makes it
// exactly-once (docs/PROTOCOL.md, Guarantee 8). A dropped connection loses
// answers, not actions: what was sent is sent again with the same key after
// reconnecting, and the daemon applies it once (or answers `duplicate` with
// the first rev). The JavaScript twin of Sources/FoldSession/Outbox.swift:
// each input (a call, a connection ready or lost, an answer, the clock, a
// cancel) returns the effects the session (session.js) carries out. Pure:
// no socket, no clock, no storage (outbox-store.js keeps the saved copy).
//
// The bounds keep a client that stays offline from holding actions for
// ever: past `maxActions` a new action is refused at once, and past
// `maxAge` seconds an action is given up — rejected with `expired` when it
// was never sent, settled (`settle`: applied or made void for good) when it
// was sent and its answer lost. Both end in an answer that is true:
// `expired` means the action was not applied and never will be.
//
// Effects: { send: item } | { settle: item } | { resolve: ticket, rev } | { reject: ticket, code, message }

export const OUTBOX_MAX_ACTIONS = 1000;
export const OUTBOX_MAX_AGE_MS = 600000;

// Item phases.
const WAITING = 'waiting';     // never sent: the daemon has not seen it
const SENT = 'sent';           // sent on the connection that is up; its answer is awaited there
const CUT = 'cut';             // sent, and that connection ended before the answer
const SETTLING = 'settling';   // `settle` was sent for its key on the connection that is up

// 16 lowercase hex digits from a cryptographic source: two clients must
// never share keys, and a guessable id would let another client void ours.
export function newClientId() {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function bound(value, fallback, name) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`foldsync: options.outbox.${name} is a positive number`);
  return value;
}

/** { maxActions, maxAge (s) } from the options' { maxActions, maxAgeMs } or { maxAge }; throws on a bad bound. */
export function outboxLimits(outbox = {}) {
  const maxAge = outbox.maxAge !== undefined ? bound(outbox.maxAge, 0, 'maxAge')
    : bound(outbox.maxAgeMs, OUTBOX_MAX_AGE_MS, 'maxAgeMs') / 1000;
  return { maxActions: bound(outbox.maxActions, OUTBOX_MAX_ACTIONS, 'maxActions'), maxAge };
}

export class Outbox {
  constructor(clientId, limits = outboxLimits()) {
    this.clientId = clientId;
    this.limits = limits;
    this.items = [];          // { ticket, board, action, ifRev, key, calledAt, phase, settleOnly }, in the order called
    this.counter = 0;         // keys handed out: <clientId>-<counter>
    this.connected = false;   // a connection is up and has been told the subscriptions (ready)
  }

  /** An action kept from an earlier page (outbox-store.js): never sent, or sent and its answer lost. */
  restore(ticket, { board, action, ifRev = null, key, calledAt, sent, settle }) {
    this.items.push({ ticket, board, action, ifRev, key, calledAt, phase: sent ? CUT : WAITING, settleOnly: sent && settle });
  }

  /** A new action: sent at once when connected, else kept. */
  call(ticket, board, action, ifRev, now) {
    if (this.items.length >= this.limits.maxActions) {
      return [{ reject: ticket, code: 'expired', message: `the outbox holds ${this.items.length} actions, its bound; this one was not sent` }];
    }
    this.counter += 1;
    const item = { ticket, board, action, ifRev, key: `${this.clientId}-${this.counter}`, calledAt: now, phase: WAITING, settleOnly: false };
    this.items.push(item);
    if (!this.connected) return [];
    item.phase = SENT;
    return [{ send: item }];
  }

  /** A connection is up and every subscription was sent on it: what waits goes, in the order called; what is past its age is settled instead. */
  ready(now) {
    this.connected = true;
    const out = this.expire(now);
    for (const item of this.items) {
      if (item.phase === WAITING || (item.phase === CUT && !item.settleOnly)) {
        item.phase = SENT;
        out.push({ send: item });
      } else if (item.phase === CUT) {
        item.phase = SETTLING;
        out.push({ settle: item });
      }
    }
    return out;
  }

  /** The connection ended: every answer awaited on it is lost. */
  lost() {
    this.connected = false;
    for (const item of this.items) if (item.phase === SENT || item.phase === SETTLING) item.phase = CUT;
  }

  /** The daemon dropped this connection's queued answers (a `lagging` resync): what was sent goes again (a repeat is answered, not applied). */
  answersDropped() {
    const out = [];
    for (const item of this.items) {
      if (item.phase === SENT) out.push({ send: item });
      else if (item.phase === SETTLING) out.push({ settle: item });
    }
    return out;
  }

  /** The answer to the message with `id` (an item's key): an ack (`rev`) or an error (`error`: { code, message }). */
  answered(id, rev, error) {
    const i = this.items.findIndex((item) => item.key === id);
    if (i < 0 || (this.items[i].phase !== SENT && this.items[i].phase !== SETTLING)) return [];
    if (rev === null && error === null) return [];
    const [item] = this.items.splice(i, 1);
    if (rev !== null) return [{ resolve: item.ticket, rev }];
    const message = item.phase === SETTLING && error.code === 'expired'
      ? `the action was never applied, and now never will be (${error.message})` : error.message;
    return [{ reject: item.ticket, code: error.code, message }];
  }

  /** Once a second while anything waits: what is past its age. */
  tick(now) {
    const out = this.expire(now);
    if (!this.connected) return out;
    for (const item of this.items) {
      if (item.settleOnly && item.phase === CUT) {
        item.phase = SETTLING;
        out.push({ settle: item });
      }
    }
    return out;
  }

  /** The application gave up on `ticket`: unsent, it goes (`expired`); sent, its key is settled, so it is either confirmed or never applied. */
  cancel(ticket) {
    const i = this.items.findIndex((item) => item.ticket === ticket);
    if (i < 0) return [];
    const item = this.items[i];
    switch (item.phase) {
      case WAITING:
        this.items.splice(i, 1);
        return [{ reject: ticket, code: 'expired', message: 'cancelled before it was sent: it was never applied' }];
      case SENT:
        item.settleOnly = true;
        item.phase = SETTLING;
        return [{ settle: item }];
      case CUT:
        item.settleOnly = true;
        return [];
      default:
        return [];
    }
  }

  /** close(): everything still waiting fails. */
  closeAll() {
    const out = this.items.map((item) => ({
      reject: item.ticket,
      code: 'closed',
      message: item.phase !== WAITING
        ? 'the client was closed before the answer came: the action may or may not have been applied'
        : 'the client was closed before the action was sent: it was never applied',
    }));
    this.items = [];
    return out;
  }

  // Unsent items past their age fail; sent ones whose answer was lost are marked to be settled.
  expire(now) {
    const out = [];
    this.items = this.items.filter((item) => {
      if (item.phase !== WAITING || !(now - item.calledAt > this.limits.maxAge)) return true;
      out.push({ reject: item.ticket, code: 'expired', message: `waited ${Math.trunc(this.limits.maxAge)} s without a connection; it was never sent, so never applied` });
      return false;
    });
    for (const item of this.items) if (item.phase === CUT && now - item.calledAt > this.limits.maxAge) item.settleOnly = true;
    return out;
  }
}
