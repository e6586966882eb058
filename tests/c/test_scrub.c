/* The scrubber's dirty-extent list (csrc/scrub.c) against a byte-map model:
 * random namespace removals (scrub_mark), IOs (scrub_before_io) and
 * background steps (scrub_step) on a fake backend whose zero op records
 * what it zeroed.  Properties: every byte an IO touches was zeroed if it
 * was dirty; nothing clean is ever zeroed (a write would be undone);
 * scrub_pending equals the model's dirty bytes; the list stays sorted,
 * disjoint and non-adjacent; the background alone drains it.
 * scrub.c is compiled into this test (it has no IO of its own). */
#include <string.h>

#include "../../csrc/scrub.c"
#include "testing.h"

enum { SZ = 1 << 16, BLK = 512 };

static uint8_t dirty_model[SZ]; /* 1 = needs zeroes */
static int zero_clean_hits;     /* zero op on a clean byte: would undo a write */
static int zero_fail;           /* make the next zero op fail */

static int fake_zero(jbof_backend *b, uint64_t off, uint64_t len)
{
    (void)b;
    if (zero_fail) {
        zero_fail = 0;
        return -EIO;
    }
    for (uint64_t i = off; i < off + len; i++) {
        if (!dirty_model[i])
            zero_clean_hits++;
        dirty_model[i] = 0;
    }
    return 0;
}

static uint64_t model_pending(void)
{
    uint64_t n = 0;
    for (int i = 0; i < SZ; i++)
        n += dirty_model[i];
    return n;
}

static int list_ok(const drive *d)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < d->ndirty; i++) {
        if (d->dirty[i].len == 0 || d->dirty[i].off + d->dirty[i].len > SZ)
            return 0;
        if (i && d->dirty[i - 1].off + d->dirty[i - 1].len >= d->dirty[i].off)
            return 0;
        for (uint64_t k = d->dirty[i].off; k < d->dirty[i].off + d->dirty[i].len; k++)
            if (!dirty_model[k])
                return 0;
        sum += d->dirty[i].len;
    }
    return sum == d->scrub_pending && sum == model_pending();
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state % n;
}

/* ---- the background's rate (scrub.c 4): bytes per elapsed time, not per
 * wake-up.  A counting backend; the engine's clock is passed in. ---- */
static int count_zero(jbof_backend *b, uint64_t off, uint64_t len)
{
    (void)b, (void)off, (void)len;
    return 0;
}

/* Mark `pending` bytes dirty on a fresh 4 GiB drive, then step every
 * period_ns (a reactor that wakes late: a loaded host) for dur_ns at
 * rate_bps; return the bytes the background zeroed. */
static uint64_t scrubbed_in(uint64_t rate_bps, uint64_t period_ns, uint64_t dur_ns, uint64_t pending,
                            uint64_t *max_step)
{
    static const jbof_backend_ops ops = {.name = "count", .zero = count_zero};
    jbof_backend be = {.ops = &ops};
    drive d = {.be = &be, .block_bytes = 4096, .size_bytes = 4ull << 30};
    jbof_engine *e = calloc(1, sizeof(*e));
    e->cfg.scrub_rate_bps = rate_bps;
    e->now_ns = 5000000000ull; /* an engine up for a while */
    scrub_mark(&d, 0, pending);
    *max_step = 0;
    for (uint64_t t = 0; t <= dur_ns; t += period_ns) { /* steps at 0 and at dur_ns */
        uint64_t before = d.scrubbed;
        scrub_step(e, &d);
        if (d.scrubbed - before > *max_step)
            *max_step = d.scrubbed - before;
        e->now_ns += period_ns;
    }
    uint64_t n = d.scrubbed;
    free(d.dirty);
    free(e);
    return n;
}

