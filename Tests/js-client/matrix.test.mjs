// The contract's promises on both transports of the JavaScript library:
// every case runs once with transport "websocket" and once with "stream",
// against the real daemon, as `ID [transport]`. What differs between the two
// is asserted where it differs (a session name, `authExpiring`, `view`, how
// soon a reader that left is no longer counted).

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, assertMirror, boardDoc, jwtDaemon, seededRandom, sleep, waitFor } from './daemon.mjs';
import { Relay } from './relay.mjs';
import { Recorder, streamWatcher } from './recorder.mjs';

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
async function ownDaemon(args = []) {
  const d = await Daemon.start(args);
  cleanups.push(() => d.dispose());
  return d;
}
async function relay(d) {
  const r = await Relay.start(d.port);
  cleanups.push(() => r.close());
  return r;
}
function open(url, transport, options = {}) {
  const client = connect(url, { transport, ...options });
  cleanups.push(() => client.close());
  return { client, rec: new Recorder(client) };
}

// The revs of the changes a board reported from index `from` on are exactly
// first..last, once each, in order.
function assertConsecutive(rec, from, first, last, what) {
  const revs = rec.changes.slice(from).map((c) => c.rev);
  const want = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  assert.deepEqual(revs, want, `${what}: every rev once, in order`);
}

matrix('subscribe_mirror_equals_get', async (transport) => {
  const d = await daemon();
  const name = `sub-${transport}`;
  await d.put(name, boardDoc(['s0', 's1', 's2']));
  await d.action(name, { type: 'setTitle', section: 's2', title: 'Σ and "quotes"\nand a newline' });
  const { client, rec } = open(d.url, transport);
  assert.equal(client.transport, transport);
  const b = await client.subscribe(name);
  assert.equal(b.name, name);
  assert.equal(client.state, 'connected');
  assert.deepEqual(rec.names(), ['connecting', 'connected']);
  const got = await d.board(name);
  assert.deepStrictEqual({ rev: b.rev, epoch: b.epoch, state: b.confirmed }, { rev: got.rev, epoch: got.epoch, state: got.state });
  assert.equal(await client.subscribe(name), b, 'the same board for the same name');
  if (transport === 'websocket') assert.equal(typeof client.session, 'string');
  else assert.equal(client.session, null, 'a stream has no session');
});

// ---- acks, changes from elsewhere, refusals ----

matrix('ack_resolves_with_rev', async (transport) => {
  const d = await daemon();
  const name = `acks-${transport}`;
  await d.put(name, boardDoc(['a', 'b', 'c'], 'single'));
  const { client, rec } = open(d.url, transport);
  const b = rec.watch(await client.subscribe(name));
  const start = b.rev;
  for (let i = 1; i <= 5; i++) {
    let seenAtAck = null;
    const rev = await b.toggle('b').then((r) => { seenAtAck = rec.changes.map((c) => c.rev); return r; });
    assert.equal(rev, start + i);
    assert.deepEqual(seenAtAck, Array.from({ length: i }, (_, k) => start + 1 + k), 'the change for the acked rev came before the ack');
    assert.equal(b.rev, rev);
  }
  assert.equal(b.state.sections[1].expanded, true);
  // A no-op resolves with the current rev and makes no change.
  assert.equal(await b.collapse('a'), b.rev);
  assert.equal(rec.changes.length, 5);
  // Several at once: each resolves with its own rev, its change seen first.
  const revs = await Promise.all(['a', 'b', 'c'].map((s) => b.toggle(s).then((r) => {
    assert.ok(rec.changes.some((c) => c.rev === r), `the change for rev ${r} came before its ack`);
    return r;
  })));
  assert.deepEqual([...revs].sort((x, y) => x - y), [start + 6, start + 7, start + 8]);
  // An action on a board the client does not watch.
  const other = `elsewhere-${transport}`;
  await d.put(other, boardDoc(['x']));
  assert.equal(await client.act(other, { type: 'expand', section: 'x' }), (await d.board(other)).rev);
  await assertMirror(d, b);
});

