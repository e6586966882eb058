/*
 * conn.c -- connections: listeners and accept, the NBD handshake, reading
 * and parsing requests, and sending replies.
 *
 * 1. A connection starts in C_HS with the 18-byte greeting queued; each
 *    client message is handed to the codec (jbof_nbd_hs_step) which
 *    appends its reply; once the client picks an export it is in C_TX.
 *
 * 2. Reading.  A ready connection is read at most READS_PER_TURN times per
 *    loop iteration (fairness) into its 64 KiB rx buffer; every complete
 *    28-byte header is parsed and checked (codec) and becomes a request
 *    (io.c).  A WRITE's payload is copied into the request's buffer; when
 *    at least DIRECT_READ_MIN bytes of it are still missing it is read
 *    straight into the buffer, with no copy.  A connection that must wait
 *    (credits, pool, its own limit) is simply not read.
 *
 * 3. Sending.  conn_flush sends the handshake output, then the queued
 *    replies: header (r->hdr_len: 16 simple, 20-28 structured) and payload
 *    (r->dlen: READ data or BLOCK_STATUS extents, from r->br.buf) of up to
 *    IOV_BATCH/2 replies per sendmsg; a partial send keeps its place
 *    (r->sent) for EPOLLOUT.  Structured replies change the header only,
 *    so a READ is still header + buffer in the same sendmsg, no copy.
 *
 * 4. Worked example: fio, 4 KiB randread, iodepth 32: one read() returns
 *    32 * 28 = 896 bytes, parsed into 32 requests; after the pump, one
 *    sendmsg carries 32 * (16 + 4096) = 131,584 bytes in 64 iovecs.
 *
 * 5. A dead connection (C_DEAD) drops the requests it still holds; the
 *    ones inside a scheduler or backend finish and are discarded; the
 *    struct is freed at the end of the iteration once nothing refers to it
 *    (free_zombies).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "reactor.h"

/* ------------------------------------------------------- connections ---- */

/* Take c off the engine's list of connections (closing it, or handing it to
 * another reactor). */
static void conn_unlink(jbof_engine *e, conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        e->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    e->nconns--;
}

