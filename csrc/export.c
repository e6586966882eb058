/*
 * export.c -- drives, and the exports (tenants) carved out of them.
 *
 * 1. A drive is a backend (memory / file / emulated, optionally wrapped by
 *    the error filter) plus one scheduler.  Its usable size is the
 *    backend's, rounded down to the drive's block (the larger of the
 *    configured block and what the backend needs, e.g. O_DIRECT's).
 *
 * 2. An export is one tenant: a name, a scheduler tenant id and a
 *    namespace [base, base + size) on its drive.  Namespaces are placed
 *    first fit, aligned to 1 MiB when the size is a multiple of 1 MiB,
 *    else to the preferred block (4 KiB or the drive's block) -- or at a
 *    given base (jbof_export_cfg.at_base): a multiple of the drive's block,
 *    inside the drive (-EINVAL), clear of every namespace, one being removed
 *    included (-EEXIST).  First fit depends on what was added and removed
 *    before, so a layout does not survive a restart by itself: the daemon
 *    records each tenant's base (its `offset`) in its state file and gives
 *    it back at start (control/state.py), else removing the first of two
 *    tenants and restarting placed the second over the first's old space
 *    (its own data gone, the first's shown).  Space that is dirty
 *    (scrub.c) may be given: it reads as zeroes.
 *
 * 2a. The same first fit without an engine: jbof_place_first_fit(drive
 *    size, block, size, taken ranges) -- one copy of the rules above
 *    (first_fit), the taken ranges occupied like namespaces.  The daemon
 *    places a tenant without an offset with it before the Engine exists,
 *    passing the namespaces already placed and the removed tenants' space
 *    its state still lists as not zeroed (control/state.py
 *    place_clear_of_pending), which the Engine's own first fit would hand
 *    out (it reads zeroes there, but a restart before the scrub finished
 *    would zero the new tenant's data or show it the old).  Worked example:
 *    a 128 MiB drive, b at [64 MiB, 96 MiB), [0, 32 MiB) pending: 32 MiB
 *    goes to 32 MiB, 40 MiB fits nowhere (-ENOSPC; over the pending space
 *    it would, at 0).
 *
 * 3. Worked example: on a 4 GiB drive, exports of 1 GiB, 3 MiB + 4 KiB and
 *    1 GiB land at 0, 1 GiB (4 KiB aligned, ends at 1 GiB + 3 MiB + 4 KiB)
 *    and 1 GiB + 4 MiB (the next 1 MiB boundary).  Removing the first
 *    frees [0, 1 GiB) for the next export that fits.
 *
 * 4. Removal is a transition, bounded in time (issue 11): the export
 *    leaves the codec's table (no new connections); its connections are
 *    read no more; what it has queued in the scheduler (and a request
 *    parked for SQ credit) is answered ESHUTDOWN at once
 *    (jbof_sched_tenant_flush, sched.c section 13), never drained -- a
 *    tenant throttled to 1 MiB/s with 64 queued 128 KiB writes used to
 *    hold the removal for its 8 s of limit, and lifting the limit instead
 *    still made the drive do work whose replies nobody reads.  A WRITE
 *    whose payload was still arriving is dropped.  IO already in the
 *    backend completes and is answered normally.  Each connection closes
 *    once its replies are out, or after REMOVE_LINGER_NS if its client
 *    does not read them.  The command is retried each iteration until
 *    then and until the scheduler lets the tenant go (-EBUSY while IO is
 *    in flight); other commands are applied meanwhile (engine.c).
 *    Worked example: 64 writes queued behind a 1 MiB/s limit, one in
 *    the drive: 64 ESHUTDOWN replies and the connection closed in the
 *    first iteration, the tenant gone when the last write completes
 *    (memory drive: the same iteration).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "jbof_internal.h"
#include "reactor.h"

/* ------------------------------------------------------------ exports ---- */

static void rebuild_tab(jbof_engine *e)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < e->nx; i++) {
        export *x = e->xs[i];
        if (x->removing)
            continue;
        e->tab[k] = x->nbd;
        e->tab_x[k] = x;
        k++;
    }
    for (uint32_t i = 0; i < e->nstubs; i++) { /* root: other reactors' exports */
        e->tab[k] = e->stubs[i]->nbd;
        e->tab_x[k++] = e->stubs[i];
    }
    e->ntab = k;
}

static export *find_stub(jbof_engine *e, const char *name)
{
    for (uint32_t i = 0; i < e->nstubs; i++)
        if (strcmp(e->stubs[i]->name, name) == 0)
            return e->stubs[i];
    return NULL;
}