// Changes made by a WebSocket client (its session is the change's `by`), a
// stream client and the HTTP API (no `by`) all arrive as ordinary changes.
matrix('remote_change_applied', async (transport) => {
  const d = await daemon();
  const name = `remote-${transport}`;
  await d.put(name, boardDoc(['a', 'b', 'c']));
  const { client, rec } = open(d.url, transport);
  const b = rec.watch(await client.subscribe(name));
  const ws = open(d.url, 'websocket').client;
  const fromWs = await (await ws.subscribe(name)).act({ type: 'setTitle', section: 'a', title: 'from elsewhere' });
  const change = await rec.change((c) => c.rev === fromWs, 5000, `rev ${fromWs}`);
  assert.equal(change.resynced, false);
  assert.deepEqual(change.ops, [{ op: 'replace', path: '/sections/0/title', value: 'from elsewhere' }]);
  assert.equal(change.state.sections[0].title, 'from elsewhere');
  assert.equal(change.by, ws.session, 'by names the session that made it');
  const st = open(d.url, 'stream').client;
  const fromStream = await (await st.subscribe(name)).expand('c');
  const viaStream = await rec.change((c) => c.rev === fromStream, 5000, `rev ${fromStream}`);
  assert.equal(viaStream.state.sections[2].expanded, true);
  assert.equal(viaStream.by, undefined, 'a change made by POST has no by');
  const fromHttp = await d.action(name, { type: 'expand', section: 'b' });
  const viaHttp = await rec.change((c) => c.rev === fromHttp, 5000, `rev ${fromHttp}`);
  assert.equal(viaHttp.state.sections[1].expanded, true);
  assert.equal(viaHttp.by, undefined);
  assertConsecutive(rec, 0, fromWs, fromHttp, 'changes from elsewhere');
  await assertMirror(d, b);
});

matrix('error_is_typed', async (transport) => {
  const d = await daemon();
  const name = `errors-${transport}`;
  await d.put(name, boardDoc(['s0', 's1']));
  const { client, rec } = open(d.url, transport);
  const b = await client.subscribe(name);
  const err = await b.act({ type: 'setTitle', section: 'no-such-section', title: 'x' }).then(
    () => assert.fail('an action on a missing section resolved'), (e) => e);
  assert.ok(err instanceof FoldError, `${err}`);
  assert.ok(err instanceof Error);
  assert.equal(err.code, 'not_found');
  assert.equal(typeof err.message, 'string');
  assert.ok(err.message.length > 0);
  assert.equal(err.board, name);
  const unknown = await b.act({ type: 'fly' }).then(() => null, (e) => e);
  assert.ok(unknown instanceof FoldError);
  assert.equal(unknown.code, 'unknown_type');
  // Still usable: the next action is acknowledged.
  assert.equal(await b.toggle('s0'), b.rev);
  assert.equal(client.state, 'connected');
  assert.deepEqual(rec.errors, []);
  // A board that does not exist is refused at subscribe; the others go on.
  const missing = await client.subscribe('nothing-here').then(() => null, (e) => e);
  assert.ok(missing instanceof FoldError);
  assert.equal(missing.code, 'not_found');
  assert.equal(client.state, 'connected');
  assert.equal(await b.toggle('s1'), b.rev);
  assert.deepEqual(rec.names(), ['connecting', 'connected']);
});

// ---- random actions from several clients at once ----

const WRITERS = 3;
const ACTIONS = 150;
const PERMANENT = ['p0', 'p1'];   // never removed: the refusals on purpose name them
const MAX_SECTIONS = 12;

