#ifndef FOLDSYNC_SQLITE_SHIM_H
#define FOLDSYNC_SQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro ((sqlite3_destructor_type)-1) that Swift cannot import.
static inline sqlite3_destructor_type fs_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Extends the WAL file of `db` with zeros up to `bytes`, through SQLite's
/// own handle for it, never touching what the file already holds; then syncs.
/// Zeros past the last frame are what any reused WAL has (stale frames):
/// recovery stops at the first frame whose salt does not match. Call inside
/// a write transaction, so that no other connection appends meanwhile.
static inline int fs_sqlite_wal_extend(sqlite3 *db, sqlite3_int64 bytes) {
    sqlite3_file *f = 0;
    int rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &f);
    if (rc != SQLITE_OK) return rc;
    if (!f || !f->pMethods) return SQLITE_MISUSE;
    sqlite3_int64 size = 0;
    rc = f->pMethods->xFileSize(f, &size);
    if (rc != SQLITE_OK || size >= bytes) return rc;
    static const char zeros[65536];
    while (size < bytes) {
        sqlite3_int64 left = bytes - size;
        int n = left < (sqlite3_int64)sizeof zeros ? (int)left : (int)sizeof zeros;
        rc = f->pMethods->xWrite(f, zeros, n, size);
        if (rc != SQLITE_OK) return rc;
        size += n;
    }
    return f->pMethods->xSync(f, SQLITE_SYNC_NORMAL);
}

#endif
