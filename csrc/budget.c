/*
 * budget.c -- what one tenant, and one not-yet-authenticated client, may
 * hold of the reactor's shared resources.
 *
 * The engine has four shared, bounded resources (reactor.h, section 3):
 * request slots (max_requests), data-buffer bytes (buffer_bytes),
 * connections (max_connections) and the reactor's own time.  Without
 * budgets one tenant that sends reads and never reads the replies holds
 * them all: its replies sit in its send queue, each keeping a slot and a
 * buffer, and every other tenant waits on the pool.  This file splits
 * each resource so that a misbehaving tenant or client runs out of *its*
 * share and stops there.
 *
 * 1. Tenant budgets.  Every export x has
 *        slot_budget  request slots  = tenant_requests, or by default
 *                     max_requests / exports clamped to [64, max_requests/2]
 *        buf_budget   buffer bytes   = tenant_buffer_bytes, or by default
 *                     buffer_bytes / exports clamped to [4 MiB, buffer_bytes/2]
 *        conn_budget  established connections = max_conns_per_tenant (256)
 *    (a per-export value in jbof_export_cfg overrides the engine's).  The
 *    defaults are recomputed whenever an export comes or goes.  The upper
 *    clamp (half the pool) keeps room for a tenant added later even when
 *    the first one holds all it may.  A request is charged to its tenant
 *    when it takes its slot (and buffer, counted by its power-of-two buffer
 *    class) and discharged in req_put, whatever path it took (reply sent,
 *    connection closed, refused).  A connection whose tenant is out of
 *    budget waits on the tenant's own list (W_TENANT): it is not read, so
 *    socket flow control stops that client -- and only that tenant's
 *    clients, since the others' budgets are untouched.  Progress rule: a
 *    request larger than the whole budget (a 32 MiB READ against a 4 MiB
 *    budget) is admitted when the tenant holds no buffer at all, so a
 *    small budget never deadlocks a legal request; the tenant then holds
 *    one such buffer at a time.
 *
 * 2. The handshake guard.  A connection costs a 64 KiB rx buffer and a
 *    place under max_connections before it has said anything.  So:
 *      a. at most max_hs_connections (max_connections / 4) are in the
 *         handshake at once; the rest of max_connections is therefore
 *         always open to clients that finish their handshake quickly, and
 *         a flood of idle sockets cannot lock established tenants out.
 *         When the handshake places are all taken, a new connection
 *         evicts the oldest one that has sent nothing for HS_EVICT_NS
 *         (100 ms), or failing that the oldest one older than hs_idle_ns;
 *         only when none qualifies is the newcomer refused.  A client that
 *         speaks at once (every real one) thus gets in during a flood of
 *         silent or slow sockets, which only churn among themselves;
 *      b. a connection that has sent nothing hs_idle_ns (3 s) after accept
 *         is closed, and every handshake must end hs_timeout_ns (10 s)
 *         after accept (slowloris: one byte per second never finishes);
 *      c. each peer (uid of a unix-socket client, from SO_PEERCRED; IP of
 *         a TCP client) has a token bucket of peer_accept_burst (1024)
 *         connections refilled at peer_accept_rate (256/s); a connection
 *         over it is closed at once, before any allocation.  The buckets
 *         are a small open-addressed table in the engine (PEER_BUCKETS,
 *         PEER_PROBES probes); when full, the stalest entry is reused, so
 *         memory is fixed whatever the number of peers;
 *      d. at the end of the handshake, an export with conn_budget
 *         established connections refuses the new one (closed before its
 *         first request; counted in conn_rejects).
 *    guard_sweep walks the connection list when the earliest handshake
 *    deadline falls due (at most every GUARD_MIN_SWEEP_NS), so its cost is
 *    bounded by max_connections per sweep, never per event.
 *
 * 3. Worked example (defaults, buffer_bytes 256 MiB, max_requests 4096, two
 *    tenants A and B): each gets 128 MiB and 2048 slots.  A sends sixteen
 *    32 MiB READs and reads nothing.  The first four take 128 MiB (A's
 *    budget); the fifth finds 128 + 32 > 128 and A's connection waits on
 *    A's list, unread.  B's 4 KiB reads take 4 KiB buffers from the other
 *    128 MiB of the pool as before.  Were A to use ten connections with 600
 *    small reads each, A stops at 2048 slots and B keeps the other 2048.
 *    When A finally reads its replies, req_put releases A's slots, marks
 *    A (budget_freed) and wake_credit_waiters resumes A's connections.
 *    Meanwhile 1100 sockets opened by an unauthenticated client: 256 enter
 *    the handshake; each later one evicts the oldest silent one (or is
 *    refused, hs_rejected, while all are younger than 100 ms); those that
 *    send nothing are closed after 3 s anyway.  A real client connecting
 *    then evicts a silent socket, answers the greeting within a
 *    millisecond and is never a candidate itself; the 768 other
 *    connection places stay open to clients past their handshake.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "reactor.h"

static const uint64_t TENANT_BUF_MIN = 4ull << 20;
static const uint32_t TENANT_SLOTS_MIN = 64;
static const uint64_t GUARD_MIN_SWEEP_NS = 10000000ull; /* 10 ms */
static const uint64_t HS_EVICT_NS = 100000000ull;       /* 100 ms */

