// The outbox's saved copy (`persist`): the client id, the key counter and
// each waiting action's message and key, after every change, so a page
// reloaded mid-send sends them again with their keys and the daemon applies
// each once. The outbox itself (outbox.js) knows nothing of storage.

const STORAGE_PREFIX = 'foldsync.outbox ';

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

export class OutboxStore {
  constructor(url, persist) {
    this.storage = storageFrom(persist);
    this.key = STORAGE_PREFIX + url;
  }

  /** What the last page left: { clientId, counter, actions: [{ key, board, action, ifRev, calledAt (s), sent, settle }] }, or null. */
  load() {
    if (!this.storage) return null;
    let saved = null;
    try { saved = JSON.parse(this.storage.getItem(this.key) ?? 'null'); } catch { saved = null; }
    if (!saved || typeof saved.clientId !== 'string' || !/^[0-9a-f]{16}$/.test(saved.clientId)) return null;
    const actions = (Array.isArray(saved.actions) ? saved.actions : []).filter((a) =>
      a && typeof a.key === 'string' && typeof a.board === 'string' && a.message && typeof a.message.type === 'string');
    return {
      clientId: saved.clientId,
      counter: Number.isInteger(saved.counter) && saved.counter > 0 ? saved.counter : 0,
      actions: actions.map((a) => {
        const { board: _b, key: _k, id: _i, ifRev = null, ...action } = a.message;
        return {
          key: a.key, board: a.board, action, ifRev,
          calledAt: (typeof a.born === 'number' ? a.born : Date.now()) / 1000,
          sent: a.sent !== false, settle: a.settle === true,
        };
      }),
    };
  }

  /** The outbox (outbox.js) as it stands. */
  save(outbox) {
    if (!this.storage) return;
    const actions = outbox.items.map((item) => ({
      key: item.key, board: item.board,
      message: item.ifRev === null ? { ...item.action, board: item.board, key: item.key } : { ...item.action, board: item.board, key: item.key, ifRev: item.ifRev },
      born: item.calledAt * 1000, sent: item.phase !== 'waiting', settle: item.settleOnly,
    }));
    try {
      if (actions.length === 0 && outbox.counter === 0) this.storage.removeItem(this.key);
      else this.storage.setItem(this.key, JSON.stringify({ clientId: outbox.clientId, counter: outbox.counter, actions }));
    } catch (e) {
      // A full or refused storage must not stop the actions themselves.
      console.error('foldsync: could not save the outbox', e);
    }
  }
}
