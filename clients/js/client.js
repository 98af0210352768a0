// The connection to one foldsyncd, kept up for as long as the application
// wants it: states, reconnection with the shared backoff, the token, the
// boards to resubscribe (with `since`), and the actions waiting for their
// answer. The transport (websocket-transport.js) only carries messages.
//
// States: connecting -> connected -> disconnected {reason, code, delay} ->
// connecting ... and closed after close(), from which nothing reconnects.

import { Board } from './board.js';
import { Emitter } from './emitter.js';
import { FoldError } from './fold-error.js';
import { backoffDelay } from './backoff.js';
import { resolveToken } from './token.js';
import { apiBase, getJSON } from './http.js';
import { websocketTransport } from './websocket-transport.js';

export const TRANSPORTS = { websocket: websocketTransport };

// An attempt that has not been greeted (`hello`) by then is given up and
// retried: a host that swallows packets would otherwise hold it for minutes.
const HELLO_TIMEOUT_MS = 10000;

export class Client {
  constructor(url, options = {}) {
    const u = new URL(url);
    if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new TypeError(`foldsync: ${url} is not a ws:// or wss:// URL`);
    const transport = TRANSPORTS[options.transport ?? 'websocket'];
    if (!transport) throw new TypeError(`foldsync: no transport "${options.transport}"`);
    const Socket = options.WebSocket ?? globalThis.WebSocket;
    if (transport === websocketTransport && typeof Socket !== 'function') {
      throw new TypeError('foldsync: no WebSocket here; in Node 20 run with --experimental-websocket (Node 22 has it), or pass options.WebSocket');
    }
    this.url = url;
    this.options = { ...options, WebSocket: Socket };
    this.impl = transport;
    this.random = options.random ?? Math.random;
    this.events = new Emitter();
    this.boards = new Map();    // name -> Board, resubscribed on every connection
    this.pending = new Map();   // action id -> { resolve, reject, board, seq }
    this.nextId = 1;
    this.seq = 0;               // messages sent, in order: tells which answers follow which subscribe
    this.attempt = 0;           // failed attempts since the last `connected`
    this.generation = 0;        // bumped by every connect and close: stale callbacks do nothing
    this.conn = null;
    this.timer = null;
    this.helloTimer = null;
    this.current = { state: 'connecting' };
    this.viewSent = null;       // the last `view` asked for, re-sent on every connection
    this.token = null;          // the token of the current connection (for HTTP)
    this.session = null;
    this.identity = null;
    // The application attaches its listeners after connect() returns.
    queueMicrotask(() => this.connectNow());
  }

  get state() { return this.current.state; }
  get transport() { return this.impl.name; }
  get connected() { return this.current.state === 'connected'; }

  on(event, listener) { return this.events.on(event, listener); }
  off(event, listener) { this.events.off(event, listener); }

  /** Resolves with the board once its snapshot is here; the same Board for the same name. */
  subscribe(name) {
    if (this.state === 'closed') return Promise.reject(new FoldError('disconnected', 'the client is closed'));
    let board = this.boards.get(name);
    if (!board) {
      board = new Board(this, name);
      this.boards.set(name, board);
      if (this.connected) this.send(board.subscribeMessage(this.seq + 1));
    }
    return board.whenReady;
  }

  unsubscribe(name) {
    const board = this.boards.get(name);
    if (!board) return;
    this.boards.delete(name);
    if (!board.ready) board.rejectReady(new FoldError('disconnected', `unsubscribed from '${name}' before its snapshot came`, { board: name }));
    this.send({ type: 'unsubscribe', board: name });
  }

  /** Follow the board's folds and focus (true, the daemon's default) or browse; kept across reconnects. */
  follow(following = true) {
    this.viewSent = { type: 'view', following: Boolean(following) };
    this.send(this.viewSent);
  }

