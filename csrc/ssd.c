/*
 * ssd.c -- emulated NVMe SSD: a seeded, reservation-based timing model.
 *
 * 1. Why.  QoS is hard because drives are moody: they have internal
 *    parallelism with a latency knee, writes cost several times reads,
 *    a write buffer hides write cost until it fills, garbage collection
 *    (GC) makes sustained random writes far slower than sequential ones,
 *    reads stall behind programs, and once in a while a command takes
 *    milliseconds.  The simulator (sim.c) and the live `emulated` backend
 *    need a drive that shows all of this, deterministically for a seed,
 *    at a cost of a few dozen nanoseconds per command (no per-page events).
 *
 * 2. Reservation model.  Every shared resource is a server with a
 *    "busy until" time.  jbof_ssd_submit() walks the command through the
 *    servers once, reserving each in turn, and returns the completion
 *    time right away.  Calls should come with non-decreasing now_ns; an
 *    earlier now_ns is clamped to the latest one seen (so a slightly
 *    out-of-order live caller is tolerated, and done_ns >= now_ns always).
 *    now_ns >= 2^62 (146 years) is refused with -EINVAL so that no sum of
 *    times can overflow.
 *
 *      ctrl    the controller, one server, cmd_ns per command (IOPS cap):
 *                  ready = max(now, ctrl_busy) + cmd_ns;  ctrl_busy = ready
 *      units   `units` flash units (die planes), each with busy_until.
 *              Device page p = offset / page_bytes lives on unit
 *                  unit(p) = (p + H(p / units)) mod units
 *              (H a seeded hash): a stripe of `units` consecutive pages
 *              covers every unit once (sequential IO spreads perfectly),
 *              while random pages land on random units (balls in bins).
 *      link    the host link, one server per direction, link_bps each.
 *      buffer  the write buffer, a fluid queue drained by programming.
 *
 * 3. Reads.  The IO's pages (the span it touches, >= 1) reserve their
 *    units; the data then crosses the link; then fixed path latency:
 *
 *      start_u = max(ready, busy_u)  [section 6 while writes drain]
 *      end_u   = start_u + n_u * tR
 *      link_rd = max(ready, link_rd) + len / link_bps
 *      done    = max(max_u end_u + len / link_bps, link_rd) + fixed_ns [+ spike]
 *
 *    The read link is a virtual clock advanced in controller order: it
 *    caps read bandwidth at link_bps, yet a read whose pages are ready
 *    early is not held behind an earlier read still queued on a busy unit
 *    (a plain busy-until reservation would add that head-of-line blocking,
 *    which cost a third of the QD32 random-read throughput).
 *
 *    Random reads collide on units (balls in bins), so at QD 32 on 32
 *    units throughput is well below the 400K cap; mean latency stays near
 *    unloaded while few reads share a unit, then units and controller
 *    saturate and latency grows linearly with queue depth (Little:
 *    latency = QD / IOPS): the knee.  IOs larger than a stripe
 *    (units * page_bytes) charge ceil/floor(pages/units) page reads to the
 *    units of their first stripe (O(units) per command at worst).
 *
 * 4. Writes and the buffer.  Write data crosses the write link first,
 *
 *      t = link_wr = max(ready, link_wr) + len / link_bps
 *
 *    (a plain reservation: `ready` comes in controller order, so there is
 *    no head-of-line blocking), then enters the buffer at t.  Occupancy B
 *    drains continuously
 *
 *      prog_bps  = units * page_bytes * 1e9 / tPROG
 *      drain_bps = prog_bps * (1 - read_util) / WA
 *
 *    where read_util is the share of unit time taken by reads in the
 *    previous 1 ms window (capped at 90%: firmware always lets programs
 *    progress).  If B + len <= buffer the write completes after
 *    buffer_write_ns; otherwise it first waits (B + len - buffer)/drain_bps.
 *    B is then increased by len even beyond the buffer size: the excess
 *    stands for writes queued for space, which keeps writes FIFO and makes
 *    sustained write throughput exactly drain_bps.
 *
 *      done = xfer + wait + buffer_write_ns + fixed_ns [+ spike]
 *
 * 5. Garbage collection.  Fragmentation f in [0, 1] (a Q32 fraction)
 *    moves towards 1 with random writes and towards 0 with sequential
 *    ones, by len / frag_window_bytes per write (so writing one window
 *    moves f by about 1 - 1/e of the distance):
 *
 *      f += (target - f) * len / frag_window_bytes       target 1 or 0
 *      WA = 1 + (wa_max - 1) * f
 *
 *    (a write of a whole window or more sets f to the target at once).
 *
 *    A write is sequential when its offset equals the end of one of the
 *    last 8 write streams (a small LRU table, so interleaved tenants are
 *    each seen as sequential).  TRIM moves f towards 0 at a quarter of
 *    that weight (freed blocks make GC cheaper).
 *
 * 6. Read-behind-write.  While the buffer is draining, programs are
 *    backlogged, so a unit that is not reading is programming.  How a read
 *    gets the unit depends on the buffer (B at the read's start):
 *
 *    - draining, not full (B <= buffer): reads have priority through
 *      program suspend, but the firmware guarantees the program some
 *      progress between suspends (a minimum resume interval, here tR: the
 *      program gets as much unit time as the read it yields to):
 *
 *          start_u = max(ready, busy_u + tR) + U[0, suspend_ns]
 *
 *      An isolated read pays only the suspend latency; reads queued on a
 *      unit alternate with program slices, so programs and reads split
 *      busy units about evenly.
 *
 *    - full (B > buffer: host writes are waiting for space): the firmware
 *      stops suspending programs so that writes get through.  A read waits
 *      for the program that followed the unit's last read, or for the
 *      remainder of the one in progress:
 *
 *          start_u = busy_u + tPROG           if ready < busy_u + tPROG
 *                  = ready + U[0, tPROG]      otherwise
 *
 *      so queued reads alternate with whole programs.  This is why an
 *      unthrottled writer crowds readers out (and what a QoS scheduler
 *      avoids by keeping writes below the drain rate).
 *
 *    Programs take unit time from reads here; reads take it from programs
 *    through read_util (section 4): a write byte costs read capacity.
 *    suspend_ns = 0 turns this interference off.
 *
 * 7. Spikes.  With probability spike_ppm per command, a log-uniform delay
 *    in [spike_min_ns, spike_max_ns] is added to that command only.
 *
 * 8. Other opcodes.  FLUSH completes after ctrl + fixed_ns (the drive has
 *    power-loss protection, as datacenter drives do, so the buffer is
 *    already durable).  TRIM costs ctrl + fixed_ns.  WRITE_ZEROES is a
 *    cheap write: no link transfer, one page (at most len) of buffer
 *    occupancy for the mapping update, plus TRIM's effect on f.  TRIM and
 *    WRITE_ZEROES accept length 0 (a no-op range); FLUSH ignores
 *    offset and length.
 *
 * 9. Worked example (preset dct983: 32 units, 48 KiB pages (one-shot TLC
 *    word lines), tR 70 us, tPROG 1,572,864 ns, cmd 2.5 us, fixed 11.1 us, link 3.0 GB/s,
 *    64 MiB buffer, buffer write 5 us, wa_max 6.1, suspend 50 us).
 *    - QD1 4 KiB random read: 2,500 + 70,000 + 4096/3.0 GB/s (1,365)
 *      + 11,100 = 84,965 ns.
 *    - Random 4 KiB read throughput: units allow 32 / 70 us = 457K IOPS,
 *      the controller 1 / 2.5 us = 400K IOPS, reached from QD ~128 on.
 *      At QD 32 collisions on units limit it: a balanced closed network
 *      keeps 32/(32+32-1) of the units busy, 0.51 * 457K = 232K IOPS
 *      (about 250K measured: service times are not exponential).
 *    - Sequential 128 KiB read: 3 pages on 3 distinct units, units allow
 *      32*48 KiB / 70 us = 22 GB/s, so the link (3.0 GB/s) limits.
 *    - Reads next to writes: an isolated read on a draining drive waits
 *      25 us more on average (suspend).  With the buffer full it waits
 *      tPROG / 2 = 786 us more, and a unit serving queued reads gives each
 *      70 + 1573 us: reads get 70 / 1643 = 4% of busy units.  A 4 KiB
 *      reader at QD32 next to an unthrottled 128 KiB writer gets 6% of
 *      its solo throughput (62 MB/s), the writer 96%.
 *    - Writes: prog_bps = 32 * 49,152 * 1e9 / 1,572,864 = 1.0 GB/s.  A
 *      clean drive (WA 1) sustains 1.0 GB/s of sequential writes once
 *      the 64 MiB buffer is full (at QD32 of 128 KiB it fills in 64 MiB /
 *      (3.0 - 1.0) GB/s = 34 ms).  Fragmented (f = 1), WA = 6.1 and the
 *      buffer drains at 1e9 / 6.1 = 164 MB/s = 40.0K random 4 KiB writes/s.
 *    - QD1 4 KiB write into a non-full buffer: 2,500 + 1,365 + 5,000 +
 *      11,100 = 19,965 ns.
 *
 * 10. Page register (cfg.page_register, 0 = off in every preset).  A NAND
 *    die keeps the page it read last in its page (cache) register until
 *    the next operation on that plane replaces it: another page's read, or
 *    a program (whose data goes through the same register).  With the
 *    register on, a read whose page is the one its unit read last, with no
 *    program in between, is served from the register:
 *
 *        end_u = max(ready, busy_u)      (no tR; busy_u not extended)
 *
 *    so eight 512 B reads of one 4 KiB page cost one tR, not eight; a read
 *    queued behind the tR of the same page gets its data when that tR ends.
 *    The unit's own time for the register-to-controller transfer is not
 *    modelled (the data still crosses the host link).  "No program in
 *    between" follows section 6's fluid view: a unit programs whenever the
 *    buffer holds data, so the register is valid only if the buffer was
 *    empty when the page was read and no write has entered the drive since
 *    (reg_epoch against write_epoch, bumped by every WRITE / WRITE_ZEROES).
 *    Only single-page-per-unit reads fill the register (a read larger than
 *    a stripe charges approximate pages, section 3); any other read of the
 *    unit clears it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jbof_internal.h"

/* Limits on caller input. */
enum {
    SSD_MAX_IO_BYTES = 32u << 20,   /* READ / WRITE / WRITE_ZEROES */
    SSD_MAX_UNITS = 4096,
    SSD_MIN_PAGE_BYTES = 512,
    SSD_MAX_PAGE_BYTES = 1u << 20,
    SSD_MAX_WA_X256 = 256 * 100,
    SSD_PPM = 1000000,
};

