// The stream transport, for networks that break WebSockets (a proxy that
// strips the upgrade, buffers frames or kills long-lived sockets): what the
// daemon sends comes as Server-Sent Events, one stream per board (GET
// /api/boards/NAME/events), and actions go as POST /api/boards/NAME/actions.
// It has websocket-transport.js's shape — the client sends it protocol
// messages and is handed protocol messages back — so client.js does not
// know which one it holds, except for `inBand` (below).
//
// What it makes up so the client need not care:
// - `hello`, once GET /healthz answers: the daemon is there. A stream has
//   no session, so hello's `session` is null.
// - `ack` and `error` from each POST's answer ({"rev"} or {"code",
//   "message"}), with the action's id. The action's `key` travels as the
//   `Idempotency-Key` header, and `settle` is POST /api/boards/NAME/settle
//   {"key"} (200 {"rev", "duplicate"}, or 410 `expired`). An answer comes on its own HTTP
//   exchange and may beat the board's patch down the stream; an ack is held
//   until the board's stream has delivered its rev (or ACK_WAIT_MS), so
//   that, as on a WebSocket, the change is seen before the action resolves.
// - the order called: a board's actions are POSTed one at a time, each once
//   the one before it is answered. Concurrent requests reach the daemon on
//   separate connections and are applied in whatever order they land; a
//   WebSocket carries them in order, and so must this (a toggle then a
//   collapse must not become the reverse, and the optimistic state,
//   pending.js, tells our patches apart by that order).
// - `error` with the board's name when a stream is refused (401/403
//   forbidden, 404 not_found): the client takes it as the subscribe's
//   answer, as it does the daemon's on a WebSocket.
// Any stream that ends or fails, and any POST that gets no answer, ends the
// whole connection (a POST cut on the way may or may not have reached the
// daemon: the client sends it again with its key after reconnecting): the client
// reconnects with its backoff and resumes every board with `since`, which
// travels as `Last-Event-ID`. Not carried: `view` (a stream always counts
// as following), `authenticated` and `authExpiring` (no conversation): the
// client renews a JWT before its `exp` and reopens each stream with the new
// token, resuming at its last rev; a JWT that does expire ends the stream,
// and the reconnect asks for a new one.
//
// The token goes as `Authorization: Bearer` on every request (fetch can set
// it; EventSource could not, which is why the stream is read by hand).

import { EventStreamParser } from './sse.js';
import { apiBase } from './http.js';

// How long an ack waits for its rev to come down the board's stream.
const ACK_WAIT_MS = 5000;
// A stream from which nothing came (not even the daemon's heartbeat, every
// --stream-heartbeat seconds, 15 by default) for this long is taken as dead:
// a half-open TCP connection would otherwise hold it for good.
export const STREAM_IDLE_MS = 45000;

const STREAMED = new Set(['snapshot', 'patch', 'presence', 'deleted']);

