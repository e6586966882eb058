/*
 * backend_file.c -- a regular file or a block device, through io_uring with
 * O_DIRECT, or through a pread/pwrite thread pool when io_uring is missing.
 *
 * 1. Opening.  O_DIRECT is tried first (the page cache would otherwise
 *    hide the drive's latency from the controller and double-buffer every
 *    byte); file systems that refuse it (tmpfs) get a buffered descriptor
 *    and one log line.  The alignment O_DIRECT needs comes from statx
 *    (STATX_DIOALIGN) or the device's logical block size, and raises the
 *    drive's minimum block size, which the NBD codec advertises and
 *    enforces, so no request ever needs a bounce buffer.  A regular file
 *    shorter than the configured size is extended (sparse).
 *
 * 2. io_uring path.  submit only records the request on a pending list;
 *    kick turns the whole list into SQEs and calls io_uring_submit once per
 *    reactor batch (one syscall for any number of IOs).  Completions raise
 *    an eventfd registered with the ring, which the reactor polls; reap
 *    walks the CQ ring without a syscall.  Ops:
 *        READ/WRITE     read/write at offset + done_bytes (short transfers
 *                       are resubmitted for the rest); FUA = RWF_DSYNC
 *        FLUSH          fsync(DATASYNC)
 *        TRIM           fallocate(PUNCH_HOLE | KEEP_SIZE); unsupported = ok
 *        WRITE_ZEROES   fallocate(ZERO_RANGE with NO_HOLE, else PUNCH_HOLE),
 *                       and if the file system cannot, writes of a shared
 *                       1 MiB zero buffer, chunk by chunk
 *        FUA on TRIM/WRITE_ZEROES: a final fsync(DATASYNC) stage.
 *        FAST_ZERO      no zero-buffer fallback: ENOTSUP instead; on a
 *                       block device ZERO_RANGE (NO_HOLE) is refused up
 *                       front (the kernel may write zeroes for it), while
 *                       PUNCH_HOLE never falls back.
 *    Which of these may write data (zero_writes, cost.c section 6): on a
 *    block device all; on a regular file the fallocate modes the file
 *    system refuses -- asked once at open, on 4 KiB past the end of the
 *    file with KEEP_SIZE (a ZERO_RANGE that succeeds there is punched
 *    back), and learned at reap from any WRITE_ZEROES whose fallocate
 *    fails (one log line per mode).
 *    Allocation (BLOCK_STATUS) is metadata, not a request: lseek
 *    SEEK_DATA/SEEK_HOLE on the reactor thread for a regular file; a block
 *    device reports everything as data.
 *
 * 3. Fallback path.  If io_uring_queue_init fails (old kernel, seccomp) or
 *    io_mode asks for it, `threads` workers take requests from a mutex
 *    queue, run the same op sequence synchronously, and push completions on
 *    a done list, writing the eventfd when it goes non-empty.  (The reactor
 *    reads the eventfd when epoll reports it; reap itself makes no syscall.)  One line on
 *    stderr says which path was chosen and why.
 *
 * 4. A file that shrinks or vanishes under us.  A regular file is never
 *    shorter than the drive (opening extends it), so a READ that reaches
 *    end-of-file means someone truncated it: that READ fails with EIO
 *    (it used to be zero-filled and reported as success).  Besides, every
 *    64th kick fstat()s the file (one cheap syscall per 64 batches): while
 *    it is shorter than the drive, an IO reaching past its end is refused
 *    with EIO at submit (a WRITE would otherwise silently re-extend it
 *    with holes), and once it is deleted (st_nlink 0) every IO is.  Each
 *    case counts in eof_errors (jbof_drive_info.backend_eof_errors) and is
 *    logged on stderr at the 1st, 2nd, 4th, 8th ... occurrence and on
 *    every change of state; restoring the file ends it.  Worked example:
 *    a 64 MiB drive file truncated to 1 MiB: a 4 KiB READ at 8 MiB gets
 *    res = 0 -> EIO, logged, and the next fstat records 1 MiB; a WRITE at
 *    2 MiB is refused before it reaches the ring; IO below 1 MiB goes on.
 *
 * 5. Worked example.  A 4 KiB READ at namespace offset 8192 of a tenant
 *    whose namespace starts at 1 GiB: the reactor passes offset 1073750016;
 *    kick builds one SQE (IORING_OP_READ, fd, buf, 4096, 1073750016) with
 *    31 others of the same batch and calls io_uring_enter once; the CQE
 *    carries res = 4096 and user_data = the request: done.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#if JBOF_HAVE_URING
#include <liburing.h>
#endif

#include "backend.h"

enum {
    FILE_ZERO_BYTES = 1 << 20,   /* zero buffer for WRITE_ZEROES fallback */
    FILE_MAX_THREADS = 64,
    FILE_DEFAULT_THREADS = 4,
    FILE_DEFAULT_DEPTH = 256,
    FILE_MAX_DEPTH = 4096,
};

