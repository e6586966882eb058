/*
 * engine.c -- the engine's lifecycle and control API, the command queue,
 * the reactor thread and its loop (the overview is csrc/reactor.h).
 *
 * 1. Commands.  Python threads never touch engine state: each API call
 *    (export add/remove/set, stats, policy) is a cmd on the stack of the
 *    caller, queued under e->mu, announced on an eventfd, applied by the
 *    reactor between two batches, and waited for on e->cv.  While the
 *    thread does not run (before start, after stop) it is applied inline.
 *    A command that must wait (export removal with IO in flight, stop)
 *    returns -EINPROGRESS and is retried every iteration.
 *
 * 2. One loop iteration: apply commands; epoll_pwait2 until the earliest
 *    deadline (scheduler pacing, backend completions, stop deadline; 0 if
 *    connections are ready); handle events; up to PUMP_ROUNDS rounds of
 *    (read ready connections, pump every drive, resume waiters); flush
 *    every dirty connection; free dead ones.
 *
 * 3. Worked example: an idle engine with an emulated drive whose next
 *    completion is due in 85 us sleeps 85 us (timer slack 1 us), reaps it
 *    in round 0, dispatches the two IOs that were waiting behind it, and
 *    sends the reply, all in one iteration.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "reactor.h"

static const uint64_t DEFAULT_DRAIN_NS = 10000000000ull;
static const uint64_t DEFAULT_BUFFER_BYTES = 256ull << 20;
static const uint64_t DEFAULT_HS_TIMEOUT_NS = 10000000000ull;
static const uint64_t DEFAULT_HS_IDLE_NS = 3000000000ull;

/* ------------------------------------------------------------- clock ---- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ----------------------------------------------------------- commands ---- */

static void begin_stop(jbof_engine *e);

/* Apply one command.  -EINPROGRESS: keep it and retry next iteration. */
static int cmd_apply(jbof_engine *e, cmd *k)
{
    export *x;
    switch (k->type) {
    case CMD_EXPORT_ADD:
        return export_add(e, k->in);
    case CMD_EXPORT_REMOVE:
        x = find_export(e, k->name);
        if (!x && e->nstubs) /* root: drop the directory entry; its reactor removes it next */
            stub_remove(e, k->name);
        return x ? export_remove_step(e, x) : -ENOENT;
    case CMD_STUB_ADD:
        return stub_add(e, k->in, k->policy);
    case CMD_EXPORT_SET:
        x = find_export(e, k->name);
        if (!x || x->removing)
            return -ENOENT;
        return jbof_sched_tenant_set(x->d->s, x->tid, k->in, e->now_ns);
    case CMD_EXPORT_STATS:
        x = find_export(e, k->name);
        if (!x)
            return -ENOENT;
        export_stats_fill(x, k->out, e->now_ns);
        return 0;
    case CMD_EXPORT_HIST:
        x = find_export(e, k->name);
        return x ? jbof_sched_tenant_hist(x->d->s, x->tid, k->out) : -ENOENT;
    case CMD_DRIVE_POLICY:
        if (!drive_by_id(e, k->drive))
            return -ENOENT;
        return jbof_sched_set_policy(drive_by_id(e, k->drive)->s, k->policy, e->now_ns);
    case CMD_DRIVE_CONFIGURE:
        if (!drive_by_id(e, k->drive))
            return -ENOENT;
        return jbof_sched_configure(drive_by_id(e, k->drive)->s, k->in, e->now_ns);
    case CMD_DRIVE_GET_CFG:
        if (!drive_by_id(e, k->drive))
            return -ENOENT;
        return jbof_sched_get_cfg(drive_by_id(e, k->drive)->s, k->out);
    case CMD_DRIVE_STATS:
        if (!drive_by_id(e, k->drive))
            return -ENOENT;
        drive_info_fill(drive_by_id(e, k->drive), k->out);
        return 0;
    case CMD_DRIVE_SCRUB_MARK:
        return drive_scrub_mark(e, k->drive, k->in);
    case CMD_ENGINE_STATS: {
        jbof_engine_stats *s = k->out;
        *s = e->st;
        s->buffer_bytes = e->pool.bytes;
        s->buffer_budget_bytes = e->pool.budget;
        s->connections = e->nconns;
        s->exports = e->nx;
        s->drives = e->ndrives;
        s->requests_active = e->active_reqs;
        s->running = (uint32_t)e->running;
        s->stopping = (uint32_t)e->stopping;
        s->hs_connections = e->nhs;
        s->reactors = 1;
        return 0;
    }
    case CMD_STOP:
        begin_stop(e);
        return -EINPROGRESS;
    default:
        return -EINVAL;
    }
}

