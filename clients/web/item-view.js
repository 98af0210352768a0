// An item read for showing: the JavaScript twin of Item.swift and Link.swift
// (Sources/FoldCore/Board). A string is its own label; an object gives
// `label` and, when present and a string, `detail`, `href`, `badge` and `id`.
// Lenient on purpose: the page shows what the daemon sent, even a document
// that was written around it. A link is kept only when it is an http, https
// or mailto URL with no whitespace, control or invisible formatting
// character anywhere (browsers drop tabs and newlines inside URLs, so
// `java\tscript:` must not pass);
// anything else (`javascript:`, `data:`, a relative path) is no link at all.
// Pure: no DOM.

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
// As Link.swift: ASCII controls and space, C1 controls, every Unicode space
// or line break (\s), and invisible formatting (\p{Cf}: bidi overrides,
// zero-width spaces, a byte-order mark) that would disguise a link.
const FORBIDDEN = /[\u0000-\u0020\u007f-\u009f\s\p{Cf}]/u;

export function safeHref(href) {
  if (typeof href !== 'string' || FORBIDDEN.test(href)) return null;
  const m = SCHEME.exec(href);
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  const rest = href.slice(m[0].length);
  if (scheme === 'mailto') return rest.length > 0 ? href : null;
  if (scheme !== 'http' && scheme !== 'https') return null;
  // An authority, so the link cannot be a path on the page's own host.
  return rest.length > 2 && rest.startsWith('//') && rest[2] !== '/' ? href : null;
}

const text = (v) => (typeof v === 'string' ? v : null);

// { label, detail, href, badge, id }: strings, or null when absent.
export function itemFields(item) {
  if (typeof item === 'string') return { label: item, detail: null, href: null, badge: null, id: null };
  if (item === null || typeof item !== 'object' || Array.isArray(item) || typeof item.label !== 'string') {
    return { label: JSON.stringify(item), detail: null, href: null, badge: null, id: null };
  }
  return { label: item.label, detail: text(item.detail), href: safeHref(item.href), badge: text(item.badge), id: text(item.id) };
}
