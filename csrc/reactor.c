/*
 * reactor.c -- the live NBD target: one event-loop thread that accepts NBD
 * connections, feeds every request through its tenant's scheduler, drives
 * the backends and replies.  The only file of the core that touches
 * sockets, threads and the clock.
 *
 * 1. Objects.
 *      engine    one reactor thread, an epoll set, listeners (unix, tcp),
 *                a command queue for Python threads, request slots and a
 *                data-buffer pool shared by every connection.
 *      drive     a backend (memory / file / emulated) + one jbof_sched.
 *      export    one tenant: a name, a namespace [base, base + size) on a
 *                drive, a scheduler tenant id, a list of stalled connections.
 *      conn      a socket in handshake or transmission; an rx buffer, the
 *                request whose WRITE payload is arriving, a parked request
 *                (no SQ credit yet) and a queue of replies to send.
 *      req       one NBD request from header to reply; io->tag is its slot.
 *
 * 2. One loop iteration (a batch):
 *      a. apply queued control commands (add/remove/set export, policy,
 *         stats) -- Python threads never touch engine state directly;
 *      b. epoll_pwait2 with a nanosecond timeout = the earliest of the
 *         schedulers' next_event_ns (pacing, limits) and the backends'
 *         next_due_ns (emulated completions); 0 if work is pending;
 *      c. read every ready connection (a few reads each, for fairness),
 *         parse all complete requests, check them (codec), submit them to
 *         their tenant's SQ;
 *      d. pump each drive: reap completions -> jbof_sched_complete -> queue
 *         reply; jbof_sched_dispatch -> backend submit; one backend kick
 *         (io_uring_submit) per drive; repeat while anything moved;
 *      e. send: one sendmsg per connection with all its ready replies;
 *      f. free closed connections whose last request has finished.
 *
 * 3. Credits and bounded memory.  A request enters its tenant's SQ or
 *    waits, parked, in its connection; a connection with a parked request
 *    is not read (its socket buffer fills and TCP/unix flow control stops
 *    the client).  When dispatch takes IOs of a tenant out of its SQ, the
 *    tenant's stalled connections are resumed.  Besides: each connection
 *    has at most max_conn_requests outstanding requests, all connections
 *    share max_requests slots and a buffer budget (buffer_bytes); a
 *    connection that cannot get a slot or buffer waits and is resumed when
 *    one frees.  Memory is therefore bounded by
 *        max_connections * 64 KiB (rx) + max_requests * ~300 B + buffer_bytes
 *    whatever the clients send.
 *
 * 4. Worked example (fio, 4 KiB randread, iodepth 32, memory backend):
 *    one read() returns 32 * 28 = 896 bytes = 32 request headers; each is
 *    checked and submitted (32 SQ stores); dispatch hands out 32 IOs (the
 *    controller starts at 1000 MiB/s = 136 reads of cost 7680 per ms, and
 *    its 256 KiB bucket holds 34); the memory backend copies 32 * 4 KiB;
 *    32 completions are fed back; one sendmsg carries 32 * (16 + 4096) =
 *    131,584 bytes.  Three syscalls for 32 IOs.
 *
 * 5. Errors never crash and never leak into other tenants.  Bad magic,
 *    malformed handshakes, oversized WRITEs and vanished clients close
 *    that connection only (its in-flight IO completes and is discarded);
 *    out-of-range -> EINVAL / ENOSPC, read-only -> EPERM (codec), backend
 *    errors -> EIO (ENOSPC kept), requests after stop began -> ESHUTDOWN.
 *
 * 5b. Time.  The clock is read once per loop iteration and once per pump
 *    round.  A completion whose time the backend knows (memory: at submit;
 *    emulated: the model's due_ns) is reported to the scheduler at that
 *    time when the reactor notices it later: on a busy host
 *    the wake-up can lag by 100s of microseconds, which the controller
 *    would otherwise mistake for drive congestion.  The thread's timer
 *    slack is 1 us so deadlines are met that closely when the CPU is free.
 *
 * 6. Graceful stop: close the listeners, drop connections still in the
 *    handshake, answer new requests with ESHUTDOWN, let queued and
 *    in-flight IO finish (bounded by drain_timeout_ns; IO already inside a
 *    backend is always waited for), send the replies, sync every backend,
 *    close everything.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "jbof_nbd.h"

enum {
    RX_BYTES = 65536,          /* per-connection receive buffer */
    MAX_DRIVES = 64,
    MAX_LISTENERS = 8,
    EVENTS_MAX = 256,
    BATCH = 64,                /* dispatch / reap batch */
    IOV_BATCH = 64,            /* iovecs per sendmsg */
    READS_PER_TURN = 4,        /* read() calls per connection per iteration */
    DIRECT_READ_MIN = 16384,   /* payload rest read straight into the request buffer */
    ACCEPTS_PER_EVENT = 64,
    PUMP_ROUNDS = 16,          /* drive pump repetitions per iteration */
    BUF_MIN_SHIFT = 12,        /* buffer classes: 4 KiB .. 32 MiB */
    BUF_CLASSES = 14,
    PREF_BLOCK_BYTES = 4096,
};

static const uint64_t DEFAULT_DRAIN_NS = 10000000000ull;
static const uint64_t DEFAULT_BUFFER_BYTES = 256ull << 20;

enum src_kind { SRC_LISTENER = 1, SRC_CONN = 2, SRC_CMD = 3, SRC_BACKEND = 4 };

typedef struct evsrc {
    uint32_t kind;
    uint32_t idx;
} evsrc;

enum req_state { R_FREE = 0, R_PAYLOAD, R_PARKED, R_QUEUED, R_INFLIGHT, R_REPLY };
enum conn_state { C_HS = 0, C_TX = 1, C_DEAD = 2 };
enum wait_kind { W_NONE = 0, W_CREDIT, W_POOL, W_SELF };

struct conn;
struct export;
struct drive;