/* op stages */
enum {
    ST_MAIN = 0,      /* the op itself */
    ST_ZERO_WRITE = 1,/* WRITE_ZEROES by writing the zero buffer */
    ST_SYNC = 2,      /* final fdatasync (FUA on TRIM / WRITE_ZEROES) */
    ST_DONE = 3,
    ST_EOF = 4        /* done with EIO: a READ reached end-of-file (counted at reap) */
};

typedef struct file_be {
    jbof_backend b;
    int fd;
    int is_blk;
    uint8_t *zero;                 /* FILE_ZERO_BYTES of zeroes, aligned */
    int efd;                       /* completion eventfd */
#if JBOF_HAVE_URING
    struct io_uring ring;
    int ring_ok;
#endif
    jbof_breq *pend_head, *pend_tail;  /* uring: waiting for an SQE */
    jbof_breq *rdone_head, *rdone_tail;/* uring: completed, not yet reaped */
    /* thread pool */
    pthread_t th[FILE_MAX_THREADS];
    int nthreads;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int mu_ok;
    jbof_breq *q_head, *q_tail;        /* to the workers */
    jbof_breq *d_head, *d_tail;        /* from the workers */
    int stop;
    /* section 4: truncation and deletion */
    char name[64];
    char path[1025];
    uint64_t cur_size;                 /* st_size at the last check */
    int gone;                          /* st_nlink was 0 at the last check */
    int short_now;                     /* cur_size < drive size at the last check */
    uint32_t kicks;
} file_be;

static void push(jbof_breq **h, jbof_breq **t, jbof_breq *r)
{
    r->next = NULL;
    if (*t)
        (*t)->next = r;
    else
        *h = r;
    *t = r;
}

static jbof_breq *pop(jbof_breq **h, jbof_breq **t)
{
    jbof_breq *r = *h;
    if (r) {
        *h = r->next;
        if (!*h)
            *t = NULL;
        r->next = NULL;
    }
    return r;
}

static int needs_sync_stage(const jbof_breq *r)
{
    return (r->io.flags & JBOF_IO_FUA) && (r->io.opcode == JBOF_OP_TRIM || r->io.opcode == JBOF_OP_WRITE_ZEROES);
}

static int zero_mode(const jbof_breq *r)
{
    return (r->io.flags & JBOF_BREQ_NO_HOLE) ? FALLOC_FL_ZERO_RANGE
                                          : (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE);
}

/* Advance r after one step finished with result res (bytes or -errno).
 * Returns 1 when r is complete (status set), 0 when another step follows. */
