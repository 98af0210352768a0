#ifndef FOLDSYNC_LIBPQ_SHIM_H
#define FOLDSYNC_LIBPQ_SHIM_H
#include <libpq-fe.h>

/// PQfreemem takes void *; PQnotifies hands back a PGnotify * that must be
/// freed with it. One wrapper so Swift never casts the pointer itself.
static inline void fs_pq_free_notify(PGnotify *n) { PQfreemem(n); }

/// PG_DIAG_SQLSTATE is a character-literal macro ('C'); this gives it a type.
static inline int fs_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }

#endif
