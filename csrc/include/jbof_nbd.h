/*
 * jbof_nbd.h -- the live NBD target: wire codec (nbd_codec.c), IO backends
 * (backend_*.c) and the reactor that serves tenants (reactor.c).
 *
 * The region between CDEF-BEGIN and CDEF-END is fed to cffi next to jbof.h's,
 * so it holds only plain enums, structs and prototypes.  Wire layouts (byte
 * arrays, sizes checked by _Static_assert) and the backend ops table are
 * below it: they are internal to the C files.
 *
 * Conventions are jbof.h's: 0 / a count or a negative errno; no clock reads
 * outside reactor.c; units in the names.
 */
#ifndef JBOF_NBD_H
#define JBOF_NBD_H

#include <stddef.h>
#include <stdint.h>

#include "jbof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CDEF-BEGIN */

/* ------------------------------------------------------ NBD constants ---- */
/* Values from the NBD protocol (doc/proto.md of NetworkBlockDevice/nbd).
 * The 64-bit magics are macros below (cffi enums are int-sized). */

enum jbof_nbd_wire {
    JBOF_NBD_REQUEST_MAGIC = 0x25609513,      /* C: every transmission request */
    JBOF_NBD_SIMPLE_REPLY_MAGIC = 0x67446698, /* S: simple reply */
    JBOF_NBD_GREETING_BYTES = 18,             /* NBDMAGIC, IHAVEOPT, handshake flags */
    JBOF_NBD_OPT_HDR_BYTES = 16,              /* IHAVEOPT, option, length */
    JBOF_NBD_REQUEST_BYTES = 28,
    JBOF_NBD_REPLY_BYTES = 16
};

/* handshake flags (server) and client flags */
enum jbof_nbd_hflag {
    JBOF_NBD_FLAG_FIXED_NEWSTYLE = 1,
    JBOF_NBD_FLAG_NO_ZEROES = 2,
    JBOF_NBD_FLAG_C_FIXED_NEWSTYLE = 1,
    JBOF_NBD_FLAG_C_NO_ZEROES = 2
};

/* transmission flags (16 bits, per export) */
enum jbof_nbd_tflag {
    JBOF_NBD_FLAG_HAS_FLAGS = 1 << 0,
    JBOF_NBD_FLAG_READ_ONLY = 1 << 1,
    JBOF_NBD_FLAG_SEND_FLUSH = 1 << 2,
    JBOF_NBD_FLAG_SEND_FUA = 1 << 3,
    JBOF_NBD_FLAG_ROTATIONAL = 1 << 4,
    JBOF_NBD_FLAG_SEND_TRIM = 1 << 5,
    JBOF_NBD_FLAG_SEND_WRITE_ZEROES = 1 << 6,
    JBOF_NBD_FLAG_SEND_DF = 1 << 7,
    JBOF_NBD_FLAG_CAN_MULTI_CONN = 1 << 8
};

enum jbof_nbd_opt {
    JBOF_NBD_OPT_EXPORT_NAME = 1,
    JBOF_NBD_OPT_ABORT = 2,
    JBOF_NBD_OPT_LIST = 3,
    JBOF_NBD_OPT_STARTTLS = 5,
    JBOF_NBD_OPT_INFO = 6,
    JBOF_NBD_OPT_GO = 7,
    JBOF_NBD_OPT_STRUCTURED_REPLY = 8,
    JBOF_NBD_OPT_LIST_META_CONTEXT = 9,
    JBOF_NBD_OPT_SET_META_CONTEXT = 10,
    JBOF_NBD_OPT_EXTENDED_HEADERS = 11
};

/* option reply types; errors have bit 31 set */
enum jbof_nbd_rep {
    JBOF_NBD_REP_ACK = 1,
    JBOF_NBD_REP_SERVER = 2,
    JBOF_NBD_REP_INFO = 3,
    JBOF_NBD_REP_ERR_UNSUP = -2147483647,   /* 2^31 + 1, as int32 */
    JBOF_NBD_REP_ERR_POLICY = -2147483646,  /* 2^31 + 2 */
    JBOF_NBD_REP_ERR_INVALID = -2147483645, /* 2^31 + 3 */
    JBOF_NBD_REP_ERR_UNKNOWN = -2147483642, /* 2^31 + 6 */
    JBOF_NBD_REP_ERR_SHUTDOWN = -2147483641 /* 2^31 + 7 */
};

enum jbof_nbd_info {
    JBOF_NBD_INFO_EXPORT = 0,
    JBOF_NBD_INFO_NAME = 1,
    JBOF_NBD_INFO_DESCRIPTION = 2,
    JBOF_NBD_INFO_BLOCK_SIZE = 3
};

enum jbof_nbd_cmd {
    JBOF_NBD_CMD_READ = 0,
    JBOF_NBD_CMD_WRITE = 1,
    JBOF_NBD_CMD_DISC = 2,
    JBOF_NBD_CMD_FLUSH = 3,
    JBOF_NBD_CMD_TRIM = 4,
    JBOF_NBD_CMD_CACHE = 5,        /* not supported: EINVAL */
    JBOF_NBD_CMD_WRITE_ZEROES = 6,
    JBOF_NBD_CMD_BLOCK_STATUS = 7  /* not supported: EINVAL */
};

