/*
 * reactor.h -- the live NBD target ("the reactor"), private declarations
 * shared by its four files, and the overview a newcomer should read first.
 * An event-loop thread accepts NBD connections, feeds every request
 * through its tenant's scheduler, drives the backends and replies; an
 * engine runs one such thread or several (section 7).  These are the only
 * files of the core that touch sockets, threads and the clock.
 *
 *   engine.c  public jbof_engine_* lifecycle and control API, the command
 *             queue (Python threads -> reactor), the thread, the loop, stop
 *   conn.c    listeners, accept, handshake, read/parse, flush/send
 *   io.c      buffer pool, request slots, wait lists, submit to the
 *             scheduler, the drive pump (dispatch -> backend -> reap), reply
 *   export.c  drives, exports and their namespaces: add/remove/set, stats
 *   scrub.c   removed namespaces read as zeroes to the next owner (lazy)
 *   budget.c  per-tenant budgets (buffers, slots, connections) and the
 *             handshake guard (deadline, idle limit, cap, per-peer rate)
 *   backend.h the backend interface (backend_*.c; backend_error.c filters)
 *   tls.c     who may connect: STARTTLS + TLS-PSK (GnuTLS), per-export
 *             access rules (identity, unix peer uid/gid), the transport
 *             (conn_recv / conn_sendv: plain socket or TLS record layer)
 *
 * Nothing here is global: every function takes the engine -- one reactor's
 * state, see section 7.  Only engine.c reads the clock (e->now_ns, once per
 * loop iteration and pump round).
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
 *    whatever the clients send.  Inside those shared limits every tenant
 *    has its own budget of slots, buffer bytes and connections, and
 *    connections still in the handshake have theirs (budget.c): a tenant
 *    that stops reading its replies stops only its own intake.
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
 * 5c. Requests that move no data.  BLOCK_STATUS (base:allocation) and
 *    CACHE are answered in the parse step, in the reactor thread, and never
 *    enter a scheduler: they cost the tenant nothing and wait behind no
 *    one.  BLOCK_STATUS asks the backend's extents op (metadata: a bitmap
 *    of written chunks for RAM stores, SEEK_DATA/SEEK_HOLE for files, "all
 *    data" for block devices) for the drive range [base + offset, base +
 *    offset + length), so a tenant only ever sees its own namespace.  The
 *    answer is the store as of the parse: every write whose reply the
 *    client had before sending the request is in it (conn.c block_status).
 *    Replies have a header of 16 (simple) to 28 (READ chunk) bytes and a
 *    payload taken from the request's buffer (req.hdr_len, req.dlen).
 *
 * 6. Graceful stop: close the listeners, drop connections still in the
 *    handshake, answer new requests with ESHUTDOWN, let queued and
 *    in-flight IO finish (bounded by drain_timeout_ns; IO already inside a
 *    backend is always waited for), send the replies, sync every backend,
 *    close everything.
 *
 * 7. Several reactors (jbof_engine_cfg.reactors = N, default 1).  One core
 *    serves ~300-400K IOPS; a JBOF has many drives of that much each, so an
 *    engine may run N reactor threads.  Each is a struct jbof_engine of its
 *    own -- epoll set, command queue (mu + eventfd), drives, exports,
 *    connections, slots, buffer pool, budgets, stats -- touched by its
 *    thread only.  Reactor 0 is the handle the API gets (e->root == e): it
 *    also owns the listeners, the handshakes, the TLS keys (sec, shared,
 *    own mutex) and the export directory; e->rs[] lists the reactors.
 *      a. A drive belongs to one reactor for its life (drive cfg reactor,
 *         -1 = round robin by id; root->drive_home[id]), so its scheduler,
 *         backend and tenants are only ever touched by that thread: the
 *         scheduler stays lock-free.  Slots, buffer_bytes and the limits
 *         of jbof_engine_cfg apply per reactor.
 *      b. The directory: the root's codec table (tab) lists its own exports
 *         and a stub (d == NULL, home = owner) of every other reactor's.
 *         Export add runs on the drive's reactor, then CMD_STUB_ADD on the
 *         root, which keeps names (and the default export) unique
 *         engine-wide; on -EEXIST the add is undone.  Remove drops the stub
 *         first (no new handshake finds it), then the export on its reactor.
 *         Stats, set, hist go to the reactor that has the name; drive
 *         commands to drive_home; engine stats are summed.
 *      c. Handoff: when a handshake on the root picks a stub, conn_move
 *         forgets the connection (epoll, list, nhs) and marks it C_MOVE;
 *         after this iteration's flush no list refers to it and
 *         send_movers appends it to the target's adopt queue (under the
 *         target's mu) and writes its eventfd.  The target's run_commands
 *         calls conn_adopt: find the export by name (gone or stopping:
 *         close), apply its connection cap, add the fd to its epoll, read.
 *         The connection carries its rx leftover, the unsent last
 *         handshake reply, the codec state and the TLS session; it holds
 *         no slot, buffer or tenant budget yet, so nothing is handed over
 *         but the object.  From then on every IO of that tenant is parsed,
 *         scheduled, executed and replied on its drive's reactor.
 *      d. Start: reactors N-1 .. 0; stop: reactor 0 (no more handoffs)
 *         then the others (a connection adopted while stopping is closed).
 *    Worked example: reactors 2, drive 0 on reactor 0, drive 1 on reactor
 *    1 with tenant "b".  A client connects: reactor 0 accepts, sends the
 *    greeting, reads NBD_OPT_GO "b", answers with b's stub (size, flags),
 *    sees home 1: conn_move; its first READ header, already in rx, moves
 *    with it.  Reactor 1 adopts it, flushes the GO reply, parses the READ
 *    from rx, submits it to drive 1's scheduler, replies.  reactor_stats:
 *    reactor 0 accepted 1, handoffs_out 1, requests 0; reactor 1
 *    handoffs_in 1 and every request of "b".
 */