typedef struct req {
    jbof_breq br;              /* br.owner == this */
    jbof_io io;                /* as dispatched */
    struct conn *c;
    struct export *x;
    struct req *next;          /* free list / reply queue */
    uint8_t *buf;
    int32_t buf_class;         /* -1: no buffer */
    uint32_t idx;
    uint32_t sent;             /* reply bytes already sent */
    uint32_t got;              /* WRITE payload bytes received */
    int32_t status;
    uint32_t length;
    uint64_t offset;
    uint64_t handle;
    uint16_t type, nflags;
    uint8_t state;
    uint8_t hdr[JBOF_NBD_REPLY_BYTES];
} req;

typedef struct conn {
    evsrc src;
    int fd;
    uint8_t state;
    uint8_t readable;
    uint8_t want_close;        /* DISC or ABORT seen: close once replies are out */
    uint8_t in_ready;
    uint8_t in_dirty;
    uint8_t wait;              /* enum wait_kind */
    uint8_t zombie;
    jbof_nbd_hs hs;
    struct export *x;
    uint8_t *rx;
    uint32_t rx_off, rx_len;
    uint8_t *hs_out;
    size_t hs_out_len, hs_out_sent, hs_out_cap;
    req *cur;                  /* WRITE whose payload is arriving */
    uint32_t discard;          /* payload bytes to drop (refused WRITE) */
    req *parked;               /* waiting for SQ credit */
    req *out_head, *out_tail;  /* replies to send */
    uint32_t outstanding;      /* requests owned by this connection */
    struct conn *prev, *next;  /* all connections */
    struct conn *ready_next;
    struct conn *dirty_next;
    struct conn *wprev, *wnext;/* wait list */
    struct conn *zombie_next;
} conn;

typedef struct wlist {
    conn *head, *tail;
} wlist;

typedef struct export {
    char name[JBOF_NBD_NAME_MAX_BYTES + 1];
    uint32_t name_len;
    struct drive *d;
    uint32_t tid;
    uint32_t read_only;
    uint32_t removing;
    uint32_t credit_freed;     /* IO left the SQ this round: resume waiters */
    uint32_t nconns;
    uint32_t nstalled;
    uint64_t base, size;
    jbof_nbd_export nbd;       /* the codec's view */
    jbof_export_stats st;      /* reactor-side counters */
    wlist waiters;             /* connections stalled for credits */
} export;

typedef struct drive {
    evsrc src;
    uint32_t id;
    char name[64];
    uint32_t kind;
    jbof_sched *s;
    jbof_backend *be;
    uint32_t block_bytes;
    uint64_t size_bytes;
    uint64_t allocated_bytes;
    uint32_t nexports;
    uint32_t queued;           /* submitted to the SQs, not yet dispatched */
    uint32_t inflight;         /* in the backend */
    uint32_t pending_reap;     /* backend eventfd fired */
    uint32_t error_every;      /* fault injection: fail every Nth IO with EIO */
    uint64_t ios;              /* completions, for error_every */
} drive;

typedef struct listener {
    evsrc src;
    int fd;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} listener;

enum cmd_type {
    CMD_EXPORT_ADD = 1, CMD_EXPORT_REMOVE, CMD_EXPORT_SET, CMD_EXPORT_STATS, CMD_EXPORT_HIST,
    CMD_DRIVE_POLICY, CMD_DRIVE_CONFIGURE, CMD_DRIVE_GET_CFG, CMD_DRIVE_STATS, CMD_ENGINE_STATS,
    CMD_STOP
};

typedef struct cmd {
    uint32_t type;
    int rc;
    int done;
    const char *name;
    uint32_t drive;
    uint32_t policy;
    const void *in;
    void *out;
    struct cmd *next;
} cmd;

typedef struct bufpool {
    void *free[BUF_CLASSES];   /* singly linked through the first word */
    uint64_t bytes, budget;
} bufpool;

struct jbof_engine {
    jbof_engine_cfg cfg;
    evsrc cmd_src;
    int epfd, cmd_fd;
    pthread_t thread;
    pthread_mutex_t mu;        /* command queue and thread state */
    pthread_cond_t cv;
    cmd *q_head, *q_tail;
    int running;               /* the reactor thread owns the state (under mu) */
    int leave;                 /* reactor-private: leave the loop */
    int started;
    int stopping;
    int exiting;
    uint64_t stop_deadline_ns;
    cmd *stop_cmd;
    cmd *deferred;             /* remove commands waiting for drain */

    listener lst[MAX_LISTENERS];
    uint32_t nlst;
    drive *drives[MAX_DRIVES];
    uint32_t ndrives;
    export **xs;
    jbof_nbd_export *tab;      /* codec table: the exports not being removed */
    export **tab_x;
    uint32_t nx, ntab;

    conn *conns;
    uint32_t nconns;
    conn *ready, *ready_tail;
    conn *dirty;
    conn *zombies;
    wlist pool_waiters;
    uint32_t pool_freed;

    req *slots;
    req *free_reqs;
    uint32_t active_reqs;
    uint32_t busy;             /* requests in an SQ or a backend */
    bufpool pool;
    uint64_t now_ns;
    jbof_engine_stats st;
};

/* ------------------------------------------------------------- clock ---- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------- buffer pool ---- */

static int buf_class(uint32_t len)
{
    int c = 0;
    while (c < BUF_CLASSES - 1 && ((uint64_t)1 << (BUF_MIN_SHIFT + c)) < len)
        c++;
    return ((uint64_t)1 << (BUF_MIN_SHIFT + c)) >= len ? c : -1;
}

static uint8_t *buf_get(bufpool *p, uint32_t len, int32_t *cls_out)
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

static void buf_put(bufpool *p, uint8_t *b, int32_t c)
{
    *(void **)b = p->free[c];
    p->free[c] = b;
}

static void buf_pool_free(bufpool *p)
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

static void ready_push(jbof_engine *e, conn *c)
{
    if (c->in_ready || c->state == C_DEAD)
        return;
    c->in_ready = 1;
    c->ready_next = NULL;
    if (e->ready_tail)
        e->ready_tail->ready_next = c;
    else
        e->ready = c;
    e->ready_tail = c;
}

static void dirty_push(jbof_engine *e, conn *c)
{
    if (c->in_dirty || c->state == C_DEAD)
        return;
    c->in_dirty = 1;
    c->dirty_next = e->dirty;
    e->dirty = c;
}

