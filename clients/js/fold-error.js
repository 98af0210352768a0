// The one error type of the client: the daemon's refusals keep the
// protocol's `code` (docs/PROTOCOL.md, "Error codes"), so applications match
// on it. `expired` is the daemon's (a settled key) and the outbox's (an
// action it gave up on before sending it): either way, never applied. One
// code is the client's own (docs/CLIENTS.md, "Errors"): `disconnected`,
// after close() (an action already sent may or may not have happened).

export class FoldError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'FoldError';
    this.code = code;
    if (details.board !== undefined) this.board = details.board;
    if (details.status !== undefined) this.status = details.status;
  }
}
