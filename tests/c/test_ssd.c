/* test_ssd.c -- the emulated SSD model (csrc/ssd.c): preset calibration
 * through a tiny closed-loop driver, determinism, argument validation,
 * stats.  `build/c/test_ssd -v` prints the calibration table that
 * docs/ssd-model.md quotes.
 *
 * The driver keeps `qd` IOs outstanding: a min-heap holds their
 * completion times; popping the earliest advances virtual time and
 * reissues one IO at that time (so now_ns never decreases).  Throughput
 * and mean latency are taken over completions in [warmup, end). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "jbof.h"
#include "testing.h"

static int verbose;

#define MS 1000000ull
#define KIB 1024u

struct ent {
    uint64_t done_ns, submit_ns;
    uint32_t op;
};

struct heap {
    struct ent e[1024];
    int n;
};

static void heap_push(struct heap *h, struct ent x)
{
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h->e[p].done_ns <= x.done_ns)
            break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = x;
}

static struct ent heap_pop(struct heap *h)
{
    struct ent top = h->e[0], last = h->e[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->e[c + 1].done_ns < h->e[c].done_ns)
            c++;
        if (last.done_ns <= h->e[c].done_ns)
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    h->e[i] = last;
    return top;
}

struct load {
    uint32_t op;         /* JBOF_OP_READ / JBOF_OP_WRITE */
    uint32_t bs;
    int random;
    int qd;
    uint64_t warmup_ns, end_ns;
    uint64_t range_bytes; /* offsets in [0, range) */
    uint32_t write_pct;   /* > 0: a random mix, each IO a write with this chance */
};

struct result {
    double iops, bps, mean_lat_us;
    uint64_t ios;
    double read_iops, read_lat_us; /* the reads of a mix */
};

/* range_bytes 0: the whole drive */
static struct load ld(uint32_t op, uint32_t bs, int random, int qd, uint64_t warmup_ns, uint64_t end_ns)
{
    return (struct load){.op = op, .bs = bs, .random = random, .qd = qd, .warmup_ns = warmup_ns,
                         .end_ns = end_ns, .range_bytes = 0, .write_pct = 0};
}

