// The shared vectors this library must agree with (Tests/vectors): the
// reconnect delays, the mirror, the board's rules and the optimistic state. The Swift tests and the dashboard's
// (Tests/web/unit/vectors.test.mjs) read the same files.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS, BoardMirror, applyAction, FoldError, PendingActions } from '../../clients/js/foldsync.js';

const load = (name) => JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url), 'utf8'));

test('backoff_vectors', () => {
  const file = load('backoff.json');
  assert.equal(BACKOFF_BASE_MS, file.baseMs);
  assert.equal(BACKOFF_CAP_MS, file.capMs);
  assert.ok(file.cases.length > 5);
  for (const c of file.cases) assert.equal(backoffDelay(c.attempt, () => c.random), c.delayMs, `attempt ${c.attempt}, random ${c.random}`);
});

test('mirror_vectors', () => {
  const file = load('mirror.json');
  assert.ok(file.cases.length > 3);
  for (const c of file.cases) {
    const m = new BoardMirror(c.board);
    for (const step of c.steps) {
      const out = m.apply(step.message);
      assert.equal(out.kind, step.outcome, `${c.name}: ${JSON.stringify(step.message)}`);
      if (step.reason !== undefined) assert.equal(out.reason, step.reason, c.name);
      if (step.rev !== undefined) assert.equal(step.rev === null ? m.state : m.rev, step.rev, c.name);
      if (step.state !== undefined) assert.deepStrictEqual(m.state, step.state, c.name);
      if (step.viewers !== undefined) assert.deepEqual([out.viewers, out.following], [step.viewers, step.following], c.name);
    }
  }
});

test('action_vectors', () => {
  const file = load('actions.json');
  assert.ok(file.cases.length > 40);
  for (const c of file.cases) {
    const before = JSON.stringify(c.board);
    if (c.error !== undefined) {
      assert.throws(() => applyAction(c.board, c.action), (e) => e instanceof FoldError && e.code === c.error, c.name);
    } else {
      const out = applyAction(c.board, c.action);
      assert.deepStrictEqual(out.board, c.after, c.name);
      assert.equal(JSON.stringify(out.board), JSON.stringify(c.after), `${c.name}: canonical key order`);
      assert.equal(out.changed, JSON.stringify(c.after) !== before, `${c.name}: changed`);
      if (!out.changed) assert.equal(out.board, c.board, `${c.name}: a no-op gives the board given`);
    }
    assert.equal(JSON.stringify(c.board), before, `${c.name}: the board given is untouched`);
  }
});

test('pending_vectors', () => {
  const file = load('pending.json');
  assert.ok(file.cases.length >= 14);
  for (const c of file.cases) {
    const p = new PendingActions({ session: c.session });
    p.confirm(c.confirmed.board, c.confirmed.rev);
    c.steps.forEach((step, i) => {
      let rolledBack;
      if (step.act) p.act(step.act.key, step.act.ifRev === undefined ? step.act.action : { ...step.act.action, ifRev: step.act.ifRev });
      else if (step.patch) p.patch(step.patch.rev, step.patch.ops, step.patch.by);
      else if (step.ack) p.ack(step.ack.key, step.ack.rev);
      else if (step.refused) rolledBack = p.refuse(step.refused.key)?.key;
      else if (step.snapshot) p.confirm(step.snapshot.board, step.snapshot.rev);
      else assert.fail(`${c.name}: step ${i} does nothing known`);
      const at = `${c.name}: step ${i}`;
      assert.deepStrictEqual(p.state, step.state, at);
      assert.deepStrictEqual(p.keys, step.pending, at);
      assert.equal(rolledBack, step.rolledBack, at);
      if (p.size === 0) assert.equal(p.state, p.confirmed, `${at}: nothing pending shows the confirmed board itself`);
    });
  }
});