static void wait_stop(jbof_engine *e, conn *c)
{
    switch (c->wait) {
    case W_CREDIT:
        wl_del(&c->x->waiters, c);
        c->x->nstalled--;
        break;
    case W_POOL:
        wl_del(&e->pool_waiters, c);
        break;
    default:
        break;
    }
    c->wait = W_NONE;
}

static void wait_on(jbof_engine *e, conn *c, int kind)
{
    c->wait = (uint8_t)kind;
    if (kind == W_CREDIT) {
        wl_push(&c->x->waiters, c);
        c->x->nstalled++;
        c->x->st.credit_stalls++;
    } else if (kind == W_POOL) {
        wl_push(&e->pool_waiters, c);
        e->st.pool_stalls++;
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

static req *req_get(jbof_engine *e)
{
    req *r = e->free_reqs;
    if (!r)
        return NULL;
    e->free_reqs = r->next;
    r->next = NULL;
    r->buf = NULL;
    r->buf_class = -1;
    r->sent = r->got = 0;
    r->status = 0;
    e->active_reqs++;
    return r;
}

static void conn_maybe_free(jbof_engine *e, conn *c);

static void req_put(jbof_engine *e, req *r)
{
    conn *c = r->c;
    if (r->buf)
        buf_put(&e->pool, r->buf, r->buf_class);
    r->buf = NULL;
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

/* ------------------------------------------------------- connections ---- */

static void conn_close(jbof_engine *e, conn *c, int protocol_error)
{
    if (c->state == C_DEAD)
        return;
    if (protocol_error)
        e->st.protocol_errors++;
    e->st.closed++;
    wait_stop(e, c);
    epoll_ctl(e->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    if (c->state == C_TX && c->x)
        c->x->nconns--;
    c->state = C_DEAD;
    free(c->rx);
    c->rx = NULL;
    free(c->hs_out);
    c->hs_out = NULL;
    /* requests not yet in a scheduler or backend die with the connection */
    if (c->cur) {
        req *r = c->cur;
        c->cur = NULL;
        req_put(e, r);
    }
    if (c->parked) {
        req *r = c->parked;
        c->parked = NULL;
        req_put(e, r);
    }
    while (c->out_head) {
        req *r = c->out_head;
        c->out_head = r->next;
        req_put(e, r);
    }
    c->out_tail = NULL;
    if (c->prev)
        c->prev->next = c->next;
    else
        e->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    e->nconns--;
    conn_maybe_free(e, c);
}

/* A dead connection is freed at the end of the iteration once nothing
 * (request, ready list) refers to it. */
static void conn_maybe_free(jbof_engine *e, conn *c)
{
    if (c->state == C_DEAD && !c->zombie) {
        c->zombie = 1;
        c->zombie_next = e->zombies;
        e->zombies = c;
    }
}

static void free_zombies(jbof_engine *e)
{
    conn **pp = &e->zombies;
    while (*pp) {
        conn *c = *pp;
        if (c->outstanding == 0 && !c->in_ready && !c->in_dirty) {
            *pp = c->zombie_next;
            free(c);
        } else {
            pp = &c->zombie_next;
        }
    }
}

static int hs_out_reserve(conn *c, size_t need)
{
    if (c->hs_out_sent == c->hs_out_len)
        c->hs_out_sent = c->hs_out_len = 0;
    if (c->hs_out_cap - c->hs_out_len >= need)
        return 0;
    size_t cap = c->hs_out_len + need;
    uint8_t *p = realloc(c->hs_out, cap);
    if (!p)
        return -ENOMEM;
    c->hs_out = p;
    c->hs_out_cap = cap;
    return 0;
}

static void accept_one(jbof_engine *e, int fd, int tcp)
{
    if (e->nconns >= e->cfg.max_connections || e->stopping) {
        close(fd);
        return;
    }
    conn *c = calloc(1, sizeof(*c));
    uint8_t *rx = malloc(RX_BYTES);
    if (!c || !rx) {
        free(c);
        free(rx);
        close(fd);
        return;
    }
    c->src.kind = SRC_CONN;
    c->fd = fd;
    c->rx = rx;
    c->state = C_HS;
    jbof_nbd_hs_init(&c->hs, JBOF_NBD_HS_OPTIONS_BASE + 4 * e->ntab);
    if (tcp) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    if (hs_out_reserve(c, jbof_nbd_hs_out_max(e->tab, e->ntab) + JBOF_NBD_GREETING_BYTES) < 0) {
        free(rx);
        free(c);
        close(fd);
        return;
    }
    c->hs_out_len = (size_t)jbof_nbd_greeting(c->hs_out, c->hs_out_cap);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = &c->src};
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        free(c->hs_out);
        free(rx);
        free(c);
        close(fd);
        return;
    }
    c->next = e->conns;
    if (e->conns)
        e->conns->prev = c;
    e->conns = c;
    e->nconns++;
    e->st.accepted++;
    c->readable = 1;
    ready_push(e, c);
    dirty_push(e, c);
}

static void on_listener(jbof_engine *e, listener *l)
{
    for (int i = 0; i < ACCEPTS_PER_EVENT; i++) {
        int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN, or a transient error: epoll reports again */
        accept_one(e, fd, l->path[0] == 0);
    }
}

/* -------------------------------------------------- request pipeline ---- */

static void reply_queue(jbof_engine *e, req *r, int status)
{
    conn *c = r->c;
    r->status = status;
    if (!c || c->state == C_DEAD) {
        req_put(e, r);
        return;
    }
    jbof_nbd_simple_reply(r->hdr, sizeof(r->hdr), r->handle, status);
    if (status) {
        r->x->st.error_replies++;
    } else if (r->type == JBOF_NBD_CMD_READ) {
        r->x->st.tx_payload_bytes += r->length;
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

static uint8_t op_of(uint16_t type)
{
    switch (type) {
    case JBOF_NBD_CMD_READ:
        return JBOF_OP_READ;
    case JBOF_NBD_CMD_WRITE:
        return JBOF_OP_WRITE;
    case JBOF_NBD_CMD_FLUSH:
        return JBOF_OP_FLUSH;
    case JBOF_NBD_CMD_TRIM:
        return JBOF_OP_TRIM;
    default:
        return JBOF_OP_WRITE_ZEROES;
    }
}

/* Offer r to its tenant's SQ.  1 = taken (or answered), 0 = parked. */
static int req_submit(jbof_engine *e, req *r)
{
    export *x = r->x;
    drive *d = x->d;
    jbof_io io;
    memset(&io, 0, sizeof(io));
    io.tag = r->idx;
    io.offset_bytes = r->offset;
    io.length_bytes = r->length;
    io.opcode = op_of(r->type);
    io.flags = (r->nflags & JBOF_NBD_CMD_FLAG_FUA) ? JBOF_IO_FUA : 0;
    io.nsid = (uint16_t)x->tid;
    io.tenant = x->tid;
    int rc = jbof_sched_submit(d->s, &io, e->now_ns);
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
    d->queued++;
    e->busy++;
    return 1;
}

/* Handle one decoded request header.  1 = consumed, 0 = wait (header left
 * in rx), -1 = connection closed. */
static int on_request(jbof_engine *e, conn *c, const jbof_nbd_request *nr)
{
    export *x = c->x;
    int rc = jbof_nbd_check_request(nr, &x->nbd);
    if (rc == -EMSGSIZE) {
        conn_close(e, c, 1);
        return -1;
    }
    if (rc == 0 && nr->type == JBOF_NBD_CMD_DISC) {
        c->rx_off += JBOF_NBD_REQUEST_BYTES;
        c->want_close = 1;
        dirty_push(e, c); /* the flush closes it once its replies are out */
        return 1;
    }
    if (rc == 0 && (e->stopping || x->removing))
        rc = -ESHUTDOWN;
    if (c->outstanding >= e->cfg.max_conn_requests) {
        c->wait = W_SELF;
        return 0;
    }
    req *r = req_get(e);
    if (!r) {
        wait_on(e, c, W_POOL);
        return 0;
    }
    int data = rc == 0 && (nr->type == JBOF_NBD_CMD_READ || nr->type == JBOF_NBD_CMD_WRITE) &&
               nr->length_bytes > 0;
    if (data) {
        r->buf = buf_get(&e->pool, nr->length_bytes, &r->buf_class);
        if (!r->buf) {
            r->c = NULL;
            req_put(e, r);
            wait_on(e, c, W_POOL);
            return 0;
        }
    }
    c->rx_off += JBOF_NBD_REQUEST_BYTES;
    r->c = c;
    r->x = x;
    r->handle = nr->handle;
    r->type = nr->type;
    r->nflags = nr->flags;
    r->offset = nr->offset_bytes;
    r->length = nr->length_bytes;
    c->outstanding++;
    x->st.requests++;
    e->st.requests++;
    if (rc < 0) {
        if (nr->type == JBOF_NBD_CMD_WRITE)
            c->discard = nr->length_bytes;
        reply_queue(e, r, rc);
        return 1;
    }
    if (nr->length_bytes == 0 && nr->type != JBOF_NBD_CMD_FLUSH) {
        reply_queue(e, r, 0);
        return 1;
    }
    if (nr->type == JBOF_NBD_CMD_WRITE) {
        r->state = R_PAYLOAD;
        c->cur = r;
        return 1;
    }
    req_submit(e, r);
    return 1;
}

/* Consume buffered input.  >0 progress, 0 need more bytes, -1 stop
 * (waiting or closed). */
static int conn_consume(jbof_engine *e, conn *c)
{
    uint8_t *in = c->rx + c->rx_off;
    uint32_t avail = c->rx_len - c->rx_off;
    if (c->state == C_HS) {
        if (e->stopping) {
            conn_close(e, c, 0);
            return -1;
        }
        if (hs_out_reserve(c, jbof_nbd_hs_out_max(e->tab, e->ntab)) < 0) {
            conn_close(e, c, 0);
            return -1;
        }
        int rc = jbof_nbd_hs_step(&c->hs, e->tab, e->ntab, in, avail, c->hs_out, c->hs_out_cap,
                                  &c->hs_out_len);
        if (rc < 0) {
            conn_close(e, c, 1);
            return -1;
        }
        if (rc == 0)
            return 0;
        c->rx_off += (uint32_t)rc;
        dirty_push(e, c);
        if (c->hs.state == JBOF_NBD_HS_DONE) {
            export *x = e->tab_x[c->hs.export_index];
            c->x = x;
            c->state = C_TX;
            x->nconns++;
            x->st.connections_total++;
            e->st.handshakes++;
        } else if (c->hs.state == JBOF_NBD_HS_ABORTED) {
            c->want_close = 1;
            return -1;
        }
        return 1;
    }
    if (c->want_close)
        return -1; /* nothing is read after DISC */
    if (c->discard) {
        uint32_t n = avail < c->discard ? avail : c->discard;
        c->rx_off += n;
        c->discard -= n;
        return n ? 1 : 0;
    }
    if (c->cur) {
        req *r = c->cur;
        uint32_t need = r->length - r->got;
        uint32_t n = avail < need ? avail : need;
        memcpy(r->buf + r->got, in, n);
        r->got += n;
        c->rx_off += n;
        if (r->got < r->length)
            return n ? 1 : 0;
        c->cur = NULL;
        r->x->st.rx_payload_bytes += r->length;
        req_submit(e, r);
        return 1;
    }
    jbof_nbd_request nr;
    int rc = jbof_nbd_parse_request(in, avail, &nr);
    if (rc < 0) {
        conn_close(e, c, 1);
        return -1;
    }
    if (rc == 0)
        return 0;
    rc = on_request(e, c, &nr);
    return rc > 0 ? 1 : -1;
}

/* Read and consume until the socket is empty, the connection must wait,
 * or its read budget for this iteration is spent. */
static void conn_work(jbof_engine *e, conn *c)
{
    int reads = 0;
    for (;;) {
        if (c->state == C_DEAD || c->wait != W_NONE)
            return;
        if (c->parked) {
            req *r = c->parked;
            c->parked = NULL;
            if (!req_submit(e, r))
                return;
        }
        int rc = conn_consume(e, c);
        if (rc < 0)
            return;
        if (rc > 0)
            continue;
        if (!c->readable)
            return;
        if (reads++ >= READS_PER_TURN) {
            ready_push(e, c); /* still readable: next iteration */
            return;
        }
        ssize_t n;
        req *r = c->cur;
        if (r && c->rx_off == c->rx_len && r->length - r->got >= DIRECT_READ_MIN) {
            /* large payload: straight into the request buffer */
            c->rx_off = c->rx_len = 0;
            n = read(c->fd, r->buf + r->got, r->length - r->got);
            if (n > 0) {
                r->got += (uint32_t)n;
                if (r->got == r->length) {
                    c->cur = NULL;
                    r->x->st.rx_payload_bytes += r->length;
                    req_submit(e, r);
                }
                continue;
            }
        } else {
            if (c->rx_off) {
                memmove(c->rx, c->rx + c->rx_off, c->rx_len - c->rx_off);
                c->rx_len -= c->rx_off;
                c->rx_off = 0;
            }
            n = read(c->fd, c->rx + c->rx_len, RX_BYTES - c->rx_len);
            if (n > 0) {
                c->rx_len += (uint32_t)n;
                continue;
            }
        }
        if (n == 0) {
            conn_close(e, c, 0); /* client went away */
            return;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            c->readable = 0;
            return;
        }
        if (errno == EINTR)
            continue;
        conn_close(e, c, 0);
        return;
    }
}

/* Send handshake output and queued replies: one sendmsg per batch. */
static void conn_flush(jbof_engine *e, conn *c)
{
    while (c->state != C_DEAD && c->hs_out_sent < c->hs_out_len) {
        ssize_t n = send(c->fd, c->hs_out + c->hs_out_sent, c->hs_out_len - c->hs_out_sent,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_close(e, c, 0);
            return;
        }
        c->hs_out_sent += (size_t)n;
    }
    while (c->state != C_DEAD && c->out_head) {
        struct iovec iov[IOV_BATCH];
        int k = 0;
        size_t total = 0;
        for (req *r = c->out_head; r && k + 2 <= IOV_BATCH; r = r->next) {
            uint32_t dlen = (r->type == JBOF_NBD_CMD_READ && r->status == 0) ? r->length : 0;
            if (r->sent < JBOF_NBD_REPLY_BYTES) {
                iov[k].iov_base = r->hdr + r->sent;
                iov[k].iov_len = JBOF_NBD_REPLY_BYTES - r->sent;
                total += iov[k++].iov_len;
            }
            uint32_t dsent = r->sent > JBOF_NBD_REPLY_BYTES ? r->sent - JBOF_NBD_REPLY_BYTES : 0;
            if (dlen > dsent) {
                iov[k].iov_base = r->buf + dsent;
                iov[k].iov_len = dlen - dsent;
                total += iov[k++].iov_len;
            }
        }
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)k};
        ssize_t n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_close(e, c, 0);
            return;
        }
        size_t left = (size_t)n;
        while (c->out_head && left) {
            req *r = c->out_head;
            uint32_t full = JBOF_NBD_REPLY_BYTES +
                            ((r->type == JBOF_NBD_CMD_READ && r->status == 0) ? r->length : 0);
            uint32_t take = (uint32_t)((full - r->sent) < left ? (full - r->sent) : left);
            r->sent += take;
            left -= take;
            if (r->sent == full) {
                c->out_head = r->next;
                if (!c->out_head)
                    c->out_tail = NULL;
                req_put(e, r);
            }
        }
        if ((size_t)n < total)
            return; /* socket full: EPOLLOUT resumes us */
    }
    if (c->state != C_DEAD && c->want_close && c->outstanding == 0 && !c->out_head &&
        c->hs_out_sent == c->hs_out_len)
        conn_close(e, c, 0);
}

/* ------------------------------------------------------------ drives ---- */

static int status_of(int32_t st)
{
    if (st >= 0)
        return 0;
    if (st == -ENOSPC || st == -EDQUOT || st == -EFBIG)
        return -ENOSPC;
    return -EIO;
}

static void complete_breq(jbof_engine *e, drive *d, jbof_breq *br)
{
    req *r = br->owner;
    int32_t st = br->status;
    d->inflight--;
    d->be->inflight--;
    d->be->completed++;
    if (d->error_every && ++d->ios % d->error_every == 0 && st == 0)
        st = -EIO; /* injected */
    if (st < 0)
        d->be->errors++;
    /* A backend that knows when it finished (memory, emulated) says so in
     * due_ns: the controller must see the drive's latency, not how late
     * this thread woke up to notice. */
    uint64_t t = (br->due_ns && br->due_ns < e->now_ns) ? br->due_ns : e->now_ns;
    jbof_sched_complete(d->s, &r->io, t, st < 0 ? st : 0);
    e->busy--;
    reply_queue(e, r, status_of(st));
}

/* Reap, dispatch, submit, kick.  Returns 1 if anything moved. */
static int drive_pump(jbof_engine *e, drive *d)
{
    int moved = 0;
    jbof_breq *done[BATCH];
    int n;
    while ((n = d->be->ops->reap(d->be, done, BATCH, e->now_ns)) > 0) {
        for (int i = 0; i < n; i++)
            complete_breq(e, d, done[i]);
        moved = 1;
        if (n < BATCH)
            break;
    }
    int dispatched = 0;
    int hold = e->exiting; /* past the drain deadline: dispatch nothing new */
    while (!hold && d->queued) {
        jbof_io ios[BATCH];
        n = jbof_sched_dispatch(d->s, e->now_ns, ios, BATCH);
        if (n <= 0)
            break;
        for (int i = 0; i < n; i++) {
            req *r = &e->slots[ios[i].tag];
            r->io = ios[i];
            r->state = R_INFLIGHT;
            r->x->credit_freed = 1;
            d->queued--;
            d->inflight++;
            jbof_breq *br = &r->br;
            br->owner = r;
            br->buf = r->buf;
            br->offset_bytes = r->x->base + r->offset;
            br->length_bytes = r->length;
            br->op = r->io.opcode;
            br->flags = (uint8_t)((r->io.flags & JBOF_IO_FUA) |
                                  ((r->nflags & JBOF_NBD_CMD_FLAG_NO_HOLE) ? JBOF_BREQ_NO_HOLE : 0));
            br->status = 0;
            br->due_ns = 0;
            br->next = NULL;
            d->be->inflight++;
            d->be->submitted++;
            int rc = d->be->ops->submit(d->be, br, e->now_ns);
            if (rc < 0) {
                br->status = rc;
                complete_breq(e, d, br);
            }
        }
        dispatched += n;
        if (n < BATCH)
            break;
    }
    if (dispatched || d->be->ops->next_due_ns(d->be) == 0)
        d->be->ops->kick(d->be);
    return moved || dispatched;
}

static void wake_credit_waiters(jbof_engine *e)
{
    for (uint32_t i = 0; i < e->nx; i++) {
        export *x = e->xs[i];
        if (x->credit_freed) {
            x->credit_freed = 0;
            wake_all(e, &x->waiters, x);
        }
    }
    if (e->pool_freed) {
        e->pool_freed = 0;
        wake_all(e, &e->pool_waiters, NULL);
    }
}

static void run_ready(jbof_engine *e)
{
    conn *list = e->ready;
    e->ready = e->ready_tail = NULL;
    while (list) {
        conn *c = list;
        list = c->ready_next;
        c->in_ready = 0;
        conn_work(e, c);
    }
}

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
    e->ntab = k;
}

