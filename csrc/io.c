/*
 * io.c -- the life of one IO inside the reactor: a request slot and a data
 * buffer, a place in its tenant's SQ (or a wait list when there is none),
 * dispatch to the backend by the drive pump, completion, the reply.
 *
 * 1. Memory.  Request slots are preallocated (max_requests) on a free list.
 *    Data buffers come in power-of-two classes from 4 KiB to 32 MiB and are
 *    cached per class; a new one is allocated only while the budget
 *    (buffer_bytes) allows, after evicting cached buffers of other classes,
 *    largest first.  A connection that finds no slot or buffer waits on the
 *    pool wait list (W_POOL) and is resumed when a request is freed.
 *
 * 2. Credits.  req_submit offers a request to its tenant's SQ; when the SQ
 *    is full (-EAGAIN) the request is parked in its connection and the
 *    connection waits on the export's list (W_CREDIT): it is not read, so
 *    TCP flow control stops the client.  A connection with max_conn_requests
 *    outstanding waits on itself (W_SELF).  Dispatch marks the export
 *    (credit_freed) and wake_credit_waiters resumes its connections.  A
 *    connection whose tenant has used up its own slots or buffer bytes
 *    waits on the tenant (W_TENANT, budget.c) and is resumed when a request
 *    of that tenant is freed (budget_freed).
 *
 * 3. The drive pump, once per drive per round: reap the backend's
 *    completions -> jbof_sched_complete_batch (a reap's worth per call; the
 *    call that drains the backend also dispatches up to BATCH IOs) ->
 *    reply_queue; jbof_sched_dispatch while a full BATCH went -> backend
 *    submit; one kick (io_uring_submit) per drive.
 *
 * 3b. A zeroing that writes (cost.c section 6): req_submit marks a TRIM or
 *    WRITE_ZEROES the drive may carry out by writing (JBOF_IO_ZERO_WRITES,
 *    priced as a write) and, when longer than ZERO_PIECE_BYTES, offers only
 *    its first 1 MiB; each completed piece offers the next (zero_next),
 *    FUA on the last only, and the reply waits for the last piece or the
 *    first error.  A piece that finds its tenant's SQ full waits on the
 *    drive's zwait list, retried at every pump (zero_retry); it stays in
 *    the tenant's sched_ios, so a removal waits for it and answers it
 *    ESHUTDOWN.
 *
 * 4. Worked example: a 4 KiB READ takes slot 7 and a 4 KiB buffer (class
 *    0), enters its tenant's SQ with tag 7; dispatch returns tag 7 with
 *    dispatch_ns set, the memory backend copies 4 KiB at submit and parks
 *    it done; the reap hands it back, the scheduler records its latency,
 *    the reply header (16 bytes) and the buffer go out with one sendmsg
 *    (conn.c), then slot 7 and the buffer return to their free lists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reactor.h"

/* ------------------------------------------------------- buffer pool ---- */

static int buf_class(uint32_t len)
{
    int c = 0;
    while (c < BUF_CLASSES - 1 && ((uint64_t)1 << (BUF_MIN_SHIFT + c)) < len)
        c++;
    return ((uint64_t)1 << (BUF_MIN_SHIFT + c)) >= len ? c : -1;
}

uint8_t *buf_get(bufpool *p, uint32_t len, int32_t *cls_out)
{
    int c = buf_class(len);
    if (c < 0)
        return NULL;
    uint64_t sz = (uint64_t)1 << (BUF_MIN_SHIFT + c);
    if (p->free[c]) {
        void *b = p->free[c];
        p->free[c] = *(void **)b;
        *cls_out = c;
        return b;
    }
    /* evict cached buffers of other classes, largest first, to make room */
    for (int k = BUF_CLASSES - 1; k >= 0 && p->bytes + sz > p->budget; k--) {
        while (p->free[k] && p->bytes + sz > p->budget) {
            void *b = p->free[k];
            p->free[k] = *(void **)b;
            free(b);
            p->bytes -= (uint64_t)1 << (BUF_MIN_SHIFT + k);
        }
    }
    if (p->bytes + sz > p->budget)
        return NULL;
    void *b = NULL;
    if (posix_memalign(&b, 4096, sz) != 0)
        return NULL;
    p->bytes += sz;
    *cls_out = c;
    return b;
}

void buf_put(bufpool *p, uint8_t *b, int32_t c)
{
    *(void **)b = p->free[c];
    p->free[c] = b;
}

