/*
 * jbof.h -- the one public header of the JBOF QoS data plane's C core.
 *
 * Everything between CDEF-BEGIN and CDEF-END is also fed to cffi (the build
 * script strips preprocessor lines), so that region holds only plain typedefs,
 * enums, structs and prototypes.  Conventions:
 *
 *   - every function returns 0 (or a count) on success and a negative errno on
 *     failure; it validates every argument and never aborts on caller input;
 *   - no function reads a clock: time is always passed in as `now_ns`
 *     (nanoseconds on any monotonic time base the caller chooses);
 *   - there is no global mutable state: each object owns its memory;
 *   - units are in the names: _ns, _bytes, _bps (bytes of data per second),
 *     _cost_bps (cost-bytes per second: cost.c's read-byte equivalents), _x256
 *     (docs/design.md#units)
 *     (fixed point with 8 fractional bits), _pct, _ppm.
 *
 * The mechanisms live one per file, each explained at its top:
 *   hist.c   log-linear latency histogram
 *   cost.c   cost model and online write-factor estimator
 *   ctl.c    per-drive latency-feedback controller (Gimbal-style)
 *   sched.c  tenant submission queues, classes, DRR, virtual slots, policies
 *   ssd.c    emulated NVMe SSD model
 *   wl.c     fio-like workload generator
 *   sim.c    discrete-event simulator wiring wl + sched + ssd
 */
#ifndef JBOF_H
#define JBOF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CDEF-BEGIN */

enum { JBOF_ABI_VERSION = 4 };

/* ---------------------------------------------------------------- IO ---- */

enum jbof_op {
    JBOF_OP_READ = 0,
    JBOF_OP_WRITE = 1,
    JBOF_OP_FLUSH = 2,
    JBOF_OP_TRIM = 3,
    JBOF_OP_WRITE_ZEROES = 4,
    JBOF_OP_COUNT = 5
};

/* JBOF_IO_ZERO_WRITES (WRITE_ZEROES, TRIM): the drive may carry this one
 * out by writing its whole range, so the scheduler prices it as a WRITE of
 * length_bytes (cost.c section 6); set by the engine from the drive's
 * zero_cost and its backend (flags 2 and 4 are the engine's own). */
enum { JBOF_IO_FUA = 1, JBOF_IO_ZERO_WRITES = 8 };

/* An NVMe-shaped IO descriptor.  The caller fills tag, offset_bytes,
 * length_bytes, opcode, flags and tenant; the scheduler fills the rest
 * and hands the descriptor back untouched otherwise.  The SQ holds a
 * pointer to it (ABI 3): from a successful jbof_sched_submit until
 * jbof_sched_dispatch or jbof_sched_tenant_flush hands that pointer back,
 * the descriptor belongs to the scheduler -- the caller keeps it where it
 * is and does not touch it. */
typedef struct jbof_io {
    uint64_t tag;           /* caller's cookie, never interpreted */
    uint64_t offset_bytes;  /* caller's coordinates, never read by the scheduler (sim:
                             * within the namespace; engine: on the drive) */
    uint64_t submit_ns;     /* set by jbof_sched_submit: entered the SQ */
    uint64_t dispatch_ns;   /* set by jbof_sched_dispatch: left the SQ */
    uint32_t length_bytes;  /* 0 allowed only for FLUSH */
    uint32_t cost;          /* set by submit: read-byte equivalents */
    uint32_t tenant;        /* tenant id returned by jbof_sched_tenant_add */
    uint32_t slot;          /* set by dispatch: scheduler bookkeeping */
    uint8_t opcode;         /* enum jbof_op */
    uint8_t flags;          /* JBOF_IO_FUA | JBOF_IO_ZERO_WRITES */
    uint16_t sched_mark;    /* reserved (was section 79's mark, now kept in slot); not read by the scheduler */
    uint32_t gen;           /* set by submit: tenant generation (scheduler bookkeeping) */
} jbof_io;

/* --------------------------------------------------------- histogram ---- */

/* Log-linear histogram of nanosecond values: exact below 64, then 32
 * sub-buckets per power of two (<= 3.2% relative error) up to 2^41 ns. */
enum { JBOF_HIST_BUCKETS = 1184 };

