// clients/web/history-panel.js: which permission an Undo needs, and who made a change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { undoPermission, who, summaryOf } from '../../../clients/web/history-panel.js';

test('an undo needs what the undone action needed', () => {
  const e = (action) => ({ rev: 1, action, inverse: [] });
  assert.equal(undoPermission(e({ type: 'toggle', section: 's0' })), 'fold');
  assert.equal(undoPermission(e({ type: 'collapseAll' })), 'fold');
  assert.equal(undoPermission(e({ type: 'setTitle', section: 's0', title: 'x' })), 'edit');
  assert.equal(undoPermission(e({ type: 'replace', sections: 3 })), 'admin');
  assert.equal(undoPermission(e({ type: 'revert', rev: 4, reverts: 'expand' })), 'fold');
  assert.equal(undoPermission(e({ type: 'revert', rev: 4 })), null);
  assert.equal(undoPermission({ rev: 1, ops: [] }), null, 'kept from before history: no undo');
});

test('pointing at an item is a fold: its undo needs fold, as the daemon says', () => {
  const e = (action) => ({ rev: 1, action, inverse: [] });
  assert.equal(undoPermission(e({ type: 'focus', section: 's0', item: 1 })), 'fold');
  assert.equal(undoPermission(e({ type: 'clearFocus' })), 'fold');
  assert.equal(undoPermission(e({ type: 'revert', rev: 4, reverts: 'focus' })), 'fold');
});

test('who names the token and the session', () => {
  assert.equal(who({ actor: 'alice', session: 'c3' }), 'alice · c3');
  assert.equal(who({ actor: 'editor', session: 'http' }), 'editor · HTTP');
});

test("the status strip's words for a change are the history's, the daemon's one summary", () => {
  const entries = [{ rev: 7, summary: "toggle s1 → expanded 'Today'" }, { rev: 6, summary: '' }];
  assert.equal(summaryOf(7, entries), "toggle s1 → expanded 'Today'");
  assert.equal(summaryOf(6, entries), null, 'kept from before history: no words');
  assert.equal(summaryOf(8, entries), null, 'not read yet');
});