/* Model constants. */
enum {
    SSD_STREAMS = 8,                 /* sequential-write streams tracked */
    SSD_UTIL_WINDOW_NS = 1000000,    /* read-utilisation window: 1 ms */
    SSD_READ_UTIL_MAX_PPM = 900000,  /* programs keep >= 10% of unit time */
    SSD_TRIM_FRAG_SHIFT = 2,         /* TRIM weighs 1/4 of a sequential write */
};

#define SSD_NS_PER_S 1000000000ull
#define SSD_MAX_NOW_NS (1ull << 62) /* 146 years: keeps all sums in range */
#define SSD_FRAG_ONE (1ull << 32)   /* fragmentation fixed point: Q32 */

struct jbof_ssd {
    jbof_ssd_cfg cfg;
    rng_state rng;            /* xoshiro256** state (jbof_internal.h) */
    uint64_t layout_key;      /* seeds the page -> unit hash */
    uint64_t last_now_ns;     /* latest now_ns seen (clamping) */
    uint64_t ctrl_busy_ns;
    uint64_t link_rd_busy_ns;
    uint64_t link_wr_busy_ns;
    uint64_t prog_bps;        /* raw program bandwidth of all units */
    /* write buffer (fluid) */
    uint64_t buf_bytes;       /* occupancy at buf_t_ns, may exceed the size */
    uint64_t buf_t_ns;
    uint64_t drain_bps;       /* rate in force since buf_t_ns */
    /* read utilisation windows */
    uint64_t win_start_ns;
    uint64_t win_read_unit_ns;
    uint32_t read_util_ppm;   /* of the previous window */
    /* garbage collection */
    uint64_t frag_q32;        /* 0 .. SSD_FRAG_ONE */
    uint64_t stream_end[SSD_STREAMS];
    uint64_t stream_used[SSD_STREAMS];
    uint64_t stream_clock;
    double spike_ln_ratio;    /* ln(spike_max / spike_min) */
    jbof_ssd_stats st;
    /* section 10: page register */
    uint64_t write_epoch;     /* WRITE / WRITE_ZEROES commands so far */
    uint64_t *reg_page;       /* per unit: page + 1 held in the register, 0 none */
    uint64_t *reg_epoch;      /* per unit: write_epoch when reg_page was read */
    uint64_t unit_busy_ns[]; /* one per unit, then reg_page[], reg_epoch[] */
};

