// clients/js/mirror.js (the dashboard loads it from /lib/mirror.js): the
// BoardMirror, held to the same rules as the Swift
// one (Tests for Sources/FoldClient/Mirror/BoardMirror.swift).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoardMirror, touchedSections } from '../../../clients/js/mirror.js';

const state = () => ({
  mode: 'single',
  sections: [
    { id: 'a', title: 'A', items: [], expanded: false },
    { id: 'b', title: 'B', items: ['x'], expanded: true },
  ],
});
const snapshot = (rev = 4, epoch = 'e1') => ({ type: 'snapshot', board: 'b1', epoch, rev, state: state() });
const toggleA = (rev, epoch = 'e1') => ({
  type: 'patch', board: 'b1', epoch, rev, ops: [
    { op: 'replace', path: '/sections/1/expanded', value: false },
    { op: 'replace', path: '/sections/0/expanded', value: true },
  ],
});

test('a snapshot sets state and position, and asks for a full render', () => {
  const m = new BoardMirror('b1');
  assert.equal(m.position, null);
  assert.deepEqual(m.apply(snapshot()), { kind: 'changed', ops: null, touched: null, mode: true });
  assert.deepEqual(m.position, { epoch: 'e1', rev: 4 });
  assert.deepEqual(m.state, state());
});

test('the next patch applies and names the sections it touched', () => {
  const m = new BoardMirror('b1');
  m.apply(snapshot());
  const before = m.state;
  const out = m.apply(toggleA(5));
  assert.equal(out.kind, 'changed');
  assert.deepEqual([...out.touched.keys()], ['b', 'a']);
  assert.equal(out.touched.get('a'), m.state.sections[0]);
  assert.equal(out.mode, false);
  assert.equal(m.rev, 5);
  assert.equal(m.state.sections[0].expanded, true);
  assert.equal(before.sections[0].expanded, false, 'the previous state was changed in place');
});

test('a patch already applied changes nothing', () => {
  const m = new BoardMirror('b1');
  m.apply(snapshot(4));
  assert.deepEqual(m.apply(toggleA(4)), { kind: 'unchanged' });
  assert.deepEqual(m.apply(toggleA(2)), { kind: 'unchanged' });
  assert.equal(m.state.sections[0].expanded, false);
});

test('a gap or another epoch is out of step and keeps the position to resume from', () => {
  const m = new BoardMirror('b1');
  m.apply(snapshot(4));
  assert.equal(m.apply(toggleA(6)).kind, 'outOfStep');
  assert.equal(m.apply(toggleA(5, 'e2')).kind, 'outOfStep');
  assert.deepEqual(m.position, { epoch: 'e1', rev: 4 });
});

test('a patch that does not apply forgets the state, so the resubscribe asks for a snapshot', () => {
  const m = new BoardMirror('b1');
  m.apply(snapshot(4));
  const out = m.apply({ type: 'patch', board: 'b1', epoch: 'e1', rev: 5, ops: [{ op: 'remove', path: '/sections/7' }] });
  assert.equal(out.kind, 'outOfStep');
  assert.match(out.reason, /does not apply/);
  assert.equal(m.state, null);
  assert.equal(m.position, null);
  assert.deepEqual(m.apply(toggleA(6)), { kind: 'unchanged' }, 'patches before the new snapshot are dropped');
});

test('other boards, presence and deletion', () => {
  const m = new BoardMirror('b1');
  m.apply(snapshot());
  assert.deepEqual(m.apply({ ...toggleA(5), board: 'other' }), { kind: 'unchanged' });
  assert.deepEqual(m.apply({ type: 'presence', board: 'b1', viewers: 3 }), { kind: 'presence', viewers: 3, following: undefined });
  assert.deepEqual(m.apply({ type: 'presence', board: 'b1', viewers: 3, following: 2 }), { kind: 'presence', viewers: 3, following: 2 });
  assert.deepEqual(m.apply({ type: 'future-type', board: 'b1' }), { kind: 'unchanged' });
  assert.deepEqual(m.apply({ type: 'deleted', board: 'b1' }), { kind: 'deleted' });
  assert.equal(m.state, null);
  assert.equal(m.position, null);
});

test('applying patches in order to the snapshot gives the board at that rev', () => {
  const m = new BoardMirror('b1');
  m.apply(snapshot(0));
  const ops = [
    [{ op: 'add', path: '/sections/-', value: { id: 'c', title: 'C', items: [], expanded: false } }],
    [{ op: 'replace', path: '/sections/2/title', value: 'Γ' }],
    [{ op: 'move', from: '/sections/2', path: '/sections/0' }],
    [{ op: 'replace', path: '/mode', value: 'multi' }],
    [{ op: 'remove', path: '/sections/1' }],
  ];
  ops.forEach((o, i) => assert.equal(m.apply({ type: 'patch', board: 'b1', epoch: 'e1', rev: i + 1, ops: o }).kind, 'changed'));
  assert.deepEqual(m.state, {
    mode: 'multi',
    sections: [
      { id: 'c', title: 'Γ', items: [], expanded: false },
      { id: 'b', title: 'B', items: ['x'], expanded: true },
    ],
  });
});

test('touched sections: ids for edits inside sections, null when the list changes', () => {
  const next = state();
  assert.deepEqual([...touchedSections([{ op: 'replace', path: '/sections/1/title', value: 'B' }], next).touched.keys()], ['b']);
  assert.deepEqual([...touchedSections([{ op: 'add', path: '/sections/0/items/-', value: 'i' }], next).touched.keys()], ['a']);
  assert.deepEqual(touchedSections([{ op: 'replace', path: '/mode', value: 'multi' }], next), { touched: new Map(), mode: true });
  for (const op of [
    { op: 'add', path: '/sections/1', value: {} },
    { op: 'remove', path: '/sections/0' },
    { op: 'move', from: '/sections/0', path: '/sections/1' },
    { op: 'replace', path: '/sections/0/id', value: 'z' },
    { op: 'replace', path: '', value: {} },
    { op: 'replace', path: '/sections/9/title', value: 'gone' },
  ]) assert.equal(touchedSections([op], next).touched, null, JSON.stringify(op));
});
