/*
 * jbof_nbd.h -- the live NBD target's public API: the wire codec
 * (nbd_codec.c) and the engine that serves tenants (engine.c, conn.c, io.c,
 * export.c; overview in csrc/reactor.h).
 *
 * The region between CDEF-BEGIN and CDEF-END is fed to cffi next to jbof.h's,
 * so it holds only plain enums, structs and prototypes.  Wire layouts (byte
 * arrays, sizes checked by _Static_assert) are below it: they are internal
 * to the C files.  The backend interface (the ops table every backend
 * implements) is not public: it is csrc/backend.h.
 *
 * Conventions are jbof.h's: 0 / a count or a negative errno; no clock reads
 * outside engine.c; units in the names.
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
    JBOF_NBD_REPLY_BYTES = 16,
    JBOF_NBD_STRUCTURED_REPLY_MAGIC = 0x668e33ef, /* S: one structured reply chunk */
    JBOF_NBD_CHUNK_HDR_BYTES = 20,            /* magic flags type handle length */
    JBOF_NBD_READ_CHUNK_HDR_BYTES = 28,       /* chunk header + offset, data follows */
    JBOF_NBD_ERROR_CHUNK_BYTES = 26,          /* chunk header + error + msglen (no text) */
    JBOF_NBD_BS_CHUNK_HDR_BYTES = 24,         /* chunk header + context id, extents follow */
    JBOF_NBD_HDR_MAX_BYTES = 32               /* room for any reply header above */
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
    JBOF_NBD_FLAG_CAN_MULTI_CONN = 1 << 8,
    JBOF_NBD_FLAG_SEND_CACHE = 1 << 10,
    JBOF_NBD_FLAG_SEND_FAST_ZERO = 1 << 11
};

/* What a connection negotiated during the handshake (jbof_nbd_hs.neg). */
enum jbof_nbd_neg {
    JBOF_NBD_NEG_STRUCTURED = 1,   /* NBD_OPT_STRUCTURED_REPLY acknowledged */
    JBOF_NBD_NEG_META_ALLOC = 2    /* base:allocation selected (SET_META_CONTEXT) */
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
    JBOF_NBD_REP_META_CONTEXT = 4,
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
    JBOF_NBD_CMD_CACHE = 5,        /* advisory: validated, answered at once */
    JBOF_NBD_CMD_WRITE_ZEROES = 6,
    JBOF_NBD_CMD_BLOCK_STATUS = 7  /* needs base:allocation negotiated */
};

enum jbof_nbd_cmd_flag {
    JBOF_NBD_CMD_FLAG_FUA = 1 << 0,
    JBOF_NBD_CMD_FLAG_NO_HOLE = 1 << 1,
    JBOF_NBD_CMD_FLAG_DF = 1 << 2,
    JBOF_NBD_CMD_FLAG_REQ_ONE = 1 << 3,
    JBOF_NBD_CMD_FLAG_FAST_ZERO = 1 << 4
};

/* structured reply chunk types and flags */
enum jbof_nbd_reply_type {
    JBOF_NBD_REPLY_FLAG_DONE = 1,
    JBOF_NBD_REPLY_TYPE_NONE = 0,
    JBOF_NBD_REPLY_TYPE_OFFSET_DATA = 1,
    JBOF_NBD_REPLY_TYPE_OFFSET_HOLE = 2,
    JBOF_NBD_REPLY_TYPE_BLOCK_STATUS = 5,
    JBOF_NBD_REPLY_TYPE_ERROR = 32769,        /* 2^15 + 1 */
    JBOF_NBD_REPLY_TYPE_ERROR_OFFSET = 32770
};

