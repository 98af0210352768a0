// An item read for showing: the JavaScript twin of Item.swift
// (Sources/FoldCore/Board). A string is its own label; an object gives
// `label` and, when present and a string, `detail`, `href`, `badge` and `id`.
// Lenient on purpose: the page shows what the daemon sent, even a document
// that was written around it. A link is kept only when it passes the link
// rule (the library's link.js, the twin of Link.swift); anything else is no
// link at all. Pure: no DOM.

import { safeHref } from '/lib/link.js';

export { safeHref };

const text = (v) => (typeof v === 'string' ? v : null);

// { label, detail, href, badge, id }: strings, or null when absent.
export function itemFields(item) {
  if (typeof item === 'string') return { label: item, detail: null, href: null, badge: null, id: null };
  if (item === null || typeof item !== 'object' || Array.isArray(item) || typeof item.label !== 'string') {
    return { label: JSON.stringify(item), detail: null, href: null, badge: null, id: null };
  }
  return { label: item.label, detail: text(item.detail), href: safeHref(item.href), badge: text(item.badge), id: text(item.id) };
}
