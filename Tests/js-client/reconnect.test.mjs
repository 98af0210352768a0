// The contract's cases about the connection's life on the WebSocket:
// states, reconnection after the daemon goes away, the `pruned` resync. The
// daemon is killed and started again on the same port and store; for
// "while the client was away" a relay (relay.mjs) cuts the client off while
// the daemon stays up, so changes can be made before the client comes back.
// Resume and the `epoch` resync are in matrix.test.mjs, on both transports.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, backoffDelay, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, assertMirror, boardDoc as board, sleep, waitFor } from './daemon.mjs';
import { Relay } from './relay.mjs';
import { Recorder } from './recorder.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

async function daemon(args) {
  const d = await Daemon.start(args);
  cleanups.push(() => d.dispose());
  return d;
}
async function relay(d) {
  const r = await Relay.start(d.port);
  cleanups.push(() => r.close());
  return r;
}
function open(url, options) {
  const client = connect(url, options);
  cleanups.push(() => client.close());
  return { client, rec: new Recorder(client) };
}

// Cuts the client off, runs `meanwhile` against the daemon, lets it back.
async function away(r, rec, meanwhile) {
  const from = rec.states.length;
  await r.pause();
  await rec.state('disconnected', 5000, from);
  await meanwhile();
  const back = rec.states.length;
  await r.resume();
  await rec.state('connected', 15000, back);
}

test('states_in_order', async () => {
  const d = await daemon();
  const { client, rec } = open(d.url);
  assert.equal(client.state, 'connecting');
  assert.equal(client.transport, 'websocket');
  await rec.state('connected', 5000);
  await client.subscribe('default');
  assert.deepEqual(rec.names(), ['connecting', 'connected']);
  client.close();
  assert.equal(client.state, 'closed');
  assert.deepEqual(rec.names(), ['connecting', 'connected', 'closed']);
  // Nothing comes back: no state, no connection at the daemon.
  await waitFor(async () => (await d.get('/healthz')).connections === 0, 5000, 'the daemon to see no connection');
  await sleep(1200);
  assert.deepEqual(rec.names(), ['connecting', 'connected', 'closed']);
  assert.equal((await d.get('/healthz')).connections, 0);
  const late = await client.subscribe('default').then(() => null, (e) => e);
  assert.ok(late instanceof FoldError && late.code === 'disconnected', 'subscribe after close is refused');
  const act = await client.act('default', { type: 'toggle', section: 's0' }).then(() => null, (e) => e);
  assert.equal(act?.code, 'disconnected');
});

test('reconnect_with_backoff', async () => {
  const d = await daemon();
  // A fixed random share, so the delays can be held to the shared rule.
  const { client, rec } = open(d.url, { random: () => 0.5 });
  const b = await client.subscribe('default');
  await rec.state('connected', 5000);
  const toggled = await b.toggle('s0');
  const pending = b.toggle('s1').catch((e) => e);
  const from = rec.states.length;
  await d.kill();
  const first = await rec.state('disconnected', 5000, from);
  await sleep(2000);   // a few failed attempts against the dead port
  await d.start();     // the same port and store
  const back = await rec.state('connected', 15000, first);
  // An action in flight when the daemon went: kept, answered once it is back (applied once).
  const kept = await pending;
  assert.equal(typeof kept, 'number', `an action in flight: ${kept}`);
  assert.equal(kept, toggled + 1, 'applied once, before or after the kill');
  const seen = rec.states.slice(first, back + 1);
  const downs = seen.filter((s) => s.state === 'disconnected');
  assert.ok(downs.length >= 2, `several attempts while the daemon was down: ${JSON.stringify(seen)}`);
  for (const s of downs) {
    assert.equal(typeof s.reason, 'string');
    assert.ok(s.reason.length > 0, 'a reason');
    assert.ok(s.delay > 0 && s.delay <= 10000, `delay ${s.delay}`);
  }
  assert.deepEqual(downs.map((s) => s.delay), downs.map((_, i) => backoffDelay(i, () => 0.5)), 'the delays follow backoff.json');
  // disconnected, connecting, disconnected, connecting, ..., connected.
  seen.forEach((s, i) => assert.equal(s.state, i === seen.length - 1 ? 'connected' : ['disconnected', 'connecting'][i % 2], JSON.stringify(seen)));
  // Back: the board is resubscribed and current; actions work again.
  const rev = await b.toggle('s2');
  assert.equal(rev, b.rev);
  await assertMirror(d, b);
  // The backoff starts over after a connection that reached `connected`.
  const again = rec.states.length;
  await d.stop();
  const next = await rec.state('disconnected', 5000, again);
  assert.equal(rec.states[next].delay, backoffDelay(0, () => 0.5));
  assert.equal(rec.states[next].code, 1001, 'a daemon shutting down closes with 1001');
});

// Not a contract case of its own: the third resync reason the client can tell.
test('resync pruned: same epoch, history no longer holds the rev', async () => {
  const d = await daemon(['--history-per-board', '2']);
  await d.put('short', board(['a', 'b', 'c']));
  const r = await relay(d);
  const { client, rec } = open(r.url);
  const b = rec.watch(await client.subscribe('short'));
  const epoch = b.epoch;
  const count = rec.changes.length;
  await away(r, rec, async () => {
    for (const s of ['a', 'b', 'c', 'a', 'b']) await d.action('short', { type: 'toggle', section: s });
  });
  const change = await rec.change((c, i) => i >= count, 5000, 'the resync');
  assert.deepEqual([change.resynced, change.reason, change.epoch], [true, 'pruned', epoch]);
  await assertMirror(d, b);
});