void buf_pool_free(bufpool *p)
{
    for (int k = 0; k < BUF_CLASSES; k++)
        while (p->free[k]) {
            void *b = p->free[k];
            p->free[k] = *(void **)b;
            free(b);
        }
    p->bytes = 0;
}

/* --------------------------------------------------------- wait lists ---- */

static void wl_push(wlist *l, conn *c)
{
    c->wnext = NULL;
    c->wprev = l->tail;
    if (l->tail)
        l->tail->wnext = c;
    else
        l->head = c;
    l->tail = c;
}

static void wl_del(wlist *l, conn *c)
{
    if (c->wprev)
        c->wprev->wnext = c->wnext;
    else
        l->head = c->wnext;
    if (c->wnext)
        c->wnext->wprev = c->wprev;
    else
        l->tail = c->wprev;
    c->wprev = c->wnext = NULL;
}

void ready_push(jbof_engine *e, conn *c)
{
    if (c->in_ready || c->state >= C_DEAD)
        return;
    c->in_ready = 1;
    c->ready_next = NULL;
    if (e->ready_tail)
        e->ready_tail->ready_next = c;
    else
        e->ready = c;
    e->ready_tail = c;
}

void dirty_push(jbof_engine *e, conn *c)
{
    if (c->in_dirty || c->state >= C_DEAD)
        return;
    c->in_dirty = 1;
    c->dirty_next = e->dirty;
    e->dirty = c;
}

void wait_stop(jbof_engine *e, conn *c)
{
    switch (c->wait) {
    case W_CREDIT:
        wl_del(&c->x->waiters, c);
        c->x->nstalled--;
        break;
    case W_POOL:
        wl_del(&e->pool_waiters, c);
        break;
    case W_TENANT:
        wl_del(&c->x->budget_waiters, c);
        break;
    default:
        break;
    }
    c->wait = W_NONE;
}

void wait_on(jbof_engine *e, conn *c, int kind)
{
    c->wait = (uint8_t)kind;
    if (kind == W_CREDIT) {
        wl_push(&c->x->waiters, c);
        c->x->nstalled++;
        c->x->st.credit_stalls++;
    } else if (kind == W_POOL) {
        wl_push(&e->pool_waiters, c);
        e->st.pool_stalls++;
    } else if (kind == W_TENANT) {
        wl_push(&c->x->budget_waiters, c);
        c->x->st.budget_stalls++;
    }
}

/* Resume every connection of a wait list (they re-check what they need). */
static void wake_all(jbof_engine *e, wlist *l, export *x)
{
    while (l->head) {
        conn *c = l->head;
        wl_del(l, c);
        if (x)
            x->nstalled--;
        c->wait = W_NONE;
        ready_push(e, c);
    }
}

/* ---------------------------------------------------------- requests ---- */

req *req_get(jbof_engine *e)
{
    req *r = e->free_reqs;
    if (!r)
        return NULL;
    e->free_reqs = r->next;
    r->next = NULL;
    r->br.buf = NULL;
    r->buf_class = -1;
    r->sent = r->got = 0;
    r->status = 0;
    r->dlen = 0;
    r->zero_left = 0;
    e->active_reqs++;
    return r;
}

void conn_maybe_free(jbof_engine *e, conn *c);

void req_put(jbof_engine *e, req *r)
{
    conn *c = r->c;
    if (r->br.buf)
        buf_put(&e->pool, r->br.buf, r->buf_class);
    budget_release(r);
    r->br.buf = NULL;
    r->state = R_FREE;
    r->c = NULL;
    r->x = NULL;
    r->next = e->free_reqs;
    e->free_reqs = r;
    e->active_reqs--;
    e->pool_freed = 1;
    if (c) {
        c->outstanding--;
        if (c->wait == W_SELF && c->outstanding < e->cfg.max_conn_requests) {
            c->wait = W_NONE;
            ready_push(e, c);
        }
        if (c->state == C_DEAD)
            conn_maybe_free(e, c);
    }
}

/* -------------------------------------------------- request pipeline ---- */

/* The reply's header and payload length (conn.c sends hdr[0, hdr_len) then
 * br.buf[0, dlen)).  With structured replies negotiated READ and
 * BLOCK_STATUS answer in chunks (a READ must: the spec forbids a simple
 * reply to it), everything else keeps the 16-byte simple reply, which the
 * spec allows.  A BLOCK_STATUS arrives here with dlen = its extent count
 * (already encoded in br.buf). */
