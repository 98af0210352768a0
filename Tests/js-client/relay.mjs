// A TCP relay on 127.0.0.1 between a client and the real daemon: pause()
// cuts every connection and refuses new ones while the daemon stays up, so
// a test can change boards "while the client was away" without racing the
// client's reconnect; resume() listens again on the same port.

import { createServer, connect } from 'node:net';

export class Relay {
  constructor(targetPort) {
    this.targetPort = targetPort;
    this.sockets = new Set();
    this.port = 0;
    this.server = null;
    this.connections = 0;   // accepted since the start: the client's attempts that got through
    this.refuseUpgrades = false;
    this.upgradesRefused = 0;
  }

  static async start(targetPort) {
    const r = new Relay(targetPort);
    await r.resume();
    return r;
  }

  get url() { return `ws://127.0.0.1:${this.port}/ws`; }

  resume() {
    this.server = createServer((inbound) => {
      this.connections += 1;
      const outbound = connect(this.targetPort, '127.0.0.1');
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('close', () => { this.sockets.delete(s); inbound.destroy(); outbound.destroy(); });
        s.on('error', () => {});
      }
      // Every request on the connection is looked at (a client may send the
      // upgrade on a kept-alive one); the tail of the last chunk is kept in
      // case the header was split between two.
      let tail = '';
      inbound.on('data', (chunk) => {
        const text = tail + chunk.toString('latin1');
        tail = text.slice(-64);
        if (this.refuseUpgrades && /\r\nupgrade:[ \t]*websocket/i.test(text)) {
          this.upgradesRefused += 1;
          inbound.destroy();
          outbound.destroy();
          return;
        }
        outbound.write(chunk);
      });
      outbound.pipe(inbound);
    });
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => { this.port = this.server.address().port; resolve(); });
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
