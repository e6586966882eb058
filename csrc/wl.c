/*
 * wl.c -- fio-like workload generator for the simulator.
 *
 * 1. Vocabulary.  A workload is fio's: rw (read, write, randread,
 *    randwrite, rw, randrw), rwmixread, bs or bssplit, iodepth, rate /
 *    rate_iops, thinktime, startdelay, runtime and an offset range (size).
 *    It is a list of up to 16 phases, each a full set of those knobs with a
 *    duration, optionally idle, optionally looping: a training job is
 *    "read burst 200 ms, idle 800 ms, loop", with a checkpoint phase.
 *
 * 2. Timing model (what sim.c does with it).
 *      closed loop (no rate):  keep iodepth IOs outstanding; after each
 *                              completion wait thinktime, then reissue;
 *      open loop (rate):       arrivals every gap = max(bs / rate_bps,
 *                              1 / rate_iops) -- fio's evenly spaced rate --
 *                              but never more than iodepth outstanding: an
 *                              arrival finding iodepth outstanding waits for
 *                              the next completion (fio does the same).
 *
 * 3. Offsets.  Sequential streams advance by the IO size and wrap at size;
 *    random offsets are uniform over size, aligned to 4 KiB (or to the IO
 *    size when smaller), from the tenant's own seeded xoshiro256** stream so
 *    every run of a seed is identical.
 *
 *    Worked example: rw=randrw, rwmixread=70, bssplit 4k/80:64k/20: each IO
 *    is a read with probability 0.70 and 4 KiB with probability 0.80, so
 *    the mean IO is 0.8 * 4 + 0.2 * 64 = 16 KiB, and rate=160MiB/s spaces
 *    arrivals by the size of each IO: 25.6 us after a 4 KiB IO, 410 us after
 *    a 64 KiB one -- 10240 IOs/s on average.
 */
#include <errno.h>
#include <string.h>

#include "jbof_internal.h"

enum { ALIGN_BYTES = 4096, MAX_BS = 32 << 20 };

int wl_check(const jbof_wl *wl)
{
    if (!wl)
        return -EINVAL;
    if (wl->nphases < 1 || wl->nphases > JBOF_WL_MAX_PHASES || wl->loop > 1)
        return -EINVAL;
    if (wl->size_bytes < ALIGN_BYTES || wl->size_bytes > (1ull << 50))
        return -EINVAL;
    uint64_t total = 0;
    for (uint32_t i = 0; i < wl->nphases; i++) {
        const jbof_wl_phase *p = &wl->phases[i];
        total += p->duration_ns;
        if (p->idle > 1)
            return -EINVAL;
        if (p->idle)
            continue;
        if (p->rw >= JBOF_RW_COUNT || p->rwmixread_pct > 100)
            return -EINVAL;
        if (p->iodepth < 1 || p->iodepth > 65536)
            return -EINVAL;
        if (p->nbs < 1 || p->nbs > JBOF_WL_MAX_BS)
            return -EINVAL;
        uint32_t pct = 0;
        for (uint32_t k = 0; k < p->nbs; k++) {
            if (p->bs[k] < 512 || p->bs[k] > MAX_BS || p->bs[k] % 512 || p->bs[k] > wl->size_bytes)
                return -EINVAL;
            pct += p->bs_pct[k];
        }
        if (pct != 100)
            return -EINVAL;
        if (p->rate_bps > (1ull << 40) || p->rate_iops > (1ull << 30))
            return -EINVAL;
    }
    /* a looping workload needs a positive cycle, else it would spin */
    if (wl->loop && total == 0)
        return -EINVAL;
    return 0;
}

void wl_start(wl_state *w, const jbof_wl *wl, uint64_t now_ns, uint64_t seed)
{
    memset(w, 0, sizeof(*w));
    w->wl = *wl;
    rng_seed(&w->rng, seed);
    w->start_ns = now_ns + wl->startdelay_ns;
    w->end_ns = wl->runtime_ns ? w->start_ns + wl->runtime_ns : UINT64_MAX;
    w->phase = 0;
    uint64_t d = wl->phases[0].duration_ns;
    w->phase_end_ns = d ? w->start_ns + d : UINT64_MAX;
}

const jbof_wl_phase *wl_phase_at(wl_state *w, uint64_t now_ns)
{
    if (now_ns < w->start_ns || now_ns >= w->end_ns || w->done)
        return NULL;
    while (now_ns >= w->phase_end_ns) {
        uint32_t next = w->phase + 1;
        if (next >= w->wl.nphases) {
            if (!w->wl.loop) {
                w->done = 1;
                return NULL;
            }
            next = 0;
        }
        w->phase = next;
        uint64_t d = w->wl.phases[next].duration_ns;
        /* a zero-length phase inside a loop is skipped; at the end it is open */
        w->phase_end_ns = d ? w->phase_end_ns + d : (w->wl.loop ? w->phase_end_ns : UINT64_MAX);
    }
    const jbof_wl_phase *p = &w->wl.phases[w->phase];
    return p->idle ? NULL : p;
}

uint64_t wl_next_change_ns(const wl_state *w, uint64_t now_ns)
{
    if (w->done || now_ns >= w->end_ns)
        return UINT64_MAX;
    if (now_ns < w->start_ns)
        return w->start_ns;
    uint64_t t = w->phase_end_ns;
    if (w->end_ns < t)
        t = w->end_ns;
    return t;
}

static uint32_t pick_bs(wl_state *w, const jbof_wl_phase *p)
{
    if (p->nbs == 1)
        return p->bs[0];
    uint32_t r = (uint32_t)rng_below(&w->rng, 100), acc = 0;
    for (uint32_t k = 0; k < p->nbs; k++) {
        acc += p->bs_pct[k];
        if (r < acc)
            return p->bs[k];
    }
    return p->bs[p->nbs - 1];
}

void wl_make_io(wl_state *w, const jbof_wl_phase *p, jbof_io *io)
{
    uint32_t len = pick_bs(w, p);
    int write;
    switch (p->rw) {
    case JBOF_RW_READ:
    case JBOF_RW_RANDREAD:
        write = 0;
        break;
    case JBOF_RW_WRITE:
    case JBOF_RW_RANDWRITE:
        write = 1;
        break;
    default:
        write = rng_below(&w->rng, 100) >= p->rwmixread_pct;
    }
    int rnd = p->rw == JBOF_RW_RANDREAD || p->rw == JBOF_RW_RANDWRITE || p->rw == JBOF_RW_RANDRW;
    uint64_t size = w->wl.size_bytes;
    uint64_t off;
    if (rnd) {
        uint64_t align = len < ALIGN_BYTES ? len : ALIGN_BYTES;
        uint64_t slots = (size - len) / align + 1;
        off = rng_below(&w->rng, slots) * align;
    } else {
        if (w->seq_off + len > size)
            w->seq_off = 0;
        off = w->seq_off;
        w->seq_off += len;
    }
    io->opcode = write ? JBOF_OP_WRITE : JBOF_OP_READ;
    io->offset_bytes = off;
    io->length_bytes = len;
    io->flags = 0;
}

uint64_t wl_gap_ns(const jbof_wl_phase *p, uint32_t len)
{
    uint64_t g = 0;
    if (p->rate_bps)
        g = (uint64_t)(((__uint128_t)len * JBOF_NS_PER_S) / p->rate_bps);
    if (p->rate_iops) {
        uint64_t gi = JBOF_NS_PER_S / p->rate_iops;
        if (gi > g)
            g = gi;
    }
    if ((p->rate_bps || p->rate_iops) && g == 0)
        g = 1;
    return g;
}