typedef struct jbof_hist {
    uint64_t count;
    uint64_t sum_ns;
    uint64_t max_ns;
    uint64_t min_ns;
    uint64_t buckets[1184];
} jbof_hist;

void jbof_hist_reset(jbof_hist *h);
int jbof_hist_record(jbof_hist *h, uint64_t value_ns);
/* index of the bucket holding value_ns */
uint32_t jbof_hist_index(uint64_t value_ns);
/* smallest value that maps to bucket idx (0 for an out-of-range idx) */
uint64_t jbof_hist_bucket_low(uint32_t idx);
/* value at quantile q in [0, 1]; 0 for an empty histogram; -EINVAL via *out untouched */
int jbof_hist_quantile(const jbof_hist *h, double q, uint64_t *out_ns);
/* dst += src */
int jbof_hist_merge(jbof_hist *dst, const jbof_hist *src);

/* ------------------------------------------------------------- cost ---- */

/* cost(io) = (base[op] + per_byte_x256[op] * bytes / 256) * (write? write_factor : 1)
 * in read-byte equivalents.  See cost.c. */
typedef struct jbof_cost_cfg {
    uint32_t read_base_bytes;       /* a[read]: per-command cost */
    uint32_t write_base_bytes;      /* a[write] */
    uint32_t read_per_byte_x256;    /* b[read], 256 = 1.0 */
    uint32_t write_per_byte_x256;   /* b[write] */
    uint32_t write_factor_init_x256;/* starting write factor (Gimbal: 9.0) */
    uint32_t write_factor_min_x256; /* clamp (Gimbal: 1.0) */
    uint32_t write_factor_max_x256; /* clamp (Gimbal: 9.0) */
    uint32_t learn;                 /* 0 = fixed factor, 1 = Gimbal's rule (cost.c) */
    uint64_t period_ns;             /* estimator update period (Gimbal: 100 ms) */
} jbof_cost_cfg;

/* ------------------------------------------------------- controller ---- */

enum jbof_ctl_state {
    JBOF_CTL_SLOWSTART = 0,
    JBOF_CTL_OK = 1,
    JBOF_CTL_CONGESTION = 2,
    JBOF_CTL_OVERLOADED = 3,
    JBOF_CTL_STATE_COUNT = 4
};

typedef struct jbof_ctl_cfg {
    uint32_t enabled;        /* 0: no feedback, unlimited dispatch rate */
    uint32_t ewma_shift;     /* EWMA weight 1/2^shift (Gimbal: 1) */
    uint64_t lat_min_ns;     /* band floor (Gimbal: 250 us) */
    uint64_t lat_max_ns;     /* band ceiling (Gimbal: 1500 us) */
    uint64_t rate_min_cost_bps;   /* cost-bytes per second (Gimbal: 50 MiB/s) */
    uint64_t rate_max_cost_bps;   /* (Gimbal: 4 GiB/s) */
    uint64_t rate_init_cost_bps;  /* (Gimbal: 1000 MiB/s) */
    uint32_t bucket_bytes;   /* token bucket depth (Gimbal: 256 KiB) */
    uint32_t size_normalize; /* 1: scale samples of IOs > 128 KiB down to 128 KiB (ours) */
    uint32_t band_lo_pct;    /* ours: band floor = this % of the drive's unloaded read */
    uint32_t band_hi_pct;    /*   latency (learned); 0 = the fixed lat_min/lat_max band */
} jbof_ctl_cfg;

/* ------------------------------------------------------- scheduler ---- */

enum jbof_policy {
    JBOF_POLICY_FIFO = 0,         /* one FIFO across tenants, no QoS */
    JBOF_POLICY_RR = 1,           /* round robin per IO */
    JBOF_POLICY_TOKEN_BUCKET = 2, /* static per-tenant caps (SPDK bdev QoS) */
    JBOF_POLICY_DRR = 3,          /* byte DRR, no write cost, no feedback */
    JBOF_POLICY_GIMBAL = 4,       /* Gimbal reproduction */
    JBOF_POLICY_QOS = 5,          /* ours */
    JBOF_POLICY_COUNT = 6
};

