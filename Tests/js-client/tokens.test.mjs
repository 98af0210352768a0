// The contract's token case: a static token as a value or as a function
// (asked at every connect). A JWT renewed before it expires is
// token_refreshed_on_auth_expiring in matrix.test.mjs, on both transports.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { connect, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, daemonPath, sleep, waitFor } from './daemon.mjs';
import { Relay } from './relay.mjs';
import { Recorder } from './recorder.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });
function open(url, options) {
  const client = connect(url, options);
  cleanups.push(() => client.close());
  return { client, rec: new Recorder(client) };
}

function hashToken(secret) {
  const r = spawnSync(daemonPath(), ['hash-token'], { input: secret, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

test('token_value_and_function', async () => {
  const secret = `js-${randomBytes(12).toString('hex')}`;
  const d = await Daemon.start(['--token', `js read,fold,edit,admin ${hashToken(secret)}`, '--auth-timeout', '3']);
  cleanups.push(() => d.dispose());

  // As a value.
  const byValue = open(d.url, { token: secret });
  const b = await byValue.client.subscribe('default');
  assert.equal(byValue.rec.authenticated[0]?.name, 'js');
  assert.deepEqual(byValue.rec.authenticated[0].permissions, ['read', 'fold', 'edit', 'admin']);
  assert.equal(await b.toggle('s0'), b.rev);
  assert.equal((await b.history({ limit: 1 })).entries[0].actor, 'js', 'the token also signs the HTTP requests');

  // As a function (async here), asked at every connect: through a relay
  // that cuts the client off twice.
  const r = await Relay.start(d.port);
  cleanups.push(() => r.close());
  let calls = 0;
  const byFunction = open(r.url, { token: async () => { calls += 1; await sleep(5); return secret; } });
  const fb = await byFunction.client.subscribe('default');
  assert.equal(calls, 1);
  for (let n = 0; n < 2; n++) {
    const from = byFunction.rec.states.length;
    await r.pause();
    await byFunction.rec.state('disconnected', 5000, from);
    await r.resume();
    await byFunction.rec.state('connected', 15000, from);
    // `authenticated` follows `hello`: let it come before cutting again.
    await waitFor(() => byFunction.rec.authenticated.length === n + 2, 5000,
      () => `signed in again (${byFunction.rec.authenticated.length} authenticated; ${byFunction.rec.names()})`);
  }
  const connects = byFunction.rec.names().filter((s) => s === 'connecting').length;
  assert.ok(connects >= 3);
  assert.equal(calls, connects, 'the function is asked once per connect');
  assert.equal(await fb.toggle('s1'), fb.rev);

  // Without a token: refused, typed.
  const none = open(d.url);
  const refused = await none.client.subscribe('default').then(() => null, (e) => e);
  assert.ok(refused instanceof FoldError);
  assert.equal(refused.code, 'forbidden');
  // A wrong one: the daemon's refusal of the token itself reaches `error`.
  const wrong = open(d.url, { token: 'not-the-secret' });
  await waitFor(() => wrong.rec.errors.length > 0, 5000, 'the refusal of a wrong token');
  assert.equal(wrong.rec.errors[0].code, 'forbidden');
});