export const streamTransport = {
  name: 'stream',
  // Answers (acks, errors) do not travel in order with the board's messages,
  // and a resync of a board's stream drops no answer.
  inBand: false,

  open(url, { token: initialToken, fetch: doFetch = globalThis.fetch, idleMs = STREAM_IDLE_MS }, handlers) {
    const base = apiBase(url);
    let token = initialToken;
    let done = false;
    let opened = false;
    const probe = new AbortController();
    const streams = new Map();   // board -> { ctl, rev, idle }
    let held = [];               // acks waiting for their board's stream: { board, id, rev, timer }
    const queues = new Map();    // board -> its actions waiting for the POST in flight to be answered

    const headers = (extra = {}) => (token ? { ...extra, authorization: `Bearer ${token}` } : extra);

    const finish = (reason) => {
      if (done) return;
      done = true;
      probe.abort();
      for (const name of [...streams.keys()]) closeStream(name);
      releaseHeld(() => true);
      handlers.onClose({ code: null, reason, opened });
    };

    const releaseHeld = (which) => {
      const now = held.filter(which);
      if (now.length === 0) return;
      held = held.filter((h) => !now.includes(h));
      for (const h of now) {
        clearTimeout(h.timer);
        handlers.onMessage(h.duplicate ? { type: 'ack', id: h.id, board: h.board, rev: h.rev, duplicate: true } : { type: 'ack', id: h.id, board: h.board, rev: h.rev });
      }
    };

    const ack = (board, id, rev, duplicate) => {
      const s = streams.get(board);
      if (done || !s || (s.rev !== null && s.rev >= rev)) {
        handlers.onMessage(duplicate ? { type: 'ack', id, board, rev, duplicate } : { type: 'ack', id, board, rev });
        return;
      }
      const h = { board, id, rev, duplicate, timer: null };
      h.timer = setTimeout(() => releaseHeld((x) => x === h), ACK_WAIT_MS);
      held.push(h);
    };

    // Reopening a board's stream (a new token) keeps its acks waiting for their revs on the new one.
    const closeStream = (board, reopening = false) => {
      const s = streams.get(board);
      if (!s) return;
      streams.delete(board);
      clearTimeout(s.idle);
      s.ctl.abort();
      if (!reopening) releaseHeld((h) => h.board === board);
    };

    const deliver = (board, s, event) => {
      if (!STREAMED.has(event.type)) return;   // a newer daemon's event: ignored
      let m;
      try { m = JSON.parse(event.data); } catch { return; }
      if (m === null || typeof m !== 'object' || typeof m.type !== 'string') return;
      if (m.board === undefined) m.board = board;
      handlers.onMessage(m);
      if (streams.get(board) !== s) return;
      if (m.type === 'snapshot' || m.type === 'patch') {
        s.rev = m.rev;
        // A snapshot may start another epoch at a lower rev: whatever waited is answered.
        releaseHeld((h) => h.board === board && (m.type === 'snapshot' || h.rev <= m.rev));
      } else if (m.type === 'deleted') {
        s.rev = null;
        releaseHeld((h) => h.board === board);
      }
    };

    const openStream = (board, since) => {
      closeStream(board, true);
      const s = { ctl: new AbortController(), rev: since ? since.rev : null, idle: null };
      streams.set(board, s);
      const current = () => !done && streams.get(board) === s;
      const armIdle = () => {
        clearTimeout(s.idle);
        s.idle = setTimeout(() => { if (current()) finish(`nothing on the event stream of '${board}' for ${Math.round(idleMs / 1000)} s`); }, idleMs);
      };
      const extra = { accept: 'text/event-stream' };
      if (since) extra['last-event-id'] = `${since.epoch}:${since.rev}`;
      const run = async () => {
        const response = await doFetch(`${base}/api/boards/${encodeURIComponent(board)}/events`,
          { headers: headers(extra), signal: s.ctl.signal, cache: 'no-store' });
        if (!current()) { response.body?.cancel().catch(() => {}); return; }
        if (!response.ok) {
          const body = await response.json().catch(() => null);
          if (!current()) return;
          const code = body?.code ?? 'internal';
          const message = body?.message ?? `HTTP ${response.status}`;
          // Too many connections, the daemon stopping: try again later, as a refused upgrade.
          if (response.status >= 500) { finish(`HTTP ${response.status} ${code}: ${message}`); return; }
          streams.delete(board);
          handlers.onMessage({ type: 'error', board, code, message });
          return;
        }
        armIdle();
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        const parser = new EventStreamParser();
        for (;;) {
          const { value, done: end } = await reader.read();
          if (!current()) { reader.cancel().catch(() => {}); return; }
          if (end) break;
          armIdle();
          for (const event of parser.push(decoder.decode(value, { stream: true }))) {
            deliver(board, s, event);
            if (!current()) { reader.cancel().catch(() => {}); return; }
          }
        }
        finish(`the event stream of '${board}' ended`);
      };
      run().catch((e) => { if (current()) finish(`the event stream of '${board}' failed: ${e.message}`); });
    };

    // One POST per board at a time, in the order sent.
    const post = (message) => {
      const waiting = queues.get(message.board);
      if (waiting) waiting.push(message);
      else {
        queues.set(message.board, []);
        postNow(message);
      }
      return true;
    };

    const next = (board) => {
      const waiting = queues.get(board);
      if (done || !waiting) return;
      if (waiting.length === 0) queues.delete(board);
      else postNow(waiting.shift());
    };

    // An action (its key as Idempotency-Key), or a settle ({"key"} to .../settle).
    const postNow = (message) => {
      const { board, id, key, ...action } = message;
      const settle = message.type === 'settle';
      const path = `/api/boards/${encodeURIComponent(board)}/${settle ? 'settle' : 'actions'}`;
      const extra = { 'content-type': 'application/json', accept: 'application/json' };
      if (key !== undefined && !settle) extra['idempotency-key'] = key;
      doFetch(base + path, {
        method: 'POST',
        headers: headers(extra),
        body: JSON.stringify(settle ? { key } : action),
        cache: 'no-store',
      }).then(async (response) => {
        const body = await response.json().catch(() => null);
        // An answer cut short is no answer: as above, the connection ends and the key is sent again.
        if (response.ok && body === null) { finish(`the answer to POST ${path} was cut short`); return; }
        if (response.ok && typeof body?.rev === 'number') ack(board, id, body.rev, body.duplicate === true);
        else handlers.onMessage({ type: 'error', id, board, code: body?.code ?? 'internal', message: body?.message ?? `HTTP ${response.status}` });
        next(board);
      }, (e) => {
        // No answer: it may or may not have reached the daemon. The
        // connection ends, and the client sends it again with its key.
        finish(`POST ${path} failed: ${e.message}`);
      });
    };

    doFetch(`${base}/healthz`, { signal: probe.signal, cache: 'no-store' }).then(async (response) => {
      await response.text().catch(() => '');
      if (done) return;
      if (!response.ok) { finish(`HTTP ${response.status} from /healthz`); return; }
      opened = true;
      handlers.onMessage({ type: 'hello', protocol: 1, session: null });
    }, (e) => finish(`could not connect: ${e.message}`));

    return {
      send(message) {
        if (done) return false;
        switch (message.type) {
          case 'subscribe': openStream(message.board, message.since ?? null); return true;
          case 'unsubscribe': closeStream(message.board); return true;
          case 'auth': token = message.token; return true;
          case 'view': return false;   // no conversation to say it in: a stream counts as following
          default:
            if (typeof message.board !== 'string') return false;
            return post(message);
        }
      },
      // Used from the next request on; an open stream keeps the token it was
      // opened with until the client reopens it (a subscribe with since).
      authenticate(fresh) { token = fresh; return true; },
      close() {
        if (done) return;
        done = true;
        probe.abort();
        for (const name of [...streams.keys()]) closeStream(name);
        releaseHeld(() => true);
      },
    };
  },
};