enum jbof_class {
    JBOF_CLASS_LATENCY = 0,   /* latency SLO + reservation, served first */
    JBOF_CLASS_RESERVED = 1,  /* minimum rate */
    JBOF_CLASS_BEST_EFFORT = 2,
    JBOF_CLASS_SCAVENGER = 3, /* only idle capacity, reclaimable at once */
    JBOF_CLASS_COUNT = 4
};

typedef struct jbof_sched_cfg {
    uint32_t policy;            /* enum jbof_policy */
    uint32_t max_tenants;       /* 1..4096 */
    uint32_t max_inflight_ios;  /* device queue depth (all policies) */
    uint32_t slot_bytes;        /* virtual slot size in cost (Gimbal: 128 KiB) */
    uint32_t total_slots;       /* slots shared by active tenants (Gimbal: 8) */
    uint32_t quantum_bytes;     /* DRR quantum per unit of weight (Gimbal: 128 KiB) */
    uint64_t scavenger_reclaim_ns; /* bound on how long lent capacity stays lent */
    jbof_cost_cfg cost;
    jbof_ctl_cfg ctl;
} jbof_sched_cfg;

typedef struct jbof_tenant_cfg {
    uint32_t sq_depth;        /* credits: max IOs queued (not yet dispatched), 1..65536 */
    uint32_t weight;          /* 1..10000 */
    uint32_t klass;           /* enum jbof_class */
    uint32_t pad;
    uint64_t reserve_bps;     /* minimum bytes/s (0 = none) */
    uint64_t limit_bps;       /* maximum bytes/s (0 = none) */
    uint64_t limit_iops;      /* maximum IOs/s (0 = none) */
    uint64_t latency_slo_ns;  /* end-to-end latency target (0 = none) */
} jbof_tenant_cfg;

typedef struct jbof_tenant_stats {
    uint64_t submitted;
    uint64_t dispatched;
    uint64_t completed;
    uint64_t errors;
    uint64_t read_ios, write_ios, other_ios;
    uint64_t read_bytes, write_bytes;
    uint64_t cost_completed;
    uint64_t throttled_ns;    /* time backlogged but held back by its limit */
    uint64_t slo_violations;  /* completions slower than latency_slo_ns */
    uint32_t queued;          /* in the SQ */
    uint32_t inflight;        /* dispatched, not completed */
    uint64_t inflight_cost;
    uint32_t klass, weight;
    uint32_t throttled;       /* 1 if currently held back by its limit */
    uint32_t active;          /* 1 if the tenant exists */
    uint64_t flushed;         /* taken out of the SQ undispatched (jbof_sched_tenant_flush) */
    uint64_t queued_ns;       /* time with >= 1 IO queued at the scheduler (not yet dispatched),
                               * closed intervals only: add now - queued_since_ns while queued > 0
                               * (jbof_export_stats' and jbof_tenant_result's have it added) */
    uint64_t queued_since_ns; /* while queued > 0: when its queue last went non-empty (else 0) */
} jbof_tenant_stats;

typedef struct jbof_drive_stats {
    uint32_t policy;
    uint32_t ctl_state;           /* enum jbof_ctl_state */
    uint64_t rate_cost_bps;       /* controller's dispatch rate, cost-bytes/s */
    int64_t tokens;               /* read token bucket level, may run negative */
    int64_t tokens_write;         /* write token bucket level */
    uint64_t threshold_ns;        /* controller's dynamic latency threshold */
    uint64_t band_lo_ns;          /* controller's band in force (learned or fixed) */
    uint64_t band_hi_ns;
    uint64_t base_read_ns;        /* learned unloaded read latency (0 = not yet) */
    uint64_t ewma_read_ns;
    uint64_t ewma_write_ns;
    uint32_t write_factor_x256;
    uint32_t inflight_ios;
    uint64_t inflight_cost;
    uint64_t dispatched;
    uint64_t completed;
    uint64_t state_enter[4];      /* times each controller state was entered */
    uint32_t tenants;             /* tenants present */
    uint32_t backlogged;          /* tenants with queued IO */
    uint64_t write_pace_cost_bps; /* qos's pace of writes toward a full write buffer's drain
                                     (sched.c section 210), cost-bytes/s; 0 while it is off */
} jbof_drive_stats;

typedef struct jbof_sched jbof_sched;