/* ------------------------------------------------------------ presets ---- */

struct ssd_preset {
    const char *name;
    jbof_ssd_cfg cfg;
};

/* dct983: 960 GB PM983/DCT983-class drive on PCIe 3.0 x4.  Units are its
 * 32 dies: random reads are die-bound near the controller's 400K cap, as
 * on the real part (the larger capacities, with more dies, read faster).
 * Its 64-layer TLC programs a 48 KiB word line (three 16 KiB pages) in one
 * shot, so the program granule is 48 KiB and tPROG 1.57 ms -- the one-shot
 * program times TLC data sheets give -- set so that 32 units program
 * 1.0 GB/s; a read that finds its die mid-program when nothing can be
 * suspended waits up to that long, which is what makes saturating writes
 * hurt readers on this class of drive.  wa_max is set so that a fragmented
 * drive drains 1e9 / 6.1 / 4096 = 40K random 4 KiB writes/s. */
#define DCT983_CFG                                                      \
    .capacity_bytes = 960000000000ull, .units = 32, .page_bytes = 49152, \
    .read_page_ns = 70000, .program_page_ns = 1572864, .cmd_ns = 2500,  \
    .fixed_ns = 11100, .link_bps = 3000000000ull,                       \
    .write_buffer_bytes = 64ull << 20, .buffer_write_ns = 5000,         \
    .wa_max_x256 = 1562, .frag_window_bytes = 4ull << 30,               \
    .suspend_ns = 50000, .spike_ppm = 50, .spike_min_ns = 1000000,      \
    .spike_max_ns = 5000000