// One action picked from what this client's copy shows now; `expect` is the
// code it must be refused with (on purpose), or null: then the ack, or
// not_found/invalid when another client changed the board first.
function pick(rnd, state, who, n) {
  const any = (list) => list[Math.floor(rnd() * list.length)];
  const ids = state.sections.map((s) => s.id);
  const id = any(ids);
  const removable = ids.filter((x) => !PERMANENT.includes(x));
  const r = rnd();
  if (r < 0.05) return { action: { type: 'toggle', section: `gone-${who}-${n}` }, expect: 'not_found' };
  if (r < 0.08) return { action: { type: 'setTitle', section: `gone-${who}-${n}`, title: 'x' }, expect: 'not_found' };
  if (r < 0.11) return { action: { type: 'moveSection', section: any(PERMANENT), to: 1000 + n }, expect: 'invalid' };
  if (r < 0.13) return { action: { type: 'addSection', section: { id: any(PERMANENT), title: 'twin', items: [] } }, expect: 'invalid' };
  const kinds = ['toggle', 'toggle', 'expand', 'collapse', 'setTitle', 'setItems', 'moveSection', 'expandAll', 'collapseAll',
    ids.length < MAX_SECTIONS ? 'addSection' : 'toggle', removable.length > 0 ? 'removeSection' : 'expand'];
  switch (any(kinds)) {
    case 'toggle': return { action: { type: 'toggle', section: id } };
    case 'expand': return { action: { type: 'expand', section: id } };
    case 'collapse': return { action: { type: 'collapse', section: id } };
    case 'setTitle': return { action: { type: 'setTitle', section: id, title: `${who} ${n} “${Math.floor(rnd() * 1e6)}”` } };
    case 'setItems': {
      const items = Array.from({ length: Math.floor(rnd() * 4) }, (_, i) => (rnd() < 0.5 ? `${who}-${n}-${i}` : { label: `L${i}`, badge: who }));
      return { action: { type: 'setItems', section: id, items } };
    }
    case 'moveSection': return { action: { type: 'moveSection', section: id, to: Math.floor(rnd() * ids.length) } };
    case 'expandAll': return { action: { type: 'expandAll' } };
    case 'collapseAll': return { action: { type: 'collapseAll' } };
    case 'addSection': return { action: { type: 'addSection', section: { id: `${who}n${n}`, title: `new ${n}`, items: ['i'] } } };
    case 'removeSection': return { action: { type: 'removeSection', section: any(removable) } };
    default: throw new Error('unreachable');
  }
}

async function runActions(board, rnd, who, log) {
  const counts = { acked: 0, refused: 0, raced: 0 };
  for (let n = 0; n < ACTIONS; n++) {
    const { action, expect } = pick(rnd, board.state, who, n);
    try {
      const rev = await board.act(action);
      if (expect) throw new Error(`${who} #${n} ${JSON.stringify(action)}: acked (rev ${rev}), ${expect} expected`);
      assert.ok(Number.isInteger(rev) && board.rev >= rev, `${who} #${n}: rev ${rev} acked before the mirror (at ${board.rev}) saw it`);
      counts.acked += 1;
    } catch (e) {
      if (!(e instanceof FoldError)) throw e;
      if (expect) {
        assert.equal(e.code, expect, `${who} #${n} ${JSON.stringify(action)}: ${e.message}`);
        counts.refused += 1;
      } else {
        // Another client got there first: the section went, or the list got shorter.
        assert.ok(['not_found', 'invalid'].includes(e.code), `${who} #${n} ${JSON.stringify(action)}: ${e.code} ${e.message}`);
        counts.raced += 1;
      }
      assert.ok(e.message.length > 0);
    }
    log.push(action.type);
  }
  return counts;
}