/* Fill cfg with the defaults of a policy (Gimbal's constants, see sched.c). */
int jbof_sched_default_cfg(uint32_t policy, jbof_sched_cfg *cfg);
int jbof_sched_create(const jbof_sched_cfg *cfg, jbof_sched **out);
void jbof_sched_destroy(jbof_sched *s);
/* Switch policy / parameters live; queued and in-flight IO is kept. */
int jbof_sched_set_policy(jbof_sched *s, uint32_t policy, uint64_t now_ns);
int jbof_sched_configure(jbof_sched *s, const jbof_sched_cfg *cfg, uint64_t now_ns);
int jbof_sched_get_cfg(const jbof_sched *s, jbof_sched_cfg *out);

int jbof_tenant_default_cfg(jbof_tenant_cfg *cfg);
int jbof_sched_tenant_add(jbof_sched *s, const jbof_tenant_cfg *cfg, uint64_t now_ns, uint32_t *id_out);
/* Change weight, class, rates, SLO live (sq_depth may grow or shrink down to
 * the number queued).  Queued and in-flight IO is neither dropped nor reordered. */
int jbof_sched_tenant_set(jbof_sched *s, uint32_t id, const jbof_tenant_cfg *cfg, uint64_t now_ns);
/* -EBUSY while the tenant has queued or in-flight IO. */
int jbof_sched_tenant_remove(jbof_sched *s, uint32_t id);
/* Take up to max queued (undispatched) IOs of the tenant out of its SQ,
 * oldest first, into out[] (the pointers given to submit); returns the
 * count (0 when none is queued).  The caller fails them (the reactor
 * answers ESHUTDOWN at tenant removal).  In-flight IO is untouched.
 * -ENOENT for an unknown tenant. */
int jbof_sched_tenant_flush(jbof_sched *s, uint32_t id, jbof_io **out, int max, uint64_t now_ns);

/* Queue one IO: the SQ keeps the pointer (see jbof_io).  -EAGAIN when the
 * tenant's SQ is full (caller stops reading that tenant: credits), -ENOENT
 * for an unknown tenant, -EINVAL for a bad opcode or length (the
 * descriptor stays the caller's then).  Sets io->submit_ns = now_ns,
 * io->cost and io->gen. */
int jbof_sched_submit(jbof_sched *s, jbof_io *io, uint64_t now_ns);
/* Hand out up to max IOs the policy allows now: out[] gets the pointers
 * given to submit, with dispatch_ns and slot set; returns the count. */
int jbof_sched_dispatch(jbof_sched *s, uint64_t now_ns, jbof_io **out, int max);
/* An IO handed out by dispatch finished (status 0 or negative errno).
 * Feeds the controller, cost estimator, histograms and SLO counters. */
int jbof_sched_complete(jbof_sched *s, const jbof_io *io, uint64_t now_ns, int status);
/* One reactor pass in one call.  For each entry in order: io completes
 * (as jbof_sched_complete(s, io, now_ns, status); its result to rc), then
 * next, if not NULL, is submitted (as jbof_sched_submit(s, next, now_ns);
 * its result to next_rc) -- a completing client's next request.  Then, if
 * max > 0, one dispatch (as jbof_sched_dispatch(s, now_ns, out, max)).
 * Returns what that dispatch returns (0 when max == 0), or -EINVAL for
 * bad arguments (nothing done). */
typedef struct jbof_done {
    const jbof_io *io;      /* in: an IO handed out by dispatch that finished */
    jbof_io *next;          /* in: NULL, or an IO to submit after io's completion */
    uint64_t now_ns;        /* in: io's completion time, next's submit time */
    int32_t status;         /* in: 0 or negative errno */
    int32_t rc;             /* out: io's completion result */
    int32_t next_rc;        /* out: next's submit result (untouched without next) */
    uint32_t pad32;
} jbof_done;
int jbof_sched_complete_batch(jbof_sched *s, jbof_done *d, int n, uint64_t now_ns, jbof_io **out, int max);
/* Earliest time at which dispatch may release queued IO that is held back
 * now (pacing or limits); UINT64_MAX when nothing is waiting on time. */
