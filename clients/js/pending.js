// Optimistic state: the board as the daemon confirmed it, with the actions
// this client called and the daemon has not answered yet applied on top by
// the board's rules (rules.js), in the order called. The application shows
// that at once; the daemon's answers then confirm it or roll an action back.
// The one copy of the idea for the library's Board (board.js) and the
// dashboard's page; Tests/vectors/pending.json pins it, as it pins the
// Python and Swift libraries. Pure: no socket, no timer, no event.
//
// An entry stays until it is answered. While its own change is not yet in
// the confirmed board it is applied on top; once it is (its patch landed,
// or its ack's rev reached) it is skipped, so a toggle never shows flipped
// twice between its patch and its ack.

import { applyAction } from './rules.js';
import { applyPatch, deepEqual } from './patch.js';

export class PendingActions {
  /** session: this connection's `hello` session, which the daemon puts in `by` of the patches our actions make. */
  constructor({ session = null, limits } = {}) {
    this.sessions = [];      // this client's sessions so far, the last 16
    this.session = session;
    this.limits = limits;
    this.confirmed = null;   // the daemon's board (null before a snapshot and after a deletion)
    this.rev = null;         // its rev
    this.entries = [];       // { key, action, ifRev, landed, acked }, in the order called
    this.shown = null;
  }

  /**
   * The session of each new connection. The ones before it are kept: a
   * resume after a cut brings the patch of an action sent on the old
   * connection, `by` its session, and that patch is still ours.
   */
  set session(s) {
    if (s !== null && s !== undefined) this.sessions = [...this.sessions.filter((x) => x !== s), s].slice(-16);
  }
  get session() { return this.sessions.length ? this.sessions[this.sessions.length - 1] : null; }

  /** The board to show: the confirmed one itself while nothing pending changes it. */
  get state() { return this.shown; }
  get keys() { return this.entries.map((e) => e.key); }
  get size() { return this.entries.length; }

  /** An action called (connected or not); `key` names it in ack/refuse. */
  act(key, action) {
    const ifRev = action.ifRev === undefined ? null : action.ifRev;
    this.entries.push({ key, action, ifRev, landed: null, acked: null });
    this.settle();
  }

  /** A snapshot (the first, or a resync): the confirmed board replaced; the entries keep their marks. */
  confirm(board, rev) {
    this.confirmed = board;
    this.rev = rev;
    this.settle();
  }

  /** The daemon's patch, for an owner without a mirror: applies `ops` to the confirmed board. */
  patch(rev, ops, by) {
    this.patched(this.confirmed, applyPatch(this.confirmed, ops), rev, by);
  }

  /**
   * The confirmed board moved from `before` to `after` by the patch at `rev`
   * (the owner's mirror applied it). A patch of ours (`by` our session, or
   * absent: over HTTP, which is how the stream sends our actions) whose
   * result is exactly the first unanswered action applied to `before` is
   * that action landing. Only the first is tried: the daemon answers a
   * connection's actions on a board in order.
   */
  patched(before, after, rev, by) {
    this.confirmed = after;
    this.rev = rev;
    if (by === undefined || by === null || this.sessions.includes(by)) {
      const first = this.entries.find((e) => e.landed === null && e.acked === null);
      if (first && before !== null && (first.ifRev === null || first.ifRev === rev - 1)
        && deepEqual(this.apply(before, first.action), after)) first.landed = rev;
    }
    this.settle();
  }

  /** The action's ack (a duplicate's too): in the confirmed board once it reaches `rev`. */
  ack(key, rev) {
    for (const e of this.entries) if (e.key === key) e.acked = rev;
    this.settle();
  }

  /** The daemon refused the action, or the outbox gave it up: taken out. Returns its entry, or null. */
  refuse(key) {
    const at = this.entries.findIndex((e) => e.key === key);
    if (at < 0) return null;
    const [entry] = this.entries.splice(at, 1);
    this.settle();
    return entry;
  }

  // After every step: drop what the confirmed board holds for good, and work out the shown board again.
  settle() {
    this.entries = this.entries.filter((e) => !(e.acked !== null && this.rev !== null && this.rev >= e.acked));
    this.shown = this.build();
  }

  build() {
    let board = this.confirmed;
    if (board === null) return null;
    for (const e of this.entries) {
      if (e.landed !== null || (e.acked !== null && this.rev >= e.acked)) continue;
      if (e.ifRev !== null && e.ifRev !== this.rev) continue;
      const next = this.apply(board, e.action);
      // Refused here is not refused: the daemon decides, and answers.
      if (next !== null) board = next;
    }
    return board;
  }

  // The board after `action` by the rules, or null when they refuse it.
  apply(board, action) {
    try {
      return applyAction(board, action, this.limits).board;
    } catch {
      return null;
    }
  }
}
