// The outbox (clients/js/outbox.js): actions kept while offline, sent again
// with their keys after a cut, applied exactly once; its bounds; `settle`;
// cancelling with an AbortSignal; `persist`. Against the real daemon,
// through the relay (relay.mjs), which reads the client's messages and cuts
// right after forwarding one that carries a `key` (the daemon commits it,
// the answer is lost) or drops it and cuts. The contract's cases run on
// both transports (`ID [transport]`), except random_cuts_exactly_once,
// which runs on the WebSocket and, as `... [stream]`, on the stream.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, assertMirror, boardDoc, seededRandom, sleep, waitFor } from './daemon.mjs';
import { Relay } from './relay.mjs';
import { Recorder } from './recorder.mjs';

const TRANSPORTS = ['websocket', 'stream'];

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

// One test per transport, named `ID [transport]` (coverage.test.mjs reads the ID).
function matrix(id, body) {
  for (const transport of TRANSPORTS) test(`${id} [${transport}]`, () => body(transport));
}

let shared = null;
async function daemon() {
  if (!shared) {
    shared = await Daemon.start();
    cleanups.push(() => shared.dispose());
  }
  return shared;
}
async function relay(d) {
  const r = await Relay.start(d.port);
  cleanups.push(() => r.close());
  return r;
}
// random: () => 0, the shortest backoff (250 ms after a cut): the cases cut often.
function open(url, transport, options = {}) {
  const client = connect(url, { transport, random: () => 0, ...options });
  cleanups.push(() => client.close());
  const rec = new Recorder(client);
  const acks = [];
  client.on('message', (m) => { if (m.type === 'ack' || m.type === 'error') acks.push(m); });
  return { client, rec, acks };
}

// Where a promise stands, without waiting for it.
function watch(promise) {
  const w = { settled: 0, value: undefined, error: undefined, promise: null };
  w.promise = promise.then((v) => { w.settled += 1; w.value = v; return v; }, (e) => { w.settled += 1; w.error = e; throw e; });
  w.promise.catch(() => {});
  return w;
}

// Cuts the client off until the returned function is called.
async function offline(r, rec) {
  const from = rec.states.length;
  await r.pause();
  await rec.state('disconnected', 5000, from);
}
async function online(r, rec) {
  const from = rec.states.length;
  await r.resume();
  await rec.state('connected', 15000, from);
}

// The next keyed message gets `what`, every later one passes; with `hold`
// the relay stays paused after the cut until online().
function cutNext(r, what, hold = false) {
  r.holdAfterCut = hold;
  let used = false;
  r.onKeyed = () => {
    if (used) return 'pass';
    used = true;
    return what;
  };
}
const relayPaused = (r) => waitFor(() => r.server === null, 5000, 'the relay to cut and stop accepting');

async function fresh(d, name, ids = ['a', 'b', 'c'], mode = 'multi') {
  await d.put(name, boardDoc(ids, mode));
  return (await d.board(name)).rev;
}
const expanded = async (d, name) => Object.fromEntries((await d.board(name)).state.sections.map((s) => [s.id, s.expanded]));

matrix('action_kept_while_offline', async (transport) => {
  const d = await daemon();
  const name = `kept-${transport}`;
  const start = await fresh(d, name);
  const r = await relay(d);
  const { client, rec } = open(r.url, transport);
  // Called while still connecting: kept, sent once connected.
  assert.equal(client.state, 'connecting');
  const early = watch(client.act(name, { type: 'toggle', section: 'a' }));
  const b = rec.watch(await client.subscribe(name));
  assert.equal(await early.promise, start + 1);
  // Called while disconnected (waiting for the next attempt): kept, not rejected.
  await offline(r, rec);
  const late = watch(b.toggle('b'));
  await sleep(600);
  assert.equal(late.settled, 0, `an action called offline was answered: ${late.error ?? late.value}`);
  assert.equal((await d.board(name)).rev, start + 1, 'nothing was applied while offline');
  await online(r, rec);
  let seenAtAck = null;
  const rev = await late.promise.then((v) => { seenAtAck = b.rev; return v; });
  assert.equal(rev, start + 2);
  assert.ok(seenAtAck >= rev, 'the board had its change when the action resolved');
  assert.deepEqual(await expanded(d, name), { a: true, b: true, c: false }, 'each action applied once');
  assert.equal((await d.board(name)).rev, start + 2);
  assert.equal(late.settled, 1);
  assert.equal(client.pending.size, 0);
  await assertMirror(d, b);
});