enum jbof_nbd_cmd_flag {
    JBOF_NBD_CMD_FLAG_FUA = 1 << 0,
    JBOF_NBD_CMD_FLAG_NO_HOLE = 1 << 1,
    JBOF_NBD_CMD_FLAG_DF = 1 << 2,
    JBOF_NBD_CMD_FLAG_FAST_ZERO = 1 << 4
};

/* NBD wire error values (the only ones a reply may carry) */
enum jbof_nbd_err {
    JBOF_NBD_EPERM = 1,
    JBOF_NBD_EIO = 5,
    JBOF_NBD_ENOMEM = 12,
    JBOF_NBD_EINVAL = 22,
    JBOF_NBD_ENOSPC = 28,
    JBOF_NBD_EOVERFLOW = 75,
    JBOF_NBD_ENOTSUP = 95,
    JBOF_NBD_ESHUTDOWN = 108
};

/* Limits of this server. */
enum jbof_nbd_limit {
    JBOF_NBD_NAME_MAX_BYTES = 255,          /* longest export name we serve */
    JBOF_NBD_OPT_MAX_BYTES = 8192,          /* longer option data: hard disconnect */
    JBOF_NBD_MAX_PAYLOAD_BYTES = 33554432,  /* 32 MiB: READ/WRITE length cap */
    JBOF_NBD_HS_OPTIONS_BASE = 64           /* option budget: base + 4 per export */
};

/* ------------------------------------------------------------- codec ---- */

/* One export as the codec sees it (the reactor builds the table). */
typedef struct jbof_nbd_export {
    const char *name;            /* name_len bytes, not NUL-terminated */
    uint32_t name_len;
    uint32_t min_block_bytes;    /* requests must be multiples of this */
    uint32_t pref_block_bytes;
    uint32_t max_payload_bytes;
    uint64_t size_bytes;
    uint16_t tflags;             /* transmission flags, jbof_nbd_tflags() */
    uint16_t pad16;
    uint32_t pad32;
} jbof_nbd_export;

enum jbof_nbd_hs_state {
    JBOF_NBD_HS_CLIENT_FLAGS = 0, /* greeting sent, waiting for client flags */
    JBOF_NBD_HS_OPTIONS = 1,      /* option haggling */
    JBOF_NBD_HS_DONE = 2,         /* transmission: export chosen */
    JBOF_NBD_HS_ABORTED = 3       /* client sent ABORT: flush output, close */
};

typedef struct jbof_nbd_hs {
    uint32_t state;          /* enum jbof_nbd_hs_state */
    uint32_t client_flags;
    uint32_t options;        /* options handled so far */
    uint32_t max_options;    /* bound on the option loop */
    int32_t export_index;    /* chosen export once DONE, else -1 */
    uint32_t pad;
} jbof_nbd_hs;

typedef struct jbof_nbd_request {
    uint64_t handle;         /* client's cookie, echoed in the reply */
    uint64_t offset_bytes;
    uint32_t length_bytes;
    uint16_t flags;          /* enum jbof_nbd_cmd_flag */
    uint16_t type;           /* enum jbof_nbd_cmd */
} jbof_nbd_request;

/* errno (sign ignored) -> NBD wire error.  The one errno mapping of the
 * server: EROFS->EPERM, EDQUOT/EFBIG->ENOSPC, unknown->EIO, 0->0. */
uint32_t jbof_nbd_errno_to_wire(int err);
/* Transmission flags we advertise for an export. */
uint16_t jbof_nbd_tflags(int read_only);
/* Write the 18-byte server greeting; returns 18 or -ENOBUFS/-EINVAL. */
int jbof_nbd_greeting(uint8_t *out, size_t cap);
/* Reset a handshake; max_options bounds the option loop (0 = default). */
int jbof_nbd_hs_init(jbof_nbd_hs *hs, uint32_t max_options);
/* Output bytes that always suffice for one jbof_nbd_hs_step reply. */
size_t jbof_nbd_hs_out_max(const jbof_nbd_export *ex, uint32_t nex);
/* Handle at most one client message of the handshake held in in[0, in_len).
 * Returns the bytes consumed (> 0; reply bytes appended at out[*out_len]),
 * 0 when the message is incomplete, or a negative errno meaning "close this
 * connection now" (-EPROTO malformed, -EMSGSIZE oversized option, -ENOENT
 * EXPORT_NAME of an unknown export, -ENOBUFS out too small, -ELOOP too many
 * options).  After a successful return check hs->state: DONE (transmission,
 * hs->export_index set) or ABORTED (send the output, then close). */
int jbof_nbd_hs_step(jbof_nbd_hs *hs, const jbof_nbd_export *ex, uint32_t nex,
                     const uint8_t *in, size_t in_len,
                     uint8_t *out, size_t out_cap, size_t *out_len);