/* base:allocation: the one metadata context served, its id and its flags */
enum jbof_nbd_meta {
    JBOF_NBD_META_BASE_ALLOCATION_ID = 1,
    JBOF_NBD_STATE_HOLE = 1,       /* not allocated */
    JBOF_NBD_STATE_ZERO = 2        /* reads as zeroes */
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
    JBOF_NBD_HS_OPTIONS_BASE = 64,          /* option budget: base + 4 per export */
    JBOF_NBD_DESC_MAX_BYTES = 255,          /* longest export description */
    JBOF_NBD_EXTENTS_MAX = 1024             /* extents in one BLOCK_STATUS reply */
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
    const char *description;     /* description_len bytes (LIST, INFO_DESCRIPTION) */
    uint32_t description_len;    /* 0: none */
    uint32_t is_default;         /* 1: also served under the empty name "" */
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
    uint32_t neg;            /* enum jbof_nbd_neg bits */
    int32_t meta_export;     /* export SET_META_CONTEXT named, else -1 */
} jbof_nbd_hs;

/* One extent of a BLOCK_STATUS reply (host order until encoded). */
typedef struct jbof_nbd_extent {
    uint32_t length_bytes;
    uint32_t flags;          /* JBOF_NBD_STATE_HOLE | JBOF_NBD_STATE_ZERO, 0 = data */
} jbof_nbd_extent;

typedef struct jbof_nbd_request {
    uint64_t handle;         /* client's cookie, echoed in the reply */
    uint64_t offset_bytes;
    uint32_t length_bytes;
    uint16_t flags;          /* enum jbof_nbd_cmd_flag */
    uint16_t type;           /* enum jbof_nbd_cmd */
} jbof_nbd_request;

/* errno (sign ignored) -> NBD wire error, the server's one errno -> wire
 * mapping: EROFS->EPERM, EDQUOT/EFBIG->ENOSPC, unknown->EIO, 0->0.  (The
 * engine narrows backend errors to EIO or ENOSPC before this: a policy on
 * what a client may learn of the device, io.c backend_status.) */
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
/* The same, for a connection that negotiated neg (jbof_nbd_hs.neg): DF on
 * READ needs structured replies, BLOCK_STATUS needs base:allocation. */
int jbof_nbd_check_request_neg(const jbof_nbd_request *r, const jbof_nbd_export *ex, uint32_t neg);
/* Structured replies (nbd_codec.c section 6).  Each returns the bytes
 * written or -EINVAL / -ENOBUFS.  A 20-byte chunk header: */
int jbof_nbd_chunk_header(uint8_t *out, size_t cap, uint64_t handle, uint16_t flags,
                          uint16_t type, uint32_t length);
/* The header of a whole successful READ: one OFFSET_DATA chunk with DONE
 * (28 bytes; data_len bytes of data follow), or, for data_len 0, one NONE
 * chunk with DONE (20 bytes). */
int jbof_nbd_read_chunk(uint8_t *out, size_t cap, uint64_t handle, uint64_t offset, uint32_t data_len);
/* A final ERROR chunk carrying jbof_nbd_errno_to_wire(err) (err != 0), no text: 26 bytes. */
int jbof_nbd_error_chunk(uint8_t *out, size_t cap, uint64_t handle, int err);
/* The 24-byte head of a final BLOCK_STATUS chunk for n extents of context ctx_id. */
int jbof_nbd_block_status_header(uint8_t *out, size_t cap, uint64_t handle, uint32_t ctx_id, uint32_t n);
/* Encode n extents big-endian into out (8 bytes each; out may alias ext). */
int jbof_nbd_encode_extents(uint8_t *out, size_t cap, const jbof_nbd_extent *ext, uint32_t n);
/* Write a 16-byte simple reply carrying jbof_nbd_errno_to_wire(err). */
int jbof_nbd_simple_reply(uint8_t *out, size_t cap, uint64_t handle, int err);
/* Encode a request header (for clients and tests); returns 28. */
int jbof_nbd_build_request(uint8_t *out, size_t cap, const jbof_nbd_request *r);

/* ------------------------------------------------------------ engine ---- */
/* The live target: drives (a backend + a scheduler each), exports (one per
 * tenant: a namespace on a drive), listeners, and one reactor thread.  See
 * csrc/reactor.h for the event loop and the control protocol. */

