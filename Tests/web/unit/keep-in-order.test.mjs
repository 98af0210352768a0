// clients/web/keep-in-order.js: a reorder keeps the longest run already in
// order, so the page moves as few section nodes as possible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepInOrder } from '../../../clients/web/keep-in-order.js';

// Applies the plan to `before` the way render.js does and returns the result
// and how many items moved.
function reorder(before, after) {
  const where = new Map(before.map((x, i) => [x, i]));
  const keep = keepInOrder(after.map((x) => (where.has(x) ? where.get(x) : -1)));
  const list = before.filter((x) => after.includes(x));
  let moves = 0, next = null;
  for (let k = after.length - 1; k >= 0; k--) {
    if (!keep.has(k)) {
      const at = list.indexOf(after[k]);
      if (at >= 0) list.splice(at, 1);
      list.splice(next === null ? list.length : list.indexOf(next), 0, after[k]);
      moves += 1;
    }
    next = after[k];
  }
  return { list, moves };
}

const range = (n) => Array.from({ length: n }, (_, i) => `s${i}`);

test('one section moved either way costs one move', () => {
  const ids = range(1000);
  const toEnd = [...ids.slice(1), ids[0]];
  const toStart = [ids[999], ...ids.slice(0, 999)];
  for (const after of [toEnd, toStart]) {
    const { list, moves } = reorder(ids, after);
    assert.deepEqual(list, after);
    assert.equal(moves, 1);
  }
});

test('unchanged order moves nothing; new items are always placed', () => {
  assert.equal(reorder(range(5), range(5)).moves, 0);
  const after = ['s0', 'n', 's1', 's2'];
  assert.deepEqual(reorder(range(3), after), { list: after, moves: 1 });
  assert.deepEqual(keepInOrder([]), new Set());
});

test('any shuffle ends in the wanted order, keeping a longest ordered run', () => {
  let seed = 7;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
  for (let round = 0; round < 200; round++) {
    const before = range(1 + Math.floor(random() * 30));
    const after = [...before].sort(() => random() - 0.5).filter(() => random() > 0.1);
    if (random() > 0.5) after.splice(Math.floor(random() * after.length), 0, 'new');
    const { list, moves } = reorder(before, after);
    assert.deepEqual(list, after);
    const kept = keepInOrder(after.map((x) => before.indexOf(x)));
    assert.equal(moves, after.length - kept.size);
    const keptPositions = [...kept].sort((a, b) => a - b).map((i) => before.indexOf(after[i]));
    assert.deepEqual(keptPositions, [...keptPositions].sort((a, b) => a - b), 'kept items out of order');
  }
});
