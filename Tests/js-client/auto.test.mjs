// transport: "auto" (the default) against the real daemon behind a relay
// (relay.mjs) that cuts every WebSocket upgrade while passing plain HTTP,
// as a proxy that breaks WebSockets does: the client falls back to the
// stream and keeps syncing, and goes back to the WebSocket once upgrades get
// through again. And what must not send it to the stream: a daemon that is
// simply down, or transport: "websocket".

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../clients/js/foldsync.js';
import { Daemon, assertMirror, boardDoc as board, sleep, waitFor } from './daemon.mjs';
import { Relay } from './relay.mjs';
import { Recorder } from './recorder.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

async function setup(args = []) {
  const d = await Daemon.start(args);
  cleanups.push(() => d.dispose());
  const r = await Relay.start(d.port);
  cleanups.push(() => r.close());
  return { d, r };
}
function open(url, options) {
  const client = connect(url, options);
  cleanups.push(() => client.close());
  const rec = new Recorder(client);
  const switches = [];
  client.on('transport', (t) => switches.push(t));
  return { client, rec, switches };
}

test('auto: falls back to the stream when WebSocket upgrades fail, keeps syncing, and switches back', async () => {
  const { d, r } = await setup();
  await d.put('auto', board(['a', 'b', 'c']));
  r.refuseUpgrades = true;
  const { client, rec, switches } = open(r.url, { websocketRetryMs: 1500 });
  assert.equal(client.transport, 'websocket', 'auto starts on the WebSocket');
  const b = rec.watch(await client.subscribe('auto'));
  assert.equal(client.transport, 'stream');
  assert.equal(switches.length, 1);
  assert.equal(switches[0].transport, 'stream');
  assert.match(switches[0].reason, /WebSocket/);
  assert.equal(r.upgradesRefused, 2, 'two failed upgrades in a row, then the stream');
  // connecting, disconnected (upgrade cut), connecting, disconnected, connecting, connected.
  assert.deepEqual(rec.names(), ['connecting', 'disconnected', 'connecting', 'disconnected', 'connecting', 'connected']);
  await assertMirror(d, b);

  // Syncing on the stream: a change from elsewhere, and our own action.
  const remote = await d.action('auto', { type: 'expand', section: 'a' });
  await rec.change((c) => c.rev === remote, 5000, `rev ${remote} on the stream`);
  const mine = await b.toggle('b');
  assert.equal(mine, b.rev);
  assert.equal(client.transport, 'stream');
  // The WebSocket is tried again (every 1.5 s here) and still cut.
  const refused = r.upgradesRefused;
  await waitFor(() => r.upgradesRefused >= refused + 1, 5000, 'another WebSocket try');
  assert.equal(client.transport, 'stream');
  assert.equal(client.state, 'connected');
  await assertMirror(d, b);

  // Upgrades get through again: the client switches back, without a state change.
  const states = rec.states.length;
  const count = rec.changes.length;
  r.refuseUpgrades = false;
  await waitFor(() => client.transport === 'websocket', 8000, 'the switch back to the WebSocket');
  assert.deepEqual(switches.map((s) => s.transport), ['stream', 'websocket']);
  assert.equal(rec.states.length, states, 'no state change on a switch');
  assert.equal(client.state, 'connected');
  assert.equal(typeof client.session, 'string', 'a WebSocket session again');
  // Resubscribed with since: nothing missed, no resync; then changes keep coming.
  const later = await d.action('auto', { type: 'expand', section: 'c' });
  await rec.change((c) => c.rev === later, 5000, `rev ${later} on the WebSocket`);
  assert.ok(rec.changes.slice(count).every((c) => c.resynced === false), JSON.stringify(rec.changes.slice(count)));
  const ours = await b.toggle('a');
  assert.equal(ours, b.rev);
  await assertMirror(d, b);
});

test('auto: changes made during the switch back are neither lost nor doubled', async () => {
  const { d, r } = await setup();
  await d.put('busy', board(['a', 'b']));
  r.refuseUpgrades = true;
  const { client, rec } = open(r.url, { websocketRetryMs: 300 });
  const b = rec.watch(await client.subscribe('busy'));
  assert.equal(client.transport, 'stream');
  const start = b.rev;
  r.refuseUpgrades = false;
  // Changes keep being made while the client switches.
  let n = 0;
  const deadline = Date.now() + 8000;
  while (client.transport !== 'websocket' && Date.now() < deadline) {
    await d.action('busy', { type: 'toggle', section: n % 2 ? 'a' : 'b' });
    n += 1;
    await sleep(20);
  }
  assert.equal(client.transport, 'websocket');
  for (let i = 0; i < 5; i++) { await d.action('busy', { type: 'toggle', section: 'a' }); n += 1; }
  await waitFor(() => b.rev === start + n, 5000, `rev ${start + n} (at ${b.rev})`);
  assert.deepEqual(rec.changes.map((c) => c.rev), Array.from({ length: n }, (_, i) => start + 1 + i), 'every rev once, in order');
  assert.ok(rec.changes.every((c) => !c.resynced));
  await assertMirror(d, b);
});

test('auto: a daemon that is down does not send the client to the stream', async () => {
  const d = await Daemon.start();
  cleanups.push(() => d.dispose());
  const { client, rec, switches } = open(d.url, { random: () => 0 });
  await client.subscribe('default');
  const from = rec.states.length;
  await d.kill();
  // Several WebSocket attempts fail, but HTTP fails too.
  await waitFor(() => rec.states.slice(from).filter((s) => s.state === 'disconnected').length >= 4, 15000, 'four failed attempts');
  await d.start();
  await rec.state('connected', 15000, from);
  assert.equal(client.transport, 'websocket');
  assert.deepEqual(switches, []);
});

test('transport "websocket" never falls back; "stream" never tries the WebSocket', async () => {
  const { d, r } = await setup();
  r.refuseUpgrades = true;
  const ws = open(r.url, { transport: 'websocket', random: () => 0 });
  await waitFor(() => ws.rec.states.filter((s) => s.state === 'disconnected').length >= 4, 15000, 'four failed attempts');
  assert.equal(ws.client.transport, 'websocket');
  assert.deepEqual(ws.switches, []);
  assert.equal(ws.client.state === 'connected', false);
  ws.client.close();
  const refused = r.upgradesRefused;
  const st = open(r.url, { transport: 'stream', websocketRetryMs: 200 });
  const b = await st.client.subscribe('default');
  await sleep(800);
  assert.equal(r.upgradesRefused, refused, 'no WebSocket tried');
  assert.equal(st.client.transport, 'stream');
  await assertMirror(d, b);
});