#ifndef JBOF_REACTOR_H
#define JBOF_REACTOR_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "backend.h"
#include "jbof_nbd.h"
#include "jbof_tls.h"

enum {
    RX_BYTES = 65536,          /* per-connection receive buffer */
    MAX_DRIVES = 64,
    MAX_LISTENERS = 8,
    MAX_REACTORS = 64,
    EVENTS_MAX = 256,
    BATCH = 64,                /* dispatch / reap batch */
    ZERO_PIECE_BYTES = 1 << 20,/* a zeroing that writes goes to the scheduler in pieces
                                * of this (cost.c section 6) */
    IOV_BATCH = 64,            /* iovecs per sendmsg */
    READS_PER_TURN = 4,        /* read() calls per connection per iteration */
    DIRECT_READ_MIN = 16384,   /* payload rest read straight into the request buffer */
    ACCEPTS_PER_EVENT = 8,        /* accept() per listener per iteration: a connect flood waits in the backlog, not in our loop */
    PUMP_ROUNDS = 16,          /* drive pump repetitions per iteration */
    BUF_MIN_SHIFT = 12,        /* buffer classes: 4 KiB .. 32 MiB */
    BUF_CLASSES = 14,
    PREF_BLOCK_BYTES = 4096,
};

/* export.c 4: how long a removed export's connections may take to send
 * their last (ESHUTDOWN) replies before they are closed regardless. */
#define REMOVE_LINGER_NS 250000000ull


enum src_kind { SRC_LISTENER = 1, SRC_CONN = 2, SRC_CMD = 3, SRC_BACKEND = 4 };

typedef struct evsrc {
    uint32_t kind;
    uint32_t idx;
} evsrc;

