/*
 * tls.c -- who may talk to which export: NBD_OPT_STARTTLS with TLS-PSK
 * (GnuTLS), per-listener TLS policy, per-export access rules, and the
 * transport every connection reads and writes through.
 *
 * 1. Threat model.  Tenants share the target; a client must neither see
 *    nor open another tenant's export.  Over TCP nothing tells clients
 *    apart but a key, so a client proves its identity with a pre-shared
 *    key inside TLS (as NVMe/TCP does with TLS 1.3 PSK and nbdkit with
 *    --tls-psk); on unix sockets the kernel also vouches for the peer's
 *    uid/gid (SO_PEERCRED).  No crypto is written here: GnuTLS does the
 *    handshake and the record layer; this file decides policy.
 *
 * 2. Policy.
 *      listener  tls off      STARTTLS -> NBD_REP_ERR_UNSUP (as before)
 *                tls allow    STARTTLS offered, plaintext clients served
 *                tls require  before TLS every option but STARTTLS and ABORT
 *                             gets NBD_REP_ERR_TLS_REQD; EXPORT_NAME (which
 *                             cannot carry an error) closes the connection.
 *                A TCP listener on a non-loopback address without tls
 *                require is refused unless the caller says insecure.
 *      export    a client may LIST and open it iff
 *                  - TLS is up: its PSK identity equals the export's
 *                    tls_identity (default: the export's own name);
 *                  - and, if the export has a uid/gid allow-list: the
 *                    connection is a unix socket whose peer uid is in the
 *                    uid list or gid in the gid list.  A TCP peer has no
 *                    uid, so a restricted export is never served to it
 *                    without TLS (with TLS the identity decides).
 *                A plaintext client on a tls-off/allow listener may open
 *                any export that has no allow-list: the operator chose
 *                not to require TLS there.
 *    Authorization is one mechanism, not three: before each option the
 *    connection's export table is filtered to the exports it may open and
 *    the unchanged codec (nbd_codec.c) answers from that view.  LIST hence
 *    shows only the client's own exports, GO/INFO of another's is
 *    NBD_REP_ERR_UNKNOWN ("no such export": we do not confirm that it
 *    exists), EXPORT_NAME of another's closes, and the empty (default)
 *    name means "my export" when the client may open exactly one.
 *
 * 3. STARTTLS, step by step (per the NBD spec, doc/proto.md):
 *      a. the option must carry no data (else ERR_INVALID), TLS must not
 *         be up already (ERR_INVALID) and the listener must allow TLS
 *         (else the codec's ERR_UNSUP);
 *      b. no byte may follow it in the receive buffer: the client must
 *         wait for our ACK.  Bytes there would be plaintext injected
 *         before TLS and trusted after it (nbdkit CVE-2021-3716), so the
 *         connection is closed as a protocol error;
 *      c. the ACK is queued in plaintext (hs_out); state ACK_PENDING: the
 *         connection is not read until conn_flush has sent it all;
 *      d. then state HANDSHAKE: gnutls_handshake is driven from both
 *         conn_work (socket readable) and conn_flush (writable).  The
 *         socket is registered once, edge-triggered, for EPOLLIN|EPOLLOUT,
 *         so either edge re-runs it; on GNUTLS_E_AGAIN
 *         gnutls_record_get_direction() says which edge we wait for (0 =
 *         read: the connection is marked not readable until EPOLLIN);
 *      e. the PSK callback finds the key of the identity the client names
 *         (unknown identity: the handshake fails; wrong key: the binder /
 *         Finished check fails) -- either way the connection is closed
 *         and counted in tls_failures;
 *      f. state UP: the identity is remembered, option haggling resumes
 *         inside TLS (the client sends no new flags);
 *      g. closing a TLS connection sends close_notify first (one
 *         non-blocking gnutls_bye; the spec asks for it after NBD_CMD_DISC).
 *    A client that did not answer with NBD_FLAG_C_FIXED_NEWSTYLE cannot do
 *    TLS (nor read an error reply): on a tls-require listener it is closed
 *    at once, elsewhere it is served as a plaintext client.
 *
 * 4. The transport.  conn.c reads with conn_recv and sends with
 *    conn_sendv: read(2) / sendmsg(2), or, once TLS is up,
 *    gnutls_record_recv / gnutls_record_send.  gnutls_record_send must be
 *    called again with the same arguments after GNUTLS_E_AGAIN, while
 *    conn_flush rebuilds its iovecs each time, so TLS sends go through a
 *    64 KiB staging buffer: the iovecs are copied in (the record layer
 *    copies while encrypting anyway), counted as sent, and the buffer is
 *    drained record by record (<= 16 KiB each); it is refilled only when
 *    empty, so a retried send always sees the same arguments.  A short
 *    return therefore still means "the socket said EAGAIN", as conn_flush
 *    expects; a closing connection waits for the buffer to drain.
 *    Receiving needs no care: readable is cleared only when GnuTLS got
 *    EAGAIN from the socket, so records GnuTLS has buffered are read
 *    before the reactor waits for another edge.  Memory: a TLS connection
 *    adds the staging buffer and GnuTLS's session (~100 KiB).
 *
 * 5. Worked example: tenant "alice" (identity alice) and "bob" on a
 *    listener with tls require; the client knows alice's key.
 *      S: 4e42444d41474943 49484156454f5054 0003      greeting, 18 bytes
 *      C: 00000003                                     FIXED_NEWSTYLE|NO_ZEROES
 *      C: 49484156454f5054 00000003 00000000           LIST (before TLS)
 *      S: 0003e889045565a9 00000003 80000005 0000000c "TLS required"
 *      C: 49484156454f5054 00000005 00000000           STARTTLS
 *      S: 0003e889045565a9 00000005 00000001 00000000  ACK (plaintext, 20 bytes)
 *      C/S: TLS 1.3 handshake (ClientHello with psk_identity "alice" and a
 *           binder the server checks with alice's key; ECDHE-PSK)
 *      C: [TLS] IHAVEOPT 00000003 00000000             LIST
 *      S: [TLS] REP_MAGIC 00000003 00000002 00000009 00000005 "alice"
 *      S: [TLS] REP_MAGIC 00000003 00000001 00000000  ACK: bob is not listed
 *      C: [TLS] IHAVEOPT 00000007 00000009 00000003 "bob" 0000       GO bob
 *      S: [TLS] REP_MAGIC 00000007 80000006 0000000e "no such export"
 *      C: [TLS] IHAVEOPT 00000007 0000000b 00000005 "alice" 0000     GO alice
 *      S: [TLS] INFO_EXPORT, INFO_BLOCK_SIZE, ACK: transmission, in TLS.
 *
 * 6. State.  Nothing is global.  Keys, the GnuTLS credentials and the
 *    access rules live in the engine (struct sec_engine) behind their own
 *    mutex: Python threads change rules while the reactor reads them
 *    during handshakes (rare, short critical sections).  GnuTLS's own
 *    process-wide initialisation is done by its library constructor
 *    (GnuTLS >= 3.3 calls gnutls_global_init when loaded; checked below),
 *    so we never call gnutls_global_init/deinit.  Key material is wiped
 *    (gnutls_memset) when replaced or freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "reactor.h"

#ifndef JBOF_HAVE_GNUTLS
#define JBOF_HAVE_GNUTLS 0 /* dataplane/_build.py defines it when gnutls.h exists */
#endif
#if JBOF_HAVE_GNUTLS
#include <gnutls/gnutls.h>
#if GNUTLS_VERSION_NUMBER < 0x030300
#error "GnuTLS >= 3.3 needed (library constructor does the global init)"
#endif
#endif