#define SATA_CFG                                                        \
    .capacity_bytes = 480000000000ull, .units = 16, .page_bytes = 16384, \
    .read_page_ns = 70000, .program_page_ns = 524288, .cmd_ns = 10500,  \
    .fixed_ns = 18000, .link_bps = 550000000ull,                        \
    .write_buffer_bytes = 32ull << 20, .buffer_write_ns = 25000,        \
    .wa_max_x256 = 2083, .frag_window_bytes = 2ull << 30,               \
    .suspend_ns = 80000, .spike_ppm = 200, .spike_min_ns = 2000000,     \
    .spike_max_ns = 20000000

static const struct ssd_preset ssd_presets[] = {
    { .name = "dct983", .cfg = { DCT983_CFG, .frag_init_ppm = 0 } },
    { .name = "dct983-fragmented", .cfg = { DCT983_CFG, .frag_init_ppm = SSD_PPM } },
    /* A 480 GB SATA drive: 550 MB/s link, ~95K read IOPS (AHCI command
     * overhead), ~105 us reads, 500 MB/s sequential writes, 15K sustained
     * random 4 KiB writes when fragmented (0.5 GB/s / 8.1), noisier. */
    { .name = "sata-ssd", .cfg = { SATA_CFG, .frag_init_ppm = 0 } },
    { .name = "sata-ssd-fragmented", .cfg = { SATA_CFG, .frag_init_ppm = SSD_PPM } },
};

