// The dashboard cannot import ../js/ from the browser (the daemon serves
// clients/web alone), so until its pages load the library from /lib/ it
// keeps copies of the library's applier and mirror. One implementation
// still: the copies must be byte for byte the library's files (edit
// clients/js, then copy). Delete this test when clients/web stops holding them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (rel) => readFileSync(new URL(`../../../${rel}`, import.meta.url), 'utf8');

for (const name of ['patch.js', 'mirror.js']) {
  test(`clients/web/${name} is a copy of clients/js/${name}`, () => {
    assert.ok(read(`clients/web/${name}`) === read(`clients/js/${name}`),
      `clients/web/${name} differs from clients/js/${name}: change clients/js/${name} and copy it over`);
  });
}