uint64_t jbof_sched_next_event_ns(const jbof_sched *s, uint64_t now_ns);
/* Section 102: when an escape of a held tenant (nothing in the drive) is
 * owed, if nothing else calls dispatch by then; UINT64_MAX if none.  A
 * timer of its own beside next_event_ns's. */
uint64_t jbof_sched_next_escape_ns(const jbof_sched *s, uint64_t now_ns);

int jbof_sched_tenant_stats(const jbof_sched *s, uint32_t id, jbof_tenant_stats *out);
/* The tenant's current settings (as last added or set). */
int jbof_sched_tenant_get_cfg(const jbof_sched *s, uint32_t id, jbof_tenant_cfg *out);
/* End-to-end latency (submit -> complete) histogram of one tenant. */
int jbof_sched_tenant_hist(const jbof_sched *s, uint32_t id, jbof_hist *out);
int jbof_sched_drive_stats(const jbof_sched *s, jbof_drive_stats *out);
const char *jbof_policy_name(uint32_t policy);
int jbof_policy_from_name(const char *name);

/* ------------------------------------------------- emulated NVMe SSD ---- */

typedef struct jbof_ssd_cfg {
    uint64_t capacity_bytes;
    uint32_t units;               /* parallel flash units (dies) */
    uint32_t page_bytes;          /* flash page (read/program granule) */
    uint64_t read_page_ns;        /* tR: one page read on a unit */
    uint64_t program_page_ns;     /* tPROG: one page program on a unit */
    uint64_t cmd_ns;              /* controller time per command (IOPS cap) */
    uint64_t fixed_ns;            /* fixed path latency per command */
    uint64_t link_bps;            /* host link bandwidth per direction */
    uint64_t write_buffer_bytes;  /* DRAM/SLC write buffer */
    uint64_t buffer_write_ns;     /* write latency into the buffer */
    uint32_t wa_max_x256;         /* write amplification when fully fragmented */
    uint32_t frag_init_ppm;       /* initial fragmentation 0..1e6 (clean..fragmented) */
    uint64_t frag_window_bytes;   /* bytes of writes that move fragmentation by 1/e */
    uint64_t suspend_ns;          /* max extra read wait behind a program (suspend) */
    uint32_t spike_ppm;           /* probability of a latency spike per command */
    uint32_t page_register;       /* 1: a re-read of a unit's last page skips tR (ssd.c 10) */
    uint64_t spike_min_ns;        /* spike duration range (log-uniform) */
    uint64_t spike_max_ns;
} jbof_ssd_cfg;

typedef struct jbof_ssd_stats {
    uint64_t reads, writes, others;
    uint64_t read_bytes, write_bytes;
    uint64_t buffer_bytes;        /* write-buffer occupancy at last update */
    uint32_t frag_ppm;            /* current fragmentation */
    uint32_t wa_x256;             /* current write amplification */
    uint64_t spikes;
    uint64_t buffer_full_waits;   /* writes that had to wait for buffer space */
} jbof_ssd_stats;

typedef struct jbof_ssd jbof_ssd;

/* Fill cfg from a named preset ("dct983", ...): -ENOENT if unknown. */
int jbof_ssd_preset(const char *name, jbof_ssd_cfg *cfg);
/* Name of the i-th preset, NULL past the end. */
const char *jbof_ssd_preset_name(uint32_t i);
int jbof_ssd_create(const jbof_ssd_cfg *cfg, uint64_t seed, jbof_ssd **out);
void jbof_ssd_destroy(jbof_ssd *d);
/* Start one command at now_ns; *done_ns receives its completion time.
 * offset is a device byte offset; -EINVAL if out of range. */
int jbof_ssd_submit(jbof_ssd *d, uint32_t opcode, uint64_t offset_bytes,
                    uint32_t length_bytes, uint64_t now_ns, uint64_t *done_ns);
int jbof_ssd_stats_get(const jbof_ssd *d, jbof_ssd_stats *out);

/* ------------------------------------------------- workload generator ---- */

enum jbof_rw {
    JBOF_RW_READ = 0,      /* sequential read */
    JBOF_RW_WRITE = 1,     /* sequential write */
    JBOF_RW_RANDREAD = 2,
    JBOF_RW_RANDWRITE = 3,
    JBOF_RW_RW = 4,        /* sequential mix (rwmixread) */
    JBOF_RW_RANDRW = 5,    /* random mix */
    JBOF_RW_COUNT = 6
};

