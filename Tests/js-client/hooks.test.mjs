// What an application that decides for itself uses (the dashboard does):
// options.reconnect saying no, reconnect(), the "message" event, send(),
// and a token function that hands back the token the connection already
// has on authExpiring (nothing sent; the application calls authenticate()).

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect } from '../../clients/js/foldsync.js';
import { Daemon, sleep, waitFor } from './daemon.mjs';
import { Relay } from './relay.mjs';
import { Recorder } from './recorder.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

test('reconnect hook: false waits for reconnect(), which resumes', async () => {
  const d = await Daemon.start();
  cleanups.push(() => d.dispose());
  const r = await Relay.start(d.port);
  cleanups.push(() => r.close());
  const ends = [];
  let allow = false;
  const client = connect(`ws://127.0.0.1:${r.port}/ws`, { transport: 'websocket', reconnect: (end) => { ends.push(end); return allow; } });
  cleanups.push(() => client.close());
  const rec = new Recorder(client);
  const messages = [];
  client.on('message', (m) => messages.push(m.type));
  const board = await client.subscribe('default');
  assert.ok(messages.includes('hello') && messages.includes('snapshot'), messages.join(' '));
  assert.equal(client.send({ type: 'view', following: true }), true);

  await r.pause();
  const i = await rec.state('disconnected', 5000);
  assert.equal(rec.states[i].delay, null, 'a retry was scheduled');
  assert.equal(ends.length, 1);
  assert.equal(ends[0].opened, true);
  await d.action('default', { type: 'toggle', section: 's1' });
  await r.resume();
  // Longer than the first retry could have waited: nothing came back on its own.
  await sleep(700);
  assert.deepEqual(rec.names(), ['connecting', 'connected', 'disconnected']);
  assert.equal(client.timer, null);
  assert.equal(client.send({ type: 'view', following: true }), false);

  allow = true;
  client.reconnect();
  await rec.state('connected', 5000, i);
  const got = await d.board('default');
  await waitFor(() => board.rev === got.rev, 5000, `the resume to reach rev ${got.rev}`);
  assert.deepStrictEqual(board.confirmed, got.state);
  // reconnect() on a live connection drops it and comes back at once.
  const from = rec.states.length;
  client.reconnect();
  await rec.state('connected', 5000, from);
  assert.deepEqual(rec.names().slice(from), ['connecting', 'connected']);
  assert.equal(await board.toggle('s1'), got.rev + 1);
});

test('authExpiring: a token function that has nothing new sends nothing', async () => {
  const secret = 'same-secret-0123456789';
  const d = await Daemon.start(['--token', `wall read,fold ${createHash('sha256').update(secret).digest('hex')}`]);
  cleanups.push(() => d.dispose());
  let asked = 0;
  let next = secret;
  const client = connect(d.url, { transport: 'websocket', token: () => { asked += 1; return next; } });
  cleanups.push(() => client.close());
  const rec = new Recorder(client);
  await waitFor(() => rec.authenticated.length === 1, 5000, 'authenticated');
  assert.equal(client.authenticate(''), false);
  // What the daemon says before a JWT expires, handed to the client as if it had arrived.
  const sent = [];
  const send = client.conn.send.bind(client.conn);
  const authenticate = client.conn.authenticate.bind(client.conn);
  client.conn.send = (m) => { sent.push(m); return send(m); };
  client.conn.authenticate = (t) => { sent.push({ type: 'auth', token: t }); return authenticate(t); };
  client.receive({ type: 'authExpiring', in: 30 });
  await waitFor(() => asked >= 2, 2000, 'the token function to be asked');
  await sleep(50);
  assert.deepEqual(sent, [], 'the same token was sent again');
  // A new one is sent in band, and the application may hand one over itself.
  next = 'another-secret';
  client.receive({ type: 'authExpiring', in: 30 });
  await waitFor(() => sent.length === 1, 2000, 'the new token to be sent');
  assert.deepEqual(sent, [{ type: 'auth', token: 'another-secret' }]);
  assert.equal(client.authenticate(secret), true);
  assert.deepEqual(sent.at(-1), { type: 'auth', token: secret });
  await waitFor(() => rec.authenticated.length >= 2, 5000, 'authenticated again');
  assert.equal(rec.authenticated.at(-1).name, 'wall');
});
