/*
 * scrub.c -- a namespace's blocks read as zeroes to their next owner.
 *
 * Without this, removing tenant A and adding tenant B over the same drive
 * space hands B whatever A wrote (memory, file and emulated backends
 * alike).  Zeroing A's namespace at removal would make removal of a 4 TiB
 * namespace take hours and stall the reactor; so the space is recorded as
 * dirty and zeroed lazily.
 *
 * 1. State.  Each drive keeps a sorted array of disjoint, non-adjacent
 *    dirty extents [off, off + len) (d->dirty, d->ndirty) and their total
 *    (scrub_pending_bytes).  The list lives as long as the engine; the
 *    daemon carries it across a restart (6).
 *
 * 2. Marking.  When an export's removal completes (no IO of it in a
 *    scheduler or a backend, export.c), scrub_mark adds its namespace.
 *    If the array cannot grow, the range is zeroed at once instead:
 *    slower, never wrong.
 *
 * 3. Every IO touching dirty space scrubs it first.  drive_pump calls
 *    scrub_before_io for each dispatched IO (one compare when the drive has
 *    no dirty extent): the overlap of the IO with each dirty extent is
 *    zeroed synchronously through the backend's zero op (at most the IO's
 *    length, <= 32 MiB) and removed from the list, then the IO goes to the
 *    backend.  So a READ of never-scrubbed space returns zeroes, a WRITE
 *    lands on zeroed space and is never undone by a later background pass,
 *    and no IO is ever in flight on a dirty extent -- the background
 *    scrubber (4) cannot race with one.  If zeroing fails, the IO fails
 *    with EIO rather than show old data.
 *
 * 4. Background.  scrub_step zeroes from the first dirty extents what the
 *    time passed since its last step allows at scrub_rate_bps, whether or
 *    not the space has a new owner yet: a token bucket on the engine's
 *    clock (scrub_credit += rate * elapsed, the first step of a pass one
 *    period's worth, the bucket at most SCRUB_MAX_CHUNK), spent in whole
 *    blocks (4 KiB at least).  So a reactor woken late on a loaded host
 *    still zeroes at the rate (a fixed amount per wake-up fell to a tenth
 *    of it when wake-ups came every 10 ms), a rate below one block per
 *    ms is kept too, and one step never zeroes more than SCRUB_MAX_CHUNK.
 *    The reactor wakes for it (scrub_next_ns) when the bucket holds a
 *    block again, at most once per millisecond.  Zeroing per backend:
 *      memory / emulated   MADV_DONTNEED on whole pages of anonymous memory
 *                          (or PUNCH_HOLE on a data file), memset the edges
 *      file, regular       fallocate(PUNCH_HOLE | KEEP_SIZE), else ZERO_RANGE
 *      file, block device  BLKZEROOUT (WRITE ZEROES or a discard the device
 *                          guarantees reads back as zeroes)
 *      any, last resort    writes of a 1 MiB zero buffer
 *    Zeroing is synchronous on the reactor thread, bounded per step by the
 *    chunk: cheap for holes and pages; on a block device without a fast
 *    WRITE ZEROES lower scrub_rate_bps (the step then stalls the loop less).
 *
 * 5. Worked example.  A 4 TiB file drive; tenant A owns [1 GiB, 2 GiB) and
 *    is removed: dirty = {[1 GiB, 2 GiB)}, pending 1 GiB.  B is added at
 *    [1 GiB, 1.5 GiB) at once and reads 4 KiB at its offset 8 KiB: the
 *    read overlaps the dirty extent, so [1 GiB + 8 KiB, + 4 KiB) is
 *    punched first; dirty = {[1 GiB, +8 KiB), [1 GiB + 12 KiB, 2 GiB)} and
 *    the read returns zeroes.  Meanwhile the background, at the default
 *    16 GiB/s (16 MiB per ms; 64 MiB at most if the reactor wakes 4 ms
 *    late), punches the first extent, then the second: after about 64 ms
 *    dirty is empty and IO no longer pays even the compare.
 *
 * 6. Across a restart.  A new engine starts with an empty list, and a
 *    removed namespace not yet zeroed would show its bytes to the next
 *    owner.  So the daemon keeps each removed namespace in its state file
 *    (scrub_pending) until the drive reports scrub_pending_bytes 0, and a
 *    start marks them dirty again before it serves:
 *    jbof_drive_scrub_mark(engine, drive, off, len) -- off and len multiples
 *    of the drive's block and inside it (-EINVAL), never over a namespace in
 *    use (-EBUSY: that would zero a tenant's data); space already dirty
 *    stays dirty (only the gaps are marked).  Re-marking space that was in
 *    fact zeroed before the restart costs one more zero (a hole punch on a
 *    file).  The daemon never places a new tenant over space in its list
 *    (tenant.add places it clear of that space, else waits for the scrub or
 *    refuses), so a re-mark can never
 *    zero data a new owner wrote.  Worked example: A's [32 MiB, 64 MiB) is
 *    removed at a scrub_rate of 1 MiB/s and the daemon stops 3 s later;
 *    its state holds [32 MiB, 32 MiB); the next start marks it, pending is
 *    32 MiB again, and the last 29 MiB of A's bytes still in the file are
 *    zeroed before anyone reads them.
 *
 * 7. What the rate counts: the background (4) only.  Zeroing on the IO
 *    path draws nothing from the bucket: a tenant's WRITE_ZEROES or TRIM,
 *    which the backend carries out as zeroing (the ops of 4), and the
 *    overlap (3) zeroes ahead of a tenant's IO.  Both are tenant IO: they
 *    passed the drive's scheduler and are charged to their tenant there
 *    (cost.c section 2), and the overlap lies inside the IO's own range
 *    (widened to 4 KiB chunks), zeroed once per removed byte.  The bucket
 *    never holds tenant IO back, so drawing from it would slow no tenant,
 *    only the background: a tenant zeroing at the scrub rate or above
 *    would stop the zeroing of removed space for as long as it kept going
 *    -- the daemon's tenant.add waiting, then refused busy, and the
 *    state's scrub_pending kept -- and the daemon's estimate of that wait
 *    (pending / scrub_rate) would not hold.  So a drive zeroes removed
 *    space at scrub_rate_bps in the background, plus what its tenants' IO
 *    zeroes, each tenant within its share; scrubbed_bytes counts (3) and
 *    (4), never a tenant's WRITE_ZEROES or TRIM.  (A WRITE_ZEROES the
 *    backend does in metadata costs a_w whatever its length; one it may
 *    carry out by writing costs a write of its length, in 1 MiB pieces:
 *    cost.c section 6.)  Worked
 *    example: 32 MiB removed at 4 MiB/s while another tenant zeroes its
 *    own 128 MiB in 16 MiB WRITE_ZEROES and TRIMs over and over (about
 *    130 GiB/s on a memory drive): 6.00 MiB scrubbed in 1.50 s, 4 MiB/s;
 *    had those drawn from the bucket (as a debt), 0.06 MiB.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reactor.h"

static const uint64_t SCRUB_PERIOD_NS = 1000000ull;
static const uint64_t SCRUB_MAX_CHUNK = 64ull << 20;
static const uint64_t SCRUB_ALIGN = 4096; /* block status granule: whole chunks only */