static void reply_header(req *r, int structured)
{
    int n;
    uint32_t len = r->br.io.length_bytes;
    int chunked = structured && (r->type == JBOF_NBD_CMD_READ || r->type == JBOF_NBD_CMD_BLOCK_STATUS);
    if (chunked && r->status) {
        n = jbof_nbd_error_chunk(r->hdr, sizeof(r->hdr), r->handle, r->status);
        r->dlen = 0;
    } else if (chunked && r->type == JBOF_NBD_CMD_READ) {
        /* offsets on the wire are the export's, not the drive's */
        n = jbof_nbd_read_chunk(r->hdr, sizeof(r->hdr), r->handle, r->br.io.offset_bytes - r->x->base, len);
        r->dlen = len;
    } else if (chunked) {
        n = jbof_nbd_block_status_header(r->hdr, sizeof(r->hdr), r->handle,
                                         JBOF_NBD_META_BASE_ALLOCATION_ID, r->dlen);
        r->dlen *= 8;
    } else {
        n = jbof_nbd_simple_reply(r->hdr, sizeof(r->hdr), r->handle, r->status);
        r->dlen = (r->type == JBOF_NBD_CMD_READ && r->status == 0) ? len : 0;
    }
    r->hdr_len = (uint8_t)(n > 0 ? n : 0);
}

void reply_queue(jbof_engine *e, req *r, int status)
{
    conn *c = r->c;
    r->status = status;
    if (!c || c->state == C_DEAD) {
        req_put(e, r);
        return;
    }
    reply_header(r, (c->hs.neg & JBOF_NBD_NEG_STRUCTURED) != 0);
    if (status) {
        r->x->st.error_replies++;
    } else if (r->type == JBOF_NBD_CMD_READ) {
        r->x->st.tx_payload_bytes += r->br.io.length_bytes;
    }
    r->state = R_REPLY;
    r->sent = 0;
    r->next = NULL;
    if (c->out_tail)
        c->out_tail->next = r;
    else
        c->out_head = r;
    c->out_tail = r;
    dirty_push(e, c);
}

void req_fail_removed(jbof_engine *e, req *r)
{
    r->x->st.flushed_requests++;
    reply_queue(e, r, -ESHUTDOWN);
}

/* Offer r to its tenant's SQ.  1 = taken (or answered), 0 = parked. */
int req_submit(jbof_engine *e, req *r)
{
    export *x = r->x;
    drive *d = x->d;
    if (x->removing) { /* export.c 4: nothing new enters a removed tenant's SQ */
        req_fail_removed(e, r);
        return 1;
    }
    /* cost.c section 6: a zeroing the backend may do by writing is priced
     * as a write of its range (two compares for every other opcode), and
     * goes to the scheduler in pieces of ZERO_PIECE_BYTES, one at a time */
    jbof_io *io = &r->br.io;
    io->flags |= zero_writes_flag(d->zero_cost, d->be->zero_writes, io);
    if ((io->flags & JBOF_IO_ZERO_WRITES) && io->length_bytes > ZERO_PIECE_BYTES) {
        r->zero_left = io->length_bytes - ZERO_PIECE_BYTES;
        r->zero_fua = io->flags & JBOF_IO_FUA;
        io->flags &= (uint8_t)~JBOF_IO_FUA;
        io->length_bytes = ZERO_PIECE_BYTES;
    }
    int rc = jbof_sched_submit(d->s, &r->br.io, e->now_ns); /* the SQ points at it until dispatch */
    if (rc == -EAGAIN) {
        r->state = R_PARKED;
        r->c->parked = r;
        wait_on(e, r->c, W_CREDIT);
        return 0;
    }
    if (rc < 0) {
        reply_queue(e, r, rc == -ENOENT ? -ESHUTDOWN : -EIO);
        return 1;
    }
    r->state = R_QUEUED;
    if (x->sched_ios++ == 0)
        x->busy_since_ns = e->now_ns;
    return 1;
}

/* ------------------------------------------------------------ drives ---- */

/* What a client is told of a backend error: ENOSPC (EDQUOT and EFBIG are
 * out of space too) or EIO, whatever the device said -- EINVAL from a
 * backend is our bug, not the client's.  Not an errno -> wire mapping:
 * reply_queue's jbof_nbd_simple_reply does that (jbof_nbd_errno_to_wire). */