_Static_assert(JBOF_ACCESS_MAX_IDS == 32, "jbof_export_access arrays are 32 long");
_Static_assert(sizeof(((jbof_export_access *)0)->tls_identity) == JBOF_TLS_IDENTITY_MAX_BYTES + 1,
               "identity buffer");

enum {
    TLS_TX_BYTES = 65536,      /* TLS send staging buffer */
    PSK_FILE_MAX_BYTES = 1 << 20,
    MSG_MAX = 64
};

enum sec_tls_state { T_NONE = 0, T_ACK_PENDING, T_HANDSHAKE, T_UP };

typedef struct psk_key {
    char id[JBOF_TLS_IDENTITY_MAX_BYTES + 1];
    uint8_t key[JBOF_TLS_KEY_MAX_BYTES];
    uint32_t len;
} psk_key;

typedef struct access_ent {
    char name[JBOF_NBD_NAME_MAX_BYTES + 1];
    jbof_export_access acc;
} access_ent;

struct sec_engine {
    pthread_mutex_t mu;        /* everything below */
    psk_key *keys;
    uint32_t nkeys;
    access_ent *acc;           /* sorted by name */
    uint32_t nacc, cap;
    jbof_sec_stats st;
#if JBOF_HAVE_GNUTLS
    gnutls_psk_server_credentials_t cred;
    gnutls_priority_t prio;
#endif
};

struct sec_conn {
    jbof_engine *e;
    uint8_t mode;              /* the listener's enum jbof_tls_mode */
    uint8_t tls;               /* enum sec_tls_state */
    uint8_t unix_peer;         /* uid/gid below are the kernel's word */
    uid_t uid;
    gid_t gid;
    char identity[JBOF_TLS_IDENTITY_MAX_BYTES + 1];
    uint8_t *tx;               /* TLS staging buffer (section 4) */
    size_t tx_off, tx_len;
    jbof_nbd_export *vtab;     /* this client's view of the export table */
    export **vx;
    uint32_t vn, vcap;
#if JBOF_HAVE_GNUTLS
    gnutls_session_t s;
#endif
};

