/* test_registry.c: the memory-region registry (DESIGN §4) against a fake
 * device: malloc'ed shadow buffers that count transfers.
 *
 * Directed tests of the rules, refcounts and residency, then a randomized
 * model test: random views over a few host arrays, random host and device
 * reads and writes, compared with plain arrays.  A failure prints the seed;
 * CYRT_TEST_SEED=N reruns that one sequence. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/cyrt.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

/* ---- the fake device ------------------------------------------------------------------ */

typedef struct {
    long live, allocs;
    uint64_t writes, reads, copies, wbytes, rbytes, cbytes;
    long bad; /* out-of-bounds transfers */
    unsigned fail_pct; /* chance in % that alloc / write / copy fails */
    uint64_t rng;
} Fake;

typedef struct {
    size_t size;
    size_t pad; /* keeps the data 16-aligned */
} FakeHdr;

static unsigned fake_roll(Fake *f) {
    f->rng ^= f->rng << 13;
    f->rng ^= f->rng >> 7;
    f->rng ^= f->rng << 17;
    return (unsigned)(f->rng % 100);
}

static int fk_alloc(void *ctx, size_t bytes, void **buf) {
    Fake *f = ctx;
    if (f->fail_pct && fake_roll(f) < f->fail_pct)
        return -4; /* CL_MEM_OBJECT_ALLOCATION_FAILURE */
    FakeHdr *h = malloc(sizeof *h + bytes);
    if (!h)
        return -6;
    h->size = bytes;
    memset(h + 1, 0xCD, bytes); /* garbage: a missing upload shows */
    f->live++;
    f->allocs++;
    *buf = h + 1;
    return 0;
}

static void fk_free(void *ctx, void *buf) {
    Fake *f = ctx;
    f->live--;
    free((FakeHdr *)buf - 1);
}

static int in_bounds(Fake *f, void *buf, size_t off, size_t bytes) {
    size_t size = ((FakeHdr *)buf - 1)->size;
    if (off > size || bytes > size - off) {
        f->bad++;
        return 0;
    }
    return 1;
}

static int fk_write(void *ctx, void *buf, size_t off, const void *src, size_t bytes) {
    Fake *f = ctx;
    if (f->fail_pct && fake_roll(f) < f->fail_pct)
        return -5; /* CL_OUT_OF_RESOURCES */
    if (!in_bounds(f, buf, off, bytes))
        return -30;
    memcpy((char *)buf + off, src, bytes);
    f->writes++;
    f->wbytes += bytes;
    return 0;
}

static int fk_read(void *ctx, void *buf, size_t off, void *dst, size_t bytes) {
    Fake *f = ctx;
    if (!in_bounds(f, buf, off, bytes))
        return -30;
    memcpy(dst, (char *)buf + off, bytes);
    f->reads++;
    f->rbytes += bytes;
    return 0;
}

static int fk_copy(void *ctx, void *src, size_t soff, void *dst, size_t doff, size_t bytes) {
    Fake *f = ctx;
    if (f->fail_pct && fake_roll(f) < f->fail_pct)
        return -5;
    if (!in_bounds(f, src, soff, bytes) || !in_bounds(f, dst, doff, bytes))
        return -30;
    memcpy((char *)dst + doff, (char *)src + soff, bytes);
    f->copies++;
    f->cbytes += bytes;
    return 0;
}

static cyrt_rt *fake_rt(Fake *f) {
    memset(f, 0, sizeof *f);
    f->rng = 88172645463325252ull;
    cyrt_membackend be = {f, fk_alloc, fk_free, fk_write, fk_read, fk_copy, NULL, NULL};
    cyrt_config cfg = {.backend = &be, .quiet = 1};
    cyrt_rt *rt = NULL;
    if (cyrt_rt_new(&cfg, &rt) != CYRT_OK) {
        fprintf(stderr, "cyrt_rt_new failed\n");
        exit(1);
    }
    return rt;
}

/* ---- helpers for the directed tests --------------------------------------------------- */

static cyrt_handle *reg1(cyrt_rt *rt, void *data, ptrdiff_t n, ptrdiff_t stride, size_t item) {
    cyrt_handle *h = NULL;
    cyrt_err err;
    cyrt_status st = cyrt_register(rt, data, 1, &n, &stride, item, &h, NULL, &err);
    CHECK(st == CYRT_OK && h);
    return h;
}

static cyrt_handle_info info(cyrt_rt *rt, cyrt_handle *h) {
    cyrt_handle_info in;
    cyrt_handle_info_get(rt, h, &in);
    return in;
}

static cyrt_registry_info reginfo(cyrt_rt *rt) {
    cyrt_registry_info in;
    cyrt_registry_info_get(rt, &in);
    return in;
}

static cyrt_devref dev(cyrt_rt *rt, cyrt_handle *h, unsigned mode) {
    cyrt_devref ref = {0};
    cyrt_err err;
    CHECK(cyrt_device_acquire(rt, 1, &h, &mode, &ref, NULL, &err) == CYRT_OK);
    return ref;
}

static void done(cyrt_rt *rt, cyrt_handle *h) { cyrt_device_done(rt, 1, &h); }

static void rel(cyrt_rt *rt, cyrt_handle *h) { CHECK(cyrt_release(rt, h, NULL, NULL) == CYRT_OK); }

static void free_rt(cyrt_rt *rt, Fake *f) {
    CHECK(cyrt_rt_free(rt, NULL) == CYRT_OK);
    CHECK(f->live == 0);
    CHECK(f->bad == 0);
}

/* ---- directed tests ------------------------------------------------------------------------ */

static double arr[100] __attribute__((aligned(128)));

static void fill(void) {
    for (int i = 0; i < 100; i++)
        arr[i] = i;
}

static void test_same_extent(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    fill();
    cyrt_handle *a = reg1(rt, arr, 50, 8, 8);
    cyrt_handle *b = reg1(rt, arr, 50, 8, 8);
    cyrt_handle *c = reg1(rt, arr + 49, 50, -8, 8); /* reversed: the same bytes */
    CHECK(info(rt, a).region == info(rt, b).region);
    CHECK(info(rt, a).region == info(rt, c).region);
    CHECK(info(rt, a).refs == 3);
    CHECK(info(rt, a).lo == (uintptr_t)arr && info(rt, a).hi == (uintptr_t)(arr + 50));
    CHECK(reginfo(rt).tops == 1 && reginfo(rt).records == 1 && reginfo(rt).handles == 3);
    /* the reversed view's first element is the last of the region */
    cyrt_devref r = dev(rt, c, CYRT_READ);
    CHECK(r.byte_offset == 49 * 8 && r.elem_offset == 49);
    CHECK(((double *)r.mem)[49] == 49.0);
    done(rt, c);
    rel(rt, a);
    rel(rt, b);
    CHECK(info(rt, c).refs == 1);
    rel(rt, c);
    CHECK(reginfo(rt).tops == 0 && reginfo(rt).records == 0 && reginfo(rt).handles == 0);
    CHECK(f.live == 0);
    free_rt(rt, &f);
}

