// The foldsync dashboard's entry: `/` lists the boards (list-page.js),
// `/b/NAME` shows one (board-page.js). Speaks only the wire contract
// (docs/PROTOCOL.md). The one module script of index.html.

import { BoardPage } from './board-page.js';
import { ListPage } from './list-page.js';
import { BOARD_NAME } from './new-board.js';
import { $, toast } from './page-chrome.js';

function start() {
  const m = window.location.pathname.match(/^\/b\/([^/]+)\/?$/);
  if (!m) {
    $('list-view').hidden = false;
    new ListPage();
    return;
  }
  const board = decodeURIComponent(m[1]);
  document.title = `${board} · foldsync`;
  $('crumb').textContent = board;
  $('board-view').hidden = false;
  if (!BOARD_NAME.test(board)) { toast('Not a valid board name.'); return; }
  new BoardPage(board);
}

start();