int jbof_tls_available(void)
{
    return JBOF_HAVE_GNUTLS ? 1 : 0;
}

/* ---------------------------------------------------------- engine ---- */

static void keys_free(psk_key *k, uint32_t n)
{
    if (!k)
        return;
#if JBOF_HAVE_GNUTLS
    gnutls_memset(k, 0, sizeof(*k) * n);
#else
    memset(k, 0, sizeof(*k) * n);
#endif
    free(k);
}

int sec_engine_init(jbof_engine *e)
{
    if (!e)
        return -EINVAL;
    struct sec_engine *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s);
        return -ENOMEM;
    }
    e->sec = s;
    return 0;
}

void sec_engine_free(jbof_engine *e)
{
    if (!e || !e->sec)
        return;
    struct sec_engine *s = e->sec;
#if JBOF_HAVE_GNUTLS
    if (s->cred)
        gnutls_psk_free_server_credentials(s->cred);
    if (s->prio)
        gnutls_priority_deinit(s->prio);
#endif
    keys_free(s->keys, s->nkeys);
    free(s->acc);
    pthread_mutex_destroy(&s->mu);
    free(s);
    e->sec = NULL;
}

int jbof_engine_sec_stats(jbof_engine *e, jbof_sec_stats *out)
{
    if (!e || !out || !e->sec)
        return -EINVAL;
    pthread_mutex_lock(&e->sec->mu);
    *out = e->sec->st;
    out->keys = e->sec->nkeys;
    out->access_rules = e->sec->nacc;
    pthread_mutex_unlock(&e->sec->mu);
    return 0;
}

static void count(jbof_engine *e, uint64_t *field)
{
    pthread_mutex_lock(&e->sec->mu);
    (*field)++;
    pthread_mutex_unlock(&e->sec->mu);
}

/* ------------------------------------------------------------ PSK file ---- */

#if JBOF_HAVE_GNUTLS
static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* "identity:hexkey" lines; blank lines and '#' comments skipped. */
static int psk_parse(char *text, psk_key **out, uint32_t *nout)
{
    uint32_t cap = 0, n = 0;
    psk_key *k = NULL;
    int rc = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = 0;
        if (l == 0 || line[0] == '#')
            continue;
        char *colon = strchr(line, ':');
        size_t idlen = colon ? (size_t)(colon - line) : 0;
        const char *hex = colon ? colon + 1 : "";
        size_t hlen = strlen(hex);
        if (!colon || idlen == 0 || idlen > JBOF_TLS_IDENTITY_MAX_BYTES || hlen == 0 || hlen % 2 ||
            hlen / 2 > JBOF_TLS_KEY_MAX_BYTES) {
            rc = -EINVAL;
            break;
        }
        if (n == cap) {
            uint32_t nc = cap ? cap * 2 : 8;
            psk_key *nk = calloc(nc, sizeof(*nk));
            if (!nk) {
                rc = -ENOMEM;
                break;
            }
            if (k)
                memcpy(nk, k, sizeof(*k) * n);
            keys_free(k, cap);
            k = nk;
            cap = nc;
        }
        psk_key *p = &k[n];
        memcpy(p->id, line, idlen);
        p->id[idlen] = 0;
        for (size_t i = 0; i < hlen / 2; i++) {
            int hi = hexval((unsigned char)hex[2 * i]), lo = hexval((unsigned char)hex[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                rc = -EINVAL;
                break;
            }
            p->key[i] = (uint8_t)(hi << 4 | lo);
        }
        if (rc)
            break;
        p->len = (uint32_t)(hlen / 2);
        for (uint32_t i = 0; i < n; i++)
            if (strcmp(k[i].id, p->id) == 0)
                rc = -EINVAL; /* duplicate identity */
        if (rc)
            break;
        n++;
    }
    if (rc == 0 && n == 0)
        rc = -EINVAL;
    if (rc) {
        keys_free(k, cap);
        return rc;
    }
    *out = k;
    *nout = n;
    return 0;
}