enum jbof_backend_kind {
    JBOF_BACKEND_MEMORY = 0,   /* RAM (anonymous mapping, lazily backed) */
    JBOF_BACKEND_FILE = 1,     /* regular file or block device */
    JBOF_BACKEND_EMULATED = 2, /* jbof_ssd model timing, data in RAM or a sparse file */
    JBOF_BACKEND_KIND_COUNT = 3
};

enum jbof_io_mode {
    JBOF_IO_AUTO = 0,     /* file: io_uring, else the thread pool (one log line) */
    JBOF_IO_URING = 1,    /* file: io_uring (reported when in use) */
    JBOF_IO_THREADS = 2,  /* file: pread/pwrite thread pool */
    JBOF_IO_INLINE = 3    /* memory, emulated: data copied in the reactor thread */
};

/* How a drive prices WRITE_ZEROES and TRIM (cost.c section 6). */
enum jbof_zero_cost {
    JBOF_ZERO_COST_AUTO = 0,    /* from the backend: as a write of the range where it
                                 * may write it (a block device; a file whose
                                 * fallocate cannot zero), else the command only */
    JBOF_ZERO_COST_COMMAND = 1, /* always the command only */
    JBOF_ZERO_COST_WRITE = 2,   /* always as a write of the range */
    JBOF_ZERO_COST_COUNT = 3
};

/* jbof_drive_info.zero_writes: which zeroing requests the backend may carry
 * out by writing data (JBOF_ZW_*; memory and emulated: none). */
enum {
    JBOF_ZW_HOLE = 1,     /* WRITE_ZEROES without NO_HOLE (fallocate PUNCH_HOLE) */
    JBOF_ZW_NO_HOLE = 2,  /* WRITE_ZEROES with NO_HOLE (fallocate ZERO_RANGE) */
    JBOF_ZW_TRIM = 4,     /* TRIM (a block device's PUNCH_HOLE: the device's WRITE ZEROES) */
    JBOF_ZW_FAST = 8      /* FAST_ZERO requests too (a block device: the device decides) */
};

typedef struct jbof_drive_cfg {
    char name[64];
    char path[1024];       /* file: file or block device; emulated: optional sparse data file */
    char model[64];        /* emulated: jbof_ssd preset (e.g. "dct983") */
    uint32_t backend;      /* enum jbof_backend_kind */
    uint32_t io_mode;      /* enum jbof_io_mode (file backend) */
    uint64_t size_bytes;   /* 0 = size of the file or device (file backend only) */
    uint32_t block_bytes;  /* minimum IO unit and alignment (0 = what the backend needs: 1 for
                            * memory, emulated and buffered files, O_DIRECT's alignment else;
                            * always raised to that need) */
    uint32_t queue_depth;  /* io_uring entries (0 = 256) */
    uint32_t threads;      /* fallback pread/pwrite workers (0 = 4) */
    uint32_t direct;       /* file: 1 = O_DIRECT when the file system allows it */
    uint32_t error_every;  /* fault injection (nbdkit's error filter): every Nth IO fails with EIO; 0 = off */
    int32_t reactor;       /* the reactor thread that owns this drive (0 .. reactors - 1);
                            * -1 = round robin by drive id */
    uint64_t seed;         /* emulated: model seed */
    jbof_sched_cfg sched;  /* this drive's scheduler */
    uint32_t zero_cost;    /* enum jbof_zero_cost (0 = auto) */
    uint32_t pad_zero;     /* zero */
} jbof_drive_cfg;

typedef struct jbof_export_cfg {
    char name[256];         /* NBD export name = tenant name (1..255 bytes) */
    uint32_t drive;         /* drive id from jbof_engine_add_drive */
    uint32_t read_only;
    uint64_t size_bytes;    /* namespace size, a multiple of the drive's block */
    jbof_tenant_cfg tenant; /* scheduler parameters */
    char description[256];  /* shown by LIST and INFO_DESCRIPTION ("" = none) */
    uint32_t is_default;    /* 1: also the default export (empty name); one per engine */
    uint32_t pad;
    /* Per-tenant budgets (csrc/budget.c); 0 = the engine's default. */
    uint64_t buffer_bytes;  /* data buffers this tenant may hold */
    uint32_t max_requests;  /* request slots this tenant may hold */
    uint32_t max_connections; /* established connections to this export */
    /* Placement (export.c section 2): 0 = first fit; 1 = at base_bytes, which
     * must be a multiple of the drive's block, inside the drive and not
     * overlap another namespace (-EINVAL, -EEXIST for an overlap). */
    uint32_t at_base;
    uint32_t pad_base;
    uint64_t base_bytes;
} jbof_export_cfg;