static int step_done(jbof_breq *r, long res)
{
    switch (r->stage) {
    case ST_MAIN:
        if (r->io.opcode == JBOF_OP_READ || r->io.opcode == JBOF_OP_WRITE) {
            if (res == -EAGAIN || res == -EINTR)
                return 0;
            if (res < 0) {
                r->status = (int32_t)res;
                return 1;
            }
            if (res == 0 && r->io.opcode == JBOF_OP_READ) {
                /* end-of-file inside the drive: the file was truncated
                 * (section 4); never zero-filled success */
                r->status = -EIO;
                r->stage = ST_EOF;
                return 1;
            } else if (res == 0) {
                r->status = -EIO;
                return 1;
            }
            r->done_bytes += (uint32_t)res;
            if (r->done_bytes < r->io.length_bytes)
                return 0;
            r->status = 0;
            return 1;
        }
        if (r->io.opcode == JBOF_OP_TRIM) {
            /* a hint: a file system that cannot punch holes is fine */
            r->status = (res < 0 && res != -EOPNOTSUPP && res != -EINVAL && res != -ENODEV) ? (int32_t)res : 0;
        } else if (r->io.opcode == JBOF_OP_WRITE_ZEROES) {
            if (res == -EOPNOTSUPP || res == -EINVAL || res == -ENODEV)
                r->zero_unsup = 1; /* section 6: learned at reap, in the reactor */
            if ((res == -EOPNOTSUPP || res == -EINVAL || res == -ENODEV) &&
                (r->io.flags & JBOF_BREQ_FAST_ZERO)) {
                /* FAST_ZERO: the client would rather write zeroes itself */
                r->status = -ENOTSUP;
                return 1;
            }
            if ((res == -EOPNOTSUPP || res == -EINVAL || res == -ENODEV) && r->io.length_bytes) {
                /* no fallocate zeroing here: write the zero buffer instead */
                r->stage = ST_ZERO_WRITE;
                r->done_bytes = 0;
                return 0;
            }
            r->status = res < 0 ? (int32_t)res : 0;
        } else {
            r->status = res < 0 ? (int32_t)res : 0;
        }
        break;
    case ST_ZERO_WRITE:
        if (res == -EAGAIN || res == -EINTR)
            return 0;
        if (res <= 0) {
            r->status = res < 0 ? (int32_t)res : -EIO;
            return 1;
        }
        r->done_bytes += (uint32_t)res;
        if (r->done_bytes < r->io.length_bytes)
            return 0;
        r->status = 0;
        break;
    case ST_SYNC:
        r->status = res < 0 ? (int32_t)res : r->status;
        r->stage = ST_DONE;
        return 1;
    default:
        return 1;
    }
    if (r->status == 0 && needs_sync_stage(r)) {
        r->stage = ST_SYNC;
        return 0;
    }
    r->stage = ST_DONE;
    return 1;
}

/* ------------------------------------------------------- thread pool ---- */

static long run_step_sync(file_be *f, jbof_breq *r)
{
    ssize_t n;
    uint64_t off = r->io.offset_bytes + r->done_bytes;
    uint32_t left = r->io.length_bytes - r->done_bytes;
    switch (r->stage) {
    case ST_MAIN:
        switch (r->io.opcode) {
        case JBOF_OP_READ:
            n = pread(f->fd, r->buf + r->done_bytes, left, (off_t)off);
            return n < 0 ? -errno : n;
        case JBOF_OP_WRITE:
            n = pwritev2(f->fd, &(struct iovec){r->buf + r->done_bytes, left}, 1, (off_t)off,
                         (r->io.flags & JBOF_IO_FUA) ? RWF_DSYNC : 0);
            if (n < 0 && (errno == ENOSYS || errno == EOPNOTSUPP)) {
                /* no pwritev2 / RWF_DSYNC (kernels before 4.7, qemu-user):
                 * the same durability as a write followed by fdatasync */
                n = pwrite(f->fd, r->buf + r->done_bytes, left, (off_t)off);
                if (n > 0 && (r->io.flags & JBOF_IO_FUA) && fdatasync(f->fd) < 0)
                    return -errno;
            }
            return n < 0 ? -errno : n;
        case JBOF_OP_FLUSH:
            return fdatasync(f->fd) < 0 ? -errno : 0;
        case JBOF_OP_TRIM:
            return fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                             (off_t)r->io.offset_bytes, (off_t)r->io.length_bytes) < 0 ? -errno : 0;
        case JBOF_OP_WRITE_ZEROES:
            return fallocate(f->fd, zero_mode(r), (off_t)r->io.offset_bytes, (off_t)r->io.length_bytes) < 0
                       ? -errno : 0;
        default:
            return -EINVAL;
        }
    case ST_ZERO_WRITE:
        n = pwrite(f->fd, f->zero, left < FILE_ZERO_BYTES ? left : FILE_ZERO_BYTES, (off_t)off);
        return n < 0 ? -errno : n;
    case ST_SYNC:
        return fdatasync(f->fd) < 0 ? -errno : 0;
    default:
        return -EINVAL;
    }
}

