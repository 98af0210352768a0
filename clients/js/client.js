// The connection to one foldsyncd, kept up for as long as the application
// wants it: states, reconnection with the shared backoff, the token, the
// boards to resubscribe (with `since`), and the outbox (outbox.js): the
// actions waiting for their answer, kept across connections and sent again
// with their keys. The transport (websocket-transport.js,
// stream-transport.js) only carries messages.
//
// States: connecting -> connected -> disconnected {reason, code, delay} ->
// connecting ... and closed after close(), from which nothing reconnects.
//
// transport "auto" (the default): the WebSocket, and the stream when the
// WebSocket cannot be had while HTTP can — two attempts in a row that never
// got `hello`, each followed by a GET /healthz that answered (so a daemon
// that is simply down never sends us to the stream). On the stream, a
// WebSocket is tried again every `websocketRetryMs` (60 s); once one is
// greeted it takes over on the spot (no state change) and every board is
// resubscribed on it with `since`. Each switch is told as a "transport" event.
//
// For an application that decides itself when to come back (the dashboard
// waits for its user after a 1008 refusal or an expired token):
// options.reconnect(end) returning false leaves the client `disconnected`
// with `delay: null` until reconnect(); authenticate(token) hands a new
// token to the open connection; the "message" event passes on every message
// of the daemon, for an application that keeps its own copy of a board.

import { Board } from './board.js';
import { Emitter } from './emitter.js';
import { FoldError } from './fold-error.js';
import { backoffDelay } from './backoff.js';
import { jwtExpiry, resolveToken } from './token.js';
import { apiBase, getJSON, httpAnswers } from './http.js';
import { websocketTransport } from './websocket-transport.js';
import { streamTransport } from './stream-transport.js';
import { Outbox } from './outbox.js';

export const TRANSPORTS = { websocket: websocketTransport, stream: streamTransport };
const MODES = new Set(['auto', 'websocket', 'stream']);

// The WebSocket upgrades that fail in a row, with HTTP answering, before auto falls back to the stream.
export const FALLBACK_AFTER = 2;
// How often a client on the stream tries the WebSocket again.
export const WEBSOCKET_RETRY_MS = 60000;

// An attempt that has not been greeted (`hello`) by then is given up and
// retried: a host that swallows packets would otherwise hold it for minutes.
const HELLO_TIMEOUT_MS = 10000;

// On the stream the daemon sends no authExpiring: the client renews a JWT
// itself, half its remaining life before its `exp` and at most this long
// before (the daemon's default warning), and never sooner than
// RENEW_MIN_MS after the last renewal.
const RENEW_BEFORE_MS = 60000;
const RENEW_MIN_MS = 1000;
// The longest wait a timer takes (2^31 - 1 ms, about 24.8 days): a renewal
// further away is waited for in steps.
const TIMER_MAX_MS = 2147483647;
// How often the outbox's age bound is checked while anything waits.
const OUTBOX_CHECK_MS = 1000;