static export *find_export(jbof_engine *e, const char *name)
{
    if (!name)
        return NULL;
    for (uint32_t i = 0; i < e->nx; i++)
        if (strcmp(e->xs[i]->name, name) == 0)
            return e->xs[i];
    return NULL;
}

/* First fit of size bytes on drive d, aligned to 1 MiB when it can be. */
static int ns_alloc(jbof_engine *e, drive *d, uint64_t size, uint64_t *base_out)
{
    uint64_t align = 1ull << 20;
    if (size % align)
        align = d->block_bytes > PREF_BLOCK_BYTES ? d->block_bytes : PREF_BLOCK_BYTES;
    uint64_t cand = 0;
    for (;;) {
        cand = (cand + align - 1) / align * align;
        if (cand > d->size_bytes || size > d->size_bytes - cand)
            return -ENOSPC;
        int clash = 0;
        for (uint32_t i = 0; i < e->nx; i++) {
            export *x = e->xs[i];
            if (x->d != d)
                continue;
            if (cand < x->base + x->size && x->base < cand + size) {
                cand = x->base + x->size;
                clash = 1;
                break;
            }
        }
        if (!clash) {
            *base_out = cand;
            return 0;
        }
    }
}

static int export_add(jbof_engine *e, const jbof_export_cfg *cfg)
{
    size_t nlen = strnlen(cfg->name, sizeof(cfg->name));
    if (nlen == 0 || nlen > JBOF_NBD_NAME_MAX_BYTES || cfg->drive >= e->ndrives)
        return -EINVAL;
    if (find_export(e, cfg->name))
        return -EEXIST;
    if (e->nx >= e->cfg.max_exports)
        return -ENOSPC;
    drive *d = e->drives[cfg->drive];
    if (cfg->size_bytes == 0 || cfg->size_bytes % d->block_bytes)
        return -EINVAL;
    uint64_t base;
    int rc = ns_alloc(e, d, cfg->size_bytes, &base);
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
    memcpy(x->name, cfg->name, nlen);
    x->name[nlen] = 0;
    x->name_len = (uint32_t)nlen;
    x->d = d;
    x->read_only = cfg->read_only ? 1 : 0;
    x->base = base;
    x->size = cfg->size_bytes;
    x->nbd.name = x->name;
    x->nbd.name_len = x->name_len;
    x->nbd.size_bytes = x->size;
    x->nbd.min_block_bytes = d->block_bytes;
    x->nbd.pref_block_bytes = d->block_bytes > PREF_BLOCK_BYTES ? d->block_bytes : PREF_BLOCK_BYTES;
    x->nbd.max_payload_bytes = JBOF_NBD_MAX_PAYLOAD_BYTES;
    x->nbd.tflags = jbof_nbd_tflags(x->read_only);
    d->allocated_bytes += x->size;
    d->nexports++;
    e->xs[e->nx++] = x;
    rebuild_tab(e);
    return 0;
}

