/*
 * backend_memory.c -- the RAM backend, and the data store it shares with
 * the emulated backend.
 *
 * 1. Store.  One mapping of the drive's size: anonymous memory mapped with
 *    MAP_NORESERVE (pages cost RAM only once written, so a 64 GiB demo
 *    drive on a laptop is fine while mostly unwritten), or a sparse file
 *    mapped MAP_SHARED (data survives the process; the page cache does the
 *    IO).  The memory backend asks for transparent huge pages: one fault per
 *    2 MiB instead of per 4 KiB, and never-written areas read from the huge
 *    zero page (a short random-read benchmark over 1 GiB would otherwise
 *    spend a tenth of its time in first-touch faults).  The emulated
 *    backend keeps 4 KiB pages so a mostly empty demo drive stays small.
 *    READ/WRITE are memcpy; TRIM and WRITE_ZEROES give whole pages
 *    back (MADV_DONTNEED on anonymous memory reads back zeroes,
 *    FALLOC_FL_PUNCH_HOLE on a file) and memset the unaligned edges.
 *
 * 2. Memory backend.  Every request is done inside submit (no thread, no
 *    syscall on the data path) and parked on a completed list that the
 *    reactor reaps in the same loop iteration: a 4 KiB read costs one
 *    4 KiB memcpy plus list pushes.  Its completion time is the submit
 *    time (due_ns), so the latency controller sees a drive without delay
 *    rather than the reactor's own scheduling jitter.  FLUSH and FUA are no-ops: nothing
 *    volatile sits between a completed write and the store.
 *
 * 2b. Allocation (NBD base:allocation).  An anonymous store keeps a bitmap
 *    of chunks that may hold data, one bit per 4 KiB chunk -- the smallest
 *    namespace alignment, so no chunk ever straddles two tenants and one
 *    tenant's writes cannot show in another's map.  The bitmap is itself a
 *    lazily backed mapping (MAP_NORESERVE, 32 KiB per GiB of drive, pages
 *    cost RAM once a write lands in the 128 MiB one of them covers).  WRITE
 *    sets the bits of every chunk it touches before copying; TRIM and
 *    WRITE_ZEROES clear the chunks they cover whole (their edges were
 *    memset and stay "data").  A clear bit therefore always reads as
 *    zeroes: extents report it HOLE|ZERO, set bits as data.  Reads never
 *    touch it.  A file-backed store asks the file (SEEK_DATA/SEEK_HOLE),
 *    since the file may hold data written before this process.  Cost: one
 *    bit per 4 KiB (32 KiB per GiB), a few word operations per write.
 *
 * 3. Worked example.  WRITE_ZEROES at offset 6144, 16384 bytes with 4 KiB
 *    pages: the edges [6144, 8192) and [16384, 22528) are memset (2048 and
 *    6144 bytes), the whole pages [8192, 16384) are dropped with one
 *    madvise: 2 pages returned to the kernel, 8 KiB memset; chunks 2 and 3
 *    become holes, chunks 1 and 5 (the edges) keep their state.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"

enum {
    STORE_PAGE_BYTES = 4096,
    MAP_SHIFT = 12            /* tracked chunk: 4 KiB, the smallest namespace alignment */
};

/* One bit per 4 KiB chunk, in whole pages. */
static size_t map_bytes_for(uint64_t size_bytes)
{
    uint64_t chunks = ((size_bytes - 1) >> MAP_SHIFT) + 1;
    uint64_t bytes = (chunks + 63) / 64 * 8;
    return (size_t)((bytes + STORE_PAGE_BYTES - 1) / STORE_PAGE_BYTES * STORE_PAGE_BYTES);
}

