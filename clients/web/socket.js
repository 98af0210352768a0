// The WebSocket connection to foldsyncd: ws:// or wss:// from the page's own
// URL, batched frames split on "\n", and reconnection with capped exponential
// backoff and jitter. What to (re)subscribe to is the caller's business
// (onOpen), so a resume can carry `since`.

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 15000;

export function socketURL(loc = window.location) {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/ws`;
}

// Equal jitter: half the capped exponential delay, plus a random share of the other half.
export function backoffDelay(attempt, random = Math.random) {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export class Connection {
  // handlers: onOpen(), onMessage(msg), onState({state, retryAt}) with
  // state one of "connecting", "open", "waiting".
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.state = 'connecting';
    window.addEventListener('online', () => { if (this.state === 'waiting') this.connectNow(); });
  }

  connectNow() {
    clearTimeout(this.timer);
    this.timer = null;
    this.open();
  }

  open() {
    this.setState('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url, ['foldsync.v1.batch', 'foldsync.v1']);
    } catch (e) {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.setState('open');
      this.handlers.onOpen();
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      for (const line of event.data.split('\n')) {
        if (!line) continue;
        let msg;
        try { msg = JSON.parse(line); } catch { continue; }
        this.handlers.onMessage(msg);
      }
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
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