static void cmd_finish(jbof_engine *e, cmd *k, int rc)
{
    pthread_mutex_lock(&e->mu);
    k->rc = rc;
    k->done = 1;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

static void run_commands(jbof_engine *e)
{
    pthread_mutex_lock(&e->mu);
    cmd *list = e->q_head;
    e->q_head = e->q_tail = NULL;
    conn *adopt = e->adopt_head;
    e->adopt_head = e->adopt_tail = NULL;
    pthread_mutex_unlock(&e->mu);
    while (adopt) { /* section 7: connections handed over by the listener reactor */
        conn *c = adopt;
        adopt = c->move_next;
        conn_adopt(e, c);
    }
    /* retry deferred ones first (export removal waiting for IO to drain) */
    e->retry_deferred = 0;
    cmd **pp = &e->deferred;
    while (*pp) {
        cmd *k = *pp;
        int rc = cmd_apply(e, k);
        if (rc == -EINPROGRESS) {
            pp = &k->next;
        } else {
            *pp = k->next;
            cmd_finish(e, k, rc);
        }
    }
    while (list) {
        cmd *k = list;
        list = k->next;
        int rc = cmd_apply(e, k);
        if (rc == -EINPROGRESS) {
            if (k->type == CMD_STOP) {
                e->stop_cmd = k;
            } else {
                k->next = e->deferred;
                e->deferred = k;
            }
        } else {
            cmd_finish(e, k, rc);
        }
    }
}

/* Wake e's reactor thread (its eventfd); a full counter still wakes it. */
void engine_wake(jbof_engine *e)
{
    uint64_t one = 1;
    ssize_t w = write(e->cmd_fd, &one, sizeof(one));
    (void)w;
}

/* Run a command: through the reactor thread when it runs, else here. */
int cmd_run(jbof_engine *e, cmd *k)
{
    pthread_mutex_lock(&e->mu);
    if (!e->running) {
        e->now_ns = mono_ns();
        int rc = cmd_apply(e, k);
        if (rc == -EINPROGRESS) /* removal with nothing in flight cannot wait */
            rc = k->type == CMD_STOP ? 0 : cmd_apply(e, k);
        pthread_mutex_unlock(&e->mu);
        return rc;
    }
    k->next = NULL;
    k->done = 0;
    if (e->q_tail)
        e->q_tail->next = k;
    else
        e->q_head = k;
    e->q_tail = k;
    pthread_mutex_unlock(&e->mu);
    engine_wake(e);
    pthread_mutex_lock(&e->mu);
    while (!k->done)
        pthread_cond_wait(&e->cv, &e->mu);
    int rc = k->rc;
    pthread_mutex_unlock(&e->mu);
    return rc;
}

/* ---------------------------------------------------------- the loop ---- */

static void begin_stop(jbof_engine *e)
{
    if (e->stopping)
        return;
    e->stopping = 1;
    e->stop_deadline_ns = e->now_ns + e->cfg.drain_timeout_ns;
    for (uint32_t i = 0; i < e->nlst; i++) {
        if (e->lst[i].fd >= 0) {
            epoll_ctl(e->epfd, EPOLL_CTL_DEL, e->lst[i].fd, NULL);
            close(e->lst[i].fd);
            e->lst[i].fd = -1;
        }
    }
    for (conn *c = e->conns, *nx; c; c = nx) {
        nx = c->next;
        if (c->state == C_HS)
            conn_close(e, c, 0);
        else
            ready_push(e, c); /* new requests now get ESHUTDOWN */
    }
}

static int all_flushed(jbof_engine *e)
{
    for (conn *c = e->conns; c; c = c->next)
        if (c->out_head || c->hs_out_sent < c->hs_out_len)
            return 0;
    return 1;
}

static int backends_idle(jbof_engine *e)
{
    for (uint32_t i = 0; i < e->ndrives; i++)
        if (e->drives[i]->be->inflight)
            return 0;
    return 1;
}

/* No request in an SQ or a backend (asked of the schedulers and backends,
 * which count them; only called while stopping). */
static int io_idle(jbof_engine *e)
{
    for (uint32_t i = 0; i < e->ndrives; i++) {
        jbof_drive_stats ds;
        if (e->drives[i]->be->inflight)
            return 0;
        if (jbof_sched_drive_stats(e->drives[i]->s, &ds) == 0 && ds.backlogged)
            return 0;
    }
    return 1;
}

static void on_event(jbof_engine *e, struct epoll_event *ev)
{
    evsrc *s = ev->data.ptr;
    switch (s->kind) {
    case SRC_LISTENER:
        on_listener(e, (listener *)s);
        break;
    case SRC_CONN: {
        conn *c = (conn *)s;
        if (c->state == C_DEAD)
            break;
        if (ev->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
            c->readable = 1;
            ready_push(e, c);
        }
        if (ev->events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
            dirty_push(e, c);
        break;
    }
    case SRC_BACKEND: {
        drive *d = (drive *)s;
        uint64_t v;
        ssize_t n = read(d->be->event_fd, &v, sizeof(v));
        (void)n;
        break;
    }
    case SRC_CMD: {
        uint64_t v;
        ssize_t n = read(e->cmd_fd, &v, sizeof(v));
        (void)n;
        break;
    }
    default:
        break;
    }
}

static uint64_t next_deadline(jbof_engine *e)
{
    uint64_t t = UINT64_MAX;
    for (uint32_t i = 0; i < e->ndrives; i++) {
        drive *d = e->drives[i];
        if (d->zero_fresh) /* io.c 3b: a zeroing's next piece to dispatch */
            return e->now_ns;
        uint64_t due = d->be->ops->next_due_ns(d->be);
        if (due < t)
            t = due;
        due = scrub_next_ns(d);
        if (due < t)
            t = due;
        if (!e->exiting) { /* UINT64_MAX at once when nothing is queued */
            uint64_t ev = jbof_sched_next_event_ns(d->s, e->now_ns);
            if (ev < t)
                t = ev;
            ev = jbof_sched_next_escape_ns(d->s, e->now_ns); /* sched.c section 102 */
            if (ev < t)
                t = ev;
        }
    }
    if (e->stopping && !e->exiting && e->stop_deadline_ns < t)
        t = e->stop_deadline_ns;
    for (uint32_t i = 0; e->deferred && i < e->nx; i++) /* export.c 4: a removal's linger */
        if (e->xs[i]->removing && e->xs[i]->linger_until_ns > e->now_ns && e->xs[i]->linger_until_ns < t)
            t = e->xs[i]->linger_until_ns;
    uint64_t g = guard_next_ns(e);
    if (g < t)
        t = g;
    return t;
}

static int stop_done(jbof_engine *e)
{
    if (!e->exiting && e->now_ns >= e->stop_deadline_ns)
        e->exiting = 1; /* stop dispatching; wait for the backends only */
    return (io_idle(e) && all_flushed(e)) || (e->exiting && backends_idle(e));
}

/* epoll_pwait2 (Linux 5.11) sleeps to the nanosecond; older kernels, and
 * qemu-user, answer ENOSYS.  Then wait with epoll_pwait's milliseconds,
 * rounded up so a deadline is never anticipated (pacing stays correct, only
 * coarser: a 100 us pacing gap becomes up to 1 ms on such a kernel). */
static int wait_events(jbof_engine *e, struct epoll_event *evs, const struct timespec *tsp)
{
    if (!e->no_pwait2) {
        int n = epoll_pwait2(e->epfd, evs, EVENTS_MAX, tsp, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        e->no_pwait2 = 1;
    }
    int ms = -1;
    if (tsp) {
        uint64_t ns = (uint64_t)tsp->tv_sec * 1000000000ull + (uint64_t)tsp->tv_nsec;
        uint64_t m = (ns + 999999ull) / 1000000ull;
        ms = m > 60000 ? 60000 : (int)m;
    }
    return epoll_pwait(e->epfd, evs, EVENTS_MAX, ms, NULL);
}

static void iteration(jbof_engine *e)
{
    struct epoll_event evs[EVENTS_MAX];
    e->now_ns = mono_ns();
    run_commands(e);
    guard_sweep(e); /* budget.c: handshake deadlines and idle limits */
    if (e->stopping && stop_done(e)) {
        e->leave = 1;
        return;
    }
    /* commands just applied may have queued replies (dirty) or let a
     * deferred removal finish: no sleeping before those are done */
    uint64_t dl = (e->ready || e->dirty || (e->retry_deferred && e->deferred)) ? 0 : next_deadline(e);
    struct timespec ts, *tsp = NULL;
    if (dl != UINT64_MAX) {
        uint64_t wait = dl > e->now_ns ? dl - e->now_ns : 0;
        ts.tv_sec = (time_t)(wait / 1000000000ull);
        ts.tv_nsec = (long)(wait % 1000000000ull);
        tsp = &ts;
    }
    int n = wait_events(e, evs, tsp);
    e->now_ns = mono_ns();
    e->st.loops++;
    for (int i = 0; i < n; i++)
        on_event(e, &evs[i]);

    for (int round = 0; round < PUMP_ROUNDS; round++) {
        if (round)
            e->now_ns = mono_ns(); /* completions of the last round are timed now */
        run_ready(e);
        int moved = 0;
        for (uint32_t i = 0; i < e->ndrives; i++)
            moved |= drive_pump(e, e->drives[i]);
        wake_credit_waiters(e);
        if (!moved && !e->ready)
            break;
    }
    for (uint32_t i = 0; i < e->ndrives; i++)
        scrub_step(e, e->drives[i]); /* scrub.c: background zeroing */
    while (e->dirty) {
        conn *c = e->dirty;
        e->dirty = c->dirty_next;
        c->in_dirty = 0;
        conn_flush(e, c);
    }
    send_movers(e); /* handshakes done for other reactors' exports */
    /* replies sent may have freed slots: resume waiters next iteration */
    wake_credit_waiters(e);
    free_zombies(e);

    if (e->stopping) {
        if (stop_done(e))
            e->leave = 1;
    }
}

static void *reactor_main(void *arg)
{
    jbof_engine *e = arg;
    /* wake within 1 us of a deadline (the default slack is 50 us, a fifth
     * of the controller's latency band) */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    while (!e->leave)
        iteration(e);
    for (uint32_t i = 0; i < e->ndrives; i++)
        e->drives[i]->be->ops->sync(e->drives[i]->be);
    for (conn *c = e->conns, *nx; c; c = nx) {
        nx = c->next;
        conn_close(e, c, 0);
    }
    /* stop may end with connections still queued (an idle one pushed by
     * begin_stop): clear their marks, or free_zombies keeps them forever */
    for (conn *c = e->ready; c; c = c->ready_next)
        c->in_ready = 0;
    for (conn *c = e->dirty; c; c = c->dirty_next)
        c->in_dirty = 0;
    e->ready = e->ready_tail = NULL;
    e->dirty = NULL;
    /* requests still in an SQ (drain deadline passed) are dropped here */
    for (uint32_t i = 0; i < e->cfg.max_requests; i++) {
        req *r = &e->slots[i];
        if (r->state == R_QUEUED)
            req_put(e, r);
    }
    /* connections handed over while we stopped: adopt closes them */
    pthread_mutex_lock(&e->mu);
    conn *adopt = e->adopt_head;
    e->adopt_head = e->adopt_tail = NULL;
    pthread_mutex_unlock(&e->mu);
    while (adopt) {
        conn *c = adopt;
        adopt = c->move_next;
        conn_adopt(e, c);
    }
    free_zombies(e);
    /* hand the state back to callers: pending commands now run inline */
    pthread_mutex_lock(&e->mu);
    e->running = 0;
    cmd *list = e->q_head;
    e->q_head = e->q_tail = NULL;
    cmd *def = e->deferred;
    e->deferred = NULL;
    while (list || def) {
        cmd *k = list ? list : def;
        if (list)
            list = list->next;
        else
            def = def->next;
        k->rc = k->type == CMD_STOP ? 0 : cmd_apply(e, k);
        if (k->rc == -EINPROGRESS)
            k->rc = cmd_apply(e, k);
        k->done = 1;
    }
    if (e->stop_cmd) {
        e->stop_cmd->rc = 0;
        e->stop_cmd->done = 1;
        e->stop_cmd = NULL;
    }
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---------------------------------------------------------------- API ---- */

static int reactor_new(const jbof_engine_cfg *cfg, uint32_t rid, jbof_engine *root, jbof_engine **out);

int jbof_engine_create(const jbof_engine_cfg *cfg, jbof_engine **out)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    jbof_engine_cfg c = cfg ? *cfg : (jbof_engine_cfg){0};
    if (!c.max_connections)
        c.max_connections = 1024;
    if (!c.max_requests)
        c.max_requests = 4096;
    if (!c.max_conn_requests)
        c.max_conn_requests = 512;
    if (!c.max_exports)
        c.max_exports = 1024;
    if (!c.buffer_bytes)
        c.buffer_bytes = DEFAULT_BUFFER_BYTES;
    if (!c.drain_timeout_ns)
        c.drain_timeout_ns = DEFAULT_DRAIN_NS;
    /* budget.c: per-tenant budgets (0 there = a fair share) and the guard */
    if (!c.max_conns_per_tenant)
        c.max_conns_per_tenant = c.max_connections < 256 ? c.max_connections : 256;
    if (!c.max_hs_connections)
        c.max_hs_connections = c.max_connections / 4 ? c.max_connections / 4 : 1;
    if (!c.peer_accept_rate)
        c.peer_accept_rate = 256;
    if (!c.peer_accept_burst)
        c.peer_accept_burst = 1024;
    if (!c.hs_timeout_ns)
        c.hs_timeout_ns = DEFAULT_HS_TIMEOUT_NS;
    if (!c.hs_idle_ns)
        c.hs_idle_ns = DEFAULT_HS_IDLE_NS;
    if (!c.scrub_rate_bps)
        c.scrub_rate_bps = 16ull << 30;
    if (c.max_connections > 65536 || c.max_requests > (1u << 20) || c.max_exports > 65536 ||
        c.buffer_bytes < JBOF_NBD_MAX_PAYLOAD_BYTES || c.max_hs_connections > c.max_connections ||
        c.tenant_requests > c.max_requests || c.max_conns_per_tenant > c.max_connections ||
        c.peer_accept_rate > 1000000 || c.peer_accept_burst > 1000000)
        return -EINVAL;
    if (!c.reactors)
        c.reactors = 1;
    if (c.reactors > MAX_REACTORS || (c.ncpus && c.ncpus != c.reactors))
        return -EINVAL;
    for (uint32_t i = 0; i < c.ncpus; i++)
        if (c.cpus[i] >= CPU_SETSIZE)
            return -EINVAL;
    jbof_engine *e;
    int rc = reactor_new(&c, 0, NULL, &e);
    if (rc < 0)
        return rc;
    e->rs = calloc(c.reactors, sizeof(*e->rs));
    e->stubs = calloc(c.max_exports, sizeof(*e->stubs));
    if (!e->rs || !e->stubs) {
        jbof_engine_destroy(e);
        return -ENOMEM;
    }
    e->rs[0] = e;
    e->nrs = 1;
    rc = sec_engine_init(e); /* tls.c: keys and access rules, shared by all reactors */
    if (rc < 0) {
        jbof_engine_destroy(e);
        return rc;
    }
    for (uint32_t i = 1; i < c.reactors; i++) {
        rc = reactor_new(&c, i, e, &e->rs[i]);
        if (rc < 0) {
            jbof_engine_destroy(e);
            return rc;
        }
        e->nrs++;
    }
    *out = e;
    return 0;
}

/* One reactor: its epoll set, command queue, slots and buffer pool. */
static int reactor_new(const jbof_engine_cfg *cfg, uint32_t rid, jbof_engine *root, jbof_engine **out)
{
    jbof_engine_cfg c = *cfg;
    jbof_engine *e = calloc(1, sizeof(*e));
    if (!e)
        return -ENOMEM;
    e->cfg = c;
    e->epfd = e->cmd_fd = -1;
    e->slots = calloc(c.max_requests, sizeof(req));
    e->xs = calloc(c.max_exports, sizeof(*e->xs));
    e->tab = calloc(c.max_exports, sizeof(*e->tab));
    e->tab_x = calloc(c.max_exports, sizeof(*e->tab_x));
    e->epfd = epoll_create1(EPOLL_CLOEXEC);
    e->cmd_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    int mu_ok = pthread_mutex_init(&e->mu, NULL) == 0;
    int cv_ok = pthread_cond_init(&e->cv, NULL) == 0;
    if (!e->slots || !e->xs || !e->tab || !e->tab_x || e->epfd < 0 || e->cmd_fd < 0 || !mu_ok || !cv_ok) {
        if (e->epfd >= 0)
            close(e->epfd);
        if (e->cmd_fd >= 0)
            close(e->cmd_fd);
        if (mu_ok)
            pthread_mutex_destroy(&e->mu);
        if (cv_ok)
            pthread_cond_destroy(&e->cv);
        free(e->slots);
        free(e->xs);
        free(e->tab);
        free(e->tab_x);
        free(e);
        return -ENOMEM;
    }
    for (uint32_t i = c.max_requests; i-- > 0;) {
        e->slots[i].idx = i;
        e->slots[i].buf_class = -1;
        e->slots[i].next = e->free_reqs;
        e->free_reqs = &e->slots[i];
    }
    e->pool.budget = c.buffer_bytes;
    e->cmd_src.kind = SRC_CMD;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &e->cmd_src};
    epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->cmd_fd, &ev);
    for (uint32_t i = 0; i < MAX_LISTENERS; i++)
        e->lst[i].fd = -1;
    e->rid = rid;
    e->root = root ? root : e;
    if (root)
        e->sec = root->sec;
    *out = e;
    return 0;
}

static int reactor_start(jbof_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->running = 1;
    int rc = pthread_create(&e->thread, NULL, reactor_main, e);
    if (rc != 0) {
        e->running = 0;
        pthread_mutex_unlock(&e->mu);
        return -rc;
    }
    e->started = 1;
    pthread_mutex_unlock(&e->mu);
    const jbof_engine_cfg *c = &e->root->cfg;
    if (c->ncpus) { /* pin: a failure (CPU offline) leaves it floating */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(c->cpus[e->rid], &set);
        pthread_setaffinity_np(e->thread, sizeof(set), &set);
    }
    return 0;
}

static void reactor_stop(jbof_engine *e)
{
    pthread_mutex_lock(&e->mu);
    int joinable = e->started == 1;
    if (joinable)
        e->started = 2; /* one caller joins */
    pthread_mutex_unlock(&e->mu);
    if (!joinable)
        return;
    cmd k = {.type = CMD_STOP};
    cmd_run(e, &k);
    pthread_join(e->thread, NULL);
}

/* Section 7: the other reactors first, so the listener reactor never hands
 * a connection to a reactor that is not running yet. */
int jbof_engine_start(jbof_engine *e)
{
    if (!e || e->root != e)
        return -EINVAL;
    pthread_mutex_lock(&e->mu);
    int started = e->started;
    pthread_mutex_unlock(&e->mu);
    if (started)
        return -EBUSY;
    for (uint32_t i = e->nrs; i-- > 0;) {
        int rc = reactor_start(e->rs[i]);
        if (rc < 0) {
            for (uint32_t j = i + 1; j < e->nrs; j++)
                reactor_stop(e->rs[j]);
            return rc;
        }
    }
    return 0;
}

/* The listener reactor first (no new handoffs), then the others: a
 * connection handed over just before is adopted and closed by its reactor. */
int jbof_engine_stop(jbof_engine *e)
{
    if (!e || e->root != e)
        return -EINVAL;
    for (uint32_t i = 0; i < e->nrs; i++)
        reactor_stop(e->rs[i]);
    return 0;
}

static void reactor_free(jbof_engine *e)
{
    for (conn *c = e->conns, *nx; c; c = nx) {
        nx = c->next;
        conn_close(e, c, 0);
    }
    e->stopping = 1;
    while (e->adopt_head) { /* never adopted (the thread did not run): closed */
        conn *c = e->adopt_head;
        e->adopt_head = c->move_next;
        conn_adopt(e, c);
    }
    free_zombies(e);
    for (uint32_t i = 0; i < e->nlst; i++) {
        if (e->lst[i].fd >= 0)
            close(e->lst[i].fd);
        if (e->lst[i].path[0])
            unlink(e->lst[i].path);
    }
    for (uint32_t i = 0; i < e->nx; i++)
        free(e->xs[i]);
    for (uint32_t i = 0; i < e->nstubs; i++)
        free(e->stubs[i]);
    for (uint32_t i = 0; i < e->ndrives; i++) {
        drive *d = e->drives[i];
        d->be->ops->destroy(d->be);
        jbof_sched_destroy(d->s);
        free(d->dirty);
        free(d);
    }
    for (uint32_t i = 0; i < e->cfg.max_requests; i++)
        if (e->slots[i].br.buf)
            buf_put(&e->pool, e->slots[i].br.buf, e->slots[i].buf_class);
    buf_pool_free(&e->pool);
    if (e->root == e)
        sec_engine_free(e);
    close(e->epfd);
    close(e->cmd_fd);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e->slots);
    free(e->xs);
    free(e->tab);
    free(e->tab_x);
    free(e->stubs);
    free(e->rs);
    free(e);
}

