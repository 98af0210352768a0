#ifndef FOLDSYNC_URING_SHIM_H
#define FOLDSYNC_URING_SHIM_H
#include <stddef.h>

/// The io_uring calls the writer makes, as plain functions over an opaque
/// ring: liburing's own helpers are static inline functions over memory
/// barriers, and its header changes glibc's feature macros (see CURing).
typedef struct fs_uring fs_uring_t;

/// A ring of `entries` submissions, or NULL with errno set when the kernel
/// refuses (no io_uring, a seccomp filter, io_uring_disabled).
fs_uring_t *fs_uring_open(unsigned entries);
void fs_uring_close(fs_uring_t *ring);

/// A table of `count` empty registered-file slots; 0, or -errno.
int fs_uring_register_slots(fs_uring_t *ring, unsigned count);

/// Puts `fd` in registered-file slot `slot` (-1 empties it); 0, or -errno.
/// A slot holds its own reference to the file until emptied.
int fs_uring_set_slot(fs_uring_t *ring, unsigned slot, int fd);

/// Queues a non-blocking send of `count` bytes on `fd` (a registered slot
/// when `fixed`), tagged; 0 when the submission queue is full. MSG_DONTWAIT
/// makes a full socket complete at once with -EAGAIN instead of parking
/// the request until the socket drains.
int fs_uring_send(fs_uring_t *ring, int fd, int fixed, const void *bytes, size_t count, unsigned long long tag);

/// Submits what is queued and waits for `wait` completions (non-blocking
/// sends complete during the submission). The number taken, or -errno.
int fs_uring_submit(fs_uring_t *ring, unsigned wait);

/// Takes one posted completion: 1 with its tag and result, 0 when none is left.
int fs_uring_reap(fs_uring_t *ring, unsigned long long *tag, int *result);

#endif