static void test_containment(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    fill();
    /* parent first: the slice becomes its child */
    cyrt_handle *whole = reg1(rt, arr, 100, 8, 8);
    cyrt_handle *part = reg1(rt, arr + 10, 10, 8, 8);
    cyrt_handle_info pi = info(rt, part);
    CHECK(pi.top == info(rt, whole).region && pi.region != pi.top);
    CHECK(pi.offset == 80);
    /* the child moves with the parent: written through the parent on the device */
    cyrt_devref w = dev(rt, whole, CYRT_WRITE);
    CHECK(f.writes == 1 && f.wbytes == 800);
    ((double *)w.mem)[15] = -15.0;
    done(rt, whole);
    CHECK(info(rt, part).residency == CYRT_RES_DEVICE);
    CHECK(cyrt_host_acquire(rt, part, CYRT_READ, NULL, NULL) == CYRT_OK);
    CHECK(arr[15] == -15.0);
    CHECK(info(rt, whole).residency == CYRT_RES_BOTH);
    /* and the child's device view is the parent's buffer at its offset */
    cyrt_devref pr = dev(rt, part, CYRT_READ);
    CHECK(pr.mem == w.mem && pr.byte_offset == 80 && pr.elem_offset == 10);
    done(rt, part);
    CHECK(f.writes == 1); /* nothing moved again */
    rel(rt, part);
    rel(rt, whole);
    CHECK(f.live == 0);

    /* child first, then the parent: the child's device data survives */
    fill();
    part = reg1(rt, arr + 10, 10, 8, 8);
    w = dev(rt, part, CYRT_RW);
    ((double *)((char *)w.mem + w.byte_offset))[3] = -13.0;
    done(rt, part);
    CHECK(arr[13] == 13.0);
    whole = reg1(rt, arr, 100, 8, 8);
    CHECK(info(rt, part).top == info(rt, whole).region);
    CHECK(reginfo(rt).tops == 1 && reginfo(rt).records == 2);
    w = dev(rt, whole, CYRT_READ);
    CHECK(((double *)w.mem)[13] == -13.0 && ((double *)w.mem)[99] == 99.0);
    done(rt, whole);
    CHECK(cyrt_host_acquire(rt, whole, CYRT_READ, NULL, NULL) == CYRT_OK);
    CHECK(arr[13] == -13.0);
    rel(rt, whole);
    rel(rt, part);
    free_rt(rt, &f);
}

static void test_merge(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    fill();
    /* overlap without containment: one region spanning both */
    cyrt_handle *a = reg1(rt, arr, 50, 8, 8);
    cyrt_handle *b = reg1(rt, arr + 40, 60, 8, 8);
    cyrt_handle_info ai = info(rt, a), bi = info(rt, b);
    CHECK(ai.top == bi.top && ai.region != bi.region);
    CHECK(ai.top_lo == (uintptr_t)arr && ai.top_hi == (uintptr_t)(arr + 100));
    CHECK(reginfo(rt).tops == 1 && reginfo(rt).records == 3);
    rel(rt, a);
    /* the merged region shrinks to what is left */
    CHECK(reginfo(rt).tops == 1 && reginfo(rt).records == 1);
    CHECK(info(rt, b).top == info(rt, b).region);
    rel(rt, b);
    CHECK(reginfo(rt).tops == 0);

    /* cascading: A and C disjoint, then B overlapping both: one region */
    cyrt_handle *A = reg1(rt, arr, 10, 8, 8);
    cyrt_handle *C = reg1(rt, arr + 20, 10, 8, 8);
    CHECK(reginfo(rt).tops == 2);
    cyrt_devref cr = dev(rt, C, CYRT_WRITE); /* C's valid copy is on the device */
    ((double *)((char *)cr.mem + cr.byte_offset))[5] = -25.0;
    done(rt, C);
    cyrt_handle *B = reg1(rt, arr + 5, 20, 8, 8);
    CHECK(reginfo(rt).tops == 1);
    CHECK(info(rt, A).top == info(rt, B).top && info(rt, C).top == info(rt, B).top);
    CHECK(info(rt, B).top_lo == (uintptr_t)arr && info(rt, B).top_hi == (uintptr_t)(arr + 30));
    /* C's device copy moved device to device; the rest came from the host */
    CHECK(f.copies == 1 && f.cbytes == 80);
    CHECK(info(rt, B).residency == CYRT_RES_DEVICE);
    CHECK(arr[25] == 25.0);
    cyrt_devref br = dev(rt, B, CYRT_READ);
    CHECK(((double *)((char *)br.mem + br.byte_offset))[20] == -25.0);
    CHECK(((double *)((char *)br.mem + br.byte_offset))[0] == 5.0);
    done(rt, B);
    /* a fourth view overlapping the merged region's end extends it */
    cyrt_handle *D = reg1(rt, arr + 28, 10, 8, 8);
    CHECK(reginfo(rt).tops == 1 && info(rt, D).top_hi == (uintptr_t)(arr + 38));
    CHECK(cyrt_host_acquire(rt, D, CYRT_READ, NULL, NULL) == CYRT_OK);
    CHECK(arr[25] == -25.0);
    rel(rt, B);
    rel(rt, D);
    rel(rt, A);
    rel(rt, C);
    CHECK(reginfo(rt).tops == 0 && f.live == 0);
    free_rt(rt, &f);
}

