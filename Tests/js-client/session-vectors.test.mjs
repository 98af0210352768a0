// Tests/vectors/session.json through session.js: the same cases run against
// the Swift session machine (Tests/FoldSessionTests/SessionVectorTests.swift),
// with the same matching rule (session-cases.mjs). SESSION_VECTORS names
// another file (a broken copy, to see this test fail).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sessionCaseFailure } from './session-cases.mjs';

const file = process.env.SESSION_VECTORS ?? fileURLToPath(new URL('../vectors/session.json', import.meta.url));
const cases = JSON.parse(readFileSync(file, 'utf8')).cases ?? [];

test('the session vectors are read', () => {
  // A reader that found no cases would pass every case below.
  assert.ok(cases.length >= 20, `${cases.length} cases in ${file}`);
});

for (const [index, c] of cases.entries()) {
  test(c.name ?? `case ${index}`, () => {
    const failure = sessionCaseFailure(c);
    assert.equal(failure, null, failure ?? '');
  });
}
