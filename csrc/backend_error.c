/*
 * backend_error.c -- the error filter: a backend that wraps another and
 * fails every Nth IO with EIO (nbdkit's error filter, drive.error_every).
 *
 * 1. Shape.  It has the same jbof_backend_ops as every backend and forwards
 *    each op to the inner one; the engine sees one backend and keeps its
 *    counters (submitted, completed, errors, inflight) on this outer
 *    struct.  Its event_fd, io_mode, block, O_DIRECT flag and size are the
 *    inner backend's, so nothing upstream can tell it is there.
 *
 * 2. Injection happens on the way out: reap counts every completion it
 *    passes up and turns the status of every error_every-th one into -EIO
 *    if the inner backend reported success (a real error is kept as it
 *    is).  The data effect of a failed WRITE has happened, like a drive
 *    that reports a failure after the media was written: clients must not
 *    assume a failed write left the old data.
 *
 * 3. Worked example: error_every = 3 and six 4 KiB reads complete OK:
 *    completions 3 and 6 are reported as EIO (the client gets NBD_EIO),
 *    1, 2, 4, 5 as successes; backend_errors counts 2.
 */
#include <errno.h>
#include <stdlib.h>

#include "backend.h"

typedef struct err_be {
    jbof_backend base;        /* first: the engine holds a jbof_backend * */
    jbof_backend *inner;
    uint32_t every;           /* fail every Nth completion (> 0) */
    uint64_t seen;            /* completions passed up */
} err_be;

static jbof_backend *inner_of(const jbof_backend *b) { return ((const err_be *)b)->inner; }

static int err_submit(jbof_backend *b, jbof_breq *r, uint64_t now_ns)
{
    jbof_backend *in = inner_of(b);
    int rc = in->ops->submit(in, r, now_ns);
    b->eof_errors = in->eof_errors;
    return rc;
}

static int err_kick(jbof_backend *b)
{
    jbof_backend *in = inner_of(b);
    return in->ops->kick(in);
}

static int err_reap(jbof_backend *b, jbof_breq **out, int max, uint64_t now_ns)
{
    err_be *f = (err_be *)b;
    int n = f->inner->ops->reap(f->inner, out, max, now_ns);
    f->base.eof_errors = f->inner->eof_errors;
    f->base.zero_writes = f->inner->zero_writes; /* learned at the inner reap */
    for (int i = 0; i < n; i++)
        if (++f->seen % f->every == 0 && out[i]->status == 0)
            out[i]->status = -EIO; /* injected */
    return n;
}

static uint64_t err_next_due_ns(const jbof_backend *b)
{
    const jbof_backend *in = inner_of(b);
    return in->ops->next_due_ns(in);
}

static int err_sync(jbof_backend *b)
{
    jbof_backend *in = inner_of(b);
    return in->ops->sync(in);
}

static int err_zero(jbof_backend *b, uint64_t off, uint64_t len)
{
    err_be *f = (err_be *)b;
    int rc = f->inner->ops->zero(f->inner, off, len);
    f->base.eof_errors = f->inner->eof_errors;
    return rc;
}

static int err_ssd_stats(const jbof_backend *b, jbof_ssd_stats *out)
{
    const jbof_backend *in = inner_of(b);
    return in->ops->ssd_stats ? in->ops->ssd_stats(in, out) : -ENOTSUP;
}

/* Metadata is not IO: never failed, never counted. */
static int err_extents(jbof_backend *b, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max)
{
    jbof_backend *in = inner_of(b);
    if (!in->ops->extents) {
        if (!out || max <= 0 || len == 0 || len > UINT32_MAX)
            return -EINVAL;
        out[0] = (jbof_nbd_extent){.length_bytes = (uint32_t)len, .flags = 0};
        return 1;
    }
    return in->ops->extents(in, off, len, out, max);
}

static void err_destroy(jbof_backend *b)
{
    jbof_backend *in = inner_of(b);
    in->ops->destroy(in);
    free(b);
}

static const jbof_backend_ops err_ops = {
    .name = "error",
    .submit = err_submit,
    .kick = err_kick,
    .reap = err_reap,
    .next_due_ns = err_next_due_ns,
    .sync = err_sync,
    .zero = err_zero,
    .ssd_stats = err_ssd_stats,
    .destroy = err_destroy,
    .extents = err_extents,
};

int jbof_backend_error_wrap(jbof_backend *inner, uint32_t every, jbof_backend **out)
{
    if (!inner || !inner->ops || every == 0 || !out)
        return -EINVAL;
    err_be *f = calloc(1, sizeof(*f));
    if (!f)
        return -ENOMEM;
    f->base.ops = &err_ops;
    f->base.event_fd = inner->event_fd;
    f->base.io_mode = inner->io_mode;
    f->base.block_bytes = inner->block_bytes;
    f->base.direct = inner->direct;
    f->base.size_bytes = inner->size_bytes;
    f->base.zero_writes = inner->zero_writes;
    f->inner = inner;
    f->every = every;
    *out = &f->base;
    return 0;
}
