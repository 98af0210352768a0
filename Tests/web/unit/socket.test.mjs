// clients/web/socket.js, the parts without a socket: the reconnect delays
// (the library's), the URL and the page's names for the library's states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS, pageState, socketURL } from '../../../clients/web/socket.js';

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

test('the page names the library\'s states: open, connecting, waiting, and stopped when nothing is scheduled', () => {
  assert.equal(pageState({ state: 'connected' }), 'open');
  assert.equal(pageState({ state: 'connecting' }), 'connecting');
  assert.equal(pageState({ state: 'disconnected', reason: 'connection lost', code: 1006, delay: 250 }), 'waiting');
  assert.equal(pageState({ state: 'disconnected', reason: 'x', code: 1008, delay: null }), 'stopped');
  assert.equal(pageState({ state: 'closed' }), 'stopped');
});