enum { SSD_NPRESETS = sizeof(ssd_presets) / sizeof(ssd_presets[0]) };

int jbof_ssd_preset(const char *name, jbof_ssd_cfg *cfg)
{
    if (!name || !cfg)
        return -EINVAL;
    for (uint32_t i = 0; i < SSD_NPRESETS; i++) {
        if (strcmp(ssd_presets[i].name, name) == 0) {
            *cfg = ssd_presets[i].cfg;
            return 0;
        }
    }
    return -ENOENT;
}

const char *jbof_ssd_preset_name(uint32_t i)
{
    return i < SSD_NPRESETS ? ssd_presets[i].name : NULL;
}

/* ------------------------------------------------------------ helpers ---- */

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* a * b / c without overflow; saturates at UINT64_MAX */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t p;
    if (!__builtin_mul_overflow(a, b, &p))
        return p / c;   /* the common case, without a 128-bit division */
    unsigned __int128 r = (unsigned __int128)a * b / c;
    return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

/* Rotation of stripe `row`: unit(p) = (p % units + row_shift(p / units)) % units. */
static uint64_t row_shift(const jbof_ssd *d, uint64_t row)
{
    uint64_t h = d->layout_key ^ row;
    return rng_splitmix(&h) % d->cfg.units;
}

static uint32_t wa_x256(const jbof_ssd *d)
{
    uint64_t extra = d->cfg.wa_max_x256 - 256u;
    return (uint32_t)(256u + ((extra * d->frag_q32) >> 32));
}

static uint64_t drain_rate(const jbof_ssd *d)
{
    uint64_t bps = muldiv(d->prog_bps, SSD_PPM - d->read_util_ppm, SSD_PPM);
    bps = muldiv(bps, 256, wa_x256(d));
    return bps ? bps : 1;
}

/* Drain the buffer up to t (never backwards), then adopt the current rate. */
static void buf_advance(jbof_ssd *d, uint64_t t)
{
    if (t > d->buf_t_ns) {
        uint64_t drained = muldiv(t - d->buf_t_ns, d->drain_bps, SSD_NS_PER_S);
        d->buf_bytes = d->buf_bytes > drained ? d->buf_bytes - drained : 0;
        d->buf_t_ns = t;
    }
    d->drain_bps = drain_rate(d);
}

/* Buffer occupancy at time t (t before the last update: as of the update). */
static uint64_t buf_at(const jbof_ssd *d, uint64_t t)
{
    if (t <= d->buf_t_ns)
        return d->buf_bytes;
    uint64_t drained = muldiv(t - d->buf_t_ns, d->drain_bps, SSD_NS_PER_S);
    return d->buf_bytes > drained ? d->buf_bytes - drained : 0;
}

/* Close the read-utilisation window if now is past it. */
static void util_roll(jbof_ssd *d, uint64_t now)
{
    uint64_t age = now - d->win_start_ns;
    if (age < SSD_UTIL_WINDOW_NS)
        return;
    uint64_t util = 0;
    if (age < 2ull * SSD_UTIL_WINDOW_NS) {   /* else: a whole idle window */
        util = muldiv(d->win_read_unit_ns, SSD_PPM, (uint64_t)d->cfg.units * SSD_UTIL_WINDOW_NS);
        if (util > SSD_READ_UTIL_MAX_PPM)
            util = SSD_READ_UTIL_MAX_PPM;
    }
    d->win_start_ns = now - age % SSD_UTIL_WINDOW_NS;
    d->win_read_unit_ns = 0;
    if (util != d->read_util_ppm) {
        buf_advance(d, now);   /* drain at the old rate up to now */
        d->read_util_ppm = (uint32_t)util;
        d->drain_bps = drain_rate(d);
    }
}

