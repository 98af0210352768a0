// clients/web/auth-state.js and permissions.js: one auth state value, the
// rules that move it, and what it allows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialAuth, nextAuth, onClose, signInOffered } from '../../../clients/web/auth-state.js';
import { ALL, allowed, globMatches, identityFrom, mayNot } from '../../../clients/web/permissions.js';
import { websocketTransport } from '/lib/websocket-transport.js';

const viewer = { type: 'authenticated', name: 'viewer', permissions: ['read', 'fold'], boards: '*' };
const run = (auth, ...events) => events.reduce((a, e) => nextAuth(a, e), auth);
const can = (auth, scope = null) => ALL.filter((p) => allowed(auth, p, scope));

test('without a kept token everything is allowed until told otherwise; with one, nothing', () => {
  assert.deepEqual(can(initialAuth(false)), ALL);
  assert.deepEqual(can(initialAuth(true)), []);
  assert.equal(signInOffered(initialAuth(false)), false);
  assert.equal(signInOffered(initialAuth(true)), true);
});

test('data before any `authenticated` means the daemon has no tokens', () => {
  const a = run(initialAuth(true), { type: 'hello' }, { type: 'data' });
  assert.equal(a.phase, 'open');
  assert.deepEqual(can(a), ALL);
  assert.equal(nextAuth(a, { type: 'data' }), a, 'a second patch changes nothing');
});

test('`authenticated` grants the token\'s permissions, on its boards only', () => {
  const a = run(initialAuth(true), { type: 'hello' }, viewer, { type: 'data' });
  assert.equal(a.phase, 'signed-in');
  assert.deepEqual(can(a, 'b1'), ['read', 'fold']);
  const ops = nextAuth(initialAuth(true), { ...viewer, name: 'ops', boards: 'ops-*' });
  assert.deepEqual(can(ops, 'ops-db'), ['read', 'fold']);
  assert.deepEqual(can(ops, 'dev-db'), []);
  assert.deepEqual(can(ops), ['read', 'fold'], 'the list of boards has no scope');
});

test('a reconnect keeps what was granted until the daemon speaks again', () => {
  const a = run(initialAuth(true), viewer, { type: 'hello' });
  assert.equal(a.phase, 'unknown');
  assert.deepEqual(can(a, 'b1'), ['read', 'fold']);
  assert.equal(run(a, { type: 'data' }).phase, 'open');
  assert.equal(run(a, viewer).phase, 'signed-in');
});

test('a 1008 before `authenticated` is a refusal; after a refusal nothing reconnects', () => {
  const fresh = initialAuth(false);
  assert.equal(onClose(fresh, 1008), 'refused');
  assert.equal(onClose(fresh, 1006), 'retry');
  assert.equal(onClose(nextAuth(fresh, viewer), 1008), 'retry');
  const out = nextAuth(fresh, { type: 'refused' });
  assert.equal(out.phase, 'signed-out');
  assert.deepEqual(can(out), []);
  assert.equal(onClose(out, 1001), 'stop');
  assert.equal(signInOffered(out), true);
  assert.equal(nextAuth(out, { type: 'hello' }), out);
});

test('a new or forgotten token starts over with nothing granted', () => {
  const a = run(initialAuth(false), { type: 'data' }, { type: 'token', hasToken: true });
  assert.deepEqual(a, { phase: 'unknown', hasToken: true, identity: null, granted: [], expiring: false, expired: false });
  const b = run(initialAuth(true), viewer, { type: 'token', hasToken: false });
  assert.equal(b.hasToken, false);
  assert.equal(b.identity, null);
  assert.equal(run(b, { type: 'open' }).phase, 'open');
});

test('states are frozen values', () => {
  const a = nextAuth(initialAuth(false), viewer);
  assert.ok(Object.isFrozen(a));
  assert.throws(() => { 'use strict'; a.phase = 'open'; }, TypeError);
});

test('identity from a message read defensively, and the words of a refusal', () => {
  assert.deepEqual(identityFrom({ name: 7, permissions: ['read', 3], boards: null }), { name: '7', permissions: ['read'], boards: '*' });
  assert.equal(mayNot(nextAuth(initialAuth(true), viewer), 'add a section'), 'This token (“viewer”) may not add a section.');
  assert.equal(mayNot(initialAuth(true), 'do that'), 'This token may not do that.');
});

test('board globs: * any run, ? one character, everything else literal', () => {
  assert.ok(globMatches('*', 'anything'));
  assert.ok(globMatches('ops-*', 'ops-db'));
  assert.ok(!globMatches('ops-*', 'xops-db'));
  assert.ok(globMatches('b?', 'b1'));
  assert.ok(!globMatches('b?', 'b12'));
  assert.ok(!globMatches('a.b', 'axb'));
});

test('a JWT: grants per glob decide each board, and its expiry is followed', () => {
  const jwt = { type: 'authenticated', name: 'wall', permissions: ['read', 'fold', 'edit'], boards: '*',
    grants: { 'ops-*': ['read', 'fold'], 'ops-db': ['edit'], '*': ['read'] }, expires: 2000000000 };
  const a = nextAuth(initialAuth(true), jwt);
  assert.deepEqual(a.identity.grants['ops-db'], ['edit']);
  assert.equal(a.identity.expires, 2000000000);
  assert.ok(allowed(a, 'edit', 'ops-db') && allowed(a, 'fold', 'ops-db'));
  assert.ok(allowed(a, 'fold', 'ops-web') && !allowed(a, 'edit', 'ops-web'));
  assert.ok(allowed(a, 'read', 'team') && !allowed(a, 'fold', 'team'));
  // authExpiring: still signed in, now waiting for a token in band.
  const expiring = nextAuth(a, { type: 'expiring' });
  assert.equal(expiring.phase, 'signed-in');
  assert.equal(expiring.expiring, true);
  assert.equal(nextAuth(expiring, { type: 'expiring' }), expiring);
  assert.equal(nextAuth(expiring, jwt).expiring, false);
  // The close at expiry: ask for a token, keep the board (the page's part), no reconnect loop.
  assert.equal(onClose(expiring, 1008, 'token expired'), 'expired');
  const expired = nextAuth(expiring, { type: 'expired' });
  assert.deepEqual([expired.phase, expired.expired, expired.granted], ['signed-out', true, []]);
  assert.equal(onClose(expired, 1006, ''), 'stop');
  assert.equal(nextAuth(expired, jwt).expired, false);
});

test('any token, a JWT too, goes as a first auth message, never in the subprotocols or the URL', () => {
  // The page's connection is the library's transport; a stand-in socket records what it is given.
  const made = [];
  class Recorder {
    constructor(url, protocols) { this.url = url; this.protocols = protocols; this.sent = []; this.readyState = 1; made.push(this); }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() {}
  }
  const jwt = `eyJhbGciOiJIUzI1NiJ9.${'e'.repeat(100)}.sig`;
  for (const token of [jwt, 'abc', 'has space/x']) {
    websocketTransport.open('ws://h:1/ws', { token, WebSocket: Recorder }, { onMessage() {}, onClose() {} });
    const ws = made.at(-1);
    ws.onopen();
    assert.deepEqual(ws.protocols, ['foldsync.v1.batch', 'foldsync.v1']);
    assert.equal(ws.url, 'ws://h:1/ws');
    assert.deepEqual(ws.sent, [{ type: 'auth', token }]);
  }
  websocketTransport.open('ws://h:1/ws', { token: null, WebSocket: Recorder }, { onMessage() {}, onClose() {} });
  made.at(-1).onopen();
  assert.deepEqual(made.at(-1).sent, []);
});