// Three clients on one board, each sending ~150 seeded random actions
// (folds, edits, moves, some refused on purpose) one after another, the
// three interleaving on the daemon. Every client sees every rev once, in
// order, and its mirror equals GET. Reproduce a failure with FOLDSYNC_SEED.
matrix('random actions from three clients at once: every mirror equals GET', async (transport) => {
  const seed = process.env.FOLDSYNC_SEED ? Number(process.env.FOLDSYNC_SEED) : Math.floor(Math.random() * 2 ** 31);
  const d = await daemon();
  const name = `stress-${transport}`;
  await d.put(name, {
    mode: 'multi',
    sections: [...PERMANENT, 'a', 'b', 'c'].map((id, i) => ({ id, title: id.toUpperCase(), items: [`item ${i}`], expanded: i % 2 === 0 })),
  });
  const clients = Array.from({ length: WRITERS }, () => open(d.url, transport));
  const boards = await Promise.all(clients.map(({ client, rec }) => client.subscribe(name).then((b) => rec.watch(b))));
  const starts = boards.map((b) => b.rev);
  const logs = clients.map(() => []);
  try {
    const counts = await Promise.all(boards.map((b, i) => runActions(b, seededRandom(seed + i), `c${i}`, logs[i])));
    const final = await d.board(name);
    for (const [i, b] of boards.entries()) {
      await waitFor(() => b.rev >= final.rev, 10000, () => `client ${i} to reach rev ${final.rev} (at ${b.rev})`);
      assert.equal(b.rev, final.rev, `client ${i}: rev`);
      assert.equal(b.epoch, final.epoch, `client ${i}: epoch`);
      assert.deepStrictEqual(b.confirmed, final.state, `client ${i}: mirror`);
      assert.equal(b.state, b.confirmed, `client ${i}: nothing pending, the confirmed board shown`);
      assertConsecutive(clients[i].rec, 0, starts[i] + 1, final.rev, `client ${i}`);
      assert.ok(clients[i].rec.changes.every((c) => c.resynced === false), `client ${i}: no resync`);
      assert.deepEqual(clients[i].rec.names(), ['connecting', 'connected'], `client ${i}: one connection throughout`);
    }
    const total = counts.reduce((s, c) => ({ acked: s.acked + c.acked, refused: s.refused + c.refused, raced: s.raced + c.raced }));
    assert.ok(total.refused > 0, 'no refusal on purpose was sent');
    assert.ok(total.acked > WRITERS * ACTIONS / 2, `only ${total.acked} acked`);
  } catch (e) {
    console.error(`${transport}: random actions failed with FOLDSYNC_SEED=${seed} (actions sent: ${logs.map((l) => l.length).join(', ')})`);
    e.message = `[FOLDSYNC_SEED=${seed}] ${e.message}`;
    throw e;
  }
});

// ---- resume across a daemon restart ----

// The client is cut off (a relay in between, so the changes below are made
// while it is certainly away); the daemon is killed and started again on the
// same port and store; changes are made; the client comes back while a
// writer keeps changing the board. It gets the missed revs as ordinary
// changes (no snapshot) and then the rest: every rev once, in order.
matrix('resume_since', async (transport) => {
  const d = await ownDaemon();
  await d.put('resume', boardDoc(['a', 'b', 'c']));
  const r = await relay(d);
  const { client, rec } = open(r.url, transport);
  const b = rec.watch(await client.subscribe('resume'));
  await b.toggle('a');
  const before = b.rev;
  const epoch = b.epoch;
  const count = rec.changes.length;
  const from = rec.states.length;
  await r.pause();
  await rec.state('disconnected', 5000, from);
  await d.kill();
  await d.start();
  await d.action('resume', { type: 'setTitle', section: 'b', title: 'while away' });
  await d.action('resume', { type: 'expand', section: 'c' });
  await d.action('resume', { type: 'moveSection', section: 'c', to: 0 });
  // A writer goes on while the client comes back and resubscribes.
  let writing = true;
  let written = 0;
  const writer = (async () => {
    while (writing && written < 200) {
      await d.action('resume', { type: 'toggle', section: written % 2 ? 'a' : 'b' });
      written += 1;
      await sleep(15);
    }
  })();
  const back = rec.states.length;
  await r.resume();
  await rec.state('connected', 15000, back);
  await waitFor(() => rec.changes.length > count + 3 + 5, 5000, 'changes after the return');
  writing = false;
  await writer;
  const last = before + 3 + written;
  await waitFor(() => b.rev === last, 5000, () => `the board to reach rev ${last} (at ${b.rev})`);
  const missed = rec.changes.slice(count);
  assertConsecutive(rec, count, before + 1, last, 'across the restart');
  assert.ok(missed.every((c) => c.resynced === false && Array.isArray(c.ops) && c.epoch === epoch), 'no snapshot: the missed patches');
  assert.equal(missed[0].ops[0].value, 'while away');
  const down = rec.states[from];
  assert.equal(down.state, 'disconnected');
  assert.ok(down.delay > 0 && down.delay <= 10000);
  assert.equal(down.code, transport === 'websocket' ? 1006 : null, 'the close code: the WebSocket\'s, none on a stream');
  assert.equal(client.transport, transport);
  assert.equal(await b.toggle('b'), b.rev, 'live again');
  await assertMirror(d, b);
});