drive *drive_by_id(jbof_engine *e, uint32_t id)
{
    for (uint32_t i = 0; i < e->ndrives; i++)
        if (e->drives[i]->id == id)
            return e->drives[i];
    return NULL;
}

/* Name, namespace size and the codec's view of an export on drive d. */
static int export_fill(export *x, const jbof_export_cfg *cfg, const drive *d)
{
    size_t nlen = strnlen(cfg->name, sizeof(cfg->name));
    size_t dlen = strnlen(cfg->description, sizeof(cfg->description));
    if (nlen == 0 || nlen > JBOF_NBD_NAME_MAX_BYTES || dlen > JBOF_NBD_DESC_MAX_BYTES)
        return -EINVAL;
    memcpy(x->name, cfg->name, nlen);
    x->name[nlen] = 0;
    x->name_len = (uint32_t)nlen;
    x->read_only = cfg->read_only ? 1 : 0;
    x->size = cfg->size_bytes;
    x->nbd.name = x->name;
    x->nbd.name_len = x->name_len;
    x->nbd.size_bytes = x->size;
    x->nbd.min_block_bytes = d->block_bytes;
    x->nbd.pref_block_bytes = d->block_bytes > PREF_BLOCK_BYTES ? d->block_bytes : PREF_BLOCK_BYTES;
    x->nbd.max_payload_bytes = JBOF_NBD_MAX_PAYLOAD_BYTES;
    x->nbd.tflags = jbof_nbd_tflags(x->read_only);
    memcpy(x->desc, cfg->description, dlen);
    x->desc[dlen] = 0;
    x->nbd.description = x->desc;
    x->nbd.description_len = (uint32_t)dlen;
    x->is_default = x->nbd.is_default = cfg->is_default ? 1 : 0;
    return 0;
}

/* Root: another reactor has just added cfg; make it visible to handshakes.
 * Names and the default export are unique engine-wide, which only the
 * root can check (-EEXIST: the caller removes it from its reactor). */
int stub_add(jbof_engine *e, const jbof_export_cfg *cfg, uint32_t home)
{
    if (home == 0 || home >= e->nrs || cfg->drive >= e->ndrive_ids)
        return -EINVAL;
    if (find_export(e, cfg->name) || find_stub(e, cfg->name))
        return -EEXIST;
    for (uint32_t i = 0; cfg->is_default && i < e->nx; i++)
        if (e->xs[i]->is_default)
            return -EEXIST;
    for (uint32_t i = 0; cfg->is_default && i < e->nstubs; i++)
        if (e->stubs[i]->is_default)
            return -EEXIST;
    if (e->nx + e->nstubs >= e->cfg.max_exports)
        return -ENOSPC;
    /* drives are immutable once the engine runs: reading another
     * reactor's block size is safe */
    const drive *d = drive_by_id(e->rs[home], cfg->drive);
    if (!d)
        return -EINVAL;
    export *x = calloc(1, sizeof(*x));
    if (!x)
        return -ENOMEM;
    int rc = export_fill(x, cfg, d);
    if (rc < 0) {
        free(x);
        return rc;
    }
    x->home = home; /* x->d stays NULL: a stub carries no IO */
    e->stubs[e->nstubs++] = x;
    rebuild_tab(e);
    return 0;
}

int stub_remove(jbof_engine *e, const char *name)
{
    for (uint32_t i = 0; i < e->nstubs; i++) {
        if (strcmp(e->stubs[i]->name, name) == 0) {
            free(e->stubs[i]);
            e->stubs[i] = e->stubs[--e->nstubs];
            rebuild_tab(e);
            return 0;
        }
    }
    return -ENOENT;
}

export *find_export(jbof_engine *e, const char *name)
{
    if (!name)
        return NULL;
    for (uint32_t i = 0; i < e->nx; i++)
        if (strcmp(e->xs[i]->name, name) == 0)
            return e->xs[i];
    return NULL;
}

/* The namespace of an export of d that overlaps [off, off + len), or NULL. */
static export *ns_overlap(jbof_engine *e, const drive *d, uint64_t off, uint64_t len)
{
    for (uint32_t i = 0; i < e->nx; i++) {
        export *x = e->xs[i];
        if (x->d == d && off < x->base + x->size && x->base < off + len)
            return x;
    }
    return NULL;
}

/* Section 2's first fit, the one copy of its rules: the lowest multiple of
 * 1 MiB (size a multiple of it), else of the preferred block, at which size
 * bytes fit in [0, end) clear of the namespaces of d (none when d is NULL)
 * and of taken[0 .. ntaken) (section 2a).  A clash moves the candidate to
 * the end of the range it hit: no start before that end can clear it. */