matrix('action_cut_before_ack_applied_once', async (transport) => {
  const d = await daemon();
  const name = `cut-after-${transport}`;
  const start = await fresh(d, name);
  const r = await relay(d);
  const { client, rec, acks } = open(r.url, transport);
  const b = rec.watch(await client.subscribe(name));
  cutNext(r, 'after', true);
  const from = rec.states.length;
  const p = watch(b.toggle('a'));
  await relayPaused(r);
  await rec.state('disconnected', 5000, from);
  // The daemon committed it; the client got no answer.
  await waitFor(async () => (await d.board(name)).rev === start + 1, 5000, 'the first send to be applied');
  await sleep(300);
  assert.equal(p.settled, 0, `answered while cut off: ${p.error ?? p.value}`);
  r.holdAfterCut = false;
  await online(r, rec);
  assert.equal(await p.promise, start + 1, 'resolves with the rev of the first commit');
  // Sent again with the same key, answered as a repeat, applied once.
  const sent = r.keyed;
  assert.equal(sent.length, 2, JSON.stringify(r.keyed));
  assert.equal(sent[0].key, sent[1].key, 'the same key both times');
  assert.match(sent[0].key, new RegExp(`^${client.clientId}-\\d+$`));
  assert.match(client.clientId, /^[0-9a-f]{16}$/);
  assert.deepEqual([sent[0].what, sent[1].what, sent[1].type], ['after', 'pass', 'toggle']);
  assert.ok(acks.some((m) => m.type === 'ack' && m.rev === start + 1 && m.duplicate === true), `a duplicate ack: ${JSON.stringify(acks)}`);
  assert.equal((await d.board(name)).rev, start + 1, 'applied once');
  assert.deepEqual(await expanded(d, name), { a: true, b: false, c: false });
  await assertMirror(d, b);
  assert.equal(p.settled, 1);
});

matrix('action_cut_before_sent_applied_once', async (transport) => {
  const d = await daemon();
  const name = `cut-before-${transport}`;
  const start = await fresh(d, name);
  const r = await relay(d);
  const { client, rec } = open(r.url, transport);
  const b = rec.watch(await client.subscribe(name));
  cutNext(r, 'drop');
  const from = rec.states.length;
  const rev = await b.toggle('b');
  assert.ok(rec.states.slice(from).some((s) => s.state === 'disconnected'), 'the connection was cut');
  assert.equal(rev, start + 1);
  assert.deepEqual(r.keyed.map((k) => k.what), ['drop', 'pass']);
  assert.equal(r.keyed[0].key, r.keyed[1].key, 'sent again with its key');
  assert.equal((await d.board(name)).rev, start + 1, 'applied once');
  assert.deepEqual(await expanded(d, name), { a: false, b: true, c: false });
  await assertMirror(d, b);
  assert.equal(client.pending.size, 0);
});