void jbof_engine_destroy(jbof_engine *e)
{
    if (!e || e->root != e)
        return;
    if (e->rs)
        jbof_engine_stop(e);
    for (uint32_t i = 1; i < e->nrs; i++)
        reactor_free(e->rs[i]); /* stopped: a connection still queued for it is closed */
    reactor_free(e);
}

/* ----------------------------------------------- routing (section 7) ---- */

static jbof_engine *drive_reactor(jbof_engine *e, uint32_t drive_id)
{
    return drive_id < e->ndrive_ids ? e->rs[e->drive_home[drive_id]] : NULL;
}

int jbof_engine_drive_reactor(jbof_engine *e, uint32_t drive_id)
{
    if (!e || e->root != e)
        return -EINVAL;
    return drive_id < e->ndrive_ids ? (int)e->drive_home[drive_id] : -ENOENT;
}

/* A command about an export: on the reactor that has it.  The root
 * answers first (it also drops the directory entry of a removed remote
 * export); the others answer -ENOENT for names they do not own. */
static int export_cmd(jbof_engine *e, cmd *k)
{
    cmd k0 = *k;
    int rc = cmd_run(e, k);
    for (uint32_t i = 1; rc == -ENOENT && i < e->nrs; i++) {
        *k = k0;
        rc = cmd_run(e->rs[i], k);
    }
    return rc;
}

