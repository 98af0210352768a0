// clients/web/render.js, its pure part: items as the section editor's text
// (one per line; an object is one line of JSON) and an item's label.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemText, itemsToText, textToItems } from '../../../clients/web/render.js';

test('items survive the editor: text and back', () => {
  const items = ['plain', { label: 'labelled', k: 1 }, '中文条目', '{not json'];
  assert.equal(itemsToText(items), 'plain\n{"label":"labelled","k":1}\n中文条目\n{not json');
  assert.deepEqual(textToItems(itemsToText(items)), items);
});

test('blank lines are dropped; JSON that is not an object stays text', () => {
  assert.deepEqual(textToItems('a\n\n  \n[1,2]\n{"x": 1}'), ['a', '[1,2]', { x: 1 }]);
});

test('an item shows its label, else its JSON', () => {
  assert.equal(itemText('s'), 's');
  assert.equal(itemText({ label: 'L', n: 2 }), 'L');
  assert.equal(itemText({ n: 2 }), '{"n":2}');
  assert.equal(itemText(null), 'null');
});