matrix('outbox_bounds_expire', async (transport) => {
  const d = await daemon();
  const name = `bounds-${transport}`;
  const start = await fresh(d, name);
  const r = await relay(d);
  await r.pause();   // no connection from the start
  const { client, rec } = open(r.url, transport, { outbox: { maxActions: 3, maxAgeMs: 1000 } });
  await rec.state('disconnected', 5000);
  const called = Date.now();
  const kept = ['a', 'b', 'c'].map((s) => watch(client.act(name, { type: 'toggle', section: s })));
  const over = await client.act(name, { type: 'toggle', section: 'a' }).then(() => null, (e) => e);
  assert.ok(over instanceof FoldError, `the fourth: ${over}`);
  assert.equal(over.code, 'expired');
  assert.match(over.message, /holds 3 actions, its bound; this one was not sent/);
  assert.equal(kept.filter((k) => k.settled).length, 0, 'the three within the bound wait');
  // Past the age bound, never sent: rejected, never applied.
  for (const k of kept) {
    const e = await k.promise.then(() => null, (x) => x);
    assert.ok(e instanceof FoldError && e.code === 'expired', `expired: ${e}`);
    assert.match(e.message, /waited 1 s without a connection; it was never sent/);
    assert.equal(e.board, name);
  }
  const waited = Date.now() - called;
  assert.ok(waited >= 1000 && waited < 3500, `expired after ${waited} ms (bound 1000 ms, checked every second)`);
  assert.equal(client.pending.size, 0);
  // Room again: an action called now is kept, and sent once the client is
  // back (at once: reconnect() skips the backoff, grown long by now).
  const from = rec.states.length;
  await r.resume();
  const now = watch(client.act(name, { type: 'expand', section: 'c' }));
  assert.notEqual(client.state, 'connected');
  client.reconnect();
  await rec.state('connected', 5000, from);
  assert.equal(await now.promise, start + 1);
  await sleep(300);
  assert.equal((await d.board(name)).rev, start + 1, 'none of the expired ones was applied');
  assert.deepEqual(await expanded(d, name), { a: false, b: false, c: true });
  assert.deepEqual(r.keyed.map((k) => k.action?.section ?? k.type), ['c'], 'only the last one ever left the client');
});

matrix('sent_action_past_age_is_settled', async (transport) => {
  const d = await daemon();
  const name = `settle-${transport}`;
  const start = await fresh(d, name);
  const r = await relay(d);
  const { client, rec } = open(r.url, transport, { outbox: { maxAgeMs: 1000 } });
  const b = rec.watch(await client.subscribe(name));

  // Reached the daemon, its answer lost, the client away past the bound: settled, resolves with its rev.
  cutNext(r, 'after', true);
  const applied = watch(b.toggle('a'));
  await relayPaused(r);
  await waitFor(async () => (await d.board(name)).rev === start + 1, 5000, 'the first send to be applied');
  await sleep(1600);
  assert.equal(applied.settled, 0, 'a sent action waits for its settle');
  r.holdAfterCut = false;
  await online(r, rec);
  assert.equal(await applied.promise, start + 1);
  const keyA = r.keyed[0].key;
  assert.deepEqual(r.keyed.filter((k) => k.key === keyA).map((k) => [k.type, k.what]), [['toggle', 'after'], ['settle', 'pass']],
    'past the bound it is settled, not sent again');

  // Dropped by the relay, the client away past the bound: settled, expired, never applied.
  cutNext(r, 'drop', true);
  const dropped = watch(b.toggle('b'));
  await relayPaused(r);
  await sleep(1600);
  assert.equal(dropped.settled, 0);
  r.holdAfterCut = false;
  await online(r, rec);
  const e = await dropped.promise.then(() => null, (x) => x);
  assert.ok(e instanceof FoldError, `rejects: ${e}`);
  assert.equal(e.code, 'expired');
  const keyB = r.keyed.find((k) => k.what === 'drop').key;
  assert.notEqual(keyB, keyA);
  assert.deepEqual(r.keyed.filter((k) => k.key === keyB).map((k) => [k.type, k.what]), [['toggle', 'drop'], ['settle', 'pass']]);
  await sleep(300);
  assert.equal((await d.board(name)).rev, start + 1, 'the dropped action was never applied');
  assert.deepEqual(await expanded(d, name), { a: true, b: false, c: false });
  // And never will be: its key is void, on the WebSocket and over HTTP.
  const raw = new WebSocket(d.url, ['foldsync.v1']);
  const answer = new Promise((resolve) => { raw.onmessage = (m) => { const x = JSON.parse(m.data); if (x.id === 'late') resolve(x); }; });
  await new Promise((resolve) => { raw.onopen = resolve; });
  raw.send(JSON.stringify({ type: 'toggle', board: name, section: 'b', key: keyB, id: 'late' }));
  const late = await answer;
  raw.close();
  assert.deepEqual([late.type, late.code], ['error', 'expired'], JSON.stringify(late));
  const http = await fetch(`${d.base}/api/boards/${name}/actions`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': keyB }, body: JSON.stringify({ type: 'toggle', section: 'b' }),
  });
  assert.equal(http.status, 410);
  assert.equal((await http.json()).code, 'expired');
  assert.equal((await d.board(name)).rev, start + 1);
  await assertMirror(d, b);
  assert.equal(client.pending.size, 0);
});