/* 0 when removed, -EINPROGRESS while its IO drains. */
static int export_remove_step(jbof_engine *e, export *x)
{
    if (!x->removing) {
        x->removing = 1;
        rebuild_tab(e);
        for (conn *c = e->conns, *nx; c; c = nx) {
            nx = c->next;
            if (c->x == x)
                conn_close(e, c, 0);
        }
        /* lift its limit so queued IO drains at once */
        jbof_tenant_stats ts;
        if (jbof_sched_tenant_stats(x->d->s, x->tid, &ts) == 0 && ts.queued) {
            jbof_tenant_cfg tc;
            jbof_tenant_default_cfg(&tc);
            tc.sq_depth = ts.queued > tc.sq_depth ? ts.queued : tc.sq_depth;
            jbof_sched_tenant_set(x->d->s, x->tid, &tc, e->now_ns);
        }
    }
    int rc = jbof_sched_tenant_remove(x->d->s, x->tid);
    if (rc == -EBUSY)
        return -EINPROGRESS;
    if (rc < 0 && rc != -ENOENT)
        return rc;
    x->d->allocated_bytes -= x->size;
    x->d->nexports--;
    uint32_t i = 0;
    while (i < e->nx && e->xs[i] != x)
        i++;
    for (; i + 1 < e->nx; i++)
        e->xs[i] = e->xs[i + 1];
    e->nx--;
    free(x);
    rebuild_tab(e);
    return 0;
}

