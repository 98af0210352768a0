// The dashboard's connection to foldsyncd: the client library's (served at
// /lib/, clients/js), so the page and every other client share one
// WebSocket, one reconnection and one backoff. What the page adds is its
// say on when to come back (a 1008 refusal or an expired token waits for
// the user: options.reconnect) and the names its status strip and the
// browser tests read (state, opens, lastClose, authByMessage).
//
// The token travels as the library sends it, in a first `auth` message
// (docs/CLIENTS.md, "Tokens"); it is never put in the URL and never logged.

import { connect } from '/lib/foldsync.js';
export { backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS } from '/lib/backoff.js';

// Whatever host served the page: behind a load balancer, its address, so a
// reconnect after a daemon dies goes through it to another daemon. Every
// other URL the dashboard uses is a path on the same host (/api/..., /app.js).
export function socketURL(loc = window.location) {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/ws`;
}

// The page's names for the library's states: `open` once the daemon said
// hello, `waiting` for the next attempt, `stopped` until the page reconnects.
export function pageState({ state, delay }) {
  if (state === 'connected') return 'open';
  if (state === 'connecting') return 'connecting';
  if (state === 'disconnected' && delay !== null && delay !== undefined) return 'waiting';
  return 'stopped';
}

export class Connection {
  // handlers: onMessage(msg) (every message of the daemon, `hello` included:
  // the owner subscribes then), onState({state, retryAt}) with state one of
  // "connecting", "open", "waiting", "stopped"; token() -> the secret to
  // present, or null; onClose({code, reason}) -> false to stop instead of
  // scheduling a retry (e.g. a 1008 for want of a token).
  constructor(url, handlers) {
    this.handlers = handlers;
    this.state = 'stopped';
    this.opens = 0;          // connection attempts, for tests
    this.lastClose = null;   // { code, reason } of the last close
    this.authByMessage = false;
    this.client = null;
    this.url = url;
    this.onOnline = () => { if (this.state === 'waiting') this.client?.reconnect(); };
    window.addEventListener('online', this.onOnline);
  }

  // Connects (once; later calls are restart()).
  open() {
    if (this.client) { this.restart(); return; }
    const token = () => {
      const secret = this.handlers.token ? this.handlers.token() : null;
      this.authByMessage = Boolean(secret);
      return secret;
    };
    this.client = connect(this.url, {
      transport: 'websocket',
      token,
      reconnect: (end) => {
        this.lastClose = { code: end.code, reason: end.reason };
        return this.handlers.onClose ? this.handlers.onClose(this.lastClose) !== false : true;
      },
    });
    this.client.on('state', (s) => {
      if (s.state === 'connecting') this.opens += 1;
      this.state = pageState(s);
      this.handlers.onState({ state: this.state, retryAt: typeof s.delay === 'number' ? Date.now() + s.delay : 0 });
    });
    this.client.on('message', (m) => this.handlers.onMessage(m));
  }

  // Drops the current socket (if any) and connects at once: a new token.
  restart() {
    if (this.client) this.client.reconnect(); else this.open();
  }

  // Stops for good: a one-off connection (the list page's probe) is done.
  close() {
    this.client?.close();
    window.removeEventListener('online', this.onOnline);
  }

  // The library's failed attempts since the last `hello`, and its retry timer (tests read them).
  get attempt() { return this.client ? this.client.attempt : 0; }
  get timer() { return this.client ? this.client.timer : null; }
  get isOpen() { return this.client !== null && this.client.connected; }

  send(msg) { return this.isOpen && this.client.send(msg); }

  // One action; resolves with the rev of its ack, rejects with a FoldError.
  act(board, action) { return this.client.act(board, action); }

  // A new token on the open connection, before the old one expires.
  authenticate(secret) {
    if (!this.isOpen || !this.client.authenticate(secret)) return false;
    this.authByMessage = true;
    return true;
  }
}