static void test_residency(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    fill();
    cyrt_handle *h = reg1(rt, arr, 100, 8, 8);
    CHECK(info(rt, h).residency == CYRT_RES_HOST);
    for (int i = 0; i < 3; i++) {
        dev(rt, h, CYRT_READ);
        done(rt, h);
    }
    cyrt_xfer st;
    cyrt_stats(rt, &st);
    CHECK(st.to_device == 1 && st.bytes_to_device == 800 && f.writes == 1);
    CHECK(info(rt, h).residency == CYRT_RES_BOTH);
    /* a device write makes the host stale; the first host read copies back, once */
    cyrt_xfer call = {0};
    unsigned m = CYRT_WRITE;
    cyrt_devref r;
    CHECK(cyrt_device_acquire(rt, 1, &h, &m, &r, &call, NULL) == CYRT_OK);
    ((double *)r.mem)[7] = 0.5;
    done(rt, h);
    CHECK(call.to_device == 0 && call.bytes_to_device == 0);
    CHECK(info(rt, h).residency == CYRT_RES_DEVICE);
    CHECK(arr[7] == 7.0);
    CHECK(cyrt_host_acquire(rt, h, CYRT_READ, &call, NULL) == CYRT_OK);
    CHECK(cyrt_host_acquire(rt, h, CYRT_READ, &call, NULL) == CYRT_OK);
    CHECK(arr[7] == 0.5 && call.to_host == 1 && call.bytes_to_host == 800);
    /* a host write makes the device stale: the next device read uploads */
    CHECK(cyrt_host_acquire(rt, h, CYRT_WRITE, NULL, NULL) == CYRT_OK);
    arr[8] = 0.25;
    CHECK(info(rt, h).residency == CYRT_RES_HOST);
    r = dev(rt, h, CYRT_READ);
    CHECK(((double *)r.mem)[8] == 0.25);
    done(rt, h);
    cyrt_stats(rt, &st);
    CHECK(st.to_device == 2 && st.to_host == 1);
    CHECK(f.allocs == 1); /* the buffer was kept */
    /* releasing a device-dirty region copies it back */
    r = dev(rt, h, CYRT_WRITE);
    ((double *)r.mem)[9] = -9.0;
    done(rt, h);
    rel(rt, h);
    CHECK(arr[9] == -9.0 && f.live == 0);
    /* sync_all brings every dirty region back and keeps the device copy */
    cyrt_handle *x = reg1(rt, arr, 10, 8, 8), *y = reg1(rt, arr + 50, 10, 8, 8);
    r = dev(rt, x, CYRT_WRITE);
    ((double *)r.mem)[0] = 100.0;
    done(rt, x);
    r = dev(rt, y, CYRT_WRITE);
    ((double *)((char *)r.mem + r.byte_offset))[0] = 150.0;
    done(rt, y);
    CHECK(cyrt_sync_all(rt, NULL, NULL) == CYRT_OK);
    CHECK(arr[0] == 100.0 && arr[50] == 150.0);
    CHECK(info(rt, x).residency == CYRT_RES_BOTH && info(rt, y).residency == CYRT_RES_BOTH);
    rel(rt, x);
    rel(rt, y);
    free_rt(rt, &f);
}

static void test_shrink(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    fill();
    cyrt_handle *whole = reg1(rt, arr, 100, 8, 8);
    cyrt_handle *p = reg1(rt, arr + 10, 10, 8, 8);
    cyrt_handle *q = reg1(rt, arr + 60, 10, 8, 8);
    cyrt_devref r = dev(rt, whole, CYRT_WRITE);
    ((double *)r.mem)[12] = -12.0;
    ((double *)r.mem)[65] = -65.0;
    ((double *)r.mem)[40] = -40.0; /* in neither child */
    done(rt, whole);
    rel(rt, whole);
    /* two regions now, each with its own buffer, the data still on the device */
    CHECK(reginfo(rt).tops == 2 && reginfo(rt).device_buffers == 2);
    CHECK(info(rt, p).top == info(rt, p).region && info(rt, p).residency == CYRT_RES_DEVICE);
    /* the released view's bytes outside both came back; the children's did not */
    CHECK(arr[40] == -40.0 && arr[12] == 12.0 && arr[65] == 65.0);
    CHECK(cyrt_host_acquire(rt, p, CYRT_READ, NULL, NULL) == CYRT_OK);
    CHECK(cyrt_host_acquire(rt, q, CYRT_READ, NULL, NULL) == CYRT_OK);
    CHECK(arr[12] == -12.0 && arr[65] == -65.0);
    rel(rt, p);
    rel(rt, q);

    /* a locked top shrinks only when the lock goes */
    whole = reg1(rt, arr, 100, 8, 8);
    p = reg1(rt, arr + 10, 10, 8, 8);
    r = dev(rt, p, CYRT_READ);
    rel(rt, whole);
    CHECK(info(rt, p).top_hi == (uintptr_t)(arr + 100));
    done(rt, p);
    CHECK(info(rt, p).top_hi == (uintptr_t)(arr + 20));
    rel(rt, p);
    free_rt(rt, &f);
}

static void test_edges(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    fill();
    /* empty views move nothing */
    ptrdiff_t shape[2] = {3, 0}, strides[2] = {80, 8};
    cyrt_handle *e = NULL;
    CHECK(cyrt_register(rt, arr, 2, shape, strides, 8, &e, NULL, NULL) == CYRT_OK && e);
    unsigned m = CYRT_RW;
    cyrt_devref r = {(void *)1, 1, 1};
    CHECK(cyrt_device_acquire(rt, 1, &e, &m, &r, NULL, NULL) == CYRT_OK && r.mem == NULL);
    done(rt, e);
    CHECK(reginfo(rt).tops == 0 && reginfo(rt).handles == 1);
    rel(rt, e);
    /* invalid views */
    ptrdiff_t neg = -1, st8 = 8, huge = PTRDIFF_MAX / 2;
    CHECK(cyrt_register(rt, arr, 1, &neg, &st8, 8, &e, NULL, NULL) == CYRT_EINVAL && !e);
    CHECK(cyrt_register(rt, arr, 1, &huge, &huge, 8, &e, NULL, NULL) == CYRT_EINVAL);
    CHECK(cyrt_register(rt, arr, 1, &st8, &st8, 0, &e, NULL, NULL) == CYRT_EINVAL);
    /* adjacent views do not overlap: two regions */
    cyrt_handle *a = reg1(rt, arr, 10, 8, 8), *b = reg1(rt, arr + 10, 10, 8, 8);
    CHECK(reginfo(rt).tops == 2);
    /* unaligned data: no element offset */
    cyrt_handle *u = reg1(rt, (char *)(arr + 30) + 4, 4, 8, 8);
    r = dev(rt, u, CYRT_READ);
    CHECK(r.elem_offset == SIZE_MAX && r.byte_offset % 8 == 4);
    done(rt, u);
    rel(rt, u);
    /* a failing device allocation leaves the host copy as it was */
    f.fail_pct = 100;
    cyrt_err err;
    m = CYRT_WRITE;
    CHECK(cyrt_device_acquire(rt, 1, &a, &m, &r, NULL, &err) == CYRT_EBACKEND);
    CHECK(strstr(err.msg, "allocating") != NULL && err.code == -4);
    CHECK(info(rt, a).residency == CYRT_RES_HOST);
    f.fail_pct = 0;
    /* a batch with both views: all or nothing, and a thread's merge of a
     * region it holds is refused */
    cyrt_handle *hs[2] = {a, b};
    unsigned ms[2] = {CYRT_READ, CYRT_WRITE};
    cyrt_devref rs[2];
    CHECK(cyrt_device_acquire(rt, 2, hs, ms, rs, NULL, NULL) == CYRT_OK);
    cyrt_handle *c = NULL;
    ptrdiff_t n15 = 15;
    CHECK(cyrt_register(rt, arr + 5, 1, &n15, &st8, 8, &c, NULL, &err) == CYRT_EBUSY && !c);
    cyrt_device_done(rt, 2, hs);
    CHECK(info(rt, a).residency == CYRT_RES_BOTH && info(rt, b).residency == CYRT_RES_DEVICE);
    /* handles left registered are freed with the runtime, dirty data copied back */
    ((double *)((char *)rs[1].mem + rs[1].byte_offset))[0] = 1234.0;
    CHECK(cyrt_rt_free(rt, NULL) == CYRT_OK);
    CHECK(arr[10] == 1234.0 && f.live == 0);
}

