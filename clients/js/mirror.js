// A client's copy of one board: the JavaScript twin of the terminal client's
// BoardMirror (Sources/FoldClient/Mirror/BoardMirror.swift). Snapshots set
// it, patches move it one rev at a time within an epoch; anything else asks
// the owner to subscribe again. Pure: no DOM, no socket. The owner (the
// library's board.js, the dashboard's page) feeds it the daemon's messages
// and acts on the outcome apply() returns.
//
// The dashboard imports this very file: the daemon serves clients/js at /lib/.

import { applyPatch, parsePointer } from './patch.js';

// Outcomes, as in the Swift mirror:
//   { kind: 'changed', ops, touched, mode }  touched: Map of section id -> section,
//                                            or null when the list itself changed
//   { kind: 'unchanged' }                    another board, a duplicate patch, or a type the mirror ignores
//   { kind: 'presence', viewers, following }  following: undefined from a daemon that does not send it
//   { kind: 'deleted' }
//   { kind: 'outOfStep', reason }            subscribe again (with `since`, see position)
export class BoardMirror {
  constructor(board) {
    this.board = board;
    this.state = null;   // null until the first snapshot, and after a deletion
    this.epoch = null;
    this.rev = null;
  }

  // Where to resume from (`since` of a subscribe), or null for a snapshot.
  get position() {
    return this.state !== null && this.epoch !== null ? { epoch: this.epoch, rev: this.rev } : null;
  }

  apply(m) {
    if (m.board !== undefined && m.board !== this.board) return { kind: 'unchanged' };
    switch (m.type) {
      case 'snapshot':
        this.state = m.state;
        this.epoch = m.epoch;
        this.rev = m.rev;
        return { kind: 'changed', ops: null, touched: null, mode: true };
      case 'patch': return this.applyPatch(m);
      case 'presence': return { kind: 'presence', viewers: m.viewers, following: m.following };
      case 'deleted': this.clear(); return { kind: 'deleted' };
      default: return { kind: 'unchanged' };
    }
  }

  applyPatch(m) {
    // Before any snapshot (or after a failed patch) a snapshot is on its way.
    if (this.state === null) return { kind: 'unchanged' };
    if (m.epoch === this.epoch && m.rev <= this.rev) return { kind: 'unchanged' };   // already have it
    if (m.epoch !== this.epoch || m.rev !== this.rev + 1) {
      return { kind: 'outOfStep', reason: `patch ${m.rev} does not follow rev ${this.rev}` };
    }
    let next;
    try {
      next = applyPatch(this.state, m.ops);
    } catch (e) {
      // Our copy cannot be trusted any more: forget it, so the next
      // subscribe asks for a snapshot rather than a resume.
      this.state = null;
      return { kind: 'outOfStep', reason: `patch ${m.rev} does not apply: ${e.message}` };
    }
    this.state = next;
    this.rev = m.rev;
    return { kind: 'changed', ops: m.ops, ...touchedSections(m.ops, next) };
  }

  clear() {
    this.state = null;
    this.epoch = null;
    this.rev = null;
  }
}

// Which sections a patch touched: { touched: Map of id -> the section after
// the patch, mode: whether the mode changed }, or touched null when sections were added, removed, moved
// or replaced wholesale (then the whole list is reconciled). Costs the
// operations, not the board.
export function touchedSections(ops, next) {
  const ids = new Map();
  let mode = false;
  for (const op of ops) {
    for (const p of [op.path, op.from]) {
      if (p === undefined) continue;
      const t = parsePointer(p);
      if (t.length === 0) return { touched: null, mode: true };
      if (t[0] === 'mode') { mode = true; continue; }
      if (t[0] !== 'sections' || t.length <= 2 || t[2] === 'id') return { touched: null, mode: true };
      const s = next.sections[Number(t[1])];
      if (!s) return { touched: null, mode: true };
      ids.set(s.id, s);
    }
  }
  return { touched: ids, mode };
}
