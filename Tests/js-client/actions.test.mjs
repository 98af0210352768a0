// The contract's cases on one connection that stays up, over the
// WebSocket: the helpers, follow and focus. One daemon for the file. The
// cases that hold on both transports are in matrix.test.mjs.

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
