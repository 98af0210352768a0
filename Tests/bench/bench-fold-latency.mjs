// Figures, not a test: how long after `board.toggle()` the application's
// state shows the section open, through the JavaScript library over the
// WebSocket, against the real daemon behind a relay (Tests/js-client/relay.mjs)
// that adds 0 ms and then 200 ms each way. Two ways, from the same change
// events: in `board.confirmed` (the daemon's board: what the application saw
// before optimistic state, a round trip) and in `board.state` (the shown
// board, now). Each setting: 3 runs of N toggles that open a section (each
// followed by an unmeasured one that shuts it again); prints each run's
// median and p95 and the medians of the 3, with the window's conditions.
//
//   FOLDSYNCD=/path/to/foldsyncd node --experimental-websocket Tests/bench/bench-fold-latency.mjs [N] [DELAYS_MS]
//   (N 40 by default; DELAYS_MS a comma list, "0,200" by default)

import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { connect } from '../../clients/js/foldsync.js';
import { Daemon, ROOT, boardDoc } from '../js-client/daemon.mjs';
import { Relay } from '../js-client/relay.mjs';

const N = Number(process.argv[2] || 40);
const DELAYS = (process.argv[3] || '0,200').split(',').map(Number);
const RUNS = 3;

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const median = (xs) => quantile(xs, 0.5);
const ms = (x) => `${x.toFixed(x < 1 ? 3 : 1)} ms`;
const open = (doc) => doc?.sections[1].expanded === true;

function commit() {
  try {
    const head = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch { return 'unknown'; }
}
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

// One toggle that opens s1: the times from the call to the first change
// whose `state`, and whose `confirmed`, shows it open. `confirmed` is
// undefined from a library without optimistic state: its `state` is the daemon's.
async function timeOneOpen(board) {
  const t0 = performance.now();
  let shown = null;
  let confirmed = null;
  let done;
  const both = new Promise((resolve) => { done = resolve; });
  const off = board.on('change', (c) => {
    const now = performance.now();
    if (shown === null && open(c.state)) shown = now - t0;
    if (confirmed === null && open(c.confirmed === undefined ? c.state : c.confirmed)) confirmed = now - t0;
    if (shown !== null && confirmed !== null) done();
  });
  const answer = board.toggle('s1');
  await both;
  off();
  await answer;
  await board.toggle('s1');   // shut again, unmeasured
  return { shown, confirmed };
}

// The rate limit is raised: at 0 ms toggles follow each other faster than the default 100 a second.
const DAEMON_ARGS = ['--max-actions-per-second', '100000', '--action-burst', '100000'];
const d = await Daemon.start(DAEMON_ARGS);
await d.put('bench', boardDoc(['s0', 's1', 's2', 's3']));
const started = new Date();
console.log(`bench-fold-latency: ${started.toISOString()}, commit ${commit()}, node ${process.version}, load ${load()}`);
console.log(`daemon ${d.child.spawnfile} ${DAEMON_ARGS.join(' ')}; ${N} toggles a run, ${RUNS} runs a setting; the WebSocket through the relay`);
const table = [];
for (const delay of DELAYS) {
  const relay = await Relay.start(d.port, { delayMs: delay });
  const client = connect(relay.url, { transport: 'websocket' });
  const board = await client.subscribe('bench');
  await timeOneOpen(board);   // warm up: the connection, the JIT
  const runs = [];
  for (let run = 0; run < RUNS; run++) {
    const shown = [];
    const confirmed = [];
    for (let i = 0; i < N; i++) {
      const t = await timeOneOpen(board);
      shown.push(t.shown);
      confirmed.push(t.confirmed);
    }
    runs.push({ shown, confirmed });
    console.log(`  +${delay} ms each way, run ${run + 1}: board.confirmed median ${ms(median(confirmed))} p95 ${ms(quantile(confirmed, 0.95))}; ` +
      `board.state median ${ms(median(shown))} p95 ${ms(quantile(shown, 0.95))}`);
  }
  const of = (k, q) => median(runs.map((r) => quantile(r[k], q)));
  table.push({ delay, confirmed: [of('confirmed', 0.5), of('confirmed', 0.95)], shown: [of('shown', 0.5), of('shown', 0.95)] });
  client.close();
  await relay.close();
}
console.log(`\nmedians of ${RUNS} runs (${N} toggles each), toggle() to the section open; ended ${new Date().toISOString()}, load ${load()}`);
console.log('| added each way | in board.confirmed (round trip): median | p95 | in board.state (shown): median | p95 |');
console.log('|---|---|---|---|---|');
for (const r of table) console.log(`| ${r.delay} ms | ${ms(r.confirmed[0])} | ${ms(r.confirmed[1])} | ${ms(r.shown[0])} | ${ms(r.shown[1])} |`);
await d.dispose();
process.exit(0);
