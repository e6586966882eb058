/*
 * jbof_internal.h -- declarations shared between the core's C files but not
 * part of the public API (not seen by cffi).  Mechanism state lives in plain
 * structs embedded in their owner; every function takes now_ns.
 */
#ifndef JBOF_INTERNAL_H
#define JBOF_INTERNAL_H

#include <stdint.h>

#include "jbof.h"

#define JBOF_NS_PER_S 1000000000ull

/* ---- hist.c (inline recording for the IO path) ---- */
/* idx(v) (hist.c section 2) without a branch: e = floor(log2(v | 32))
 * (v < 64 gives 5: shift 0, idx = v), then a shift and a base per e; past
 * HIST_MAX_EXP (40) the shift is e itself, so v >> e = 1 and base 1182 puts
 * it on the last bucket (tests/c/test_sched.c test_hist_index checks it
 * against the branching form).  64-bit, so indexing the buckets with it
 * needs no zero-extension. */
static inline uint64_t hist_slot(uint64_t v)
{
    static const struct { uint16_t base; uint8_t shift; } oct[64] = {
        {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0},
        {32, 1}, {64, 2}, {96, 3}, {128, 4}, {160, 5}, {192, 6},
        {224, 7}, {256, 8}, {288, 9}, {320, 10}, {352, 11}, {384, 12},
        {416, 13}, {448, 14}, {480, 15}, {512, 16}, {544, 17}, {576, 18},
        {608, 19}, {640, 20}, {672, 21}, {704, 22}, {736, 23}, {768, 24},
        {800, 25}, {832, 26}, {864, 27}, {896, 28}, {928, 29}, {960, 30},
        {992, 31}, {1024, 32}, {1056, 33}, {1088, 34}, {1120, 35}, {1182, 41},
        {1182, 42}, {1182, 43}, {1182, 44}, {1182, 45}, {1182, 46}, {1182, 47},
        {1182, 48}, {1182, 49}, {1182, 50}, {1182, 51}, {1182, 52}, {1182, 53},
        {1182, 54}, {1182, 55}, {1182, 56}, {1182, 57}, {1182, 58}, {1182, 59},
        {1182, 60}, {1182, 61}, {1182, 62}, {1182, 63},
    };
    uint64_t e = 63u ^ (uint64_t)__builtin_clzll(v | 32); /* = 63 - clz: one bsr */
    return oct[e].base + (v >> oct[e].shift);
}
static inline uint32_t hist_index_inline(uint64_t v) { return (uint32_t)hist_slot(v); }

static inline void hist_add(jbof_hist *h, uint64_t v)
{
    h->buckets[hist_slot(v)]++;
    h->count++;
    h->sum_ns += v;
    if (v > h->max_ns)
        h->max_ns = v;
    if (v < h->min_ns)
        h->min_ns = v;
}

/* ---- cost.c ---- */
typedef struct cost_state {
    jbof_cost_cfg cfg;
    uint32_t wf_x256;          /* current write factor */
    uint64_t period_start_ns;
    uint64_t w_slow;           /* slow write completions this period */
    uint32_t wf_fast0;         /* sched.c section 76: the price before the fast decay's first step (0: none) */
} cost_state;

int cost_cfg_check(const jbof_cost_cfg *cfg);
void cost_init(cost_state *c, const jbof_cost_cfg *cfg, uint64_t now_ns);
static inline uint32_t cost_sat32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* How cost_of prices (cost.c section 2): gimbal's whole write cost times
 * wf, drr's bytes, qos's wf on the data part only (cost.c section 5). */
enum { COST_MODE_FULL = 0, COST_MODE_BYTES = 1, COST_MODE_WF_DATA = 2 };

/* Cost of one IO in read-byte equivalents, saturated to UINT32_MAX
 * (cost.c section 2; inline: it is on every submit).  flags: the IO's
 * (JBOF_IO_ZERO_WRITES prices a WRITE_ZEROES or TRIM as a WRITE of its
 * length, cost.c section 6; looked at for those two opcodes only). */