// 200 rounds: each a toggle of a random section, and at random no cut, a
// cut before the action is forwarded, or one after it is forwarded and
// before its ack. The stream's run is the same with HTTP requests.
async function randomCuts(transport, seed) {
  const d = await daemon();
  const name = `random-${transport}`;
  const ids = ['s0', 's1', 's2'];
  const start = await fresh(d, name, ids, 'single');
  const r = await relay(d);
  const { client, rec } = open(r.url, transport);
  const b = rec.watch(await client.subscribe(name));
  assert.equal(await b.act({ type: 'setMode', mode: 'multi' }), start + 1);
  const random = seededRandom(seed);
  const plans = ['pass', 'drop', 'after'];
  let plan = 'pass';
  r.onKeyed = () => { const what = plan; plan = 'pass'; return what; };
  const toggles = { s0: 0, s1: 0, s2: 0 };
  const settled = [];
  const revs = [];
  const began = Date.now();
  for (let round = 0; round < 200; round++) {
    const section = ids[Math.floor(random() * 3)];
    plan = plans[Math.floor(random() * 3)];
    toggles[section] += 1;
    const p = b.toggle(section);
    p.then(() => { settled[round] = (settled[round] ?? 0) + 1; }, () => { settled[round] = (settled[round] ?? 0) + 1; });
    revs.push(await p);
  }
  await sleep(100);
  assert.deepEqual(settled, Array(200).fill(1), 'every promise settled once');
  revs.forEach((rev, i) => assert.ok(i === 0 ? rev > start + 1 : rev > revs[i - 1], `revs strictly increase in call order: ${revs.slice(Math.max(0, i - 2), i + 1)}`));
  const cuts = r.keyed.filter((k) => k.what !== 'pass').length;
  assert.ok(cuts >= 100, `the relay cut ${cuts} times in 200 rounds`);
  assert.ok(r.keyed.some((k) => k.what === 'after') && r.keyed.some((k) => k.what === 'drop'));
  const got = await d.board(name);
  assert.equal(got.rev, start + 1 + 200, 'every toggle applied once');
  assert.deepEqual(Object.fromEntries(got.state.sections.map((s) => [s.id, s.expanded])),
    Object.fromEntries(ids.map((s) => [s, toggles[s] % 2 === 1])), 'each flag is the parity of its toggles');
  assert.equal(revs[199], start + 1 + 200);
  await assertMirror(d, b);
  assert.equal(client.pending.size, 0);
  return { cuts, ms: Date.now() - began };
}

test('random_cuts_exactly_once', { timeout: 110000 }, async () => {
  const { cuts, ms } = await randomCuts('websocket', 20261204);
  assert.ok(ms < 100000, `200 rounds with ${cuts} cuts took ${ms} ms`);
});

test('random_cuts_exactly_once [stream]', { timeout: 110000 }, async () => {
  const { cuts, ms } = await randomCuts('stream', 4051);
  assert.ok(ms < 100000, `200 rounds with ${cuts} cuts took ${ms} ms`);
});

// ---- not contract cases: cancel and persist ----