static int first_fit(jbof_engine *e, const drive *d, uint64_t end, uint32_t block,
                     uint64_t size, const jbof_range *taken, uint32_t ntaken, uint64_t *base_out)
{
    uint64_t align = 1ull << 20;
    if (size % align)
        align = block > PREF_BLOCK_BYTES ? block : PREF_BLOCK_BYTES;
    uint64_t cand = 0;
    for (;;) {
        if (cand > end)
            return -ENOSPC;
        uint64_t r = cand % align;
        if (r && align - r > end - cand)
            return -ENOSPC; /* the next boundary is past the end */
        cand += r ? align - r : 0;
        if (size > end - cand)
            return -ENOSPC;
        uint64_t next = cand;
        const export *x = d ? ns_overlap(e, d, cand, size) : NULL;
        if (x)
            next = x->base + x->size;
        for (uint32_t i = 0; !x && i < ntaken; i++) {
            if (cand < taken[i].off + taken[i].len && taken[i].off < cand + size) {
                next = taken[i].off + taken[i].len;
                break;
            }
        }
        if (next == cand) {
            *base_out = cand;
            return 0;
        }
        cand = next;
    }
}

/* First fit of size bytes on drive d among its namespaces. */
static int ns_alloc(jbof_engine *e, drive *d, uint64_t size, uint64_t *base_out)
{
    return first_fit(e, d, d->size_bytes, d->block_bytes, size, NULL, 0, base_out);
}

int jbof_place_first_fit(uint64_t drive_bytes, uint32_t block_bytes, uint64_t size_bytes,
                         const jbof_range *taken, uint32_t ntaken, uint64_t *base_out)
{
    uint32_t block = block_bytes ? block_bytes : 1;
    if (!base_out || (block & (block - 1)) || size_bytes == 0 || size_bytes % block ||
        (ntaken && !taken))
        return -EINVAL;
    for (uint32_t i = 0; i < ntaken; i++)
        if (taken[i].len == 0 || taken[i].off > UINT64_MAX - taken[i].len)
            return -EINVAL;
    return first_fit(NULL, NULL, drive_bytes / block * block, block, size_bytes, taken, ntaken,
                     base_out);
}

/* A given base (section 2): a multiple of the drive's block, inside it,
 * clear of every other namespace (one being removed included). */
static int ns_at(jbof_engine *e, const drive *d, uint64_t base, uint64_t size)
{
    if (base % d->block_bytes || base > d->size_bytes || size > d->size_bytes - base)
        return -EINVAL;
    return ns_overlap(e, d, base, size) ? -EEXIST : 0;
}

int drive_scrub_mark(jbof_engine *e, uint32_t drive_id, const uint64_t *in)
{
    drive *d = drive_by_id(e, drive_id);
    if (!d)
        return -ENOENT;
    uint64_t off = in[0], len = in[1];
    if (off % d->block_bytes || len % d->block_bytes || off > d->size_bytes ||
        len > d->size_bytes - off)
        return -EINVAL;
    if (ns_overlap(e, d, off, len))
        return -EBUSY; /* a tenant's data: never zero it */
    /* scrub_mark takes clean space: mark the gaps between dirty extents */
    for (uint64_t pos = off, end = off + len; pos < end;) {
        uint32_t i = 0; /* the first extent that ends after pos */
        while (i < d->ndirty && d->dirty[i].off + d->dirty[i].len <= pos)
            i++;
        if (i < d->ndirty && d->dirty[i].off <= pos) { /* dirty already */
            pos = d->dirty[i].off + d->dirty[i].len;
            continue;
        }
        uint64_t stop = i < d->ndirty && d->dirty[i].off < end ? d->dirty[i].off : end;
        int rc = scrub_mark(d, pos, stop - pos);
        if (rc < 0)
            return rc;
        pos = stop;
    }
    return 0;
}

