#include "CURingShim.h"
#include <liburing.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct fs_uring { struct io_uring ring; };

fs_uring_t *fs_uring_open(unsigned entries) {
    fs_uring_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    // Sends issued inline post their completions at once: the kernel need
    // not interrupt the service thread to run task work for them.
    p.flags = IORING_SETUP_COOP_TASKRUN;
    int e = io_uring_queue_init_params(entries, &r->ring, &p);
    if (e == -EINVAL) {  // kernels before 5.19 do not know the flag
        memset(&p, 0, sizeof p);
        e = io_uring_queue_init_params(entries, &r->ring, &p);
    }
    if (e < 0) {
        free(r);
        errno = -e;
        return NULL;
    }
    return r;
}

void fs_uring_close(fs_uring_t *r) {
    io_uring_queue_exit(&r->ring);
    free(r);
}

int fs_uring_register_slots(fs_uring_t *r, unsigned count) {
    return io_uring_register_files_sparse(&r->ring, count);
}

int fs_uring_set_slot(fs_uring_t *r, unsigned slot, int fd) {
    int n = io_uring_register_files_update(&r->ring, slot, &fd, 1);
    return n == 1 ? 0 : (n < 0 ? n : -EIO);
}

int fs_uring_send(fs_uring_t *r, int fd, int fixed, const void *bytes, size_t count, unsigned long long tag) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
    if (!sqe) return 0;
    io_uring_prep_send(sqe, fd, bytes, count, MSG_NOSIGNAL | MSG_DONTWAIT);
    // A registered slot spares the kernel a file lookup and a reference
    // count on every send.
    if (fixed) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data64(sqe, tag);
    return 1;
}

int fs_uring_submit(fs_uring_t *r, unsigned wait) {
    int n;
    do { n = io_uring_submit_and_wait(&r->ring, wait); } while (n == -EINTR);
    return n;
}

int fs_uring_reap(fs_uring_t *r, unsigned long long *tag, int *result) {
    struct io_uring_cqe *cqe = NULL;
    if (io_uring_peek_cqe(&r->ring, &cqe) != 0 || !cqe) return 0;
    *tag = io_uring_cqe_get_data64(cqe);
    *result = cqe->res;
    io_uring_cqe_seen(&r->ring, cqe);
    return 1;
}