/* Another thread needing a locked region waits until it is done. */
typedef struct {
    cyrt_rt *rt;
    cyrt_handle *h;
    volatile int finished;
} Waiter;

static void *waiter(void *p) {
    Waiter *w = p;
    cyrt_host_acquire(w->rt, w->h, CYRT_READ, NULL, NULL);
    __atomic_store_n(&w->finished, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void test_threads(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    fill();
    cyrt_handle *h = reg1(rt, arr, 100, 8, 8);
    cyrt_devref r = dev(rt, h, CYRT_WRITE);
    Waiter w = {rt, h, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, waiter, &w) == 0);
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK(__atomic_load_n(&w.finished, __ATOMIC_SEQ_CST) == 0);
    ((double *)r.mem)[3] = -3.0;
    done(rt, h);
    pthread_join(t, NULL);
    CHECK(w.finished == 1 && arr[3] == -3.0);
    rel(rt, h);
    free_rt(rt, &f);
}

/* ---- the randomized model test ------------------------------------------------------ */

enum { NARR = 3, ASIZE = 512, MAXV = 12 };

/* what the sequences exercised, printed at the end */
static struct {
    unsigned long seqs, steps, merges, shrinks, copies, uploads, downloads, injected;
} cover;

typedef struct {
    uint64_t s;
} Rng;

static uint64_t rnd(Rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static long rin(Rng *r, long lo, long hi) { return lo + (long)(rnd(r) % (uint64_t)(hi - lo + 1)); }

typedef struct {
    int arr, ndim;
    ptrdiff_t off; /* byte offset of the first element in its array */
    ptrdiff_t shape[2], strides[2];
    size_t item;
    cyrt_handle *h;
} View;

typedef struct {
    unsigned char *host[NARR]; /* the real memory the runtime manages */
    unsigned char model[NARR][ASIZE];
    View v[MAXV];
    int nv;
    unsigned seed;
    int step;
    const char *op;
    int bad;
    int shared;
} Model;

static void diverge(Model *m, const char *what, int arrno, long pos) {
    if (m->bad++ == 0)
        fprintf(stderr, "model divergence: seed %u step %d op %s: %s (array %d, byte %ld)\n",
                m->seed, m->step, m->op, what, arrno, pos);
}

static void extent(const View *v, ptrdiff_t *lo, ptrdiff_t *hi) {
    ptrdiff_t a = 0, b = 0;
    for (int d = 0; d < v->ndim; d++) {
        ptrdiff_t s = (v->shape[d] - 1) * v->strides[d];
        if (s < 0)
            a += s;
        else
            b += s;
    }
    *lo = v->off + a;
    *hi = v->off + b + (ptrdiff_t)v->item;
}

static int new_view(Rng *r, View *v) {
    memset(v, 0, sizeof *v);
    static const size_t items[] = {1, 2, 4, 8};
    v->arr = (int)rin(r, 0, NARR - 1);
    v->item = items[rin(r, 0, 3)];
    v->ndim = (int)rin(r, 1, 2);
    for (int tries = 0; tries < 50; tries++) {
        if (v->ndim == 1) {
            v->shape[0] = rin(r, 1, rin(r, 0, 3) == 0 ? 200 : 40);
            v->strides[0] = (ptrdiff_t)v->item * rin(r, -3, 3);
        } else {
            v->shape[0] = rin(r, 1, 8);
            v->shape[1] = rin(r, 1, 8);
            v->strides[1] = (ptrdiff_t)v->item * rin(r, -2, 2);
            /* rows apart, touching, or overlapping each other */
            ptrdiff_t row = v->shape[1] * (v->strides[1] < 0 ? -v->strides[1] : v->strides[1]);
            v->strides[0] = (row + (ptrdiff_t)v->item * rin(r, -3, 6)) * (rin(r, 0, 3) ? 1 : -1);
        }
        v->off = 0;
        ptrdiff_t lo, hi;
        extent(v, &lo, &hi); /* lo <= 0: the lowest byte relative to the first element */
        if (hi - lo > ASIZE)
            continue;
        /* where the extent starts; the first element mostly aligned to the item size */
        ptrdiff_t at = rin(r, 0, ASIZE - (hi - lo));
        v->off = at - lo;
        if (rin(r, 0, 7))
            v->off -= v->off % (ptrdiff_t)v->item;
        extent(v, &lo, &hi);
        if (lo >= 0 && hi <= ASIZE)
            return 1;
    }
    return 0;
}

/* Runs body with pos = the byte position (in its array) of every element, row-major. */
#define EACH_ELEM(v, pos, body)                                                                    \
    do {                                                                                           \
        ptrdiff_t n1_ = (v)->ndim == 2 ? (v)->shape[1] : 1, s1_ = (v)->ndim == 2 ? (v)->strides[1] : 0; \
        for (ptrdiff_t i_ = 0; i_ < (v)->shape[0]; i_++)                                           \
            for (ptrdiff_t j_ = 0; j_ < n1_; j_++) {                                               \
                ptrdiff_t pos = (v)->off + i_ * (v)->strides[0] + j_ * s1_;                       \
                body                                                                               \
            }                                                                                      \
    } while (0)

static void check_structure(Model *m, cyrt_rt *rt) {
    cyrt_handle_info in[MAXV];
    for (int i = 0; i < m->nv; i++) {
        in[i] = info(rt, m->v[i].h);
        ptrdiff_t lo, hi;
        extent(&m->v[i], &lo, &hi);
        uintptr_t base = (uintptr_t)m->host[m->v[i].arr];
        if (in[i].lo != base + (uintptr_t)lo || in[i].hi != base + (uintptr_t)hi)
            diverge(m, "a view's region is not its extent", m->v[i].arr, lo);
        if (in[i].top_lo > in[i].lo || in[i].top_hi < in[i].hi)
            diverge(m, "a region is outside its top", m->v[i].arr, lo);
    }
    for (int i = 0; i < m->nv; i++)
        for (int j = 0; j < i; j++) {
            int overlap = in[i].lo < in[j].hi && in[j].lo < in[i].hi;
            if (overlap && in[i].top != in[j].top)
                diverge(m, "overlapping views in different regions", m->v[i].arr, 0);
            if (in[i].lo == in[j].lo && in[i].hi == in[j].hi && in[i].region != in[j].region)
                diverge(m, "views with one extent on two records", m->v[i].arr, 0);
            if (!overlap && in[i].top == in[j].top && (in[i].top_hi <= in[j].lo || in[j].top_hi <= in[i].lo))
                diverge(m, "a top does not contain its views", m->v[i].arr, 0);
        }
    cyrt_registry_info ri = reginfo(rt);
    if (!m->shared && ri.handles != (size_t)m->nv)
        diverge(m, "handle count", -1, (long)ri.handles);
}

static void check_all_bytes(Model *m) {
    for (int a = 0; a < NARR; a++)
        for (int i = 0; i < ASIZE; i++)
            if (m->host[a][i] != m->model[a][i]) {
                diverge(m, "host byte differs from the model", a, i);
                return;
            }
}

/* CYRT_TEST_TRACE=1: every step of a sequence with the views and their regions */
static void dump_step(Model *m, cyrt_rt *rt) {
    fprintf(stderr, "step %d %s\n", m->step, m->op);
    for (int i = 0; i < m->nv; i++) {
        const View *v = &m->v[i];
        cyrt_handle_info in = info(rt, v->h);
        uintptr_t b = (uintptr_t)m->host[v->arr];
        fprintf(stderr, "  v%d arr%d off %td item %zu shape (%td,%td) strides (%td,%td) region "
                        "[%td,%td) top %p [%td,%td) res %d\n",
                i, v->arr, v->off, v->item, v->shape[0], v->ndim == 2 ? v->shape[1] : 0,
                v->strides[0], v->ndim == 2 ? v->strides[1] : 0, (ptrdiff_t)(in.lo - b),
                (ptrdiff_t)(in.hi - b), in.top, (ptrdiff_t)(in.top_lo - b), (ptrdiff_t)(in.top_hi - b),
                in.residency);
    }
}

/* One sequence on rt; shared: other threads use rt at the same time (on
 * other arrays), so the runtime-wide counts are not this sequence's.
 * Returns the number of divergences. */
static int run_on(unsigned seed, int nsteps, cyrt_rt *rt, Fake *fk, int shared) {
    const char *tr = getenv("CYRT_TEST_TRACE");
    int trace = tr && *tr == '1' && !shared;
    Rng r = {seed * 0x2545F4914F6CDD1Dull + 1};
#define f (*fk) /* the fake device, as in the directed tests */
    Model *m = calloc(1, sizeof *m);
    m->shared = shared;
    m->seed = seed;
    for (int a = 0; a < NARR; a++) {
        m->host[a] = aligned_alloc(128, ASIZE);
        for (int i = 0; i < ASIZE; i++)
            m->host[a][i] = m->model[a][i] = (unsigned char)rnd(&r);
    }
    for (m->step = 0; m->step < nsteps && !m->bad; m->step++) {
        long op = rin(&r, 0, 99);
        if (m->nv == 0 || (op < 22 && m->nv < MAXV)) {
            m->op = "register";
            View *v = &m->v[m->nv];
            if (!new_view(&r, v))
                continue;
            cyrt_err err;
            size_t tops_before = reginfo(rt).tops;
            cyrt_status st = cyrt_register(rt, m->host[v->arr] + v->off, v->ndim, v->shape,
                                           v->strides, v->item, &v->h, NULL, &err);
            if (st != CYRT_OK) {
                diverge(m, err.msg, v->arr, v->off);
                break;
            }
            if (!shared)
                cover.merges += reginfo(rt).tops < tops_before;
            m->nv++;
        } else if (op < 34) {
            m->op = "release";
            int k = (int)rin(&r, 0, m->nv - 1);
            cyrt_err err;
            size_t tops_before = reginfo(rt).tops, recs_before = reginfo(rt).records;
            if (cyrt_release(rt, m->v[k].h, NULL, &err) != CYRT_OK)
                diverge(m, err.msg, m->v[k].arr, 0);
            cyrt_registry_info after = reginfo(rt);
            if (!shared)
                cover.shrinks += after.tops > tops_before ||
                                 (after.tops == tops_before && after.records + 1 < recs_before);
            m->v[k] = m->v[--m->nv];
        } else if (op < 50) {
            m->op = "host read";
            View *v = &m->v[rin(&r, 0, m->nv - 1)];
            int on_host = (info(rt, v->h).residency & CYRT_RES_HOST) != 0;
            uint64_t reads = shared ? 0 : f.reads;
            if (cyrt_host_acquire(rt, v->h, CYRT_READ, NULL, NULL) != CYRT_OK) {
                diverge(m, "host acquire failed", v->arr, 0);
                break;
            }
            if (!shared && on_host != (f.reads == reads))
                diverge(m, "a copy back that was not needed, or one missing", v->arr, 0);
            EACH_ELEM(v, pos, {
                if (memcmp(m->host[v->arr] + pos, m->model[v->arr] + pos, v->item) != 0)
                    diverge(m, "host read differs", v->arr, (long)pos);
            });
        } else if (op < 62) {
            m->op = "host write";
            View *v = &m->v[rin(&r, 0, m->nv - 1)];
            if (cyrt_host_acquire(rt, v->h, CYRT_WRITE, NULL, NULL) != CYRT_OK) {
                diverge(m, "host acquire failed", v->arr, 0);
                break;
            }
            EACH_ELEM(v, pos, {
                for (size_t b = 0; b < v->item; b++)
                    m->host[v->arr][pos + (ptrdiff_t)b] = m->model[v->arr][pos + (ptrdiff_t)b] =
                        (unsigned char)rnd(&r);
            });
        } else if (op < 94) {
            /* device reads and writes, one view or a batch of two */
            int nb = rin(&r, 0, 3) == 0 && m->nv > 1 ? 2 : 1;
            View *vs[2];
            cyrt_handle *hs[2];
            unsigned modes[2];
            for (int b = 0; b < nb; b++) {
                vs[b] = &m->v[rin(&r, 0, m->nv - 1)];
                hs[b] = vs[b]->h;
                modes[b] = (unsigned)rin(&r, 1, 3);
            }
            m->op = nb == 2 ? "device batch" : modes[0] == CYRT_READ ? "device read"
                                            : modes[0] == CYRT_WRITE ? "device write"
                                                                     : "device rw";
            cyrt_devref refs[2];
            cyrt_err err;
            int all_on_dev = 1;
            for (int b = 0; b < nb; b++)
                all_on_dev &= (info(rt, hs[b]).residency & CYRT_RES_DEVICE) != 0;
            uint64_t writes = shared ? 0 : f.writes;
            cyrt_status st = cyrt_device_acquire(rt, (size_t)nb, hs, modes, refs, NULL, &err);
            if (!shared && all_on_dev && f.writes != writes)
                diverge(m, "data moved to a device that had it", vs[0]->arr, 0);
            if (st != CYRT_OK) {
                if (!f.fail_pct || st != CYRT_EBACKEND)
                    diverge(m, err.msg, vs[0]->arr, 0);
                if (!shared)
                    cover.injected++;
                continue; /* an injected failure: nothing moved, nothing to check */
            }
            for (int b = 0; b < nb; b++) {
                View *v = vs[b];
                unsigned char *dv = (unsigned char *)refs[b].mem + refs[b].byte_offset;
                int aligned = ((uintptr_t)(m->host[v->arr] + v->off)) % v->item == 0;
                if (refs[b].elem_offset != (aligned ? refs[b].byte_offset / v->item : SIZE_MAX))
                    diverge(m, "element offset", v->arr, (long)v->off);
                EACH_ELEM(v, pos, {
                    unsigned char *d = dv + (pos - v->off);
                    if (memcmp(d, m->model[v->arr] + pos, v->item) != 0)
                        diverge(m, "device read differs", v->arr, (long)pos);
                });
            }
            for (int b = 0; b < nb; b++) {
                View *v = vs[b];
                if (!(modes[b] & CYRT_WRITE))
                    continue;
                unsigned char *dv = (unsigned char *)refs[b].mem + refs[b].byte_offset;
                EACH_ELEM(v, pos, {
                    unsigned char *d = dv + (pos - v->off);
                    for (size_t q = 0; q < v->item; q++)
                        d[q] = m->model[v->arr][pos + (ptrdiff_t)q] = (unsigned char)rnd(&r);
                });
            }
            cyrt_device_done(rt, (size_t)nb, hs);
        } else {
            m->op = "sync all";
            if (cyrt_sync_all(rt, NULL, NULL) != CYRT_OK)
                diverge(m, "sync failed", -1, 0);
            check_all_bytes(m);
        }
        check_structure(m, rt);
        if (trace)
            dump_step(m, rt);
    }
    /* the end: sync, every byte; then release everything in random order */
    m->op = "final sync";
    if (cyrt_sync_all(rt, NULL, NULL) != CYRT_OK)
        diverge(m, "sync failed", -1, 0);
    check_all_bytes(m);
    m->op = "final release";
    while (m->nv > 0) {
        int k = (int)rin(&r, 0, m->nv - 1);
        cyrt_release(rt, m->v[k].h, NULL, NULL);
        m->v[k] = m->v[--m->nv];
    }
    check_all_bytes(m);
    if (!shared) {
        cyrt_registry_info ri = reginfo(rt);
        if (ri.tops || ri.records || ri.handles || ri.device_buffers || f.live)
            diverge(m, "regions or buffers left after the last release", -1, (long)ri.tops);
        cover.seqs++;
        cover.steps += (unsigned long)m->step;
        cover.copies += f.copies;
        cover.uploads += f.writes;
        cover.downloads += f.reads;
    }
    if (f.bad)
        diverge(m, "a transfer outside its device buffer", -1, f.bad);
#undef f
    int bad = m->bad;
    for (int a = 0; a < NARR; a++)
        free(m->host[a]);
    free(m);
    return bad;
}

static void run_sequence(unsigned seed, int nsteps) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    f.rng = seed | 1;
    f.fail_pct = seed % 3 == 0 ? 3 : 0; /* some sequences with failing allocations and copies */
    CHECK(run_on(seed, nsteps, rt, &f, 0) == 0);
    cyrt_rt_free(rt, NULL);
}

/* ---- threads sharing one runtime -------------------------------------------------- */

typedef struct {
    cyrt_rt *rt;
    Fake *f;
    unsigned first;
    int nseq, bad;
    cyrt_handle *counter; /* one long, incremented on the device by every thread */
    long done;
} Worker;

static void *worker(void *p) {
    Worker *w = p;
    for (int i = 0; i < w->nseq && !w->bad; i++) {
        w->bad += run_on(w->first + (unsigned)i, 100, w->rt, w->f, 1);
        unsigned mode = CYRT_RW;
        cyrt_devref ref;
        if (cyrt_device_acquire(w->rt, 1, &w->counter, &mode, &ref, NULL, NULL) == CYRT_OK) {
            /* a lost update here would mean two threads held the region at once */
            volatile long *c = (long *)((char *)ref.mem + ref.byte_offset);
            long v = *c;
            sched_yield();
            *c = v + 1;
            cyrt_device_done(w->rt, 1, &w->counter);
            w->done++;
        }
        /* copies back, waiting while another thread holds it */
        if (i % 3 == 0 && cyrt_host_acquire(w->rt, w->counter, CYRT_READ, NULL, NULL) != CYRT_OK)
            w->bad++;
    }
    return NULL;
}

static void test_model_threads(void) {
    enum { NT = 4 };
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    f.fail_pct = 2;
    static long counter;
    counter = 0;
    ptrdiff_t one = 1, st = sizeof(long);
    cyrt_handle *ch = NULL;
    CHECK(cyrt_register(rt, &counter, 1, &one, &st, sizeof(long), &ch, NULL, NULL) == CYRT_OK);
    Worker w[NT];
    pthread_t t[NT];
    for (int i = 0; i < NT; i++) {
        w[i] = (Worker){rt, &f, 500000u + 1000u * (unsigned)i, 150, 0, ch, 0};
        CHECK(pthread_create(&t[i], NULL, worker, &w[i]) == 0);
    }
    long total = 0;
    for (int i = 0; i < NT; i++) {
        pthread_join(t[i], NULL);
        CHECK(w[i].bad == 0);
        total += w[i].done;
    }
    CHECK(cyrt_host_acquire(rt, ch, CYRT_READ, NULL, NULL) == CYRT_OK);
    CHECK(counter == total && total > 0);
    CHECK(cyrt_release(rt, ch, NULL, NULL) == CYRT_OK);
    cyrt_registry_info ri = reginfo(rt);
    CHECK(ri.tops == 0 && ri.handles == 0 && f.live == 0 && f.bad == 0);
    printf("threads: %d threads x %d sequences on one runtime, %ld device increments\n", NT,
           w[0].nseq, total);
    cyrt_rt_free(rt, NULL);
}

static void test_model(void) {
    const char *one = getenv("CYRT_TEST_SEED");
    if (one && *one) {
        run_sequence((unsigned)strtoul(one, NULL, 10), 400);
        return;
    }
    int before = failures;
    for (unsigned s = 1; s <= 3000 && failures == before; s++)
        run_sequence(s, 150);
    for (unsigned s = 100001; s <= 100100 && failures == before; s++)
        run_sequence(s, 2000); /* a few long ones */
    printf("model: %lu sequences, %lu steps; %lu merges, %lu shrinks, %lu uploads, %lu "
           "downloads, %lu device copies, %lu injected device failures\n",
           cover.seqs, cover.steps, cover.merges, cover.shrinks, cover.uploads, cover.downloads,
           cover.copies, cover.injected);
    CHECK(cover.merges > 100 && cover.shrinks > 100 && cover.copies > 100 && cover.injected > 10);
}

/* ---- call scopes and residency across regions (scope.c) ------------------------------ */

static cyrt_handle *sview(cyrt_rt *rt, void *data, ptrdiff_t n, int *kept) {
    cyrt_handle *h = NULL;
    ptrdiff_t stride = sizeof(double);
    cyrt_err err;
    CHECK(cyrt_scope_view(rt, data, 1, &n, &stride, sizeof(double), &h, kept, NULL, &err) == CYRT_OK && h);
    return h;
}

/* the fake device's copy of element i of a view acquired at ref */
static double *on_dev(cyrt_devref ref, size_t i) { return (double *)((char *)ref.mem + ref.byte_offset) + i; }

static void test_scopes(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    const int *state = cyrt_state_word(rt);
    cyrt_err err;
    int kept;
    fill();

    /* outside a call: a fresh handle the caller owns */
    cyrt_handle *h = sview(rt, arr, 100, &kept);
    CHECK(!kept);
    rel(rt, h);
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_EINVAL);

    /* inside: one handle per view for the whole call */
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    cyrt_handle *a = sview(rt, arr, 100, &kept), *b;
    CHECK(kept);
    b = sview(rt, arr, 100, &kept);
    CHECK(b == a && kept);
    CHECK(*state == 0);
    cyrt_devref r = dev(rt, a, CYRT_WRITE);
    *on_dev(r, 3) = -3.0; /* "the kernel" */
    done(rt, a);
    CHECK(*state == (CYRT_STATE_DIRTY | CYRT_STATE_VALID), "state %d", *state);
    uint64_t uploads = f.writes;
    /* a second region reads it: nothing moves */
    r = dev(rt, a, CYRT_READ);
    done(rt, a);
    CHECK(f.writes == uploads && f.reads == 0);
    /* a host read brings it back, the device copy stays valid */
    CHECK(cyrt_host_use(rt, 0, NULL, &err) == CYRT_OK);
    CHECK(arr[3] == -3.0 && f.reads == 1 && *state == CYRT_STATE_VALID);
    /* a host write drops the device copy: the next region uploads again */
    CHECK(cyrt_host_use(rt, 1, NULL, &err) == CYRT_OK);
    CHECK(*state == 0);
    arr[4] = 44.0;
    r = dev(rt, a, CYRT_READ);
    CHECK(*on_dev(r, 4) == 44.0 && f.writes == uploads + 1);
    done(rt, a);
    /* a nested call's views go when it returns, the outer's stay */
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    cyrt_handle *c = sview(rt, arr + 10, 20, &kept);
    CHECK(kept && c != a);
    CHECK(reginfo(rt).handles == 2);
    r = dev(rt, c, CYRT_WRITE);
    *on_dev(r, 0) = 1010.0;
    done(rt, c);
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);
    CHECK(reginfo(rt).handles == 1 && arr[10] == 1010.0 && *state == 0);
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);
    CHECK(reginfo(rt).handles == 0 && reginfo(rt).tops == 0);

    /* resident views keep their region on the device across calls */
    fill();
    cyrt_handle *res = reg1(rt, arr, 100, sizeof(double), sizeof(double));
    cyrt_handle_set_flags(rt, res, CYRT_HF_RESIDENT);
    for (int call = 0; call < 3; call++) {
        CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
        a = sview(rt, arr + 50, 50, &kept);
        r = dev(rt, a, CYRT_RW);
        *on_dev(r, 0) += 1.0;
        done(rt, a);
        CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);
    }
    CHECK(f.reads == 2 && arr[50] == 50.0, "reads %llu", (unsigned long long)f.reads); /* nothing came back */
    CHECK(*state & CYRT_STATE_DIRTY);
    CHECK(cyrt_host_acquire(rt, res, CYRT_READ, NULL, &err) == CYRT_OK);
    CHECK(arr[50] == 53.0);
    rel(rt, res);

    /* memory given back: its regions come back first and lose the device copy */
    fill();
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    a = sview(rt, arr, 100, &kept);
    r = dev(rt, a, CYRT_WRITE);
    *on_dev(r, 99) = -99.0;
    done(rt, a);
    ptrdiff_t n = 100, st = sizeof(double);
    CHECK(cyrt_host_extent(rt, arr, 1, &n, &st, sizeof(double), NULL, &err) == CYRT_OK);
    CHECK(arr[99] == -99.0 && *state == 0);
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);

    /* a failed launch: the host copy from before it is the valid one again */
    fill();
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    a = sview(rt, arr, 100, &kept);
    unsigned m = CYRT_RW;
    CHECK(cyrt_device_acquire(rt, 1, &a, &m, &r, NULL, &err) == CYRT_OK);
    *on_dev(r, 7) = 777.0; /* half a kernel */
    cyrt_device_abandon(rt, 1, &a);
    CHECK(*state == 0);
    CHECK(cyrt_host_use(rt, 1, NULL, &err) == CYRT_OK);
    CHECK(arr[7] == 7.0);
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);
    CHECK(reginfo(rt).handles == 0);

    /* the quick leave: only where nothing is registered and nothing is to
     * report, and never a level that is not open */
    CHECK(!cyrt_scope_leave_quick(rt));
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    CHECK(cyrt_scope_leave_quick(rt) == 1);
    CHECK(cyrt_scope_leave_quick(rt) == 1);
    CHECK(!cyrt_scope_leave_quick(rt));
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_EINVAL);
    /* a view of this call's: the full leave, which brings the data back */
    fill();
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    a = sview(rt, arr, 100, &kept);
    r = dev(rt, a, CYRT_WRITE);
    *on_dev(r, 5) = -5.0;
    done(rt, a);
    CHECK(!cyrt_scope_leave_quick(rt));
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);
    CHECK(arr[5] == -5.0 && reginfo(rt).handles == 0 && reginfo(rt).tops == 0);
    /* anything registered elsewhere (a resident() block): the full leave */
    cyrt_handle *other = reg1(rt, arr, 100, sizeof(double), sizeof(double));
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    CHECK(!cyrt_scope_leave_quick(rt));
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);
    rel(rt, other);
    /* a warning to hand over: the full leave (its wrapper gives it to Python) */
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    cyrt_warning(rt, "something to say");
    CHECK(!cyrt_scope_leave_quick(rt));
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);
    free(cyrt_warnings_take(rt));
    free_rt(rt, &f);
}