export class Client {
  constructor(url, options = {}) {
    const u = new URL(url);
    if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new TypeError(`foldsync: ${url} is not a ws:// or wss:// URL`);
    const mode = options.transport ?? 'auto';
    if (!MODES.has(mode)) throw new TypeError(`foldsync: no transport "${options.transport}"`);
    if (options.reconnect !== undefined && typeof options.reconnect !== 'function') {
      throw new TypeError('foldsync: options.reconnect is a function (end) => boolean');
    }
    if (options.WebSocket !== undefined && typeof options.WebSocket !== 'function') {
      throw new TypeError('foldsync: options.WebSocket is not a WebSocket constructor');
    }
    const Socket = options.WebSocket ?? globalThis.WebSocket;
    const haveSocket = typeof Socket === 'function';
    if (mode === 'websocket' && !haveSocket) {
      throw new TypeError('foldsync: no WebSocket here; in Node 20 run with --experimental-websocket (Node 22 has it), or pass options.WebSocket');
    }
    if (mode !== 'websocket' && typeof (options.fetch ?? globalThis.fetch) !== 'function') {
      throw new TypeError('foldsync: the stream transport needs fetch');
    }
    this.url = url;
    this.options = { ...options, WebSocket: Socket };
    this.mode = mode;
    // auto without a WebSocket at all (Node 20 without the flag): the stream, for good.
    this.impl = mode === 'stream' || (mode === 'auto' && !haveSocket) ? streamTransport : websocketTransport;
    this.canUpgrade = mode === 'auto' && haveSocket;
    this.websocketRetryMs = options.websocketRetryMs ?? WEBSOCKET_RETRY_MS;
    this.socketFailures = 0;    // WebSocket attempts in a row that got no hello while HTTP answered
    this.socketFailed = false;  // the last attempt was a WebSocket that got no hello
    this.greeted = false;       // the current attempt got its hello
    this.upgradeTimer = null;
    this.probe = null;          // a WebSocket tried while on the stream
    this.random = options.random ?? Math.random;
    this.events = new Emitter();
    this.boards = new Map();    // name -> Board, resubscribed on every connection
    // Actions not answered yet, by id; throws on bad outbox/persist options.
    this.outbox = new Outbox(url, options);
    this.outboxTimer = null;
    this.nextId = 1;
    this.seq = 0;               // messages sent, in order: tells which answers follow which subscribe
    this.attempt = 0;           // failed attempts since the last `connected`
    this.generation = 0;        // bumped by every connect and close: stale callbacks do nothing
    this.conn = null;
    this.timer = null;
    this.helloTimer = null;
    this.renewTimer = null;     // the stream's next JWT renewal
    this.current = { state: 'connecting' };
    this.viewSent = null;       // the last `view` asked for, re-sent on every connection
    this.token = null;          // the token of the current connection (for HTTP)
    this.session = null;
    this.identity = null;
    // The application attaches its listeners after connect() returns: the
    // restored actions' outcomes go to its `outbox` listener.
    this.outbox.restore(() => String(this.nextId++), (saved) => ({
      resolve: (rev) => this.events.emit('outbox', { key: saved.key, board: saved.board, rev }),
      reject: (error) => this.events.emit('outbox', { key: saved.key, board: saved.board, error }),
    }));
    this.armOutbox();
    queueMicrotask(() => this.connectNow());
  }

  /** The actions waiting for their answer, by id (each with its `key` and `board`). */
  get pending() { return this.outbox.entries; }
  /** This client's random id: every action's key is `${clientId}-${n}`. */
  get clientId() { return this.outbox.clientId; }

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
      // Actions called before the subscribe (or restored from a saved outbox) show on it too.
      for (const entry of this.outbox) if (entry.board === name) board.acted(entry.key, entry.message);
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

  /**
   * One action on `board`, through the outbox: sent now when connected,
   * else once the client is connected again; sent again with the same key
   * when its connection ends before the answer. Resolves with the rev of
   * its ack, rejects with a FoldError. options.signal (an AbortSignal)
   * cancels it: not yet sent, it rejects with `expired`; sent, it is settled.
   */
  act(board, action, options = {}) {
    if (action === null || typeof action !== 'object' || typeof action.type !== 'string') {
      return Promise.reject(new TypeError('an action is an object with a string type'));
    }
    if (this.state === 'closed') return Promise.reject(new FoldError('disconnected', 'the client is closed: the action was not sent', { board }));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(new FoldError('expired', 'cancelled before it was sent', { board }));
    if (this.outbox.full) {
      return Promise.reject(new FoldError('expired', `the outbox holds ${this.outbox.maxActions} actions, its bound; this one was not sent`, { board }));
    }
    const { key: _key, id: _id, board: _board, ...body } = action;   // the client's to set
    return new Promise((resolve, reject) => {
      let entry = null;
      const stop = signal ? () => this.cancel(entry) : null;
      const answer = (settle) => (value) => {
        signal?.removeEventListener('abort', stop);
        settle(value);
      };
      entry = this.outbox.add(String(this.nextId++), board, body, { resolve: answer(resolve), reject: answer(reject) });
      signal?.addEventListener('abort', stop, { once: true });
      // Shown at once (optimistic state), before it is even sent.
      this.boards.get(board)?.acted(entry.key, body);
      if (this.connected) this.sendEntry(entry);
      this.armOutbox();
    });
  }

  // Cancelled by the application: an action never sent is dropped; one that
  // was sent may have been applied, so the daemon is asked (`settle`), now
  // or after reconnecting, and the answer says which.
  cancel(entry) {
    if (!entry || this.outbox.get(entry.id) !== entry) return;
    if (!entry.sent) {
      this.outbox.remove(entry);
      this.refuse(entry, new FoldError('expired', 'cancelled before it was sent', { board: entry.board }));
      return;
    }
    if (entry.settle) return;
    entry.settle = true;
    this.outbox.save();
    if (this.connected) this.sendEntry(entry);
  }

  // Sends (or sends again, with the same key) one entry of the outbox on the current connection.
  sendEntry(entry) {
    entry.sent = true;
    entry.conn = this.generation;
    entry.seq = this.seq + 1;
    entry.inBand = this.impl.inBand !== false;
    // Saved before it leaves: a page that dies now still settles it.
    this.outbox.save();
    this.send(this.outbox.wire(entry));
  }

