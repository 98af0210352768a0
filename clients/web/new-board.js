// What a new board starts from, and which names a board may have (the
// daemon's rule: 1-64 of A-Z a-z 0-9 _ . -).

export const BOARD_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export const TEMPLATE = Object.freeze({
  mode: 'single',
  sections: [
    { id: 'todo', title: 'To do', items: ['First thing'], expanded: true },
    { id: 'done', title: 'Done', items: [], expanded: false },
  ],
});
