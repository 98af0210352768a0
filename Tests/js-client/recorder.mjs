// What a client and its boards reported, in order, for assertions; and
// bounded waits on it. And what went by on a stream client's event streams.

import { waitFor } from './daemon.mjs';

export class Recorder {
  constructor(client) {
    this.states = [];
    this.changes = [];   // the daemon's changes (patches, resyncs)
    this.locals = [];    // the optimistic state's own: an action shown, or rolled back
    this.presence = [];
    this.errors = [];
    this.authenticated = [];
    client.on('state', (s) => this.states.push(s));
    client.on('error', (e) => this.errors.push(e));
    client.on('authenticated', (a) => this.authenticated.push(a));
  }

  watch(board) {
    board.on('change', (c) => (c.local ? this.locals : this.changes).push({ board: board.name, ...c }));
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

// A fetch for the stream transport that passes everything through and
// keeps what went by on the event streams: each stream opened (its URL and
// when), and each heartbeat comment (`: heartbeat`) with its time. The
// bytes are the daemon's, read off the real socket; only counted on the way.
export function streamWatcher(inner = globalThis.fetch) {
  const watcher = { streams: [], heartbeats: [], fetch: null };
  watcher.fetch = async (url, init) => {
    const response = await inner(url, init);
    if (!new URL(url).pathname.endsWith('/events') || !response.body) return response;
    const stream = { url: String(url), at: Date.now(), status: response.status };
    watcher.streams.push(stream);
    const decoder = new TextDecoder();
    let partial = '';
    const counter = new TransformStream({
      transform(chunk, out) {
        const lines = (partial + decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
        partial = lines.pop();
        for (const line of lines) if (line === ': heartbeat') watcher.heartbeats.push({ url: stream.url, at: Date.now() });
        out.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return watcher;
}