/* A temporary array inside a call (tests/opencl/residency.pyx's
 * _fill_and_sum): written on the device, its memory given back, and the
 * next temporary allocated at an overlapping address.  The call must not
 * keep a record of the freed memory: a merge with it would span bytes no
 * live view owns (here arr[90..98), the allocator's after the first free),
 * and the copy back of the merged region would write stale device bytes
 * over them (glibc: "corrupted double-linked list" on PoCL). */
static void test_memory_reuse(void) {
    Fake f;
    cyrt_rt *rt = fake_rt(&f);
    cyrt_err err;
    int kept;
    ptrdiff_t n = 90, st = sizeof(double);
    fill();
    CHECK(cyrt_scope_enter(rt, &err) == CYRT_OK);
    for (int round = 0; round < 2; round++) {
        double *t = arr + (round == 0 ? 8 : 0); /* the second one 64 bytes lower */
        cyrt_handle *h = sview(rt, t, n, &kept);
        CHECK(kept);
        cyrt_devref r = dev(rt, h, CYRT_WRITE);
        for (int i = 0; i < n; i++)
            *on_dev(r, (size_t)i) = 1000.0 * (round + 1) + i;
        done(rt, h);
        if (round == 1)
            arr[92] = -1.0; /* past t's end, in the first one's freed memory: the allocator's */
        CHECK(cyrt_host_extent(rt, t, 1, &n, &st, sizeof(double), NULL, &err) == CYRT_OK);
        CHECK(round == 0 || arr[92] == -1.0, "the copy back wrote %g over memory no view owns", arr[92]);
        CHECK(t[0] == 1000.0 * (round + 1) && t[n - 1] == 1000.0 * (round + 1) + n - 1);
        /* the memory is gone, and with it every record of it */
        CHECK(reginfo(rt).handles == 0 && reginfo(rt).tops == 0, "round %d: %zu handles, %zu tops", round,
              reginfo(rt).handles, reginfo(rt).tops);
    }
    /* memory that lives on after its view went registers again */
    cyrt_handle *h = sview(rt, arr, 100, &kept);
    CHECK(kept && reginfo(rt).handles == 1);
    cyrt_devref r = dev(rt, h, CYRT_RW);
    *on_dev(r, 99) = -99.0;
    done(rt, h);
    CHECK(cyrt_scope_leave(rt, NULL, &err) == CYRT_OK);
    CHECK(arr[99] == -99.0 && reginfo(rt).handles == 0 && reginfo(rt).tops == 0);
    free_rt(rt, &f);
}