/* ------------------------------------------------------ tenant budgets ---- */

static uint64_t class_bytes(uint32_t len)
{
    uint64_t sz = 1ull << BUF_MIN_SHIFT;
    while (sz < len)
        sz <<= 1;
    return sz;
}

void budget_recompute(jbof_engine *e)
{
    uint32_t n = e->nx ? e->nx : 1;
    uint64_t buf = e->cfg.tenant_buffer_bytes;
    if (!buf) {
        uint64_t hi = e->cfg.buffer_bytes / 2;
        buf = e->cfg.buffer_bytes / n;
        if (buf < TENANT_BUF_MIN)
            buf = TENANT_BUF_MIN;
        if (buf > hi)
            buf = hi;
    }
    uint32_t slots = e->cfg.tenant_requests;
    if (!slots) {
        uint32_t hi = e->cfg.max_requests / 2 ? e->cfg.max_requests / 2 : 1;
        slots = e->cfg.max_requests / n;
        if (slots < TENANT_SLOTS_MIN)
            slots = TENANT_SLOTS_MIN;
        if (slots > hi)
            slots = hi;
    }
    for (uint32_t i = 0; i < e->nx; i++) {
        export *x = e->xs[i];
        uint64_t old_buf = x->buf_budget;
        uint32_t old_slots = x->slot_budget;
        x->buf_budget = x->cfg_buf ? x->cfg_buf : buf;
        x->slot_budget = x->cfg_slots ? x->cfg_slots : slots;
        x->conn_budget = x->cfg_conns ? x->cfg_conns : e->cfg.max_conns_per_tenant;
        if (x->buf_budget > old_buf || x->slot_budget > old_slots)
            x->budget_freed = 1; /* grown: let its waiters re-check */
    }
}

int budget_admit(jbof_engine *e, conn *c, uint32_t buf_bytes)
{
    export *x = c->x;
    uint64_t sz = buf_bytes ? class_bytes(buf_bytes) : 0;
    if (x->slots_used < x->slot_budget &&
        (sz == 0 || x->buf_used + sz <= x->buf_budget || x->buf_used == 0))
        return 1;
    wait_on(e, c, W_TENANT);
    return 0;
}

void budget_charge(export *x, req *r, uint32_t buf_bytes)
{
    r->bx = x;
    r->charged = r->br.buf ? (uint32_t)class_bytes(buf_bytes) : 0;
    x->slots_used++;
    x->buf_used += r->charged;
}

void budget_release(req *r)
{
    export *x = r->bx;
    if (!x)
        return;
    x->slots_used--;
    x->buf_used -= r->charged;
    if (x->budget_waiters.head)
        x->budget_freed = 1;
    r->bx = NULL;
    r->charged = 0;
}

/* ------------------------------------------------------- handshake guard ---- */

static uint32_t key_hash(const uint8_t *k)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < 17; i++)
        h = (h ^ k[i]) * 16777619u;
    return h;
}

/* The peer's key: uid for a unix socket, the address for TCP.  0 or -1. */
static int peer_key(int fd, const struct sockaddr *sa, socklen_t sl, int tcp, uint8_t key[17])
{
    memset(key, 0, 17);
    if (!tcp) {
        struct ucred cr;
        socklen_t l = sizeof(cr);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0)
            return -1;
        key[0] = 1;
        memcpy(key + 1, &cr.uid, sizeof(cr.uid));
        return 0;
    }
    if (sa && sa->sa_family == AF_INET && sl >= (socklen_t)sizeof(struct sockaddr_in)) {
        key[0] = 4;
        memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return 0;
    }
    if (sa && sa->sa_family == AF_INET6 && sl >= (socklen_t)sizeof(struct sockaddr_in6)) {
        key[0] = 6;
        memcpy(key + 1, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        return 0;
    }
    return -1;
}