static void *worker(void *arg)
{
    file_be *f = arg;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (!f->q_head && !f->stop)
            pthread_cond_wait(&f->cv, &f->mu);
        if (!f->q_head && f->stop)
            break;
        jbof_breq *r = pop(&f->q_head, &f->q_tail);
        pthread_mutex_unlock(&f->mu);
        while (!step_done(r, run_step_sync(f, r)))
            ;
        pthread_mutex_lock(&f->mu);
        int was_empty = f->d_head == NULL;
        push(&f->d_head, &f->d_tail, r);
        if (was_empty) {
            uint64_t one = 1;
            ssize_t w = write(f->efd, &one, sizeof(one));
            (void)w; /* the counter cannot overflow in practice; a lost wake is re-polled */
        }
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

static int pool_start(file_be *f, uint32_t threads)
{
    if (pthread_mutex_init(&f->mu, NULL) != 0)
        return -ENOMEM;
    if (pthread_cond_init(&f->cv, NULL) != 0) {
        pthread_mutex_destroy(&f->mu);
        return -ENOMEM;
    }
    f->mu_ok = 1;
    uint32_t n = threads ? threads : FILE_DEFAULT_THREADS;
    if (n > FILE_MAX_THREADS)
        n = FILE_MAX_THREADS;
    for (uint32_t i = 0; i < n; i++) {
        if (pthread_create(&f->th[i], NULL, worker, f) != 0)
            break;
        f->nthreads++;
    }
    return f->nthreads ? 0 : -EAGAIN;
}

static void pool_stop(file_be *f)
{
    if (!f->mu_ok)
        return;
    pthread_mutex_lock(&f->mu);
    f->stop = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    for (int i = 0; i < f->nthreads; i++)
        pthread_join(f->th[i], NULL);
    f->nthreads = 0;
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    f->mu_ok = 0;
}

/* ---------------------------------------------------------- io_uring ---- */

#if JBOF_HAVE_URING
static void prep_step(file_be *f, struct io_uring_sqe *sqe, jbof_breq *r)
{
    uint64_t off = r->io.offset_bytes + r->done_bytes;
    uint32_t left = r->io.length_bytes - r->done_bytes;
    switch (r->stage) {
    case ST_MAIN:
        switch (r->io.opcode) {
        case JBOF_OP_READ:
            io_uring_prep_read(sqe, f->fd, r->buf + r->done_bytes, left, off);
            break;
        case JBOF_OP_WRITE:
            io_uring_prep_write(sqe, f->fd, r->buf + r->done_bytes, left, off);
            if (r->io.flags & JBOF_IO_FUA)
                sqe->rw_flags = RWF_DSYNC;
            break;
        case JBOF_OP_FLUSH:
            io_uring_prep_fsync(sqe, f->fd, IORING_FSYNC_DATASYNC);
            break;
        case JBOF_OP_TRIM:
            io_uring_prep_fallocate(sqe, f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                                    r->io.offset_bytes, r->io.length_bytes);
            break;
        case JBOF_OP_WRITE_ZEROES:
            io_uring_prep_fallocate(sqe, f->fd, zero_mode(r), r->io.offset_bytes, r->io.length_bytes);
            break;
        default:
            io_uring_prep_nop(sqe);
            break;
        }
        break;
    case ST_ZERO_WRITE:
        io_uring_prep_write(sqe, f->fd, f->zero, left < FILE_ZERO_BYTES ? left : FILE_ZERO_BYTES, off);
        break;
    default:
        io_uring_prep_fsync(sqe, f->fd, IORING_FSYNC_DATASYNC);
        break;
    }
    io_uring_sqe_set_data(sqe, r);
}

static int uring_kick(file_be *f)
{
    while (f->pend_head) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);
        if (!sqe) {
            int rc = io_uring_submit(&f->ring);
            if (rc < 0 && rc != -EAGAIN && rc != -EBUSY)
                return rc;
            sqe = io_uring_get_sqe(&f->ring);
            if (!sqe)
                break; /* ring full of in-flight work: retried next kick */
        }
        prep_step(f, sqe, pop(&f->pend_head, &f->pend_tail));
    }
    int rc = io_uring_submit(&f->ring);
    return (rc < 0 && rc != -EAGAIN && rc != -EBUSY) ? rc : 0;
}

