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
import { jwtExpiry, resolveToken } from './token.js';
import { apiBase, getJSON, httpAnswers } from './http.js';
import { websocketTransport } from './websocket-transport.js';
import { streamTransport } from './stream-transport.js';
import { newClientId } from './outbox.js';
import { OutboxStore } from './outbox-store.js';
import { Session } from './session.js';

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

// The session machine's error codes, in the library's words: `closed` is
// `disconnected` here (docs/CLIENTS.md, "Errors").
const CODES = { closed: 'disconnected' };

// The token as the session machine knows it: none, a value, or a function it asks for (askToken).
function tokenMode(token) {
  if (typeof token === 'function') return 'provider';
  if (token === undefined || token === null || token === '') return 'none';
  return { value: token };
}

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
    this.boards = new Map();    // name -> Board
    // The session's decisions (session.js); this file carries them out.
    // Throws on bad outbox/persist options.
    this.store = new OutboxStore(url, options.persist);
    const saved = this.store.load();
    this.machine = new Session({ clientId: saved?.clientId ?? newClientId(), token: tokenMode(options.token), outbox: options.outbox });
    this.calls = new Map();     // ticket -> { resolve, reject }: the promise of each action in the outbox
    this.inputs = [];           // inputs waiting while the session's outputs are carried out
    this.feeding = false;
    this.nextId = 1;
    this.generation = 0;        // bumped by every connection and close: stale callbacks do nothing
    this.conn = null;
    this.timer = null;          // the session's `retry`
    this.tickTimer = null;      // the session's `tick`
    this.helloTimer = null;
    this.renewTimer = null;     // the stream's next JWT renewal
    this.hold = false;          // options.reconnect said to wait for reconnect()
    this.lastEnd = null;        // how the last connection ended: { code }
    this.current = { state: 'connecting' };
    this.token = null;          // the token of the current connection (for HTTP)
    this.session = null;
    this.identity = null;
    // The application attaches its listeners after connect() returns: the
    // restored actions' outcomes go to its `outbox` listener.
    for (const a of saved?.actions ?? []) {
      const ticket = String(this.nextId++);
      this.calls.set(ticket, {
        board: a.board,
        resolve: (rev) => this.events.emit('outbox', { key: a.key, board: a.board, rev }),
        reject: (error) => this.events.emit('outbox', { key: a.key, board: a.board, error }),
      });
      this.machine.restore(ticket, a, saved.counter);
    }
    if (saved) this.store.save(this.machine.outbox);
    queueMicrotask(() => this.feed({ start: {} }));
  }

  /** The actions waiting for their answer, by id (each with its `key` and `board`). */
  get pending() {
    return new Map(this.machine.outbox.items.map((item) =>
      [item.ticket, { id: item.ticket, key: item.key, board: item.board, sent: item.phase !== 'waiting' }]));
  }
  /** This client's random id: every action's key is `${clientId}-${n}`. */
  get clientId() { return this.machine.clientId; }

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
    } else if (board.failed) {
      board.renew();
    }
    this.feed({ subscribe: { board: name } });
    return board.whenReady;
  }

  unsubscribe(name) {
    const board = this.boards.get(name);
    if (!board) return;
    this.boards.delete(name);
    if (!board.ready) board.rejectReady(new FoldError('disconnected', `unsubscribed from '${name}' before its snapshot came`, { board: name }));
    this.feed({ unsubscribe: { board: name } });
  }

  /** Follow the board's folds and focus (true, the daemon's default) or browse; kept across reconnects. */
  follow(following = true) {
    this.feed({ view: { following: Boolean(following) } });
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
    const { key: _key, id: _id, board: _board, ...body } = action;   // the client's to set
    const ticket = String(this.nextId++);
    return new Promise((resolve, reject) => {
      const stop = signal ? () => this.feed({ cancel: { call: ticket } }) : null;
      const done = (settle) => (value) => {
        signal?.removeEventListener('abort', stop);
        settle(value);
      };
      this.calls.set(ticket, { board, resolve: done(resolve), reject: done(reject) });
      signal?.addEventListener('abort', stop, { once: true });
      // pending.js reads ifRev inside the action; the daemon's message carries it beside the key.
      this.feed({ act: { call: ticket, board, action: body, ifRev: body.ifRev ?? null } });
    });
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
    this.hold = false;
    // suspend drops the connection; resume connects at once, the backoff started again.
    this.feed({ suspend: {} });
    this.feed({ resume: {} });
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
    if (this.impl === streamTransport && this.connected) {
      this.feed({ resubscribe: {} });
      this.scheduleRenewal();
    }
    return true;
  }

  /** Sends one protocol message as it is (no id, no answer matched); false when not connected. */
  send(message) {
    return this.conn ? this.conn.send(message) : false;
  }

  /**
   * Stops for good: waiting actions and subscribes reject with
   * `disconnected` (an action that had been sent may or may not have been
   * applied), nothing reconnects.
   */
  close() {
    if (this.state === 'closed') return;
    clearTimeout(this.upgradeTimer);
    if (this.probe) this.probe.close();
    this.probe = null;
    this.feed({ close: {} });
  }

  // ---- the session machine ----

  // One input, and what the session decides, carried out. An input that
  // comes while outputs are carried out (a listener that acts) waits its turn.
  feed(input) {
    this.inputs.push(input);
    if (this.feeding) return;
    this.feeding = true;
    try {
      while (this.inputs.length > 0) {
        const next = this.inputs.shift();
        // The random number spreads the backoff, which only a closed connection asks for.
        const random = next.closed ? this.random() : 0.5;
        for (const output of this.machine.handle(next, Date.now() / 1000, random)) this.carry(output);
        this.store.save(this.machine.outbox);
      }
    } finally {
      this.feeding = false;
    }
  }

  carry(output) {
    const [kind, o] = Object.entries(output)[0];
    switch (kind) {
      case 'connect': return this.open(o.token);
      case 'askToken': return this.askToken(o.refresh);
      case 'send':
        // The token goes the transport's way: in band, or by reopening the streams.
        if (o.type === 'auth') return void this.authenticate(o.token);
        return void this.send(o);
      case 'disconnect': {
        const conn = this.conn;
        this.dropConnection();
        conn?.close();
        // A connection closed by the client reports no end of its own.
        this.inputs.push({ closed: { reason: 'closed by the client' } });
        return;
      }
      case 'state': return this.stateOf(o);
      case 'retry':
        clearTimeout(this.timer);
        this.timer = this.hold ? null : setTimeout(() => { this.timer = null; this.feed({ retry: {} }); }, o.after * 1000);
        return;
      case 'tick':
        clearTimeout(this.tickTimer);
        this.tickTimer = setTimeout(() => { this.tickTimer = null; this.feed({ tick: {} }); }, o.after * 1000);
        return;
      case 'resolve': return this.answer(o.call)?.resolve(o.rev);
      case 'reject': {
        const call = this.answer(o.call);
        return call?.reject(call.error ?? this.error(o.code, o.message, call.board));
      }
      case 'ready': return this.boards.get(o.board)?.readied();
      case 'refused': {
        const board = this.boards.get(o.board);
        if (!board) return;
        // A board the session let go is subscribed afresh by the next subscribe().
        if (!this.machine.board(o.board)) this.boards.delete(o.board);
        board.refused(this.error(o.code, o.message, o.board));
        return;
      }
      case 'change': return this.boards.get(o.board)?.changed(o);
      case 'presence': return this.boards.get(o.board)?.presence(o);
      case 'deleted': return this.boards.get(o.board)?.events.emit('deleted', { board: o.board });
      case 'tokenFailed':
        return this.events.emit('error', new FoldError('forbidden', `the token function failed: ${o.message}`));
      case 'finished':
        clearTimeout(this.timer);
        clearTimeout(this.tickTimer);
        this.timer = null;
        this.tickTimer = null;
        return;
      default:
    }
  }

  answer(ticket) {
    const call = this.calls.get(ticket);
    this.calls.delete(ticket);
    return call;
  }

  // The error a call rejects with, made when its rollback is told (which comes first): the change and the promise carry the very same one.
  rejection(ticket, code, message, board) {
    const call = this.calls.get(ticket);
    const error = this.error(code, message, board);
    if (call) call.error = error;
    return error;
  }

  error(code, message, board) {
    return new FoldError(CODES[code] ?? code, message, { board });
  }

  stateOf(o) {
    switch (o.name) {
      // A switch of transport on a live client is no change of state.
      case 'connected': if (this.current.state !== 'connected') this.setState({ state: 'connected' }); return;
      case 'disconnected': {
        const code = this.lastEnd?.code ?? null;
        this.setState({ state: 'disconnected', reason: o.reason, code, delay: this.hold ? null : Math.round(o.retryIn * 1000) });
        return;
      }
      case 'suspended': return;   // reconnect(): connecting follows at once
      default: this.setState({ state: o.name });
    }
  }

  askToken(refresh) {
    const generation = this.generation;
    resolveToken(this.options.token).then((token) => {
      // The same token again would renew nothing: the application will call authenticate() when it has one.
      if (refresh && (token === this.token || generation !== this.generation)) token = null;
      this.feed({ token: { token, refresh } });
    }, (e) => this.feed({ token: { token: null, failure: e.message, refresh } }));
  }

  // ---- the connection's life ----

  async open(token) {
    const generation = ++this.generation;
    this.token = token;
    this.greeted = false;
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
    const conn = this.impl.open(this.url, this.transportOptions(token), {
      // A retired connection's answers to actions still waiting are taken (a switch of transport).
      onMessage: (m) => { if (generation === this.generation || this.awaitsAnswer(m)) this.receive(m); },
      onClose: (end) => { if (generation === this.generation) this.ended(end); },
    });
    this.conn = conn;
    this.helloTimer = setTimeout(() => {
      if (generation !== this.generation || this.greeted) return;
      conn.close();
      this.ended({ code: 1006, reason: `no hello within ${HELLO_TIMEOUT_MS / 1000} s`, opened: false });
    }, HELLO_TIMEOUT_MS);
  }

  // Nothing more from the current connection, not even its close.
  dropConnection() {
    clearTimeout(this.helloTimer);
    clearTimeout(this.renewTimer);
    this.generation += 1;
    this.conn = null;
  }

  ended({ code, reason, opened }) {
    if (this.impl === websocketTransport && !this.greeted) this.socketFailed = true;
    this.dropConnection();
    this.lastEnd = { code };
    const why = reason || (opened ? 'connection lost' : 'could not connect');
    // The application's say: false waits for reconnect() (a refusal its user must answer).
    this.hold = Boolean(this.options.reconnect) && this.askReconnect({ code, reason: why, opened }) === false;
    this.feed({ closed: { reason: why } });
  }

  askReconnect(end) {
    try { return this.options.reconnect(end); } catch (e) {
      console.error('foldsync: options.reconnect threw', e);
      return true;
    }
  }

  setState(next) {
    this.current = next;
    this.events.emit('state', { ...next });
  }

  // ---- the daemon's messages ----

  receive(m) {
    switch (m.type) {
      case 'hello': this.hello(m); break;
      case 'authenticated':
        this.identity = m;
        this.events.emit('authenticated', m);
        break;
      case 'authExpiring':
        this.events.emit('authExpiring', { in: m.in });
        this.feed({ received: m });
        break;
      case 'error': this.refusal(m); break;
      default: this.feed({ received: m });
    }
    // After the library's own handling, so a listener sees the boards (and the state) it left.
    this.events.emit('message', m);
  }

  hello(m) {
    clearTimeout(this.helloTimer);
    this.greeted = true;
    this.session = m.session ?? null;
    if (this.impl === websocketTransport) this.socketFailures = 0;
    else if (this.canUpgrade && this.upgradeTimer === null && this.probe === null) this.scheduleUpgrade();
    this.feed({ received: m });
    this.scheduleRenewal();
  }

  // An error that answers an action or a subscribe is the session's; any
  // other is told as an event: the board's, once it is ready, else the client's.
  refusal(m) {
    const ours = m.id !== undefined && m.id !== null && this.awaitsAnswer(m);
    const board = m.board === undefined ? undefined : this.boards.get(m.board);
    const ready = board?.ready === true;
    this.feed({ received: m });
    if (ours) return;
    const error = new FoldError(m.code, m.message, { board: m.board });
    if (board && ready) board.events.emit('error', error);
    else if (!board) this.events.emit('error', error);
  }

  awaitsAnswer(m) {
    return (m.type === 'ack' || m.type === 'error') && m.id !== undefined && m.id !== null
      && this.machine.outbox.items.some((item) => item.key === m.id);
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

  // The greeted WebSocket replaces the stream under the live session: what
  // was awaited on the stream is sent again on it, every board resumes.
  switchTo(conn, hello, token) {
    const old = this.conn;
    this.dropConnection();
    const generation = this.generation;
    this.conn = conn;
    this.token = token;
    this.useTransport(websocketTransport, 'the WebSocket works again');
    if (old) old.close();
    this.feed({ relinked: {} });
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