enum req_state { R_FREE = 0, R_PAYLOAD, R_PARKED, R_QUEUED, R_INFLIGHT, R_REPLY };
enum conn_state { C_HS = 0, C_TX = 1, C_DEAD = 2, C_MOVE = 3 /* leaving for another reactor */ };
enum wait_kind { W_NONE = 0, W_CREDIT, W_POOL, W_SELF, W_TENANT };

struct conn;
struct export;
struct drive;
struct sec_conn;   /* tls.c: a connection's TLS session, peer identity, export view */
struct sec_engine; /* tls.c: PSK keys, access rules, counters */

/* One NBD request from header to reply.  Its IO is described once, in
 * br.io (a jbof_io inside the backend request): the parser fills it (tag =
 * slot index, drive offset, length, opcode, FUA / NO_HOLE flags, tenant),
 * the scheduler and the backend read it, the reply reads its length.  It is
 * never copied: jbof_sched_submit keeps a pointer to br.io in the tenant's
 * SQ ring (ABI 3) and fills submit_ns, cost and gen in place; dispatch
 * hands the same pointer back with dispatch_ns and slot set, and
 * drive_pump finds the request by tag.  (Up to ABI 2 the SQ held a copy,
 * so an IO's 56 bytes went into the SQ, out into the dispatch buffer and
 * back into br.io; a head visit now reads the slot instead of the ring --
 * one cache line per queued IO either way, but no longer two copies.) */
typedef struct req {
    jbof_breq br;              /* br.io: the IO; br.buf: its data; br.owner == this */
    struct conn *c;
    struct export *x;
    struct req *next;          /* free list / reply queue */
    int32_t buf_class;         /* -1: no buffer */
    uint32_t idx;
    uint32_t sent;             /* reply bytes already sent */
    uint32_t got;              /* WRITE payload bytes received */
    int32_t status;
    uint64_t handle;
    uint16_t type;             /* enum jbof_nbd_cmd */
    uint8_t state;
    uint8_t hdr_len;           /* reply header bytes in hdr (simple 16, chunk 20..28) */
    uint32_t dlen;             /* reply payload bytes from br.buf after hdr (READ data,
                                * BLOCK_STATUS extents); set by reply_queue */
    uint8_t hdr[JBOF_NBD_HDR_MAX_BYTES];
    struct export *bx;         /* the tenant whose budget this slot is charged to */
    uint32_t charged;          /* buffer bytes charged to bx */
    uint32_t zero_left;        /* a zeroing that writes, split (cost.c section 6): bytes
                                * after the piece in br.io */
    uint8_t zero_fua;          /* its FUA, kept for the last piece */
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
    uint8_t heard;             /* the client has sent at least one byte */
    uint64_t accept_ns;        /* handshake deadline and idle limit start here */
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
    struct sec_conn *sec;      /* tls.c: TLS session, peer identity (never NULL once accepted) */
    struct conn *move_next;    /* movers (listener reactor) / adopt queue (target) */
    uint32_t home;             /* C_MOVE: the reactor it goes to */
    char xname[JBOF_NBD_NAME_MAX_BYTES + 1]; /* C_MOVE: the export it opened */
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
    uint64_t linger_until_ns;  /* removing: its connections close by then (export.c 4) */
    /* io.c: zero-throughput time while IO is outstanding (issue 11's
     * "stall"), the server's view: IO in its SQ or backend, no completion */
    uint32_t sched_ios;        /* submitted to the scheduler, not completed or flushed */
    uint64_t busy_since_ns;    /* when sched_ios last went 0 -> 1 */
    uint64_t last_done_ns;     /* last completion */
    uint64_t stall_max_ns;
    uint32_t credit_freed;     /* IO left the SQ this round: resume waiters */
    uint32_t nconns;
    uint32_t nstalled;
    uint64_t base, size;
    char desc[JBOF_NBD_DESC_MAX_BYTES + 1];
    uint32_t is_default;
    uint32_t home;             /* the reactor that owns it (section 7) */
    jbof_nbd_export nbd;       /* the codec's view */
    jbof_export_stats st;      /* reactor-side counters */
    wlist waiters;             /* connections stalled for credits */
    /* budget.c: what this tenant may hold and holds */
    uint64_t buf_budget, buf_used;
    uint32_t slot_budget, slots_used;
    uint32_t conn_budget;
    uint32_t budget_freed;     /* something was released: resume budget_waiters */
    uint64_t cfg_buf;          /* configured (0 = engine default) */
    uint32_t cfg_slots, cfg_conns;
    wlist budget_waiters;      /* connections stalled on this tenant's budget */
} export;