int export_add(jbof_engine *e, const jbof_export_cfg *cfg)
{
    size_t nlen = strnlen(cfg->name, sizeof(cfg->name));
    drive *d = drive_by_id(e, cfg->drive);
    if (nlen == 0 || nlen > JBOF_NBD_NAME_MAX_BYTES || !d)
        return -EINVAL;
    if (find_export(e, cfg->name) || find_stub(e, cfg->name))
        return -EEXIST;
    size_t dlen = strnlen(cfg->description, sizeof(cfg->description));
    if (dlen > JBOF_NBD_DESC_MAX_BYTES)
        return -EINVAL;
    for (uint32_t i = 0; cfg->is_default && i < e->nx; i++)
        if (e->xs[i]->is_default)
            return -EEXIST; /* one default export per engine */
    for (uint32_t i = 0; cfg->is_default && i < e->nstubs; i++)
        if (e->stubs[i]->is_default)
            return -EEXIST;
    if (e->nx + e->nstubs >= e->cfg.max_exports)
        return -ENOSPC;
    if (cfg->size_bytes == 0 || cfg->size_bytes % d->block_bytes)
        return -EINVAL;
    if (cfg->max_requests > e->cfg.max_requests || cfg->max_connections > e->cfg.max_connections)
        return -EINVAL;
    uint64_t base = cfg->base_bytes;
    int rc = cfg->at_base ? ns_at(e, d, base, cfg->size_bytes)
                          : ns_alloc(e, d, cfg->size_bytes, &base);
    if (rc < 0)
        return rc;
    export *x = calloc(1, sizeof(*x));
    if (!x)
        return -ENOMEM;
    rc = jbof_sched_tenant_add(d->s, &cfg->tenant, e->now_ns, &x->tid);
    if (rc < 0) {
        free(x);
        return rc;
    }
    export_fill(x, cfg, d); /* checked above */
    x->d = d;
    x->home = e->rid;
    x->base = base;
    x->cfg_buf = cfg->buffer_bytes;
    x->cfg_slots = cfg->max_requests;
    x->cfg_conns = cfg->max_connections;
    d->allocated_bytes += x->size;
    d->nexports++;
    e->xs[e->nx++] = x;
    rebuild_tab(e);
    budget_recompute(e);
    return 0;
}

/* Fail what x has queued in its scheduler with ESHUTDOWN (section 4). */
static void export_flush(jbof_engine *e, export *x)
{
    jbof_io *ios[BATCH];
    int n;
    while ((n = jbof_sched_tenant_flush(x->d->s, x->tid, ios, BATCH, e->now_ns)) > 0) {
        for (int i = 0; i < n; i++) {
            x->sched_ios--;
            req_fail_removed(e, &e->slots[ios[i]->tag]); /* dropped if its connection died */
        }
        x->credit_freed = 1;
    }
}

/* 0 when removed, -EINPROGRESS while its in-flight IO completes or its
 * connections send their last replies (bounded by REMOVE_LINGER_NS). */
int export_remove_step(jbof_engine *e, export *x)
{
    if (!x->removing) {
        x->removing = 1;
        x->linger_until_ns = e->now_ns + REMOVE_LINGER_NS;
        rebuild_tab(e);
        for (conn *c = e->conns; c; c = c->next) {
            if (c->x != x)
                continue;
            /* read nothing more; close once the replies below are out */
            c->want_close = 1;
            wait_stop(e, c);
            if (c->parked) { /* no SQ credit yet: fail it too */
                req *r = c->parked;
                c->parked = NULL;
                req_fail_removed(e, r);
            }
            if (c->cur) { /* a WRITE whose payload is still arriving: never read */
                req *r = c->cur;
                c->cur = NULL;
                req_put(e, r);
            }
            dirty_push(e, c);
        }
    }
    export_flush(e, x); /* nothing new enters (req_submit), but be sure */
    int lingering = 0;
    for (conn *c = e->conns, *nx; c; c = nx) {
        nx = c->next;
        if (c->x != x)
            continue;
        if (e->now_ns >= x->linger_until_ns)
            conn_close(e, c, 0); /* a client that does not read its replies */
        else
            lingering = 1;
    }
    if (lingering)
        return -EINPROGRESS;
    int rc = jbof_sched_tenant_remove(x->d->s, x->tid);
    if (rc == -EBUSY)
        return -EINPROGRESS;
    if (rc < 0 && rc != -ENOENT)
        return rc;
    x->d->allocated_bytes -= x->size;
    x->d->nexports--;
    /* scrub.c: its blocks read as zeroes to whoever gets them next */
    scrub_mark(x->d, x->base, x->size);
    uint32_t i = 0;
    while (i < e->nx && e->xs[i] != x)
        i++;
    for (; i + 1 < e->nx; i++)
        e->xs[i] = e->xs[i + 1];
    e->nx--;
    free(x);
    rebuild_tab(e);
    budget_recompute(e);
    return 0;
}