// ---- a JWT that expires, renewed ----

// Tokens of 4 s, no leeway: the first one is dead 4 s in. For 8 s the client
// acts every 250 ms; every action is acknowledged, the board never misses a
// rev and the client never leaves `connected`. On the WebSocket the daemon
// says `authExpiring` (2 s before) and the new token goes in band; on the
// stream the library renews the token before it expires and reopens the
// board's stream with it, resuming at the last rev.
matrix('token_refreshed_on_auth_expiring', async (transport) => {
  const { d, mint } = await jwtDaemon(['--jwt-refresh-before', '2', '--jwt-leeway', '0']);
  cleanups.push(() => d.dispose());
  const issued = [];
  const token = () => {
    const exp = Math.floor(Date.now() / 1000) + 4;
    issued.push(exp);
    return mint({ sub: 'js', exp, foldsync: { '*': ['read', 'fold', 'edit', 'admin'] } });
  };
  const watcher = streamWatcher();
  const { client, rec } = open(d.url, transport, { token, fetch: watcher.fetch });
  const expiring = [];
  client.on('authExpiring', (e) => expiring.push(e));
  const b = rec.watch(await client.subscribe('default'));
  const connectedAt = rec.names().indexOf('connected');
  const firstExpiry = issued[0] * 1000;
  const start = b.rev;
  let acked = 0;
  while (Date.now() < firstExpiry + 4000) {
    const rev = await b.toggle(`s${acked % 3}`);
    assert.equal(rev, start + acked + 1, 'acknowledged, in order');
    acked += 1;
    await sleep(250);
  }
  assert.ok(acked >= 20, `${acked} actions`);
  assert.deepEqual(rec.names().slice(connectedAt), ['connected'], `the connection outlived the first token: ${JSON.stringify(rec.states)}`);
  assert.ok(issued.length >= 3, `the token function was asked ${issued.length} time(s) in ${acked * 0.25} s`);
  assertConsecutive(rec, 0, start + 1, start + acked, 'while the tokens expired');
  if (transport === 'websocket') {
    assert.ok(expiring.length >= 2, 'the daemon sent authExpiring');
    assert.ok(rec.authenticated.length >= 3, 'the renewed tokens were accepted');
    assert.equal(typeof rec.authenticated[0].expires, 'number', 'authenticated carries expires');
  } else {
    assert.deepEqual(expiring, [], 'no authExpiring on a stream');
    assert.ok(watcher.streams.length >= 3, `the stream was reopened with each new token (${watcher.streams.length} opened)`);
    assert.ok(watcher.streams.every((s) => s.status === 200), 'every reopened stream was accepted');
  }
  // A change from elsewhere still arrives, after all that.
  const theirs = await d.action('default', { type: 'setTitle', section: 's1', title: 'later' }, mint({ sub: 'http', exp: Math.floor(Date.now() / 1000) + 60, foldsync: { '*': ['read', 'edit'] } }));
  await rec.change((c) => c.rev === theirs, 5000, `rev ${theirs}`);
});

// ---- a board deleted and created again ----

