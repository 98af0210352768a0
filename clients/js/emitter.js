// Listeners by event name. A listener that throws must not stop the client
// (it runs inside the socket's message handler), so its error is reported
// on the console and the others still run.

export class Emitter {
  constructor() { this.listeners = new Map(); }

  // Returns a function that removes the listener.
  on(event, fn) {
    if (typeof fn !== 'function') throw new TypeError('a listener is a function');
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event).add(fn);
    return () => this.off(event, fn);
  }

  off(event, fn) { this.listeners.get(event)?.delete(fn); }

  emit(event, value) {
    for (const fn of [...(this.listeners.get(event) ?? [])]) {
      try { fn(value); } catch (e) { console.error(`foldsync: a "${event}" listener threw`, e); }
    }
  }
}