int jbof_engine_export_add(jbof_engine *e, const jbof_export_cfg *cfg)
{
    if (!e || !cfg || e->root != e)
        return -EINVAL;
    jbof_engine *t = drive_reactor(e, cfg->drive);
    if (!t)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_ADD, .in = cfg};
    int rc = cmd_run(t, &k);
    if (rc < 0 || t == e)
        return rc;
    /* then the root's directory, which keeps names unique engine-wide */
    cmd ks = {.type = CMD_STUB_ADD, .in = cfg, .policy = t->rid};
    rc = cmd_run(e, &ks);
    if (rc < 0) {
        char name[sizeof(cfg->name) + 1];
        memcpy(name, cfg->name, sizeof(cfg->name));
        name[sizeof(cfg->name)] = 0;
        cmd kr = {.type = CMD_EXPORT_REMOVE, .name = name};
        cmd_run(t, &kr);
    }
    return rc;
}

int jbof_engine_export_remove(jbof_engine *e, const char *name)
{
    if (!e || !name || e->root != e)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_REMOVE, .name = name};
    return export_cmd(e, &k);
}

int jbof_engine_export_set(jbof_engine *e, const char *name, const jbof_tenant_cfg *cfg)
{
    if (!e || !name || !cfg || e->root != e)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_SET, .name = name, .in = cfg};
    return export_cmd(e, &k);
}

