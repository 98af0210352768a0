// The outbox: every action the application called and the daemon has not
// answered yet, in the order called, each with the key that makes it
// exactly-once (docs/PROTOCOL.md, Guarantee 8). A dropped connection loses
// answers, not actions: what was sent is sent again with the same key after
// reconnecting, and the daemon applies it once (or answers `duplicate` with
// the first rev). The client (client.js) decides when to send; this file
// holds the entries, their keys, the bounds and the saved copy.
//
// The bounds keep a client that stays offline from holding actions for
// ever: past `maxActions` a new action is refused at once, and past
// `maxAgeMs` an action is given up — rejected with `expired` when it was
// never sent, settled (`settle`: applied or made void for good) when it was
// sent and its answer lost. Both end in an answer that is true: `expired`
// means the action was not applied and never will be.

export const OUTBOX_MAX_ACTIONS = 1000;
export const OUTBOX_MAX_AGE_MS = 600000;

const STORAGE_PREFIX = 'foldsync.outbox ';

// 16 lowercase hex digits from a cryptographic source: two clients must
// never share keys, and a guessable id would let another client void ours.
export function newClientId() {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// persist: undefined/null/false (memory only), "session" (sessionStorage),
// or any object with getItem/setItem/removeItem.
function storageFrom(persist) {
  if (persist === undefined || persist === null || persist === false) return null;
  if (persist === 'session') {
    const s = globalThis.sessionStorage;
    if (!s) throw new TypeError('foldsync: persist "session" needs sessionStorage (a browser); pass a storage object instead');
    return s;
  }
  if (typeof persist === 'object' && ['getItem', 'setItem', 'removeItem'].every((f) => typeof persist[f] === 'function')) return persist;
  throw new TypeError('foldsync: options.persist is "session" or an object with getItem, setItem and removeItem');
}

function bound(value, fallback, name) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`foldsync: options.outbox.${name} is a positive number`);
  return value;
}

export class Outbox {
  constructor(url, { outbox = {}, persist } = {}) {
    this.maxActions = bound(outbox.maxActions, OUTBOX_MAX_ACTIONS, 'maxActions');
    this.maxAgeMs = bound(outbox.maxAgeMs, OUTBOX_MAX_AGE_MS, 'maxAgeMs');
    this.storage = storageFrom(persist);
    this.storageKey = STORAGE_PREFIX + url;
    this.entries = new Map();   // id -> entry, in the order called
    this.clientId = newClientId();
    this.counter = 0;           // keys handed out: <clientId>-<counter>
    this.saved = [];            // what the last page left, taken by restore()
    this.load();
  }

  get size() { return this.entries.size; }
  get full() { return this.entries.size >= this.maxActions; }
  get(id) { return this.entries.get(id); }
  [Symbol.iterator]() { return this.entries.values(); }

  // A new entry for `action` on `board`; answer.resolve(rev) or
  // answer.reject(FoldError) is called once, with its outcome.
  add(id, board, action, answer) {
    this.counter += 1;
    const key = `${this.clientId}-${this.counter}`;
    const entry = {
      id, key, board,
      // The message as sent, every time: the same key and the same ifRev.
      message: { ...action, board, key },
      born: Date.now(),
      sent: false,      // it may have reached the daemon (so it is settled, never dropped)
      conn: null,       // the connection (client generation) it was last sent on
      settle: false,    // sent and past a bound, or cancelled: ask `settle`, never send it again
      seq: 0,
      inBand: true,
      resolve: answer.resolve,
      reject: answer.reject,
    };
    this.entries.set(id, entry);
    this.save();
    return entry;
  }

  remove(entry) {
    if (!this.entries.delete(entry.id)) return false;
    this.save();
    return true;
  }

  // The message that goes on the wire for this entry now.
  wire(entry) {
    return entry.settle
      ? { type: 'settle', board: entry.board, key: entry.key, id: entry.id }
      : { ...entry.message, id: entry.id };
  }

  /**
   * The entries the age bound has caught, at `now`: never sent ones are
   * returned to be rejected (and removed); sent ones whose connection is
   * gone are marked to be settled. live(entry) says whether the connection
   * it was sent on is still up: then it simply waits for its answer.
   */
  aged(now, live) {
    const expired = [];
    for (const entry of [...this.entries.values()]) {
      if (now - entry.born <= this.maxAgeMs) continue;
      if (!entry.sent) {
        this.entries.delete(entry.id);
        expired.push(entry);
      } else if (!entry.settle && !live(entry)) {
        entry.settle = true;
      }
    }
    if (expired.length > 0) this.save();
    return expired;
  }

  // ---- the saved copy (persist) ----

  // The client id, the counter and each waiting action's message and key,
  // after every change: a page reloaded mid-send sends them again with
  // their keys, so the daemon applies each once.
  save() {
    if (!this.storage) return;
    const actions = [...this.entries.values()].map((e) => ({ key: e.key, board: e.board, message: e.message, born: e.born, sent: e.sent, settle: e.settle }));
    try {
      if (actions.length === 0 && this.counter === 0) this.storage.removeItem(this.storageKey);
      else this.storage.setItem(this.storageKey, JSON.stringify({ clientId: this.clientId, counter: this.counter, actions }));
    } catch (e) {
      // A full or refused storage must not stop the actions themselves.
      console.error('foldsync: could not save the outbox', e);
    }
  }

  load() {
    if (!this.storage) return;
    let saved = null;
    try { saved = JSON.parse(this.storage.getItem(this.storageKey) ?? 'null'); } catch { saved = null; }
    if (!saved || typeof saved.clientId !== 'string' || !/^[0-9a-f]{16}$/.test(saved.clientId)) return;
    this.clientId = saved.clientId;
    this.counter = Number.isInteger(saved.counter) && saved.counter > 0 ? saved.counter : 0;
    this.saved = Array.isArray(saved.actions) ? saved.actions.filter((a) =>
      a && typeof a.key === 'string' && typeof a.board === 'string' && a.message && typeof a.message.type === 'string') : [];
  }

  // The actions a previous page left, as entries again (their promises are
  // gone with that page: answerFor(saved) reports to the client's `outbox` event).
  restore(nextId, answerFor) {
    for (const a of this.saved) {
      const id = nextId();
      this.entries.set(id, {
        id, key: a.key, board: a.board, message: { ...a.message, board: a.board, key: a.key },
        born: typeof a.born === 'number' ? a.born : Date.now(),
        sent: a.sent !== false, conn: null, settle: a.settle === true, seq: 0, inBand: true,
        restored: true, ...answerFor(a),
      });
    }
    this.saved = [];
    this.save();
  }
}