  /** Sends one action on `board`; resolves with the rev of its ack, rejects with a FoldError. */
  act(board, action) {
    if (action === null || typeof action !== 'object' || typeof action.type !== 'string') {
      return Promise.reject(new TypeError('an action is an object with a string type'));
    }
    if (!this.connected) {
      return Promise.reject(new FoldError('disconnected', `not connected (${this.state}): the action was not sent`, { board }));
    }
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, board, seq: this.seq + 1 });
      this.send({ ...action, board, id });
    });
  }

  history(board, query = {}) {
    const params = new URLSearchParams();
    for (const key of ['since', 'before', 'limit']) if (query[key] !== undefined) params.set(key, String(query[key]));
    const q = params.toString();
    return this.httpToken().then((token) =>
      getJSON(`${apiBase(this.url)}/api/boards/${encodeURIComponent(board)}/history${q ? `?${q}` : ''}`, token));
  }

  /** Stops for good: pending actions and subscribes reject with `disconnected`, nothing reconnects. */
  close() {
    if (this.state === 'closed') return;
    this.generation += 1;
    clearTimeout(this.timer);
    clearTimeout(this.helloTimer);
    this.timer = null;
    if (this.conn) this.conn.close();
    this.conn = null;
    this.failPending('disconnected', 'the client was closed');
    for (const board of this.boards.values()) {
      if (!board.ready) board.rejectReady(new FoldError('disconnected', 'the client was closed', { board: board.name }));
    }
    this.setState({ state: 'closed' });
  }

  // ---- the connection's life ----

  async connectNow() {
    if (this.state === 'closed') return;
    const generation = ++this.generation;
    this.timer = null;
    this.setState({ state: 'connecting' });
    let token;
    try {
      token = await resolveToken(this.options.token);
    } catch (e) {
      if (generation === this.generation) this.lost(`token: ${e.message}`, null);
      return;
    }
    if (generation !== this.generation) return;
    this.token = token;
    const conn = this.impl.open(this.url, { token, WebSocket: this.options.WebSocket }, {
      onMessage: (m) => { if (generation === this.generation) this.receive(m); },
      onClose: (end) => { if (generation === this.generation) this.ended(end); },
    });
    this.conn = conn;
    this.helloTimer = setTimeout(() => {
      if (generation !== this.generation || this.connected) return;
      conn.close();
      this.ended({ code: 1006, reason: `no hello within ${HELLO_TIMEOUT_MS / 1000} s`, opened: false });
    }, HELLO_TIMEOUT_MS);
  }

  ended({ code, reason, opened }) {
    clearTimeout(this.helloTimer);
    this.generation += 1;   // nothing more from this connection
    this.conn = null;
    this.failPending('disconnected', `the connection was lost (${code}${reason ? `: ${reason}` : ''}): the action may or may not have happened`);
    for (const board of this.boards.values()) board.disconnected();
    this.lost(reason || (opened ? 'connection lost' : 'could not connect'), code);
  }

  lost(reason, code) {
    if (this.state === 'closed') return;
    const delay = backoffDelay(this.attempt++, this.random);
    this.setState({ state: 'disconnected', reason, code, delay });
    this.timer = setTimeout(() => this.connectNow(), delay);
  }

  setState(next) {
    this.current = next;
    this.events.emit('state', { ...next });
  }

  send(message) {
    if (!this.conn) return false;
    this.seq += 1;
    return this.conn.send(message);
  }

  // ---- the daemon's messages ----

  receive(m) {
    switch (m.type) {
      case 'hello': return this.hello(m);
      case 'authenticated':
        this.identity = m;
        this.events.emit('authenticated', m);
        return;
      case 'authExpiring': return this.refreshToken(m);
      case 'ack': return this.answer(m, (p) => p.resolve(m.rev));
      case 'error': return this.refusal(m);
      case 'snapshot': case 'patch': case 'presence': case 'deleted':
        this.boards.get(m.board)?.receive(m);
        return;
      default:   // a newer daemon's message: ignored, as the protocol asks
    }
  }

  hello(m) {
    clearTimeout(this.helloTimer);
    this.session = m.session ?? null;
    this.attempt = 0;
    this.setState({ state: 'connected' });
    // `view` first, so presence never counts us following for a moment.
    if (this.viewSent) this.send(this.viewSent);
    for (const board of this.boards.values()) this.send(board.subscribeMessage(this.seq + 1));
  }

  async refreshToken(m) {
    this.events.emit('authExpiring', { in: m.in });
    if (typeof this.options.token !== 'function') return;
    const conn = this.conn;
    try {
      const token = await resolveToken(this.options.token);
      if (token === null || this.conn !== conn || !conn) return;
      this.token = token;
      this.seq += 1;
      conn.authenticate(token);
    } catch (e) {
      this.events.emit('error', new FoldError('forbidden', `the token function failed: ${e.message}`));
    }
  }

  answer(m, settle) {
    const p = m.id === undefined || m.id === null ? undefined : this.pending.get(m.id);
    if (!p) return false;
    this.pending.delete(m.id);
    for (const board of this.boards.values()) board.answeredAfter(p.seq);
    settle(p);
    return true;
  }

  refusal(m) {
    const error = new FoldError(m.code, m.message, { board: m.board });
    if (this.answer(m, (p) => p.reject(error))) return;
    const board = m.board === undefined ? undefined : this.boards.get(m.board);
    if (board && (board.awaiting || !board.ready)) {
      this.boards.delete(board.name);
      board.refused(error);
      return;
    }
    this.events.emit('error', error);
  }

  // ---- called by boards ----

  // A snapshot nobody asked for: the daemon dropped what was queued for us,
  // acks and errors included (PROTOCOL.md, Guarantees 2).
  answersLost() {
    this.failPending('resynced', 'the daemon resynchronised this connection and dropped its answers: the action may or may not have happened');
  }

  resubscribe(board) {
    this.send({ type: 'unsubscribe', board: board.name });
    this.send(board.subscribeMessage(this.seq + 1));
  }

  failPending(code, message) {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new FoldError(code, message, { board: p.board }));
  }

  async httpToken() {
    if (this.token === null && this.options.token !== undefined && this.options.token !== null) {
      this.token = await resolveToken(this.options.token);
    }
    return this.token;
  }
}
