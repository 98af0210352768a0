// The library's board rules (clients/js/rules.js) beyond the shared cases
// of Tests/vectors/actions.json (read by vectors.test.mjs): what is this
// library's own, the sharing of untouched parts, the arguments left alone,
// the limits given, and the message's envelope read as the daemon reads it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyAction, DEFAULT_LIMITS, FoldError } from '../../clients/js/foldsync.js';

const board = () => ({
  mode: 'multi',
  sections: [
    { id: 'a', title: 'A', items: ['1'], expanded: false },
    { id: 'b', title: 'B', items: [{ label: 'x', id: 'x', mine: { n: 1 } }], expanded: true },
  ],
});
const code = (f) => { try { f(); } catch (e) { assert.ok(e instanceof FoldError); return e.code; } return null; };

test('rules: a new board shares what the action left alone; a no-op is the board given', () => {
  const b = board();
  const out = applyAction(b, { type: 'toggle', section: 'a' });
  assert.equal(out.changed, true);
  assert.notEqual(out.board, b);
  assert.notEqual(out.board.sections[0], b.sections[0]);
  assert.equal(out.board.sections[1], b.sections[1]);
  const same = applyAction(b, { type: 'expand', section: 'b' });
  assert.deepEqual(same, { board: b, changed: false });
});

test('rules: neither argument is changed, and the board holds no part of the action', () => {
  const b = board();
  const before = JSON.stringify(b);
  const action = { type: 'setItems', section: 'a', items: [{ label: 'y', extra: [1] }] };
  const out = applyAction(b, action);
  assert.equal(JSON.stringify(b), before);
  action.items[0].extra.push(2);
  assert.deepEqual(out.board.sections[0].items, [{ label: 'y', extra: [1] }]);
});

test('rules: a board given out of key order comes back canonical', () => {
  const b = { sections: [{ expanded: false, items: [], title: 'T', id: 't', other: 1 }], mode: 'single' };
  const out = applyAction(b, { type: 'addSection', section: { title: 'U' } });
  assert.equal(JSON.stringify(out.board),
    '{"mode":"single","sections":[{"id":"t","title":"T","items":[],"expanded":false},{"id":"s1","title":"U","items":[],"expanded":false}]}');
});

test('rules: the limits are the daemon\'s defaults, and any may be given', () => {
  assert.deepEqual({ ...DEFAULT_LIMITS }, {
    maxBoards: 1000, maxSections: 5000, maxItems: 10000, maxTitleBytes: 1024,
    maxItemBytes: 4096, maxBoardBytes: 4 * 1024 * 1024, maxJSONDepth: 32,
  });
  const b = board();
  assert.equal(code(() => applyAction(b, { type: 'setTitle', section: 'a', title: 'é'.repeat(3) }, { maxTitleBytes: 5 })), 'invalid');
  assert.equal(code(() => applyAction(b, { type: 'setTitle', section: 'a', title: 'é'.repeat(2) }, { maxTitleBytes: 4 })), null);
  assert.equal(code(() => applyAction(b, { type: 'addSection', section: { title: 'C' } }, { maxSections: 2 })), 'invalid');
  assert.equal(code(() => applyAction(b, { type: 'setTitle', section: 'a', title: 'x'.repeat(100) }, { maxBoardBytes: 200 })), 'invalid');
  // An item's size is its encoded JSON, U+2028 escaped as the daemon writes it.
  assert.equal(code(() => applyAction(b, { type: 'setItems', section: 'a', items: ['x'.repeat(4094)] })), null);
  assert.equal(code(() => applyAction(b, { type: 'setItems', section: 'a', items: ['x'.repeat(4095)] })), 'invalid');
  assert.equal(code(() => applyAction(b, { type: 'setItems', section: 'a', items: ['\u2028'.repeat(682)] })), null);
  assert.equal(code(() => applyAction(b, { type: 'setItems', section: 'a', items: ['\u2028'.repeat(683)] })), 'invalid');
});

test('rules: the message is read as the daemon reads it', () => {
  const b = board();
  const cases = [
    [null, 'bad_request'],
    [{ section: 'a' }, 'bad_request'],
    [{ type: 'subscribe', board: 'x' }, 'unknown_type'],
    [{ type: 'toggle', section: 'a', id: 7 }, 'bad_request'],
    [{ type: 'toggle', section: 'a', ifRev: -1 }, 'bad_request'],
    [{ type: 'toggle', section: 'a', key: '' }, 'bad_request'],
    [{ type: 'toggle', section: 'a', key: 'k1', ifRev: 3, id: 'r1', board: 'any' }, null],
    [{ type: 'moveSection', section: 'a', to: 0.5 }, 'bad_request'],
    [{ type: 'setMode', mode: 'many' }, 'bad_request'],
    [{ type: 'addSection', section: { title: 'C', id: 'no spaces' } }, 'bad_request'],
    [{ type: 'addSection', section: { title: 'C' }, at: null }, 'bad_request'],
    [{ type: 'setItems', section: 'nope', items: [7] }, 'not_found'],
    [{ type: 'setItems', section: 'a', items: [{ label: 'l', id: 'd' }, { label: 'm', id: 'd' }] }, 'invalid'],
    [{ type: 'focus', section: 'a', item: -1 }, 'invalid'],
    [{ type: 'replace' }, 'bad_request'],
    [{ type: 'replace', state: { mode: 'single', sections: [] }, extra: true }, null],
    [{ type: 'revert', rev: 1 }, 'invalid'],
  ];
  for (const [action, expected] of cases) assert.equal(code(() => applyAction(b, action)), expected, JSON.stringify(action));
});