enum { JBOF_WL_MAX_BS = 8, JBOF_WL_MAX_PHASES = 16 };

typedef struct jbof_wl_phase {
    uint64_t duration_ns;     /* 0 = until the end */
    uint32_t idle;            /* 1 = issue nothing during this phase */
    uint32_t rw;              /* enum jbof_rw */
    uint32_t rwmixread_pct;   /* for RW/RANDRW */
    uint32_t iodepth;         /* max outstanding IOs, >= 1 */
    uint32_t nbs;             /* entries in bs/bs_pct (1..8) */
    uint32_t bs[8];           /* block sizes, bytes */
    uint32_t bs_pct[8];       /* bssplit percentages, summing to 100 */
    uint64_t rate_bps;        /* open loop: bytes/s (0 = closed loop) */
    uint64_t rate_iops;       /* open loop: IOs/s (0 = closed loop) */
    uint64_t thinktime_ns;    /* pause after each completion before reissue */
} jbof_wl_phase;

typedef struct jbof_wl {
    uint64_t startdelay_ns;
    uint64_t runtime_ns;      /* 0 = until the simulation ends */
    uint64_t size_bytes;      /* offset range (namespace size); 0 = 8 GiB (sim) */
    uint32_t nphases;         /* 1..16 */
    uint32_t loop;            /* 1 = cycle through phases */
    jbof_wl_phase phases[16];
} jbof_wl;

/* ---------------------------------------------------------- simulator ---- */

typedef struct jbof_sim_cfg {
    jbof_sched_cfg sched;
    jbof_ssd_cfg ssd;
    uint64_t seed;
    uint64_t bin_ns;          /* timeline bin width (e.g. 100 ms) */
    uint32_t max_bins;        /* timeline length */
    uint32_t pad;
} jbof_sim_cfg;

typedef struct jbof_sim_tenant_result {
    uint64_t read_ios, write_ios;
    uint64_t read_bytes, write_bytes;
    uint64_t issued;          /* IOs generated */
    uint64_t completed;
    uint64_t busy_ns;         /* time the tenant was active (between start and stop) */
    uint64_t demand_bytes;    /* bytes the open-loop schedule asked for (0 = closed loop) */
    uint64_t slo_violations;
    uint64_t queued_ns;       /* time with >= 1 IO queued at the scheduler, up to now
                               * (jbof_tenant_stats.queued_ns with the open interval closed) */
} jbof_tenant_result;

typedef struct jbof_sim jbof_sim;

int jbof_sim_create(const jbof_sim_cfg *cfg, jbof_sim **out);
void jbof_sim_destroy(jbof_sim *s);
int jbof_sim_add_tenant(jbof_sim *s, const jbof_tenant_cfg *tc, const jbof_wl *wl, uint32_t *id_out);
/* Advance virtual time to until_ns (absolute); may be called repeatedly, with
 * parameter changes (jbof_sim_sched) in between. */
int jbof_sim_run(jbof_sim *s, uint64_t until_ns);
/* With nothing in flight, dispatch what the scheduler allows now and ask it
 * for its next wake: call after changing the scheduler's knobs between runs
 * (sim.c, section 376). */
int jbof_sim_pump(jbof_sim *s);
uint64_t jbof_sim_now(const jbof_sim *s);
uint64_t jbof_sim_events(const jbof_sim *s);
jbof_sched *jbof_sim_sched(jbof_sim *s);
jbof_ssd *jbof_sim_ssd(jbof_sim *s);
int jbof_sim_tenant_result(const jbof_sim *s, uint32_t id, jbof_tenant_result *out);
/* Bytes completed per timeline bin; n entries copied at most; returns count. */
int jbof_sim_tenant_timeline(const jbof_sim *s, uint32_t id, uint64_t *bytes, uint32_t n);
/* Replace a tenant's workload from now on (phases restart). */
int jbof_sim_set_workload(jbof_sim *s, uint32_t id, const jbof_wl *wl);

/* CDEF-END */

#ifdef __cplusplus
}
#endif

#endif /* JBOF_H */
