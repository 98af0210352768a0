// Optimistic state against the real daemon (docs/CLIENTS.md, "Optimistic
// state"), through the relay with latency each way, so that an action's
// answer is a round trip away: `board.state` shows an action the moment it
// is called, never shows it applied twice while its patch and ack come in,
// equals `board.confirmed` once answered, and takes a refused action back
// out with a `local` change that says so. On both transports
// (`ID [transport]`): the stream's patches carry no `by`. Offline, an
// action is shown too, and a cancel rolls it back.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, applyAction, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, assertMirror, boardDoc, seededRandom, waitFor } from './daemon.mjs';
import { Relay } from './relay.mjs';
import { Recorder } from './recorder.mjs';

const TRANSPORTS = ['websocket', 'stream'];
// Each way: a round trip is at least twice this.
const DELAY_MS = 80;

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

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

// A client through a relay that adds DELAY_MS each way, subscribed to `name`.
async function slowBoard(d, name, transport) {
  const relay = await Relay.start(d.port, { delayMs: DELAY_MS });
  cleanups.push(() => relay.close());
  const client = connect(relay.url, { transport });
  cleanups.push(() => client.close());
  const rec = new Recorder(client);
  const board = rec.watch(await client.subscribe(name));
  return { client, rec, board };
}

const expanded = (doc, id) => doc.sections.find((s) => s.id === id)?.expanded;

matrix('optimistic_toggle_shows_before_its_ack', async (transport) => {
  const d = await daemon();
  const name = `shown-${transport}`;
  await d.put(name, boardDoc(['s0', 's1', 's2']));
  const { rec, board } = await slowBoard(d, name, transport);
  const rev = board.rev;
  const confirmed = board.confirmed;

  const answer = board.toggle('s1');
  // Synchronously: no message could have come back yet.
  assert.equal(expanded(board.state, 's1'), true, 'shown open at once');
  assert.equal(board.confirmed, confirmed, 'the confirmed board is the daemon’s, untouched');
  assert.equal(expanded(board.confirmed, 's1'), false);
  assert.equal(board.rev, rev);
  assert.equal(board.pending.length, 1);
  assert.deepEqual(board.pending[0].action, { type: 'toggle', section: 's1' });
  assert.equal(rec.locals.length, 1, 'a local change told it');
  const local = rec.locals[0];
  assert.equal(local.local, true);
  assert.equal(local.ops, null);
  assert.equal(local.rev, rev);
  assert.equal(local.state, board.state);
  assert.equal(local.confirmed, confirmed);

  const acked = await answer;
  assert.equal(acked, rev + 1);
  assert.equal(board.rev, acked);
  assert.equal(board.pending.length, 0);
  assert.equal(board.state, board.confirmed, 'answered: the shown board is the confirmed one itself');
  assert.equal(expanded(board.state, 's1'), true);
  const daemonChange = rec.changes.find((c) => c.rev === acked);
  assert.ok(daemonChange, 'the daemon’s change came as ever');
  assert.deepEqual(daemonChange.ops, [{ op: 'replace', path: '/sections/1/expanded', value: true }], 'ops as the daemon sent them');
  assert.equal(expanded(daemonChange.confirmed, 's1'), true);
  await assertMirror(d, board);
});

