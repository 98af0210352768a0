// The WebSocket transport: how the client's messages travel today.
//
// A transport is { name, open(url, options, handlers) } where open returns a
// connection { send(message), authenticate(token), close() } and reports
// through handlers.onMessage(message) and handlers.onClose({ code, reason,
// opened }), once, unless the client closed it itself. The client
// (client.js) holds everything else — states, backoff, boards, actions — so
// the second transport (stream-transport.js: Server-Sent Events plus POST)
// is one more file with the same shape.
//
// The token goes in an `auth` message, the first thing sent: a browser
// cannot set headers on a WebSocket, a `token.SECRET` subprotocol cannot
// carry every secret (and proxies log headers), and the daemon answers the
// message in order, before the subscribes that follow it. The same message
// renews the token on the open connection (`authExpiring`).

const PROTOCOLS = ['foldsync.v1.batch', 'foldsync.v1'];

export const websocketTransport = {
  name: 'websocket',

  open(url, { token, WebSocket: Socket = globalThis.WebSocket }, handlers) {
    let ws = null;
    let done = false;
    let opened = false;
    const finish = (code, reason) => {
      if (done) return;
      done = true;
      handlers.onClose({ code, reason, opened });
    };
    try {
      ws = new Socket(url, PROTOCOLS);
    } catch (e) {
      // Reported after open() returns, as every other end is.
      queueMicrotask(() => finish(1006, e.message));
      return { send() { return false; }, authenticate() { return false; }, close() { done = true; } };
    }
    ws.onopen = () => {
      opened = true;
      if (token !== null) ws.send(JSON.stringify({ type: 'auth', token }));
    };
    ws.onmessage = (event) => {
      if (done || typeof event.data !== 'string') return;
      // With foldsync.v1.batch one frame may hold several messages; no
      // encoded message holds a raw newline (PROTOCOL.md, "Batching").
      for (const line of event.data.split('\n')) {
        if (!line) continue;
        let message;
        try { message = JSON.parse(line); } catch { continue; }
        if (message !== null && typeof message === 'object') handlers.onMessage(message);
        if (done) return;
      }
    };
    ws.onclose = (event) => finish(event.code, event.reason);
    // A close event should follow every error, with the code; Node 20's
    // WebSocket (undici) sends none when the handshake fails (a refused
    // port), so an error before the open ends the attempt, and one after it
    // does if no close comes within a second.
    ws.onerror = () => {
      if (!opened) {
        finish(1006, '');
        try { ws.close(); } catch { /* never opened */ }
      } else {
        setTimeout(() => finish(1006, ''), 1000);
      }
    };

    const send = (message) => {
      if (done || ws.readyState !== 1) return false;
      ws.send(JSON.stringify(message));
      return true;
    };
    return {
      send,
      authenticate: (fresh) => send({ type: 'auth', token: fresh }),
      close() {
        done = true;
        try { ws.close(1000); } catch { /* already closing */ }
      },
    };
  },
};
