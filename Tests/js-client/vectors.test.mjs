// The shared vectors this library must agree with (Tests/vectors): the
// reconnect delays and the mirror. The Swift tests and the dashboard's
// (Tests/web/unit/vectors.test.mjs) read the same files.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS, BoardMirror } from '../../clients/js/foldsync.js';

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