/* Move fragmentation towards 1 (up) or 0 by bytes / (window << shift). */
static void frag_move(jbof_ssd *d, int up, uint64_t bytes, unsigned shift)
{
    uint64_t w = d->cfg.frag_window_bytes << shift;
    if (bytes >= w) {
        d->frag_q32 = up ? SSD_FRAG_ONE : 0;
    } else if (up) {
        d->frag_q32 += muldiv(SSD_FRAG_ONE - d->frag_q32, bytes, w);
    } else {
        d->frag_q32 -= muldiv(d->frag_q32, bytes, w);
    }
}

/* 1 if a write at off continues one of the recent streams; records it. */
static int stream_is_seq(jbof_ssd *d, uint64_t off, uint64_t end)
{
    uint32_t victim = 0;
    d->stream_clock++;
    for (uint32_t i = 0; i < SSD_STREAMS; i++) {
        if (d->stream_used[i] && d->stream_end[i] == off) {
            d->stream_end[i] = end;
            d->stream_used[i] = d->stream_clock;
            return 1;
        }
        if (d->stream_used[i] < d->stream_used[victim])
            victim = i;
    }
    d->stream_end[victim] = end;
    d->stream_used[victim] = d->stream_clock;
    return 0;
}

static uint64_t xfer_ns(const jbof_ssd *d, uint64_t bytes)
{
    return muldiv(bytes, SSD_NS_PER_S, d->cfg.link_bps);
}

/* Section 3: reserve the units of the pages, then the read link. */
static uint64_t do_read(jbof_ssd *d, uint64_t off, uint64_t len, uint64_t ready)
{
    const jbof_ssd_cfg *c = &d->cfg;
    uint64_t first = off / c->page_bytes;
    uint64_t npages = (off + len - 1) / c->page_bytes - first + 1;
    uint64_t span = npages < c->units ? npages : c->units;
    uint64_t data = ready;
    uint64_t row = first / c->units, col = first % c->units, shift = row_shift(d, row);
    for (uint64_t j = 0; j < span; j++, col++) {
        if (col == c->units) {   /* the IO crosses into the next stripe */
            col = 0;
            shift = row_shift(d, ++row);
        }
        uint64_t cnt = npages <= c->units ? 1 : npages / c->units + (j < npages % c->units);
        uint64_t u = col + shift < c->units ? col + shift : col + shift - c->units;
        uint64_t busy = d->unit_busy_ns[u];
        uint64_t start = max64(ready, busy);
        if (c->page_register) {
            /* Section 10: the register holds the page if the buffer was
             * empty at its read, no write came since and it is empty now. */
            uint64_t page = npages <= c->units ? first + j + 1 : 0;
            int empty = buf_at(d, start) == 0;
            if (page && empty && d->reg_page[u] == page && d->reg_epoch[u] == d->write_epoch) {
                data = max64(data, start);
                continue;
            }
            d->reg_page[u] = empty ? page : 0;
            d->reg_epoch[u] = d->write_epoch;
        }
        uint64_t b = c->suspend_ns ? buf_at(d, start) : 0;
        if (b > c->write_buffer_bytes) {
            /* Section 6, buffer full: no suspend; the read waits for the
             * program that followed the unit's last read, or for the one
             * in progress (a uniform remainder). */
            uint64_t prog_end = busy + c->program_page_ns;
            start = ready < prog_end ? prog_end : ready + rng_below(&d->rng, c->program_page_ns);
        } else if (b) {
            /* Section 6, draining: the program has run for at least tR
             * since the unit's last read, then the read suspends it. */
            start = max64(ready, busy + c->read_page_ns) + rng_below(&d->rng, c->suspend_ns + 1);
        }
        uint64_t end = start + cnt * c->read_page_ns;
        d->unit_busy_ns[u] = end;
        data = max64(data, end);
        d->win_read_unit_ns += cnt * c->read_page_ns;
    }
    /* The link is a virtual clock fed in controller order (section 3):
     * it enforces link_bps without making a read whose pages are ready
     * wait behind an earlier read still queued on a busy unit. */
    uint64_t x = xfer_ns(d, len);
    d->link_rd_busy_ns = max64(ready, d->link_rd_busy_ns) + x;
    return max64(data + x, d->link_rd_busy_ns);
}

