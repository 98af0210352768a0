// Where the shared JSON Patch suite lives, found as the Swift tests and
// harness.py find it: $FOLDSYNC_CONFORMANCE_DIR (the suite or its parent)
// when set, else shared/conformance/json-patch-tests walking up from here.
// Never copied into the project.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function conformanceDir() {
  const env = process.env.FOLDSYNC_CONFORMANCE_DIR;
  if (env) {
    const found = [env, join(env, 'json-patch-tests')].find((d) => existsSync(join(d, 'tests.json')));
    if (!found) throw new Error(`FOLDSYNC_CONFORMANCE_DIR=${env} holds no tests.json`);
    return found;
  }
  let d = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(d, 'shared', 'conformance', 'json-patch-tests');
    if (existsSync(join(candidate, 'tests.json'))) return candidate;
    if (dirname(d) === d) throw new Error('JSON Patch conformance suite not found; set FOLDSYNC_CONFORMANCE_DIR');
    d = dirname(d);
  }
}

// The enabled records of one suite file that carry a document and a patch.
export function records(file) {
  const all = JSON.parse(readFileSync(join(conformanceDir(), file), 'utf8'));
  return all
    .map((r, i) => ({ where: `${file}#${i} ${r.comment ?? ''}`, ...r }))
    .filter((r) => !r.disabled && 'patch' in r && 'doc' in r);
}