static uint64_t t_rng(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Closed loop on drive d (whose virtual time starts at t0_ns). */
static struct result run_at(jbof_ssd *d, uint64_t capacity_bytes, struct load load, uint64_t t0_ns)
{
    const struct load *l = &load;
    if (load.range_bytes == 0)
        load.range_bytes = capacity_bytes;
    static struct heap h;
    uint64_t rng = 12345, seq_off = 0, n = 0, lat_sum = 0, blocks = l->range_bytes / l->bs;
    uint64_t nr = 0, rlat_sum = 0;
    h.n = 0;
    struct result r = {0};
    for (uint64_t now = t0_ns;;) {
        while (h.n < l->qd) {
            uint64_t off;
            if (l->random) {
                off = (t_rng(&rng) % blocks) * l->bs;
            } else {
                off = seq_off;
                seq_off = (seq_off + l->bs) % (blocks * l->bs);
            }
            uint32_t op = l->op;
            if (l->write_pct)
                op = t_rng(&rng) % 100 < l->write_pct ? JBOF_OP_WRITE : JBOF_OP_READ;
            struct ent e = {0, now, op};
            int rc = jbof_ssd_submit(d, op, off, l->bs, now, &e.done_ns);
            if (rc != 0 || e.done_ns < now) {
                CHECK(rc == 0 && e.done_ns >= now);
                return r;
            }
            heap_push(&h, e);
        }
        struct ent e = heap_pop(&h);
        now = e.done_ns;
        if (now >= t0_ns + l->end_ns)
            break;
        if (now >= t0_ns + l->warmup_ns) {
            n++;
            lat_sum += e.done_ns - e.submit_ns;
            if (e.op == JBOF_OP_READ) {
                nr++;
                rlat_sum += e.done_ns - e.submit_ns;
            }
        }
    }
    double secs = (double)(l->end_ns - l->warmup_ns) / 1e9;
    r.ios = n;
    r.iops = (double)n / secs;
    r.bps = r.iops * l->bs;
    r.mean_lat_us = n ? (double)lat_sum / (double)n / 1e3 : 0;
    r.read_iops = (double)nr / secs;
    r.read_lat_us = nr ? (double)rlat_sum / (double)nr / 1e3 : 0;
    return r;
}

static struct result run(const char *preset, uint64_t seed, struct load l)
{
    jbof_ssd_cfg cfg;
    jbof_ssd *d = NULL;
    struct result r = {0};
    CHECK_EQ(jbof_ssd_preset(preset, &cfg), 0);
    cfg.spike_ppm = 0; /* calibration is about the steady figures */
    CHECK_EQ(jbof_ssd_create(&cfg, seed, &d), 0);
    if (d) {
        r = run_at(d, cfg.capacity_bytes, l, 0);
        jbof_ssd_destroy(d);
    }
    return r;
}

static struct load randread(int qd, uint64_t end_ns)
{
    return ld(JBOF_OP_READ, 4 * KIB, 1, qd, end_ns / 5, end_ns);
}

static void say(const char *what, struct result r)
{
    if (verbose && r.ios)
        printf("  %-44s %9.0f IOPS %8.3f GB/s  mean %8.1f us  (%llu IOs)\n", what, r.iops,
               r.bps / 1e9, r.mean_lat_us, (unsigned long long)r.ios);
}

/* The dct983 preset's spec-sheet figures, tolerances in docs/ssd-model.md. */
static void test_calibration(void)
{
    struct result qd1 = run("dct983", 1, ld(JBOF_OP_READ, 4 * KIB, 1, 1, 0, 20 * MS));
    say("4K randread QD1", qd1);
    CHECK(qd1.mean_lat_us >= 75 && qd1.mean_lat_us <= 95);

    struct result qd8 = run("dct983", 1, ld(JBOF_OP_READ, 4 * KIB, 1, 8, 2 * MS, 20 * MS));
    say("4K randread QD8", qd8);
    CHECK(qd8.mean_lat_us < 1.2 * qd1.mean_lat_us);

    struct result qd32 = run("dct983", 1, randread(32, 50 * MS));
    say("4K randread QD32", qd32);
    CHECK(qd32.iops >= 230e3 && qd32.iops <= 330e3);

    struct result qd256 = run("dct983", 1, randread(256, 100 * MS));
    say("4K randread QD256", qd256);
    CHECK(qd256.iops >= 360e3 && qd256.iops <= 420e3);

    struct result qd512 = run("dct983", 1, randread(512, 50 * MS));
    say("4K randread QD512", qd512);
    CHECK(qd512.mean_lat_us > 3 * qd1.mean_lat_us);

    struct result sr = run("dct983", 1, ld(JBOF_OP_READ, 128 * KIB, 0, 32, 10 * MS, 100 * MS));
    say("128K seqread QD32", sr);
    CHECK(sr.bps >= 2.7e9 && sr.bps <= 3.3e9);

    /* The 64 MiB buffer fills within ~35 ms; measure 1 s after 200 ms. */
    struct result sw = run("dct983", 1, ld(JBOF_OP_WRITE, 128 * KIB, 0, 32, 200 * MS, 1200 * MS));
    say("128K seqwrite QD32 clean, sustained", sw);
    CHECK(sw.bps >= 0.85e9 && sw.bps <= 1.15e9);

    struct result rw = run("dct983-fragmented", 1, ld(JBOF_OP_WRITE, 4 * KIB, 1, 32, 200 * MS, 1200 * MS));
    say("4K randwrite QD32 fragmented, sustained", rw);
    CHECK(rw.iops >= 32e3 && rw.iops <= 48e3);

    struct result w1 = run("dct983", 1, ld(JBOF_OP_WRITE, 4 * KIB, 1, 1, 0, 5 * MS));
    say("4K randwrite QD1 (into the buffer)", w1);
    CHECK(w1.mean_lat_us >= 15 && w1.mean_lat_us <= 25);

}

/* -v: the figures of every preset (docs/ssd-model.md quotes them). */
static void profile(const char *preset)
{
    char frag[64];
    jbof_ssd_cfg cfg;
    snprintf(frag, sizeof(frag), "%s-fragmented", preset);
    int has_frag = jbof_ssd_preset(frag, &cfg) == 0;
    printf("%s:\n", preset);
    say("4K randread QD1", run(preset, 1, ld(JBOF_OP_READ, 4 * KIB, 1, 1, 0, 20 * MS)));
    say("4K randread QD32", run(preset, 1, ld(JBOF_OP_READ, 4 * KIB, 1, 32, 10 * MS, 50 * MS)));
    say("4K randread QD256", run(preset, 1, ld(JBOF_OP_READ, 4 * KIB, 1, 256, 20 * MS, 100 * MS)));
    say("128K seqread QD32", run(preset, 1, ld(JBOF_OP_READ, 128 * KIB, 0, 32, 10 * MS, 100 * MS)));
    say("4K randwrite QD1 (into the buffer)", run(preset, 1, ld(JBOF_OP_WRITE, 4 * KIB, 1, 1, 0, 5 * MS)));
    say("128K seqwrite QD32 clean, 0.2-1.2 s", run(preset, 1, ld(JBOF_OP_WRITE, 128 * KIB, 0, 32, 200 * MS, 1200 * MS)));
    say("4K randwrite QD32 clean, 0.2-1.2 s", run(preset, 1, ld(JBOF_OP_WRITE, 4 * KIB, 1, 32, 200 * MS, 1200 * MS)));
    if (has_frag)
        say("4K randwrite QD32 fragmented, 0.2-1.2 s", run(frag, 1, ld(JBOF_OP_WRITE, 4 * KIB, 1, 32, 200 * MS, 1200 * MS)));
    struct load mix = ld(JBOF_OP_READ, 4 * KIB, 1, 32, 200 * MS, 1200 * MS);
    mix.write_pct = 30;
    struct result m = run(has_frag ? frag : preset, 1, mix);
    say(has_frag ? "4K randrw 70/30 QD32 fragmented, 0.2-1.2 s" : "4K randrw 70/30 QD32 clean, 0.2-1.2 s", m);
    printf("  %-44s %9.0f IOPS %27s %8.1f us\n", "  of which reads", m.read_iops, "mean", m.read_lat_us);
    static const int qds[] = {1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 256, 512};
    printf("  knee (4K randread):\n");
    for (unsigned i = 0; i < sizeof(qds) / sizeof(qds[0]); i++) {
        struct result k = run(preset, 1, ld(JBOF_OP_READ, 4 * KIB, 1, qds[i], 4 * MS, 20 * MS));
        printf("    QD%-4d %8.0f IOPS  mean %8.1f us\n", qds[i], k.iops, k.mean_lat_us);
    }
}

/* Writes on a clean drive: sequential keeps it clean, random fragments it
 * (WA rises, the buffer fills, waits are counted); reads behind a draining
 * buffer are slower than on an idle drive. */
static void test_gc_and_interference(void)
{
    jbof_ssd_cfg cfg;
    jbof_ssd *d = NULL;
    jbof_ssd_stats st;
    CHECK_EQ(jbof_ssd_preset("dct983", &cfg), 0);
    cfg.spike_ppm = 0;
    cfg.frag_window_bytes = 64ull << 20; /* small window: fragments fast */
    CHECK_EQ(jbof_ssd_create(&cfg, 7, &d), 0);
    if (!d)
        return;
    struct result idle = run_at(d, cfg.capacity_bytes, randread(4, 10 * MS), 0);
    CHECK_EQ(jbof_ssd_stats_get(d, &st), 0);
    CHECK_EQ(st.frag_ppm, 0);
    CHECK_EQ(st.wa_x256, 256);
    CHECK_EQ(st.buffer_full_waits, 0);

    run_at(d, cfg.capacity_bytes, ld(JBOF_OP_WRITE, 4 * KIB, 1, 32, 0, 300 * MS), 20 * MS);
    CHECK_EQ(jbof_ssd_stats_get(d, &st), 0);
    if (verbose)
        printf("  after 300 ms of 4K randwrite QD32 (64 MiB frag window): frag %u ppm, WA %.2f, "
               "buffer %llu MiB, %llu full waits\n", st.frag_ppm, st.wa_x256 / 256.0,
               (unsigned long long)(st.buffer_bytes >> 20), (unsigned long long)st.buffer_full_waits);
    /* f = 1 - exp(-written / window) for random writes from a clean drive. */
    double f = 1e6 * (1 - exp(-(double)st.write_bytes / (double)cfg.frag_window_bytes));
    CHECK(st.frag_ppm > 800000 && fabs(st.frag_ppm - f) < 20000);
    CHECK(labs((long)st.wa_x256 - (long)(256 + (cfg.wa_max_x256 - 256) * (uint64_t)st.frag_ppm / 1000000)) <= 1);
    CHECK(st.buffer_full_waits > 1000);
    CHECK(st.buffer_bytes > cfg.write_buffer_bytes / 2);

    /* Reads while the buffer is still draining hit program suspends. */
    uint64_t now = 320 * MS;
    struct result busy = run_at(d, cfg.capacity_bytes, randread(4, 10 * MS), now);
    if (verbose)
        printf("  4K randread QD4: idle %.1f us, behind draining writes %.1f us\n", idle.mean_lat_us,
               busy.mean_lat_us);
    CHECK(busy.mean_lat_us > idle.mean_lat_us + 10);

    /* TRIM and sequential writes defragment. */
    uint64_t done = 0;
    uint32_t before = st.frag_ppm;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_TRIM, 0, 16u << 20, 400 * MS, &done), 0);
    CHECK_EQ(jbof_ssd_stats_get(d, &st), 0);
    CHECK(st.frag_ppm < before && st.frag_ppm > before - before / 10);
    run_at(d, cfg.capacity_bytes, ld(JBOF_OP_WRITE, 128 * KIB, 0, 8, 0, 1000 * MS), 500 * MS);
    CHECK_EQ(jbof_ssd_stats_get(d, &st), 0);
    CHECK(st.frag_ppm < 100000);
    jbof_ssd_destroy(d);
}

