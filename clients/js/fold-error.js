// The one error type of the client: the daemon's refusals keep the
// protocol's `code` (docs/PROTOCOL.md, "Error codes"), so applications match
// on it; two codes are the client's own (docs/CLIENTS.md, "Errors"):
// `disconnected` and `resynced`, both meaning "the answer was lost: the
// action may or may not have happened, look at the board".

export class FoldError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'FoldError';
    this.code = code;
    if (details.board !== undefined) this.board = details.board;
    if (details.status !== undefined) this.status = details.status;
  }
}