static void export_stats_fill(jbof_engine *e, export *x, jbof_export_stats *out)
{
    (void)e;
    *out = x->st;
    jbof_sched_tenant_stats(x->d->s, x->tid, &out->tenant);
    out->ns_base_bytes = x->base;
    out->size_bytes = x->size;
    out->drive = x->d->id;
    out->read_only = x->read_only;
    out->connections = x->nconns;
    out->stalled = x->nstalled;
}

static void drive_info_fill(drive *d, jbof_drive_info *out)
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
        return x ? export_remove_step(e, x) : -ENOENT;
    case CMD_EXPORT_SET:
        x = find_export(e, k->name);
        if (!x || x->removing)
            return -ENOENT;
        return jbof_sched_tenant_set(x->d->s, x->tid, k->in, e->now_ns);
    case CMD_EXPORT_STATS:
        x = find_export(e, k->name);
        if (!x)
            return -ENOENT;
        export_stats_fill(e, x, k->out);
        return 0;
    case CMD_EXPORT_HIST:
        x = find_export(e, k->name);
        return x ? jbof_sched_tenant_hist(x->d->s, x->tid, k->out) : -ENOENT;
    case CMD_DRIVE_POLICY:
        if (k->drive >= e->ndrives)
            return -ENOENT;
        return jbof_sched_set_policy(e->drives[k->drive]->s, k->policy, e->now_ns);
    case CMD_DRIVE_CONFIGURE:
        if (k->drive >= e->ndrives)
            return -ENOENT;
        return jbof_sched_configure(e->drives[k->drive]->s, k->in, e->now_ns);
    case CMD_DRIVE_GET_CFG:
        if (k->drive >= e->ndrives)
            return -ENOENT;
        return jbof_sched_get_cfg(e->drives[k->drive]->s, k->out);
    case CMD_DRIVE_STATS:
        if (k->drive >= e->ndrives)
            return -ENOENT;
        drive_info_fill(e->drives[k->drive], k->out);
        return 0;
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
    pthread_mutex_unlock(&e->mu);
    /* retry deferred ones first (export removal waiting for IO to drain) */
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

