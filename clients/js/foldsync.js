// foldsync's JavaScript client: one module, no dependencies, no build step;
// browsers and Node (globalThis.WebSocket: Node 22, or Node 20 with
// --experimental-websocket; without one, the event stream). The contract it
// keeps is docs/CLIENTS.md.
//
//   import { connect } from './foldsync.js';
//   const client = connect('ws://127.0.0.1:7681/ws', { token: () => fetchToken() });
//   const board = await client.subscribe('default');
//   board.on('change', (c) => render(c.state));
//   await board.toggle('s1');

import { Client } from './client.js';

export const VERSION = '0.1.0';

/** Connects (and keeps reconnecting) to a foldsyncd WebSocket URL; options.transport: 'auto' (default), 'websocket' or 'stream'. */
export function connect(url, options = {}) {
  return new Client(url, options);
}

export { Client, TRANSPORTS } from './client.js';
export { EventStreamParser } from './sse.js';
export { Board } from './board.js';
export { FoldError } from './fold-error.js';
export { BoardMirror } from './mirror.js';
export { applyPatch, PatchError } from './patch.js';
export { applyAction, DEFAULT_LIMITS } from './rules.js';
export { PendingActions } from './pending.js';
export { backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS } from './backoff.js';
export { OUTBOX_MAX_ACTIONS, OUTBOX_MAX_AGE_MS } from './outbox.js';
