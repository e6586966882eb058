/*
 * sim.c -- deterministic discrete-event simulator: workload generators
 * (wl.c) feed the scheduler (sched.c), which feeds the emulated SSD (ssd.c).
 *
 * 1. Why.  Every QoS claim is first checked in virtual time, where a run is
 *    exactly repeatable for a seed and takes a fraction of the time it
 *    simulates.  The scheduler code is the very code the live reactor runs;
 *    only the source of time and completions differs.
 *
 * 2. Events, in a binary min-heap ordered by (time, insertion sequence) --
 *    the sequence makes ties deterministic:
 *
 *      PHASE(t)      tenant t starts, changes phase, or stops;
 *      ARRIVAL(t,g)  open loop: next arrival of tenant t; closed loop with
 *                    thinktime: the think pause of one IO is over.  g is
 *                    the tenant's phase generation: arrivals of an older
 *                    phase are stale and ignored;
 *      COMPLETE(i)   the SSD model finished pool IO i;
 *      WAKE          the scheduler asked to be called again (pacing, limits);
 *      ESC           sched.c section 102: an owed escape's own wake
 *                    (jbof_sched_next_escape_ns); one whose escape a walk
 *                    already took calls nothing.
 *
 *    After all events of one instant are handled, the simulator "pumps":
 *    it calls jbof_sched_dispatch until it returns nothing, submits each IO
 *    to the SSD model (which returns the completion time, pushed as
 *    COMPLETE), then asks jbof_sched_next_event_ns and schedules one WAKE
 *    if that is earlier than the pending one.  A knob changed between runs
 *    with nothing in flight pumps at once (jbof_sim_pump, which the Python
 *    Simulator's set_tenant / set_policy call; scheduler-log section 376).
 *
 * 3. Latency is measured the way fio measures completion latency with our
 *    server in the path: from submission into the tenant's SQ to completion
 *    (queueing in the scheduler + time in the drive).  It is recorded by the
 *    scheduler itself (jbof_sched_tenant_hist), so sim and live agree.
 *
 * 4. Worked example of cost: one 4 KiB read at iodepth 32 on the dct983 model
 *    costs one COMPLETE pop and push plus one dispatch call (shared with the
 *    other IOs of the same instant): about 0.3-0.5 us of wall time, so 10 s
 *    of a drive doing 400K IOPS (4M IOs) simulates in about 2 s.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jbof_internal.h"

enum { EV_PHASE = 0, EV_ARRIVAL = 1, EV_COMPLETE = 2, EV_WAKE = 3, EV_ESC = 4 };
enum { PUMP_BATCH = 64, MAX_SIM_TENANTS = 1024 };

static const uint64_t DEFAULT_NS_BYTES = 8ull << 30;

typedef struct ev {
    uint64_t t;
    uint64_t seq;
    uint32_t type;
    uint32_t a;
    uint64_t b;
} ev;

typedef struct sim_tenant {
    uint32_t present;
    uint32_t sid;             /* scheduler tenant id */
    wl_state ws;
    uint64_t base;            /* namespace base on the device */
    uint32_t outstanding;     /* issued, not completed (incl. waiting in the SQ) */
    uint32_t pending;         /* arrivals waiting for iodepth or SQ room */
    uint32_t phase_gen;
    uint32_t started;
    const jbof_wl_phase *cur; /* current phase (NULL: issues nothing) */
    uint64_t seed;
    jbof_tenant_result res;
    uint64_t *timeline;
    uint64_t in_batch;        /* == the sim's batch_gen: has a completion in the open batch */
} sim_tenant;

