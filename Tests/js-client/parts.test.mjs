// The library's parts that need no daemon: where the HTTP API is, what a
// token may be (and when a JWT expires), what connect() refuses at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../clients/js/foldsync.js';
import { apiBase } from '../../clients/js/http.js';
import { jwtExpiry, resolveToken } from '../../clients/js/token.js';

test('the HTTP API sits beside the socket, behind a proxy path too', () => {
  assert.equal(apiBase('ws://127.0.0.1:7681/ws'), 'http://127.0.0.1:7681');
  assert.equal(apiBase('wss://boards.example.org/ws'), 'https://boards.example.org');
  assert.equal(apiBase('wss://example.org:8443/foldsync/ws?x=1'), 'https://example.org:8443/foldsync');
});

test('a token is a string, nothing, or a function of either, sync or async', async () => {
  assert.equal(await resolveToken('s'), 's');
  assert.equal(await resolveToken(undefined), null);
  assert.equal(await resolveToken(''), null);
  assert.equal(await resolveToken(() => 't'), 't');
  assert.equal(await resolveToken(async () => 'u'), 'u');
  assert.equal(await resolveToken(() => null), null);
  await assert.rejects(resolveToken(() => 42), TypeError);
  await assert.rejects(resolveToken(() => { throw new Error('no'); }), /no/);
});

test('a JWT\'s expiry is read from its exp claim; anything else has none', () => {
  const part = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const head = part({ alg: 'HS256', typ: 'JWT' });
  assert.equal(jwtExpiry(`${head}.${part({ sub: 'ünïcode ✓', exp: 1764583452 })}.c2ln`), 1764583452000);
  assert.equal(jwtExpiry(`${head}.${part({ sub: 'x', exp: 1.5 })}.c2ln`), 1500);
  assert.equal(jwtExpiry(`${head}.${part({ sub: 'no exp' })}.c2ln`), null);
  assert.equal(jwtExpiry(`${head}.${part({ exp: '1764583452' })}.c2ln`), null, 'exp is a number');
  assert.equal(jwtExpiry(`${head}.${part([1])}.c2ln`), null);
  assert.equal(jwtExpiry(`${head}.bm90IGpzb24.c2ln`), null, 'not JSON');
  assert.equal(jwtExpiry(`${head}.e30+.c2ln`), null, 'not base64url');
  assert.equal(jwtExpiry('a-static-secret'), null);
  assert.equal(jwtExpiry('one.two'), null);
  assert.equal(jwtExpiry(null), null);
});

test('connect refuses what can never work, at once', () => {
  assert.throws(() => connect('http://127.0.0.1:7681/ws'), TypeError);
  assert.throws(() => connect('not a url'), TypeError);
  assert.throws(() => connect('ws://127.0.0.1:1/ws', { transport: 'carrier-pigeon' }), /no transport/);
  assert.throws(() => connect('ws://127.0.0.1:1/ws', { WebSocket: 'nope' }), /WebSocket/);
});

test('transport: auto by default; auto without any WebSocket uses the stream; websocket without one is refused', () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'WebSocket');
  try {
    const auto = connect('ws://127.0.0.1:1/ws');
    assert.equal(auto.transport, typeof globalThis.WebSocket === 'function' ? 'websocket' : 'stream');
    auto.close();
    delete globalThis.WebSocket;
    const bare = connect('ws://127.0.0.1:1/ws');
    assert.equal(bare.transport, 'stream');
    bare.close();
    assert.throws(() => connect('ws://127.0.0.1:1/ws', { transport: 'websocket' }), /WebSocket/);
    assert.equal(connect('ws://127.0.0.1:1/ws', { transport: 'stream' }).close(), undefined);
  } finally {
    if (saved) Object.defineProperty(globalThis, 'WebSocket', saved);
  }
});