/* Run a command: through the reactor thread when it runs, else here. */
static int cmd_run(jbof_engine *e, cmd *k)
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
    uint64_t one = 1;
    ssize_t w = write(e->cmd_fd, &one, sizeof(one));
    (void)w; /* a full counter still wakes the reactor */
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
        if (e->drives[i]->inflight)
            return 0;
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
        d->pending_reap = 1;
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
        uint64_t due = d->be->ops->next_due_ns(d->be);
        if (due < t)
            t = due;
        if (d->queued && !e->exiting) {
            uint64_t ev = jbof_sched_next_event_ns(d->s, e->now_ns);
            if (ev < t)
                t = ev;
        }
    }
    if (e->stopping && !e->exiting && e->stop_deadline_ns < t)
        t = e->stop_deadline_ns;
    return t;
}

static int stop_done(jbof_engine *e)
{
    if (!e->exiting && e->now_ns >= e->stop_deadline_ns)
        e->exiting = 1; /* stop dispatching; wait for the backends only */
    return (e->busy == 0 && all_flushed(e)) || (e->exiting && backends_idle(e));
}

static void iteration(jbof_engine *e)
{
    struct epoll_event evs[EVENTS_MAX];
    e->now_ns = mono_ns();
    run_commands(e);
    if (e->stopping && stop_done(e)) {
        e->leave = 1;
        return;
    }
    uint64_t dl = e->ready ? 0 : next_deadline(e);
    struct timespec ts, *tsp = NULL;
    if (dl != UINT64_MAX) {
        uint64_t wait = dl > e->now_ns ? dl - e->now_ns : 0;
        ts.tv_sec = (time_t)(wait / 1000000000ull);
        ts.tv_nsec = (long)(wait % 1000000000ull);
        tsp = &ts;
    }
    int n = epoll_pwait2(e->epfd, evs, EVENTS_MAX, tsp, NULL);
    e->now_ns = mono_ns();
    e->st.loops++;
    for (int i = 0; i < n; i++)
        on_event(e, &evs[i]);

    for (int round = 0; round < PUMP_ROUNDS; round++) {
        if (round)
            e->now_ns = mono_ns(); /* completions of the last round are timed now */
        run_ready(e);
        int moved = 0;
        for (uint32_t i = 0; i < e->ndrives; i++) {
            e->drives[i]->pending_reap = 0;
            moved |= drive_pump(e, e->drives[i]);
        }
        wake_credit_waiters(e);
        if (!moved && !e->ready)
            break;
    }
    while (e->dirty) {
        conn *c = e->dirty;
        e->dirty = c->dirty_next;
        c->in_dirty = 0;
        conn_flush(e, c);
    }
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
    e->ready = e->ready_tail = NULL;
    e->dirty = NULL;
    /* requests still in an SQ (drain deadline passed) are dropped here */
    for (uint32_t i = 0; i < e->cfg.max_requests; i++) {
        req *r = &e->slots[i];
        if (r->state == R_QUEUED) {
            e->busy--;
            req_put(e, r);
        }
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
    if (c.max_connections > 65536 || c.max_requests > (1u << 20) || c.max_exports > 65536 ||
        c.buffer_bytes < JBOF_NBD_MAX_PAYLOAD_BYTES)
        return -EINVAL;
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
    *out = e;
    return 0;
}

int jbof_engine_add_drive(jbof_engine *e, const jbof_drive_cfg *cfg, uint32_t *id_out)
{
    if (!e || !cfg || cfg->backend >= JBOF_BACKEND_KIND_COUNT)
        return -EINVAL;
    if (e->started)
        return -EBUSY;
    if (e->ndrives >= MAX_DRIVES)
        return -ENOSPC;
    if (cfg->block_bytes && (cfg->block_bytes & (cfg->block_bytes - 1)))
        return -EINVAL;
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
    if (rc == 0)
        rc = jbof_sched_create(&cfg->sched, &d->s);
    if (rc < 0) {
        if (d->be)
            d->be->ops->destroy(d->be);
        free(d);
        return rc;
    }
    d->src.kind = SRC_BACKEND;
    d->id = e->ndrives;
    d->kind = cfg->backend;
    d->error_every = cfg->error_every;
    memcpy(d->name, cfg->name, sizeof(d->name));
    d->name[sizeof(d->name) - 1] = 0;
    uint32_t blk = cfg->block_bytes ? cfg->block_bytes : 512;
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
    if (id_out)
        *id_out = d->id;
    return 0;
}

static int add_listener(jbof_engine *e, int fd, const char *path)
{
    listener *l = &e->lst[e->nlst];
    l->src.kind = SRC_LISTENER;
    l->fd = fd;
    l->path[0] = 0;
    if (path)
        snprintf(l->path, sizeof(l->path), "%s", path);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &l->src};
    if (listen(fd, 256) < 0 || epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        int rc = -errno;
        close(fd);
        l->fd = -1;
        return rc;
    }
    e->nlst++;
    return 0;
}

