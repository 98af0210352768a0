// One case of Tests/vectors/session.json run through session.js, with the
// Swift runner's matching rule (Tests/FoldSessionTests/SessionVectorTests.swift):
// the same number of outputs, the same kinds in order, every field the case
// names equal (a `send` compared whole). Shared by session-vectors.test.mjs
// and the dashboard's Tests/web/unit/vectors.test.mjs.
import { Session } from '../../clients/js/session.js';
import { deepEqual } from '../../clients/js/patch.js';

// The vectors' output vocabulary: a rolled-back action is named by its key and code.
function vector(output) {
  if (!output.change?.rolledBack) return output;
  const { key, code } = output.change.rolledBack;
  return { change: { ...output.change, rolledBack: { key, code } } };
}

export function matches(got, want) {
  if (got.length !== want.length) return false;
  return got.every((g, i) => {
    const [kind, body] = Object.entries(g)[0];
    const w = want[i][kind];
    if (w === undefined || Object.keys(want[i]).length !== 1) return false;
    if (kind === 'send') return deepEqual(body, w);
    // A field the machine leaves out is null, as the Swift runner writes it.
    return Object.entries(w).every(([field, value]) => deepEqual(body[field] === undefined ? null : body[field], value));
  });
}

/** Null when every step of case `c` gives what it names, else what the first one that does not gave. */
export function sessionCaseFailure(c) {
  const session = new Session({ clientId: c.client ?? 'c1', token: c.token ?? 'none', outbox: c.outbox ?? {}, endpoints: c.endpoints ?? 1 });
  let now = 0;
  for (const [i, step] of (c.steps ?? []).entries()) {
    if (step.at !== undefined) now = step.at;
    const got = session.handle(step.in, now, step.random ?? 0.5).map(vector);
    const want = step.out ?? [];
    if (!matches(got, want)) {
      const text = (outputs) => outputs.map((o) => JSON.stringify(o)).join('\n  ');
      return `${c.name}, step ${i}: got\n  ${text(got)}\nwanted\n  ${text(want)}`;
    }
  }
  return null;
}