static inline uint32_t cost_of(const cost_state *c, uint32_t op, uint32_t flags, uint32_t bytes, int mode)
{
    if (mode == COST_MODE_BYTES)
        return bytes ? bytes : 1;
    const jbof_cost_cfg *k = &c->cfg;
    uint64_t v;
    if (op == JBOF_OP_READ) /* the common case first: a compare, not a jump table */
        return cost_sat32(k->read_base_bytes + (((uint64_t)bytes * k->read_per_byte_x256) >> 8));
    if (op == JBOF_OP_WRITE || (op >= JBOF_OP_TRIM && (flags & JBOF_IO_ZERO_WRITES))) {
        v = ((uint64_t)bytes * k->write_per_byte_x256) >> 8;
        if (mode == COST_MODE_WF_DATA)
            return cost_sat32(k->write_base_bytes + ((v * c->wf_x256) >> 8));
        return cost_sat32(((k->write_base_bytes + v) * c->wf_x256) >> 8);
    }
    if (op == JBOF_OP_TRIM)
        return k->read_base_bytes ? k->read_base_bytes : 1;
    /* FLUSH, WRITE_ZEROES done in metadata: no data, so qos charges the command only */
    v = mode == COST_MODE_WF_DATA ? k->write_base_bytes : ((uint64_t)k->write_base_bytes * c->wf_x256) >> 8;
    return v ? cost_sat32(v) : 1;
}
/* How a cost period ends (cost.c sections 7 and 8). */
enum {
    COST_PERIOD_PLAIN = 0,  /* section 3's rule: slow writes -> halfway up, else -0.5 */
    COST_PERIOD_FAST = 1,   /* sched.c section 76 (the price alone binds, the shares held): halfway down to 3 */
    COST_PERIOD_DOUBLE = 2, /* sched.c sections 306 / 337 (only large reads over the band): -0.5 twice, not under 3 */
};
void cost_period_end(cost_state *c, uint64_t now_ns, int mode);
/* A slow write completed (its latency above the controller's threshold,
 * ctl_slow; a branch on writes only).  The period's end is a deadline
 * folded into sched.c's due_ns (section 6 there), checked in complete_due.
 * Section 76: a slow write after fast steps undoes them at once. */
static inline void cost_on_slow_write(cost_state *c)
{
    c->w_slow++;
    if (c->wf_fast0) {
        c->wf_x256 = c->wf_fast0 > c->wf_x256 ? c->wf_fast0 : c->wf_x256;
        c->wf_fast0 = 0;
    }
}

/* sched.c section 104: a shallow tenant slowed within a fast step's watch
 * -- the probe is undone: the run's starting price wf0 back (never lower
 * than now), the run ended; no slow write is counted, so the period ends
 * with the ordinary decay */
static inline void cost_fast_undo(cost_state *c, uint32_t wf0)
{
    c->wf_x256 = wf0 > c->wf_x256 ? wf0 : c->wf_x256;
    c->wf_fast0 = 0;
}

/* The least of a value over the current and the previous window of win_ns
 * (ctl.c 3b's unloaded read latency, sched.c section 37's unloaded write):
 * a sample past the window's end starts the next one.  min2_sample says
 * whether the current window's least changed (only then can min2_get). */
typedef struct min2 {
    uint64_t cur, prev; /* least in the current / previous window (0 = none yet) */
    uint64_t start_ns;  /* the current window's start */
} min2;

static inline int min2_sample(min2 *m, uint64_t v, uint64_t now_ns, uint64_t win_ns)
{
    if (now_ns - m->start_ns >= win_ns) {
        m->prev = m->cur;
        m->cur = 0;
        m->start_ns = now_ns;
    }
    if (m->cur && v >= m->cur)
        return 0;
    m->cur = v;
    return 1;
}

static inline uint64_t min2_get(const min2 *m)
{
    return m->prev && m->prev < m->cur ? m->prev : m->cur;
}