int jbof_engine_export_stats(jbof_engine *e, const char *name, jbof_export_stats *out)
{
    if (!e || !name || !out || e->root != e)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_STATS, .name = name, .out = out};
    return export_cmd(e, &k);
}

int jbof_engine_export_hist(jbof_engine *e, const char *name, jbof_hist *out)
{
    if (!e || !name || !out || e->root != e)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_HIST, .name = name, .out = out};
    return export_cmd(e, &k);
}

static int drive_cmd(jbof_engine *e, cmd *k)
{
    jbof_engine *t = drive_reactor(e, k->drive);
    return t ? cmd_run(t, k) : -ENOENT;
}

int jbof_engine_drive_set_policy(jbof_engine *e, uint32_t drive_id, uint32_t policy)
{
    if (!e || policy >= JBOF_POLICY_COUNT || e->root != e)
        return -EINVAL;
    cmd k = {.type = CMD_DRIVE_POLICY, .drive = drive_id, .policy = policy};
    return drive_cmd(e, &k);
}

int jbof_engine_drive_configure(jbof_engine *e, uint32_t drive_id, const jbof_sched_cfg *cfg)
{
    if (!e || !cfg || e->root != e)
        return -EINVAL;
    cmd k = {.type = CMD_DRIVE_CONFIGURE, .drive = drive_id, .in = cfg};
    return drive_cmd(e, &k);
}