  // After `hello` and the subscribes: every waiting action, in the order
  // called. The daemon answers a connection in order, so each board's
  // snapshot or missed patches come before these actions' changes and acks.
  flushOutbox() {
    this.checkOutbox();
    for (const entry of [...this.outbox]) this.sendEntry(entry);
  }

  // The age bound: never sent and too old, rejected `expired`; sent, too
  // old and its connection gone, settled (flushOutbox sends `settle`).
  checkOutbox() {
    const live = (entry) => entry.conn === this.generation && this.connected;
    for (const entry of this.outbox.aged(Date.now(), live)) {
      this.refuse(entry, new FoldError('expired', `waited ${Math.round(this.outbox.maxAgeMs / 1000)} s without a connection; it was never sent`, { board: entry.board }));
    }
    if (this.outbox.size === 0) this.disarmOutbox();
  }

  armOutbox() {
    if (this.outboxTimer !== null || this.outbox.size === 0 || this.state === 'closed') return;
    this.outboxTimer = setInterval(() => this.checkOutbox(), OUTBOX_CHECK_MS);
  }

  disarmOutbox() {
    clearInterval(this.outboxTimer);
    this.outboxTimer = null;
  }

  history(board, query = {}) {
    const params = new URLSearchParams();
    for (const key of ['since', 'before', 'limit']) if (query[key] !== undefined) params.set(key, String(query[key]));
    const q = params.toString();
    return this.httpToken().then((token) =>
      getJSON(`${apiBase(this.url)}/api/boards/${encodeURIComponent(board)}/history${q ? `?${q}` : ''}`, token));
  }

  /**
   * Drops the current connection (if any) and connects at once, asking the
   * token again: after the application stopped reconnecting
   * (options.reconnect returned false), or when its user gave a new token.
   */
  reconnect() {
    if (this.state === 'closed') return;
    clearTimeout(this.timer);
    clearTimeout(this.helloTimer);
    clearTimeout(this.renewTimer);
    this.timer = null;
    this.attempt = 0;
    const conn = this.conn;
    if (conn) {
      this.generation += 1;   // nothing more from it, not even its close
      this.conn = null;
      conn.close();
      // The outbox keeps its actions: they are sent again on the new connection.
      for (const board of this.boards.values()) board.disconnected();
    }
    this.connectNow();
  }

  /**
   * Hands a new token to the open connection; false when there is none. A
   * WebSocket sends it as an `auth` message; the stream reopens every
   * board's event stream with it, each resuming at its last rev (an open
   * stream keeps the token it was opened with, and ends when that expires).
   */
  authenticate(token) {
    if (!this.conn || typeof token !== 'string' || token === '') return false;
    if (!this.conn.authenticate(token)) return false;
    this.token = token;
    this.seq += 1;
    if (this.impl === streamTransport && this.connected) {
      for (const board of this.boards.values()) this.send(board.subscribeMessage(this.seq + 1));
      this.scheduleRenewal();
    }
    return true;
  }

