// One implementation of the board copy, the JSON Patch applier, the
// optimistic state, the WebSocket and the reconnect delay: the client
// library's (clients/js), which the dashboard imports from /lib/ as the
// daemon serves it. No copy may creep back into
// clients/web.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as socket from '../../../clients/web/socket.js';
import * as backoff from '../../../clients/js/backoff.js';

const web = new URL('../../../clients/web/', import.meta.url);
const modules = readdirSync(web).filter((f) => f.endsWith('.js'));

test('the dashboard holds no copy of the library\'s applier, mirror, optimistic state or backoff', () => {
  for (const f of ['patch.js', 'mirror.js', 'backoff.js', 'pending.js']) assert.ok(!modules.includes(f), `clients/web/${f} is back: import /lib/${f}`);
  for (const f of modules) {
    const text = readFileSync(new URL(f, web), 'utf8');
    assert.doesNotMatch(text, /function applyPatch\b|class BoardMirror\b|function backoffDelay\b|class PendingActions\b|function applyAction\b/, `clients/web/${f} defines its own`);
    assert.doesNotMatch(text, /from '\.\/(patch|mirror|pending|rules)\.js'/, `clients/web/${f} imports a copy`);
  }
  // The board page folds at once with the library's optimistic state.
  assert.match(readFileSync(new URL('board-page.js', web), 'utf8'), /from '\/lib\/pending\.js'/);
});

test('the page\'s backoff is the library\'s own function', () => {
  assert.equal(socket.backoffDelay, backoff.backoffDelay);
  assert.equal(socket.BACKOFF_CAP_MS, backoff.BACKOFF_CAP_MS);
});

test('no file of the dashboard constructs a WebSocket: the connection is the library\'s', () => {
  for (const f of modules) {
    const text = readFileSync(new URL(f, web), 'utf8');
    assert.doesNotMatch(text, /new\s+(globalThis\.|window\.|self\.)?WebSocket\b/, `clients/web/${f} opens its own WebSocket`);
    assert.doesNotMatch(text, /\b(Reflect\.construct|new\s+\w+)\s*\(\s*(globalThis\.|window\.)?WebSocket\b/, `clients/web/${f} constructs a WebSocket`);
  }
  const html = readFileSync(new URL('index.html', web), 'utf8');
  assert.doesNotMatch(html, /\bWebSocket\b/, 'index.html opens a WebSocket');
  // And the page does use the library's client.
  assert.match(readFileSync(new URL('socket.js', web), 'utf8'), /from '\/lib\/foldsync\.js'/);
});