struct jbof_sim {
    jbof_sim_cfg cfg;
    jbof_sched *sched;
    jbof_ssd *ssd;
    uint64_t now;
    uint64_t seq;
    uint64_t events;
    ev *heap;
    uint32_t nheap, capheap;
    jbof_io **pool;           /* chunks of POOL_CHUNK descriptors: they never move (the SQ points at them) */
    uint32_t *freelist;
    uint32_t npool, nfree;
    sim_tenant *t;            /* indexed by scheduler id */
    uint32_t maxt;
    uint64_t wake_at;
    uint64_t esc_at;          /* the pending EV_ESC (sched.c section 102), UINT64_MAX: none */
    int pump_due;             /* an event of this instant wants the pump (a spent EV_ESC does not) */
    uint64_t next_base;
    uint64_t capacity;
    int err;                  /* first internal error (sticky) */
    /* completions of this instant not yet given to the scheduler, each
     * with its tenant's next IO (section 2): one jbof_sched_complete_batch
     * call takes them, at the latest with the instant's first dispatch */
    jbof_done dn[PUMP_BATCH];
    uint32_t dn_idx[PUMP_BATCH], dn_next[PUMP_BATCH]; /* their pool indices */
    int ndn;
    uint64_t batch_gen;       /* bumped per batch (sim_tenant.in_batch) */
};

/* -------------------------------------------------------------- heap --- */

static inline int ev_less(const ev *x, const ev *y) { return x->t < y->t || (x->t == y->t && x->seq < y->seq); }

