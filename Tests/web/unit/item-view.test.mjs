// clients/web/item-view.js: typed items read for showing, and the link rule
// (the same cases as Tests/FoldCoreTests/ItemRuleTests.swift).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemFields, safeHref } from '../../../clients/web/item-view.js';

test('every field of an object item, a string as its label', () => {
  assert.deepEqual(itemFields({ label: 'L', detail: 'd', href: 'https://example.com/a', badge: 'new', id: 'x', mine: 1 }),
    { label: 'L', detail: 'd', href: 'https://example.com/a', badge: 'new', id: 'x' });
  assert.deepEqual(itemFields('s'), { label: 's', detail: null, href: null, badge: null, id: null });
  assert.equal(itemFields({ n: 1 }).label, '{"n":1}');
  assert.deepEqual(itemFields({ label: 'L', detail: 3, badge: null }), { label: 'L', detail: null, href: null, badge: null, id: null });
});

test('only http, https and mailto links are links', () => {
  for (const ok of ['https://example.com', 'HTTP://example.com/x?y#z', 'mailto:a@example.com', 'https://例え.jp/路径']) {
    assert.equal(safeHref(ok), ok, ok);
  }
  for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>',
    'vbscript:x', 'ftp://example.com', '/relative', 'example.com', '//example.com', 'http:/one', 'https://',
    'https:///path', 'mailto:', ' javascript:alert(1)', 'java\tscript:alert(1)', 'java\nscript:alert(1)',
    'https://exa mple.com', 'https://x/\u007f', 'https://x/\u009b31m', 'https://x/a\u00a0b', 'https://x/\u2028',
    'https://x/\u3000', '\ufeffhttps://x', 'https://x/\u202egpj.exe', 'https://exa\u200bmple.com', 1, null, undefined, {}]) {
    assert.equal(safeHref(bad), null, String(bad));
    assert.equal(itemFields({ label: 'L', href: bad }).href, null);
  }
});
