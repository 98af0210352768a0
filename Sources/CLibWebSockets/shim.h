#ifndef FOLDSYNC_LWS_SHIM_H
#define FOLDSYNC_LWS_SHIM_H
#include <libwebsockets.h>
#include <dlfcn.h>

/// LWS_PRE is a function-like macro, which Swift cannot import.
static inline size_t fs_lws_pre(void) { return LWS_PRE; }

/// LWS_WRITE_RAW is a macro naming an enum constant, which Swift does not import.
static inline enum lws_write_protocol fs_lws_write_raw(void) { return LWS_WRITE_RAW; }

/// lwsl_* are variadic macros; Swift can call neither.
static inline void fs_lws_log(int level, const char *message) { _lws_log(level, "%s\n", message); }

/// A timer whose callback can find its Swift owner: the sul must come first so
/// the lws_sorted_usec_list_t pointer handed to the callback casts back.
typedef struct fs_timer { lws_sorted_usec_list_t sul; void *owner; } fs_timer_t;
static inline fs_timer_t *fs_timer_from(lws_sorted_usec_list_t *sul) { return (fs_timer_t *)sul; }

/// A cache hint for what a fan-out touches next (a connection ahead of the
/// one being written): at 10,000 connections each would otherwise be a miss.
static inline void fs_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

/// The per-connection user area: only an id, never a Swift reference,
/// because lws zero-fills and frees it behind our back.
typedef struct fs_pss { unsigned long long id; } fs_pss_t;

/// Keeps a library that is already loaded in memory until the process
/// ends (RTLD_NODELETE: a later dlclose no longer unmaps it); loads nothing.
/// 1 when it was loaded. See EventLibraryPin.swift for why.
static inline int fs_pin_if_loaded(const char *soname) {
    return dlopen(soname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != NULL;
}

/// A log context of a context's own (lws 4.3 and later; NULL before).
/// lws 4.3 counts the objects bound to a log context, unlocked when built
/// with LWS_MAX_SMP 1 as Debian builds it; contexts that share the default
/// one on different threads race on that count and fail its assertion.
/// Freed with fs_log_cx_free after lws_context_destroy.
static inline void *fs_log_cx_create(int level, void (*emit)(int, const char *)) {
#if LWS_LIBRARY_VERSION_MAJOR > 4 || (LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR >= 3)
    lws_log_cx_t *cx = (lws_log_cx_t *)calloc(1, sizeof(*cx));
    if (!cx) return NULL;
    cx->u.emit = emit ? emit : lwsl_emit_stderr;
    cx->lll_flags = (uint32_t)level;
    return cx;
#else
    (void)level; (void)emit;
    return NULL;
#endif
}

static inline void fs_log_cx_use(struct lws_context_creation_info *info, void *cx) {
#if LWS_LIBRARY_VERSION_MAJOR > 4 || (LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR >= 3)
    info->log_cx = (lws_log_cx_t *)cx;
#else
    (void)info; (void)cx;
#endif
}

static inline void fs_log_cx_free(void *cx) { free(cx); }

/// How many objects are bound to a context's log context; -1 before lws 4.3.
static inline int fs_log_cx_bound(struct lws_context *ctx) {
#if LWS_LIBRARY_VERSION_MAJOR > 4 || (LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR >= 3)
    return (int)lwsl_context_get_cx(ctx)->refcount;
#else
    (void)ctx;
    return -1;
#endif
}

#endif