/* Take one token from the peer's bucket.  1 = allowed. */
static int peer_take(jbof_engine *e, const uint8_t key[17])
{
    uint64_t burst = (uint64_t)e->cfg.peer_accept_burst * 1000;
    uint32_t h = key_hash(key);
    peer_bucket *b = NULL, *stalest = NULL;
    for (uint32_t i = 0; i < PEER_PROBES; i++) {
        peer_bucket *p = &e->peers[(h + i) % PEER_BUCKETS];
        if (p->key[0] && memcmp(p->key, key, 17) == 0) {
            b = p;
            break;
        }
        if (!stalest || !p->key[0] || (stalest->key[0] && p->last_ns < stalest->last_ns))
            stalest = p;
    }
    if (!b) {
        b = stalest; /* a new peer starts with a full bucket */
        memcpy(b->key, key, 17);
        b->tokens_milli = burst;
        b->last_ns = e->now_ns;
    }
    uint64_t dt = e->now_ns > b->last_ns ? e->now_ns - b->last_ns : 0;
    if (dt > 100000000000ull)
        dt = 100000000000ull; /* 100 s: refills any bucket, no overflow */
    b->tokens_milli += dt / 1000 * e->cfg.peer_accept_rate / 1000;
    if (b->tokens_milli > burst)
        b->tokens_milli = burst;
    b->last_ns = e->now_ns;
    if (b->tokens_milli < 1000)
        return 0;
    b->tokens_milli -= 1000;
    return 1;
}

/* All handshake places are taken: close the handshaking connection that
 * least deserves its place (section 2a).  1 if one was closed. */
static int hs_evict(jbof_engine *e)
{
    conn *silent = NULL, *slow = NULL;
    for (conn *c = e->conns; c; c = c->next) { /* newest first: keep the last match */
        if (c->state != C_HS)
            continue;
        uint64_t age = e->now_ns - c->accept_ns;
        if (!c->heard && age >= HS_EVICT_NS)
            silent = c;
        else if (age >= e->cfg.hs_idle_ns)
            slow = c;
    }
    conn *v = silent ? silent : slow;
    if (!v)
        return 0;
    e->st.hs_idle_closed++;
    conn_close(e, v, 0);
    return 1;
}

int guard_accept(jbof_engine *e, int fd, const struct sockaddr *sa, socklen_t sl, int tcp)
{
    if (e->stopping)
        return -ESHUTDOWN;
    uint8_t key[17];
    if (peer_key(fd, sa, sl, tcp, key) == 0 && !peer_take(e, key)) {
        e->st.rate_limited++;
        return -EAGAIN;
    }
    if (e->nhs >= e->cfg.max_hs_connections && e->nconns < e->cfg.max_connections)
        hs_evict(e);
    if (e->nconns >= e->cfg.max_connections || e->nhs >= e->cfg.max_hs_connections) {
        e->st.hs_rejected++;
        return -EBUSY;
    }
    uint64_t first = e->now_ns + (e->cfg.hs_idle_ns < e->cfg.hs_timeout_ns ? e->cfg.hs_idle_ns
                                                                            : e->cfg.hs_timeout_ns);
    if (e->nhs == 0 || first < e->hs_sweep_ns)
        e->hs_sweep_ns = first;
    return 0;
}

int guard_tx_admit(jbof_engine *e, export *x)
{
    if (x->nconns < x->conn_budget)
        return 0;
    x->st.conn_rejects++;
    e->st.tenant_conn_rejects++;
    return -EBUSY;
}

void guard_sweep(jbof_engine *e)
{
    if (!e->nhs || e->now_ns < e->hs_sweep_ns)
        return;
    uint64_t next = UINT64_MAX;
    for (conn *c = e->conns, *nx; c; c = nx) {
        nx = c->next;
        if (c->state != C_HS)
            continue;
        uint64_t dl = c->accept_ns + e->cfg.hs_timeout_ns;
        uint64_t idle = c->accept_ns + e->cfg.hs_idle_ns;
        if (e->now_ns >= dl) {
            e->st.hs_timeouts++;
            conn_close(e, c, 0);
            continue;
        }
        if (!c->heard && e->now_ns >= idle) {
            e->st.hs_idle_closed++;
            conn_close(e, c, 0);
            continue;
        }
        if (!c->heard && idle < dl)
            dl = idle;
        if (dl < next)
            next = dl;
    }
    if (next != UINT64_MAX && next < e->now_ns + GUARD_MIN_SWEEP_NS)
        next = e->now_ns + GUARD_MIN_SWEEP_NS;
    e->hs_sweep_ns = next;
}

uint64_t guard_next_ns(const jbof_engine *e)
{
    return e->nhs ? e->hs_sweep_ns : UINT64_MAX;
}