/* ssd.c section 6, pinned: isolated reads on an idle drive take exactly the
 * unloaded time; while the buffer drains they add a suspend in [0, 50 us];
 * while it is full (writes waiting) they wait for a program, [0, tPROG]. */
static void test_read_behind_write_regimes(void)
{
    jbof_ssd_cfg cfg;
    jbof_ssd *d = NULL;
    jbof_ssd_stats st;
    CHECK_EQ(jbof_ssd_preset("dct983", &cfg), 0);
    cfg.spike_ppm = 0;
    CHECK_EQ(jbof_ssd_create(&cfg, 11, &d), 0);
    if (!d)
        return;
    const uint64_t base = 84965; /* section 9 */
    uint64_t rng = 5, done = 0, t = 10 * MS;
    uint64_t sum = 0, lo = UINT64_MAX, hi = 0;

    /* Draining, not full: 8 MiB in by t + 2.8 ms, drained by t + 11.2 ms.
     * Reads 250 us apart never queue behind one another. */
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE, 0, 8u << 20, t, &done), 0);
    for (int i = 0; i < 20; i++) {
        uint64_t now = t + 3 * MS + (uint64_t)i * 250000;
        uint64_t off = t_rng(&rng) % (cfg.capacity_bytes / 4096) * 4096;
        CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, off, 4096, now, &done), 0);
        uint64_t lat = done - now;
        sum += lat;
        lo = lat < lo ? lat : lo;
        hi = lat > hi ? lat : hi;
    }
    if (verbose)
        printf("  isolated 4K reads on a draining buffer: %.1f..%.1f us, mean %.1f us\n", lo / 1e3,
               hi / 1e3, (double)sum / 20 / 1e3);
    CHECK(lo >= base && hi <= base + cfg.suspend_ns);
    CHECK(sum / 20 > base + 10000);

    /* Full: 128 MiB arrive over 45 ms of link time, 45 MB drain meanwhile,
     * so about 85 MiB sit in the 64 MiB buffer when the last one lands. */
    t = 100 * MS;
    for (int i = 0; i < 4; i++)
        CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE, (uint64_t)i << 25, 32u << 20, t, &done), 0);
    CHECK_EQ(jbof_ssd_stats_get(d, &st), 0);
    CHECK(st.buffer_bytes > cfg.write_buffer_bytes);
    CHECK(st.buffer_full_waits >= 1);
    t += 46 * MS; /* 4 x 32 MiB at 3.0 GB/s: the last one is in by t + 44.8 ms */
    sum = 0, lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < 20; i++) {
        uint64_t now = t + (uint64_t)i * 500000;
        uint64_t off = t_rng(&rng) % (cfg.capacity_bytes / 4096) * 4096;
        CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, off, 4096, now, &done), 0);
        uint64_t lat = done - now;
        sum += lat;
        lo = lat < lo ? lat : lo;
        hi = lat > hi ? lat : hi;
    }
    CHECK(lo >= base && hi <= base + cfg.program_page_ns);
    CHECK(sum / 20 > base + cfg.program_page_ns / 4);
    if (verbose)
        printf("  isolated 4K reads behind a full buffer: mean %.1f us (idle %.1f us)\n",
               (double)sum / 20 / 1e3, base / 1e3);
    jbof_ssd_destroy(d);
}

