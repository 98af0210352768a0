// Every case of the client contract (clients/contract/cases.json) has a
// test of exactly its id in this folder (a `matrix` case of matrix.test.mjs
// is one test per transport, named ID [transport]); and every name foldsync.js exports
// is declared in foldsync.d.ts (no TypeScript compiler here: the .d.ts text
// is read for its `export` declarations).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as foldsync from '../../clients/js/foldsync.js';

const here = new URL('./', import.meta.url);
const read = (rel, base = here) => readFileSync(new URL(rel, base), 'utf8');

test('every contract case has a test named after its id', () => {
  const ids = JSON.parse(read('../../clients/contract/cases.json')).cases.map((c) => c.id);
  assert.ok(ids.length >= 10, 'cases.json has too few cases');
  const names = new Set();
  for (const file of readdirSync(here).filter((f) => f.endsWith('.test.mjs'))) {
    for (const m of read(file).matchAll(/\b(?:test|matrix)\(\s*(['"`])([^'"`]+)\1/g)) names.add(m[2]);
  }
  const missing = ids.filter((id) => !names.has(id));
  assert.deepEqual(missing, [], `contract cases without a test in Tests/js-client: ${missing.join(', ')}`);
});

test('every export of foldsync.js is declared in foldsync.d.ts', () => {
  const dts = read('../../clients/js/foldsync.d.ts');
  const declared = new Set();
  for (const m of dts.matchAll(/^export\s+(?:declare\s+)?(?:abstract\s+)?(?:const|let|function|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm)) declared.add(m[1]);
  for (const m of dts.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop().trim();
      if (name) declared.add(name);
    }
  }
  const exported = Object.keys(foldsync).sort();
  assert.ok(exported.length > 5);
  const undeclared = exported.filter((n) => !declared.has(n));
  assert.deepEqual(undeclared, [], `exported by foldsync.js but not declared in foldsync.d.ts: ${undeclared.join(', ')}`);
});

test('package.json ships every module of the library, and its version is VERSION', () => {
  const pkg = JSON.parse(read('../../clients/js/package.json'));
  const modules = readdirSync(new URL('../../clients/js/', import.meta.url)).filter((f) => /\.(js|d\.ts)$/.test(f)).sort();
  assert.deepEqual(pkg.files.filter((f) => /\.(js|d\.ts)$/.test(f)).sort(), modules, 'package.json "files" and the folder disagree');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.exports['.'].default, './foldsync.js');
  assert.equal(pkg.types, './foldsync.d.ts');
  assert.equal(pkg.version, foldsync.VERSION);
});
