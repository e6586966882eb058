/*
 * jbof_tls.h -- authentication and authorization of NBD clients (tls.c):
 * NBD_OPT_STARTTLS with TLS-PSK (GnuTLS), per-listener TLS policy,
 * per-export access rules (PSK identity, unix peer uid/gid allow-lists).
 * The design is explained at the top of csrc/tls.c.
 *
 * The region between CDEF-BEGIN and CDEF-END is fed to cffi (dataplane/
 * _build.py joins every csrc/include/jbof_*.h), so it holds only plain
 * enums, structs and prototypes.  Conventions are jbof.h's: 0 or a negative
 * errno, every argument checked.
 */
#ifndef JBOF_TLS_H
#define JBOF_TLS_H

#include <stdint.h>

#include "jbof_nbd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CDEF-BEGIN */

/* Per listener: what a client must do before it may negotiate an export. */
enum jbof_tls_mode {
    JBOF_TLS_OFF = 0,      /* STARTTLS answered NBD_REP_ERR_UNSUP (plaintext only) */
    JBOF_TLS_ALLOW = 1,    /* STARTTLS offered; plaintext clients still served */
    JBOF_TLS_REQUIRE = 2   /* every option but STARTTLS/ABORT: NBD_REP_ERR_TLS_REQD */
};

enum jbof_tls_limit {
    JBOF_TLS_IDENTITY_MAX_BYTES = 255,  /* longest PSK identity */
    JBOF_TLS_KEY_MAX_BYTES = 128,       /* longest PSK (decoded) */
    JBOF_ACCESS_MAX_IDS = 32,           /* uids (and gids) per export allow-list */
    JBOF_NBD_REP_ERR_TLS_REQD = -2147483643  /* 2^31 + 5, as int32 */
};

typedef struct jbof_listen_sec {
    uint32_t tls;        /* enum jbof_tls_mode */
    uint32_t insecure;   /* 1 = the operator accepts plaintext TCP on a non-loopback address */
} jbof_listen_sec;

/* Who may list and open one export.  An export without an entry gets the
 * defaults: identity = its own name, no uid/gid restriction. */
typedef struct jbof_export_access {
    char tls_identity[256];   /* PSK identity allowed over TLS ("" = the export name) */
    uint32_t nuids;           /* unix sockets: peer uid must be in uids[] or gid in gids[] */
    uint32_t ngids;           /*   (both counts 0 = any peer); TCP peers have no uid, so a */
    uint32_t uids[32];        /*   restricted export is never served to plaintext TCP     */
    uint32_t gids[32];
} jbof_export_access;

typedef struct jbof_sec_stats {
    uint64_t tls_handshakes;     /* TLS sessions established */
    uint64_t tls_failures;       /* handshakes that failed (unknown identity, wrong key, junk) */
    uint64_t tls_required;       /* options refused with NBD_REP_ERR_TLS_REQD (or closed) */
    uint64_t denied;             /* GO/INFO/EXPORT_NAME of an export the client may not open */
    uint32_t keys;               /* PSK identities loaded */
    uint32_t access_rules;       /* exports with an access entry */
} jbof_sec_stats;

/* 1 if this build has GnuTLS (STARTTLS available), else 0. */
int jbof_tls_available(void);
/* Load the PSK file (nbdkit / qemu format: "identity:hexkey" lines, '#'
 * comments).  The file must be a regular file that neither group nor
 * others may access (mode 0600 or stricter): else -EACCES.  -EINVAL for a
 * malformed line, a duplicate identity or no key; -ENOTSUP without GnuTLS.
 * Replaces the keys loaded before (new handshakes use the new keys). */
int jbof_engine_tls_load_psk(jbof_engine *e, const char *path);
/* Listen with a TLS policy (sec NULL = TLS off, not insecure).  A TCP
 * listener on an address that is not loopback (127/8, ::1) needs
 * tls = REQUIRE or insecure = 1, else -EPERM.  tls != OFF needs the PSK
 * file loaded first (-ENOKEY).  The plain jbof_engine_listen_tcp applies
 * the same rule with sec NULL. */
int jbof_engine_listen_unix_sec(jbof_engine *e, const char *path, const jbof_listen_sec *sec);
int jbof_engine_listen_tcp_sec(jbof_engine *e, const char *host, uint16_t port, uint16_t *port_out,
                               const jbof_listen_sec *sec);
/* Set (acc != NULL) or drop (NULL: back to the defaults) the access rule
 * of the export called name; any time, from any thread; applies to
 * handshakes that follow (an open connection keeps its export). */
int jbof_engine_set_access(jbof_engine *e, const char *name, const jbof_export_access *acc);
int jbof_engine_sec_stats(jbof_engine *e, jbof_sec_stats *out);

/* CDEF-END */

#ifdef __cplusplus
}
#endif

#endif /* JBOF_TLS_H */
