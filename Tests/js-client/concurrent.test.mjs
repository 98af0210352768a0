// Three clients on one multi-mode board at once, each sending ~150 seeded
// random actions (folds, edits, moves, some refused on purpose), one after
// another on its own connection, the three interleaving on the daemon.
// Afterwards every client's mirror, rev and epoch equal GET
// /api/boards/NAME. Reproduce a failure with FOLDSYNC_SEED=<the printed seed>.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, FoldError } from '../../clients/js/foldsync.js';
import { Daemon, waitFor } from './daemon.mjs';

const CLIENTS = 3;
const ACTIONS = 150;
const PERMANENT = ['p0', 'p1'];   // never removed: the refusals on purpose name them
const MAX_SECTIONS = 12;

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

// mulberry32: small, seedable, good enough to pick actions.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One action picked from what this client's copy shows now; `expect` is the
// code it must be refused with (on purpose), or null: then the ack, or
// not_found/invalid when another client changed the board first.
function pick(rnd, state, who, n) {
  const any = (list) => list[Math.floor(rnd() * list.length)];
  const ids = state.sections.map((s) => s.id);
  const id = any(ids);
  const removable = ids.filter((x) => !PERMANENT.includes(x));
  const r = rnd();
  if (r < 0.05) return { action: { type: 'toggle', section: `gone-${who}-${n}` }, expect: 'not_found' };
  if (r < 0.08) return { action: { type: 'setTitle', section: `gone-${who}-${n}`, title: 'x' }, expect: 'not_found' };
  if (r < 0.11) return { action: { type: 'moveSection', section: any(PERMANENT), to: 1000 + n }, expect: 'invalid' };
  if (r < 0.13) return { action: { type: 'addSection', section: { id: any(PERMANENT), title: 'twin', items: [] } }, expect: 'invalid' };
  const kinds = ['toggle', 'toggle', 'expand', 'collapse', 'setTitle', 'setItems', 'moveSection', 'expandAll', 'collapseAll',
    ids.length < MAX_SECTIONS ? 'addSection' : 'toggle', removable.length > 0 ? 'removeSection' : 'expand'];
  switch (any(kinds)) {
    case 'toggle': return { action: { type: 'toggle', section: id } };
    case 'expand': return { action: { type: 'expand', section: id } };
    case 'collapse': return { action: { type: 'collapse', section: id } };
    case 'setTitle': return { action: { type: 'setTitle', section: id, title: `${who} ${n} “${Math.floor(rnd() * 1e6)}”` } };
    case 'setItems': {
      const items = Array.from({ length: Math.floor(rnd() * 4) }, (_, i) => (rnd() < 0.5 ? `${who}-${n}-${i}` : { label: `L${i}`, badge: who }));
      return { action: { type: 'setItems', section: id, items } };
    }
    case 'moveSection': return { action: { type: 'moveSection', section: id, to: Math.floor(rnd() * ids.length) } };
    case 'expandAll': return { action: { type: 'expandAll' } };
    case 'collapseAll': return { action: { type: 'collapseAll' } };
    case 'addSection': return { action: { type: 'addSection', section: { id: `${who}n${n}`, title: `new ${n}`, items: ['i'] } } };
    case 'removeSection': return { action: { type: 'removeSection', section: any(removable) } };
    default: throw new Error('unreachable');
  }
}

async function run(board, rnd, who, log) {
  const counts = { acked: 0, refused: 0, raced: 0 };
  for (let n = 0; n < ACTIONS; n++) {
    const { action, expect } = pick(rnd, board.state, who, n);
    try {
      const rev = await board.act(action);
      if (expect) throw new Error(`${who} #${n} ${JSON.stringify(action)}: acked (rev ${rev}), ${expect} expected`);
      assert.ok(Number.isInteger(rev) && board.rev >= rev, `${who} #${n}: rev ${rev} acked before the mirror (at ${board.rev}) saw it`);
      counts.acked += 1;
    } catch (e) {
      if (!(e instanceof FoldError)) throw e;
      if (expect) {
        assert.equal(e.code, expect, `${who} #${n} ${JSON.stringify(action)}: ${e.message}`);
        counts.refused += 1;
      } else {
        // Another client got there first: the section went, or the list got shorter.
        assert.ok(['not_found', 'invalid'].includes(e.code), `${who} #${n} ${JSON.stringify(action)}: ${e.code} ${e.message}`);
        counts.raced += 1;
      }
      assert.ok(e.message.length > 0);
    }
    log.push(action.type);
  }
  return counts;
}

test('three clients, ~150 random actions each at once: every mirror equals GET', async (t) => {
  const seed = process.env.FOLDSYNC_SEED ? Number(process.env.FOLDSYNC_SEED) : Math.floor(Math.random() * 2 ** 31);
  const d = await Daemon.start();
  cleanups.push(() => d.dispose());
  const initial = {
    mode: 'multi',
    sections: [...PERMANENT, 'a', 'b', 'c'].map((id, i) => ({ id, title: id.toUpperCase(), items: [`item ${i}`], expanded: i % 2 === 0 })),
  };
  await d.put('stress', initial);
  const clients = Array.from({ length: CLIENTS }, () => connect(d.url, { transport: 'websocket' }));
  for (const c of clients) cleanups.push(() => c.close());
  const boards = await Promise.all(clients.map((c) => c.subscribe('stress')));
  const logs = clients.map(() => []);
  try {
    const counts = await Promise.all(boards.map((b, i) => run(b, random(seed + i), `c${i}`, logs[i])));
    const final = await d.board('stress');
    for (const [i, b] of boards.entries()) {
      await waitFor(() => b.rev >= final.rev, 10000, () => `client ${i} to reach rev ${final.rev} (at ${b.rev})`);
      assert.equal(b.rev, final.rev, `client ${i}: rev`);
      assert.equal(b.epoch, final.epoch, `client ${i}: epoch`);
      assert.deepStrictEqual(b.state, final.state, `client ${i}: mirror`);
    }
    const total = counts.reduce((s, c) => ({ acked: s.acked + c.acked, refused: s.refused + c.refused, raced: s.raced + c.raced }));
    assert.ok(total.refused > 0, 'no refusal on purpose was sent');
    assert.ok(total.acked > CLIENTS * ACTIONS / 2, `only ${total.acked} acked`);
    t.diagnostic(`seed ${seed}: rev ${final.rev}, ${JSON.stringify(total)}`);
  } catch (e) {
    console.error(`concurrent clients failed with FOLDSYNC_SEED=${seed} (actions sent: ${logs.map((l) => l.length).join(', ')})`);
    e.message = `[FOLDSYNC_SEED=${seed}] ${e.message}`;
    throw e;
  }
});
