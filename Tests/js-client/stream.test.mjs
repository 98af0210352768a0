// The stream transport (clients/js/stream-transport.js) forced with
// transport: "stream", against the real daemon: the contract's core cases
// over Server-Sent Events and POST — acks as revs, remote changes, typed
// errors, tokens as a bearer header, a long-lived JWT left alone — and a
// daemon that stops. Subscribe,
// resume, resyncs, JWT renewal and presence are in matrix.test.mjs, on both
// transports.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, assertMirror, boardDoc as board, jwtDaemon, sleep } from './daemon.mjs';
import { Recorder, streamWatcher } from './recorder.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

let shared = null;
async function daemon(args) {
  if (!args && shared) return shared;
  const d = await Daemon.start(args ?? []);
  cleanups.push(() => d.dispose());
  if (!args) shared = d;
  return d;
}
function open(url, options = {}) {
  const client = connect(url, { transport: 'stream', ...options });
  cleanups.push(() => client.close());
  return { client, rec: new Recorder(client) };
}

test('stream: ack_resolves_with_rev', async () => {
  const d = await daemon();
  await d.put('acks', board(['a', 'b', 'c'], 'single'));
  const { client, rec } = open(d.url);
  const b = rec.watch(await client.subscribe('acks'));
  const start = b.rev;
  for (let i = 1; i <= 5; i++) {
    let seenAtAck = null;
    const rev = await b.toggle('b').then((r) => { seenAtAck = rec.changes.map((c) => c.rev); return r; });
    assert.equal(rev, start + i);
    assert.deepEqual(seenAtAck, Array.from({ length: i }, (_, k) => start + 1 + k), 'the change for the acked rev came before the ack');
    assert.equal(b.rev, rev);
  }
  // A no-op resolves with the current rev and makes no change.
  assert.equal(await b.collapse('a'), b.rev);
  assert.equal(rec.changes.length, 5);
  // Several at once: each resolves with its own rev, every change seen first.
  const revs = await Promise.all(['a', 'b', 'c'].map((s) => b.toggle(s)));
  assert.deepEqual([...revs].sort((x, y) => x - y), [start + 6, start + 7, start + 8]);
  assert.ok(b.rev >= Math.max(...revs));
  // An action on a board the client does not watch.
  await d.put('elsewhere', board(['x']));
  assert.equal(await client.act('elsewhere', { type: 'expand', section: 'x' }), (await d.board('elsewhere')).rev);
  await assertMirror(d, b);
});

test('stream: remote_change_applied', async () => {
  const d = await daemon();
  await d.put('remote', board(['a', 'b']));
  const { client, rec } = open(d.url);
  const b = rec.watch(await client.subscribe('remote'));
  // One made on a WebSocket by another client, one over HTTP.
  const other = connect(d.url, { transport: 'websocket' });
  cleanups.push(() => other.close());
  const theirs = await other.subscribe('remote');
  const rev = await theirs.act({ type: 'setTitle', section: 'a', title: 'from elsewhere' });
  const change = await rec.change((c) => c.rev === rev, 5000, `rev ${rev}`);
  assert.equal(change.resynced, false);
  assert.deepEqual(change.ops, [{ op: 'replace', path: '/sections/0/title', value: 'from elsewhere' }]);
  assert.equal(change.state.sections[0].title, 'from elsewhere');
  assert.equal(change.by, other.session);
  const httpRev = await d.action('remote', { type: 'expand', section: 'b' });
  const viaHttp = await rec.change((c) => c.rev === httpRev, 5000, `rev ${httpRev}`);
  assert.equal(viaHttp.state.sections[1].expanded, true);
  await assertMirror(d, b);
});

test('stream: error_is_typed', async () => {
  const d = await daemon();
  const { client, rec } = open(d.url);
  const b = await client.subscribe('default');
  const err = await b.act({ type: 'setTitle', section: 'no-such-section', title: 'x' }).then(
    () => assert.fail('an action on a missing section resolved'), (e) => e);
  assert.ok(err instanceof FoldError, `${err}`);
  assert.equal(err.code, 'not_found');
  assert.ok(err.message.length > 0);
  assert.equal(err.board, 'default');
  const unknown = await b.act({ type: 'fly' }).then(() => null, (e) => e);
  assert.equal(unknown?.code, 'unknown_type');
  const rev = await b.toggle('s0');
  assert.equal(rev, b.rev);
  assert.equal(client.state, 'connected');
  assert.deepEqual(rec.errors, []);
  const missing = await client.subscribe('nothing-here').then(() => null, (e) => e);
  assert.ok(missing instanceof FoldError);
  assert.equal(missing.code, 'not_found');
  assert.equal(client.state, 'connected', 'a refused board does not end the others');
});

test('stream: the token as Authorization: Bearer, on the stream and the actions', async () => {
  const secret = 'stream-secret with space';
  const reader = 'only-reads';
  const hash = (s) => createHash('sha256').update(s).digest('hex');
  const d = await daemon(['--token', `admin read,fold,edit,admin ${hash(secret)}`, '--token', `reader read ${hash(reader)}`]);
  await d.put('tok', board(['a']), secret);
  let asked = 0;
  const { client } = open(d.url, { token: () => { asked += 1; return secret; } });
  const b = await client.subscribe('tok');
  assert.ok(asked >= 1);
  assert.equal(await b.expand('a'), b.rev);
  await assertMirror(d, b, secret);
  const page = await b.history({ limit: 1 });
  assert.equal(page.entries[0].action.type, 'expand');
  // No token: the stream is refused (401); a read-only token may not fold (403).
  const none = open(d.url).client;
  const refused = await none.subscribe('tok').then(() => null, (e) => e);
  assert.equal(refused?.code, 'forbidden');
  const ro = open(d.url, { token: reader }).client;
  const rb = await ro.subscribe('tok');
  const denied = await rb.toggle('a').then(() => null, (e) => e);
  assert.ok(denied instanceof FoldError);
  assert.equal(denied.code, 'forbidden');
});

test('stream: a daemon that stops ends the stream; the client comes back on its own', async () => {
  const d = await daemon([]);
  const { client, rec } = open(d.url);
  const b = rec.watch(await client.subscribe('default'));
  const from = rec.states.length;
  await d.stop();
  await rec.state('disconnected', 5000, from);
  await d.start();
  await rec.state('connected', 15000, from);
  const rev = await d.action('default', { type: 'toggle', section: 's1' });
  await rec.change((c) => c.rev === rev, 5000, `rev ${rev} after the restart`);
  await assertMirror(d, b);
  assert.equal(client.transport, 'stream');
});

test('stream: a JWT a month from its expiry is not renewed now', async () => {
  const { d, mint } = await jwtDaemon();
  cleanups.push(() => d.dispose());
  let asked = 0;
  const token = () => {
    asked += 1;
    return mint({ sub: 'js', iat: Math.floor(Date.now() / 1000), jti: String(asked), exp: Math.floor(Date.now() / 1000) + 30 * 86400, foldsync: { '*': ['read', 'fold'] } });
  };
  const watcher = streamWatcher();
  const { client, rec } = open(d.url, { token, fetch: watcher.fetch });
  const b = rec.watch(await client.subscribe('default'));
  await sleep(3000);
  assert.equal(asked, 1, 'the token function was asked once, at connect');
  assert.equal(watcher.streams.length, 1, 'one stream, not reopened');
  assert.equal(await b.toggle('s0'), b.rev);
  assert.deepEqual(rec.names(), ['connecting', 'connected']);
});
