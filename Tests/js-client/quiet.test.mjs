// The stream transport on a quiet board, for three minutes: the event
// stream stays open (the daemon's heartbeat every 15 s, its default, is all
// that comes), so the client stays `connected` and never reconnects; a
// change made at the end still arrives, in order, as an ordinary change.
// Its own file: node runs it beside the other files instead of after them.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../clients/js/foldsync.js';
import { Daemon, assertMirror, boardDoc, sleep } from './daemon.mjs';
import { Recorder, streamWatcher } from './recorder.mjs';

const QUIET_MS = 180000;
const HEARTBEAT_S = 15;   // foldsyncd's --stream-heartbeat default, left as it is

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

async function metric(d, name) {
  const text = await (await fetch(`${d.base}/metrics`)).text();
  const lines = text.split('\n').filter((l) => l.startsWith(name));
  return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

test('stream: a quiet board stays connected for three minutes, no reconnect', { timeout: QUIET_MS + 60000 }, async () => {
  const d = await Daemon.start();
  cleanups.push(() => d.dispose());
  await d.put('quiet', boardDoc(['a', 'b']));
  const watcher = streamWatcher();
  const client = connect(d.url, { transport: 'stream', fetch: watcher.fetch });
  cleanups.push(() => client.close());
  const rec = new Recorder(client);
  const b = rec.watch(await client.subscribe('quiet'));
  const start = b.rev;
  const connectedAt = rec.names().indexOf('connected');
  assert.ok(connectedAt >= 0);
  const from = Date.now();

  // Nothing happens on the board; look every second, so a drop is caught when it happens.
  while (Date.now() - from < QUIET_MS) {
    await sleep(1000);
    const after = rec.states.slice(connectedAt + 1);
    assert.deepEqual(after, [], `after ${Math.round((Date.now() - from) / 1000)} s quiet the client reported ${JSON.stringify(after)}`);
  }
  assert.equal(client.state, 'connected');
  assert.equal(client.transport, 'stream');
  assert.deepEqual(rec.names(), ['connecting', 'connected']);
  assert.equal(watcher.streams.length, 1, `the event stream was opened ${watcher.streams.length} times`);
  assert.equal(await metric(d, 'foldsync_event_streams_opened_total'), 1, 'the daemon opened one stream');
  assert.equal(await metric(d, 'foldsync_event_streams_ended_total'), 0, 'the daemon ended no stream');
  assert.equal(await metric(d, 'foldsync_event_streams '), 1, 'the stream is still open at the daemon');

  // The heartbeat kept it company: one every 15 s, no gap long enough for the client's idle limit (45 s).
  const beats = watcher.heartbeats.map((h) => h.at);
  const expected = Math.floor(QUIET_MS / 1000 / HEARTBEAT_S);
  assert.ok(beats.length >= expected - 1 && beats.length <= expected + 1, `${beats.length} heartbeats in ${QUIET_MS / 1000} s (about ${expected} expected)`);
  const gaps = beats.map((t, i) => t - (i === 0 ? watcher.streams[0].at : beats[i - 1]));
  assert.ok(Math.max(...gaps) < (HEARTBEAT_S + 5) * 1000, `a gap of ${Math.max(...gaps)} ms between heartbeats`);
  assert.deepEqual(rec.changes, [], 'nothing changed on the quiet board');

  // A change made at the end (by someone else) arrives on the same stream, then one of ours.
  const theirs = await d.action('quiet', { type: 'setTitle', section: 'b', title: 'after three quiet minutes' });
  assert.equal(theirs, start + 1);
  const change = await rec.change((c) => c.rev === theirs, 5000, `rev ${theirs}`);
  assert.equal(change.resynced, false);
  assert.deepEqual(change.ops, [{ op: 'replace', path: '/sections/1/title', value: 'after three quiet minutes' }]);
  assert.equal(await b.toggle('a'), start + 2);
  assert.deepEqual(rec.changes.map((c) => c.rev), [start + 1, start + 2]);
  await assertMirror(d, b);
  assert.equal(watcher.streams.length, 1, 'still the one stream');
  assert.deepEqual(rec.names(), ['connecting', 'connected']);
});