/* ---- ctl.c ---- */
typedef struct ctl_state {
    jbof_ctl_cfg cfg;
    uint32_t state;              /* enum jbof_ctl_state */
    uint32_t entered;            /* sched.c section 217: ctl_enter changed state since complete_due_body last looked */
    uint64_t rate_cost_bps;           /* cost-bytes per second */
    /* read / write buckets, cost-bytes.  Negative by up to one IO from a
     * positive bucket (gimbal); under qos further: reservations' escapes
     * (sched.c 3b, floored at DEBT_BUCKETS buckets when cut) and the
     * latency-critical bypass (budget_ok's n_lc_backlogged, lc_overdraft),
     * unbounded while it lasts (-6.8 GB on a memory drive, log 376 / 378);
     * that debt is dropped at a policy switch (376), when a tenant
     * leaves the latency class (378) and LC_IDLE_NS after the last SLO
     * tenant stops with it unpaid (389) */
    int64_t tokens[2];
    uint64_t last_refill_ns;
    uint64_t threshold_ns;       /* dynamic threshold in [lat_min, lat_max] */
    uint64_t target_cap_ns;      /* extra ceiling from latency SLOs (0 = none) */
    uint64_t ewma_ns[2];         /* read, write */
    uint64_t last_ns[2];         /* time of the last sample of each kind */
    uint64_t state_enter[JBOF_CTL_STATE_COUNT];
    uint64_t win_start_ns;       /* completion-rate measurement window */
    uint64_t win_cost[2];        /* reads' / writes' cost completed in the window (split: sched.c section 313) */
    uint64_t meas_w_cost_bps;    /* ... its rate over the last full window: part of meas_rate_cost_bps */
    uint32_t win_n;              /* completions in the window */
    uint32_t read_share_x256;    /* the read bucket's share of the refill, /256 (0 = half; sched.c 11) */
    uint32_t underfilled;        /* set by sched.c (qos): this completion left the drive empty with IO waiting */
    uint32_t self_queued;        /* set by sched.c (qos): the drive holds one tenant's IO only, another waits (sched.c 17) */
    uint64_t meas_rate_cost_bps;      /* measured completion rate, last full window */
    uint64_t base_ns;            /* learned unloaded read latency: min of 2 windows */
    min2 base_win;               /* ... its two windows (CTL_BASE_WINDOW_NS) */
    uint64_t base_min_ns;        /* the least small read ever seen (0 = none; kept across a retune): sched.c section 65 */
    uint64_t base_gate_ns;       /* a small read faster than this updates the base (base_win.cur, or all when 0) */
    uint64_t base_roll_ns;       /* ... and any small read from this time on (the 1 s window is over) */
    uint64_t fast_since_ns;      /* 3b's guard: first read under lat_min / CTL_BASE_FLASH_DIV since a flash read (0 = none) */
    uint32_t lift_off;           /* 3e: the lift's closed guards (CTL_LIFT_*); 0 = band_hi lifted to cap / CTL_LIFT_DIV */
    uint32_t lc_over_lift;       /* 3e: SLO completions past SLO / 4 in the tail window */
    uint64_t band_lo_ns, band_hi_ns; /* cached ctl_band(); refreshed by band_refresh (ctl.c) when base_ns or target_cap_ns changes */
    uint64_t pend_cost;          /* cost completed since the last evaluation */
    uint32_t pend_n;
    uint64_t last_eval_ns;
    uint64_t ewma_lc_ns;         /* latency-critical tenants' end-to-end latency */
    uint64_t last_lc_ns;
    /* ctl.c 3c: the band's SLO ceiling, steered by the SLO tenants' own tail */
    uint64_t steer_ns;           /* in [cap, cap x 3/2] (SLO / 2 .. SLO x 3/4) */
    uint64_t steer_cap_ns;       /* the cap steer_ns belongs to (kept while the cap is 0 between a QD-1 tenant's IOs) */
    uint64_t lc_win_ns;          /* start of the tail window */
    uint32_t lc_n, lc_over_slo, lc_over_3q; /* SLO tenants' completions in it, those past the SLO, past SLO x 3/4 */
    uint32_t lc_mem_n, lc_mem_over; /* the closed windows' lc_n and lc_over_slo, halved past CTL_LC_MEM_N (sched.c 169) */
    uint32_t steer_one;          /* sched.c 288: at most one best-effort tenant active at the last tail window (3c relaxes under the floor) */
    /* ctl.c 3d: the drive's latency at 2 deep (sched.c section 84) */
    uint64_t shallow_ns;         /* EWMA 1/8 of small reads completing with <= 2 IOs in the drive (qos) */
    uint64_t shallow_last_ns;    /* ... time of its last sample */
    uint64_t big_last_ns;        /* ... and of the last IO > 128 KiB (size_normalize; 3d) */
    uint32_t shallow_depth;      /* 1, or UINT32_MAX while shallow_ns > band_hi_ns: sched.c runs
                                  * ctl_evaluate_shallow when the drive is at most this deep (one compare) */
    /* sched.c section 203: the forward rate probe (qos, band mode) */
    uint64_t fp_rate;            /* the probe's rate, held while it is open (0 = no probe open) */
    uint64_t fp_pre;             /* the rate before the probe */
    uint64_t fp_ref;             /* the completion rate of the window before it */
    uint64_t fp_thr;             /* the threshold at its open */
    uint64_t fp_ewma[2];         /* the EWMAs at its open */
    uint64_t fp_open_ns;         /* its open */
    uint32_t fp_state;           /* the state at its open */
    uint32_t fp_wait;            /* windows before the next probe may open */
    uint64_t rate_top;           /* sched.c section 211: rate_max lifted on a drive with no read signal (0: none) */
    uint32_t top_link;           /* sched.c section 313: rate_top is the per-link-direction ceiling (holds with reads fresh) */
    uint64_t floor_bps;          /* sched.c section 260 (254): OVERLOADED's fall to the measured rate not below this (0: none) */
    uint32_t wlo_n;              /* ctl.c 3f: window rolls in a row with a write-led signal near band_lo (qos only) */
    /* ctl.c 3h: the non-read IOs in the drive, sched.c's walk of its tenants (drive_writes), run only
     * by the hold's last test; NULL (none known): no hold.  Set at sched create and after a retune's ctl_init */
    uint32_t (*w_drive)(const struct ctl_state *c);
} ctl_state;

/* A latency-critical tenant's end-to-end latency sample (qos SLO steering). */
void ctl_on_lc(ctl_state *c, uint64_t e2e_ns, uint64_t now_ns);

/* The band [lo, hi] in force now (learned or fixed, SLO cap applied). */
void ctl_band(const ctl_state *c, uint64_t *lo, uint64_t *hi);
/* Set the SLO cap (0 = none); cheap when unchanged. */
void ctl_set_cap(ctl_state *c, uint64_t cap_ns);