typedef struct jbof_engine_cfg {
    uint32_t max_connections;   /* 0 = 1024 */
    uint32_t max_requests;      /* request slots, all connections (0 = 4096) */
    uint32_t max_conn_requests; /* outstanding requests per connection (0 = 512) */
    uint32_t max_exports;       /* 0 = 1024 */
    uint64_t buffer_bytes;      /* data buffer budget (0 = 256 MiB; >= 32 MiB) */
    uint64_t drain_timeout_ns;  /* bound on a graceful stop (0 = 10 s) */
    /* Per-tenant budgets and the handshake guard (csrc/budget.c). */
    uint64_t tenant_buffer_bytes; /* per-tenant buffer budget (0 = buffer_bytes / exports,
                                   * clamped to [4 MiB, buffer_bytes / 2]) */
    uint32_t tenant_requests;   /* per-tenant request slots (0 = max_requests / exports,
                                 * clamped to [64, max_requests / 2]) */
    uint32_t max_conns_per_tenant; /* established connections per export (0 = 256) */
    uint32_t max_hs_connections;/* connections in the handshake at once (0 = max_connections / 4) */
    uint32_t peer_accept_rate;  /* new connections per second per peer uid / IP (0 = 256) */
    uint32_t peer_accept_burst; /* that token bucket's depth (0 = 1024) */
    uint32_t pad_guard;
    uint64_t hs_timeout_ns;     /* the handshake must end within this (0 = 10 s) */
    uint64_t hs_idle_ns;        /* a connection that sends nothing is closed after (0 = 3 s) */
    uint64_t scrub_rate_bps;    /* background zeroing of removed namespaces, bytes/s per
                                 * drive (0 = 16 GiB/s; csrc/scrub.c) */
    /* Reactor threads (csrc/reactor.h section 7).  Slots, buffers and the
     * limits above are per reactor; drives never span two reactors. */
    uint32_t reactors;          /* 0 = 1; at most 64 */
    uint32_t ncpus;             /* 0 = not pinned, else == reactors */
    uint32_t cpus[64];          /* reactor i runs on CPU cpus[i] (pthread_setaffinity_np) */
} jbof_engine_cfg;

typedef struct jbof_export_stats {
    jbof_tenant_stats tenant;   /* the scheduler's view */
    uint64_t ns_base_bytes;     /* namespace start on the drive */
    uint64_t size_bytes;
    uint32_t drive;
    uint32_t read_only;
    uint32_t connections;       /* open now */
    uint32_t stalled;           /* connections not read for lack of SQ credits now */
    uint64_t connections_total;
    uint64_t requests;          /* requests parsed */
    uint64_t error_replies;     /* replies carrying an error */
    uint64_t credit_stalls;     /* times a connection stopped being read: SQ full */
    uint64_t rx_payload_bytes;  /* WRITE payload received */
    uint64_t tx_payload_bytes;  /* READ data sent */
    uint64_t block_status;      /* BLOCK_STATUS requests answered (metadata, no drive IO) */
    uint64_t cache;             /* CACHE requests answered (advisory) */
    uint64_t budget_stalls;     /* times a connection stopped being read: tenant budget spent */
    uint64_t conn_rejects;      /* handshakes refused: max_connections of this export */
    uint64_t buffer_bytes_used; /* data buffers held now */
    uint64_t buffer_budget_bytes;
    uint32_t requests_used;     /* request slots held now */
    uint32_t request_budget;
    uint64_t flushed_requests;  /* answered ESHUTDOWN at removal: queued or parked */
    uint64_t stall_max_ns;      /* longest time with IO in its SQ or drive and no completion */
    uint64_t stall_now_ns;      /* the current such time (0: nothing outstanding) */
} jbof_export_stats;

