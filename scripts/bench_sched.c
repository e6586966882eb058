/* bench_sched N -- push N IOs through jbof_sched_submit / dispatch / complete
 * of the qos policy with 64 active tenants and mixed reads and writes, with
 * no simulator or SSD model around it.  Run under callgrind twice (N and 2N):
 * (instructions(2N) - instructions(N)) / N is the cost per IO of the whole
 * program; scripts/bench_sched.py also counts the scheduler's entry points
 * alone (jbof_sched_*, inclusive).
 * Time is synthetic: the "drive" has an 80 us unloaded latency and serves
 * commands in dispatch order at 1 us each plus 3.2 GB/s of reads (writes
 * cost 3x), about 300K IOs/s of this mix, so latency grows with what is in
 * flight and the latency controller, the write-cost estimator and the token
 * bucket all do their real work.
 *
 * The harness models a reactor: every TICK_NS one pass reaps what completed
 * (each completing tenant submits its next IO) and makes one dispatch call
 * for the batch.  It keeps its own cost low the way a reactor would: each
 * IO is one descriptor that stays where it is (a pool, the reactor's
 * request slots) from submit to completion -- the SQ holds pointers (ABI
 * 3), dispatch hands the same pointers out straight into the in-flight
 * ring, each descriptor keeps its completion time in its tag (the caller's
 * cookie), and a completing tenant's next IO reuses its descriptor.  Before
 * (a copy of every jbof_io out of a dispatch buffer, a completion-time
 * array, counters): ~109 instructions per IO of harness; ~88 with the
 * copying SQ.  The schedule is unchanged: the final line's now/last times
 * fingerprint it.
 * Each tick is one jbof_sched_complete_batch call, as a reactor that reaps
 * its CQ per tick makes it: an entry per reaped IO (its completion, then
 * its tenant's next IO, in reap order) and the tick's dispatch -- the same
 * calls in the same order as complete/submit/complete/submit.../dispatch,
 * so the same schedule (fingerprint unchanged).  The next IO goes in the
 * other descriptor of the completing one's pair (a reactor's next request
 * is in another slot), since the completion still reads the finished one.
 *
 * Built with -DBENCH_BIG=1 (build/bench_sched_big; scripts/bench_sched.py
 * --big): one write in 16 is 1 MiB, so section 79's write-debt episodes
 * open (a write that leaves the bucket >= 8 buckets in debt) and the
 * dispatch calls that find the bucket empty during one run bw_serve -- its
 * cost beside 64 tenants (h94).  A separate binary: the default one's
 * harness stays instruction for instruction what it was.
 *
 * Built with -DBENCH_SLO=1 (build/bench_sched_slo; scripts/bench_sched.py
 * --slo): 12 tenants in two-bucket mode -- tenant 0 a latency-critical
 * reader (300 us SLO, 4 KiB reads, 2 in flight), tenant 1 reserved (100
 * MiB/s, the others' mix), ten best-effort tenants of weights 1-4 --
 * so the paths neither mix above reaches run per IO: sections 63 and
 * 109's sfq_least walks, section 110's resv_pay_other, the reservations'
 * dispatch and the SLO tenant's accounting (n121).
 *
 * Built with -DBENCH_BW=1 (build/bench_sched_bw; scripts/bench_sched.py
 * --bw): --big's writes beside 12 tenants in one bucket, tenant 0 a
 * best-effort QD-2 reader of 4 KiB (latency-bound: its queue is mostly
 * empty), so section 79's bw_serve walks the round during the write-debt
 * episodes (n121).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jbof.h"

#ifndef BENCH_BIG
#define BENCH_BIG 0
#endif
#ifndef BENCH_SLO
#define BENCH_SLO 0
#endif
#ifndef BENCH_BW
#define BENCH_BW 0
#endif
#if BENCH_BW
#undef BENCH_BIG
#define BENCH_BIG 1
#endif
/* tenant 0 a QD-2 4 KiB reader: --slo (with an SLO) and --bw (without) */
#define BENCH_READER0 (BENCH_SLO || BENCH_BW)
enum { TENANTS = BENCH_READER0 ? 12 : 64, DEPTH = 8, RING = 4096, BATCH = 64 };
enum { SLO_DEPTH = 2 };                     /* --slo / --bw: tenant 0's IOs in flight */
static const uint64_t SLO_NS = 300000;      /* --slo: tenant 0's latency target */
static const uint64_t RESV_BPS = 100u << 20; /* --slo: tenant 1's reservation */
static const uint64_t FIXED_NS = 80000; /* unloaded device latency */
static const uint64_t TICK_NS = 10000;  /* reactor batch period: ~4 completions at 400K IOPS */

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (n <= 0) {
        fprintf(stderr, "usage: bench_sched N (N > 0)\n");
        return 2;
    }
    jbof_sched_cfg cfg;
    jbof_sched_default_cfg(JBOF_POLICY_QOS, &cfg);
    jbof_sched *s;
    if (jbof_sched_create(&cfg, &s)) {
        fprintf(stderr, "bench_sched: create failed\n");
        return 1;
    }
    uint32_t ids[TENANTS];
    for (int i = 0; i < TENANTS; i++) {
        jbof_tenant_cfg t;
        jbof_tenant_default_cfg(&t);
        t.weight = 1 + (uint32_t)(i % 4);
        if (BENCH_SLO && i == 0) {
            t.klass = JBOF_CLASS_LATENCY;
            t.latency_slo_ns = SLO_NS;
        } else if (BENCH_SLO && i == 1) {
            t.klass = JBOF_CLASS_RESERVED;
            t.reserve_bps = RESV_BPS;
        }
        if (jbof_sched_tenant_add(s, &t, 0, &ids[i]))
            return 1;
    }
    /* in flight: a FIFO of pointers to dispatched IOs (the reactor's
     * request slots), each carrying its completion time in its tag (the
     * caller's cookie); a dispatch writes at most BATCH pointers past the
     * ring's end into the spill area, which is moved to the ring's start.
     * head counts completions. */
    /* descriptors in pairs, 128-byte aligned: a completing IO's sibling,
     * which carries its tenant's next IO, is its address ^ sizeof(jbof_io) */
    static struct pair {
        jbof_io io[2];
    } __attribute__((aligned(128))) pool[TENANTS * DEPTH];
    static jbof_io *fl[RING + BATCH];
    static jbof_done dn[TENANTS * DEPTH];
    uint64_t head = 0, tail = 0;
    uint64_t now = 0, last_done = 0;
    uint64_t rng = 88172645463325252ull;
    for (int i = 0; i < TENANTS; i++)
        for (int d = 0; d < (BENCH_READER0 && i == 0 ? SLO_DEPTH : DEPTH); d++) {
            jbof_io *io = &pool[i * DEPTH + d].io[0];
            pool[i * DEPTH + d].io[1].tenant = ids[i];
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            io->tenant = ids[i];
            io->opcode = (rng & 3) == 0 ? JBOF_OP_WRITE : JBOF_OP_READ; /* 25% writes */
            io->length_bytes = (rng & 4) ? 4096 : 16384;
            if (BENCH_BIG && io->opcode == JBOF_OP_WRITE && (rng >> 8 & 15) == 0)
                io->length_bytes = 1048576;
            if (BENCH_READER0 && i == 0) /* the QD-2 reader: 4 KiB reads */
                io->opcode = JBOF_OP_READ, io->length_bytes = 4096;
            io->offset_bytes = (rng >> 20) & ~4095ull;
            jbof_sched_submit(s, io, now);
        }
    /* The loop is a reactor's: every TICK_NS it reaps the IOs that have
     * completed (their tenants submit new ones), then asks the scheduler for
     * what may be dispatched -- all in one call per tick.  When nothing is in flight and nothing may go, time
     * jumps to the scheduler's next event (token refill). */
    while (head < (uint64_t)n) {
        jbof_done *e = dn;
        while (head != tail && fl[head & (RING - 1)]->tag <= now) {
            jbof_io *c = fl[head++ & (RING - 1)];
            /* the tenant's next IO, in the other descriptor of c's pair */
            jbof_io *x = (jbof_io *)((uintptr_t)c ^ sizeof(jbof_io));
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            x->opcode = (rng & 3) == 0 ? JBOF_OP_WRITE : JBOF_OP_READ;
            x->length_bytes = (rng & 4) ? 4096 : 16384;
            if (BENCH_BIG && x->opcode == JBOF_OP_WRITE && (rng >> 8 & 15) == 0)
                x->length_bytes = 1048576;
            if (BENCH_READER0 && x->tenant == ids[0])
                x->opcode = JBOF_OP_READ, x->length_bytes = 4096;
            x->offset_bytes = (rng >> 20) & ~4095ull;
            e->io = c;
            e->next = x;
            e->now_ns = now;
            e->status = 0;
            e++;
        }
        unsigned at = (unsigned)tail & (RING - 1);
        int k = jbof_sched_complete_batch(s, dn, (int)(e - dn), now, &fl[at], BATCH);
        for (jbof_io **d = &fl[at], **e = d + k; d < e; d++) {
            /* 1 us per command + 3.2 GB/s of reads, writes 3x dearer */
            uint64_t svc = 1000 + (uint64_t)(*d)->length_bytes * ((*d)->opcode == JBOF_OP_WRITE ? 3 : 1) * 5 / 16;
            uint64_t t = now + FIXED_NS;
            last_done = (last_done + svc > t) ? last_done + svc : t;
            (*d)->tag = last_done;
        }
        if (at + (unsigned)k > RING) /* wrapped: the spill goes to the ring's start */
            memcpy(&fl[0], &fl[RING], (at + (unsigned)k - RING) * sizeof(fl[0]));
        tail += (uint64_t)k;
        if (head == tail && k == 0) {
            uint64_t w = jbof_sched_next_event_ns(s, now);
            if (w == UINT64_MAX) {
                fprintf(stderr, "bench_sched: stalled after %llu IOs\n", (unsigned long long)head);
                return 1;
            }
            now = w;
            continue;
        }
        now += TICK_NS;
    }
    jbof_drive_stats ds;
    jbof_sched_drive_stats(s, &ds);
    /* the virtual time and the drive's last completion time fingerprint the
     * whole schedule: a pure optimization of the scheduler leaves them as they were */
    printf("bench_sched: %llu IOs completed, controller state %u, rate %llu MiB/s, now %llu ns, last %llu ns\n",
           (unsigned long long)head, ds.ctl_state, (unsigned long long)(ds.rate_cost_bps >> 20),
           (unsigned long long)now, (unsigned long long)last_done);
    if (BENCH_SLO) { /* what the SLO reader and the reservation got */
        jbof_tenant_stats a, b;
        jbof_sched_tenant_stats(s, ids[0], &a);
        jbof_sched_tenant_stats(s, ids[1], &b);
        printf("bench_sched: slo reader %llu IOs, %llu past %llu us; reserved %llu IOs, %llu MiB/s (of %llu)\n",
               (unsigned long long)a.completed, (unsigned long long)a.slo_violations,
               (unsigned long long)(SLO_NS / 1000), (unsigned long long)b.completed,
               (unsigned long long)(now ? (b.read_bytes + b.write_bytes) * 1000000000ull / now >> 20 : 0),
               (unsigned long long)(RESV_BPS >> 20));
    }
    jbof_sched_destroy(s);
    return 0;
}