static int backend_status(const jbof_breq *br)
{
    int32_t st = br->status;
    if (st >= 0)
        return 0;
    /* a FAST_ZERO that would have been slow: the client writes zeroes itself */
    if (st == -ENOTSUP && (br->io.flags & JBOF_BREQ_FAST_ZERO))
        return -ENOTSUP;
    if (st == -ENOSPC || st == -EDQUOT || st == -EFBIG)
        return -ENOSPC;
    return -EIO;
}

/* A backend that knows when it finished (memory, emulated) says so in
 * due_ns: the controller must see the drive's latency, not how late this
 * thread woke up to notice. */
static inline uint64_t breq_done_ns(const jbof_engine *e, const jbof_breq *br)
{
    return (br->due_ns && br->due_ns < e->now_ns) ? br->due_ns : e->now_ns;
}

/* Offer a split zeroing's next piece to its tenant's SQ (cost.c section
 * 6).  1 = taken, 0 = the SQ is full (retry later), < 0 = fail the
 * request with that. */
static int zero_offer(jbof_engine *e, drive *d, req *r)
{
    if (r->x->removing)
        return -ESHUTDOWN;
    int rc = jbof_sched_submit(d->s, &r->br.io, e->now_ns);
    if (rc == -EAGAIN)
        return 0;
    if (rc < 0)
        return rc == -ENOENT ? -ESHUTDOWN : -EIO;
    r->state = R_QUEUED;
    return 1;
}

/* The pieces waiting for SQ room, in order; a full SQ holds back only its
 * own tenant's.  Called at every drive pump. */