// Actions called one after another, each before the one before was
// answered: whatever comes in between (a patch of ours, an ack), the shown
// board is always the first board with every action called so far applied,
// so a toggle is never shown flipped twice (or not at all).
matrix('optimistic_never_shows_an_action_twice', async (transport) => {
  const d = await daemon();
  for (const mode of ['multi', 'single']) {
    const name = `twice-${transport}-${mode}`;
    await d.put(name, boardDoc(['a', 'b', 'c', 'd'], mode));
    const { rec, board } = await slowBoard(d, name, transport);
    const rnd = seededRandom(mode === 'multi' ? 7 : 11);
    const ids = ['a', 'b', 'c', 'd'];
    const expected = [board.state];
    const seen = [];
    board.on('change', (c) => seen.push({ state: c.state, called: expected.length - 1, local: c.local === true }));
    const answers = [];
    for (let i = 0; i < 24; i++) {
      const r = rnd();
      const action = r < 0.7 ? { type: 'toggle', section: ids[Math.floor(rnd() * ids.length)] }
        : r < 0.85 ? { type: 'collapseAll' } : { type: 'expand', section: ids[Math.floor(rnd() * ids.length)] };
      // Counted before the call: the local change fires inside it.
      expected.push(applyAction(expected[expected.length - 1], action).board);
      answers.push(board.act(action));
      assert.deepStrictEqual(board.state, expected[expected.length - 1], `${mode}: action ${i} shown at once`);
      // Some at once, some after a pause shorter than a round trip, some after one.
      const wait = rnd() < 0.4 ? 0 : rnd() * DELAY_MS * 3;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await Promise.all(answers);
    assert.equal(board.pending.length, 0);
    assert.ok(rec.changes.length > 0 && seen.some((s) => !s.local), `${mode}: the daemon’s changes came`);
    for (const [n, s] of seen.entries()) {
      assert.deepStrictEqual(s.state, expected[s.called],
        `${mode}: change ${n} (${s.local ? 'local' : 'the daemon’s'}) showed a board that is not the one with the ${s.called} actions called applied`);
    }
    assert.deepStrictEqual(board.state, expected[expected.length - 1]);
    assert.equal(board.state, board.confirmed);
    await assertMirror(d, board);
  }
});

// Another client removes the section while our toggle of it is on its way:
// the daemon refuses the toggle (not_found), and the board takes it out.
matrix('optimistic_refused_action_is_rolled_back', async (transport) => {
  const d = await daemon();
  const name = `refused-${transport}`;
  await d.put(name, boardDoc(['s0', 's1', 's2']));
  const { rec, board } = await slowBoard(d, name, transport);

  const answer = board.toggle('s2');
  const outcome = answer.then(() => null, (e) => e);
  assert.equal(expanded(board.state, 's2'), true, 'shown open at once');
  // Straight to the daemon: it lands well before the toggle crosses the relay.
  const removedAt = await d.action(name, { type: 'removeSection', section: 's2' });

  const error = await outcome;
  assert.ok(error instanceof FoldError, `the toggle is refused (got ${error})`);
  assert.equal(error.code, 'not_found');
  const back = await waitFor(() => rec.locals.find((c) => c.rolledBack), 1000, 'the rollback told');
  assert.equal(back.rolledBack.error, error, 'the very error the promise rejected with');
  assert.deepEqual(back.rolledBack.action, { type: 'toggle', section: 's2' });
  assert.equal(typeof back.rolledBack.key, 'string');
  assert.equal(back.local, true);
  assert.equal(back.ops, null);
  assert.equal(back.rev, removedAt);
  assert.deepEqual(back.state.sections.map((s) => s.id), ['s0', 's1']);
  assert.equal(board.pending.length, 0);
  assert.equal(board.state, board.confirmed, 'rolled back: the confirmed board shown');
  await assertMirror(d, board);
});

// Offline, an action is kept by the outbox and shown all the same; cancelled
// before it could be sent, it is rolled back with the outbox's `expired`.
test('optimistic_offline_action_shown_then_cancelled', async () => {
  const d = await daemon();
  const name = 'offline';
  await d.put(name, boardDoc(['s0', 's1']));
  const relay = await Relay.start(d.port);
  cleanups.push(() => relay.close());
  const client = connect(relay.url, { transport: 'websocket', random: () => 0 });
  cleanups.push(() => client.close());
  const rec = new Recorder(client);
  const board = rec.watch(await client.subscribe(name));
  await relay.pause();
  await waitFor(() => client.state !== 'connected', 5000, 'the client to see the cut');

  const ctl = new AbortController();
  const outcome = board.expand('s0', { signal: ctl.signal }).then(() => null, (e) => e);
  assert.equal(expanded(board.state, 's0'), true, 'shown while offline');
  assert.equal(expanded(board.confirmed, 's0'), false);
  ctl.abort();
  const error = await outcome;
  assert.equal(error?.code, 'expired');
  const back = rec.locals.find((c) => c.rolledBack);
  assert.ok(back, 'the rollback told');
  assert.equal(back.rolledBack.error, error);
  assert.equal(expanded(back.state, 's0'), false);
  assert.equal(board.state, board.confirmed);
  await relay.resume();
  await waitFor(() => client.state === 'connected', 15000, 'the client back');
  await assertMirror(d, board);
  assert.equal(expanded(board.confirmed, 's0'), false, 'never sent, never applied');
});

// The link cut after the daemon committed each toggle and before its answer
// came: the client resumes by the missed patches (made `by` the old
// connection's session) and resends with the same key (a duplicate ack).
// Every change shows the toggle once: the old session's patch is ours too.
test('optimistic_cut_between_commit_and_ack_never_shows_twice', async () => {
  const d = await daemon();
  const name = 'cut-once';
  await d.put(name, boardDoc(['s0', 's1']));
  const relay = await Relay.start(d.port);
  cleanups.push(() => relay.close());
  const client = connect(relay.url, { transport: 'websocket', random: () => 0 });
  cleanups.push(() => client.close());
  const rec = new Recorder(client);
  const board = rec.watch(await client.subscribe(name));
  for (let round = 1; round <= 6; round++) {
    let cut = false;
    relay.onKeyed = () => (cut ? 'pass' : ((cut = true), 'after'));
    const before = expanded(board.state, 's1');
    const seen = rec.changes.length + rec.locals.length;
    const all = [];
    const listener = (c) => all.push(expanded(c.state, 's1'));
    board.on('change', listener);
    await board.toggle('s1');
    await waitFor(() => expanded(board.confirmed, 's1') === !before, 5000, 'the toggle confirmed');
    board.off('change', listener);
    assert.ok(rec.changes.length + rec.locals.length > seen);
    assert.deepEqual([...new Set(all)], [!before], `round ${round}: every change shows the toggle once (${all})`);
  }
  assert.ok(relay.cuts >= 6, `cut ${relay.cuts} times`);
  await assertMirror(d, board);
});
