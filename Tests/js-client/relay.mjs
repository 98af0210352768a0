// A TCP relay on 127.0.0.1 between a client and the real daemon: pause()
// cuts every connection and refuses new ones while the daemon stays up, so
// a test can change boards "while the client was away" without racing the
// client's reconnect; resume() listens again on the same port.
//
// For the outbox's cases it reads what the client sends: HTTP requests one
// by one, and after a WebSocket upgrade the client's frames (unmasked to be
// read, forwarded as they came). A client message that carries an action —
// with its `key` (a WebSocket action or settle, a POST to .../actions with
// Idempotency-Key, a POST .../settle), or without one from a client that
// sends none (info.key null) — is shown to `onKeyed(info)`, which answers
//   'pass'  forward it;
//   'after' forward it, then drop whatever the daemon sends back and cut
//           the connection as soon as the daemon answers (it has committed
//           the action by then: a patch or an ack follows the commit), so
//           the answer is lost;
//   'drop'  do not forward it, and cut the connection.
// Every such message is logged in `keyed` ({ via, type, key, action, path, what }).
// With `holdAfterCut` set, a cut also pauses the relay (the client stays
// away until resume()).
//
// `delayMs` adds that much latency each way: every chunk is forwarded that
// long after it came, in the order it came (the optimistic state's tests
// and Tests/bench/bench-fold-latency.mjs: an action's answer a round trip away).

import { createServer, connect } from 'node:net';

// How long an 'after' cut waits for the daemon's answer before cutting anyway.
const AFTER_WAIT_MS = 2000;

export class Relay {
  constructor(targetPort) {
    this.targetPort = targetPort;
    this.sockets = new Set();
    this.port = 0;
    this.server = null;
    this.connections = 0;   // accepted since the start: the client's attempts that got through
    this.refuseUpgrades = false;
    this.upgradesRefused = 0;
    this.onKeyed = null;    // (info) => 'pass' | 'after' | 'drop'
    this.keyed = [];        // every keyed client message seen, with what was done with it
    this.cuts = 0;
    this.holdAfterCut = false;
    this.delayMs = 0;
  }

  static async start(targetPort, { delayMs = 0 } = {}) {
    const r = new Relay(targetPort);
    r.delayMs = delayMs;
    await r.resume();
    return r;
  }

  get url() { return `ws://127.0.0.1:${this.port}/ws`; }

  resume() {
    this.server = createServer((inbound) => this.relay(inbound));
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => { this.port = this.server.address().port; resolve(); });
    });
  }

  relay(inbound) {
    this.connections += 1;
    const outbound = connect(this.targetPort, '127.0.0.1');
    let swallowing = false;   // after an 'after': the daemon's answer is dropped, and ends the pair
    let cut = false;
    for (const s of [inbound, outbound]) {
      this.sockets.add(s);
      s.on('close', () => { this.sockets.delete(s); inbound.destroy(); outbound.destroy(); });
      s.on('error', () => {});
    }
    const cutNow = () => {
      if (cut) return;
      cut = true;
      this.cuts += 1;
      inbound.destroy();
      outbound.destroy();
      if (this.holdAfterCut) this.pause();
    };
    // Timers of one delay fire in the order set: the bytes keep their order.
    const forward = (to, bytes) => {
      if (this.delayMs <= 0) { if (!to.destroyed) to.write(bytes); return; }
      const copy = Buffer.from(bytes);
      setTimeout(() => { if (!to.destroyed) to.write(copy); }, this.delayMs);
    };
    outbound.on('data', (chunk) => {
      if (swallowing) { cutNow(); return; }
      forward(inbound, chunk);
    });

    // What the client sent and the relay has not yet forwarded (a message split between chunks).
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    const decide = (info, bytes) => {
      const what = this.onKeyed ? this.onKeyed(info) ?? 'pass' : 'pass';
      this.keyed.push({ ...info, what });
      if (what === 'drop') { cutNow(); return false; }
      forward(outbound, bytes);
      if (what === 'after') {
        swallowing = true;
        setTimeout(cutNow, AFTER_WAIT_MS);
      }
      return true;
    };
    inbound.on('data', (chunk) => {
      if (cut) return;
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const one = upgraded ? wsFrame(buffer) : httpRequest(buffer);
        if (one === null) return;
        const bytes = buffer.subarray(0, one.length);
        buffer = buffer.subarray(one.length);
        if (!upgraded && one.upgrade) {
          if (this.refuseUpgrades) {
            this.upgradesRefused += 1;
            cutNow();
            return;
          }
          upgraded = true;
        }
        const info = upgraded ? one.message && keyedMessage(one.message) : keyedRequest(one);
        if (info) {
          if (!decide(info, bytes)) return;
        } else {
          forward(outbound, bytes);
        }
        if (cut) return;
      }
    });
  }

  pause() {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  close() { return this.pause(); }
}

// ---- reading what the client sends ----

// One whole HTTP request at the start of `buf` (headers, and a body of
// Content-Length), or null until it has all come.
function httpRequest(buf) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.subarray(0, end).toString('latin1');
  const lines = head.split('\r\n');
  const headers = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const size = Number(headers['content-length'] ?? 0);
  const length = end + 4 + size;
  if (buf.length < length) return null;
  const [method, path] = lines[0].split(' ');
  return {
    length, method, path, headers,
    body: buf.subarray(end + 4, length).toString('utf8'),
    upgrade: /websocket/i.test(headers.upgrade ?? ''),
  };
}

function keyedRequest(req) {
  if (req.method !== 'POST') return null;
  if (req.headers['idempotency-key'] !== undefined || /\/actions$/.test(req.path)) {
    let action = null;
    try { action = JSON.parse(req.body); } catch { /* not ours to judge */ }
    return { via: 'http', type: action?.type ?? null, key: req.headers['idempotency-key'] ?? null, action, path: req.path };
  }
  if (/\/settle$/.test(req.path)) {
    let body = null;
    try { body = JSON.parse(req.body); } catch { /* idem */ }
    return { via: 'http', type: 'settle', key: body?.key ?? null, action: body, path: req.path };
  }
  return null;
}

// One whole WebSocket frame from the client at the start of `buf` (RFC 6455:
// masked), with its text unmasked when it is a text frame; null until it has all come.
function wsFrame(buf) {
  if (buf.length < 2) return null;
  const opcode = buf[0] & 0x0f;
  const masked = (buf[1] & 0x80) !== 0;
  let size = buf[1] & 0x7f;
  let at = 2;
  if (size === 126) {
    if (buf.length < 4) return null;
    size = buf.readUInt16BE(2);
    at = 4;
  } else if (size === 127) {
    if (buf.length < 10) return null;
    size = Number(buf.readBigUInt64BE(2));
    at = 10;
  }
  const mask = masked ? at : -1;
  if (masked) at += 4;
  const length = at + size;
  if (buf.length < length) return null;
  let message = null;
  if (opcode === 1) {
    const payload = Buffer.from(buf.subarray(at, length));
    if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= buf[mask + (i % 4)];
    message = payload.toString('utf8');
  }
  return { length, message };
}

function keyedMessage(text) {
  let m;
  try { m = JSON.parse(text); } catch { return null; }
  // An action is the one message with an `id`.
  if (m === null || typeof m !== 'object' || (typeof m.key !== 'string' && m.id === undefined)) return null;
  return { via: 'ws', type: m.type, key: typeof m.key === 'string' ? m.key : null, action: m, path: null };
}
