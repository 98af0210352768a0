// The one rule for an item's `href`: the JavaScript twin of Link.swift
// (Sources/FoldCore/Board). A link is kept only when it is an http, https
// or mailto URL with no whitespace, control or invisible formatting
// character anywhere (browsers drop tabs and newlines inside URLs, so
// `java\tscript:` must not pass); anything else (`javascript:`, `data:`, a
// relative path) is no link at all. The library's rules (rules.js) refuse
// such an item as the daemon does; the dashboard (clients/web/item-view.js)
// shows it without its link.
//
// The dashboard imports this very file: the daemon serves clients/js at /lib/.

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
// As Link.swift: ASCII controls and space, C1 controls, every Unicode space
// or line break (\s), and invisible formatting (\p{Cf}: bidi overrides,
// zero-width spaces, a byte-order mark) that would disguise a link.
const FORBIDDEN = /[\u0000-\u0020\u007f-\u009f\s\p{Cf}]/u;

/** `href` when it is an allowed link, else null. */
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
