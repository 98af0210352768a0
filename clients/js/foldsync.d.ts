// TypeScript declarations for foldsync.js, the foldsync client library.
// The contract behind them: docs/CLIENTS.md.

/** The version of this library (not of the protocol, which is 1). */
export declare const VERSION: string;

// ---- documents ----

/** An item: a string, or an object with a label (and optional detail, href, badge, id, and the application's own fields). */
export type Item = string | { label: string; detail?: string; href?: string; badge?: string; id?: string; [field: string]: unknown };

export interface Section {
  id: string;
  title: string;
  items: Item[];
  expanded: boolean;
}

/** The board document, as GET /api/boards/NAME returns it in `state`. */
export interface BoardState {
  mode: 'single' | 'multi';
  sections: Section[];
  focus?: { section: string; item: number };
}

export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

// ---- options and events ----

/** A token: a string, or a function returning one (or a promise of one), asked at every connect, on authExpiring, and on the stream before a JWT's exp. null/undefined: no token. */
export type Token = string | null | undefined | (() => string | null | undefined | Promise<string | null | undefined>);

export interface ConnectOptions {
  token?: Token;
  /**
   * "auto" (the default): the WebSocket, falling back to the stream after two WebSocket attempts in a
   * row that got no `hello` while GET /healthz answered, and back to the WebSocket when it works again
   * (tried every `websocketRetryMs`). "websocket" or "stream" force one. Without any WebSocket
   * constructor, "auto" uses the stream.
   */
  transport?: 'auto' | 'websocket' | 'stream';
  /** A WebSocket constructor where globalThis has none (say, the `ws` package in an older Node). */
  WebSocket?: new (url: string, protocols?: string | string[]) => unknown;
  /** The fetch the stream transport and HTTP calls use; globalThis.fetch by default. */
  fetch?: typeof globalThis.fetch;
  /** On the stream (auto): how often to try the WebSocket again, in ms; 60000 by default. */
  websocketRetryMs?: number;
  /** On the stream: a board's stream with nothing on it (not even a heartbeat) this long, in ms, is taken as dead; 45000 by default (the daemon's heartbeat is every 15 s). */
  streamIdleMs?: number;
  /** The random source of the backoff's jitter, in [0, 1]; Math.random by default. */
  random?: () => number;
  /**
   * Asked each time a connection ends: false schedules no attempt — the client stays `disconnected`
   * with `delay: null` until `reconnect()` (an application that must ask its user first: a 1008
   * refusal, an expired token). Not asked after close(). Omitted: always reconnect.
   */
  reconnect?: (end: { code: number | null; reason: string; opened: boolean }) => boolean;
  /** The outbox's bounds (docs/CLIENTS.md, "The outbox"). */
  outbox?: OutboxLimits;
  /**
   * Keep the outbox across page reloads: "session" (sessionStorage) or an object with
   * getItem/setItem/removeItem. The client id, the key counter and each waiting action are saved on
   * every change (under "foldsync.outbox " + url); a client built later with the same option and URL
   * sends them again with their keys and reports each outcome as an `outbox` event. Omitted: memory only.
   */
  persist?: 'session' | OutboxStorage;
}

export interface OutboxLimits {
  /** Actions that may wait at once; one more is rejected at once with `expired` (never sent). 1000 by default. */
  maxActions?: number;
  /**
   * How long an action may wait, in ms; 600000 (10 min) by default. Never sent by then: rejected with
   * `expired`. Sent, its answer lost with its connection: settled after reconnecting (resolves with its
   * rev if it was applied, else rejects with `expired`). Keep it below the daemon's --action-key-hours (24 h).
   */
  maxAgeMs?: number;
}

/** What `persist` takes besides "session": sessionStorage's three methods. */
export interface OutboxStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Options of one action. */
export interface ActionOptions {
  /**
   * Cancels the action: not yet sent, it rejects with `expired` ("cancelled before it was sent");
   * sent, the daemon is asked (`settle`, now or after reconnecting): it resolves with its rev if it had
   * been applied, else rejects with `expired` (and never will be applied).
   */
  signal?: AbortSignal;
}

/** The outcome of an action restored from `persist` (its promise went with the page that called it). */
export type OutboxOutcome =
  | { key: string; board: string; rev: number }
  | { key: string; board: string; error: FoldError };

/** One action waiting in the outbox. */
export interface PendingAction {
  readonly id: string;
  /** `${clientId}-${n}`: the same on every send, so the daemon applies it once. */
  readonly key: string;
  readonly board: string;
  /** Sent at least once (so it may have been applied). */
  readonly sent: boolean;
}