int ctl_cfg_check(const jbof_ctl_cfg *cfg);
void ctl_init(ctl_state *c, const jbof_ctl_cfg *cfg, uint64_t now_ns);
#define CTL_MAX_REFILL_NS (1ull << 24)

/* Cost bytes the pacing rate has earned since the last refill; 0 leaves
 * last_refill_ns alone so sub-byte credit is not lost. */
static inline uint64_t ctl_refill_amount(const ctl_state *c, uint64_t now_ns)
{
    if (now_ns <= c->last_refill_ns)
        return 0;
    uint64_t dt = now_ns - c->last_refill_ns;
    /* rate <= 2^38 (checked) and dt capped at 2^24 ns (16.7 ms, longer than
     * any bucket takes to fill at rate_min) keep the product below 2^62: one
     * 64-bit multiply and divide, no 128-bit helper call on the IO path */
    if (dt > CTL_MAX_REFILL_NS)
        dt = CTL_MAX_REFILL_NS;
    return (c->rate_cost_bps * dt) / JBOF_NS_PER_S;
}

/* The read bucket's part of a refill of add tokens: read_share_x256 / 256 of
 * it, set by sched.c (section 11 there), 0 = half.  ctl_refill and section
 * 203's undo (ctl.c fp_undo) split the same way. */
static inline uint64_t ctl_read_part(const ctl_state *c, uint64_t add)
{
    return c->read_share_x256 ? (add * c->read_share_x256) >> 8 : add / 2;
}

/* Refill both token buckets for the time since the last refill (ctl.c
 * section 4).  Inline: it runs at every dispatch call. */
static inline void ctl_refill(ctl_state *c, uint64_t now_ns)
{
    uint64_t add = ctl_refill_amount(c, now_ns);
    if (add == 0)
        return;
    /* half the refill to each bucket; what a full bucket cannot hold spills
     * into the other, so one kind alone gets the whole rate */
    int64_t cap = c->cfg.bucket_bytes;
    uint64_t radd = ctl_read_part(c, add);
    int64_t r = c->tokens[0] + (int64_t)radd;
    int64_t w = c->tokens[1] + (int64_t)(add - radd);
    if (r > cap) {
        w += r - cap;
        r = cap;
    }
    if (w > cap) {
        r += w - cap;
        w = cap;
        if (r > cap)
            r = cap;
    }
    c->tokens[0] = r;
    c->tokens[1] = w;
    c->last_refill_ns = now_ns;
}

/* ctl_refill with the whole refill going to tokens[0] while tokens[1] is
 * full (sched.c section 18, one bucket: read_share_x256 = 256): the same
 * result -- what tokens[0] cannot hold spills into a full tokens[1] and
 * back -- in a clamp (sched.c section 6). */
static inline void ctl_refill_one(ctl_state *c, uint64_t now_ns)
{
    uint64_t add = ctl_refill_amount(c, now_ns);
    if (add == 0)
        return;
    int64_t cap = c->cfg.bucket_bytes;
    int64_t r = c->tokens[0] + (int64_t)add;
    c->tokens[0] = r > cap ? cap : r;
    c->last_refill_ns = now_ns;
}

#define CTL_WINDOW_NS 10000000ull       /* completion-rate window: 10 ms */
#define CTL_BASE_WINDOW_NS 1000000000ull /* base-latency window: 1 s */
#define CTL_EVAL_NS 20000ull            /* evaluate the state at least every 20 us */
enum {
    CTL_EVAL_EVERY = 4,                 /* ... or every 4 completions */
    CTL_NORMALIZE_BYTES = 128 * 1024,
    CTL_BASE_MAX_BYTES = 16 * 1024,     /* the base is learned from small reads, unscaled */
    CTL_BASE_FLASH_DIV = 4,             /* 3b's guard: past a read >= lat_min / 4, one under it did not read flash */
    CTL_SLOWSTART_MULT = 8,
    CTL_THRESH_CREEP_SHIFT = 8,         /* threshold regains 1/256 of its gap per OK sample */
};
#define CTL_SIGNAL_FRESH_NS 100000000ull /* the other kind's EWMA counts for 100 ms */
#define CTL_SHALLOW_FRESH_NS 1000000000ull /* 3d: the 2-deep read latency counts for 1 s */
#define CTL_SHALLOW_BIG_NS 100000000ull   /* 3d: ... not within 100 ms of an IO > 128 KiB */
enum { CTL_SHALLOW_BAND_X = 3 };           /* 3d: reads judged against 3 x their 2-deep latency */
/* ctl.c 3c: the SLO tenants' tail window and the steered ceiling's steps */
#define CTL_LC_WIN_NS 50000000ull      /* a window closes after 50 ms ... */
#define CTL_LC_WIN_MAX_NS 200000000ull /* ... with >= CTL_LC_WIN_MIN samples, or is dropped after 200 ms */
enum {
    CTL_LC_WIN_MIN = 16,   /* samples a window needs to judge the tail */
    CTL_LC_TAIL_DIV = 100, /* the tail: more than 1 sample in 100 */
    CTL_LC_AI_DIV = 4,     /* a good window relaxes the ceiling by cap / 4 (SLO / 8) */
    CTL_LC_MAX_X4 = 6,     /* ... up to cap x 6/4 (SLO x 3/4) */
    CTL_LC_MEM_N = 2048,   /* sched.c 169: the remembered tail (lc_mem_*) halves past this many completions */
    CTL_LC_NEAR_DIV = 100,  /* sched.c 296 / 301: under the floor beside one member, relax on <= 1 in 100 past the SLO ... */
    CTL_LC_NEAR_MEM_X4 = 2, /* ... with the remembered tail at least half full (x 2/4 of CTL_LC_MEM_N) ... */
    CTL_LC_NEAR_MAX_X4 = 7  /* ... up to cap x 7/4 (SLO x 7/8; sched.c 301) */
};
/* ctl.c 3g (scheduler-log 379): the SLO override (section 3) reads an SLO
 * tenant's end-to-end miss as the drive's overload only while the drive's
 * own signal is at least band_lo / CTL_LC_DRIVE_DIV; under that the miss is
 * the scheduler's queue, not the drive's */