/* The stall tracker: how long x has had IO outstanding with nothing
 * completed (meaningful while x->sched_ios > 0). */
static inline uint64_t export_stall_ns(const export *x, uint64_t now_ns)
{
    uint64_t from = x->last_done_ns > x->busy_since_ns ? x->last_done_ns : x->busy_since_ns;
    return now_ns > from ? now_ns - from : 0;
}

typedef struct scrub_ext {
    uint64_t off, len;
} scrub_ext;

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
    uint32_t zero_cost;        /* enum jbof_zero_cost (cost.c section 6) */
    struct req *zwait_head, *zwait_tail; /* next pieces of split zeroings waiting for
                                * room in their tenant's SQ (linked by next) */
    uint32_t zero_fresh;       /* a piece was offered after this pump's dispatch, or
                                * waits while IO moved: pump again before sleeping */
    /* scrub.c: freed namespace space not yet zeroed, sorted, disjoint */
    scrub_ext *dirty;
    uint32_t ndirty, dirty_cap;
    uint64_t scrub_pending, scrubbed;
    uint64_t scrub_next_ns;
    uint64_t scrub_last_ns, scrub_credit; /* scrub.c 4: the background's token bucket */
    /* Nothing here counts IO: what is queued is the scheduler's
     * (jbof_sched_drive_stats().backlogged), what is in flight is
     * be->inflight. */
} drive;

typedef struct listener {
    evsrc src;
    int fd;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    uint32_t tls_mode;         /* enum jbof_tls_mode (tls.c) */
} listener;

enum cmd_type {
    CMD_EXPORT_ADD = 1, CMD_EXPORT_REMOVE, CMD_EXPORT_SET, CMD_EXPORT_STATS, CMD_EXPORT_HIST,
    CMD_DRIVE_POLICY, CMD_DRIVE_CONFIGURE, CMD_DRIVE_GET_CFG, CMD_DRIVE_STATS, CMD_ENGINE_STATS,
    CMD_STOP, CMD_STUB_ADD, CMD_DRIVE_SCRUB_MARK
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

/* One peer's accept token bucket (budget.c): key = uid (unix) or IP. */
typedef struct peer_bucket {
    uint8_t key[17];           /* [0]: 0 empty, 1 uid, 4 IPv4, 6 IPv6 */
    uint64_t tokens_milli;     /* tokens * 1000 */
    uint64_t last_ns;
} peer_bucket;

enum { PEER_BUCKETS = 256, PEER_PROBES = 8 };

typedef struct bufpool {
    void *free[BUF_CLASSES];   /* singly linked through the first word */
    uint64_t bytes, budget;
} bufpool;

struct jbof_engine {
    jbof_engine_cfg cfg;
    evsrc cmd_src;
    int epfd, cmd_fd;
    int no_pwait2;             /* kernel (or qemu-user) lacks epoll_pwait2: ms timeouts */
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
    uint32_t retry_deferred;   /* a removing export's IO or connection ended: retry now */

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
    bufpool pool;
    uint64_t now_ns;
    jbof_engine_stats st;
    uint32_t nhs;              /* connections in C_HS */
    uint64_t hs_sweep_ns;      /* next handshake deadline / idle check */
    peer_bucket peers[PEER_BUCKETS];
    struct sec_engine *sec;    /* tls.c: keys and access rules (own mutex; shared by all reactors) */