typedef struct jbof_drive_info {
    jbof_drive_stats sched;     /* the scheduler's view */
    jbof_ssd_stats ssd;         /* emulated backend only (else zeroes) */
    uint64_t size_bytes;
    uint64_t allocated_bytes;   /* given to namespaces */
    uint64_t backend_submitted;
    uint64_t backend_completed;
    uint64_t backend_errors;
    uint32_t backend_inflight;
    uint32_t backend;           /* enum jbof_backend_kind */
    uint32_t io_mode;           /* enum jbof_io_mode actually in use */
    uint32_t block_bytes;
    uint32_t direct;            /* 1 if O_DIRECT is in use */
    uint32_t exports;
    uint64_t backend_eof_errors;/* IO past the end of a truncated / vanished file (EIO) */
    uint64_t scrub_pending_bytes; /* freed namespace space not yet zeroed (reads as zeroes) */
    uint64_t scrubbed_bytes;    /* zeroed so far */
    uint32_t zero_cost;         /* enum jbof_zero_cost, as configured */
    uint32_t zero_writes;       /* JBOF_ZW_* the backend reports (learned: may grow) */
} jbof_drive_info;

typedef struct jbof_engine_stats {
    uint64_t loops;             /* reactor iterations */
    uint64_t accepted;
    uint64_t closed;
    uint64_t protocol_errors;   /* connections closed for a protocol violation */
    uint64_t handshakes;        /* connections that reached transmission */
    uint64_t requests;
    uint64_t pool_stalls;       /* times a connection waited for a slot or buffer */
    uint64_t buffer_bytes;      /* data buffers allocated (in use + cached) */
    uint64_t buffer_budget_bytes;
    uint32_t connections;
    uint32_t exports;
    uint32_t drives;
    uint32_t requests_active;   /* slots in use */
    uint32_t running;           /* 1 while the reactor thread runs */
    uint32_t stopping;
    uint32_t hs_connections;    /* connections in the handshake now */
    uint64_t hs_timeouts;       /* closed: handshake not done within hs_timeout_ns */
    uint64_t hs_idle_closed;    /* closed: sent nothing within hs_idle_ns */
    uint64_t hs_rejected;       /* refused at accept: max_hs_connections or max_connections */
    uint64_t rate_limited;      /* refused at accept: the peer's accept rate */
    uint64_t tenant_conn_rejects; /* handshakes refused: an export's max_connections */
    uint64_t handoffs_out;      /* handshakes done here for an export of another reactor */
    uint64_t handoffs_in;       /* connections adopted from the listener reactor */
    uint32_t reactors;          /* reactor threads (summed stats) / 1 (one reactor's) */
    uint32_t pad_reactors;
} jbof_engine_stats;

typedef struct jbof_engine jbof_engine;

/* Engine lifecycle (engine.c).  Drives and listeners are added before
 * jbof_engine_start; an engine runs once (start, stop, destroy). */
int jbof_engine_create(const jbof_engine_cfg *cfg, jbof_engine **out);
/* Stops the reactor first if it runs. */
void jbof_engine_destroy(jbof_engine *e);
int jbof_engine_add_drive(jbof_engine *e, const jbof_drive_cfg *cfg, uint32_t *id_out);
/* One reactor's counters (jbof_engine_get_stats sums them); -ENOENT past
 * the last reactor. */
int jbof_engine_reactor_stats(jbof_engine *e, uint32_t reactor, jbof_engine_stats *out);
/* The reactor that owns drive_id (>= 0), or -ENOENT. */
int jbof_engine_drive_reactor(jbof_engine *e, uint32_t drive_id);
/* A stale socket file is replaced; a live one gives -EADDRINUSE. */
int jbof_engine_listen_unix(jbof_engine *e, const char *path);
/* host: an IPv4/IPv6 literal; port 0 picks one, returned in *port_out. */
int jbof_engine_listen_tcp(jbof_engine *e, const char *host, uint16_t port, uint16_t *port_out);
int jbof_engine_start(jbof_engine *e);
/* Graceful: stop accepting, drain in-flight IO (bounded), sync, close. */
int jbof_engine_stop(jbof_engine *e);