static int push(jbof_sim *s, uint64_t t, uint32_t type, uint32_t a, uint64_t b)
{
    if (s->nheap == s->capheap) {
        uint32_t nc = s->capheap ? s->capheap * 2 : 1024;
        ev *h = realloc(s->heap, (size_t)nc * sizeof(*h));
        if (!h)
            return -ENOMEM;
        s->heap = h;
        s->capheap = nc;
    }
    ev e = {t, s->seq++, type, a, b};
    uint32_t i = s->nheap++;
    while (i) {
        uint32_t p = (i - 1) / 2;
        if (!ev_less(&e, &s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
    return 0;
}

static ev pop(jbof_sim *s)
{
    ev top = s->heap[0];
    ev last = s->heap[--s->nheap];
    uint32_t i = 0, n = s->nheap;
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= n)
            break;
        uint32_t c = (l + 1 < n && ev_less(&s->heap[l + 1], &s->heap[l])) ? l + 1 : l;
        if (!ev_less(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n)
        s->heap[i] = last;
    return top;
}

/* -------------------------------------------------------------- pool --- */

enum { POOL_SHIFT = 8, POOL_CHUNK = 1 << POOL_SHIFT };

/* Descriptor i of the pool.  The pool grows by whole chunks and never
 * reallocates one: the scheduler's SQ holds pointers to queued
 * descriptors (jbof_io, ABI 3). */
static inline jbof_io *pool_io(const jbof_sim *s, uint32_t i)
{
    return &s->pool[i >> POOL_SHIFT][i & (POOL_CHUNK - 1)];
}

static int pool_get(jbof_sim *s, uint32_t *idx)
{
    if (s->nfree == 0) {
        uint32_t nc = s->npool ? s->npool * 2 : POOL_CHUNK;
        jbof_io **p = realloc(s->pool, (size_t)(nc >> POOL_SHIFT) * sizeof(*p));
        if (!p)
            return -ENOMEM;
        s->pool = p;
        for (uint32_t c = s->npool >> POOL_SHIFT; c < nc >> POOL_SHIFT; c++)
            if (!(p[c] = malloc(POOL_CHUNK * sizeof(jbof_io)))) {
                while (c-- > s->npool >> POOL_SHIFT)
                    free(p[c]);
                return -ENOMEM;
            }
        uint32_t *f = realloc(s->freelist, (size_t)nc * sizeof(*f));
        if (!f)
            return -ENOMEM;
        s->freelist = f;
        for (uint32_t i = nc; i > s->npool; i--)
            s->freelist[s->nfree++] = i - 1;
        s->npool = nc;
    }
    *idx = s->freelist[--s->nfree];
    return 0;
}

static inline void pool_put(jbof_sim *s, uint32_t idx) { s->freelist[s->nfree++] = idx; }

/* ------------------------------------------------------------ tenants --- */

/* Generate and submit one IO of tenant st (its size to *len if asked).
 * Returns 0, or 1 if it could not be queued (SQ full). */
/* The tenant's next IO, made in a pool descriptor (tag = its index);
 * NULL, with the sticky error set, when the pool is exhausted. */
static jbof_io *make_io(jbof_sim *s, sim_tenant *st, uint32_t *idx)
{
    int rc = pool_get(s, idx);
    if (rc) {
        s->err = rc;
        return NULL;
    }
    jbof_io *io = pool_io(s, *idx);
    memset(io, 0, sizeof(*io));
    wl_make_io(&st->ws, st->cur, io);
    io->tenant = st->sid;
    io->tag = *idx;
    return io;
}

/* The scheduler answered rc to the submit of pool descriptor idx: count
 * it, or give the descriptor back (a full SQ, -EAGAIN, is not an error).
 * Returns 1 if it was not submitted. */
static int submitted(jbof_sim *s, sim_tenant *st, uint32_t idx, int rc)
{
    if (rc) {
        pool_put(s, idx);
        if (rc != -EAGAIN)
            s->err = rc;
        return 1;
    }
    st->outstanding++;
    st->res.issued++;
    return 0;
}

static int issue(jbof_sim *s, sim_tenant *st, uint32_t *len)
{
    uint32_t idx;
    jbof_io *io = make_io(s, st, &idx);
    if (!io)
        return 1;
    if (submitted(s, st, idx, jbof_sched_submit(s->sched, io, s->now)))
        return 1;
    if (len)
        *len = io->length_bytes;
    return 0;
}

static inline int closed_loop(const jbof_wl_phase *p) { return !p->rate_bps && !p->rate_iops; }

/* Fill the tenant up to its iodepth (closed loop, no thinktime). */
static void fill(jbof_sim *s, sim_tenant *st)
{
    while (st->cur && st->outstanding < st->cur->iodepth)
        if (issue(s, st, NULL))
            break;
}

static void phase_change(jbof_sim *s, sim_tenant *st)
{
    st->cur = wl_phase_at(&st->ws, s->now);
    st->phase_gen++;
    st->pending = 0;
    if (st->cur) {
        if (closed_loop(st->cur))
            fill(s, st);
        else
            push(s, s->now, EV_ARRIVAL, st->sid, st->phase_gen);
    }
    uint64_t nx = wl_next_change_ns(&st->ws, s->now);
    if (nx != UINT64_MAX)
        push(s, nx, EV_PHASE, st->sid, st->phase_gen);
}

static uint32_t mean_bs(const jbof_wl_phase *p)
{
    uint64_t m = 0;
    for (uint32_t k = 0; k < p->nbs; k++)
        m += (uint64_t)p->bs[k] * p->bs_pct[k];
    return (uint32_t)(m / 100);
}

static void on_arrival(jbof_sim *s, sim_tenant *st, uint64_t gen)
{
    if (gen != st->phase_gen || !st->cur)
        return;
    if (closed_loop(st->cur)) { /* thinktime over */
        if (st->outstanding < st->cur->iodepth)
            issue(s, st, NULL);
        return;
    }
    /* open loop: one arrival now, the next one a gap after it */
    uint32_t len = 0;
    if (st->outstanding >= st->cur->iodepth || issue(s, st, &len)) {
        st->pending++;
        len = mean_bs(st->cur);
    }
    st->res.demand_bytes += len;
    push(s, s->now + wl_gap_ns(st->cur, len), EV_ARRIVAL, st->sid, gen);
}

/* A completion the scheduler has taken: the tenant's results. */
static void completed(jbof_sim *s, sim_tenant *st, const jbof_io *io)
{
    st->outstanding--;
    st->res.completed++;
    if (io->opcode == JBOF_OP_WRITE) {
        st->res.write_ios++;
        st->res.write_bytes += io->length_bytes;
    } else if (io->opcode == JBOF_OP_READ) {
        st->res.read_ios++;
        st->res.read_bytes += io->length_bytes;
    }
    uint64_t bin = s->now / s->cfg.bin_ns;
    if (bin < s->cfg.max_bins)
        st->timeline[bin] += io->length_bytes;
}

/* Give the open batch to the scheduler in one call, which also dispatches
 * up to max IOs into out (max 0: none); returns that call's result.  The
 * scheduler sees what on_complete's single calls would have made it see,
 * in the same order: each completion, then its tenant's next IO. */
static int flush_batch(jbof_sim *s, jbof_io **out, int max)
{
    int n = s->ndn;
    s->ndn = 0;
    s->batch_gen++;
    int k = jbof_sched_complete_batch(s->sched, s->dn, n, s->now, out, max);
    for (int i = 0; i < n; i++) {
        const jbof_done *d = &s->dn[i];
        if (d->rc) {
            s->err = d->rc;
            return k;
        }
        sim_tenant *st = &s->t[d->io->tenant];
        completed(s, st, d->io);
        pool_put(s, s->dn_idx[i]);
        submitted(s, st, s->dn_next[i], d->next_rc);
    }
    return k;
}

static void on_complete(jbof_sim *s, uint32_t idx)
{
    jbof_io *pio = pool_io(s, idx);
    sim_tenant *st = &s->t[pio->tenant];
    /* a closed-loop tenant without think time at its iodepth issues exactly
     * one IO per completion: batched, unless its previous completion is in
     * the open batch (its outstanding count is not yet current) */
    if (st->cur && closed_loop(st->cur) && !st->cur->thinktime_ns && st->outstanding == st->cur->iodepth &&
        st->in_batch != s->batch_gen + 1) {
        if (s->ndn == PUMP_BATCH)
            flush_batch(s, NULL, 0);
        uint32_t nidx;
        jbof_io *nx = make_io(s, st, &nidx); /* issue(), the submit deferred to the batch */
        if (!nx)
            return;
        s->dn[s->ndn] = (jbof_done){.io = pio, .next = nx, .now_ns = s->now};
        s->dn_idx[s->ndn] = idx;
        s->dn_next[s->ndn] = nidx;
        s->ndn++;
        st->in_batch = s->batch_gen + 1;
        return;
    }
    if (s->ndn)
        flush_batch(s, NULL, 0);
    jbof_io io = *pio;
    pool_put(s, idx);
    int rc = jbof_sched_complete(s->sched, &io, s->now, 0);
    if (rc) {
        s->err = rc;
        return;
    }
    completed(s, st, &io);
    if (!st->cur)
        return;
    if (closed_loop(st->cur)) {
        if (st->cur->thinktime_ns)
            push(s, s->now + st->cur->thinktime_ns, EV_ARRIVAL, st->sid, st->phase_gen);
        else
            fill(s, st);
    } else {
        while (st->pending && st->outstanding < st->cur->iodepth) {
            if (issue(s, st, NULL))
                break;
            st->pending--;
        }
    }
}

static void pump(jbof_sim *s)
{
    jbof_io *out[PUMP_BATCH];
    int n = s->ndn ? flush_batch(s, out, PUMP_BATCH) : jbof_sched_dispatch(s->sched, s->now, out, PUMP_BATCH);
    for (; n > 0; n = jbof_sched_dispatch(s->sched, s->now, out, PUMP_BATCH)) {
        for (int i = 0; i < n; i++) {
            const jbof_io *io = out[i]; /* the pool's descriptor itself */
            uint32_t idx = (uint32_t)io->tag;
            sim_tenant *st = &s->t[io->tenant];
            uint64_t done;
            int rc = jbof_ssd_submit(s->ssd, io->opcode, st->base + io->offset_bytes, io->length_bytes, s->now, &done);
            if (rc) {
                s->err = rc;
                done = s->now;
            }
            if (push(s, done, EV_COMPLETE, 0, idx))
                s->err = -ENOMEM;
        }
    }
    if (n < 0)
        s->err = n;
    uint64_t nx = jbof_sched_next_event_ns(s->sched, s->now);
    if (nx != UINT64_MAX && nx < s->wake_at) {
        s->wake_at = nx;
        push(s, nx, EV_WAKE, 0, 0);
    }
    nx = jbof_sched_next_escape_ns(s->sched, s->now); /* sched.c section 102 */
    if (nx != UINT64_MAX && nx < s->esc_at) {
        s->esc_at = nx;
        push(s, nx, EV_ESC, 0, 0);
    }
}

/* --------------------------------------------------------- public API --- */

int jbof_sim_create(const jbof_sim_cfg *cfg, jbof_sim **out)
{
    if (!cfg || !out)
        return -EINVAL;
    *out = NULL;
    if (cfg->bin_ns < 1000000ull || cfg->max_bins < 1 || cfg->max_bins > (1u << 20))
        return -EINVAL;
    jbof_sim *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    s->cfg = *cfg;
    int rc = jbof_sched_create(&cfg->sched, &s->sched);
    if (!rc)
        rc = jbof_ssd_create(&cfg->ssd, cfg->seed, &s->ssd);
    if (!rc) {
        s->maxt = cfg->sched.max_tenants;
        s->t = calloc(s->maxt, sizeof(*s->t));
        if (!s->t)
            rc = -ENOMEM;
    }
    if (rc) {
        jbof_sim_destroy(s);
        return rc;
    }
    s->wake_at = UINT64_MAX;
    s->esc_at = UINT64_MAX;
    s->capacity = cfg->ssd.capacity_bytes;
    *out = s;
    return 0;
}

void jbof_sim_destroy(jbof_sim *s)
{
    if (!s)
        return;
    if (s->t)
        for (uint32_t i = 0; i < s->maxt; i++)
            free(s->t[i].timeline);
    free(s->t);
    free(s->heap);
    for (uint32_t c = 0; c < s->npool >> POOL_SHIFT; c++)
        free(s->pool[c]);
    free(s->pool);
    free(s->freelist);
    jbof_sched_destroy(s->sched);
    jbof_ssd_destroy(s->ssd);
    free(s);
}

int jbof_sim_add_tenant(jbof_sim *s, const jbof_tenant_cfg *tc, const jbof_wl *wl, uint32_t *id_out)
{
    if (!s || !tc || !id_out || !wl)
        return -EINVAL;
    jbof_wl w = *wl;
    if (w.size_bytes == 0)
        w.size_bytes = DEFAULT_NS_BYTES; /* 0 = the default namespace size */
    int rc = wl_check(&w);
    if (rc)
        return rc;
    uint64_t size = w.size_bytes;
    if (size > s->capacity)
        return -ENOSPC;
    if (s->next_base + size > s->capacity)
        s->next_base = 0; /* namespaces overlap on a full drive: data is not kept in the model */
    uint64_t *tl = calloc(s->cfg.max_bins, sizeof(*tl));
    if (!tl)
        return -ENOMEM;
    uint32_t id;
    rc = jbof_sched_tenant_add(s->sched, tc, s->now, &id);
    if (rc) {
        free(tl);
        return rc;
    }
    sim_tenant *st = &s->t[id];
    free(st->timeline);
    memset(st, 0, sizeof(*st));
    st->present = 1;
    st->sid = id;
    st->base = s->next_base;
    s->next_base += size;
    st->timeline = tl;
    st->seed = s->cfg.seed * 1000003ull + id + 1;
    wl_start(&st->ws, &w, s->now, st->seed);
    push(s, st->ws.start_ns, EV_PHASE, id, st->phase_gen);
    *id_out = id;
    return 0;
}

int jbof_sim_set_workload(jbof_sim *s, uint32_t id, const jbof_wl *wl)
{
    if (!s || !wl)
        return -EINVAL;
    if (id >= s->maxt || !s->t[id].present)
        return -ENOENT;
    sim_tenant *st = &s->t[id];
    jbof_wl w = *wl;
    if (w.size_bytes == 0)
        w.size_bytes = st->ws.wl.size_bytes;
    int rc = wl_check(&w);
    if (rc)
        return rc;
    if (w.size_bytes > st->ws.wl.size_bytes)
        return -EINVAL; /* the namespace was sized at add */
    st->seed = st->seed * 6364136223846793005ull + 1442695040888963407ull;
    wl_start(&st->ws, &w, s->now, st->seed);
    st->phase_gen++;
    st->cur = NULL;
    push(s, st->ws.start_ns, EV_PHASE, id, st->phase_gen);
    return 0;
}

int jbof_sim_run(jbof_sim *s, uint64_t until_ns)
{
    if (!s)
        return -EINVAL;
    if (until_ns < s->now)
        return -EINVAL;
    if (s->err)
        return s->err;
    while (s->nheap && s->heap[0].t <= until_ns) {
        ev e = pop(s);
        s->now = e.t;
        s->events++;
        switch (e.type) {
        case EV_COMPLETE:
            on_complete(s, (uint32_t)e.b);
            break;
        case EV_ARRIVAL:
            if (s->ndn) /* the open batch's completions came first */
                flush_batch(s, NULL, 0);
            if (s->t[e.a].present)
                on_arrival(s, &s->t[e.a], e.b);
            break;
        case EV_PHASE:
            if (s->ndn)
                flush_batch(s, NULL, 0);
            if (s->t[e.a].present && e.b == s->t[e.a].phase_gen)
                phase_change(s, &s->t[e.a]);
            break;
        case EV_ESC:
            /* sched.c section 102: the escape's own wake calls dispatch only
             * while that escape is still to be taken (a walk at an event
             * before it may have taken it) */
            if (e.t == s->esc_at)
                s->esc_at = UINT64_MAX;
            if (jbof_sched_next_escape_ns(s->sched, s->now - 1) != s->now) {
                s->events--; /* not an event of the run's */
                if (!s->nheap || s->heap[0].t > s->now) {
                    if (s->pump_due)
                        pump(s);
                    s->pump_due = 0;
                }
                continue;
            }
            break;
        default:
            if (e.t == s->wake_at)
                s->wake_at = UINT64_MAX;
        }
        if (s->err)
            return s->err;
        s->pump_due = 1;
        if (!s->nheap || s->heap[0].t > s->now) {
            pump(s);
            s->pump_due = 0;
        }
    }
    s->now = until_ns;
    return s->err;
}

/* Section 376: a knob changed behind the simulator's back (jbof_sched_set_policy,
 * jbof_sched_tenant_set, jbof_sched_configure on jbof_sim_sched) while nothing is
 * in flight -- pump now, as the live reactor does every iteration.  Without it
 * such a change waits for the next event, which may be the old WAKE asked for
 * under the old knobs: section 370f's churn made no event from 11.0 s to 13.16 s
 * after a switch to drr (mem seed 47, every tenant queued, nothing in flight).
 * With IO in flight the next completion pumps within the drive's latency, and
 * the simulator keeps its event-time dispatch (pumping there too moved
 * tests/test_anticipation.py's lending scenario: owners slowed in 4 windows). */
int jbof_sim_pump(jbof_sim *s)
{
    if (!s)
        return -EINVAL;
    if (s->err)
        return s->err;
    jbof_drive_stats d;
    int rc = jbof_sched_drive_stats(s->sched, &d);
    if (rc)
        return rc;
    if (d.inflight_ios)
        return 0;
    pump(s);
    s->pump_due = 0;
    return s->err;
}

uint64_t jbof_sim_now(const jbof_sim *s) { return s ? s->now : 0; }
uint64_t jbof_sim_events(const jbof_sim *s) { return s ? s->events : 0; }
jbof_sched *jbof_sim_sched(jbof_sim *s) { return s ? s->sched : NULL; }
jbof_ssd *jbof_sim_ssd(jbof_sim *s) { return s ? s->ssd : NULL; }

int jbof_sim_tenant_result(const jbof_sim *s, uint32_t id, jbof_tenant_result *out)
{
    if (!s || !out)
        return -EINVAL;
    if (id >= s->maxt || !s->t[id].present)
        return -ENOENT;
    const sim_tenant *st = &s->t[id];
    *out = st->res;
    uint64_t a = st->ws.start_ns, b = st->ws.end_ns;
    if (b > s->now)
        b = s->now;
    out->busy_ns = b > a ? b - a : 0;
    jbof_tenant_stats ts;
    if (jbof_sched_tenant_stats(s->sched, st->sid, &ts) == 0) {
        out->slo_violations = ts.slo_violations;
        out->queued_ns = tenant_queued_ns_at(&ts, s->now);
    }
    return 0;
}

int jbof_sim_tenant_timeline(const jbof_sim *s, uint32_t id, uint64_t *bytes, uint32_t n)
{
    if (!s || !bytes)
        return -EINVAL;
    if (id >= s->maxt || !s->t[id].present)
        return -ENOENT;
    if (n > s->cfg.max_bins)
        n = s->cfg.max_bins;
    memcpy(bytes, s->t[id].timeline, (size_t)n * sizeof(*bytes));
    return (int)n;
}