export type ConnectionState =
  | { state: 'connecting' }
  | { state: 'connected' }
  /** reason: words for people; code: the WebSocket close code when there was one (always null on the stream); delay: ms before the next attempt, null when options.reconnect said to wait for reconnect(). */
  | { state: 'disconnected'; reason: string; code: number | null; delay: number | null }
  | { state: 'closed' };

export type StateName = ConnectionState['state'];

/** The `authenticated` message: the token's name, permissions and board glob; expires (seconds since the epoch) for a JWT. */
export interface Authenticated {
  type: 'authenticated';
  name: string;
  permissions: Array<'read' | 'fold' | 'edit' | 'admin'>;
  boards: string;
  /** Permissions by board glob, from a daemon that sends them (a JWT's `foldsync` claim). */
  grants?: Record<string, Array<'read' | 'fold' | 'edit' | 'admin'>>;
  expires?: number;
}

export type ResyncReason = 'epoch' | 'pruned' | 'lagging';

/** An action taken back out of the shown board: refused by the daemon, or given up by the outbox (`expired`, cancelled, `disconnected` by close()). */
export interface RolledBack {
  key: string;
  action: Action;
  error: FoldError;
}

/**
 * One change of a board. The daemon's: a patch (resynced false, ops set) or a resync (resynced true, ops
 * null, reason set); `ops` apply to the previous `confirmed`, not to the shown `state`. The optimistic
 * state's own (`local` true, ops null, rev the confirmed rev): an action called and shown at once, an ack
 * that changed what is shown, or an action rolled back (`rolledBack` set, told even when nothing shown changed).
 */
export type Change =
  | { rev: number; epoch: string; ops: JsonPatchOperation[]; state: BoardState; confirmed: BoardState; resynced: false; by?: string; local?: undefined }
  | { rev: number; epoch: string; ops: null; state: BoardState; confirmed: BoardState; resynced: true; reason: ResyncReason; local?: undefined }
  | { local: true; rev: number | null; epoch: string | null; ops: null; state: BoardState | null; confirmed: BoardState | null; resynced: false; rolledBack?: RolledBack };

export interface Presence {
  viewers: number;
  /** null from a daemon that does not count followers. */
  following: number | null;
}

export interface HistoryEntry {
  rev: number;
  at?: number;
  actor?: string;
  session?: string;
  summary?: string;
  action?: { type: string; [field: string]: unknown };
  ops: JsonPatchOperation[];
  inverse?: JsonPatchOperation[];
}

export interface HistoryPage {
  board: string;
  epoch: string;
  rev: number;
  more: boolean;
  entries: HistoryEntry[];
}

export interface HistoryQuery {
  since?: number;
  before?: number;
  limit?: number;
}

/** An action as the protocol names it (without board and id, which the client adds). */
export interface Action {
  type: string;
  [field: string]: unknown;
}

// ---- errors ----

/**
 * The daemon's codes: bad_request, unknown_type, not_found, conflict, invalid, forbidden,
 * too_large, rate_limited, internal, and expired (the action was not applied and never will be:
 * its key was settled as void, or the outbox gave up on it before sending it). The client's own:
 * disconnected: close() was called (an action that had been sent may or may not have been applied),
 * a board was unsubscribed before its snapshot, or a history request got no answer.
 */
export type FoldErrorCode =
  | 'bad_request' | 'unknown_type' | 'not_found' | 'conflict' | 'invalid' | 'forbidden'
  | 'too_large' | 'rate_limited' | 'internal' | 'expired' | 'disconnected' | (string & {});

export declare class FoldError extends Error {
  constructor(code: FoldErrorCode, message: string, details?: { board?: string; status?: number });
  readonly name: 'FoldError';
  readonly code: FoldErrorCode;
  /** The board the refusal is about, when known. */
  readonly board?: string;
  /** The HTTP status, for refusals of the HTTP API (history). */
  readonly status?: number;
}

// ---- the client ----

type Unsubscribe = () => void;

export interface ClientEvents {
  state: ConnectionState;
  authenticated: Authenticated;
  /** The daemon warned that the token expires in `in` seconds; a token function is asked for a new one (sent only if it differs from the connection's). */
  authExpiring: { in: number };
  /** Every message of the daemon, after the library handled it: for an application that keeps its own copy (the dashboard). */
  message: { type: string; [field: string]: unknown };
  /** A refusal that answers no action or subscribe (a token the daemon did not accept, a failed token refresh). */
  error: FoldError;
  /** transport "auto" switched: to "stream" (the WebSocket cannot get through) or back to "websocket". */
  transport: { transport: TransportName; reason: string };
  /** The outcome of each action restored from `persist`. */
  outbox: OutboxOutcome;
}

export type TransportName = 'websocket' | 'stream';

