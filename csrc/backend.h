/*
 * backend.h -- the IO backend interface (private to the C core; cffi does not
 * see it).  One ops table for every backend, nbdkit's plugin shape:
 *
 *   backend_memory.c    RAM, every request done inside submit
 *   backend_file.c      a file or block device: io_uring or a thread pool
 *   backend_emulated.c  jbof_ssd model timing, data in RAM or a sparse file
 *   backend_error.c     a filter: wraps any backend, fails every Nth IO
 *
 * The engine (io.c) owns the requests and every counter of struct
 * jbof_backend; a backend only links the requests while it holds them.
 */
#ifndef JBOF_BACKEND_H
#define JBOF_BACKEND_H

#include <stdint.h>

#include "jbof_nbd.h"

/* with JBOF_IO_FUA in jbof_breq.io.flags.  FAST_ZERO (WRITE_ZEROES): fail
 * with -ENOTSUP rather than write zeroes the slow way (NBD FAST_ZERO). */
enum { JBOF_BREQ_NO_HOLE = 2, JBOF_BREQ_FAST_ZERO = 4 };

/* A request as a backend sees it.  io is the engine's one IO descriptor
 * (reactor.h, struct req): io.offset_bytes is the absolute offset on the
 * drive, io.length_bytes, io.opcode (enum jbof_op), io.flags (JBOF_IO_FUA |
 * JBOF_BREQ_NO_HOLE); a backend reads io and never writes it. */
typedef struct jbof_breq {
    jbof_io io;               /* what to do (read-only for the backend) */
    void *owner;              /* the reactor's request */
    uint8_t *buf;             /* READ destination / WRITE source (4 KiB aligned) */
    uint16_t stage;           /* backend-private progress */
    uint16_t zero_unsup;      /* file: its fallocate said "cannot" (read at reap) */
    int32_t status;           /* 0 or -errno, valid once reaped */
    uint32_t done_bytes;      /* backend-private: bytes transferred so far */
    uint64_t due_ns;          /* completion time when the backend knows it (memory:
                               * at submit; emulated: the model's), else 0 */
    struct jbof_breq *next;   /* backend-private link */
} jbof_breq;

typedef struct jbof_backend jbof_backend;

typedef struct jbof_backend_ops {
    const char *name;
    /* Take one request (bounds already checked).  0, or -errno if it cannot
     * even be queued (the reactor then completes it with that error). */
    int (*submit)(jbof_backend *b, jbof_breq *r, uint64_t now_ns);
    /* Hand queued requests to the device: at most one syscall. */
    int (*kick)(jbof_backend *b);
    /* Completed requests into out[0..max); returns the count. */
    int (*reap)(jbof_backend *b, jbof_breq **out, int max, uint64_t now_ns);
    /* Earliest time a completion falls due on its own (UINT64_MAX: none). */
    uint64_t (*next_due_ns)(const jbof_backend *b);
    /* Make completed writes durable, synchronously (graceful stop). */
    int (*sync)(jbof_backend *b);
    /* Zero [off, off + len) now, synchronously; reads of it return zeroes
     * afterwards (scrub.c: a freed namespace's blocks for their next
     * owner).  off and len are multiples of the drive's block. */
    int (*zero)(jbof_backend *b, uint64_t off, uint64_t len);
    /* Model statistics (emulated), else NULL. */
    int (*ssd_stats)(const jbof_backend *b, jbof_ssd_stats *out);
    void (*destroy)(jbof_backend *b);
    /* Allocation of [off, off + len) in drive offsets, metadata only (no
     * data IO, called in the reactor thread, never blocks on the device
     * queue): consecutive extents from off into out[0..max), flags
     * JBOF_NBD_STATE_HOLE | _ZERO or 0 for data, covering a prefix of the
     * range.  Returns the count (>= 1) or -errno.  "Data" is always a safe
     * answer; HOLE|ZERO only where reads are known to return zeroes.
     * NULL: everything is data. */
    int (*extents)(jbof_backend *b, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max);
} jbof_backend_ops;

