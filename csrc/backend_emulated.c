/*
 * backend_emulated.c -- the emulated NVMe SSD in real time: data in the
 * shared store (RAM or a sparse file), timing from the jbof_ssd model.
 *
 * 1. Why.  QoS behaviour (a 128 KiB writer hurting a 4 KiB reader, the
 *    controller finding the latency knee) needs a drive with a knee, a
 *    write cost and garbage collection.  The model (ssd.c) says when each
 *    command would finish on such a drive; this backend holds the
 *    completion until then, so every client and the scheduler see the
 *    drive's latency, on any machine, with real data.
 *
 * 2. How.  submit applies the data at once (memcpy into the store), asks
 *    the model for done_ns = jbof_ssd_submit(op, offset, length, now), and
 *    pushes the request on a min-heap keyed by done_ns.  reap pops every
 *    request with done_ns <= now.  next_due_ns is the heap top: the reactor
 *    sleeps until then (epoll_pwait2 with a nanosecond timeout), so no
 *    thread and no timer fd are needed.  Commands the model refuses (for
 *    example a WRITE_ZEROES longer than its largest command) complete at
 *    once rather than fail: the data effect is already applied.
 *
 * 3. Worked example (dct983 preset): at now = 1,000,000 ns a 4 KiB read
 *    gets done_ns = 1,000,000 + about 85,000 (controller + tR + transfer):
 *    the heap top is then 1,085,000, the reactor sleeps 85 us, wakes,
 *    reaps it and replies.  Thirty-two such reads queued at once spread
 *    over the 64 flash units come back within a few microseconds of each
 *    other; a 128 KiB write in the same window occupies eight units for
 *    tPROG and reads landing on those units wait (read-behind-write).
 *
 * 4. Time is never read here: now_ns comes from the reactor.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef struct emu_be {
    jbof_backend b;
    jbof_store store;
    jbof_ssd *ssd;
    jbof_breq **heap;       /* min-heap on due_ns */
    uint32_t n, cap;
    uint64_t seq;
} emu_be;

static void heap_up(jbof_breq **h, uint32_t i)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (h[p]->due_ns <= h[i]->due_ns)
            break;
        jbof_breq *t = h[p];
        h[p] = h[i];
        h[i] = t;
        i = p;
    }
}

static void heap_down(jbof_breq **h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l]->due_ns < h[m]->due_ns)
            m = l;
        if (r < n && h[r]->due_ns < h[m]->due_ns)
            m = r;
        if (m == i)
            return;
        jbof_breq *t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
}

static int emu_submit(jbof_backend *b, jbof_breq *r, uint64_t now_ns)
{
    emu_be *e = (emu_be *)b;
    if (e->n == e->cap) {
        uint32_t cap = e->cap ? e->cap * 2 : 256;
        jbof_breq **h = realloc(e->heap, cap * sizeof(*h));
        if (!h)
            return -ENOMEM;
        e->heap = h;
        e->cap = cap;
    }
    r->status = jbof_store_apply(&e->store, r, now_ns);
    e->b.eof_errors = e->store.eof_errors;
    uint64_t done = now_ns;
    uint64_t off = r->io.opcode == JBOF_OP_FLUSH ? 0 : r->io.offset_bytes;
    uint32_t len = r->io.opcode == JBOF_OP_FLUSH ? 0 : r->io.length_bytes;
    if (r->status == 0 && jbof_ssd_submit(e->ssd, r->io.opcode, off, len, now_ns, &done) < 0)
        done = now_ns;
    r->due_ns = done;
    e->heap[e->n] = r;
    heap_up(e->heap, e->n++);
    return 0;
}

static int emu_kick(jbof_backend *b)
{
    (void)b;
    return 0;
}

static int emu_reap(jbof_backend *b, jbof_breq **out, int max, uint64_t now_ns)
{
    emu_be *e = (emu_be *)b;
    int k = 0;
    while (k < max && e->n && e->heap[0]->due_ns <= now_ns) {
        out[k++] = e->heap[0];
        e->heap[0] = e->heap[--e->n];
        heap_down(e->heap, e->n, 0);
    }
    return k;
}

static uint64_t emu_next_due(const jbof_backend *b)
{
    const emu_be *e = (const emu_be *)b;
    return e->n ? e->heap[0]->due_ns : UINT64_MAX;
}

static int emu_sync(jbof_backend *b)
{
    return jbof_store_sync(&((emu_be *)b)->store);
}

static int emu_zero(jbof_backend *b, uint64_t off, uint64_t len)
{
    emu_be *e = (emu_be *)b;
    int rc = jbof_store_zero(&e->store, off, len);
    e->b.eof_errors = e->store.eof_errors;
    return rc;
}

static int emu_ssd_stats(const jbof_backend *b, jbof_ssd_stats *out)
{
    return jbof_ssd_stats_get(((const emu_be *)b)->ssd, out);
}

static void emu_destroy(jbof_backend *b)
{
    emu_be *e = (emu_be *)b;
    if (!e)
        return;
    jbof_ssd_destroy(e->ssd);
    jbof_store_close(&e->store);
    free(e->heap);
    free(e);
}

/* Allocation is the store's (no model time: metadata is not flash IO). */
static int emu_extents(jbof_backend *b, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max)
{
    return jbof_store_extents(&((emu_be *)b)->store, off, len, out, max);
}

static const jbof_backend_ops EMU_OPS = {
    .name = "emulated",
    .submit = emu_submit,
    .kick = emu_kick,
    .reap = emu_reap,
    .next_due_ns = emu_next_due,
    .sync = emu_sync,
    .zero = emu_zero,
    .ssd_stats = emu_ssd_stats,
    .destroy = emu_destroy,
    .extents = emu_extents,
};

int jbof_backend_emulated_create(const jbof_drive_cfg *cfg, jbof_backend **out)
{
    if (!cfg || !out || cfg->size_bytes == 0)
        return -EINVAL;
    *out = NULL;
    char model[sizeof(cfg->model) + 1];
    memcpy(model, cfg->model, sizeof(cfg->model));
    model[sizeof(cfg->model)] = 0;
    jbof_ssd_cfg sc;
    int rc = jbof_ssd_preset(model[0] ? model : "dct983", &sc);
    if (rc < 0)
        return rc;
    if (sc.capacity_bytes < cfg->size_bytes)
        sc.capacity_bytes = cfg->size_bytes;
    emu_be *e = calloc(1, sizeof(*e));
    if (!e)
        return -ENOMEM;
    char path[sizeof(cfg->path) + 1];
    memcpy(path, cfg->path, sizeof(cfg->path));
    path[sizeof(cfg->path)] = 0;
    rc = jbof_store_open(&e->store, path[0] ? path : NULL, cfg->size_bytes, 0);
    if (rc < 0) {
        free(e);
        return rc;
    }
    rc = jbof_ssd_create(&sc, cfg->seed, &e->ssd);
    if (rc < 0) {
        jbof_store_close(&e->store);
        free(e);
        return rc;
    }
    e->b.ops = &EMU_OPS;
    e->b.event_fd = -1;
    e->b.io_mode = JBOF_IO_INLINE;
    e->b.block_bytes = 1;
    e->b.size_bytes = cfg->size_bytes;
    *out = &e->b;
    return 0;
}
