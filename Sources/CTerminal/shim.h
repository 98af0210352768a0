#ifndef FOLDSYNC_TERMINAL_SHIM_H
#define FOLDSYNC_TERMINAL_SHIM_H
/* Header-only: the C library calls the terminal client needs that Swift's
   Glibc module does not show. Nothing to link. */
#include <wchar.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/// wcwidth() is declared only under _XOPEN_SOURCE, which the Glibc module
/// is not built with; declared here by hand (it is in every glibc).
extern int wcwidth(wchar_t c);
static inline int fs_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }

/// TIOCGWINSZ is a macro the importer may not carry, and ioctl is variadic.
static inline int fs_window_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}
#endif