int jbof_engine_drive_get_cfg(jbof_engine *e, uint32_t drive_id, jbof_sched_cfg *out)
{
    if (!e || !out || e->root != e)
        return -EINVAL;
    cmd k = {.type = CMD_DRIVE_GET_CFG, .drive = drive_id, .out = out};
    return drive_cmd(e, &k);
}

int jbof_engine_drive_stats(jbof_engine *e, uint32_t drive_id, jbof_drive_info *out)
{
    if (!e || !out || e->root != e)
        return -EINVAL;
    cmd k = {.type = CMD_DRIVE_STATS, .drive = drive_id, .out = out};
    return drive_cmd(e, &k);
}

int jbof_drive_scrub_mark(jbof_engine *e, uint32_t drive_id, uint64_t off, uint64_t len)
{
    if (!e || e->root != e || len == 0)
        return -EINVAL;
    const uint64_t in[2] = {off, len};
    cmd k = {.type = CMD_DRIVE_SCRUB_MARK, .drive = drive_id, .in = in};
    return drive_cmd(e, &k);
}

int jbof_engine_reactor_stats(jbof_engine *e, uint32_t reactor, jbof_engine_stats *out)
{
    if (!e || !out || e->root != e)
        return -EINVAL;
    if (reactor >= e->nrs)
        return -ENOENT;
    cmd k = {.type = CMD_ENGINE_STATS, .out = out};
    return cmd_run(e->rs[reactor], &k);
}

