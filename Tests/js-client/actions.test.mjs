// The contract's cases on one connection that stays up: acks, typed
// errors, the helpers, follow and focus, over the WebSocket (the stream's
// are in stream.test.mjs; subscribe and the cases of both in
// matrix.test.mjs). One daemon for the file.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, assertMirror as mirrorEqualsGet, waitFor } from './daemon.mjs';
import { Recorder } from './recorder.mjs';

let daemon;
const clients = [];
before(async () => { daemon = await Daemon.start(); });
after(async () => { for (const c of clients) c.close(); await daemon?.dispose(); });

function open() {
  const client = connect(daemon.url);
  clients.push(client);
  return { client, rec: new Recorder(client) };
}

const sections = (ids, extra = {}) => ids.map((id) => ({ id, title: id.toUpperCase(), items: ['one', 'two'], expanded: false, ...extra }));

const assertMirror = (board) => mirrorEqualsGet(daemon, board);

test('ack_resolves_with_rev', async () => {
  await daemon.put('acks', { mode: 'single', sections: sections(['a', 'b', 'c']) });
  const { client, rec } = open();
  const board = rec.watch(await client.subscribe('acks'));
  const start = board.rev;
  let seenAtAck = null;
  const rev = await board.toggle('b').then((r) => { seenAtAck = rec.changes.map((c) => c.rev); return r; });
  assert.equal(rev, start + 1);
  assert.deepEqual(seenAtAck, [rev], 'the change for the acked rev came before the ack');
  assert.equal(board.rev, rev);
  assert.equal(board.state.sections[1].expanded, true);
  // A no-op is acknowledged with the current rev and makes no change.
  assert.equal(await board.expand('b'), rev);
  assert.equal(rec.changes.length, 1);
  await assertMirror(board);
});

test('remote_change_applied', async () => {
  await daemon.put('remote', { mode: 'multi', sections: sections(['a', 'b']) });
  const { client, rec } = open();
  const board = rec.watch(await client.subscribe('remote'));
  const other = open().client;
  const theirs = await other.subscribe('remote');
  const rev = await theirs.act({ type: 'setTitle', section: 'a', title: 'from elsewhere' });
  const change = await rec.change((c) => c.rev === rev, 5000, `rev ${rev}`);
  assert.equal(change.resynced, false);
  assert.deepEqual(change.ops, [{ op: 'replace', path: '/sections/0/title', value: 'from elsewhere' }]);
  assert.equal(change.state.sections[0].title, 'from elsewhere');
  assert.equal(change.by, other.session, 'by names the session that made it');
  // And one made over HTTP.
  const httpRev = await daemon.action('remote', { type: 'expand', section: 'b' });
  const viaHttp = await rec.change((c) => c.rev === httpRev, 5000, `rev ${httpRev}`);
  assert.equal(viaHttp.state.sections[1].expanded, true);
  assert.equal(viaHttp.by, undefined);
  await assertMirror(board);
});

test('error_is_typed', async () => {
  const { client, rec } = open();
  const board = await client.subscribe('default');
  const err = await board.act({ type: 'setTitle', section: 'no-such-section', title: 'x' }).then(
    () => assert.fail('an action on a missing section resolved'), (e) => e);
  assert.ok(err instanceof FoldError, `${err}`);
  assert.ok(err instanceof Error);
  assert.equal(err.code, 'not_found');
  assert.equal(typeof err.message, 'string');
  assert.ok(err.message.length > 0);
  assert.equal(err.board, 'default');
  const bad = await board.toggle('').then(() => null, (e) => e);
  assert.ok(bad instanceof FoldError && typeof bad.code === 'string', 'another refusal is typed too');
  // Still usable: the next action is acknowledged.
  const rev = await board.toggle('s0');
  assert.equal(rev, board.rev);
  assert.equal(client.state, 'connected');
  assert.deepEqual(rec.errors, []);
  // A board that does not exist is refused at subscribe.
  const missing = await client.subscribe('nothing-here').then(() => null, (e) => e);
  assert.ok(missing instanceof FoldError);
  assert.equal(missing.code, 'not_found');
});

test('helpers', async () => {
  await daemon.put('helpers', { mode: 'multi', sections: sections(['a', 'b', 'c']) });
  const { client, rec } = open();
  const board = rec.watch(await client.subscribe('helpers'));
  const open_ = () => board.state.sections.filter((s) => s.expanded).map((s) => s.id);
  const step = async (promise) => {
    const rev = await promise;
    assert.equal(typeof rev, 'number');
    assert.equal(rev, board.rev, 'resolves with the rev the mirror is at');
    return rev;
  };
  const r0 = board.rev;
  await step(board.expand('a')); assert.deepEqual(open_(), ['a']);
  await step(board.collapse('a')); assert.deepEqual(open_(), []);
  const all = await step(board.expandAll()); assert.deepEqual(open_(), ['a', 'b', 'c']);
  const none = await step(board.collapseAll()); assert.deepEqual(open_(), []);
  assert.equal(none, all + 1);
  await step(board.focus('b', 1));
  assert.deepEqual(board.state.focus, { section: 'b', item: 1 });
  assert.deepEqual(open_(), ['b'], 'focus expands its section');
  const cleared = await step(board.clearFocus());
  assert.equal('focus' in board.state, false);
  const undone = await step(board.revert(cleared));
  assert.equal(undone, cleared + 1);
  assert.deepEqual(board.state.focus, { section: 'b', item: 1 }, 'reverting clearFocus brings the focus back');
  const page = await board.history({ since: r0 });
  assert.equal(page.board, 'helpers');
  assert.deepEqual(page.entries.map((e) => e.rev), Array.from({ length: undone - r0 }, (_, i) => r0 + 1 + i));
  assert.deepEqual(page.entries.map((e) => e.action.type),
    ['expand', 'collapse', 'expandAll', 'collapseAll', 'focus', 'clearFocus', 'revert']);
  const last = await board.history({ limit: 1 });
  assert.deepEqual(last.entries.map((e) => e.rev), [undone]);
  const refused = await board.history({ limit: 0 }).then(() => null, (e) => e);
  assert.ok(refused instanceof FoldError);
  assert.equal(refused.code, 'bad_request');
  await assertMirror(board);
});

test('follow_and_focus', async () => {
  await daemon.put('present', { mode: 'single', sections: sections(['a', 'b']) });
  const presenter = open();
  const viewer = open();
  const mine = presenter.rec.watch(await presenter.client.subscribe('present'));
  const theirs = viewer.rec.watch(await viewer.client.subscribe('present'));
  const rev = await mine.focus('b', 0);
  const seen = await viewer.rec.change((c) => c.rev === rev, 5000, 'the focus at the other client');
  assert.deepEqual(seen.state.focus, { section: 'b', item: 0 });
  assert.deepEqual(theirs.state.focus, { section: 'b', item: 0 });
  // Both follow (the default); then the viewer browses.
  await waitFor(() => mine.viewers === 2 && mine.following === 2, 5000, `presence 2/2 (have ${mine.viewers}/${mine.following})`);
  viewer.client.follow(false);
  await waitFor(() => mine.viewers === 2 && mine.following === 1, 5000, `presence 2 viewers, 1 following (have ${mine.viewers}/${mine.following})`);
  const last = presenter.rec.presence.at(-1);
  assert.deepEqual({ viewers: last.viewers, following: last.following }, { viewers: 2, following: 1 });
  viewer.client.follow(true);
  await waitFor(() => mine.following === 2, 5000, 'following back to 2');
  await mine.clearFocus();
});