export declare class Client {
  constructor(url: string, options?: ConnectOptions);
  readonly url: string;
  readonly state: StateName;
  readonly connected: boolean;
  /** What carries the connection now: "websocket", or "stream" (Server-Sent Events plus POST). */
  readonly transport: TransportName;
  /** The daemon's name for this connection (`hello.session`), as patches' `by` carries it; null on the stream. */
  readonly session: string | null;
  /** The last `authenticated` message (none comes over the stream). */
  readonly identity: Authenticated | null;
  on<E extends keyof ClientEvents>(event: E, listener: (value: ClientEvents[E]) => void): Unsubscribe;
  off<E extends keyof ClientEvents>(event: E, listener: (value: ClientEvents[E]) => void): void;
  /** Resolves once the board's snapshot is here (the same Board for the same name); rejects with a FoldError (not_found, forbidden). */
  subscribe(board: string): Promise<Board>;
  unsubscribe(board: string): void;
  /** Follow the board's folds and focus (true, the default) or browse (false); sent again after every reconnect. The stream cannot carry it: there a viewer always counts as following. */
  follow(following?: boolean): void;
  /**
   * One action on a board, through the outbox: sent now, or once connected and the board resubscribed;
   * sent again with the same key after a lost connection, so it is applied once. Resolves with the rev
   * of its ack; rejects with a FoldError (the daemon's refusal, or `expired`).
   */
  act(board: string, action: Action, options?: ActionOptions): Promise<number>;
  /** This client's random id (16 hex digits): each action's key is `${clientId}-${n}`. */
  readonly clientId: string;
  /** The actions waiting for their answer, by id, in the order called. */
  readonly pending: ReadonlyMap<string, PendingAction>;
  history(board: string, query?: HistoryQuery): Promise<HistoryPage>;
  /** Drops the connection and connects at once, asking the token again; resets the backoff. Waiting actions are kept and sent again. */
  reconnect(): void;
  /** Hands a new token to the open connection (`auth` on a WebSocket; on the stream every board's stream is reopened with it, resuming at its last rev); false when there is none. */
  authenticate(token: string): boolean;
  /** Sends one protocol message as it is (no id, no answer matched); false when not connected. For applications that keep their own copy of a board. */
  send(message: { type: string; [field: string]: unknown }): boolean;
  /** For good: waiting actions reject with `disconnected` (one already sent may or may not have been applied), nothing reconnects. */
  close(): void;
}

export interface BoardEvents {
  change: Change;
  presence: Presence;
  /** The board was deleted; if it is created again a change with resynced true and reason "epoch" follows. */
  deleted: { board: string };
  /** The daemon refused this board's resubscribe (forbidden, or not_found once it is gone): it is no longer watched. */
  error: FoldError;
}

export declare class Board {
  readonly name: string;
  /** The board to show: `confirmed` with the actions not yet answered applied on top by the board's rules (the same object as `confirmed` while none changes it); null after a deletion. Read-only. */
  readonly state: BoardState | null;
  /** The daemon's document at `rev`, equal to GET /api/boards/NAME then; null after a deletion. Read-only. */
  readonly confirmed: BoardState | null;
  /** The actions called for this board and not yet answered, in the order called. */
  readonly pending: Array<{ key: string; action: Action }>;
  readonly rev: number | null;
  readonly epoch: string | null;
  readonly viewers: number | null;
  readonly following: number | null;
  on<E extends keyof BoardEvents>(event: E, listener: (value: BoardEvents[E]) => void): Unsubscribe;
  off<E extends keyof BoardEvents>(event: E, listener: (value: BoardEvents[E]) => void): void;
  /** Any action, through the client's outbox; resolves with the rev of its ack (for a no-op, the current rev). */
  act(action: Action, options?: ActionOptions): Promise<number>;
  toggle(section: string, options?: ActionOptions): Promise<number>;
  expand(section: string, options?: ActionOptions): Promise<number>;
  collapse(section: string, options?: ActionOptions): Promise<number>;
  expandAll(options?: ActionOptions): Promise<number>;
  collapseAll(options?: ActionOptions): Promise<number>;
  focus(section: string, item: number, options?: ActionOptions): Promise<number>;
  clearFocus(options?: ActionOptions): Promise<number>;
  /** Undoes the change that made `rev`, as a new change. */
  revert(rev: number, options?: ActionOptions): Promise<number>;
  history(query?: HistoryQuery): Promise<HistoryPage>;
  unsubscribe(): void;
}

/** Connects, and keeps reconnecting until close(), to a foldsyncd WebSocket URL (ws:// or wss://). */
export declare function connect(url: string, options?: ConnectOptions): Client;

/** The transports by name. */
export declare const TRANSPORTS: { readonly websocket: { readonly name: 'websocket' }; readonly stream: { readonly name: 'stream' } };

// ---- the parts, for those who build their own client ----