/* GnuTLS asks for the key of the identity a client names (reactor thread). */
static int psk_lookup(gnutls_session_t session, const char *username, gnutls_datum_t *key)
{
    struct sec_conn *sc = gnutls_session_get_ptr(session);
    if (!sc || !username)
        return -1;
    struct sec_engine *s = sc->e->sec;
    int rc = -1;
    pthread_mutex_lock(&s->mu);
    for (uint32_t i = 0; i < s->nkeys; i++) {
        if (strcmp(s->keys[i].id, username) != 0)
            continue;
        key->data = gnutls_malloc(s->keys[i].len);
        if (key->data) {
            memcpy(key->data, s->keys[i].key, s->keys[i].len);
            key->size = s->keys[i].len;
            rc = 0;
        }
        break;
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}
#endif

int jbof_engine_tls_load_psk(jbof_engine *e, const char *path)
{
    if (!e || !e->sec || !path || !path[0])
        return -EINVAL;
#if !JBOF_HAVE_GNUTLS
    return -ENOTSUP;
#else
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode) || (st.st_mode & 077)) {
        close(fd); /* keys readable by others are not secret: refuse */
        return -EACCES;
    }
    if (st.st_size <= 0 || st.st_size > PSK_FILE_MAX_BYTES) {
        close(fd);
        return -EINVAL;
    }
    size_t size = (size_t)st.st_size;
    char *text = malloc(size + 1);
    if (!text) {
        close(fd);
        return -ENOMEM;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, text + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    text[got] = 0;
    psk_key *keys = NULL;
    uint32_t nkeys = 0;
    int rc = got == size ? psk_parse(text, &keys, &nkeys) : -EIO;
    gnutls_memset(text, 0, size + 1);
    free(text);
    if (rc)
        return rc;

    struct sec_engine *s = e->sec;
    gnutls_psk_server_credentials_t cred = NULL;
    gnutls_priority_t prio = NULL;
    pthread_mutex_lock(&s->mu);
    int have_cred = s->cred != NULL;
    pthread_mutex_unlock(&s->mu);
    if (!have_cred) {
        if (gnutls_psk_allocate_server_credentials(&cred) < 0) {
            keys_free(keys, nkeys);
            return -ENOMEM;
        }
        gnutls_psk_set_server_credentials_function(cred, psk_lookup);
        /* PSK key exchange only (no certificates are configured): TLS 1.3
         * (PSK with ECDHE) or 1.2 ECDHE-PSK / plain PSK, as libnbd, nbdkit
         * and qemu negotiate it.  Our cipher order wins, with ChaCha20 last:
         * libnbd's GnuTLS lists ChaCha20 first and GnuTLS honours a client
         * that does, which made a 512 MiB TLS read 8x slower than plaintext
         * on this AES-NI host (AES-GCM: 1.4x).  A TLS 1.3 external PSK is
         * bound to SHA-256, so AES-128-GCM is what gets chosen. */
        if (gnutls_priority_init(&prio,
                                 "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+ECDHE-PSK:+PSK:"
                                 "-CHACHA20-POLY1305:+CHACHA20-POLY1305:%SERVER_PRECEDENCE",
                                 NULL) < 0) {
            gnutls_psk_free_server_credentials(cred);
            keys_free(keys, nkeys);
            return -EINVAL;
        }
    }
    pthread_mutex_lock(&s->mu);
    psk_key *old = s->keys;
    uint32_t nold = s->nkeys;
    s->keys = keys;
    s->nkeys = nkeys;
    if (cred && !s->cred) { /* (a concurrent load may have set them first) */
        s->cred = cred;
        s->prio = prio;
        cred = NULL;
        prio = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    if (cred)
        gnutls_psk_free_server_credentials(cred);
    if (prio)
        gnutls_priority_deinit(prio);
    keys_free(old, nold);
    return 0;
#endif
}

/* ------------------------------------------------------------ listeners ---- */

static int loopback_host(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6);
    return 0;
}

static int sec_check(jbof_engine *e, const jbof_listen_sec *sec)
{
    if (sec && (sec->tls > JBOF_TLS_REQUIRE || sec->insecure > 1))
        return -EINVAL;
    if (sec && sec->tls != JBOF_TLS_OFF) {
        if (!JBOF_HAVE_GNUTLS)
            return -ENOTSUP;
        pthread_mutex_lock(&e->sec->mu);
        int have = e->sec->nkeys > 0;
        pthread_mutex_unlock(&e->sec->mu);
        if (!have)
            return -ENOKEY;
    }
    return 0;
}

int jbof_engine_listen_unix_sec(jbof_engine *e, const char *path, const jbof_listen_sec *sec)
{
    if (!e || !e->sec || !path)
        return -EINVAL;
    int rc = sec_check(e, sec);
    if (rc)
        return rc;
    rc = jbof_engine_listen_unix(e, path);
    if (rc == 0)
        e->lst[e->nlst - 1].tls_mode = sec ? sec->tls : JBOF_TLS_OFF;
    return rc;
}

int jbof_engine_listen_tcp_sec(jbof_engine *e, const char *host, uint16_t port, uint16_t *port_out,
                               const jbof_listen_sec *sec)
{
    if (!e || !e->sec || !host)
        return -EINVAL;
    int rc = sec_check(e, sec);
    if (rc)
        return rc;
    int tls_required = sec && sec->tls == JBOF_TLS_REQUIRE;
    if (!loopback_host(host) && !tls_required && !(sec && sec->insecure))
        return -EPERM; /* plaintext NBD reachable from the network: say so explicitly */
    rc = listen_tcp_bind(e, host, port, port_out);
    if (rc == 0)
        e->lst[e->nlst - 1].tls_mode = sec ? sec->tls : JBOF_TLS_OFF;
    return rc;
}