static void test_rate(void)
{
    const uint64_t MiB = 1ull << 20, MS = 1000000ull, S = 1000000000ull;
    uint64_t big;
    /* 64 MiB/s for 1 s: about 64 MiB whether the reactor wakes every 1 ms
     * or only every 10 ms / 50 ms (fixed per wake-up: 6.25 MiB / 1.25 MiB
     * at 10 / 50 ms) */
    static const uint64_t periods[] = {1 * MS, 10 * MS, 50 * MS, 250 * MS};
    for (unsigned i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
        uint64_t n = scrubbed_in(64 * MiB, periods[i], S, 1024 * MiB, &big);
        CHECK(n >= 63 * MiB && n <= 65 * MiB);
        CHECK(big <= SCRUB_MAX_CHUNK);
    }
    /* a rate below one 4 KiB block per ms is kept too (fixed per wake-up:
     * a block each ms, 4 MiB/s) */
    uint64_t n = scrubbed_in(1 * MiB, 1 * MS, 2 * S, 64 * MiB, &big);
    CHECK(n >= 2 * MiB - 8192 && n <= 2 * MiB + 8192);
    CHECK_EQ(big, 4096);
    /* a step long delayed zeroes at most one chunk (the reactor stays
     * responsive): 16 GiB/s, 1 s between wake-ups */
    n = scrubbed_in(16ull << 30, S, 3 * S, 1024 * MiB, &big);
    CHECK_EQ(big, SCRUB_MAX_CHUNK);
    CHECK(n <= 3 * SCRUB_MAX_CHUNK + (16ull << 30) / 1000 + 4096); /* + the first step's period */
    /* the pass ends: the bucket empties; a new removal 10 s later starts
     * with one period's worth, not 10 s of credit */
    static const jbof_backend_ops ops = {.name = "count", .zero = count_zero};
    jbof_backend be = {.ops = &ops};
    drive d = {.be = &be, .block_bytes = 4096, .size_bytes = 1ull << 30};
    jbof_engine *e = calloc(1, sizeof(*e));
    e->cfg.scrub_rate_bps = 64 * MiB;
    e->now_ns = S;
    scrub_mark(&d, 0, 1 * MiB);
    for (int i = 0; i < 100 && d.ndirty; i++) {
        scrub_step(e, &d);
        e->now_ns += MS;
    }
    CHECK_EQ(d.ndirty, 0);
    scrub_step(e, &d);
    CHECK_EQ(d.scrub_credit, 0);
    e->now_ns += 10 * S;
    scrub_mark(&d, 0, 64 * MiB);
    uint64_t before = d.scrubbed;
    scrub_step(e, &d);
    CHECK(d.scrubbed - before <= 64 * MiB / 1000 + 4096);
    CHECK(d.scrubbed - before >= 4096);
    /* no step before the next wake-up it asked for */
    CHECK(scrub_next_ns(&d) > e->now_ns);
    free(d.dirty);
    free(e);
}

/* ---- scrub.c 7: zeroing on the IO path draws nothing from the bucket.
 * Two drives with the same 1 GiB dirty at 64 MiB/s, stepped every 1 ms for
 * 1 s; on the second, before each step (as drive_pump does), a tenant's
 * 32 MiB WRITE_ZEROES and 1 MiB TRIM on clean space pass scrub_before_io,
 * and every 10 ms a 64 KiB READ of dirty space near its end is scrubbed on
 * the IO path.  The background zeroes the same bytes, step for step, with
 * the same bucket, on both. ---- */
static void test_io_path_not_counted(void)
{
    const uint64_t MiB = 1ull << 20, GiB = 1ull << 30, MS = 1000000ull;
    static const jbof_backend_ops ops = {.name = "count", .zero = count_zero};
    jbof_backend be = {.ops = &ops};
    drive quiet = {.be = &be, .block_bytes = 4096, .size_bytes = 4 * GiB};
    drive busy = quiet;
    jbof_engine *e = calloc(1, sizeof(*e));
    e->cfg.scrub_rate_bps = 64 * MiB;
    e->now_ns = 5000000000ull;
    CHECK_EQ(scrub_mark(&quiet, 0, GiB), 0);
    CHECK_EQ(scrub_mark(&busy, 0, GiB), 0);
    uint64_t io_path = 0, bg_quiet = 0, bg_busy = 0;
    int same_credit = 1, same_step = 1;
    for (int ms = 0; ms <= 1000; ms++) {
        jbof_io wz = {.offset_bytes = 2 * GiB + (uint64_t)(ms % 32) * 32 * MiB,
                      .length_bytes = (uint32_t)(32 * MiB), .opcode = JBOF_OP_WRITE_ZEROES};
        jbof_io trim = {.offset_bytes = 3 * GiB + (uint64_t)(ms % 512) * MiB,
                        .length_bytes = (uint32_t)MiB, .opcode = JBOF_OP_TRIM};
        uint64_t before = busy.scrubbed;
        CHECK_EQ(scrub_before_io(&busy, &wz), 0);
        CHECK_EQ(scrub_before_io(&busy, &trim), 0);
        CHECK_EQ(busy.scrubbed, before); /* clean space: nothing zeroed here */
        if (ms % 10 == 0) {
            jbof_io rd = {.offset_bytes = GiB - (uint64_t)(ms / 10 + 1) * 64 * 1024,
                          .length_bytes = 64 * 1024, .opcode = JBOF_OP_READ};
            CHECK_EQ(scrub_before_io(&busy, &rd), 0);
        }
        io_path += busy.scrubbed - before;
        uint64_t q = quiet.scrubbed, b = busy.scrubbed;
        scrub_step(e, &quiet);
        scrub_step(e, &busy);
        bg_quiet += quiet.scrubbed - q;
        bg_busy += busy.scrubbed - b;
        same_step &= quiet.scrubbed - q == busy.scrubbed - b;
        same_credit &= quiet.scrub_credit == busy.scrub_credit &&
                       scrub_next_ns(&quiet) == scrub_next_ns(&busy);
        e->now_ns += MS;
    }
    CHECK(same_step);
    CHECK(same_credit);
    CHECK_EQ(bg_busy, bg_quiet);
    CHECK(bg_quiet >= 63 * MiB && bg_quiet <= 65 * MiB);
    CHECK_EQ(io_path, 101 * 64 * 1024);                 /* the READs' overlap, once each */
    CHECK_EQ(busy.scrub_pending + io_path, quiet.scrub_pending);
    free(quiet.dirty);
    free(busy.dirty);
    free(e);
}