    /* Several reactors (section 7). */
    uint32_t rid;              /* this reactor's index; 0 = the engine handle */
    struct jbof_engine *root;  /* reactor 0: listeners, handshakes, export directory */
    struct jbof_engine **rs;   /* root only: every reactor, rs[0] == root */
    uint32_t nrs;
    uint32_t ndrive_ids;       /* root only: drives added (global ids) */
    uint8_t drive_home[MAX_DRIVES]; /* root only: drive id -> reactor */
    export **stubs;            /* root only: other reactors' exports (handshake view) */
    uint32_t nstubs;
    conn *movers;              /* handshakes done for another reactor: sent at iteration end */
    conn *adopt_head, *adopt_tail; /* under mu: connections handed to this reactor */
};

/* ---- io.c: buffers, request slots, wait lists, submit, pump, reply ---- */
uint8_t *buf_get(bufpool *p, uint32_t len, int32_t *cls_out);
void buf_put(bufpool *p, uint8_t *b, int32_t c);
void buf_pool_free(bufpool *p);
/* Queue c to be read (ready) / flushed (dirty) this iteration. */
void ready_push(jbof_engine *e, conn *c);
void dirty_push(jbof_engine *e, conn *c);
/* Park c on a wait list (enum wait_kind) / take it off. */
void wait_on(jbof_engine *e, conn *c, int kind);
void wait_stop(jbof_engine *e, conn *c);
/* Resume connections whose credits or pool space came back. */
void wake_credit_waiters(jbof_engine *e);
req *req_get(jbof_engine *e);
void req_put(jbof_engine *e, req *r);
/* Wake e's reactor thread (its eventfd). */
void engine_wake(jbof_engine *e);
/* Queue r's reply on its connection (or drop r if the connection died). */
void reply_queue(jbof_engine *e, req *r, int status);
/* Answer r of a tenant being removed with ESHUTDOWN, counted as flushed (export.c 4). */
void req_fail_removed(jbof_engine *e, req *r);
/* Offer r to its tenant's SQ.  1 = taken (or answered), 0 = parked. */
int req_submit(jbof_engine *e, req *r);
/* Reap, dispatch, submit, kick one drive.  1 if anything moved. */
int drive_pump(jbof_engine *e, drive *d);

/* ---- conn.c: listeners, accept, handshake, parse, send ---- */
void on_listener(jbof_engine *e, listener *l);
void conn_close(jbof_engine *e, conn *c, int protocol_error);
void conn_maybe_free(jbof_engine *e, conn *c);
void free_zombies(jbof_engine *e);
/* Read and consume every connection on the ready list. */
void run_ready(jbof_engine *e);
void conn_flush(jbof_engine *e, conn *c);
/* Bind + listen, no policy: jbof_engine_listen_tcp(_sec) in tls.c check first. */
int listen_tcp_bind(jbof_engine *e, const char *host, uint16_t port, uint16_t *port_out);

/* ---- budget.c: per-tenant budgets, the handshake guard ---- */
/* Recompute every export's budgets (after an export is added / removed). */
void budget_recompute(jbof_engine *e);
/* May c's tenant take one more slot and buf_bytes of buffer?  1 = yes;
 * 0 = no, and c now waits on its tenant (W_TENANT). */
int budget_admit(jbof_engine *e, conn *c, uint32_t buf_bytes);
/* Charge r (slot + its buffer class) to x / give it back (from req_put). */
void budget_charge(export *x, req *r, uint32_t buf_bytes);
void budget_release(req *r);
/* At accept: 0 = take the connection, <0 = refuse it (counted). */
int guard_accept(jbof_engine *e, int fd, const struct sockaddr *sa, socklen_t sl, int tcp);
/* At the end of the handshake: 0 = x has room for one more connection. */
int guard_tx_admit(jbof_engine *e, export *x);
/* Close handshaking connections past their deadline or idle limit. */
void guard_sweep(jbof_engine *e);
/* When guard_sweep next has work (UINT64_MAX: none). */
uint64_t guard_next_ns(const jbof_engine *e);

/* ---- conn.c: handoff between reactors (section 7) ---- */
/* Hand every mover of e to its reactor's adopt queue. */
void send_movers(jbof_engine *e);
/* Take a connection handed over by the listener reactor (on e's thread). */
void conn_adopt(jbof_engine *e, conn *c);

/* ---- scrub.c: lazy zeroing of removed namespaces ---- */
/* Record [off, off + len) of d as needing zeroes (an export was removed). */
int scrub_mark(drive *d, uint64_t off, uint64_t len);
/* Zero the dirty space io touches before it reaches the backend.  -EIO if
 * that failed (the IO must then fail rather than show old data). */
int scrub_before_io(drive *d, const jbof_io *io);
/* Background: zero the next chunk of d when its time has come. */
void scrub_step(jbof_engine *e, drive *d);
uint64_t scrub_next_ns(const drive *d);

/* ---- export.c: drives, exports, namespaces ---- */
export *find_export(jbof_engine *e, const char *name);
drive *drive_by_id(jbof_engine *e, uint32_t id);
/* Root: enter / drop the directory entry of another reactor's export. */
int stub_add(jbof_engine *e, const jbof_export_cfg *cfg, uint32_t home);
int stub_remove(jbof_engine *e, const char *name);
int export_add(jbof_engine *e, const jbof_export_cfg *cfg);
/* jbof_drive_scrub_mark on the drive's reactor: in[0] = off, in[1] = len. */
int drive_scrub_mark(jbof_engine *e, uint32_t drive_id, const uint64_t *in);
/* 0 when removed, -EINPROGRESS while its IO drains. */
int export_remove_step(jbof_engine *e, export *x);
void export_stats_fill(export *x, jbof_export_stats *out, uint64_t now_ns);
void drive_info_fill(drive *d, jbof_drive_info *out);

/* ---- tls.c: authentication, authorization, the transport ---- */
int sec_engine_init(jbof_engine *e);
void sec_engine_free(jbof_engine *e);
/* At accept: peer credentials (unix), the listener's TLS mode. */
int sec_conn_init(jbof_engine *e, conn *c, const listener *l);
void sec_conn_free(conn *c);
/* Before the codec sees a handshake message: handles STARTTLS and the
 * TLS-required refusals (>0 bytes consumed, reply in hs_out), or sets
 * *tab / *ntab to the exports this client may list and open and returns 0
 * (let the codec answer); <0 = close.  Called with hs_out reserved. */
int sec_hs_filter(jbof_engine *e, conn *c, const uint8_t *in, uint32_t avail,
                  const jbof_nbd_export **tab, uint32_t *ntab);
/* The export behind index idx of the table sec_hs_filter gave. */
export *sec_export_of(jbof_engine *e, conn *c, int idx);
/* Drive a pending TLS handshake: 1 = the transport is ready for NBD
 * bytes, 0 = not yet (waiting for the socket), <0 = failed: close. */
int sec_pump(jbof_engine *e, conn *c);
/* Transport: read / sendmsg on the socket, or the TLS record layer.  Same
 * contract as read(2) / sendmsg(2) with MSG_DONTWAIT (-1 + errno); a short
 * sendv means the socket said EAGAIN (EPOLLOUT follows). */
ssize_t conn_recv(conn *c, void *buf, size_t len);
ssize_t conn_sendv(conn *c, const struct iovec *iov, int n);
/* Bytes accepted by conn_sendv but not yet on the socket (TLS). */
int conn_tx_pending(const conn *c);

/* ---- engine.c: the command queue (used by the API in every file) ---- */
int cmd_run(jbof_engine *e, cmd *k);

#endif /* JBOF_REACTOR_H */
