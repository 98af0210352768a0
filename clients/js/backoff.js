// The reconnect delay every foldsync client uses (Tests/vectors/backoff.json;
// the terminal client's Sources/FoldCore/Support/Backoff.swift): from 500 ms,
// doubling per failed attempt, capped at 10 s, with equal jitter. The fixed
// half keeps a restarted daemon from being hit by every client at once and
// still bounds the wait; the random half spreads them.

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 10000;

// attempt: failed attempts since the last connection that reached `connected` (0 first).
export function backoffDelay(attempt, random = Math.random) {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
