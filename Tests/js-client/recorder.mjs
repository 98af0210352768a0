// What a client and its boards reported, in order, for assertions; and
// bounded waits on it.

import { waitFor } from './daemon.mjs';

export class Recorder {
  constructor(client) {
    this.states = [];
    this.changes = [];
    this.presence = [];
    this.errors = [];
    this.authenticated = [];
    client.on('state', (s) => this.states.push(s));
    client.on('error', (e) => this.errors.push(e));
    client.on('authenticated', (a) => this.authenticated.push(a));
  }

  watch(board) {
    board.on('change', (c) => this.changes.push({ board: board.name, ...c }));
    board.on('presence', (p) => this.presence.push({ board: board.name, ...p }));
    return board;
  }

  names() { return this.states.map((s) => s.state); }

  // Waits until the client reports `state` at index >= from; returns that index.
  async state(name, ms = 15000, from = 0) {
    const found = await waitFor(() => {
      const i = this.states.findIndex((s, n) => n >= from && s.state === name);
      return i >= 0 ? i + 1 : 0;
    }, ms, `state ${name} after #${from} (have ${this.names().join(', ')})`);
    return found - 1;
  }

  async change(predicate, ms = 5000, what = 'a change') {
    return waitFor(() => this.changes.find(predicate), ms, what);
  }
}