static void zero_retry(jbof_engine *e, drive *d)
{
    req **pp = &d->zwait_head, *last = NULL;
    while (*pp) {
        req *r = *pp;
        int rc = zero_offer(e, d, r);
        if (rc == 0) {
            last = r;
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        r->next = NULL;
        if (rc < 0) {
            if (--r->x->sched_ios == 0 && r->x->removing)
                e->retry_deferred = 1;
            if (rc == -ESHUTDOWN)
                req_fail_removed(e, r);
            else
                reply_queue(e, r, rc);
        }
    }
    d->zwait_tail = last;
}

/* A piece of a split zeroing is done: the next one, or 0 once none is
 * left (the request is answered), or < 0 to answer it with that. */
static int zero_next(jbof_engine *e, drive *d, req *r)
{
    if (!r->zero_left)
        return 0;
    jbof_io *io = &r->br.io;
    io->offset_bytes += io->length_bytes;
    uint32_t n = r->zero_left < ZERO_PIECE_BYTES ? r->zero_left : ZERO_PIECE_BYTES;
    r->zero_left -= n;
    io->length_bytes = n;
    if (!r->zero_left && r->zero_fua)
        io->flags |= JBOF_IO_FUA;
    int rc = d->zwait_head ? 0 : zero_offer(e, d, r);
    if (rc < 0)
        return rc;
    d->zero_fresh = 1; /* the pump that reaped it may have dispatched already */
    if (rc == 0) { /* the SQ is full: wait, still counted in sched_ios */
        r->state = R_QUEUED; /* dropped at stop like a queued IO */
        r->next = NULL;
        if (d->zwait_tail)
            d->zwait_tail->next = r;
        else
            d->zwait_head = r;
        d->zwait_tail = r;
    }
    return 1;
}

/* What a completion does once the scheduler has it: the backend's
 * counters, the stall tracker, the reply (or a split zeroing's next
 * piece, which keeps the tenant's sched_ios). */
static void finish_breq(jbof_engine *e, drive *d, jbof_breq *br)
{
    req *r = br->owner;
    d->be->inflight--;
    d->be->completed++;
    if (br->status < 0)
        d->be->errors++;
    /* the stall tracker (reactor.h, struct export): the server's view of
     * a tenant's zero-throughput time while it has IO outstanding */
    export *x = r->x;
    uint64_t stall = export_stall_ns(x, e->now_ns);
    if (stall > x->stall_max_ns)
        x->stall_max_ns = stall;
    x->last_done_ns = e->now_ns;
    int st = backend_status(br);
    if (st == 0 && r->zero_left) {
        st = zero_next(e, d, r);
        if (st > 0)
            return;
    }
    if (--x->sched_ios == 0 && x->removing)
        e->retry_deferred = 1; /* export.c 4: its removal may finish now */
    reply_queue(e, r, st);
}

static void complete_breq(jbof_engine *e, drive *d, jbof_breq *br)
{
    jbof_sched_complete(d->s, &br->io, breq_done_ns(e, br), br->status < 0 ? br->status : 0);
    finish_breq(e, d, br);
}

/* Feed every completion the backend holds back to the scheduler, a reap's
 * worth per jbof_sched_complete_batch call.  With ios, the call that takes
 * a short reap (the backend is drained) also dispatches up to max IOs
 * into ios, and *k says how many (-1: no call dispatched). */
static int drive_reap(jbof_engine *e, drive *d, jbof_io **ios, int max, int *k)
{
    jbof_breq *done[BATCH];
    jbof_done dn[BATCH];
    int n, moved = 0;
    *k = -1;
    while ((n = d->be->ops->reap(d->be, done, BATCH, e->now_ns)) > 0) {
        for (int i = 0; i < n; i++) {
            jbof_breq *br = done[i];
            dn[i] = (jbof_done){.io = &br->io, .now_ns = breq_done_ns(e, br), .status = br->status < 0 ? br->status : 0};
        }
        int last = n < BATCH && ios;
        int m = jbof_sched_complete_batch(d->s, dn, n, e->now_ns, last ? ios : NULL, last ? max : 0);
        if (last)
            *k = m;
        for (int i = 0; i < n; i++)
            finish_breq(e, d, done[i]);
        moved = 1;
        if (n < BATCH)
            break;
    }
    return moved;
}

/* Reap, dispatch, submit, kick, reap again.  Returns 1 if anything moved. */
int drive_pump(jbof_engine *e, drive *d)
{
    int hold = e->exiting; /* past the drain deadline: dispatch nothing new */
    jbof_io *ios[BATCH];
    int n;
    d->zero_fresh = 0;
    if (d->zwait_head)
        zero_retry(e, d);
    /* the reap's last scheduler call also makes the first dispatch */
    int moved = drive_reap(e, d, hold ? NULL : ios, BATCH, &n);
    int dispatched = 0;
    /* no count of our own guards this: dispatch returns 0 at once when the
     * scheduler has nothing backlogged */
    while (!hold) {
        if (n < 0)
            n = jbof_sched_dispatch(d->s, e->now_ns, ios, BATCH);
        if (n <= 0)
            break;
        for (int i = 0; i < n; i++) {
            req *r = &e->slots[ios[i]->tag]; /* ios[i] == &r->br.io, with the scheduler's fields */
            r->state = R_INFLIGHT;
            r->x->credit_freed = 1;
            jbof_breq *br = &r->br;
            br->owner = r;
            br->status = 0;
            br->due_ns = 0;
            br->next = NULL;
            d->be->inflight++;
            d->be->submitted++;
            /* scrub.c: dirty space it touches is zeroed first */
            int rc = scrub_before_io(d, &br->io);
            if (rc == 0)
                rc = d->be->ops->submit(d->be, br, e->now_ns);
            if (rc < 0) {
                br->status = rc;
                complete_breq(e, d, br);
            }
        }
        dispatched += n;
        if (n < BATCH)
            break;
        n = -1;
    }
    if (dispatched || d->be->ops->next_due_ns(d->be) == 0)
        d->be->ops->kick(d->be);
    /* A backend that completes inside submit (memory) has its completions
     * ready now: reap them in this pass so their replies go out with this
     * iteration's flush instead of waiting for the next pump round. */
    if (dispatched)
        drive_reap(e, d, NULL, 0, &n);
    if (d->zwait_head && (moved || dispatched))
        d->zero_fresh = 1; /* SQ room may have opened */
    return moved || dispatched;
}

void wake_credit_waiters(jbof_engine *e)
{
    for (uint32_t i = 0; i < e->nx; i++) {
        export *x = e->xs[i];
        if (x->credit_freed) {
            x->credit_freed = 0;
            wake_all(e, &x->waiters, x);
        }
        if (x->budget_freed) { /* budget.c: this tenant released slots/buffers */
            x->budget_freed = 0;
            wake_all(e, &x->budget_waiters, NULL);
        }
    }
    if (e->pool_freed) {
        e->pool_freed = 0;
        wake_all(e, &e->pool_waiters, NULL);
    }
}