/* Engine-wide: every reactor's counters summed; running / stopping are the
 * listener reactor's. */
int jbof_engine_get_stats(jbof_engine *e, jbof_engine_stats *out)
{
    if (!e || !out || e->root != e)
        return -EINVAL;
    int rc = jbof_engine_reactor_stats(e, 0, out);
    for (uint32_t i = 1; rc == 0 && i < e->nrs; i++) {
        jbof_engine_stats r;
        rc = jbof_engine_reactor_stats(e, i, &r);
        if (rc < 0)
            break;
        out->loops += r.loops;
        out->accepted += r.accepted;
        out->closed += r.closed;
        out->protocol_errors += r.protocol_errors;
        out->handshakes += r.handshakes;
        out->requests += r.requests;
        out->pool_stalls += r.pool_stalls;
        out->buffer_bytes += r.buffer_bytes;
        out->buffer_budget_bytes += r.buffer_budget_bytes;
        out->connections += r.connections;
        out->exports += r.exports;
        out->drives += r.drives;
        out->requests_active += r.requests_active;
        out->hs_connections += r.hs_connections;
        out->hs_timeouts += r.hs_timeouts;
        out->hs_idle_closed += r.hs_idle_closed;
        out->hs_rejected += r.hs_rejected;
        out->rate_limited += r.rate_limited;
        out->tenant_conn_rejects += r.tenant_conn_rejects;
        out->handoffs_out += r.handoffs_out;
        out->handoffs_in += r.handoffs_in;
    }
    out->reactors = e->nrs;
    return rc;
}
