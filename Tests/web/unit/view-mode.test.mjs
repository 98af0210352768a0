// clients/web/view-mode.js: follow or browse (the twin of the terminal
// client's LiveModel+Browsing.swift, tested in FollowBrowseTests.swift).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ViewMode } from '../../../clients/web/view-mode.js';

const doc = (mode, open) => ({ mode, sections: ['a', 'b', 'c'].map((id) => ({ id, title: id, items: [], expanded: id === open })) });

test('following shows the board itself', () => {
  const v = new ViewMode();
  const d = doc('single', 'a');
  assert.equal(v.following, true);
  assert.equal(v.sections(d), d.sections);
});

test('browsing folds locally by the board rules and keeps unchanged sections the same objects', () => {
  const v = new ViewMode();
  const d = doc('single', 'a');
  v.browse(d);
  assert.equal(v.fold(d, 'toggle', 'c'), null);
  const shown = v.sections(d);
  assert.deepEqual(shown.map((s) => s.expanded), [false, false, true], 'the accordion, locally');
  assert.deepEqual(d.sections.map((s) => s.expanded), [true, false, false], 'the board is untouched');
  assert.equal(shown[1], d.sections[1], 'unchanged: the board object');
  assert.equal(v.sections(d)[2], shown[2], 'the same copy while nothing changes');
  assert.match(v.fold(d, 'expandAll'), /single mode/);
  // The board's edits arrive; local folds stay; new sections take the board's flag.
  const next = { mode: 'single', sections: [...d.sections.map((s) => ({ ...s, title: `${s.id}!` })), { id: 'n', title: 'n', items: [], expanded: false }] };
  assert.deepEqual(v.sections(next).map((s) => [s.title, s.expanded]), [['a!', false], ['b!', false], ['c!', true], ['n', false]]);
  v.follow();
  assert.equal(v.sections(next), next.sections);
});

test('multi mode: expand and collapse all, locally', () => {
  const v = new ViewMode();
  const d = doc('multi', null);
  v.browse(d);
  assert.equal(v.fold(d, 'expandAll'), null);
  assert.deepEqual(v.sections(d).map((s) => s.expanded), [true, true, true]);
  v.fold(d, 'toggle', 'b');
  assert.deepEqual(v.sections(d).map((s) => s.expanded), [true, false, true]);
  // The board switches to single: one open at most, the first.
  assert.deepEqual(v.sections({ ...d, mode: 'single' }).map((s) => s.expanded), [true, false, false]);
});