struct jbof_backend {
    const jbof_backend_ops *ops;
    int event_fd;             /* readable when completions wait (-1: none) */
    uint32_t io_mode;         /* enum jbof_io_mode in use */
    uint32_t block_bytes;     /* alignment the backend needs */
    uint32_t direct;          /* O_DIRECT in use */
    uint64_t size_bytes;
    uint64_t submitted, completed, errors;
    uint32_t inflight;
    uint64_t eof_errors;      /* kept by the backend: IO refused with EIO because
                               * its file was found truncated or deleted */
    uint32_t zero_writes;     /* kept by the backend: JBOF_ZW_* (jbof_nbd.h), the
                               * zeroing requests it may carry out by writing
                               * data; set at create, may grow (learned at reap),
                               * never shrinks (cost.c section 6) */
};

/* cost.c section 6: JBOF_IO_ZERO_WRITES for io on a drive with this
 * zero_cost (enum jbof_zero_cost) whose backend reports zw (JBOF_ZW_*),
 * else 0.  Only TRIM and WRITE_ZEROES can have it. */
static inline uint8_t zero_writes_flag(uint32_t zero_cost, uint32_t zw, const jbof_io *io)
{
    if (io->opcode != JBOF_OP_WRITE_ZEROES && io->opcode != JBOF_OP_TRIM)
        return 0;
    if (zero_cost != JBOF_ZERO_COST_AUTO)
        return zero_cost == JBOF_ZERO_COST_WRITE ? JBOF_IO_ZERO_WRITES : 0;
    uint32_t need = io->opcode == JBOF_OP_TRIM ? JBOF_ZW_TRIM
                    : (io->flags & JBOF_BREQ_NO_HOLE) ? JBOF_ZW_NO_HOLE : JBOF_ZW_HOLE;
    if (io->opcode == JBOF_OP_WRITE_ZEROES && (io->flags & JBOF_BREQ_FAST_ZERO))
        need |= JBOF_ZW_FAST; /* FAST_ZERO: a file never falls back to writing */
    return (zw & need) == need ? JBOF_IO_ZERO_WRITES : 0;
}

int jbof_backend_memory_create(const jbof_drive_cfg *cfg, jbof_backend **out);
int jbof_backend_file_create(const jbof_drive_cfg *cfg, jbof_backend **out);
int jbof_backend_emulated_create(const jbof_drive_cfg *cfg, jbof_backend **out);
/* Filter: wrap inner so every Nth completion fails with EIO (every > 0).
 * On success the wrapper owns inner (its destroy destroys both). */
int jbof_backend_error_wrap(jbof_backend *inner, uint32_t every, jbof_backend **out);

/* The data store of the memory and emulated backends: a mapping of
 * anonymous memory (path NULL or "") or of a sparse file. */
typedef struct jbof_store {
    uint8_t *base;
    uint64_t size_bytes;
    int fd;                   /* -1 for anonymous memory */
    uint32_t map_shift;       /* anonymous: log2 of a tracked chunk (12: 4 KiB) */
    uint64_t *map;            /* anonymous: bit set = chunk may hold data */
    size_t map_bytes;         /* its mapping's length */
    uint64_t eof_errors;      /* IO refused: the data file is shorter than the store */
    uint64_t file_bytes;      /* file-backed: st_size at the last check */
    uint64_t checked_ns;      /* file-backed: the now_ns of that check (0: none yet) */
} jbof_store;

/* huge: back anonymous memory with transparent huge pages (512x fewer
 * faults; unwritten areas read from the huge zero page). */
int jbof_store_open(jbof_store *s, const char *path, uint64_t size_bytes, int huge);
void jbof_store_close(jbof_store *s);
/* Apply the data effect of one request (READ fills r->buf).  -EIO when a
 * data file was truncated under the mapping (touching it would SIGBUS). */
int jbof_store_apply(jbof_store *s, const jbof_breq *r, uint64_t now_ns);
/* Zero [off, off + len): MADV_DONTNEED / PUNCH_HOLE whole pages, memset edges. */
int jbof_store_zero(jbof_store *s, uint64_t off, uint64_t len);
int jbof_store_sync(jbof_store *s);
/* The extents op over the store: the written-chunk bitmap for anonymous
 * memory, SEEK_DATA/SEEK_HOLE for a file. */
int jbof_store_extents(const jbof_store *s, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max);
/* SEEK_DATA/SEEK_HOLE over [off, off + len) of a regular file (backend_file.c);
 * a file system that cannot tell reports data. */
int jbof_fd_extents(int fd, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max);

#endif /* JBOF_BACKEND_H */