int jbof_engine_listen_unix(jbof_engine *e, const char *path)
{
    if (!e || !path || !path[0])
        return -EINVAL;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    if (e->started)
        return -EBUSY;
    if (e->nlst >= MAX_LISTENERS)
        return -ENOSPC;
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        /* a socket file left behind: reuse it only if nobody answers */
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int live = probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0;
        if (probe >= 0)
            close(probe);
        if (live) {
            close(fd);
            return -EADDRINUSE;
        }
        unlink(path);
    }
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    return add_listener(e, fd, path);
}

int jbof_engine_listen_tcp(jbof_engine *e, const char *host, uint16_t port, uint16_t *port_out)
{
    if (!e || !host)
        return -EINVAL;
    if (e->started)
        return -EBUSY;
    if (e->nlst >= MAX_LISTENERS)
        return -ENOSPC;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    socklen_t sl;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons(port);
        sl = sizeof(*s4);
    } else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(port);
        sl = sizeof(*s6);
    } else {
        return -EINVAL;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, sl) < 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    if (port_out) {
        socklen_t l = sizeof(ss);
        getsockname(fd, (struct sockaddr *)&ss, &l);
        *port_out = ntohs(ss.ss_family == AF_INET ? s4->sin_port : s6->sin6_port);
    }
    return add_listener(e, fd, NULL);
}

int jbof_engine_start(jbof_engine *e)
{
    if (!e)
        return -EINVAL;
    pthread_mutex_lock(&e->mu);
    if (e->started) {
        pthread_mutex_unlock(&e->mu);
        return -EBUSY;
    }
    e->running = 1;
    int rc = pthread_create(&e->thread, NULL, reactor_main, e);
    if (rc != 0) {
        e->running = 0;
        pthread_mutex_unlock(&e->mu);
        return -rc;
    }
    e->started = 1;
    pthread_mutex_unlock(&e->mu);
    return 0;
}

int jbof_engine_stop(jbof_engine *e)
{
    if (!e)
        return -EINVAL;
    pthread_mutex_lock(&e->mu);
    int joinable = e->started == 1;
    if (joinable)
        e->started = 2; /* one caller joins */
    pthread_mutex_unlock(&e->mu);
    if (!joinable)
        return 0;
    cmd k = {.type = CMD_STOP};
    cmd_run(e, &k);
    pthread_join(e->thread, NULL);
    return 0;
}

void jbof_engine_destroy(jbof_engine *e)
{
    if (!e)
        return;
    jbof_engine_stop(e);
    for (conn *c = e->conns, *nx; c; c = nx) {
        nx = c->next;
        conn_close(e, c, 0);
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
    for (uint32_t i = 0; i < e->ndrives; i++) {
        drive *d = e->drives[i];
        d->be->ops->destroy(d->be);
        jbof_sched_destroy(d->s);
        free(d);
    }
    for (uint32_t i = 0; i < e->cfg.max_requests; i++)
        if (e->slots[i].buf)
            buf_put(&e->pool, e->slots[i].buf, e->slots[i].buf_class);
    buf_pool_free(&e->pool);
    close(e->epfd);
    close(e->cmd_fd);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e->slots);
    free(e->xs);
    free(e->tab);
    free(e->tab_x);
    free(e);
}

int jbof_engine_export_add(jbof_engine *e, const jbof_export_cfg *cfg)
{
    if (!e || !cfg)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_ADD, .in = cfg};
    return cmd_run(e, &k);
}

int jbof_engine_export_remove(jbof_engine *e, const char *name)
{
    if (!e || !name)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_REMOVE, .name = name};
    return cmd_run(e, &k);
}

int jbof_engine_export_set(jbof_engine *e, const char *name, const jbof_tenant_cfg *cfg)
{
    if (!e || !name || !cfg)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_SET, .name = name, .in = cfg};
    return cmd_run(e, &k);
}

int jbof_engine_export_stats(jbof_engine *e, const char *name, jbof_export_stats *out)
{
    if (!e || !name || !out)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_STATS, .name = name, .out = out};
    return cmd_run(e, &k);
}

int jbof_engine_export_hist(jbof_engine *e, const char *name, jbof_hist *out)
{
    if (!e || !name || !out)
        return -EINVAL;
    cmd k = {.type = CMD_EXPORT_HIST, .name = name, .out = out};
    return cmd_run(e, &k);
}

int jbof_engine_drive_set_policy(jbof_engine *e, uint32_t drive_id, uint32_t policy)
{
    if (!e || policy >= JBOF_POLICY_COUNT)
        return -EINVAL;
    cmd k = {.type = CMD_DRIVE_POLICY, .drive = drive_id, .policy = policy};
    return cmd_run(e, &k);
}

int jbof_engine_drive_configure(jbof_engine *e, uint32_t drive_id, const jbof_sched_cfg *cfg)
{
    if (!e || !cfg)
        return -EINVAL;
    cmd k = {.type = CMD_DRIVE_CONFIGURE, .drive = drive_id, .in = cfg};
    return cmd_run(e, &k);
}

int jbof_engine_drive_get_cfg(jbof_engine *e, uint32_t drive_id, jbof_sched_cfg *out)
{
    if (!e || !out)
        return -EINVAL;
    cmd k = {.type = CMD_DRIVE_GET_CFG, .drive = drive_id, .out = out};
    return cmd_run(e, &k);
}

int jbof_engine_drive_stats(jbof_engine *e, uint32_t drive_id, jbof_drive_info *out)
{
    if (!e || !out)
        return -EINVAL;
    cmd k = {.type = CMD_DRIVE_STATS, .drive = drive_id, .out = out};
    return cmd_run(e, &k);
}

int jbof_engine_get_stats(jbof_engine *e, jbof_engine_stats *out)
{
    if (!e || !out)
        return -EINVAL;
    cmd k = {.type = CMD_ENGINE_STATS, .out = out};
    return cmd_run(e, &k);
}
