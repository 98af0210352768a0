// The parts of the page both views share: the status strip, the offline
// banner, the error toast, and hiding the controls a permission does not allow.

export const $ = (id) => document.getElementById(id);

let toastTimer = null;
export function toast(text, kind = 'error') {
  const t = $('toast');
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 5000);
}

export function setBanner(show, text) {
  const b = $('banner');
  if (text) b.textContent = text;
  b.hidden = !show;
  document.body.classList.toggle('offline', show);
}

// One field of the status strip (conn, rev, viewers, last); empty hides it.
export function setStatus(field, text) {
  const node = $(`st-${field}`);
  node.textContent = text;
  node.hidden = text === '';
}

// The connection dot: its class is one of open, connecting, waiting, stopped.
export function setConnection(text, state) {
  setStatus('conn', text);
  $('st-conn').className = `conn ${state}`;
}

export function time(d) { return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }); }

// Hides what `may(perm)` refuses under `root`. Section headers stay (they
// show the board) but do not toggle without "fold".
export function showPermissions(may, root = document) {
  for (const node of root.querySelectorAll('[data-perm]')) node.classList.toggle('no-perm', !may(node.dataset.perm));
  const fold = may('fold');
  for (const b of root.querySelectorAll('.sec-btn')) {
    if (fold) b.removeAttribute('aria-disabled'); else b.setAttribute('aria-disabled', 'true');
  }
}