static uint64_t trace_hash(const char *preset, uint64_t seed)
{
    jbof_ssd_cfg cfg;
    jbof_ssd *d = NULL;
    uint64_t h = 1469598103934665603ull, rng = 99, now = 0;
    if (jbof_ssd_preset(preset, &cfg))
        return 0;
    cfg.spike_ppm = 0;
    if (jbof_ssd_create(&cfg, seed, &d))
        return 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t r = t_rng(&rng), done = 0;
        uint32_t op = r % 10 < 7 ? JBOF_OP_READ : JBOF_OP_WRITE;
        uint64_t off = (r >> 8) % (cfg.capacity_bytes / 4096) * 4096;
        now += 1500;
        if (jbof_ssd_submit(d, op, off, 4096, now, &done))
            return 0;
        h = (h ^ done) * 1099511628211ull;
    }
    jbof_ssd_destroy(d);
    return h;
}

static void test_determinism(void)
{
    uint64_t a = trace_hash("dct983", 42), b = trace_hash("dct983", 42), c = trace_hash("dct983", 43);
    CHECK(a != 0);
    CHECK_EQ(a, b);
    CHECK(a != c);
}

static void test_validation(void)
{
    jbof_ssd_cfg cfg, bad;
    jbof_ssd *d = NULL;
    jbof_ssd_stats st;
    uint64_t done = 0;

    CHECK_EQ(jbof_ssd_preset(NULL, &cfg), -EINVAL);
    CHECK_EQ(jbof_ssd_preset("dct983", NULL), -EINVAL);
    CHECK_EQ(jbof_ssd_preset("no-such-drive", &cfg), -ENOENT);
    int n = 0;
    for (uint32_t i = 0; jbof_ssd_preset_name(i); i++, n++)
        CHECK_EQ(jbof_ssd_preset(jbof_ssd_preset_name(i), &cfg), 0);
    CHECK(n >= 3);
    CHECK(jbof_ssd_preset_name(1000) == NULL);
    CHECK(jbof_ssd_preset_name(UINT32_MAX) == NULL);

    CHECK_EQ(jbof_ssd_preset("dct983", &cfg), 0);
    CHECK_EQ(jbof_ssd_create(NULL, 1, &d), -EINVAL);
    CHECK_EQ(jbof_ssd_create(&cfg, 1, NULL), -EINVAL);
#define BAD(field, value)                                          \
    do {                                                           \
        bad = cfg;                                                 \
        bad.field = value;                                         \
        d = NULL;                                                  \
        CHECK_EQ(jbof_ssd_create(&bad, 1, &d), -EINVAL);           \
        CHECK(d == NULL);                                          \
    } while (0)
    BAD(units, 0);
    BAD(units, 5000);
    BAD(page_bytes, 100);
    BAD(page_bytes, 4u << 20);
    BAD(capacity_bytes, 1000);
    BAD(read_page_ns, 0);
    BAD(program_page_ns, 0);
    BAD(cmd_ns, 100000000000ull);
    BAD(fixed_ns, 100000000000ull);
    BAD(buffer_write_ns, 100000000000ull);
    BAD(suspend_ns, 100000000000ull);
    BAD(link_bps, 0);
    BAD(write_buffer_bytes, 1ull << 41);
    BAD(wa_max_x256, 255);
    BAD(wa_max_x256, 256 * 101);
    BAD(frag_init_ppm, 1000001);
    BAD(frag_window_bytes, 0);
    BAD(spike_ppm, 1000001);
    BAD(spike_min_ns, 0);
    BAD(spike_min_ns, cfg.spike_max_ns + 1);
    BAD(spike_max_ns, 100000000000ull);
#undef BAD
    jbof_ssd_destroy(NULL); /* no-op */

    CHECK_EQ(jbof_ssd_create(&cfg, 1, &d), 0);
    if (!d)
        return;
    CHECK_EQ(jbof_ssd_submit(NULL, JBOF_OP_READ, 0, 4096, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 4096, 0, NULL), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_COUNT, 0, 4096, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 0, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE, 0, 0, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, (32u << 20) + 1, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE_ZEROES, 0, (32u << 20) + 1, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, cfg.capacity_bytes - 4095, 4096, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE, cfg.capacity_bytes, 4096, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_TRIM, UINT64_MAX - 10, 4096, 0, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 4096, UINT64_MAX, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 4096, 1ull << 62, &done), -EINVAL);
    CHECK_EQ(jbof_ssd_stats_get(NULL, &st), -EINVAL);
    CHECK_EQ(jbof_ssd_stats_get(d, NULL), -EINVAL);
    CHECK_EQ(jbof_ssd_stats_get(d, &st), 0);
    CHECK_EQ(st.reads + st.writes + st.others, 0); /* rejected calls change nothing */

    /* Accepted edge cases. */
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, cfg.capacity_bytes - 4096, 4096, 0, &done), 0);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 32u << 20, 0, &done), 0);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_FLUSH, UINT64_MAX, 0, 0, &done), 0);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_TRIM, 0, UINT32_MAX, 0, &done), 0);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_TRIM, 0, 0, 0, &done), 0);
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE_ZEROES, 0, 0, 0, &done), 0);
    jbof_ssd_destroy(d);
}