/* Decode one 28-byte request header: 28, 0 (incomplete) or -EPROTO (bad magic). */
int jbof_nbd_parse_request(const uint8_t *in, size_t in_len, jbof_nbd_request *out);
/* Validate a decoded request against its export.  0 = serve it; -EINVAL,
 * -ENOSPC, -EPERM = reply with that error (a WRITE's payload must still be
 * consumed); -EMSGSIZE = WRITE payload above max_payload: close. */
int jbof_nbd_check_request(const jbof_nbd_request *r, const jbof_nbd_export *ex);
/* Write a 16-byte simple reply carrying jbof_nbd_errno_to_wire(err). */
int jbof_nbd_simple_reply(uint8_t *out, size_t cap, uint64_t handle, int err);
/* Encode a request header (for clients and tests); returns 28. */
int jbof_nbd_build_request(uint8_t *out, size_t cap, const jbof_nbd_request *r);

/* CDEF-END */

/* ------------------------------------------------------ wire layouts ---- */
/* Big-endian fields as byte arrays: no padding, no alignment traps on ARM,
 * and the sizes are checked at compile time.  Read/written with the
 * be*_load/store helpers of nbd_codec.c. */

#define JBOF_NBD_INIT_PASSWD 0x4e42444d41474943ull /* "NBDMAGIC" */
#define JBOF_NBD_IHAVEOPT 0x49484156454f5054ull    /* "IHAVEOPT" */
#define JBOF_NBD_REP_MAGIC 0x0003e889045565a9ull   /* option reply magic */

struct jbof_nbd_wire_greeting {
    uint8_t passwd[8];       /* NBDMAGIC */
    uint8_t opt_magic[8];    /* IHAVEOPT */
    uint8_t hflags[2];       /* handshake flags */
};
struct jbof_nbd_wire_opt {
    uint8_t magic[8];        /* IHAVEOPT */
    uint8_t option[4];       /* enum jbof_nbd_opt */
    uint8_t length[4];       /* bytes of option data that follow */
};
struct jbof_nbd_wire_opt_reply {
    uint8_t magic[8];        /* JBOF_NBD_REP_MAGIC */
    uint8_t option[4];       /* the option replied to */
    uint8_t type[4];         /* enum jbof_nbd_rep */
    uint8_t length[4];       /* bytes of reply data that follow */
};
struct jbof_nbd_wire_info_export {
    uint8_t info[2];         /* NBD_INFO_EXPORT */
    uint8_t size[8];         /* export size, bytes */
    uint8_t tflags[2];       /* transmission flags */
};
struct jbof_nbd_wire_info_block_size {
    uint8_t info[2];         /* NBD_INFO_BLOCK_SIZE */
    uint8_t min_block[4];    /* requests are multiples of this */
    uint8_t pref_block[4];   /* preferred IO size */
    uint8_t max_payload[4];  /* largest READ/WRITE */
};
struct jbof_nbd_wire_export_name_reply {
    uint8_t size[8];         /* export size, bytes */
    uint8_t tflags[2];       /* transmission flags */
    uint8_t zeroes[124];     /* omitted when NO_ZEROES was negotiated */
};
struct jbof_nbd_wire_request {
    uint8_t magic[4];        /* JBOF_NBD_REQUEST_MAGIC */
    uint8_t flags[2];        /* command flags */
    uint8_t type[2];         /* enum jbof_nbd_cmd */
    uint8_t handle[8];       /* echoed in the reply */
    uint8_t offset[8];       /* byte offset in the export */
    uint8_t length[4];       /* bytes; WRITE payload follows */
};
struct jbof_nbd_wire_simple_reply {
    uint8_t magic[4];        /* JBOF_NBD_SIMPLE_REPLY_MAGIC */
    uint8_t error[4];        /* enum jbof_nbd_err, 0 = success */
    uint8_t handle[8];       /* the request's handle; READ data follows */
};

_Static_assert(sizeof(struct jbof_nbd_wire_greeting) == 18, "greeting is 18 bytes");
_Static_assert(sizeof(struct jbof_nbd_wire_opt) == 16, "option header is 16 bytes");
_Static_assert(sizeof(struct jbof_nbd_wire_opt_reply) == 20, "option reply header is 20 bytes");
_Static_assert(sizeof(struct jbof_nbd_wire_info_export) == 12, "NBD_INFO_EXPORT is 12 bytes");
_Static_assert(sizeof(struct jbof_nbd_wire_info_block_size) == 14, "NBD_INFO_BLOCK_SIZE is 14 bytes");
_Static_assert(sizeof(struct jbof_nbd_wire_export_name_reply) == 134, "EXPORT_NAME reply is 134 bytes");
_Static_assert(sizeof(struct jbof_nbd_wire_request) == 28, "request header is 28 bytes");
_Static_assert(sizeof(struct jbof_nbd_wire_simple_reply) == 16, "simple reply is 16 bytes");

#ifdef __cplusplus
}
#endif

#endif /* JBOF_NBD_H */