/* Section 4: link, then the fluid write buffer; section 5: fragmentation. */
static uint64_t do_write(jbof_ssd *d, uint64_t off, uint64_t len, uint64_t ready, int zeroes)
{
    const jbof_ssd_cfg *c = &d->cfg;
    uint64_t te = ready, buf_len = len;
    d->write_epoch++;   /* section 10: programs follow; registers go stale */
    if (zeroes) {
        buf_len = len < c->page_bytes ? len : c->page_bytes;
    } else {
        te = max64(ready, d->link_wr_busy_ns) + xfer_ns(d, len);
        d->link_wr_busy_ns = te;
    }
    buf_advance(d, te);
    uint64_t start = te;
    if (d->buf_bytes + buf_len > c->write_buffer_bytes) {
        uint64_t excess = d->buf_bytes + buf_len - c->write_buffer_bytes;
        start = max64(te, d->buf_t_ns + muldiv(excess, SSD_NS_PER_S, d->drain_bps));
        d->st.buffer_full_waits++;
    }
    d->buf_bytes += buf_len;
    if (zeroes)
        frag_move(d, 0, len, SSD_TRIM_FRAG_SHIFT);
    else
        frag_move(d, !stream_is_seq(d, off, off + len), len, 0);
    d->drain_bps = drain_rate(d);
    return start + c->buffer_write_ns;
}

static uint64_t spike_ns(jbof_ssd *d)
{
    double u = (double)(rng_next(&d->rng) >> 11) * 0x1.0p-53;
    double v = (double)d->cfg.spike_min_ns * exp(u * d->spike_ln_ratio);
    uint64_t ns = (uint64_t)v;
    if (ns < d->cfg.spike_min_ns)
        ns = d->cfg.spike_min_ns;
    if (ns > d->cfg.spike_max_ns)
        ns = d->cfg.spike_max_ns;
    return ns;
}

/* ---------------------------------------------------------------- API ---- */

/* Bounds keep every time sum far below 2^64 (see SSD_MAX_NOW_NS). */
#define SSD_MAX_PARAM_NS 10000000000ull   /* 10 s */
#define SSD_MAX_SPIKE_NS 60000000000ull   /* 60 s */

static int cfg_valid(const jbof_ssd_cfg *c)
{
    if (c->units < 1 || c->units > SSD_MAX_UNITS)
        return 0;
    if (c->page_bytes < SSD_MIN_PAGE_BYTES || c->page_bytes > SSD_MAX_PAGE_BYTES)
        return 0;
    if (c->capacity_bytes < c->page_bytes || c->capacity_bytes > (1ull << 60))
        return 0;
    if (c->read_page_ns < 1 || c->read_page_ns > SSD_MAX_PARAM_NS)
        return 0;
    if (c->program_page_ns < 1 || c->program_page_ns > SSD_MAX_PARAM_NS)
        return 0;
    if (c->cmd_ns > SSD_MAX_PARAM_NS || c->fixed_ns > SSD_MAX_PARAM_NS)
        return 0;
    if (c->buffer_write_ns > SSD_MAX_PARAM_NS || c->suspend_ns > SSD_MAX_PARAM_NS)
        return 0;
    if (c->link_bps < 1 || c->write_buffer_bytes > (1ull << 40))
        return 0;
    if (c->wa_max_x256 < 256 || c->wa_max_x256 > SSD_MAX_WA_X256)
        return 0;
    if (c->frag_init_ppm > SSD_PPM)
        return 0;
    if (c->frag_window_bytes < 1 || c->frag_window_bytes > (1ull << 50))
        return 0;
    if (c->spike_ppm > SSD_PPM || c->page_register > 1)
        return 0;
    if (c->spike_ppm && (c->spike_min_ns < 1 || c->spike_min_ns > c->spike_max_ns ||
                         c->spike_max_ns > SSD_MAX_SPIKE_NS))
        return 0;
    return 1;
}