int main(void)
{
    test_rate();
    test_io_path_not_counted();

    static const jbof_backend_ops ops = {.name = "fake", .zero = fake_zero};
    jbof_backend be = {.ops = &ops};
    drive d = {.be = &be, .block_bytes = BLK, .size_bytes = SZ};
    jbof_engine *e = calloc(1, sizeof(*e));
    e->cfg.scrub_rate_bps = 4 * BLK * 1000; /* 4 blocks per step */

    CHECK_EQ(scrub_mark(&d, SZ - BLK, 2 * BLK), -EINVAL);
    CHECK_EQ(scrub_mark(&d, 0, 0), -EINVAL);

    int violations = 0, list_bad = 0;
    for (int round = 0; round < 20000; round++) {
        int op = (int)rnd(10);
        if (op < 2) {
            /* remove a "namespace": a clean block range becomes dirty */
            uint64_t off = rnd(SZ / BLK) * BLK, len = (1 + rnd(16)) * BLK;
            if (off + len > SZ)
                len = SZ - off;
            int clean = 1;
            for (uint64_t k = off; k < off + len; k++)
                clean &= !dirty_model[k];
            if (!clean)
                continue; /* namespaces never overlap dirty space */
            memset(dirty_model + off, 1, len);
            CHECK_EQ(scrub_mark(&d, off, len), 0);
        } else if (op < 9) {
            jbof_io io = {.offset_bytes = rnd(SZ / BLK) * BLK, .length_bytes = (uint32_t)((1 + rnd(8)) * BLK),
                          .opcode = (uint8_t)(rnd(2) ? JBOF_OP_READ : JBOF_OP_WRITE)};
            if (io.offset_bytes + io.length_bytes > SZ)
                io.length_bytes = (uint32_t)(SZ - io.offset_bytes);
            int fail = rnd(50) == 0;
            zero_fail = fail;
            int rc = scrub_before_io(&d, &io);
            if (rc == 0) {
                for (uint64_t k = io.offset_bytes; k < io.offset_bytes + io.length_bytes; k++)
                    violations += dirty_model[k]; /* the IO would see old data */
            } else {
                CHECK_EQ(rc, -EIO);
            }
            zero_fail = 0;
        } else {
            e->now_ns += 1000000;
            scrub_step(e, &d);
        }
        list_bad += !list_ok(&d);
    }
    CHECK_EQ(violations, 0);
    CHECK_EQ(list_bad, 0);
    CHECK_EQ(zero_clean_hits, 0);
    /* the background alone drains everything, in bounded steps */
    for (int i = 0; i < SZ / BLK && d.ndirty; i++) {
        e->now_ns += 1000000;
        scrub_step(e, &d);
    }
    CHECK_EQ(d.ndirty, 0);
    CHECK_EQ(d.scrub_pending, 0);
    CHECK_EQ(model_pending(), 0);
    CHECK_EQ(scrub_next_ns(&d), UINT64_MAX);
    CHECK_EQ(zero_clean_hits, 0);
    free(d.dirty);
    free(e);
    TEST_SUMMARY();
}
