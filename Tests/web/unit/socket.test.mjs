// clients/web/socket.js, the parts without a socket: the reconnect delays
// (the terminal client's cap) and the token handshake.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS, handshake, socketURL } from '../../../clients/web/socket.js';

test('backoff: exponential from 0.5 s, capped at 10 s like Backoff.swift, equal jitter', () => {
  assert.equal(BACKOFF_BASE_MS, 500);
  assert.equal(BACKOFF_CAP_MS, 10000);
  assert.deepEqual([0, 1, 2, 3, 4, 5, 60].map((n) => backoffDelay(n, () => 0)), [250, 500, 1000, 2000, 4000, 5000, 5000]);
  assert.deepEqual([0, 5, 60].map((n) => backoffDelay(n, () => 1)), [500, 10000, 10000]);
});

test('the URL follows the page: ws for http, wss for https', () => {
  assert.equal(socketURL({ protocol: 'http:', host: 'h:1' }), 'ws://h:1/ws');
  assert.equal(socketURL({ protocol: 'https:', host: 'h' }), 'wss://h/ws');
  // A board page served by a load balancer: the socket goes back through it.
  assert.equal(socketURL({ protocol: 'https:', host: 'boards.example.org:8443', pathname: '/b/team' }), 'wss://boards.example.org:8443/ws');
});

test('a token travels as a subprotocol when it can, else as a first auth message', () => {
  const plain = ['foldsync.v1.batch', 'foldsync.v1'];
  assert.deepEqual(handshake(null), { protocols: plain, auth: null });
  assert.deepEqual(handshake('abc-DEF_1.~'), { protocols: [...plain, 'token.abc-DEF_1.~'], auth: null });
  for (const s of ['has space', 'a/b', 'x,y', 'q=1']) {
    assert.deepEqual(handshake(s), { protocols: plain, auth: { type: 'auth', token: s } }, s);
  }
});