enum { CTL_LC_DRIVE_DIV = 4 }; /* measured x0.5 / x2 (2 / 8): sweep rows unchanged on seeds 1, 2, 7, 8, 9 */
/* ctl.c 3e (sched.c section 230): band_hi lifted to the SLO cap / 4 (SLO / 8),
 * closed by either guard */
enum {
    CTL_LIFT_DIV = 4,
    CTL_LIFT_TAIL = 1u,    /* > 1 in 100 of the last tail window's SLO completions past SLO / 4 */
    CTL_LIFT_WEIGHTS = 2u, /* the last cost period gave a member > LIFT_OVER_PM / 1000 of its weight's share */
};
void ctl_window_roll(ctl_state *c, uint64_t now_ns);
void ctl_base_sample(ctl_state *c, uint64_t lat_ns, uint64_t now_ns);
uint64_t ctl_normalize(uint64_t lat_ns, uint32_t bytes);

/* Completion of a read or a write (op) of `cost` that took lat_ns in the
 * drive: the per-IO part of ctl.c section 3b, inline (the window sums, the
 * base-latency gate, the EWMA step, the cost pending for the next
 * evaluation).  It has no clock checks: the completion-rate window's end
 * and the evaluation's 20 us are deadlines that the caller (sched.c
 * due_rearm) folds into one compare with its own, and ctl_on_due then does
 * what is due, in the order the per-IO checks had: the window roll, and the
 * state machine (every CTL_EVAL_EVERY completions or CTL_EVAL_NS, ctl.c 3b)
 * -- the caller computes what only the evaluation reads (sched.c:
 * underfilled, self_queued) when ctl_on_due says so. */
static inline void ctl_sample(ctl_state *c, uint32_t op, uint32_t bytes, uint32_t cost, uint64_t lat_ns,
                              uint64_t now_ns)
{
    uint32_t k = op; /* READ 0, WRITE 1: the only ops the controller sees */
    c->win_cost[k] += cost;
    c->win_n++;
    /* learn the unloaded read latency: min over the last two windows
     * (base_gate_ns / base_roll_ns fold the band mode, the empty window and
     * the 1 s window's end into two compares: ctl_base_sample) */
    if (k == 0 && bytes <= CTL_BASE_MAX_BYTES && (lat_ns < c->base_gate_ns || now_ns >= c->base_roll_ns))
        ctl_base_sample(c, lat_ns, now_ns);
    if (bytes > CTL_NORMALIZE_BYTES && c->cfg.size_normalize) {
        lat_ns = ctl_normalize(lat_ns, bytes);
        c->big_last_ns = now_ns;
    }
    int64_t diff = (int64_t)lat_ns - (int64_t)c->ewma_ns[k];
    int64_t e = (int64_t)c->ewma_ns[k] + (diff >> c->cfg.ewma_shift);
    c->ewma_ns[k] = e < 0 ? 0 : (uint64_t)e;
    c->last_ns[k] = now_ns;
    c->pend_cost += cost;
    c->pend_n++;
}
/* After ctl_sample: roll the window if it is over; 1 when the state machine
 * is due (then the caller runs ctl_evaluate). */
static inline int ctl_on_due(ctl_state *c, uint64_t now_ns, int *rolled)
{
    if (now_ns - c->win_start_ns >= CTL_WINDOW_NS) {
        ctl_window_roll(c, now_ns);
        *rolled = c->win_start_ns == now_ns; /* it rolled (win_start_ns was < now_ns: CTL_WINDOW_NS > 0) */
    }
    if (c->pend_n >= CTL_EVAL_EVERY || now_ns - c->last_eval_ns >= CTL_EVAL_NS) {
        c->last_eval_ns = now_ns;
        return 1;
    }
    return 0;
}
static inline void ctl_enter(ctl_state *c, uint32_t st)
{
    if (c->state != st) {
        c->state = st;
        c->state_enter[st]++;
        c->entered = 1; /* sched.c section 217 */
    }
}