int jbof_store_open(jbof_store *s, const char *path, uint64_t size_bytes, int huge)
{
    if (!s || size_bytes == 0 || size_bytes > (1ull << 50))
        return -EINVAL;
    /* every field, whatever the caller's memory held (stack or malloc, not
     * only the backends' calloc); map_shift and map are the anonymous store's */
    *s = (jbof_store){.fd = -1, .size_bytes = size_bytes};
    if (path && path[0]) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
            return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            return -EINVAL;
        }
        if ((uint64_t)st.st_size < size_bytes && ftruncate(fd, (off_t)size_bytes) < 0) {
            int rc = -errno;
            close(fd);
            return rc;
        }
        void *p = mmap(NULL, size_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            int rc = -errno;
            close(fd);
            return rc;
        }
        s->base = p;
        s->fd = fd;
        return 0;
    }
    s->map_shift = MAP_SHIFT;
    s->map_bytes = map_bytes_for(size_bytes);
    void *m = mmap(NULL, s->map_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0); /* all clear: never written */
    if (m == MAP_FAILED)
        return -errno;
    s->map = m;
    void *p = mmap(NULL, size_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        int rc = -errno;
        munmap(s->map, s->map_bytes);
        s->map = NULL;
        return rc;
    }
    if (huge)
        madvise(p, size_bytes, MADV_HUGEPAGE); /* a hint: fine if THP is off */
    s->base = p;
    return 0;
}

void jbof_store_close(jbof_store *s)
{
    if (!s)
        return;
    if (s->base)
        munmap(s->base, s->size_bytes);
    if (s->fd >= 0)
        close(s->fd);
    if (s->map)
        munmap(s->map, s->map_bytes);
    s->map = NULL;
    s->base = NULL;
    s->fd = -1;
}

/* Set (written) or clear (zeroed) the bits of chunks [a, b). */
static void map_range(uint64_t *map, uint64_t a, uint64_t b, int set)
{
    while (a < b) {
        uint64_t w = a / 64, lo = a % 64;
        uint64_t n = 64 - lo < b - a ? 64 - lo : b - a;
        uint64_t m = (n == 64 ? ~0ull : ((1ull << n) - 1)) << lo;
        if (set)
            map[w] |= m;
        else
            map[w] &= ~m;
        a += n;
    }
}

static int map_bit(const uint64_t *map, uint64_t i)
{
    return (int)((map[i / 64] >> (i % 64)) & 1);
}

/* Chunk index >= i (and < end) whose bit differs from v, else end. */
static uint64_t map_next(const uint64_t *map, uint64_t i, uint64_t end, int v)
{
    while (i < end) {
        uint64_t w = map[i / 64] ^ (v ? ~0ull : 0);
        w &= ~0ull << (i % 64);
        if (w) {
            uint64_t j = i / 64 * 64 + (uint64_t)__builtin_ctzll(w);
            return j < end ? j : end;
        }
        i = (i / 64 + 1) * 64;
    }
    return end;
}

int jbof_store_extents(const jbof_store *s, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max)
{
    if (!s || !out || max <= 0 || len == 0 || len > UINT32_MAX || off > s->size_bytes ||
        len > s->size_bytes - off)
        return -EINVAL;
    if (s->fd >= 0)
        return jbof_fd_extents(s->fd, off, len, out, max);
    if (!s->map) {
        out[0] = (jbof_nbd_extent){.length_bytes = (uint32_t)len, .flags = 0};
        return 1;
    }
    /* Runs of equal bits, clipped to [off, end); a set bit is data, a clear
     * one was never written or was zeroed whole: it reads as zeroes. */
    uint64_t end = off + len, pos = off;
    uint64_t last = ((s->size_bytes - 1) >> s->map_shift) + 1;
    int n = 0;
    while (pos < end && n < max) {
        uint64_t c = pos >> s->map_shift;
        int v = map_bit(s->map, c);
        uint64_t next = map_next(s->map, c, last, v);
        uint64_t stop = next >= last ? end : next << s->map_shift;
        if (stop > end)
            stop = end;
        out[n++] = (jbof_nbd_extent){.length_bytes = (uint32_t)(stop - pos),
                                     .flags = v ? 0 : JBOF_NBD_STATE_HOLE | JBOF_NBD_STATE_ZERO};
        pos = stop;
    }
    return n;
}

