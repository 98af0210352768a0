// A few words for the status strip about what a patch did ("“Alpha”
// expanded", "renamed “Beta”"). Pure: reads the operations and the board
// after them, never the rest of the board.

import { parsePointer } from './patch.js';
import { itemFields } from './item-view.js';

export function describeChange(ops, next) {
  const op = ops[0];
  if (!op) return '';
  const t = parsePointer(op.path);
  const s = t[0] === 'sections' && t.length >= 2 ? next.sections[Number(t[1])] : null;
  const name = s ? `“${s.title}”` : '';
  if (t[0] === 'mode') return `: mode ${next.mode}`;
  // A focus (its own op, or after the expand it brought): name the item.
  const f = ops.find((o) => o.path === '/focus');
  if (f && (t[0] === 'focus' || t[2] === 'expanded')) {
    if (f.op === 'remove') return ': focus cleared';
    const sec = next.sections.find((x) => x.id === next.focus?.section);
    const item = sec ? sec.items[next.focus.item] : undefined;
    return item === undefined ? ': focus moved' : `: focus on “${itemFields(item).label}”`;
  }
  if (t.length === 3 && t[2] === 'expanded' && s) {
    // An accordion toggle closes one section and opens another in one patch: name the opened one.
    const opened = ops.map((o) => parsePointer(o.path)).find((p) => p[2] === 'expanded' && next.sections[Number(p[1])]?.expanded);
    const openedTitle = opened ? `“${next.sections[Number(opened[1])].title}”` : null;
    return openedTitle ? `: ${openedTitle} expanded` : `: ${name} collapsed`;
  }
  if (t.length === 3 && t[2] === 'title') return `: renamed ${name}`;
  if (t.length >= 3 && t[2] === 'items') return `: items of ${name}`;
  if (op.op === 'move') return ': sections reordered';
  if (op.op === 'add' && t.length === 2) return `: added ${name}`;
  if (op.op === 'remove' && t.length === 2) return ': section removed';
  return '';
}