matrix('resync_epoch_changed', async (transport) => {
  const d = await daemon();
  const name = `epochs-${transport}`;
  await d.put(name, boardDoc(['a', 'b']));
  const r = await relay(d);
  const { client, rec } = open(r.url, transport);
  const b = rec.watch(await client.subscribe(name));
  const deleted = [];
  b.on('deleted', (e) => deleted.push(e));
  const oldEpoch = b.epoch;
  // While the client is away.
  let count = rec.changes.length;
  let from = rec.states.length;
  await r.pause();
  await rec.state('disconnected', 5000, from);
  await d.remove(name);
  await d.put(name, boardDoc(['new']));
  from = rec.states.length;
  await r.resume();
  await rec.state('connected', 15000, from);
  const change = await rec.change((c, i) => i >= count, 5000, 'the resync');
  assert.deepEqual([change.resynced, change.reason, change.ops], [true, 'epoch', null]);
  assert.notEqual(change.epoch, oldEpoch);
  assert.deepEqual(change.state.sections.map((s) => s.id), ['new']);
  await sleep(200);
  assert.equal(rec.changes.length, count + 1, 'one change: the resync');
  await assertMirror(d, b);
  // While connected: `deleted`, the copy emptied, then a resync named epoch too.
  count = rec.changes.length;
  const epoch2 = b.epoch;
  await d.remove(name);
  await waitFor(() => deleted.length === 1, 5000, 'deleted');
  assert.deepEqual([b.state, b.rev, b.epoch], [null, null, null]);
  await d.put(name, boardDoc(['again']));
  const again = await rec.change((c, i) => i >= count, 5000, 'the snapshot after deleted');
  assert.deepEqual([again.resynced, again.reason], [true, 'epoch']);
  assert.notEqual(again.epoch, epoch2);
  await assertMirror(d, b);
  // And live on the new epoch.
  assert.equal(await b.expand('again'), b.rev);
  await assertMirror(d, b);
});

// ---- presence ----

// Another viewer on each transport joins, then leaves: the library's
// `viewers` follows. A WebSocket viewer that leaves is counted out at once;
// a stream reader that closes its stream, within about a second (the daemon
// looks at an event stream's socket once a second), on a quiet board too.
// follow(false) lowers `following` on a WebSocket; on a stream it cannot be
// said, and the viewer keeps following.
matrix('presence: viewers seen by the library as others join and leave', async (transport) => {
  const d = await daemon();
  const name = `seen-${transport}`;
  await d.put(name, boardDoc(['a']));
  const { client, rec } = open(d.url, transport);
  const b = rec.watch(await client.subscribe(name));
  await waitFor(() => b.viewers === 1 && b.following === 1, 5000, () => `presence 1/1 (have ${b.viewers}/${b.following})`);
  const ws = open(d.url, 'websocket');
  await ws.client.subscribe(name);
  await waitFor(() => b.viewers === 2, 5000, () => `a WebSocket viewer joined (viewers ${b.viewers})`);
  const st = open(d.url, 'stream');
  await st.client.subscribe(name);
  await waitFor(() => b.viewers === 3 && b.following === 3, 5000, () => `a stream viewer joined (have ${b.viewers}/${b.following})`);
  client.follow(false);
  if (transport === 'websocket') {
    await waitFor(() => b.following === 2, 5000, () => `one fewer following (have ${b.following})`);
  } else {
    await sleep(500);
    assert.equal(b.following, 3, 'a stream viewer always follows');
  }
  client.follow(true);
  await waitFor(() => b.following === 3, 5000, () => `all following again (have ${b.following})`);
  ws.client.close();
  await waitFor(() => b.viewers === 2, 2000, () => `the WebSocket viewer left (viewers ${b.viewers})`);
  st.client.close();
  await waitFor(() => b.viewers === 1, 4000, () => `the stream viewer left (viewers ${b.viewers})`);
  const seen = rec.presence.map((p) => p.viewers);
  for (const n of [1, 2, 3]) assert.ok(seen.includes(n), `viewers ${n} seen: ${seen}`);
  assert.equal(seen.at(-1), 1);
  assert.deepEqual(rec.names(), ['connecting', 'connected']);
});
