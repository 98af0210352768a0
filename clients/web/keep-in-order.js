// Which items of a list may stay where they are when it is reordered: the
// longest run already in order. Everything else is moved, so moving one
// section of 1,000 moves one DOM node, not the 999 between its old place
// and its new one. Pure (no DOM), O(n log n).

// `positions[i]` is where the i-th wanted item is now, or -1 for a new one.
// Returns the set of indices i whose items stay.
export function keepInOrder(positions) {
  const tails = [];                        // tails[k]: index of the smallest last item of a run of length k+1
  const before = new Array(positions.length);
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i];
    if (p < 0) continue;
    let lo = 0, hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (positions[tails[mid]] < p) lo = mid + 1; else hi = mid;
    }
    before[i] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = i;
  }
  const keep = new Set();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = before[i]) keep.add(i);
  return keep;
}