void export_stats_fill(export *x, jbof_export_stats *out, uint64_t now_ns)
{
    *out = x->st;
    out->stall_max_ns = x->stall_max_ns;
    if (x->sched_ios) {
        out->stall_now_ns = export_stall_ns(x, now_ns);
        if (out->stall_now_ns > out->stall_max_ns)
            out->stall_max_ns = out->stall_now_ns;
    }
    jbof_sched_tenant_stats(x->d->s, x->tid, &out->tenant);
    out->tenant.queued_ns = tenant_queued_ns_at(&out->tenant, now_ns);
    out->ns_base_bytes = x->base;
    out->size_bytes = x->size;
    out->drive = x->d->id;
    out->read_only = x->read_only;
    out->connections = x->nconns;
    out->stalled = x->nstalled;
    out->buffer_bytes_used = x->buf_used;
    out->buffer_budget_bytes = x->buf_budget;
    out->requests_used = x->slots_used;
    out->request_budget = x->slot_budget;
}

void drive_info_fill(drive *d, jbof_drive_info *out)
{
    memset(out, 0, sizeof(*out));
    jbof_sched_drive_stats(d->s, &out->sched);
    if (d->be->ops->ssd_stats)
        d->be->ops->ssd_stats(d->be, &out->ssd);
    out->size_bytes = d->size_bytes;
    out->allocated_bytes = d->allocated_bytes;
    out->backend_submitted = d->be->submitted;
    out->backend_completed = d->be->completed;
    out->backend_errors = d->be->errors;
    out->backend_inflight = d->be->inflight;
    out->backend = d->kind;
    out->io_mode = d->be->io_mode;
    out->block_bytes = d->block_bytes;
    out->direct = d->be->direct;
    out->exports = d->nexports;
    out->backend_eof_errors = d->be->eof_errors;
    out->scrub_pending_bytes = d->scrub_pending;
    out->scrubbed_bytes = d->scrubbed;
    out->zero_cost = d->zero_cost;
    out->zero_writes = d->be->zero_writes;
}

int jbof_engine_add_drive(jbof_engine *e, const jbof_drive_cfg *cfg, uint32_t *id_out)
{
    if (!e || !cfg || cfg->backend >= JBOF_BACKEND_KIND_COUNT || cfg->zero_cost >= JBOF_ZERO_COST_COUNT)
        return -EINVAL;
    if (e->started)
        return -EBUSY;
    if (e->ndrive_ids >= MAX_DRIVES)
        return -ENOSPC;
    if (cfg->block_bytes && (cfg->block_bytes & (cfg->block_bytes - 1)))
        return -EINVAL;
    if (cfg->reactor < -1 || (cfg->reactor >= 0 && (uint32_t)cfg->reactor >= e->nrs))
        return -EINVAL;
    uint32_t home = cfg->reactor < 0 ? e->ndrive_ids % e->nrs : (uint32_t)cfg->reactor;
    jbof_engine *root = e;
    e = root->rs[home]; /* section 7: the drive lives on this reactor only */
    drive *d = calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    int rc;
    switch (cfg->backend) {
    case JBOF_BACKEND_MEMORY:
        rc = jbof_backend_memory_create(cfg, &d->be);
        break;
    case JBOF_BACKEND_FILE:
        rc = jbof_backend_file_create(cfg, &d->be);
        break;
    default:
        rc = jbof_backend_emulated_create(cfg, &d->be);
        break;
    }
    if (rc == 0 && cfg->error_every) {
        jbof_backend *f; /* fault injection: a filter around the backend */
        rc = jbof_backend_error_wrap(d->be, cfg->error_every, &f);
        if (rc == 0)
            d->be = f;
    }
    if (rc == 0)
        rc = jbof_sched_create(&cfg->sched, &d->s);
    if (rc < 0) {
        if (d->be)
            d->be->ops->destroy(d->be);
        free(d);
        return rc;
    }
    d->src.kind = SRC_BACKEND;
    d->id = root->ndrive_ids;
    d->kind = cfg->backend;
    d->zero_cost = cfg->zero_cost;
    memcpy(d->name, cfg->name, sizeof(d->name));
    d->name[sizeof(d->name) - 1] = 0;
    uint32_t blk = cfg->block_bytes ? cfg->block_bytes : 1; /* 0: what the backend needs */
    d->block_bytes = d->be->block_bytes > blk ? d->be->block_bytes : blk;
    d->size_bytes = d->be->size_bytes / d->block_bytes * d->block_bytes;
    if (d->be->event_fd >= 0) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &d->src};
        if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, d->be->event_fd, &ev) < 0) {
            rc = -errno;
            jbof_sched_destroy(d->s);
            d->be->ops->destroy(d->be);
            free(d);
            return rc;
        }
    }
    e->drives[e->ndrives++] = d;
    root->drive_home[d->id] = (uint8_t)home;
    root->ndrive_ids++;
    if (id_out)
        *id_out = d->id;
    return 0;
}

