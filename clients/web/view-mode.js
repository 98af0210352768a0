// Follow or browse, for one page: the JavaScript twin of the terminal
// client's LiveModel+Browsing.swift. Following, the page shows the board's
// folds. Browsing, folds are this page's own (the board's accordion rule
// still applies in single mode) and nothing is sent, while the board's edits
// keep arriving. follow() snaps back to the board. Pure: no DOM, no socket.

export class ViewMode {
  constructor() {
    this.local = null;        // section id -> expanded, while browsing; null while following
    this.copies = new Map();  // section id -> { src, obj }: a shown copy kept while its section is unchanged
  }

  get following() { return this.local === null; }

  browse(doc) {
    this.local = new Map((doc ? doc.sections : []).map((s) => [s.id, s.expanded]));
  }

  follow() {
    this.local = null;
    this.copies.clear();
  }

  // The sections as this page shows them. A section whose shown fold is the
  // board's is the board's own object, a copy otherwise (the same copy while
  // neither changes), so the renderer's identity check still skips what did
  // not change. Sections added since browsing began take the board's flag.
  sections(doc) {
    if (this.local === null) return doc.sections;
    let open = false;
    return doc.sections.map((s) => {
      let expanded = this.local.has(s.id) ? this.local.get(s.id) : s.expanded;
      if (doc.mode === 'single' && open) expanded = false;
      open = open || expanded;
      if (expanded === s.expanded) return s;
      const kept = this.copies.get(s.id);
      if (kept && kept.src === s && kept.obj.expanded === expanded) return kept.obj;
      const obj = { ...s, expanded };
      this.copies.set(s.id, { src: s, obj });
      return obj;
    });
  }

  // A fold while browsing: `toggle` with the section's id, `expandAll`,
  // `collapseAll`. Returns an error message (the daemon's rule) or null.
  fold(doc, type, id) {
    const shown = this.sections(doc);
    if (type === 'expandAll' && doc.mode === 'single') return 'expandAll is not allowed in single mode';
    if (type === 'expandAll' || type === 'collapseAll') {
      for (const s of shown) this.local.set(s.id, type === 'expandAll');
      return null;
    }
    const s = shown.find((x) => x.id === id);
    if (!s) return null;
    const open = !s.expanded;
    if (open && doc.mode === 'single') for (const x of shown) this.local.set(x.id, false);
    this.local.set(id, open);
    return null;
  }
}
