// The real foldsyncd under test: $FOLDSYNCD, else .build/debug/foldsyncd at
// the repository's root; a fresh temporary store each; port 0 (its log names
// the port it picked), or a given one to come back on after a kill. Every
// daemon a test file starts is killed when the file's process exits. And
// what tests share about it: board documents, the mirror held to GET, a
// daemon that takes JWTs, a seeded random source.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DAEMON = process.env.FOLDSYNCD || join(ROOT, '.build', 'debug', 'foldsyncd');

const running = new Set();
process.on('exit', () => { for (const child of running) child.kill('SIGKILL'); });

export function daemonPath() {
  try { accessSync(DAEMON, constants.X_OK); } catch {
    throw new Error(`foldsyncd not found at ${DAEMON}: set FOLDSYNCD=/path/to/foldsyncd or run 'swift build --product foldsyncd'`);
  }
  return DAEMON;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls `check` every 20 ms until it returns something truthy; fails after `ms`.
export async function waitFor(check, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await sleep(20);
  }
}

export class Daemon {
  constructor(args = []) {
    this.args = args;
    this.dir = mkdtempSync(join(tmpdir(), 'foldsync-js-'));
    this.db = join(this.dir, 'fold.db');
    this.port = 0;
    this.child = null;
    this.output = '';
  }

  static async start(args = []) {
    const d = new Daemon(args);
    await d.start();
    return d;
  }

  get url() { return `ws://127.0.0.1:${this.port}/ws`; }
  get base() { return `http://127.0.0.1:${this.port}`; }

  async start() {
    const child = spawn(daemonPath(), ['--listen', `127.0.0.1:${this.port}`, '--db', this.db, ...this.args],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    running.add(child);
    let output = '';
    let exited = null;
    const take = (chunk) => { output += chunk; this.output += chunk; };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (code, signal) => { exited = { code, signal }; running.delete(child); });
    await waitFor(async () => {
      if (exited) {
        throw new Error(`foldsyncd ${this.args.join(' ')} exited (${exited.code ?? exited.signal}) before it listened:\n${output.trim()}`);
      }
      if (this.port === 0) {
        const m = output.match(/listening on 127\.0\.0\.1:(\d+)/);
        if (!m) return false;
        this.port = Number(m[1]);
      }
      try { return (await fetch(`${this.base}/healthz`)).ok; } catch { return false; }
    }, 15000, `foldsyncd to listen:\n${output}`);
  }

  // The daemon goes away at once, without closing its connections.
  async kill() { await this.signal('SIGKILL'); }

  // A graceful stop: its clients get 1001.
  async stop() { await this.signal('SIGTERM'); }

  async signal(name) {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill(name);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    await gone;
    clearTimeout(timer);
  }

  async dispose() {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  // ---- the HTTP API ----
  async request(method, path, body, token) {
    const headers = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const r = await fetch(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }

  async get(path, token) {
    const r = await this.request('GET', path, undefined, token);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  board(name, token) { return this.get(`/api/boards/${name}`, token); }

  async put(name, state, token) {
    const r = await this.request('PUT', `/api/boards/${name}`, state, token);
    if (r.status !== 200) throw new Error(`PUT ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async action(name, action, token) {
    const r = await this.request('POST', `/api/boards/${name}/actions`, action, token);
    if (r.status !== 200) throw new Error(`POST ${name} ${action.type}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.rev;
  }

  async remove(name, token) {
    const r = await this.request('DELETE', `/api/boards/${name}`, undefined, token);
    if (r.status !== 204) throw new Error(`DELETE ${name}: ${r.status}`);
  }
}

// ---- what the tests put on boards and check against the daemon ----

// A board document: sections with these ids, folded, two items each.
export function boardDoc(ids, mode = 'multi') {
  return { mode, sections: ids.map((id) => ({ id, title: id.toUpperCase(), items: ['one', 'two'], expanded: false })) };
}

// The mirror's promise: once the board has caught up with the daemon, its
// state, rev and epoch equal GET /api/boards/NAME.
export async function assertMirror(d, board, token) {
  const got = await d.board(board.name, token);
  await waitFor(() => board.rev >= got.rev, 5000, () => `the mirror of '${board.name}' to reach rev ${got.rev} (at ${board.rev})`);
  const now = await d.board(board.name, token);
  assert.deepStrictEqual({ rev: board.rev, epoch: board.epoch, state: board.confirmed }, { rev: now.rev, epoch: now.epoch, state: now.state },
    `the mirror of '${board.name}' equals GET`);
}

// A daemon that accepts JWTs signed with an HS256 secret of its own;
// `mint(claims)` signs one.
export async function jwtDaemon(args = []) {
  const d = new Daemon();
  const secret = randomBytes(24).toString('hex');   // 48 bytes
  const keyFile = join(d.dir, 'jwt.key');
  writeFileSync(keyFile, secret, { mode: 0o600 });
  d.args = ['--jwt-key', `HS256:${keyFile}`, ...args];
  await d.start();
  const b64url = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const mint = (claims) => {
    const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}`;
    return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
  };
  return { d, mint };
}

// mulberry32: small, seedable, good enough to pick actions.
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
