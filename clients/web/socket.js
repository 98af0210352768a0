// The WebSocket connection to foldsyncd: ws:// or wss:// from the page's own
// URL, batched frames split on "\n", and reconnection with capped exponential
// backoff and jitter. What to (re)subscribe to is the caller's business
// (onOpen), so a resume can carry `since`.
//
// Tokens (PROTOCOL.md, "Tokens"): a browser cannot set headers on a
// WebSocket, so the secret travels as a second offered subprotocol
// `token.SECRET` (the daemon answers with `foldsync.v1` alone), or, when the
// secret holds characters a subprotocol may not (RFC 6455 wants an RFC 2616
// token: no separators, no spaces), as a first `auth` message. The secret is
// never put in the URL and never logged.

// The reconnect delay is the library's (clients/js/backoff.js, served at
// /lib/): every client of a restarted daemon comes back within the same
// bound, by one implementation of Tests/vectors/backoff.json.
import { backoffDelay } from '/lib/backoff.js';
export { backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS } from '/lib/backoff.js';

// Whatever host served the page: behind a load balancer, its address, so a
// reconnect after a daemon dies goes through it to another daemon. Every
// other URL the dashboard uses is a path on the same host (/api/..., /app.js).
export function socketURL(loc = window.location) {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/ws`;
}

// RFC 2616 `token`: visible ASCII except separators.
const SUBPROTOCOL_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export function tokenFitsSubprotocol(secret) { return SUBPROTOCOL_TOKEN.test(`token.${secret}`); }

// The daemon reads at most this many bytes of offered subprotocols (its
// libwebsockets' buffer); a longer token, a JWT, goes as an `auth` message.
export const MAX_PROTOCOL_OFFER = 127;

// The subprotocols to offer, and the first message to send (or null).
export function handshake(secret) {
  const protocols = ['foldsync.v1.batch', 'foldsync.v1'];
  if (!secret) return { protocols, auth: null };
  const offer = [...protocols, `token.${secret}`];
  if (tokenFitsSubprotocol(secret) && offer.join(', ').length <= MAX_PROTOCOL_OFFER) return { protocols: offer, auth: null };
  return { protocols, auth: { type: 'auth', token: secret } };
}

export class Connection {
  // handlers: onOpen(), onMessage(msg), onState({state, retryAt}) with
  // state one of "connecting", "open", "waiting", "stopped";
  // token() -> the secret to present, or null; onClose(event) -> false to
  // stop instead of scheduling a retry (e.g. a 1008 for want of a token).
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.state = 'connecting';
    this.opens = 0;          // connection attempts, for tests
    this.lastClose = null;   // { code, reason } of the last close
    this.authByMessage = false;
    this.onOnline = () => { if (this.state === 'waiting') this.connectNow(); };
    window.addEventListener('online', this.onOnline);
  }

  connectNow() {
    clearTimeout(this.timer);
    this.timer = null;
    this.open();
  }

  // Drops the current socket (if any) and connects at once: a new token.
  restart() {
    this.drop();
    this.connectNow();
  }

  // Drops the current socket and does not reconnect until told to.
  stop() {
    this.drop();
    clearTimeout(this.timer);
    this.timer = null;
    this.setState('stopped');
  }

  // Stops for good: a one-off connection (the list page's probe) is done.
  close() {
    this.stop();
    window.removeEventListener('online', this.onOnline);
  }

  drop() {
    const ws = this.ws;
    this.ws = null;
    if (ws) { try { ws.close(1000); } catch { /* already closing */ } }
  }

  open() {
    this.setState('connecting');
    const secret = this.handlers.token ? this.handlers.token() : null;
    const { protocols, auth } = handshake(secret);
    this.authByMessage = auth !== null;
    this.opens += 1;
    let ws;
    try {
      ws = new WebSocket(this.url, protocols);
    } catch (e) {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      if (auth) ws.send(JSON.stringify(auth));
      this.setState('open');
      this.handlers.onOpen();
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      if (typeof event.data !== 'string') return;
      for (const line of event.data.split('\n')) {
        if (!line) continue;
        let msg;
        try { msg = JSON.parse(line); } catch { continue; }
        this.handlers.onMessage(msg);
      }
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.lastClose = { code: event.code, reason: event.reason };
      if (this.handlers.onClose && this.handlers.onClose(event) === false) {
        clearTimeout(this.timer);
        this.timer = null;
        this.setState('stopped');
        return;
      }
      this.scheduleRetry();
    };
  }

  // Called by the owner once the daemon has answered usefully (a snapshot or a
  // patch): only then is the backoff reset, so a daemon that accepts and drops
  // connections is not hammered.
  healthy() { this.attempt = 0; }

  scheduleRetry() {
    const delay = backoffDelay(this.attempt++);
    const retryAt = Date.now() + delay;
    this.setState('waiting', retryAt);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  setState(state, retryAt = 0) {
    this.state = state;
    this.handlers.onState({ state, retryAt });
  }

  get isOpen() { return this.ws !== null && this.ws.readyState === WebSocket.OPEN; }

  send(msg) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }
}