/* ctl.c 3d: the evaluation's signal with the read EWMA judged against 3 x
 * the drive's 2-deep read latency (l when a gate is shut) */
uint64_t ctl_shallow_signal(const ctl_state *c, uint32_t k, uint64_t l, uint64_t now_ns);
void ctl_shallow_sample(ctl_state *c, uint64_t dev_ns, uint64_t now_ns);
void ctl_evaluate_shallow(ctl_state *c, uint32_t k, uint64_t now_ns);
void ctl_set_lift(ctl_state *c, uint32_t bit, uint32_t on);

/* sched.c section 203: the forward rate probe's evaluation step (hold the
 * probe's rate and threshold through every state, OVERLOADED too) and its
 * window roll (judge an open probe, undo a rejected one with no trace;
 * open one when may_open) */
enum {
    CTL_FP_STEP_DIV = 2,  /* the probe raises the rate by rate / 2 */
    CTL_FP_NOISE_DIV = 16, /* kept if its window completes > 1/16 more than the one before */
    CTL_FP_HI_DIV = 8,     /* ... with the drive's signal at most band_hi x 9/8 */
    CTL_FP_WAIT = 8        /* windows without a probe after a rejected one */
};
void ctl_fp_hold(ctl_state *c, uint64_t now_ns);
void ctl_fp_cancel(ctl_state *c, uint64_t now_ns);
void ctl_fp_roll(ctl_state *c, int may_open, uint64_t now_ns);
void ctl_eval_tail(ctl_state *c, uint64_t rate, uint64_t thr, uint64_t now_ns);

/* Section 3's signal for an evaluation of kind k: ek, kind k's latency
 * EWMA -- or, ours (with the band), eo, the other kind's, when that is
 * larger and fresh (a completion within CTL_SIGNAL_FRESH_NS): the drive is
 * as congested as its worst recent signal, and a buffered write completing
 * fast says nothing about the reads it is stalling.  ctl_eval_body passes
 * the two EWMAs, ctl.c 3d (ctl_shallow_signal) the read EWMA scaled. */
static inline uint64_t ctl_signal(const ctl_state *c, uint32_t k, uint64_t ek, uint64_t eo, uint64_t now_ns)
{
    if (eo > ek && c->cfg.band_hi_pct && now_ns - c->last_ns[1 - k] < CTL_SIGNAL_FRESH_NS)
        return eo;
    return ek;
}

/* ctl.c 3f (sections 339 / 358 / 361): CONGESTION held on a write-led
 * signal just past the threshold near band_lo, after CTL_WLO_ROLLS window
 * rolls in that state, while the rate is at most what the window
 * completed.  qos only by construction: wlo_n counts only with a band
 * (cfg.band_hi_pct, set for the qos policy alone), and with wlo_n 0 the
 * first test returns 0. */
enum {
    CTL_WLO_ROLLS = 2,  /* window rolls in a row in the state before the hold (x0.5 / x2 measured: 1 / 4) */
    CTL_WLO_EDGE_X8 = 10, /* the write EWMA at most band_lo x 10/8 (5/4; measured 9/8 and 12/8) */
    CTL_WLO_RATE_X2 = 2,  /* ... rate x 2/2 <= the window's completion rate (measured 4/2 and 1/2) */
    CTL_WLO_N_MAX = 1000  /* wlo_n saturates here (any bound >= CTL_WLO_ROLLS holds the same) */
};
static inline int ctl_wlo_hold(const ctl_state *c, uint64_t l, uint64_t lo, uint64_t thr, uint64_t now_ns)
{
    if (c->wlo_n < CTL_WLO_ROLLS || l != c->ewma_ns[1] || l * 8 > lo * CTL_WLO_EDGE_X8 ||
        c->rate_cost_bps * CTL_WLO_RATE_X2 > c->meas_rate_cost_bps * 2)
        return 0;
    /* the reads stale, or inside the threshold */
    return now_ns - c->last_ns[0] >= CTL_SIGNAL_FRESH_NS || c->ewma_ns[0] <= thr;
}

/* ctl.c 3h (sections 413, 416): a read's evaluation whose signal is the
 * write EWMA (ctl_signal's other kind) past band_hi does not enter
 * OVERLOADED while the read EWMA itself is under band_lo, an SLO cap is
 * set and no write is in the drive (w_drive's walk, last: the write
 * EWMA is no queue the reads share now): the evaluation holds (state OK; rate,
 * threshold and buckets as they are).  qos only by construction: it needs
 * the band (cfg.band_hi_pct) and target_cap_ns. */
