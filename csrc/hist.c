/*
 * hist.c -- log-linear latency histogram (HdrHistogram-like).
 *
 * 1. Why.  Tail latency (p99, p99.9) is what QoS is judged on, and it must be
 *    recorded for every IO at a cost of a few instructions, without memory
 *    allocation, and merged and read back cheaply by the control plane.
 *
 * 2. Layout.  Values are nanoseconds.  Values below 64 get one bucket each.
 *    Above, each power of two [2^e, 2^(e+1)) is cut into 32 equal
 *    sub-buckets, so a bucket is at most 1/32 (3.1%) of its value wide:
 *
 *        idx(v) = v                                 if v < 64
 *               = (e - 5) * 32 + (v >> (e - 5))     e = floor(log2 v) >= 6
 *
 *    (v >> (e-5)) lies in [32, 63], so octave e fills indices
 *    [(e-4)*32, (e-4)*32 + 31].  e runs to 40 (about 2200 s); larger values
 *    land in the last bucket.  1184 buckets * 8 bytes = 9.25 KiB.
 *
 * 3. Worked example.  v = 85,000 ns (a typical flash read): e = 16,
 *    shift = 11, v >> 11 = 41, idx = 11*32 + 41 = 393.  Bucket 393 covers
 *    [41 << 11, 42 << 11) = [83,968, 86,016) ns, 2.4% wide.
 *
 * 4. Quantiles.  jbof_hist_quantile walks the buckets to the first whose
 *    cumulative count reaches ceil(q * count) and reports the bucket's upper
 *    edge, clamped to the exact recorded max (fio reports percentiles the
 *    same conservative way).
 */
#include <errno.h>
#include <string.h>

#include "jbof_internal.h"

enum { HIST_LINEAR = 64, HIST_SUB_BITS = 5, HIST_MAX_EXP = 40 };

void jbof_hist_reset(jbof_hist *h)
{
    if (!h)
        return;
    memset(h, 0, sizeof(*h));
    h->min_ns = UINT64_MAX;
}

uint32_t jbof_hist_index(uint64_t v) { return hist_index_inline(v); }

uint64_t jbof_hist_bucket_low(uint32_t idx)
{
    if (idx >= JBOF_HIST_BUCKETS)
        return 0;
    if (idx < HIST_LINEAR)
        return idx;
    unsigned e = idx / 32u + 4u;
    uint64_t m = idx % 32u + 32u;
    return m << (e - HIST_SUB_BITS);
}

int jbof_hist_record(jbof_hist *h, uint64_t v)
{
    if (!h)
        return -EINVAL;
    hist_add(h, v);
    return 0;
}

int jbof_hist_quantile(const jbof_hist *h, double q, uint64_t *out)
{
    if (!h || !out || !(q >= 0.0 && q <= 1.0))
        return -EINVAL;
    if (h->count == 0) {
        *out = 0;
        return 0;
    }
    uint64_t rank = (uint64_t)(q * (double)h->count);
    if ((double)rank < q * (double)h->count)
        rank++;
    if (rank == 0)
        rank = 1;
    uint64_t cum = 0;
    for (uint32_t i = 0; i < JBOF_HIST_BUCKETS; i++) {
        cum += h->buckets[i];
        if (cum >= rank) {
            uint64_t hi = (i + 1 < JBOF_HIST_BUCKETS) ? jbof_hist_bucket_low(i + 1) - 1 : h->max_ns;
            if (hi > h->max_ns)
                hi = h->max_ns;
            if (hi < h->min_ns)
                hi = h->min_ns;
            *out = hi;
            return 0;
        }
    }
    *out = h->max_ns;
    return 0;
}

int jbof_hist_merge(jbof_hist *dst, const jbof_hist *src)
{
    if (!dst || !src)
        return -EINVAL;
    for (uint32_t i = 0; i < JBOF_HIST_BUCKETS; i++)
        dst->buckets[i] += src->buckets[i];
    dst->count += src->count;
    dst->sum_ns += src->sum_ns;
    if (src->max_ns > dst->max_ns)
        dst->max_ns = src->max_ns;
    if (src->count && src->min_ns < dst->min_ns)
        dst->min_ns = src->min_ns;
    return 0;
}
