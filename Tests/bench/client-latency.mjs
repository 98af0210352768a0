// Figures, not a test: one subscriber's change-to-callback latency through
// the JavaScript library, over the WebSocket and over the event stream, in
// the same window, against the same daemon. A writer posts one change at a
// time over HTTP; each subscriber's `change` callback stops the clock. Three
// rounds of N changes; prints each round's median and p99 and the medians of
// the three, with the stream/WebSocket ratio.
//
//   FOLDSYNCD=.build-release/release/foldsyncd node --experimental-websocket Tests/bench/client-latency.mjs [N]

import { connect } from '../../clients/js/foldsync.js';
import { Daemon } from '../js-client/daemon.mjs';

const N = Number(process.argv[2] || 300);
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const median = (xs) => quantile(xs, 0.5);

const d = await Daemon.start(['--coalesce-ms', '0']);
const ws = connect(d.url, { transport: 'websocket' });
const stream = connect(d.url, { transport: 'stream' });
const boards = { websocket: await ws.subscribe('default'), stream: await stream.subscribe('default') };
const waiting = new Map();
for (const [name, board] of Object.entries(boards)) {
  board.on('change', (c) => { const w = waiting.get(`${name}:${c.rev}`); if (w) { waiting.delete(`${name}:${c.rev}`); w(performance.now()); } });
}
const rounds = [];
let rev = boards.websocket.rev;
for (let round = 0; round < 3; round++) {
  const lat = { websocket: [], stream: [] };
  for (let i = 0; i < N; i++) {
    rev += 1;
    const arrived = Object.keys(boards).map((name) => new Promise((resolve) => waiting.set(`${name}:${rev}`, resolve)));
    const t0 = performance.now();
    const r = await fetch(`${d.base}/api/boards/default/actions`, { method: 'POST', body: JSON.stringify({ type: 'toggle', section: 's1' }) });
    await r.json();
    const [a, b] = await Promise.all(arrived);
    lat.websocket.push(a - t0);
    lat.stream.push(b - t0);
  }
  rounds.push(lat);
  console.log(`round ${round + 1}: websocket median ${median(lat.websocket).toFixed(2)} ms p99 ${quantile(lat.websocket, 0.99).toFixed(2)} ms; ` +
              `stream median ${median(lat.stream).toFixed(2)} ms p99 ${quantile(lat.stream, 0.99).toFixed(2)} ms`);
}
const m = (t) => median(rounds.map((r) => median(r[t])));
const p = (t) => median(rounds.map((r) => quantile(r[t], 0.99)));
console.log(`medians of 3 (${N} changes each): websocket ${m('websocket').toFixed(2)} ms (p99 ${p('websocket').toFixed(2)}), ` +
            `stream ${m('stream').toFixed(2)} ms (p99 ${p('stream').toFixed(2)}); stream/websocket ${(m('stream') / m('websocket')).toFixed(2)}x`);
ws.close(); stream.close();
await d.stop?.();
process.exit(0);