int jbof_ssd_create(const jbof_ssd_cfg *cfg, uint64_t seed, jbof_ssd **out)
{
    if (!cfg || !out || !cfg_valid(cfg))
        return -EINVAL;
    jbof_ssd *d = calloc(1, sizeof(*d) + 3 * (size_t)cfg->units * sizeof(uint64_t));
    if (!d)
        return -ENOMEM;
    d->cfg = *cfg;
    d->reg_page = d->unit_busy_ns + cfg->units;
    d->reg_epoch = d->reg_page + cfg->units;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        d->rng.s[i] = rng_splitmix(&x);
    d->layout_key = rng_splitmix(&x);
    d->prog_bps = muldiv((uint64_t)cfg->units * cfg->page_bytes, SSD_NS_PER_S, cfg->program_page_ns);
    d->frag_q32 = muldiv(cfg->frag_init_ppm, SSD_FRAG_ONE, SSD_PPM);
    if (cfg->spike_ppm)
        d->spike_ln_ratio = log((double)cfg->spike_max_ns / (double)cfg->spike_min_ns);
    d->drain_bps = drain_rate(d);
    *out = d;
    return 0;
}

void jbof_ssd_destroy(jbof_ssd *d)
{
    free(d);
}

int jbof_ssd_submit(jbof_ssd *d, uint32_t opcode, uint64_t offset_bytes,
                    uint32_t length_bytes, uint64_t now_ns, uint64_t *done_ns)
{
    if (!d || !done_ns || opcode >= JBOF_OP_COUNT || now_ns >= SSD_MAX_NOW_NS)
        return -EINVAL;
    const jbof_ssd_cfg *c = &d->cfg;
    uint64_t len = length_bytes;
    if (opcode != JBOF_OP_FLUSH) {
        if (len == 0 && (opcode == JBOF_OP_READ || opcode == JBOF_OP_WRITE))
            return -EINVAL;
        if (len > SSD_MAX_IO_BYTES && opcode != JBOF_OP_TRIM)
            return -EINVAL;
        if (offset_bytes > c->capacity_bytes || len > c->capacity_bytes - offset_bytes)
            return -EINVAL;
    }

    /* Clamp a backwards now_ns (section 2). */
    uint64_t now = max64(now_ns, d->last_now_ns);
    d->last_now_ns = now;
    util_roll(d, now);

    uint64_t ready = max64(now, d->ctrl_busy_ns) + c->cmd_ns;
    d->ctrl_busy_ns = ready;
    uint64_t t = ready;
    switch (opcode) {
    case JBOF_OP_READ:
        t = do_read(d, offset_bytes, len, ready);
        d->st.reads++;
        d->st.read_bytes += len;
        break;
    case JBOF_OP_WRITE:
        t = do_write(d, offset_bytes, len, ready, 0);
        d->st.writes++;
        d->st.write_bytes += len;
        break;
    case JBOF_OP_WRITE_ZEROES:
        if (len)
            t = do_write(d, offset_bytes, len, ready, 1);
        d->st.others++;
        break;
    case JBOF_OP_TRIM:
        if (len) {
            buf_advance(d, ready);
            frag_move(d, 0, len, SSD_TRIM_FRAG_SHIFT);
            d->drain_bps = drain_rate(d);
        }
        d->st.others++;
        break;
    default: /* FLUSH: power-loss protected buffer, nothing to wait for */
        d->st.others++;
        break;
    }
    t += c->fixed_ns;
    if (c->spike_ppm && rng_below(&d->rng, SSD_PPM) < c->spike_ppm) {
        t += spike_ns(d);
        d->st.spikes++;
    }
    *done_ns = t;
    return 0;
}

int jbof_ssd_stats_get(const jbof_ssd *d, jbof_ssd_stats *out)
{
    if (!d || !out)
        return -EINVAL;
    *out = d->st;
    out->buffer_bytes = d->buf_bytes;
    out->frag_ppm = (uint32_t)muldiv(d->frag_q32, SSD_PPM, SSD_FRAG_ONE);
    out->wa_x256 = wa_x256(d);
    return 0;
}