test('outbox: cancel with an AbortSignal, before and after it was sent', async () => {
  const d = await daemon();
  const name = 'cancel';
  const start = await fresh(d, name);
  const r = await relay(d);
  const { client, rec } = open(r.url, 'websocket');
  const b = rec.watch(await client.subscribe(name));
  // Not yet sent: dropped, expired.
  await offline(r, rec);
  const c1 = new AbortController();
  const unsent = watch(b.toggle('a', { signal: c1.signal }));
  c1.abort();
  const e1 = await unsent.promise.then(() => null, (x) => x);
  assert.equal(e1?.code, 'expired');
  assert.match(e1.message, /cancelled before it was sent/);
  const already = new AbortController();
  already.abort();
  assert.equal((await b.toggle('a', { signal: already.signal }).then(() => null, (x) => x))?.code, 'expired');
  await online(r, rec);
  // Sent, dropped on the way, cancelled while away: settled after reconnecting, expired, never applied.
  cutNext(r, 'drop', true);
  const c2 = new AbortController();
  const lost = watch(b.toggle('b', { signal: c2.signal }));
  await relayPaused(r);
  c2.abort();
  r.holdAfterCut = false;
  await online(r, rec);
  const e2 = await lost.promise.then(() => null, (x) => x);
  assert.equal(e2?.code, 'expired', `${e2}`);
  const key = r.keyed.find((k) => k.what === 'drop').key;
  assert.deepEqual(r.keyed.filter((k) => k.key === key).map((k) => k.type), ['toggle', 'settle']);
  // Sent on a live connection and cancelled at once: the settle follows it, and says it was applied.
  const c3 = new AbortController();
  const live = watch(b.toggle('c', { signal: c3.signal }));
  c3.abort();
  assert.equal(await live.promise, start + 1);
  assert.equal((await d.board(name)).rev, start + 1);
  assert.deepEqual(await expanded(d, name), { a: false, b: false, c: true });
});

test('outbox: persist restores the actions of a page that went away, with their keys', async () => {
  const d = await daemon();
  const name = 'persist';
  const start = await fresh(d, name);
  const storage = memoryStorage();
  const r = await relay(d);
  const first = open(r.url, 'websocket', { persist: storage });
  const b = first.rec.watch(await first.client.subscribe(name));
  // One action reaches the daemon and its answer is lost; one is called while away.
  cutNext(r, 'after', true);
  watch(b.toggle('a'));
  await relayPaused(r);
  await waitFor(async () => (await d.board(name)).rev === start + 1, 5000, 'the first send to be applied');
  watch(b.toggle('b'));
  const saved = JSON.parse(storage.getItem(`foldsync.outbox ${r.url}`));
  assert.equal(saved.clientId, first.client.clientId);
  assert.equal(saved.actions.length, 2);
  assert.deepEqual(saved.actions.map((a) => [a.message.type, a.message.section, a.sent]), [['toggle', 'a', true], ['toggle', 'b', false]]);
  // The page dies here: what it saved is all that is left of it.
  const reloaded = memoryStorage(storage);
  const outcomes = [];
  const second = connect(r.url, { transport: 'websocket', random: () => 0, persist: reloaded });
  cleanups.push(() => second.close());
  second.on('outbox', (o) => outcomes.push(o));
  assert.equal(second.clientId, first.client.clientId, 'the client id is restored');
  assert.equal(second.pending.size, 2);
  first.client.close();
  r.holdAfterCut = false;
  await r.resume();
  await waitFor(() => outcomes.length === 2, 10000, 'both restored actions answered');
  assert.deepEqual(outcomes.map((o) => [o.key, o.board, o.rev, o.error]),
    [[saved.actions[0].key, name, start + 1, undefined], [saved.actions[1].key, name, start + 2, undefined]]);
  assert.equal((await d.board(name)).rev, start + 2, 'each applied once');
  // The counter goes on from the saved one; a settled outbox is saved empty.
  const rev = second.act(name, { type: 'toggle', section: 'c' });
  assert.equal([...second.pending.values()][0].key, `${second.clientId}-3`);
  assert.equal(await rev, start + 3);
  assert.deepEqual(JSON.parse(reloaded.getItem(`foldsync.outbox ${r.url}`)).actions, []);
});

// An object with getItem/setItem/removeItem, as sessionStorage has.
function memoryStorage(from) {
  const items = new Map(from ? from.items : []);
  return {
    items,
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => { items.set(k, String(v)); },
    removeItem: (k) => { items.delete(k); },
  };
}