  /**
   * Stops for good: waiting actions and subscribes reject with
   * `disconnected` (an action that had been sent may or may not have been
   * applied), nothing reconnects.
   */
  close() {
    if (this.state === 'closed') return;
    this.generation += 1;
    clearTimeout(this.timer);
    clearTimeout(this.helloTimer);
    clearTimeout(this.renewTimer);
    this.timer = null;
    clearTimeout(this.upgradeTimer);
    if (this.probe) this.probe.close();
    this.probe = null;
    if (this.conn) this.conn.close();
    this.conn = null;
    this.disarmOutbox();
    for (const entry of [...this.outbox]) {
      this.outbox.remove(entry);
      this.refuse(entry, new FoldError('disconnected', entry.sent
        ? 'the client was closed: the action had been sent and may or may not have been applied'
        : 'the client was closed: the action was not sent', { board: entry.board }));
    }
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
    if (this.canUpgrade && this.impl === websocketTransport && this.socketFailed) {
      this.socketFailed = false;
      const answers = await httpAnswers(apiBase(this.url), this.options.fetch);
      if (generation !== this.generation) return;
      // Counted only while HTTP answers: a daemon that is down fails both.
      this.socketFailures = answers ? this.socketFailures + 1 : 0;
      if (this.socketFailures >= FALLBACK_AFTER) {
        this.useTransport(streamTransport, `${this.socketFailures} WebSocket attempts in a row failed while HTTP answered`);
      }
    }
    this.greeted = false;
    const conn = this.impl.open(this.url, this.transportOptions(token), {
      // A retired connection's answers to actions still waiting are taken (a switch of transport).
      onMessage: (m) => { if (generation === this.generation || this.awaitsAnswer(m)) this.receive(m); },
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
    clearTimeout(this.renewTimer);
    if (this.impl === websocketTransport && !this.greeted) this.socketFailed = true;
    this.generation += 1;   // nothing more from this connection
    this.conn = null;
    // The outbox keeps what waits: sent again (same keys) after reconnecting.
    for (const board of this.boards.values()) board.disconnected();
    const why = reason || (opened ? 'connection lost' : 'could not connect');
    // The application's say: false waits for reconnect() (a refusal its user must answer).
    if (this.options.reconnect && this.askReconnect({ code, reason: why, opened }) === false) {
      this.setState({ state: 'disconnected', reason: why, code, delay: null });
      return;
    }
    this.lost(why, code);
  }

  askReconnect(end) {
    try { return this.options.reconnect(end); } catch (e) {
      console.error('foldsync: options.reconnect threw', e);
      return true;
    }
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
    this.handle(m);
    // After the library's own handling, so a listener sees the boards (and the state) it left.
    this.events.emit('message', m);
  }

  handle(m) {
    switch (m.type) {
      case 'hello': return this.hello(m);
      case 'authenticated':
        this.identity = m;
        this.events.emit('authenticated', m);
        return;
      case 'authExpiring': return this.refreshToken(m);
      case 'ack': return this.answer(m, (p) => {
        this.boards.get(p.board)?.acked(p.key, m.rev);
        p.resolve(m.rev);
      });
      case 'error': return this.refusal(m);
      case 'snapshot': case 'patch': case 'presence': case 'deleted':
        this.boards.get(m.board)?.receive(m);
        return;
      default:   // a newer daemon's message: ignored, as the protocol asks
    }
  }

  hello(m) {
    clearTimeout(this.helloTimer);
    this.greeted = true;
    this.session = m.session ?? null;
    for (const board of this.boards.values()) board.greeted(this.session);
    this.attempt = 0;
    if (this.impl === websocketTransport) this.socketFailures = 0;
    else if (this.canUpgrade && this.upgradeTimer === null && this.probe === null) this.scheduleUpgrade();
    // A switch of transport on a live client is no change of state.
    if (this.current.state !== 'connected') this.setState({ state: 'connected' });
    // `view` first, so presence never counts us following for a moment.
    if (this.viewSent) this.send(this.viewSent);
    for (const board of this.boards.values()) this.send(board.subscribeMessage(this.seq + 1));
    this.flushOutbox();
    this.scheduleRenewal();
  }

  // The stream's renewal of a JWT (there is no authExpiring on it): the
  // token function is asked before the token expires, and a new token
  // reopens the streams (authenticate). A function with nothing new leaves
  // the streams to end at the expiry; the reconnect then asks it again.
  scheduleRenewal() {
    clearTimeout(this.renewTimer);
    this.renewTimer = null;
    if (this.impl !== streamTransport || typeof this.options.token !== 'function' || !this.connected || !this.conn) return;
    const expires = jwtExpiry(this.token);
    const left = expires === null ? 0 : expires - Date.now();
    if (left <= 0) return;
    const conn = this.conn;
    const wait = Math.max(RENEW_MIN_MS, left - Math.min(RENEW_BEFORE_MS, left / 2));
    const step = wait > TIMER_MAX_MS;
    this.renewTimer = setTimeout(() => {
      this.renewTimer = null;
      if (step) this.scheduleRenewal();
      else this.renewStreams(conn);
    }, step ? TIMER_MAX_MS : wait);
  }

  async renewStreams(conn) {
    if (this.conn !== conn || this.impl !== streamTransport) return;
    let token;
    try {
      token = await resolveToken(this.options.token);
    } catch (e) {
      if (this.conn === conn) this.events.emit('error', new FoldError('forbidden', `the token function failed: ${e.message}`));
      return;
    }
    if (this.conn !== conn || token === null || token === this.token) return;
    this.authenticate(token);
  }

  async refreshToken(m) {
    this.events.emit('authExpiring', { in: m.in });
    if (typeof this.options.token !== 'function') return;
    const conn = this.conn;
    try {
      const token = await resolveToken(this.options.token);
      // The same token again would renew nothing: the application will call authenticate() when it has one.
      if (token === null || token === this.token || this.conn !== conn || !conn) return;
      this.authenticate(token);
    } catch (e) {
      this.events.emit('error', new FoldError('forbidden', `the token function failed: ${e.message}`));
    }
  }

  // The first answer to an entry settles it; a later one (a resend's
  // `duplicate`, a settle's) finds it gone and is ignored.
  answer(m, settle) {
    const entry = m.id === undefined || m.id === null ? undefined : this.outbox.get(m.id);
    if (!entry) return false;
    this.outbox.remove(entry);
    if (this.outbox.size === 0) this.disarmOutbox();
    // Only an answer that came in order with the boards' messages says where their subscribes' answers end.
    if (entry.inBand && entry.conn === this.generation) for (const board of this.boards.values()) board.answeredAfter(entry.seq);
    settle(entry);
    return true;
  }

  // An action that will never be applied by this client's say: its board
  // shows it no more (told as a rollback), and its promise rejects.
  refuse(entry, error) {
    this.boards.get(entry.board)?.rolledBack(entry.key, error);
    entry.reject(error);
  }

  awaitsAnswer(m) {
    return (m.type === 'ack' || m.type === 'error') && m.id !== undefined && m.id !== null && this.outbox.get(m.id) !== undefined;
  }

  refusal(m) {
    const error = new FoldError(m.code, m.message, { board: m.board });
    if (this.answer(m, (p) => this.refuse(p, error))) return;
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
  // acks and errors included (PROTOCOL.md, Guarantees 2). The actions whose
  // answers may be among them are sent again with their keys: the daemon
  // answers each with its first outcome (`duplicate`) or applies it now.
  answersLost() {
    for (const entry of [...this.outbox]) {
      if (entry.inBand && entry.conn === this.generation) this.sendEntry(entry);
    }
  }

  resubscribe(board) {
    this.send({ type: 'unsubscribe', board: board.name });
    this.send(board.subscribeMessage(this.seq + 1));
  }

  transportOptions(token) {
    return { token, WebSocket: this.options.WebSocket, fetch: this.options.fetch, idleMs: this.options.streamIdleMs };
  }

  // ---- auto: falling back to the stream, and back to the WebSocket ----

  useTransport(impl, reason) {
    if (this.impl === impl) return;
    this.impl = impl;
    if (impl === websocketTransport) {
      clearTimeout(this.upgradeTimer);
      this.upgradeTimer = null;
      this.socketFailures = 0;
    }
    this.events.emit('transport', { transport: impl.name, reason });
  }

  scheduleUpgrade() {
    clearTimeout(this.upgradeTimer);
    this.upgradeTimer = setTimeout(() => { this.upgradeTimer = null; this.tryWebSocket(); }, this.websocketRetryMs);
  }

  // On the stream: opens a WebSocket beside it; if the daemon greets it, it
  // becomes the connection, else the stream carries on and we try later.
  async tryWebSocket() {
    if (this.state === 'closed' || this.impl !== streamTransport || this.probe) return;
    if (!this.connected) { this.scheduleUpgrade(); return; }
    let token;
    try { token = await resolveToken(this.options.token); } catch { this.scheduleUpgrade(); return; }
    if (this.state === 'closed' || this.impl !== streamTransport || this.probe) return;
    let live = null;   // once greeted: the generation this socket serves
    let timer = null;
    const failed = () => {
      if (this.probe !== probe) return;
      clearTimeout(timer);
      this.probe = null;
      probe.close();
      if (this.state !== 'closed' && this.impl === streamTransport) this.scheduleUpgrade();
    };
    const probe = websocketTransport.open(this.url, this.transportOptions(token), {
      onMessage: (m) => {
        if (live !== null) {
          if (live === this.generation || this.awaitsAnswer(m)) this.receive(m);
        } else if (m.type === 'hello' && this.probe === probe) {
          clearTimeout(timer);
          this.probe = null;
          if (!this.connected || this.impl !== streamTransport) { probe.close(); return; }
          live = this.switchTo(probe, m, token);
        }
      },
      onClose: (end) => {
        if (live === null) failed();
        else if (live === this.generation) this.ended(end);
      },
    });
    this.probe = probe;
    timer = setTimeout(failed, HELLO_TIMEOUT_MS);
  }

  switchTo(conn, hello, token) {
    const old = this.conn;
    const generation = ++this.generation;
    clearTimeout(this.helloTimer);
    this.conn = conn;
    this.token = token;
    this.useTransport(websocketTransport, 'the WebSocket works again');
    if (old) old.close();
    for (const board of this.boards.values()) board.disconnected();
    this.hello(hello);
    return generation;
  }

  async httpToken() {
    if (this.token === null && this.options.token !== undefined && this.options.token !== null) {
      this.token = await resolveToken(this.options.token);
    }
    return this.token;
  }
}