/* A data file shorter than the range: touching the mapping there would
 * raise SIGBUS, so the IO is refused with EIO, counted and logged (at the
 * 1st, 2nd, 4th, 8th ... time).  File-backed stores only (the emulated
 * backend with a path).  One fstat per batch, not per IO: the reactor
 * submits a batch at one now_ns, and the size read at that now_ns stands
 * for the rest of the batch (an IO reaching past it looks again, so a file
 * that grew back is seen at once); now_ns 0 (jbof_store_zero, the rare
 * scrub and zeroing path) always looks.  A truncation between the check
 * and a copy still faults: the window is one batch's memcpys long (a few
 * microseconds; it used to be one memcpy). */
static int store_truncated(jbof_store *s, uint64_t off, uint64_t len, uint64_t now_ns)
{
    if (s->fd < 0)
        return 0;
    if (now_ns && now_ns == s->checked_ns && s->file_bytes >= off + len)
        return 0;
    struct stat st;
    if (fstat(s->fd, &st) == 0) {
        s->file_bytes = (uint64_t)st.st_size;
        s->checked_ns = now_ns;
        if (s->file_bytes >= off + len)
            return 0;
    } else {
        s->file_bytes = 0;
        s->checked_ns = 0;
    }
    s->eof_errors++;
    if ((s->eof_errors & (s->eof_errors - 1)) == 0)
        fprintf(stderr, "jbof: data file truncated to %llu bytes under a %llu-byte store: "
                "IO at %llu+%llu fails with EIO (%llu so far)\n",
                (unsigned long long)s->file_bytes, (unsigned long long)s->size_bytes,
                (unsigned long long)off, (unsigned long long)len,
                (unsigned long long)s->eof_errors);
    return 1;
}

/* Zero [off, off+len): memset the edges, give whole pages back. */
static void store_zero(jbof_store *s, uint64_t off, uint64_t len)
{
    if (len == 0)
        return;
    uint64_t a = (off + STORE_PAGE_BYTES - 1) & ~(uint64_t)(STORE_PAGE_BYTES - 1);
    uint64_t b = (off + len) & ~(uint64_t)(STORE_PAGE_BYTES - 1);
    if (a >= b) {
        memset(s->base + off, 0, len);
        return;
    }
    memset(s->base + off, 0, a - off);
    memset(s->base + b, 0, off + len - b);
    int done = 0;
    if (s->fd < 0)
        done = madvise(s->base + a, b - a, MADV_DONTNEED) == 0;
    else
        done = fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)a, (off_t)(b - a)) == 0;
    if (!done)
        memset(s->base + a, 0, b - a);
}

/* Zero [off, off + len) and mark the chunks zeroed whole as holes, so
 * block status shows neither a trimmed range nor a scrubbed namespace's
 * previous owner's layout as data. */
static void store_zero_mapped(jbof_store *s, uint64_t off, uint64_t len)
{
    store_zero(s, off, len);
    if (s->map && len) { /* only chunks zeroed whole become holes */
        uint64_t sz = 1ull << s->map_shift;
        uint64_t a = (off + sz - 1) >> s->map_shift;
        uint64_t b = (off + len) >> s->map_shift;
        if (off + len == s->size_bytes)
            b = ((s->size_bytes - 1) >> s->map_shift) + 1; /* a short last chunk */
        map_range(s->map, a, b, 0);
    }
}

int jbof_store_zero(jbof_store *s, uint64_t off, uint64_t len)
{
    if (!s || !s->base || off > s->size_bytes || len > s->size_bytes - off)
        return -EINVAL;
    if (store_truncated(s, off, len, 0))
        return -EIO;
    store_zero_mapped(s, off, len);
    return 0;
}

