// Every refusal an action can get, as a typed FoldError carrying the
// protocol's code and the daemon's (non-empty) words: over the WebSocket
// (an `error` matched by id) and over the stream (a POST's answer), each
// against a real daemon. rate_limited is the WebSocket's alone (the limit
// is per connection); the daemon names the refused action's id, and the
// library settles exactly that action.
//
// One daemon at a time: each is stopped before the next starts.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, sleep } from './daemon.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

const READER = 'reader-secret-0123456789';
const ADMIN = 'admin-secret-0123456789';
const hash = (s) => createHash('sha256').update(s).digest('hex');

const sections = (ids) => ids.map((id) => ({ id, title: id.toUpperCase(), items: ['one'], expanded: false }));

// What the daemon must answer, the same on both transports.
function refusals(rev) {
  return [
    ['bad_request', { type: 'setTitle', section: 'a', title: 5 }],
    ['unknown_type', { type: 'frobnicate' }],
    ['not_found', { type: 'toggle', section: 'no-such-section' }],
    ['conflict', { type: 'toggle', section: 'a', ifRev: rev + 1000 }],
    ['invalid', { type: 'moveSection', section: 'a', to: 99 }],
  ];
}

async function expectRefusal(promise, code, board, transport) {
  const e = await promise.then(
    (rev) => assert.fail(`${transport}: ${code} expected, the action was acked with rev ${rev}`),
    (err) => err);
  assert.ok(e instanceof FoldError, `${transport}: ${code}: not a FoldError: ${e}`);
  assert.equal(e.code, code, `${transport}: ${e.message}`);
  assert.equal(typeof e.message, 'string');
  assert.ok(e.message.length > 0, `${transport}: ${code} without words`);
  assert.equal(e.board, board, `${transport}: ${code} names another board`);
  return e;
}

async function withDaemon(args, body) {
  const d = await Daemon.start(args);
  try { await body(d); } finally { await d.dispose(); }
}

for (const transport of ['websocket', 'stream']) {
  test(`every refusal of an action is a typed FoldError (${transport})`, async () => {
    await withDaemon(['--token', `reader read ${hash(READER)}`, '--token', `admin read,fold,edit,admin ${hash(ADMIN)}`], async (d) => {
      await d.put('errs', { mode: 'multi', sections: sections(['a', 'b']) }, ADMIN);
      const admin = connect(d.url, { transport, token: ADMIN });
      const reader = connect(d.url, { transport, token: () => READER });
      cleanups.push(() => admin.close(), () => reader.close());
      const board = await admin.subscribe('errs');
      for (const [code, action] of refusals(board.rev)) {
        await expectRefusal(board.act(action), code, 'errs', transport);
      }
      // The refusals changed nothing, and the connection still works.
      const rev = await board.toggle('a');
      assert.equal(rev, board.rev);
      assert.equal(board.state.sections[0].expanded, true);
      // A read-only token: it may subscribe, and every fold or edit is forbidden.
      const seen = await reader.subscribe('errs');
      assert.equal(seen.rev, rev);
      for (const action of [{ type: 'toggle', section: 'a' }, { type: 'setTitle', section: 'a', title: 'x' }, { type: 'expandAll' }]) {
        await expectRefusal(seen.act(action), 'forbidden', 'errs', transport);
      }
      assert.equal((await d.board('errs', ADMIN)).rev, rev, 'a refused action changed the board');
    });
  });
}

test('rate_limited is matched to the refused action by its id (websocket)', async () => {
  await withDaemon(['--max-actions-per-second', '1', '--action-burst', '2'], async (d) => {
    await d.put('rl', { mode: 'multi', sections: sections(['a']) });
    const client = connect(d.url, { transport: 'websocket' });
    cleanups.push(() => client.close());
    const named = [];
    client.on('message', (m) => { if (m.type === 'error' && m.code === 'rate_limited') named.push(m); });
    const states = [];
    client.on('state', (s) => states.push(s.state));
    const board = await client.subscribe('rl');
    // Ten at once on a bucket of two (the subscribe took one): most are refused.
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => board.toggle('a').then(
      (rev) => ({ rev }), (error) => ({ error }))));
    const acked = outcomes.filter((o) => 'rev' in o);
    const refused = outcomes.filter((o) => 'error' in o);
    assert.ok(acked.length >= 1, 'nothing got through');
    assert.ok(refused.length >= 5, `only ${refused.length} refused at 1 per second`);
    for (const { error } of refused) {
      assert.ok(error instanceof FoldError);
      assert.equal(error.code, 'rate_limited', error.message);
      assert.ok(error.message.length > 0);
      assert.equal(error.board, 'rl');
    }
    // Each refusal named an action's id, each such action was refused, and nothing waits any more.
    assert.equal(named.length, refused.length);
    assert.ok(named.every((m) => typeof m.id === 'string' && m.board === 'rl'), JSON.stringify(named));
    assert.equal(new Set(named.map((m) => m.id)).size, named.length);
    assert.equal(client.pending.size, 0, 'an action still waits for its answer');
    assert.deepEqual([...states], ['connecting', 'connected'], 'the connection dropped');
    // The acked ones took effect one rev each, and the connection goes on once the bucket refills.
    assert.deepEqual(acked.map((o) => o.rev).sort((x, y) => x - y), acked.map((_, i) => i + 1));
    await sleep(2100);
    assert.equal(await board.toggle('a'), acked.length + 1);
  });
});
