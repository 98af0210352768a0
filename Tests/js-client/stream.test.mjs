// The stream transport (clients/js/stream-transport.js) forced with
// transport: "stream", against the real daemon: tokens as a bearer header,
// a long-lived JWT left alone, a daemon that stops. The contract's cases
// that hold on both transports are in matrix.test.mjs.

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