static void uring_harvest(file_be *f)
{
    struct io_uring_cqe *cqe;
    unsigned head, n = 0;
    io_uring_for_each_cqe(&f->ring, head, cqe) {
        jbof_breq *r = io_uring_cqe_get_data(cqe);
        n++;
        if (!r)
            continue;
        if (step_done(r, cqe->res))
            push(&f->rdone_head, &f->rdone_tail, r);
        else
            push(&f->pend_head, &f->pend_tail, r);
    }
    io_uring_cq_advance(&f->ring, n);
}
#endif

/* ------------------------------------------- truncation (section 4) ---- */

static void file_eof(file_be *f, const jbof_breq *r, const char *what)
{
    uint64_t n = ++f->b.eof_errors;
    if ((n & (n - 1)) == 0)
        fprintf(stderr, "jbof: drive '%s': %s: %s at %llu+%u fails with EIO (%llu so far)\n",
                f->name, f->path, what, (unsigned long long)r->io.offset_bytes, r->io.length_bytes,
                (unsigned long long)n);
}

/* fstat the file: note (and log) a truncation, a deletion, a recovery. */
static void file_check(file_be *f)
{
    struct stat st;
    if (f->is_blk || fstat(f->fd, &st) < 0)
        return;
    uint64_t size = (uint64_t)st.st_size;
    int gone = st.st_nlink == 0;
    int short_now = size < f->b.size_bytes;
    if (gone != f->gone || short_now != f->short_now)
        fprintf(stderr, "jbof: drive '%s': %s is %s (%llu of %llu bytes)\n", f->name, f->path,
                gone ? "deleted" : short_now ? "truncated" : "whole again",
                (unsigned long long)size, (unsigned long long)f->b.size_bytes);
    f->cur_size = size;
    f->gone = gone;
    f->short_now = short_now;
}