/* Per-op latencies on an idle drive, stats, and now_ns clamping. */
static void test_ops_and_stats(void)
{
    jbof_ssd_cfg cfg;
    jbof_ssd *d = NULL;
    jbof_ssd_stats st;
    uint64_t done = 0, t = 0;
    CHECK_EQ(jbof_ssd_preset("dct983", &cfg), 0);
    cfg.spike_ppm = 0;
    CHECK_EQ(jbof_ssd_create(&cfg, 3, &d), 0);
    if (!d)
        return;
    /* Worked example of ssd.c section 9: 2,500 + 70,000 + 1,365 + 11,100. */
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 1ull << 30, 4096, t, &done), 0);
    CHECK_EQ(done - t, 84965);
    t += 10 * MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE, 1ull << 31, 4096, t, &done), 0);
    CHECK_EQ(done - t, 2500 + 1365 + 5000 + 11100);
    t += 10 * MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_FLUSH, 0, 0, t, &done), 0);
    CHECK_EQ(done - t, 2500 + 11100);
    t += 10 * MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_TRIM, 0, 1u << 20, t, &done), 0);
    CHECK_EQ(done - t, 2500 + 11100);
    t += 10 * MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE_ZEROES, 0, 1u << 20, t, &done), 0);
    CHECK_EQ(done - t, 2500 + 5000 + 11100);
    /* A 1 MiB read: 22 pages of 48 KiB, one on each of 22 units, then
     * 1 MiB on the link. */
    t += 10 * MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 1u << 20, t, &done), 0);
    CHECK_EQ(done - t, 2500 + 70000 + 349525 + 11100);
    /* A backwards now_ns is clamped: done is still >= the latest now. */
    uint64_t done2 = 0;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 4096, 4096, t - 5 * MS, &done2), 0);
    CHECK(done2 >= t);

    CHECK_EQ(jbof_ssd_stats_get(d, &st), 0);
    CHECK_EQ(st.reads, 3);
    CHECK_EQ(st.writes, 1);
    CHECK_EQ(st.others, 3);
    CHECK_EQ(st.read_bytes, 4096 + (1u << 20) + 4096);
    CHECK_EQ(st.write_bytes, 4096);
    CHECK_EQ(st.spikes, 0);
    jbof_ssd_destroy(d);

    /* Spikes: every command with spike_ppm = 1e6, within [min, max]. */
    cfg.spike_ppm = 1000000;
    CHECK_EQ(jbof_ssd_create(&cfg, 3, &d), 0);
    if (!d)
        return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < 200; i++) {
        t = (uint64_t)(i + 1) * 10 * MS;
        CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_FLUSH, 0, 0, t, &done), 0);
        uint64_t spike = done - t - (2500 + 11100);
        lo = spike < lo ? spike : lo;
        hi = spike > hi ? spike : hi;
    }
    CHECK(lo >= cfg.spike_min_ns && lo < 1300000);
    CHECK(hi <= cfg.spike_max_ns && hi > 4000000);
    CHECK_EQ(jbof_ssd_stats_get(d, &st), 0);
    CHECK_EQ(st.spikes, 200);
    jbof_ssd_destroy(d);
}