int jbof_store_apply(jbof_store *s, const jbof_breq *r, uint64_t now_ns)
{
    if (!s || !r || !s->base)
        return -EINVAL;
    if (r->io.opcode == JBOF_OP_FLUSH)
        return 0;
    if (r->io.offset_bytes > s->size_bytes || r->io.length_bytes > s->size_bytes - r->io.offset_bytes)
        return -EINVAL;
    if (store_truncated(s, r->io.offset_bytes, r->io.length_bytes, now_ns))
        return -EIO;
    switch (r->io.opcode) {
    case JBOF_OP_READ:
        memcpy(r->buf, s->base + r->io.offset_bytes, r->io.length_bytes);
        return 0;
    case JBOF_OP_WRITE:
        if (s->map && r->io.length_bytes) /* mark before the data lands */
            map_range(s->map, r->io.offset_bytes >> s->map_shift,
                      ((r->io.offset_bytes + r->io.length_bytes - 1) >> s->map_shift) + 1, 1);
        memcpy(s->base + r->io.offset_bytes, r->buf, r->io.length_bytes);
        return 0;
    case JBOF_OP_TRIM:
    case JBOF_OP_WRITE_ZEROES:
        /* TRIM is a hint, but zeroing also frees the memory it names. */
        store_zero_mapped(s, r->io.offset_bytes, r->io.length_bytes);
        return 0;
    default:
        return -EINVAL;
    }
}

int jbof_store_sync(jbof_store *s)
{
    if (!s || !s->base)
        return -EINVAL;
    if (s->fd >= 0 && msync(s->base, s->size_bytes, MS_SYNC) < 0)
        return -errno;
    return 0;
}

/* ------------------------------------------------------ memory backend -- */

typedef struct mem_be {
    jbof_backend b;
    jbof_store store;
    jbof_breq *done_head, *done_tail;
} mem_be;

static int mem_submit(jbof_backend *b, jbof_breq *r, uint64_t now_ns)
{
    mem_be *m = (mem_be *)b;
    r->status = jbof_store_apply(&m->store, r, now_ns);
    r->due_ns = now_ns; /* done: the reactor noticing later is not drive time */
    r->next = NULL;
    if (m->done_tail)
        m->done_tail->next = r;
    else
        m->done_head = r;
    m->done_tail = r;
    return 0;
}

static int mem_kick(jbof_backend *b)
{
    (void)b;
    return 0;
}

static int mem_reap(jbof_backend *b, jbof_breq **out, int max, uint64_t now_ns)
{
    (void)now_ns;
    mem_be *m = (mem_be *)b;
    int n = 0;
    while (n < max && m->done_head) {
        jbof_breq *r = m->done_head;
        m->done_head = r->next;
        out[n++] = r;
    }
    if (!m->done_head)
        m->done_tail = NULL;
    return n;
}

static uint64_t mem_next_due(const jbof_backend *b)
{
    const mem_be *m = (const mem_be *)b;
    return m->done_head ? 0 : UINT64_MAX;
}

static int mem_sync(jbof_backend *b)
{
    return jbof_store_sync(&((mem_be *)b)->store);
}

static int mem_extents(jbof_backend *b, uint64_t off, uint64_t len, jbof_nbd_extent *out, int max)
{
    return jbof_store_extents(&((mem_be *)b)->store, off, len, out, max);
}

static int mem_zero(jbof_backend *b, uint64_t off, uint64_t len)
{
    return jbof_store_zero(&((mem_be *)b)->store, off, len);
}

static void mem_destroy(jbof_backend *b)
{
    mem_be *m = (mem_be *)b;
    if (!m)
        return;
    jbof_store_close(&m->store);
    free(m);
}

static const jbof_backend_ops MEM_OPS = {
    .name = "memory",
    .submit = mem_submit,
    .kick = mem_kick,
    .reap = mem_reap,
    .next_due_ns = mem_next_due,
    .sync = mem_sync,
    .zero = mem_zero,
    .ssd_stats = NULL,
    .destroy = mem_destroy,
    .extents = mem_extents,
};

int jbof_backend_memory_create(const jbof_drive_cfg *cfg, jbof_backend **out)
{
    if (!cfg || !out || cfg->size_bytes == 0)
        return -EINVAL;
    *out = NULL;
    mem_be *m = calloc(1, sizeof(*m));
    if (!m)
        return -ENOMEM;
    int rc = jbof_store_open(&m->store, NULL, cfg->size_bytes, 1);
    if (rc < 0) {
        free(m);
        return rc;
    }
    m->b.ops = &MEM_OPS;
    m->b.event_fd = -1;
    m->b.io_mode = JBOF_IO_INLINE;
    m->b.block_bytes = 1;
    m->b.size_bytes = cfg->size_bytes;
    *out = &m->b;
    return 0;
}