/* Refuse r at submit when the last check found the file gone or too short. */
static int file_refuse(file_be *f, const jbof_breq *r)
{
    if (!f->gone && !f->short_now)
        return 0;
    if (r->io.opcode == JBOF_OP_FLUSH || r->io.opcode == JBOF_OP_TRIM)
        return 0;
    if (f->gone) {
        file_eof(f, r, "file deleted");
        return 1;
    }
    if (r->io.offset_bytes + r->io.length_bytes > f->cur_size) {
        file_eof(f, r, "file truncated");
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- ops ---- */

static int file_submit(jbof_backend *b, jbof_breq *r, uint64_t now_ns)
{
    (void)now_ns;
    file_be *f = (file_be *)b;
    /* ZERO_RANGE on a block device may write zeroes behind our back (the
     * kernel falls back to it): not fast.  PUNCH_HOLE never falls back. */
    if (r->io.opcode == JBOF_OP_WRITE_ZEROES && f->is_blk &&
        (r->io.flags & (JBOF_BREQ_FAST_ZERO | JBOF_BREQ_NO_HOLE)) == (JBOF_BREQ_FAST_ZERO | JBOF_BREQ_NO_HOLE))
        return -ENOTSUP;
    if (file_refuse(f, r))
        return -EIO;
    r->stage = ST_MAIN;
    r->zero_unsup = 0;
    r->done_bytes = 0;
    r->status = 0;
#if JBOF_HAVE_URING
    if (f->ring_ok) {
        push(&f->pend_head, &f->pend_tail, r);
        return 0;
    }
#endif
    pthread_mutex_lock(&f->mu);
    push(&f->q_head, &f->q_tail, r);
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static int file_kick(jbof_backend *b)
{
    file_be *f = (file_be *)b;
    if ((++f->kicks & 63) == 0)
        file_check(f);
#if JBOF_HAVE_URING
    if (f->ring_ok)
        return uring_kick(f);
#endif
    return 0;
}

/* Section 6: from now on the zeroing requests in bits write data. */
static void file_zero_learn(file_be *f, uint32_t bits, const char *why)
{
    if ((f->b.zero_writes & bits) == bits)
        return;
    f->b.zero_writes |= bits;
    fprintf(stderr, "jbof: drive '%s': %s: %s; WRITE_ZEROES%s write zeroes and cost as writes "
            "of their length (zero_cost auto)\n", f->name, f->path, why,
            bits == JBOF_ZW_NO_HOLE ? " with NO_HOLE" : bits == JBOF_ZW_HOLE ? " without NO_HOLE" : "");
}

/* Count (and log) the READs that hit end-of-file; look at the file again.
 * Learn from a WRITE_ZEROES whose fallocate said "cannot" (section 6). */
static int file_reaped(file_be *f, jbof_breq **out, int n)
{
    int eof = 0;
    for (int i = 0; i < n; i++) {
        if (out[i]->stage == ST_EOF) {
            file_eof(f, out[i], "read past end of file");
            eof = 1;
        }
        if (out[i]->zero_unsup)
            file_zero_learn(f, (out[i]->io.flags & JBOF_BREQ_NO_HOLE) ? JBOF_ZW_NO_HOLE : JBOF_ZW_HOLE,
                            "fallocate cannot zero here");
    }
    if (eof)
        file_check(f);
    return n;
}

static int file_reap(jbof_backend *b, jbof_breq **out, int max, uint64_t now_ns)
{
    (void)now_ns;
    file_be *f = (file_be *)b;
    int n = 0;
#if JBOF_HAVE_URING
    if (f->ring_ok) {
        if (!f->rdone_head)
            uring_harvest(f);
        while (n < max && f->rdone_head)
            out[n++] = pop(&f->rdone_head, &f->rdone_tail);
        return file_reaped(f, out, n);
    }
#endif
    pthread_mutex_lock(&f->mu);
    while (n < max && f->d_head)
        out[n++] = pop(&f->d_head, &f->d_tail);
    pthread_mutex_unlock(&f->mu);
    return file_reaped(f, out, n);
}

static uint64_t file_next_due(const jbof_backend *b)
{
    const file_be *f = (const file_be *)b;
    /* completed-but-unreaped (uring) or continuations to submit: now */
    return (f->rdone_head || f->pend_head) ? 0 : UINT64_MAX;
}

int jbof_fd_extents(int fd, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max)
{
    if (fd < 0 || !out || max <= 0 || len == 0 || len > UINT32_MAX || off > (uint64_t)INT64_MAX - len)
        return -EINVAL;
    uint64_t pos = off, end = off + len;
    int n = 0;
    while (pos < end && n < max) {
        off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
        uint64_t stop;
        uint32_t flags;
        if (d < 0 && errno == ENXIO) {
            stop = end; /* no data from pos to the end of the file */
            flags = JBOF_NBD_STATE_HOLE | JBOF_NBD_STATE_ZERO;
        } else if (d < 0) {
            stop = end; /* cannot tell: data is the safe answer */
            flags = 0;
        } else if ((uint64_t)d > pos) {
            stop = (uint64_t)d < end ? (uint64_t)d : end;
            flags = JBOF_NBD_STATE_HOLE | JBOF_NBD_STATE_ZERO;
        } else {
            off_t h = lseek(fd, (off_t)pos, SEEK_HOLE);
            stop = (h < 0 || (uint64_t)h > end) ? end : (uint64_t)h;
            if (stop <= pos)
                stop = end;
            flags = 0;
        }
        if (n > 0 && out[n - 1].flags == flags)
            out[n - 1].length_bytes += (uint32_t)(stop - pos);
        else
            out[n++] = (jbof_nbd_extent){.length_bytes = (uint32_t)(stop - pos), .flags = flags};
        pos = stop;
    }
    return n;
}

/* A block device is all data; a file asks the file system. */
static int file_extents(jbof_backend *b, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max)
{
    file_be *f = (file_be *)b;
    if (!out || max <= 0 || len == 0 || len > UINT32_MAX)
        return -EINVAL;
    if (f->is_blk) {
        out[0] = (jbof_nbd_extent){.length_bytes = (uint32_t)len, .flags = 0};
        return 1;
    }
    return jbof_fd_extents(f->fd, off, len, out, max);
}

static int file_sync(jbof_backend *b)
{
    file_be *f = (file_be *)b;
    return fdatasync(f->fd) < 0 ? -errno : 0;
}

/* Scrub (scrub.c): make [off, off + len) read as zeroes, synchronously.
 * Regular file: punch a hole (nothing written, space returned), else
 * ZERO_RANGE; block device: BLKZEROOUT (the kernel uses WRITE ZEROES or an
 * unmap the device guarantees to read back as zeroes -- a plain discard
 * does not guarantee that, so BLKDISCARD is not used); last resort:
 * write the zero buffer. */
static int file_zero(jbof_backend *b, uint64_t off, uint64_t len)
{
    file_be *f = (file_be *)b;
    if (len == 0)
        return 0;
    if (!f->is_blk) {
        file_check(f);
        if (f->gone || off + len > f->cur_size)
            return -EIO;
        if (fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0)
            return 0;
        if (fallocate(f->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0)
            return 0;
    } else {
        uint64_t range[2] = {off, len};
        if (ioctl(f->fd, BLKZEROOUT, range) == 0)
            return 0;
    }
    for (uint64_t done = 0; done < len;) {
        uint64_t n = len - done < FILE_ZERO_BYTES ? len - done : FILE_ZERO_BYTES;
        ssize_t w = pwrite(f->fd, f->zero, n, (off_t)(off + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EIO;
        done += (uint64_t)w;
    }
    return 0;
}

static void file_destroy(jbof_backend *b)
{
    file_be *f = (file_be *)b;
    if (!f)
        return;
#if JBOF_HAVE_URING
    if (f->ring_ok)
        io_uring_queue_exit(&f->ring);
#endif
    pool_stop(f);
    if (f->fd >= 0)
        close(f->fd);
    if (f->efd >= 0)
        close(f->efd);
    free(f->zero);
    free(f);
}

static const jbof_backend_ops FILE_OPS = {
    .name = "file",
    .submit = file_submit,
    .kick = file_kick,
    .reap = file_reap,
    .next_due_ns = file_next_due,
    .sync = file_sync,
    .zero = file_zero,
    .ssd_stats = NULL,
    .destroy = file_destroy,
    .extents = file_extents,
};

/* O_DIRECT alignment of an open descriptor (512 if unknown). */
static uint32_t dio_align(int fd, int is_blk)
{
    uint32_t a = 512;
    if (is_blk) {
        int lbs = 0;
        if (ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
            a = (uint32_t)lbs;
        return a;
    }
#ifdef STATX_DIOALIGN
    struct statx sx;
    if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
        sx.stx_dio_offset_align > a)
        a = sx.stx_dio_offset_align;
#endif
    return a;
}

static int falloc_unsup(int fd, int mode, uint64_t off, uint64_t len)
{
    if (fallocate(fd, mode, (off_t)off, (off_t)len) == 0)
        return 0;
    return errno == EOPNOTSUPP || errno == EINVAL || errno == ENODEV;
}

/* Section 6: which WRITE_ZEROES this drive carries out by writing data.  A
 * block device: any of them, and TRIM (blkdev_fallocate: ZERO_RANGE is
 * blkdev_issue_zeroout, which writes zero pages where the device has no
 * WRITE ZEROES; PUNCH_HOLE is the device's WRITE ZEROES with unmap allowed,
 * and our zero buffer where it has none -- what the device does with it
 * cannot be seen from here).  A regular file: ask the file system for each
 * fallocate mode, one 4 KiB range past its end (size: st_size), KEEP_SIZE,
 * so no byte of the drive is touched; a ZERO_RANGE that succeeded may have
 * reserved that block, which the PUNCH_HOLE gives back. */
static void zero_probe(file_be *f, uint64_t size)
{
    if (f->is_blk) {
        f->b.zero_writes = JBOF_ZW_HOLE | JBOF_ZW_NO_HOLE | JBOF_ZW_TRIM | JBOF_ZW_FAST;
        return;
    }
    uint64_t off = (size + 4095) & ~(uint64_t)4095;
    if (falloc_unsup(f->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, off, 4096))
        file_zero_learn(f, JBOF_ZW_NO_HOLE, "fallocate cannot ZERO_RANGE");
    if (falloc_unsup(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, 4096))
        file_zero_learn(f, JBOF_ZW_HOLE, "fallocate cannot PUNCH_HOLE");
}

static int open_file(file_be *f, const jbof_drive_cfg *cfg, const char *path)
{
    int flags = O_RDWR | O_CLOEXEC;
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (!exists && cfg->size_bytes == 0)
        return -ENOENT;
    if (!exists)
        flags |= O_CREAT;
    int fd = -1;
    if (cfg->direct) {
        fd = open(path, flags | O_DIRECT, 0600);
        if (fd < 0 && errno != EINVAL)
            return -errno;
        if (fd >= 0)
            f->b.direct = 1;
        else
            fprintf(stderr, "jbof: drive '%s': %s does not support O_DIRECT; using buffered IO\n",
                    cfg->name, path);
    }
    if (fd < 0) {
        fd = open(path, flags, 0600);
        if (fd < 0)
            return -errno;
    }
    f->fd = fd;
    if (fstat(fd, &st) < 0)
        return -errno;
    uint64_t size;
    if (S_ISBLK(st.st_mode)) {
        f->is_blk = 1;
        if (ioctl(fd, BLKGETSIZE64, &size) < 0)
            return -errno;
        if (cfg->size_bytes > size)
            return -ENOSPC;
    } else if (S_ISREG(st.st_mode)) {
        size = (uint64_t)st.st_size;
        if (cfg->size_bytes > size) {
            if (ftruncate(fd, (off_t)cfg->size_bytes) < 0)
                return -errno;
            size = cfg->size_bytes;
        }
    } else {
        return -EINVAL;
    }
    f->b.size_bytes = cfg->size_bytes ? cfg->size_bytes : size;
    if (f->b.size_bytes == 0)
        return -EINVAL;
    zero_probe(f, size);
    f->b.block_bytes = f->b.direct ? dio_align(fd, f->is_blk) : 1;
    return 0;
}

int jbof_backend_file_create(const jbof_drive_cfg *cfg, jbof_backend **out)
{
    if (!cfg || !out || cfg->io_mode > JBOF_IO_THREADS)
        return -EINVAL;
    *out = NULL;
    char path[sizeof(cfg->path) + 1];
    memcpy(path, cfg->path, sizeof(cfg->path));
    path[sizeof(cfg->path)] = 0;
    if (!path[0])
        return -EINVAL;
    file_be *f = calloc(1, sizeof(*f));
    if (!f)
        return -ENOMEM;
    f->fd = -1;
    f->b.ops = &FILE_OPS;
    f->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (f->efd < 0) {
        int rc = -errno;
        free(f);
        return rc;
    }
    f->b.event_fd = f->efd;
    memcpy(f->name, cfg->name, sizeof(f->name));
    f->name[sizeof(f->name) - 1] = 0;
    snprintf(f->path, sizeof(f->path), "%s", path);
    int rc = open_file(f, cfg, path);
    if (rc == 0)
        file_check(f);
    if (rc == 0 && posix_memalign((void **)&f->zero, 4096, FILE_ZERO_BYTES) != 0)
        rc = -ENOMEM;
    if (rc < 0) {
        file_destroy(&f->b);
        return rc;
    }
    memset(f->zero, 0, FILE_ZERO_BYTES);

    const char *why = "io_mode threads";
#if JBOF_HAVE_URING
    if (cfg->io_mode != JBOF_IO_THREADS) {
        uint32_t depth = cfg->queue_depth ? cfg->queue_depth : FILE_DEFAULT_DEPTH;
        if (depth > FILE_MAX_DEPTH)
            depth = FILE_MAX_DEPTH;
        int urc = io_uring_queue_init(depth, &f->ring, 0);
        if (urc == 0) {
            f->ring_ok = 1;
            urc = io_uring_register_eventfd(&f->ring, f->efd);
            if (urc < 0) {
                io_uring_queue_exit(&f->ring);
                f->ring_ok = 0;
            }
        }
        if (f->ring_ok) {
            f->b.io_mode = JBOF_IO_URING;
            *out = &f->b;
            return 0;
        }
        if (cfg->io_mode == JBOF_IO_URING) {
            file_destroy(&f->b);
            return urc < 0 ? urc : -ENOSYS;
        }
        why = strerror(-urc);
    }
#else
    if (cfg->io_mode == JBOF_IO_URING) {
        file_destroy(&f->b);
        return -ENOSYS;
    }
    if (cfg->io_mode != JBOF_IO_THREADS)
        why = "built without liburing";
#endif
    rc = pool_start(f, cfg->threads);
    if (rc < 0) {
        file_destroy(&f->b);
        return rc;
    }
    f->b.io_mode = JBOF_IO_THREADS;
    if (cfg->io_mode != JBOF_IO_THREADS)
        fprintf(stderr, "jbof: drive '%s': io_uring unavailable (%s); using %d pread/pwrite threads\n",
                cfg->name, why, f->nthreads);
    *out = &f->b;
    return 0;
}