void conn_close(jbof_engine *e, conn *c, int protocol_error)
{
    if (c->state == C_DEAD)
        return;
    if (protocol_error)
        e->st.protocol_errors++;
    e->st.closed++;
    wait_stop(e, c);
    epoll_ctl(e->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    sec_conn_free(c); /* TLS close_notify goes out before the socket closes */
    close(c->fd);
    c->fd = -1;
    if (c->state == C_TX && c->x) {
        c->x->nconns--;
        if (c->x->removing)
            e->retry_deferred = 1; /* export.c 4: its removal may finish now */
    }
    if (c->state == C_HS)
        e->nhs--;
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
    conn_unlink(e, c);
    conn_maybe_free(e, c);
}

/* A dead connection is freed at the end of the iteration once nothing
 * (request, ready list) refers to it. */
void conn_maybe_free(jbof_engine *e, conn *c)
{
    if (c->state == C_DEAD && !c->zombie) {
        c->zombie = 1;
        c->zombie_next = e->zombies;
        e->zombies = c;
    }
}

void free_zombies(jbof_engine *e)
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

/* ------------------------------------------- handoff (reactor.h s. 7) ---- */

/* The handshake of c picked x, an export of another reactor: forget c here
 * (epoll, lists, handshake count) and send it at the end of the iteration,
 * when no list of this reactor refers to it any more.  It owns no request
 * and no budget yet; its rx leftover, unsent handshake reply, negotiated
 * state (c->hs) and TLS session travel with it. */
static void conn_move(jbof_engine *e, conn *c, export *x)
{
    wait_stop(e, c);
    epoll_ctl(e->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    conn_unlink(e, c);
    e->nhs--;
    e->st.handshakes++;
    e->st.handoffs_out++;
    c->state = C_MOVE;
    c->home = x->home;
    memcpy(c->xname, x->name, x->name_len + 1);
    c->move_next = e->movers;
    e->movers = c;
}

void send_movers(jbof_engine *e)
{
    while (e->movers) {
        conn *c = e->movers;
        e->movers = c->move_next;
        c->move_next = NULL;
        c->in_ready = c->in_dirty = 0; /* both lists were drained (state C_MOVE) */
        jbof_engine *t = e->root->rs[c->home];
        pthread_mutex_lock(&t->mu);
        if (t->adopt_tail)
            t->adopt_tail->move_next = c;
        else
            t->adopt_head = c;
        t->adopt_tail = c;
        pthread_mutex_unlock(&t->mu);
        engine_wake(t);
    }
}

void conn_adopt(jbof_engine *e, conn *c)
{
    c->state = C_TX;
    c->x = NULL;
    c->move_next = NULL;
    c->next = e->conns;
    if (e->conns)
        e->conns->prev = c;
    e->conns = c;
    e->nconns++;
    e->st.handoffs_in++;
    export *x = find_export(e, c->xname);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = &c->src};
    if (!x || x->removing || e->stopping || epoll_ctl(e->epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
        conn_close(e, c, 0);
        return;
    }
    if (guard_tx_admit(e, x) < 0) { /* budget.c: the export's connection cap */
        conn_close(e, c, 0);
        return;
    }
    c->x = x;
    x->nconns++;
    x->st.connections_total++;
    c->readable = 1;
    ready_push(e, c); /* leftover request bytes in rx */
    dirty_push(e, c); /* the handshake's last reply */
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

static void accept_one(jbof_engine *e, int fd, const listener *l, const struct sockaddr *sa,
                       socklen_t sl)
{
    int tcp = l->path[0] == 0;
    if (guard_accept(e, fd, sa, sl, tcp) < 0) { /* budget.c: caps and per-peer rate */
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
    c->accept_ns = e->now_ns;
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
    if (sec_conn_init(e, c, l) < 0 || epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        sec_conn_free(c);
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
    e->nhs++;
    e->st.accepted++;
    c->readable = 1;
    ready_push(e, c);
    dirty_push(e, c);
}

void on_listener(jbof_engine *e, listener *l)
{
    for (int i = 0; i < ACCEPTS_PER_EVENT; i++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(l->fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN, or a transient error: epoll reports again */
        accept_one(e, fd, l, (struct sockaddr *)&ss, sl);
    }
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

/* BLOCK_STATUS (base:allocation), answered here, in the reactor thread,
 * from the backend's metadata: it never enters the scheduler (it moves no
 * data, so it should neither cost the tenant budget nor wait behind other
 * tenants' IO).  Ordering: the answer describes the store when the request
 * is parsed.  Every write the client saw completed before sending it is
 * in the store by then (memory/emulated apply data at dispatch, the file
 * backend at completion), so it is never missed; writes still in flight
 * may or may not show, which the spec allows (status as of any time
 * between request and reply).  Scoping: the drive range asked for is
 * [base + offset, base + offset + length), inside the namespace (the codec
 * checked offset + length <= size), and every extent is clipped to it, so
 * no other tenant's layout can be seen. */
static void block_status(jbof_engine *e, req *r, const jbof_nbd_request *nr)
{
    jbof_backend *be = r->x->d->be;
    jbof_nbd_extent *ext = (jbof_nbd_extent *)(void *)r->br.buf;
    int max = (nr->flags & JBOF_NBD_CMD_FLAG_REQ_ONE) ? 1 : JBOF_NBD_EXTENTS_MAX;
    int n;
    /* space of a removed tenant not yet zeroed would show its old owner's
     * layout: zero the overlap first, exactly as an IO would (scrub.c) */
    jbof_io span = {.offset_bytes = r->br.io.offset_bytes, .length_bytes = nr->length_bytes,
                    .opcode = JBOF_OP_READ};
    if (scrub_before_io(r->x->d, &span) < 0) {
        reply_queue(e, r, -EIO);
        return;
    }
    if (be->ops->extents) {
        n = be->ops->extents(be, r->br.io.offset_bytes, nr->length_bytes, ext, max);
    } else {
        ext[0] = (jbof_nbd_extent){.length_bytes = nr->length_bytes, .flags = 0};
        n = 1;
    }
    r->x->st.block_status++;
    if (n <= 0) {
        reply_queue(e, r, -EIO); /* metadata unreadable: an error, never a guess */
        return;
    }
    jbof_nbd_encode_extents(r->br.buf, 8 * (size_t)n, ext, (uint32_t)n);
    r->dlen = (uint32_t)n; /* reply_header turns the count into bytes */
    reply_queue(e, r, 0);
}

/* Handle one decoded request header.  1 = consumed, 0 = wait (header left
 * in rx), -1 = connection closed. */
static int on_request(jbof_engine *e, conn *c, const jbof_nbd_request *nr)
{
    export *x = c->x;
    int rc = jbof_nbd_check_request_neg(nr, &x->nbd, c->hs.neg);
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
    int data = rc == 0 && (nr->type == JBOF_NBD_CMD_READ || nr->type == JBOF_NBD_CMD_WRITE) &&
               nr->length_bytes > 0;
    uint32_t blen = nr->length_bytes;
    if (rc == 0 && nr->type == JBOF_NBD_CMD_BLOCK_STATUS) {
        data = 1; /* room for the extents */
        blen = (nr->flags & JBOF_NBD_CMD_FLAG_REQ_ONE) ? 8 : 8 * JBOF_NBD_EXTENTS_MAX;
    }
    if (!budget_admit(e, c, data ? blen : 0))
        return 0; /* this tenant's budget is spent: only it waits */
    req *r = req_get(e);
    if (!r) {
        wait_on(e, c, W_POOL);
        return 0;
    }
    if (data) {
        r->br.buf = buf_get(&e->pool, blen, &r->buf_class);
        if (!r->br.buf) {
            /* giving back the slot we just took frees nothing anyone waits
             * for: without this the pool waiters (c among them) would be
             * woken at once and spin while the pool stays full */
            uint32_t freed = e->pool_freed;
            r->c = NULL;
            req_put(e, r);
            e->pool_freed = freed;
            wait_on(e, c, W_POOL);
            return 0;
        }
    }
    c->rx_off += JBOF_NBD_REQUEST_BYTES;
    budget_charge(x, r, data ? blen : 0);
    r->c = c;
    r->x = x;
    r->handle = nr->handle;
    r->type = nr->type;
    /* the one IO descriptor (reactor.h, struct req); offsets become drive
     * offsets here, so the backend needs nothing else */
    r->br.io = (jbof_io){
        .tag = r->idx,
        .offset_bytes = x->base + nr->offset_bytes,
        .length_bytes = nr->length_bytes,
        .opcode = op_of(nr->type),
        .flags = (uint8_t)(((nr->flags & JBOF_NBD_CMD_FLAG_FUA) ? JBOF_IO_FUA : 0) |
                           ((nr->flags & JBOF_NBD_CMD_FLAG_NO_HOLE) ? JBOF_BREQ_NO_HOLE : 0) |
                           ((nr->flags & JBOF_NBD_CMD_FLAG_FAST_ZERO) ? JBOF_BREQ_FAST_ZERO : 0)),
        .tenant = x->tid,
    };
    c->outstanding++;
    x->st.requests++;
    e->st.requests++;
    if (rc < 0) {
        if (nr->type == JBOF_NBD_CMD_WRITE)
            c->discard = nr->length_bytes;
        reply_queue(e, r, rc);
        return 1;
    }
    if (nr->type == JBOF_NBD_CMD_BLOCK_STATUS) {
        block_status(e, r, nr);
        return 1;
    }
    if (nr->type == JBOF_NBD_CMD_CACHE) {
        x->st.cache++; /* advisory: validated, nothing to warm in RAM or behind O_DIRECT */
        reply_queue(e, r, 0);
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
        /* tls.c: STARTTLS, TLS-required refusals, and the exports this
         * client may see (the codec answers from that view) */
        const jbof_nbd_export *tab;
        uint32_t ntab;
        int rc = sec_hs_filter(e, c, in, avail, &tab, &ntab);
        if (rc == 0)
            rc = jbof_nbd_hs_step(&c->hs, tab, ntab, in, avail, c->hs_out, c->hs_out_cap,
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
            /* tls.c: the identity may open it (else a protocol close) */
            export *x = sec_export_of(e, c, c->hs.export_index);
            if (!x) {
                conn_close(e, c, 1);
                return -1;
            }
            if (x->home != e->rid) { /* section 7: its drive runs elsewhere */
                conn_move(e, c, x);
                return -1;
            }
            if (guard_tx_admit(e, x) < 0) { /* budget.c: the export's connection cap */
                conn_close(e, c, 0);
                return -1;
            }
            c->x = x;
            c->state = C_TX;
            e->nhs--;
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
        uint32_t need = r->br.io.length_bytes - r->got;
        uint32_t n = avail < need ? avail : need;
        memcpy(r->br.buf + r->got, in, n);
        r->got += n;
        c->rx_off += n;
        if (r->got < r->br.io.length_bytes)
            return n ? 1 : 0;
        c->cur = NULL;
        r->x->st.rx_payload_bytes += r->br.io.length_bytes;
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
        int ready = sec_pump(e, c); /* a STARTTLS handshake in progress? */
        if (ready < 0) {
            conn_close(e, c, 1);
            return;
        }
        if (ready == 0)
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
        if (r && c->rx_off == c->rx_len && r->br.io.length_bytes - r->got >= DIRECT_READ_MIN) {
            /* large payload: straight into the request buffer */
            c->rx_off = c->rx_len = 0;
            n = conn_recv(c, r->br.buf + r->got, r->br.io.length_bytes - r->got);
            if (n > 0) {
                r->got += (uint32_t)n;
                if (r->got == r->br.io.length_bytes) {
                    c->cur = NULL;
                    r->x->st.rx_payload_bytes += r->br.io.length_bytes;
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
            n = conn_recv(c, c->rx + c->rx_len, RX_BYTES - c->rx_len);
            if (n > 0) {
                c->heard = 1;
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
void conn_flush(jbof_engine *e, conn *c)
{
    if (c->state == C_MOVE)
        return; /* its new reactor flushes the handshake's last reply */
    if (c->state != C_DEAD && conn_tx_pending(c) && conn_sendv(c, NULL, 0) < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            conn_close(e, c, 0);
        return; /* TLS records still queued: EPOLLOUT resumes us */
    }
    while (c->state != C_DEAD && c->hs_out_sent < c->hs_out_len) {
        struct iovec hv = {.iov_base = c->hs_out + c->hs_out_sent,
                           .iov_len = c->hs_out_len - c->hs_out_sent};
        ssize_t n = conn_sendv(c, &hv, 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_close(e, c, 0);
            return;
        }
        c->hs_out_sent += (size_t)n;
    }
    if (c->state == C_HS && c->sec && sec_pump(e, c) < 0) { /* STARTTLS: ACK sent, handshake */
        conn_close(e, c, 1);
        return;
    }
    while (c->state != C_DEAD && c->out_head) {
        struct iovec iov[IOV_BATCH];
        int k = 0;
        size_t total = 0;
        for (req *r = c->out_head; r && k + 2 <= IOV_BATCH; r = r->next) {
            uint32_t dlen = r->dlen, hl = r->hdr_len;
            if (r->sent < hl) {
                iov[k].iov_base = r->hdr + r->sent;
                iov[k].iov_len = hl - r->sent;
                total += iov[k++].iov_len;
            }
            uint32_t dsent = r->sent > hl ? r->sent - hl : 0;
            if (dlen > dsent) {
                iov[k].iov_base = r->br.buf + dsent;
                iov[k].iov_len = dlen - dsent;
                total += iov[k++].iov_len;
            }
        }
        ssize_t n = conn_sendv(c, iov, k);
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
            uint32_t full = r->hdr_len + r->dlen;
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
        c->hs_out_sent == c->hs_out_len && !conn_tx_pending(c))
        conn_close(e, c, 0);
}

void run_ready(jbof_engine *e)
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


/* ----------------------------------------------------------- listeners ---- */

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

/* The bind of jbof_engine_listen_tcp_sec (tls.c), which checks the policy. */
int listen_tcp_bind(jbof_engine *e, const char *host, uint16_t port, uint16_t *port_out)
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