export type MirrorOutcome =
  | { kind: 'changed'; ops: JsonPatchOperation[] | null; touched: Map<string, Section> | null; mode: boolean }
  | { kind: 'unchanged' }
  | { kind: 'presence'; viewers: number; following: number | undefined }
  | { kind: 'deleted' }
  | { kind: 'outOfStep'; reason: string };

/** One board's copy, fed the daemon's messages in order (Tests/vectors/mirror.json). */
export declare class BoardMirror {
  constructor(board: string);
  readonly board: string;
  state: BoardState | null;
  epoch: string | null;
  rev: number | null;
  /** Where to resume from (`since`), or null for a snapshot. */
  readonly position: { epoch: string; rev: number } | null;
  apply(message: { type: string; board?: string; [field: string]: unknown }): MirrorOutcome;
  clear(): void;
}

/**
 * Optimistic state, without sockets (Tests/vectors/pending.json): the confirmed board with the actions
 * not yet answered applied on top, in the order called. `session` is the connection's (`hello`): a patch
 * whose `by` is it (or absent) and whose result is the first unanswered action's is that action landing.
 */
export declare class PendingActions {
  constructor(options?: { session?: string | null; limits?: Partial<Limits> });
  session: string | null;
  /** The board to show; `confirmed` itself while nothing pending changes it. */
  readonly state: BoardState | null;
  readonly confirmed: BoardState | null;
  readonly rev: number | null;
  /** The keys still pending, in the order called. */
  readonly keys: string[];
  readonly size: number;
  act(key: string, action: Action): void;
  /** A snapshot: the confirmed board replaced; the pending actions keep their marks. */
  confirm(board: BoardState | null, rev: number | null): void;
  /** A patch: applies `ops` to the confirmed board. */
  patch(rev: number, ops: JsonPatchOperation[], by?: string | null): void;
  /** A patch the owner's mirror already applied: the confirmed board went from `before` to `after`. */
  patched(before: BoardState | null, after: BoardState, rev: number, by?: string | null): void;
  ack(key: string, rev: number): void;
  /** Takes the action out; its entry, or null when it was not pending. */
  refuse(key: string): { key: string; action: Action; ifRev: number | null } | null;
}

/** RFC 6902: returns the patched document, sharing what the patch did not touch; never changes `doc`. */
export declare function applyPatch<T = unknown>(doc: T, ops: JsonPatchOperation[]): T;

export declare class PatchError extends Error {
  constructor(message: string);
  readonly name: 'PatchError';
}

/** The daemon's size limits (docs/PROTOCOL.md, "Limits"); going over one is `invalid`. Titles and badges count UTF-8 bytes, items and boards their compact JSON encoding. */
export interface Limits {
  maxBoards: number;
  maxSections: number;
  maxItems: number;
  maxTitleBytes: number;
  maxItemBytes: number;
  maxBoardBytes: number;
  maxJSONDepth: number;
}

/** The daemon's defaults: 1,000 boards, 5,000 sections, 10,000 items per section, 1,024-byte titles, 4,096-byte items, 4 MiB boards, nesting depth 32. */
export declare const DEFAULT_LIMITS: Readonly<Limits>;

/**
 * The board after one action by the daemon's rules (Tests/vectors/actions.json): `changed` false for a
 * no-op (the daemon acks at the same rev; `board` is the one given), else a new document in the canonical
 * key order, sharing the sections the action did not touch. Throws a FoldError with the daemon's code
 * (`bad_request`, `unknown_type`, `not_found`, `invalid`) for an action the daemon refuses; `revert`, which
 * needs the history, is `invalid`. Never changes `board` or `action`; `ifRev` is not compared.
 * `limits` overrides any of DEFAULT_LIMITS.
 */
export declare function applyAction(board: BoardState, action: Action, limits?: Partial<Limits>): { board: BoardState; changed: boolean };

/** A Server-Sent Events reader (text/event-stream): push text as it arrives, get the events it completed. */
export declare class EventStreamParser {
  constructor();
  /** The last `id:` seen; every later event carries it until another. */
  readonly lastEventId: string;
  /** Comment lines seen (the daemon's heartbeats). */
  readonly comments: number;
  push(text: string): Array<{ type: string; data: string; id: string }>;
}

/** The reconnect delay in ms after `attempt` failed attempts (Tests/vectors/backoff.json). */
export declare function backoffDelay(attempt: number, random?: () => number): number;
export declare const BACKOFF_BASE_MS: 500;
export declare const BACKOFF_CAP_MS: 10000;

/** The outbox's default bounds: 1000 actions, 600000 ms. */
export declare const OUTBOX_MAX_ACTIONS: 1000;
export declare const OUTBOX_MAX_AGE_MS: 600000;