/* Control, callable from any thread at any time: applied by the reactor
 * between two batches (or inline while it does not run).  Each blocks until
 * applied.  Exports are named by their NBD export name. */
int jbof_engine_export_add(jbof_engine *e, const jbof_export_cfg *cfg);
/* Fails the export's queued IO with ESHUTDOWN, closes its connections once
 * their replies are out (250 ms at most), waits for its in-flight IO
 * (export.c section 4).  Other commands are applied meanwhile. */
int jbof_engine_export_remove(jbof_engine *e, const char *name);
int jbof_engine_export_set(jbof_engine *e, const char *name, const jbof_tenant_cfg *cfg);
int jbof_engine_export_stats(jbof_engine *e, const char *name, jbof_export_stats *out);
int jbof_engine_export_hist(jbof_engine *e, const char *name, jbof_hist *out);
int jbof_engine_drive_set_policy(jbof_engine *e, uint32_t drive, uint32_t policy);
int jbof_engine_drive_configure(jbof_engine *e, uint32_t drive, const jbof_sched_cfg *cfg);
int jbof_engine_drive_get_cfg(jbof_engine *e, uint32_t drive, jbof_sched_cfg *out);
int jbof_engine_drive_stats(jbof_engine *e, uint32_t drive, jbof_drive_info *out);
int jbof_engine_get_stats(jbof_engine *e, jbof_engine_stats *out);
/* Mark [off, off + len) of a drive dirty: it reads as zeroes until the
 * scrubber or an IO zeroes it (scrub.c section 6; the daemon restores a
 * removed tenant's unscrubbed space this way at start).  -EINVAL: no engine,
 * len 0, off or len not a multiple of the drive's block, or past its end;
 * -ENOENT: no such drive; -EBUSY: the range overlaps a namespace in use
 * (marking it would zero a tenant's data).  Space already dirty stays so. */
int jbof_drive_scrub_mark(jbof_engine *e, uint32_t drive, uint64_t off, uint64_t len);

/* A byte range [off, off + len) of a drive. */
typedef struct jbof_range {
    uint64_t off;
    uint64_t len;
} jbof_range;

/* Placement without an engine (export.c section 2a): where first fit would
 * put size_bytes on a drive of drive_bytes (rounded down to its block) whose
 * block is block_bytes (a power of two; 0 = 1), the ntaken ranges of taken
 * occupied -- namespaces already placed, and space still pending a zeroing
 * scrub, which the daemon never gives a new tenant (control/state.py).
 * 0 and *base_out; -ENOSPC: it fits nowhere clear of them; -EINVAL: base_out
 * NULL, block not a power of two, size 0 or not a multiple of the block,
 * taken NULL with ntaken > 0, a range of length 0 or ending past 2^64. */
int jbof_place_first_fit(uint64_t drive_bytes, uint32_t block_bytes, uint64_t size_bytes,
                         const jbof_range *taken, uint32_t ntaken, uint64_t *base_out);

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

struct jbof_nbd_wire_chunk {
    uint8_t magic[4];        /* JBOF_NBD_STRUCTURED_REPLY_MAGIC */
    uint8_t flags[2];        /* JBOF_NBD_REPLY_FLAG_DONE on the last chunk */
    uint8_t type[2];         /* enum jbof_nbd_reply_type */
    uint8_t handle[8];       /* the request's handle */
    uint8_t length[4];       /* bytes of chunk payload that follow */
};
struct jbof_nbd_wire_extent {
    uint8_t length[4];       /* bytes */
    uint8_t flags[4];        /* JBOF_NBD_STATE_* */
};

_Static_assert(sizeof(struct jbof_nbd_wire_chunk) == 20, "chunk header is 20 bytes");
_Static_assert(sizeof(struct jbof_nbd_wire_extent) == 8, "extent is 8 bytes");
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