/* A backend that stages copies of 400 bytes or more (as device.c does from
 * 8 MiB): the counts keep the staged copies apart (the dispatcher refines
 * each path's bandwidth from its own copies). */
static int fk_staged(void *ctx, size_t bytes) {
    (void)ctx;
    return bytes >= 400;
}

static void test_staged_counts(void) {
    Fake f;
    memset(&f, 0, sizeof f);
    cyrt_membackend be = {&f, fk_alloc, fk_free, fk_write, fk_read, fk_copy, NULL, fk_staged};
    cyrt_config cfg = {.backend = &be, .quiet = 1};
    cyrt_rt *rt = NULL;
    CHECK(cyrt_rt_new(&cfg, &rt) == CYRT_OK);
    static double small[10];
    fill();
    cyrt_handle *hs[2] = {reg1(rt, arr, 100, 8, 8), reg1(rt, small, 10, 8, 8)};
    unsigned modes[2] = {CYRT_READ | CYRT_WRITE, CYRT_READ | CYRT_WRITE};
    cyrt_devref refs[2];
    cyrt_xfer x = {0};
    CHECK(cyrt_device_acquire(rt, 2, hs, modes, refs, &x, NULL) == CYRT_OK);
    cyrt_device_done(rt, 2, hs);
    CHECK(x.to_device == 2 && x.bytes_to_device == 880, "%llu %llu", (unsigned long long)x.to_device,
          (unsigned long long)x.bytes_to_device);
    CHECK(x.staged_to_device == 1 && x.staged_bytes_to_device == 800 && x.staged_ns_to_device <= x.ns_to_device,
          "staged up: %llu copies, %llu bytes", (unsigned long long)x.staged_to_device,
          (unsigned long long)x.staged_bytes_to_device);
    for (int i = 0; i < 2; i++)
        CHECK(cyrt_release(rt, hs[i], &x, NULL) == CYRT_OK);
    CHECK(x.to_host == 2 && x.bytes_to_host == 880 && x.staged_to_host == 1 && x.staged_bytes_to_host == 800 &&
              x.staged_ns_to_host <= x.ns_to_host,
          "back: %llu staged of %llu", (unsigned long long)x.staged_bytes_to_host,
          (unsigned long long)x.bytes_to_host);
    cyrt_xfer st;
    cyrt_stats(rt, &st);
    CHECK(st.staged_bytes_to_device == 800 && st.staged_bytes_to_host == 800, "the runtime's totals too");
    free_rt(rt, &f);
}

int main(void) {
    test_staged_counts();
    test_scopes();
    test_memory_reuse();
    test_same_extent();
    test_containment();
    test_merge();
    test_residency();
    test_shrink();
    test_edges();
    test_threads();
    test_model();
    test_model_threads();
    printf("test_registry: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
