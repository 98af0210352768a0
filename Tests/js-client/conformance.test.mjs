// The patch applier (clients/js/patch.js) against the RFC 6902 conformance
// suite: $FOLDSYNC_CONFORMANCE_DIR (the suite or its parent), else
// ../shared/conformance beside the repository, else /work/shared/conformance.
// Read from there, never copied into the project.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyPatch } from '../../clients/js/foldsync.js';
import { ROOT } from './daemon.mjs';

function suiteDir() {
  const env = process.env.FOLDSYNC_CONFORMANCE_DIR;
  const places = env ? [env, join(env, 'json-patch-tests')]
    : [join(ROOT, '..', 'shared', 'conformance', 'json-patch-tests'), '/work/shared/conformance/json-patch-tests'];
  const found = places.find((d) => existsSync(join(d, 'tests.json')));
  if (!found) throw new Error(`the JSON Patch conformance suite is not in ${places.join(' or ')}; set FOLDSYNC_CONFORMANCE_DIR`);
  return found;
}

for (const file of ['tests.json', 'spec_tests.json']) {
  test(`conformance: ${file}`, () => {
    const records = JSON.parse(readFileSync(join(suiteDir(), file), 'utf8'))
      .map((r, i) => ({ where: `${file}#${i} ${r.comment ?? ''}`, ...r }))
      .filter((r) => !r.disabled && 'patch' in r && 'doc' in r);
    assert.ok(records.length > 10, 'suite too small');
    const failures = [];
    for (const r of records) {
      const before = JSON.stringify(r.doc);
      let got, err = null;
      try { got = applyPatch(r.doc, r.patch); } catch (e) { err = e; }
      if (JSON.stringify(r.doc) !== before) failures.push(`${r.where}: the input document was modified`);
      if ('error' in r) { if (!err) failures.push(`${r.where}: applied, expected the error ${r.error}`); }
      else if (err) failures.push(`${r.where}: ${err.message}`);
      else if ('expected' in r) {
        try { assert.deepStrictEqual(got, r.expected); } catch { failures.push(`${r.where}: got ${JSON.stringify(got)}`); }
      }
    }
    assert.deepEqual(failures, []);
  });
}