static inline int ctl_wstale_hold(const ctl_state *c, uint32_t k, uint64_t l, uint64_t lo)
{
    return k == 0 && l == c->ewma_ns[1] && c->ewma_ns[0] < lo && c->target_cap_ns && c->cfg.band_hi_pct &&
           c->w_drive && !c->w_drive(c);
}

/* Section 3's threshold clamped into the band [band_lo, band_hi]: what the
 * state machine compares the signal against (ctl_eval_body, and 3f's count
 * at the window roll). */
static inline uint64_t ctl_band_thr(const ctl_state *c)
{
    uint64_t thr = c->threshold_ns > c->band_hi_ns ? c->band_hi_ns : c->threshold_ns;
    return thr < c->band_lo_ns ? c->band_lo_ns : thr;
}

/* The state machine of section 3, applied to the cost completed since the
 * last evaluation (additive terms add up, so evaluating every few
 * completions equals evaluating at each one). */
static inline __attribute__((always_inline)) void ctl_eval_body(ctl_state *c, uint32_t k, uint64_t now_ns, int d3,
                                                                uint64_t self_ns)
{
    uint64_t l = ctl_signal(c, k, c->ewma_ns[k], c->ewma_ns[1 - k], now_ns);
    uint64_t lo = c->band_lo_ns, hi = c->band_hi_ns; /* band_refresh keeps them current */
    if (d3) /* ctl.c 3d: ctl_evaluate_shallow's copy only */
        l = ctl_shallow_signal(c, k, l, now_ns);
    if (self_ns && l > hi) /* sched.c 145: the cut's signal is one tenant's queue: judge the others' latency */
        l = self_ns;
    uint64_t thr = ctl_band_thr(c);
    uint64_t rate = c->rate_cost_bps;
    uint64_t cost = c->pend_cost;
    c->pend_cost = 0;
    c->pend_n = 0;
    if (c->target_cap_ns && now_ns - c->last_lc_ns < CTL_SIGNAL_FRESH_NS && c->ewma_lc_ns > c->target_cap_ns &&
        l * CTL_LC_DRIVE_DIV >= lo) {
        /* a latency-critical tenant missing half its SLO end to end means
         * congestion, missing all of it means overload, whatever the drive's
         * own latency says (its IOs may queue behind others' in the drive)
         * -- unless that latency is far under band_lo (ctl.c 3g: then the
         * miss is the scheduler's queue, not the drive's).  (Section 390:
         * the miss tested first -- the SLO met, the usual case, decides
         * with no test of 3g's guard) */
        if (c->ewma_lc_ns > 2 * c->target_cap_ns && l <= hi)
            l = hi + 1;
        else if (l <= thr)
            l = thr + 1;
    }

    /* underfilled 2 (sched.c section 260, 252): counted underfilled only below the band */
    if (c->cfg.band_hi_pct && ((c->underfilled && ((c->underfilled & 1) || l < lo)) || (c->self_queued && l > thr))) {
        /* ours (section 5b): the drive just went empty while IO waits for
         * pacing -- whatever the latency of the IOs that left, nothing is
         * queued inside it now, so the rate is what idles it: grow.
         * Likewise (5c) a latency past the threshold while the drive holds
         * one tenant's IO only and another tenant waits: that latency is
         * the tenant queueing behind itself, and pacing the others away
         * does not lower it */
        ctl_enter(c, JBOF_CTL_SLOWSTART);
        uint64_t up = cost * CTL_SLOWSTART_MULT;
        rate += up > rate / 16 ? up : rate / 16; /* at least +1/16 per evaluation */
    } else if (l > hi && ctl_wstale_hold(c, k, l, lo)) {
        /* ctl.c 3h: a read judged on the write EWMA while the reads run
         * under band_lo beside an SLO tenant -- hold rate and buckets */
        ctl_enter(c, JBOF_CTL_OK);
    } else if (l > hi) {
        /* clearly past the knee: fall back to what the drive completes */
        ctl_enter(c, JBOF_CTL_OVERLOADED);
        if (c->meas_rate_cost_bps < rate) /* sched.c section 260 (254): not below floor_bps (unless the rate is) */
            rate = c->meas_rate_cost_bps > c->floor_bps ? c->meas_rate_cost_bps : c->floor_bps < rate ? c->floor_bps : rate;
        for (int k = 0; k < 2; k++)
            if (c->tokens[k] > 0)
                c->tokens[k] = 0;
        thr = lo + (thr - lo) / 2;
    } else if (l > thr) {
        if (ctl_wlo_hold(c, l, lo, thr, now_ns)) {
            /* ctl.c 3f: a write-led signal near band_lo with the rate at
             * most what completes -- hold rate and threshold */
            ctl_enter(c, JBOF_CTL_OK);
        } else {
            /* congested: back off by the cost just completed */
            ctl_enter(c, JBOF_CTL_CONGESTION);
            rate = rate > cost ? rate - cost : 0;
        }
    } else if (l >= lo) {
        /* inside the band: probe upwards gently, regain threshold */
        ctl_enter(c, JBOF_CTL_OK);
        rate += cost;
        thr += (hi - thr) >> CTL_THRESH_CREEP_SHIFT;
    } else {
        /* below the band: the drive has room, grow fast */
        ctl_enter(c, JBOF_CTL_SLOWSTART);
        rate += cost * CTL_SLOWSTART_MULT;
        thr += (hi - thr) >> CTL_THRESH_CREEP_SHIFT;
    }
    if (c->cfg.band_hi_pct && c->state >= JBOF_CTL_CONGESTION) {
        /* ours: a rate far above what the drive completes does not bind; when
         * backing off, start from what is actually completing */
        uint64_t cap = c->meas_rate_cost_bps + c->meas_rate_cost_bps / 8;
        if (rate > cap)
            rate = cap;
    }
    if (rate < c->cfg.rate_min_cost_bps)
        rate = c->cfg.rate_min_cost_bps;
    /* sched.c sections 203 and 211, both rare: one predicted-false test
     * (section 214), their ceiling and hold out of line */
    if (__builtin_expect((c->rate_top | c->fp_rate) != 0, 0)) {
        ctl_eval_tail(c, rate, thr, now_ns);
        return;
    }
    if (rate > c->cfg.rate_max_cost_bps)
        rate = c->cfg.rate_max_cost_bps;
    c->rate_cost_bps = rate;
    c->threshold_ns = thr;
}
/* Section 3's state machine as sched.c runs it inline; ctl.c 3d's form is
 * ctl_evaluate_shallow (out of line, sched.c section 84). */