/* Make room for one more extent at index i. */
static int ext_insert(drive *d, uint32_t i, uint64_t off, uint64_t len)
{
    if (d->ndirty == d->dirty_cap) {
        uint32_t cap = d->dirty_cap ? d->dirty_cap * 2 : 16;
        scrub_ext *p = realloc(d->dirty, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        d->dirty = p;
        d->dirty_cap = cap;
    }
    memmove(&d->dirty[i + 1], &d->dirty[i], (d->ndirty - i) * sizeof(*d->dirty));
    d->dirty[i].off = off;
    d->dirty[i].len = len;
    d->ndirty++;
    return 0;
}

static void ext_delete(drive *d, uint32_t i)
{
    memmove(&d->dirty[i], &d->dirty[i + 1], (d->ndirty - i - 1) * sizeof(*d->dirty));
    d->ndirty--;
}

static int zero_now(drive *d, uint64_t off, uint64_t len)
{
    int rc = d->be->ops->zero(d->be, off, len);
    if (rc == 0)
        d->scrubbed += len;
    return rc;
}

int scrub_mark(drive *d, uint64_t off, uint64_t len)
{
    if (!d || len == 0 || off > d->size_bytes || len > d->size_bytes - off)
        return -EINVAL;
    uint32_t i = 0;
    while (i < d->ndirty && d->dirty[i].off < off)
        i++;
    /* merge with the previous / next extent when they touch */
    int prev = i > 0 && d->dirty[i - 1].off + d->dirty[i - 1].len >= off;
    int next = i < d->ndirty && off + len >= d->dirty[i].off;
    if (prev && next) {
        uint64_t end = d->dirty[i].off + d->dirty[i].len;
        if (end < off + len)
            end = off + len;
        d->scrub_pending -= d->dirty[i - 1].len + d->dirty[i].len;
        d->dirty[i - 1].len = end - d->dirty[i - 1].off;
        d->scrub_pending += d->dirty[i - 1].len;
        ext_delete(d, i);
        return 0;
    }
    if (prev) {
        uint64_t end = off + len;
        scrub_ext *p = &d->dirty[i - 1];
        if (end > p->off + p->len) {
            d->scrub_pending += end - (p->off + p->len);
            p->len = end - p->off;
        }
        return 0;
    }
    if (next) {
        scrub_ext *n = &d->dirty[i];
        uint64_t end = n->off + n->len > off + len ? n->off + n->len : off + len;
        d->scrub_pending += (end - off) - n->len;
        n->off = off;
        n->len = end - off;
        return 0;
    }
    if (ext_insert(d, i, off, len) < 0)
        return zero_now(d, off, len); /* no memory for the list: scrub now */
    d->scrub_pending += len;
    return 0;
}

/* Zero the part of extent i inside [a, b) and cut it out of the list. */
static int scrub_cut(drive *d, uint32_t i, uint64_t a, uint64_t b)
{
    scrub_ext x = d->dirty[i];
    uint64_t lo = a > x.off ? a : x.off;
    uint64_t hi = b < x.off + x.len ? b : x.off + x.len;
    /* Widen to whole SCRUB_ALIGN chunks inside x: block status tracks data
     * per 4 KiB chunk (backend_memory.c), and a chunk zeroed in pieces
     * would stay marked as data -- the old owner's layout.  x is a removed
     * namespace, 4 KiB aligned, so zeroing a little more of it is free. */
    lo = lo / SCRUB_ALIGN * SCRUB_ALIGN;
    if (lo < x.off)
        lo = x.off;
    hi = (hi + SCRUB_ALIGN - 1) / SCRUB_ALIGN * SCRUB_ALIGN;
    if (hi > x.off + x.len)
        hi = x.off + x.len;
    if (lo > x.off && hi < x.off + x.len) {
        /* the middle: the extent splits in two, which needs a slot */
        if (ext_insert(d, i + 1, hi, x.off + x.len - hi) < 0)
            return -ENOMEM;
    }
    int rc = zero_now(d, lo, hi - lo);
    if (rc < 0) {
        if (lo > x.off && hi < x.off + x.len)
            ext_delete(d, i + 1);
        return rc;
    }
    d->scrub_pending -= hi - lo;
    if (lo > x.off) {
        d->dirty[i].len = lo - x.off;          /* left part stays (right part inserted) */
    } else if (hi < x.off + x.len) {
        d->dirty[i].off = hi;                  /* right part stays */
        d->dirty[i].len = x.off + x.len - hi;
    } else {
        ext_delete(d, i);                      /* all of it */
    }
    return 0;
}

int scrub_before_io(drive *d, const jbof_io *io)
{
    if (!d->ndirty || io->length_bytes == 0 || io->opcode == JBOF_OP_FLUSH)
        return 0;
    /* whole SCRUB_ALIGN chunks (see scrub_cut), so a cut never eats the
     * left part of an extent that the loop below expects to find at i */
    uint64_t a = io->offset_bytes / SCRUB_ALIGN * SCRUB_ALIGN;
    uint64_t b = (io->offset_bytes + io->length_bytes + SCRUB_ALIGN - 1) / SCRUB_ALIGN * SCRUB_ALIGN;
    for (uint32_t i = 0; i < d->ndirty && d->dirty[i].off < b;) {
        scrub_ext x = d->dirty[i];
        if (x.off + x.len <= a) {
            i++;
            continue;
        }
        int rc = scrub_cut(d, i, a, b);
        if (rc < 0)
            return -EIO;
        /* the extent at i is now one that starts at or after b, or the
         * right part of the one cut, or the next one: look at i again
         * unless the left part of x stayed there */
        if (x.off < a)
            i++;
    }
    return 0;
}

/* Bytes rate_bps allows in elapsed_ns, at most cap (no overflow: the
 * product is only formed below cap * 1e9). */
static uint64_t scrub_allowance(uint64_t rate_bps, uint64_t elapsed_ns, uint64_t cap)
{
    if (!rate_bps)
        return 0;
    if (elapsed_ns >= cap * 1000000000ull / rate_bps)
        return cap;
    return rate_bps * elapsed_ns / 1000000000ull;
}

void scrub_step(jbof_engine *e, drive *d)
{
    if (!d->ndirty) {
        d->scrub_last_ns = 0; /* idle: the next pass starts with an empty bucket */
        d->scrub_credit = 0;
        return;
    }
    if (e->now_ns < d->scrub_next_ns)
        return;
    uint64_t rate = e->cfg.scrub_rate_bps;
    uint64_t unit = d->block_bytes > SCRUB_ALIGN ? d->block_bytes : SCRUB_ALIGN;
    /* Fill the bucket with what the time since the last step allows (one
     * period's worth at the first step of a pass), at most one chunk. */
    uint64_t elapsed = d->scrub_last_ns && e->now_ns > d->scrub_last_ns ? e->now_ns - d->scrub_last_ns
                       : d->scrub_last_ns                               ? 0
                                                                        : SCRUB_PERIOD_NS;
    d->scrub_credit += scrub_allowance(rate, elapsed, SCRUB_MAX_CHUNK);
    if (d->scrub_credit > SCRUB_MAX_CHUNK)
        d->scrub_credit = SCRUB_MAX_CHUNK;
    d->scrub_last_ns = e->now_ns;
    /* Spend it in whole units (the tail of an extent may be shorter). */
    while (d->ndirty) {
        scrub_ext x = d->dirty[0];
        uint64_t len = d->scrub_credit / unit * unit;
        if (x.len < len)
            len = x.len;
        uint64_t before = d->scrub_pending;
        if (!len || scrub_cut(d, 0, x.off, x.off + len) < 0)
            break; /* on failure: retried next step */
        uint64_t done = before - d->scrub_pending; /* >= len: cuts widen to SCRUB_ALIGN */
        d->scrub_credit -= done < d->scrub_credit ? done : d->scrub_credit;
    }
    if (!d->ndirty) {
        d->scrub_last_ns = 0;
        d->scrub_credit = 0;
        return;
    }
    /* Wake when the bucket holds one unit again, at most once a period. */
    uint64_t wait = SCRUB_PERIOD_NS;
    if (d->scrub_credit < unit && rate) {
        uint64_t need = (unit - d->scrub_credit) * 1000000000ull;
        uint64_t ns = need / rate + (need % rate != 0);
        if (ns > wait)
            wait = ns;
    }
    d->scrub_next_ns = e->now_ns + wait;
}

uint64_t scrub_next_ns(const drive *d)
{
    return d->ndirty ? d->scrub_next_ns : UINT64_MAX;
}
