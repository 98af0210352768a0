// Tests/vectors: the cases the Swift tests (Tests/FoldClientTests/SharedVectorTests.swift)
// run too, here against the dashboard's twins of the same logic (the mirror,
// the board's rules and the optimistic state from their home, clients/js;
// Tests/js-client reads backoff, mirror, actions and pending too).
// Every file there must have a reader in both; a case added once runs in both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { globMatches } from '../../../clients/web/permissions.js';
import { backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS } from '../../../clients/web/socket.js';
import { safeHref, itemFields } from '../../../clients/web/item-view.js';
import { BoardMirror } from '../../../clients/js/mirror.js';
import { applyAction } from '../../../clients/js/rules.js';
import { PendingActions } from '../../../clients/js/pending.js';
import { ViewMode } from '../../../clients/web/view-mode.js';
import { sessionCaseFailure } from '../../js-client/session-cases.mjs';

const folder = fileURLToPath(new URL('../../vectors/', import.meta.url));
const load = (name) => JSON.parse(readFileSync(folder + name, 'utf8'));

const readers = {
  'glob.json'(file) {
    for (const c of file.cases) assert.equal(globMatches(c.pattern, c.name), c.matches, `${c.pattern} ~ ${c.name}`);
  },
  'backoff.json'(file) {
    assert.equal(BACKOFF_BASE_MS, file.baseMs);
    assert.equal(BACKOFF_CAP_MS, file.capMs);
    for (const c of file.cases) assert.equal(backoffDelay(c.attempt, () => c.random), c.delayMs, `attempt ${c.attempt}`);
  },
  'links.json'(file) {
    for (const c of file.cases) assert.equal(safeHref(c.href) !== null, c.link, JSON.stringify(c.href));
  },
  'items.json'(file) {
    // The daemon's refusals are its own; a client shows whatever was stored.
    for (const c of file.cases) {
      assert.equal(c.items.length, c.shown.length);
      c.items.forEach((item, i) => assert.deepEqual(itemFields(item), c.shown[i], JSON.stringify(item)));
    }
  },
  'mirror.json'(file) {
    for (const c of file.cases) {
      const m = new BoardMirror(c.board);
      for (const step of c.steps) {
        const out = m.apply(step.message);
        assert.equal(out.kind, step.outcome, `${c.name}: ${JSON.stringify(step.message)}`);
        if (step.reason !== undefined) assert.equal(out.reason, step.reason, c.name);
        if (step.rev !== undefined) assert.equal(step.rev === null ? m.state : m.rev, step.rev, c.name);
        if (step.state !== undefined) assert.deepEqual(m.state, step.state, c.name);
        if (step.viewers !== undefined) assert.deepEqual([out.viewers, out.following], [step.viewers, step.following], c.name);
      }
    }
  },
  'actions.json'(file) {
    for (const c of file.cases) {
      const before = JSON.stringify(c.board);
      if (c.error !== undefined) {
        assert.throws(() => applyAction(c.board, c.action), (e) => e.name === 'FoldError' && e.code === c.error, c.name);
      } else {
        const out = applyAction(c.board, c.action);
        assert.deepStrictEqual(out.board, c.after, c.name);
        assert.equal(JSON.stringify(out.board), JSON.stringify(c.after), `${c.name}: canonical key order`);
        assert.equal(out.changed, JSON.stringify(c.after) !== before, `${c.name}: changed`);
      }
      assert.equal(JSON.stringify(c.board), before, `${c.name}: the board given is untouched`);
    }
  },
  'pending.json'(file) {
    // The page folds at once with this very module (board-page.js).
    for (const c of file.cases) {
      const p = new PendingActions({ session: c.session });
      p.confirm(c.confirmed.board, c.confirmed.rev);
      c.steps.forEach((step, i) => {
        let rolledBack;
        if (step.act) p.act(step.act.key, step.act.ifRev === undefined ? step.act.action : { ...step.act.action, ifRev: step.act.ifRev });
        else if (step.patch) p.patch(step.patch.rev, step.patch.ops, step.patch.by);
        else if (step.ack) p.ack(step.ack.key, step.ack.rev);
        else if (step.refused) rolledBack = p.refuse(step.refused.key)?.key;
        else if (step.snapshot) p.confirm(step.snapshot.board, step.snapshot.rev);
        else assert.fail(`${c.name}: step ${i} does nothing known`);
        const at = `${c.name}: step ${i}`;
        assert.deepStrictEqual(p.state, step.state, at);
        assert.deepStrictEqual(p.keys, step.pending, at);
        assert.equal(rolledBack, step.rolledBack, at);
      });
    }
  },
  'session.json'(file) {
    // The dashboard's socket (socket.js) is the library's client, which runs this machine (clients/js/session.js).
    assert.ok(file.cases.length >= 20, `${file.cases.length} session cases`);
    for (const c of file.cases) assert.equal(sessionCaseFailure(c), null);
  },
  'follow.json'(file) {
    for (const c of file.cases) {
      const view = new ViewMode();
      let doc = c.board;
      for (const step of c.steps) {
        let error = null;
        switch (step.do) {
          case 'browse': if (view.following) view.browse(doc); break;
          case 'follow': view.follow(); break;
          case 'toggle': error = view.fold(doc, 'toggle', step.section); break;
          case 'expandAll': case 'collapseAll': error = view.fold(doc, step.do, null); break;
          case undefined: doc = step.board; break;
          default: assert.fail(`${c.name}: unknown step ${step.do}`);
        }
        const open = view.sections(doc).filter((s) => s.expanded).map((s) => s.id);
        assert.deepEqual(open, step.open, `${c.name}: after ${JSON.stringify(step).slice(0, 80)}`);
        if (step.following !== undefined) assert.equal(view.following, step.following, c.name);
        if (step.error !== undefined) assert.equal(error, step.error, c.name);
      }
    }
  },
};

test('every vector file has a JavaScript reader, and every case holds', () => {
  const names = readdirSync(folder).filter((n) => n.endsWith('.json')).sort();
  assert.ok(names.length >= 6, `${folder}: ${names}`);
  for (const name of names) {
    assert.ok(readers[name], `Tests/vectors/${name} has no JavaScript reader`);
    readers[name](load(name));
  }
});