static inline __attribute__((always_inline)) void ctl_evaluate(ctl_state *c, uint32_t k, uint64_t now_ns)
{
    ctl_eval_body(c, k, now_ns, 0, 0);
}
/* Is kind k's EWMA above the threshold as of the last evaluation? */
static inline int ctl_slow(const ctl_state *c, uint32_t k) { return c->ewma_ns[k] > c->threshold_ns; }
/* When will bucket k (0 read, 1 write) hold a positive balance again? */
uint64_t ctl_next_ns(const ctl_state *c, uint64_t now_ns, int k);
static inline int ctl_bucket(uint32_t op) { return op == JBOF_OP_READ ? 0 : 1; }

/* ---- small deterministic PRNG (splitmix64 seeding xoshiro256**) ---- */
typedef struct rng_state {
    uint64_t s[4];
} rng_state;

static inline uint64_t rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void rng_seed(rng_state *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = rng_splitmix(&x);
}

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(rng_state *r)
{
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* uniform in [0, n) without modulo bias worth caring about (n < 2^32) */
static inline uint64_t rng_below(rng_state *r, uint64_t n)
{
    return n ? (uint64_t)(((__uint128_t)rng_next(r) * n) >> 64) : 0;
}

/* uniform double in [0, 1) */
static inline double rng_unit(rng_state *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* ---- wl.c ---- */
typedef struct wl_state {
    jbof_wl wl;
    rng_state rng;
    uint64_t start_ns;        /* absolute: first IO may be issued */
    uint64_t end_ns;          /* absolute: no IO issued after (UINT64_MAX = never) */
    uint32_t phase;           /* index into wl.phases */
    uint32_t done;            /* 1 = all (non-looping) phases are over */
    uint64_t phase_end_ns;    /* absolute end of the current phase (UINT64_MAX = open) */
    uint64_t seq_off;         /* next sequential offset */
} wl_state;

int wl_check(const jbof_wl *wl);
void wl_start(wl_state *w, const jbof_wl *wl, uint64_t now_ns, uint64_t seed);
/* Advance phases to now; returns the current phase or NULL when the tenant
 * issues nothing now (before start, after end, idle phase). */
const jbof_wl_phase *wl_phase_at(wl_state *w, uint64_t now_ns);
/* Time of the next phase boundary, start or end after now (UINT64_MAX if none). */
uint64_t wl_next_change_ns(const wl_state *w, uint64_t now_ns);
/* Fill opcode, offset and length of the next IO of phase p. */
void wl_make_io(wl_state *w, const jbof_wl_phase *p, jbof_io *io);
/* Open loop: gap before the next arrival after an IO of len bytes (0 = closed loop). */
uint64_t wl_gap_ns(const jbof_wl_phase *p, uint32_t len);

/* ---- a tenant's queued time (sched.c section 25) ---- */

/* queued_ns up to now_ns: the closed intervals plus, while IO is queued,
 * the open one.  The one place that closes it, for the simulator's tenant
 * results (sim.c) and the reactor's export stats (export.c). */
static inline uint64_t tenant_queued_ns_at(const jbof_tenant_stats *st, uint64_t now_ns)
{
    uint64_t open = st->queued && now_ns > st->queued_since_ns ? now_ns - st->queued_since_ns : 0;
    return st->queued_ns + open;
}

#endif