int jbof_engine_listen_tcp(jbof_engine *e, const char *host, uint16_t port, uint16_t *port_out)
{
    return jbof_engine_listen_tcp_sec(e, host, port, port_out, NULL);
}

/* ---------------------------------------------------------- access rules ---- */

static int ent_cmp(const void *a, const void *b)
{
    return strcmp(((const access_ent *)a)->name, ((const access_ent *)b)->name);
}

/* Rule of the export named name[0, len) (not NUL-terminated), or NULL. */
static const jbof_export_access *access_find(struct sec_engine *s, const char *name, uint32_t len)
{
    uint32_t lo = 0, hi = s->nacc;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const char *m = s->acc[mid].name;
        int c = strncmp(m, name, len);
        if (c == 0)
            c = m[len] ? 1 : 0; /* m is longer than name */
        if (c == 0)
            return &s->acc[mid].acc;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int jbof_engine_set_access(jbof_engine *e, const char *name, const jbof_export_access *acc)
{
    if (!e || !e->sec || !name)
        return -EINVAL;
    size_t nl = strnlen(name, JBOF_NBD_NAME_MAX_BYTES + 1);
    if (nl == 0 || nl > JBOF_NBD_NAME_MAX_BYTES)
        return -EINVAL;
    if (acc && (acc->nuids > JBOF_ACCESS_MAX_IDS || acc->ngids > JBOF_ACCESS_MAX_IDS ||
                strnlen(acc->tls_identity, sizeof(acc->tls_identity)) == sizeof(acc->tls_identity)))
        return -EINVAL;
    struct sec_engine *s = e->sec;
    int rc = 0;
    pthread_mutex_lock(&s->mu);
    access_ent *hit = NULL;
    for (uint32_t i = 0; i < s->nacc; i++)
        if (strcmp(s->acc[i].name, name) == 0)
            hit = &s->acc[i];
    if (!acc) {
        if (hit) {
            *hit = s->acc[--s->nacc];
            qsort(s->acc, s->nacc, sizeof(*s->acc), ent_cmp);
        }
    } else if (hit) {
        hit->acc = *acc;
    } else {
        if (s->nacc == s->cap) {
            uint32_t nc = s->cap ? s->cap * 2 : 16;
            access_ent *na = realloc(s->acc, nc * sizeof(*na));
            if (!na)
                rc = -ENOMEM;
            else {
                s->acc = na;
                s->cap = nc;
            }
        }
        if (rc == 0) {
            access_ent *n = &s->acc[s->nacc++];
            memset(n, 0, sizeof(*n));
            memcpy(n->name, name, nl);
            n->acc = *acc;
            qsort(s->acc, s->nacc, sizeof(*s->acc), ent_cmp);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static int id_in(uint32_t id, const uint32_t *ids, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* Section 2: may this connection list and open export ex?  (under mu) */
static int may_open(const struct sec_conn *sc, const jbof_export_access *a, const jbof_nbd_export *ex)
{
    if (sc->tls == T_UP) {
        const char *want = a && a->tls_identity[0] ? a->tls_identity : NULL;
        if (want) {
            if (strcmp(want, sc->identity) != 0)
                return 0;
        } else if (strlen(sc->identity) != ex->name_len ||
                   memcmp(sc->identity, ex->name, ex->name_len) != 0) {
            return 0;
        }
    } else if (sc->mode == JBOF_TLS_REQUIRE) {
        return 0;
    }
    if (a && (a->nuids || a->ngids)) {
        if (!sc->unix_peer) {
            if (sc->tls != T_UP)
                return 0; /* TCP: no uid to check; only a TLS identity gets in */
        } else if (!id_in((uint32_t)sc->uid, a->uids, a->nuids) &&
                   !id_in((uint32_t)sc->gid, a->gids, a->ngids)) {
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------ connections ---- */

int sec_conn_init(jbof_engine *e, conn *c, const listener *l)
{
    if (!e || !e->sec || !c || !l)
        return -EINVAL;
    struct sec_conn *sc = calloc(1, sizeof(*sc));
    if (!sc)
        return -ENOMEM;
    sc->e = e;
    sc->mode = (uint8_t)l->tls_mode;
    if (l->path[0]) {
        struct ucred uc;
        socklen_t len = sizeof(uc);
        if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0 && len == sizeof(uc)) {
            sc->unix_peer = 1;
            sc->uid = uc.uid;
            sc->gid = uc.gid;
        }
    }
    c->sec = sc;
    return 0;
}

void sec_conn_free(conn *c)
{
    if (!c || !c->sec)
        return;
    struct sec_conn *sc = c->sec;
#if JBOF_HAVE_GNUTLS
    /* NBD spec: close the TLS session, then the socket (one try: the
     * socket is non-blocking and we do not wait for the peer's reply) */
    if (sc->s && sc->tls == T_UP && c->fd >= 0)
        gnutls_bye(sc->s, GNUTLS_SHUT_WR);
    if (sc->s)
        gnutls_deinit(sc->s);
#endif
    free(sc->tx);
    free(sc->vtab);
    free(sc->vx);
    free(sc);
    c->sec = NULL;
}

/* Append one option reply (header + short message) to hs_out; the caller
 * reserved jbof_nbd_hs_out_max() bytes, which covers 20 + MSG_MAX. */
static void put_opt_reply(conn *c, uint32_t opt, uint32_t type, const char *msg)
{
    uint32_t n = msg ? (uint32_t)strlen(msg) : 0;
    if (n > MSG_MAX)
        n = MSG_MAX;
    uint8_t h[20];
    uint64_t magic = JBOF_NBD_REP_MAGIC;
    for (int i = 7; i >= 0; i--, magic >>= 8)
        h[i] = (uint8_t)magic;
    uint32_t f[3] = {opt, type, n};
    for (int k = 0; k < 3; k++)
        for (int i = 3; i >= 0; i--)
            h[8 + 4 * k + i] = (uint8_t)(f[k] >> (8 * (3 - i)));
    if (c->hs_out_cap - c->hs_out_len < sizeof(h) + n)
        return; /* cannot happen: reserved */
    memcpy(c->hs_out + c->hs_out_len, h, sizeof(h));
    memcpy(c->hs_out + c->hs_out_len + sizeof(h), msg, n);
    c->hs_out_len += sizeof(h) + n;
}

static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#if JBOF_HAVE_GNUTLS
static int tls_begin(jbof_engine *e, conn *c)
{
    struct sec_conn *sc = c->sec;
    struct sec_engine *s = e->sec;
    if (gnutls_init(&sc->s, GNUTLS_SERVER | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL | GNUTLS_NO_TICKETS) < 0) {
        sc->s = NULL;
        return -ENOMEM;
    }
    pthread_mutex_lock(&s->mu); /* cred/prio are set once, before listening */
    int rc = gnutls_priority_set(sc->s, s->prio);
    if (rc >= 0)
        rc = gnutls_credentials_set(sc->s, GNUTLS_CRD_PSK, s->cred);
    pthread_mutex_unlock(&s->mu);
    if (rc < 0)
        return -EINVAL;
    gnutls_session_set_ptr(sc->s, sc);
    gnutls_transport_set_int(sc->s, c->fd);
    gnutls_handshake_set_timeout(sc->s, GNUTLS_INDEFINITE_TIMEOUT); /* the reactor owns time */
    sc->tx = malloc(TLS_TX_BYTES);
    return sc->tx ? 0 : -ENOMEM;
}
#endif

/* STARTTLS (section 3 a-c). */
static int on_starttls(jbof_engine *e, conn *c, uint32_t len, uint32_t avail, uint32_t need)
{
    struct sec_conn *sc = c->sec;
    if (len != 0) {
        put_opt_reply(c, JBOF_NBD_OPT_STARTTLS, (uint32_t)JBOF_NBD_REP_ERR_INVALID,
                      "STARTTLS takes no data");
        return (int)need;
    }
    if (sc->tls != T_NONE) {
        put_opt_reply(c, JBOF_NBD_OPT_STARTTLS, (uint32_t)JBOF_NBD_REP_ERR_INVALID,
                      "TLS already negotiated");
        return (int)need;
    }
    if (avail > need)
        return -EPROTO; /* bytes after STARTTLS before our ACK: plaintext injection */
#if JBOF_HAVE_GNUTLS
    int rc = tls_begin(e, c);
    if (rc < 0)
        return rc;
    put_opt_reply(c, JBOF_NBD_OPT_STARTTLS, JBOF_NBD_REP_ACK, NULL);
    sc->tls = T_ACK_PENDING;
    return (int)need;
#else
    (void)e;
    return -ENOTSUP;
#endif
}

static int build_view(jbof_engine *e, conn *c)
{
    struct sec_conn *sc = c->sec;
    if (sc->vcap < e->ntab) {
        uint32_t cap = e->ntab;
        jbof_nbd_export *vt = malloc(cap * sizeof(*vt));
        export **vx = malloc(cap * sizeof(*vx));
        if (!vt || !vx) {
            free(vt);
            free(vx);
            return -ENOMEM;
        }
        free(sc->vtab);
        free(sc->vx);
        sc->vtab = vt;
        sc->vx = vx;
        sc->vcap = cap;
    }
    sc->vn = 0;
    struct sec_engine *s = e->sec;
    pthread_mutex_lock(&s->mu);
    for (uint32_t i = 0; i < e->ntab; i++) {
        const jbof_export_access *a = access_find(s, e->tab[i].name, e->tab[i].name_len);
        if (!may_open(sc, a, &e->tab[i]))
            continue;
        sc->vtab[sc->vn] = e->tab[i];
        sc->vx[sc->vn++] = e->tab_x[i];
    }
    pthread_mutex_unlock(&s->mu);
    return 0;
}

int sec_hs_filter(jbof_engine *e, conn *c, const uint8_t *in, uint32_t avail,
                  const jbof_nbd_export **tab, uint32_t *ntab)
{
    if (!e || !c || !c->sec || !tab || !ntab)
        return -EINVAL;
    struct sec_conn *sc = c->sec;
    *tab = e->tab;
    *ntab = e->ntab;
    if (c->hs.state != JBOF_NBD_HS_OPTIONS)
        return 0; /* client flags: the codec's */
    if (!(c->hs.client_flags & JBOF_NBD_FLAG_C_FIXED_NEWSTYLE)) {
        /* the spec: no TLS without fixed newstyle; such a client cannot
         * read an error reply either */
        if (sc->mode == JBOF_TLS_REQUIRE) {
            count(e, &e->sec->st.tls_required);
            return -EACCES;
        }
        if (build_view(e, c) < 0)
            return -ENOMEM;
        *tab = sc->vtab;
        *ntab = sc->vn;
        return 0;
    }
    if (avail < JBOF_NBD_OPT_HDR_BYTES)
        return 0;
    uint32_t opt = be32(in + 8), len = be32(in + 12);
    if (len > JBOF_NBD_OPT_MAX_BYTES)
        return 0; /* the codec rejects it (and checks the magic) */
    uint32_t need = JBOF_NBD_OPT_HDR_BYTES + len;
    if (avail < need)
        return 0;
    if (be32(in) != 0x49484156u || be32(in + 4) != 0x454f5054u)
        return 0; /* not IHAVEOPT: the codec closes */
    int ours = (opt == JBOF_NBD_OPT_STARTTLS && sc->mode != JBOF_TLS_OFF) ||
               (sc->mode == JBOF_TLS_REQUIRE && sc->tls != T_UP && opt != JBOF_NBD_OPT_ABORT);
    if (ours) {
        if (++c->hs.options > c->hs.max_options)
            return -ELOOP;
        if (opt == JBOF_NBD_OPT_STARTTLS)
            return on_starttls(e, c, len, avail, need);
        count(e, &e->sec->st.tls_required);
        if (opt == JBOF_NBD_OPT_EXPORT_NAME)
            return -EACCES; /* cannot carry an error: close (NBD spec) */
        put_opt_reply(c, opt, (uint32_t)JBOF_NBD_REP_ERR_TLS_REQD, "TLS required");
        return (int)need;
    }
    int rc = build_view(e, c);
    if (rc < 0)
        return rc;
    *tab = sc->vtab;
    *ntab = sc->vn;
    if (opt == JBOF_NBD_OPT_GO || opt == JBOF_NBD_OPT_INFO || opt == JBOF_NBD_OPT_EXPORT_NAME) {
        /* count a refusal the codec is about to give for an export that exists */
        const uint8_t *name = in + JBOF_NBD_OPT_HDR_BYTES;
        uint32_t nlen = len;
        if (opt != JBOF_NBD_OPT_EXPORT_NAME) {
            nlen = len >= 4 ? be32(name) : 0;
            name += 4;
            if (len < 6 || nlen > len - 6)
                return 0;
        }
        int in_all = 0, in_view = 0;
        for (uint32_t i = 0; i < e->ntab; i++)
            if (e->tab[i].name_len == nlen && memcmp(e->tab[i].name, name, nlen) == 0)
                in_all = 1;
        for (uint32_t i = 0; i < sc->vn; i++)
            if (sc->vtab[i].name_len == nlen && memcmp(sc->vtab[i].name, name, nlen) == 0)
                in_view = 1;
        if (in_all && !in_view)
            count(e, &e->sec->st.denied);
    }
    return 0;
}

export *sec_export_of(jbof_engine *e, conn *c, int idx)
{
    if (!e || !c || !c->sec || idx < 0 || (uint32_t)idx >= c->sec->vn)
        return NULL;
    export *x = c->sec->vx[idx];
    /* the view is only needed during the handshake */
    free(c->sec->vtab);
    free(c->sec->vx);
    c->sec->vtab = NULL;
    c->sec->vx = NULL;
    c->sec->vn = c->sec->vcap = 0;
    return x;
}

/* ------------------------------------------------------------- handshake ---- */

int sec_pump(jbof_engine *e, conn *c)
{
    if (!e || !c || !c->sec)
        return -EINVAL;
    struct sec_conn *sc = c->sec;
    if (sc->tls == T_NONE || sc->tls == T_UP)
        return 1;
#if JBOF_HAVE_GNUTLS
    if (sc->tls == T_ACK_PENDING) {
        if (c->hs_out_sent < c->hs_out_len)
            return 0; /* the ACK is not out yet: conn_flush calls again */
        sc->tls = T_HANDSHAKE;
    }
    for (;;) {
        int rc = gnutls_handshake(sc->s);
        if (rc == GNUTLS_E_SUCCESS)
            break;
        if (rc == GNUTLS_E_INTERRUPTED)
            continue;
        if (rc == GNUTLS_E_AGAIN) {
            if (gnutls_record_get_direction(sc->s) == 0)
                c->readable = 0; /* wait for EPOLLIN; EPOLLOUT re-runs us via conn_flush */
            return 0;
        }
        if (!gnutls_error_is_fatal(rc))
            continue; /* a warning alert */
        count(e, &e->sec->st.tls_failures);
        return -EACCES;
    }
    const char *id = gnutls_psk_server_get_username(sc->s);
    if (!id || !id[0]) {
        count(e, &e->sec->st.tls_failures);
        return -EACCES;
    }
    snprintf(sc->identity, sizeof(sc->identity), "%s", id);
    sc->tls = T_UP;
    count(e, &e->sec->st.tls_handshakes);
    c->readable = 1; /* GnuTLS may hold the first option already */
    ready_push(e, c);
    return 1;
#else
    (void)e;
    return -ENOTSUP;
#endif
}

/* -------------------------------------------------------------- transport ---- */

ssize_t conn_recv(conn *c, void *buf, size_t len)
{
#if JBOF_HAVE_GNUTLS
    if (c->sec && c->sec->tls == T_UP) {
        ssize_t n = gnutls_record_recv(c->sec->s, buf, len);
        if (n >= 0)
            return n;
        if (n == GNUTLS_E_AGAIN)
            errno = EAGAIN;
        else if (n == GNUTLS_E_INTERRUPTED)
            errno = EINTR;
        else if (n == GNUTLS_E_PREMATURE_TERMINATION)
            return 0;
        else
            errno = ECONNRESET;
        return -1;
    }
    if (c->sec && c->sec->tls != T_NONE) {
        errno = EAGAIN; /* mid-STARTTLS: bytes belong to GnuTLS */
        return -1;
    }
#endif
    return read(c->fd, buf, len);
}

int conn_tx_pending(const conn *c)
{
    return c->sec && c->sec->tx_off < c->sec->tx_len;
}

ssize_t conn_sendv(conn *c, const struct iovec *iov, int n)
{
#if JBOF_HAVE_GNUTLS
    if (c->sec && c->sec->tls == T_UP) {
        struct sec_conn *sc = c->sec;
        size_t accepted = 0;
        int i = 0;
        size_t in_iov = 0; /* bytes of iov[i] already accepted */
        for (;;) {
            while (sc->tx_off < sc->tx_len) { /* same arguments on a retry: section 4 */
                ssize_t w = gnutls_record_send(sc->s, sc->tx + sc->tx_off, sc->tx_len - sc->tx_off);
                if (w == GNUTLS_E_INTERRUPTED)
                    continue;
                if (w == GNUTLS_E_AGAIN) {
                    if (accepted)
                        return (ssize_t)accepted;
                    errno = EAGAIN;
                    return -1;
                }
                if (w < 0) {
                    errno = EPIPE;
                    return -1;
                }
                sc->tx_off += (size_t)w;
            }
            sc->tx_off = sc->tx_len = 0;
            while (i < n && in_iov == iov[i].iov_len) {
                i++;
                in_iov = 0;
            }
            if (i >= n)
                return (ssize_t)accepted;
            while (i < n && sc->tx_len < TLS_TX_BYTES) {
                size_t take = iov[i].iov_len - in_iov;
                if (take > TLS_TX_BYTES - sc->tx_len)
                    take = TLS_TX_BYTES - sc->tx_len;
                memcpy(sc->tx + sc->tx_len, (const uint8_t *)iov[i].iov_base + in_iov, take);
                sc->tx_len += take;
                in_iov += take;
                accepted += take;
                if (in_iov == iov[i].iov_len) {
                    i++;
                    in_iov = 0;
                }
            }
        }
    }
    if (c->sec && c->sec->tls == T_HANDSHAKE) {
        errno = EAGAIN; /* nothing of ours goes out mid-handshake */
        return -1;
    }
#endif
    struct msghdr mh = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n};
    return sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}