/* ssd.c section 10: with the page register on, a re-read of the page a
 * unit read last skips tR; a write in between (programs) or another page's
 * read on that unit brings tR back.  Off (every preset), each read pays tR. */
static void test_page_register(void)
{
    jbof_ssd_cfg cfg;
    jbof_ssd *d = NULL, *off = NULL;
    uint64_t done = 0, t = 10 * MS;
    CHECK_EQ(jbof_ssd_preset("dct983", &cfg), 0);
    CHECK_EQ(cfg.page_register, 0u);
    cfg.spike_ppm = 0;
    CHECK_EQ(jbof_ssd_create(&cfg, 3, &off), 0);
    cfg.page_register = 1;
    CHECK_EQ(jbof_ssd_create(&cfg, 3, &d), 0);
    if (!d || !off)
        return;
    const uint64_t tr = cfg.read_page_ns, pg = cfg.page_bytes;
    const uint64_t full = cfg.cmd_ns + tr + 512 * 1000000000ull / cfg.link_bps + cfg.fixed_ns;
    /* Same page twice (512 B at 0 and 4 KiB): the second without tR. */
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 512, t, &done), 0);
    CHECK_EQ(done - t, full);
    t += MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 4096, 512, t, &done), 0);
    CHECK_EQ(done - t, full - tr);
    CHECK_EQ(jbof_ssd_submit(off, JBOF_OP_READ, 0, 512, t, &done), 0);
    t += MS;
    CHECK_EQ(jbof_ssd_submit(off, JBOF_OP_READ, 4096, 512, t, &done), 0);
    CHECK_EQ(done - t, full);
    /* Queued behind the same page's tR: data when that tR ends. */
    t += MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, pg, 512, t, &done), 0);
    uint64_t first_done = done;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, pg + 512, 512, t, &done), 0);
    CHECK(done <= first_done + cfg.cmd_ns + 1000);
    /* A write in between: the programs replace the register, tR again. */
    t += MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_WRITE, 1ull << 30, 4096, t, &done), 0);
    t += 100 * MS; /* the 4 KiB drained long ago */
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 512, t, &done), 0);
    CHECK_EQ(done - t, full);
    t += MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 512, t, &done), 0);
    CHECK_EQ(done - t, full - tr);
    /* Another page's read on the unit (the next stripe row's page that
     * lands on page 0's unit) replaces it too. */
    uint64_t other = 0;
    for (uint64_t p = cfg.units; p < 64ull * cfg.units && !other; p++) {
        jbof_ssd *probe = NULL;
        uint64_t a = 0, b = 0;
        CHECK_EQ(jbof_ssd_create(&cfg, 3, &probe), 0);
        if (!probe)
            break;
        /* p shares page 0's unit iff reading p right after 0 waits for it */
        CHECK_EQ(jbof_ssd_submit(probe, JBOF_OP_READ, 0, 512, t, &a), 0);
        CHECK_EQ(jbof_ssd_submit(probe, JBOF_OP_READ, p * pg, 512, t, &b), 0);
        if (b >= a + tr)
            other = p;
        jbof_ssd_destroy(probe);
    }
    CHECK(other != 0);
    t += MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, other * pg, 512, t, &done), 0);
    CHECK_EQ(done - t, full);
    t += MS;
    CHECK_EQ(jbof_ssd_submit(d, JBOF_OP_READ, 0, 512, t, &done), 0);
    CHECK_EQ(done - t, full);
    /* Out of range. */
    jbof_ssd_destroy(off);
    off = NULL;
    cfg.page_register = 2;
    CHECK_EQ(jbof_ssd_create(&cfg, 3, &off), -EINVAL);
    CHECK(off == NULL);
    jbof_ssd_destroy(d);
}

int main(int argc, char **argv)
{
    verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    test_validation();
    test_ops_and_stats();
    test_determinism();
    test_calibration();
    test_gc_and_interference();
    test_read_behind_write_regimes();
    test_page_register();
    for (uint32_t i = 0; verbose && jbof_ssd_preset_name(i); i++)
        if (!strstr(jbof_ssd_preset_name(i), "fragmented"))
            profile(jbof_ssd_preset_name(i));
    TEST_SUMMARY();
}
