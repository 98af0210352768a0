// clients/web/change-summary.js: the status strip's words for a patch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeChange } from '../../../clients/web/change-summary.js';

const board = {
  mode: 'single',
  sections: [
    { id: 'a', title: 'Alpha', items: [], expanded: true },
    { id: 'b', title: 'Beta', items: [], expanded: false },
  ],
};

test('an accordion toggle names the section it opened; a lone close names the closed one', () => {
  assert.equal(describeChange([
    { op: 'replace', path: '/sections/1/expanded', value: false },
    { op: 'replace', path: '/sections/0/expanded', value: true },
  ], board), ': “Alpha” expanded');
  assert.equal(describeChange([{ op: 'replace', path: '/sections/1/expanded', value: false }], board), ': “Beta” collapsed');
});

test('titles, items, moves, adds, removes and the mode', () => {
  assert.equal(describeChange([{ op: 'replace', path: '/sections/1/title', value: 'Beta' }], board), ': renamed “Beta”');
  assert.equal(describeChange([{ op: 'add', path: '/sections/0/items/0', value: 'x' }], board), ': items of “Alpha”');
  assert.equal(describeChange([{ op: 'move', from: '/sections/0', path: '/sections/1' }], board), ': sections reordered');
  assert.equal(describeChange([{ op: 'add', path: '/sections/1', value: {} }], board), ': added “Beta”');
  assert.equal(describeChange([{ op: 'remove', path: '/sections/1' }], board), ': section removed');
  assert.equal(describeChange([{ op: 'replace', path: '/mode', value: 'single' }], board), ': mode single');
  assert.equal(describeChange([], board), '');
});

test('the focus (an extension): set with its expand, moved, cleared; a removal stays a removal', () => {
  const focused = { ...board, sections: [board.sections[0], { ...board.sections[1], items: ['x', { label: 'Docs' }] }], focus: { section: 'b', item: 1 } };
  assert.equal(describeChange([
    { op: 'replace', path: '/sections/0/expanded', value: false },
    { op: 'replace', path: '/sections/1/expanded', value: true },
    { op: 'add', path: '/focus', value: { section: 'b', item: 1 } },
  ], focused), ': focus on “Docs”');
  assert.equal(describeChange([{ op: 'replace', path: '/focus', value: { section: 'b', item: 1 } }], focused), ': focus on “Docs”');
  assert.equal(describeChange([{ op: 'remove', path: '/focus' }], board), ': focus cleared');
  assert.equal(describeChange([{ op: 'remove', path: '/sections/1' }, { op: 'remove', path: '/focus' }], board), ': section removed');
});
