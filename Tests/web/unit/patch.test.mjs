// clients/js/patch.js (the dashboard loads it from /lib/patch.js): the
// RFC 6902 conformance suite, and the copy on write the
// page's rendering relies on (untouched values keep their identity).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, parsePointer, PatchError } from '../../../clients/js/patch.js';
import { records } from './conformance.mjs';

for (const file of ['tests.json', 'spec_tests.json']) {
  test(`conformance: ${file}`, () => {
    const rs = records(file);
    assert.ok(rs.length > 10, 'suite too small');
    const failures = [];
    for (const r of rs) {
      const before = JSON.stringify(r.doc);
      let got, err = null;
      try { got = applyPatch(r.doc, r.patch); } catch (e) { err = e; }
      if (JSON.stringify(r.doc) !== before) failures.push(`${r.where}: input document was modified`);
      if ('error' in r) { if (!err) failures.push(`${r.where}: applied, expected error ${r.error}`); }
      else if (err) failures.push(`${r.where}: ${err.message}`);
      else if ('expected' in r) {
        // node's own comparison, not the module's: a lenient deepEqual in
        // patch.js must not be able to pass its own results.
        try { assert.deepStrictEqual(got, r.expected); } catch { failures.push(`${r.where}: got ${JSON.stringify(got)}`); }
      }
    }
    assert.deepEqual(failures, []);
  });
}

const board = (n) => ({
  mode: 'single',
  sections: Array.from({ length: n }, (_, i) => ({ id: `s${i}`, title: `S${i}`, items: [`a${i}`], expanded: false })),
});

test('a patch copies only the containers on its paths', () => {
  const doc = board(1000);
  const next = applyPatch(doc, [
    { op: 'replace', path: '/sections/3/expanded', value: true },
    { op: 'replace', path: '/sections/7/expanded', value: true },
  ]);
  assert.notEqual(next, doc);
  assert.notEqual(next.sections, doc.sections);
  assert.equal(next.sections[3].expanded, true);
  assert.equal(doc.sections[3].expanded, false, 'the input changed');
  const copied = next.sections.filter((s, i) => s !== doc.sections[i]).map((s) => s.id);
  assert.deepEqual(copied, ['s3', 's7']);
  assert.equal(next.sections[3].items, doc.sections[3].items, 'an untouched array inside a touched section was copied');
});

test('two operations on one section copy it once and both land', () => {
  const doc = board(3);
  const next = applyPatch(doc, [
    { op: 'replace', path: '/sections/1/title', value: 'x' },
    { op: 'add', path: '/sections/1/items/-', value: 'b' },
  ]);
  assert.deepEqual(next.sections[1], { id: 's1', title: 'x', items: ['a1', 'b'], expanded: false });
  assert.deepEqual(doc.sections[1], { id: 's1', title: 'S1', items: ['a1'], expanded: false });
});

test('a move keeps the moved section itself, in its new place', () => {
  const doc = board(4);
  const next = applyPatch(doc, [{ op: 'move', from: '/sections/0', path: '/sections/2' }]);
  assert.deepEqual(next.sections.map((s) => s.id), ['s1', 's2', 's0', 's3']);
  assert.equal(next.sections[2], doc.sections[0]);
  assert.deepEqual(doc.sections.map((s) => s.id), ['s0', 's1', 's2', 's3']);
});

test('a failing operation leaves the input as it was', () => {
  const doc = board(3);
  const before = JSON.stringify(doc);
  assert.throws(() => applyPatch(doc, [
    { op: 'replace', path: '/sections/0/expanded', value: true },
    { op: 'remove', path: '/sections/9' },
  ]), PatchError);
  assert.equal(JSON.stringify(doc), before);
});

test('added values are copies of the message, never shared with it', () => {
  const value = { id: 'n', title: 'N', items: [], expanded: true };
  const next = applyPatch(board(1), [{ op: 'add', path: '/sections/-', value }]);
  value.items.push('later');
  assert.deepEqual(next.sections[1].items, []);
});

test('a key named __proto__ is data, not a prototype', () => {
  const doc = JSON.parse('{"__proto__": {"x": 1}, "a": 1}');
  const next = applyPatch(doc, [{ op: 'replace', path: '/a', value: 2 }]);
  assert.deepEqual(Object.keys(next), ['__proto__', 'a']);
  assert.equal(Object.getPrototypeOf(next), Object.prototype);
});

test('pointers unescape ~1 and ~0, and refuse bad escapes', () => {
  assert.deepEqual(parsePointer('/a~1b/m~0n'), ['a/b', 'm~n']);
  assert.deepEqual(parsePointer(''), []);
  assert.throws(() => parsePointer('/a~2'), PatchError);
  assert.throws(() => parsePointer('a'), PatchError);
});
