/* registry.c: the process-wide registry of host memory regions and where
 * their valid copy lives (DESIGN §4; the rules as implemented are in
 * docs/runtime.md).
 *
 * Top-level regions are disjoint byte extents kept sorted in rt->tops;
 * each owns the residency (host_valid / dev_valid) and at most one device
 * buffer that mirrors its extent.  A view registers on the record with
 * exactly its extent: a top, or a child inside a top (children are flat
 * and share the top's buffer).  Every entry point takes rt->lock. */
#include "internal.h"
#include "cyocl_api.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- records ---------------------------------------------------------------------- */

static cyrt_region *region_new(uintptr_t lo, uintptr_t hi) {
    cyrt_region *r = calloc(1, sizeof *r);
    if (r) {
        r->lo = lo;
        r->hi = hi;
        r->org = lo & ~(CYRT_ALIGN - 1);
        r->host_valid = 1;
    }
    return r;
}

static cyrt_region *top_of(cyrt_region *r) { return r->top ? r->top : r; }

static int pinned_by_other(const cyrt_region *t) {
    return t->pins > 0 && !pthread_equal(t->pin_owner, pthread_self());
}

static int grow(void *pp, size_t *cap, size_t need, size_t size) {
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    void *p = realloc(*(void **)pp, n * size);
    if (!p)
        return -1;
    *(void **)pp = p;
    *cap = n;
    return 0;
}

static int tops_reserve(cyrt_rt *rt, size_t extra) {
    return grow(&rt->tops, &rt->captops, rt->ntops + extra, sizeof *rt->tops);
}

static int kids_reserve(cyrt_region *t, size_t extra) {
    return grow(&t->kids, &t->capkids, t->nkids + extra, sizeof *t->kids);
}

static void kid_remove(cyrt_region *t, cyrt_region *r) {
    for (size_t i = 0; i < t->nkids; i++)
        if (t->kids[i] == r) {
            t->kids[i] = t->kids[--t->nkids];
            return;
        }
}

/* First top whose extent ends after x (tops are disjoint and sorted, so
 * their ends are sorted too). */
static size_t first_after(const cyrt_rt *rt, uintptr_t x) {
    size_t a = 0, b = rt->ntops;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (rt->tops[m]->hi > x)
            b = m;
        else
            a = m + 1;
    }
    return a;
}

static size_t top_index(const cyrt_rt *rt, const cyrt_region *t) {
    size_t i = first_after(rt, t->lo);
    while (rt->tops[i] != t)
        i++;
    return i;
}

/* Replaces tops[i, j) with the k regions in repl (room reserved by the caller). */
static void tops_splice(cyrt_rt *rt, size_t i, size_t j, cyrt_region *const *repl, size_t k) {
    memmove(rt->tops + i + k, rt->tops + j, (rt->ntops - j) * sizeof *rt->tops);
    if (k > 0)
        memcpy(rt->tops + i, repl, k * sizeof *repl);
    rt->ntops = rt->ntops - (j - i) + k;
}

/* ---- data movement ------------------------------------------------------------------- */

enum { TO_DEVICE, TO_HOST, ON_DEVICE };

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether the backend stages a copy of this size (lock held: rt->be). */
static int staged(cyrt_rt *rt, size_t bytes) { return rt->be.staged && rt->be.staged(rt->be.ctx, bytes); }

static void account(cyrt_rt *rt, cyrt_xfer *acc, int kind, size_t bytes, uint64_t ns) {
    cyrt_xfer *xs[2] = {&rt->stats, acc};
    int st = kind != ON_DEVICE && staged(rt, bytes);
    for (int i = 0; i < 2; i++) {
        cyrt_xfer *x = xs[i];
        if (!x)
            continue;
        if (kind == TO_DEVICE) {
            x->bytes_to_device += bytes, x->to_device++, x->ns_to_device += ns;
            if (st)
                x->staged_bytes_to_device += bytes, x->staged_to_device++, x->staged_ns_to_device += ns;
        } else if (kind == TO_HOST) {
            x->bytes_to_host += bytes, x->to_host++, x->ns_to_host += ns;
            if (st)
                x->staged_bytes_to_host += bytes, x->staged_to_host++, x->staged_ns_to_host += ns;
        } else {
            x->bytes_device_copy += bytes, x->device_copies++;
        }
    }
}

/* Time that belongs to a copy of bytes without being one (allocating or
 * freeing its buffer): into acc's copy time, on that copy's path. */
static void account_ns(cyrt_rt *rt, cyrt_xfer *acc, int kind, size_t bytes, uint64_t ns) {
    if (!acc)
        return;
    int st = staged(rt, bytes);
    if (kind == TO_DEVICE) {
        acc->ns_to_device += ns;
        if (st)
            acc->staged_ns_to_device += ns;
    } else {
        acc->ns_to_host += ns;
        if (st)
            acc->staged_ns_to_host += ns;
    }
}

static cyrt_status be_fail(cyrt_rt *rt, cyrt_err *err, int code, const char *what, size_t bytes) {
    const char *name = rt->be.error_name ? rt->be.error_name(code) : "backend error";
    cyrt_seterr(err, code, "%s %zu bytes: %s (%d)", what, bytes, name, code);
    return CYRT_EBACKEND;
}

static cyrt_status buf_alloc(cyrt_rt *rt, cyrt_region *t, cyrt_err *err) {
    if (t->buf)
        return CYRT_OK;
    size_t bytes = (size_t)(t->hi - t->org);
    int rc = rt->be.alloc(rt->be.ctx, bytes, &t->buf);
    if (rc != 0) {
        t->buf = NULL;
        return be_fail(rt, err, rc, "allocating a device buffer of", bytes);
    }
    t->bufsize = bytes;
    return CYRT_OK;
}

static void buf_drop(cyrt_rt *rt, cyrt_region *t) {
    if (t->buf)
        rt->be.free(rt->be.ctx, t->buf);
    t->buf = NULL;
    t->bufsize = 0;
    t->dev_valid = 0;
}

/* Host bytes [lo, hi) into t's buffer. */
static cyrt_status upload(cyrt_rt *rt, cyrt_region *t, uintptr_t lo, uintptr_t hi, cyrt_xfer *acc,
                          cyrt_err *err) {
    if (lo >= hi)
        return CYRT_OK;
    int drc = cyrt_drain_locked(rt);
    if (drc != 0)
        return be_fail(rt, err, drc, "waiting for an earlier kernel before copying to the device", hi - lo);
    uint64_t t0 = mono_ns();
    int rc = rt->be.write(rt->be.ctx, t->buf, lo - t->org, (const void *)lo, hi - lo);
    if (rc != 0)
        return be_fail(rt, err, rc, "copying to the device", hi - lo);
    account(rt, acc, TO_DEVICE, hi - lo, mono_ns() - t0);
    return CYRT_OK;
}

/* t's device bytes [lo, hi) back to the host. */
static cyrt_status download(cyrt_rt *rt, cyrt_region *t, uintptr_t lo, uintptr_t hi, cyrt_xfer *acc,
                            cyrt_err *err) {
    if (lo >= hi)
        return CYRT_OK;
    int drc = cyrt_drain_locked(rt);
    if (drc != 0)
        return be_fail(rt, err, drc, "waiting for an earlier kernel before copying back from the device", hi - lo);
    uint64_t t0 = mono_ns();
    int rc = rt->be.read(rt->be.ctx, t->buf, lo - t->org, (void *)lo, hi - lo);
    if (rc != 0)
        return be_fail(rt, err, rc, "copying back from the device", hi - lo);
    account(rt, acc, TO_HOST, hi - lo, mono_ns() - t0);
    return CYRT_OK;
}

/* Makes a top's host copy valid (a no-op unless only the device has it). */
static cyrt_status to_host(cyrt_rt *rt, cyrt_region *t, cyrt_xfer *acc, cyrt_err *err) {
    if (t->host_valid)
        return CYRT_OK;
    if (t->lost || !rt->have_be) {
        /* a forked child: the device that held the data is the parent's */
        cyrt_seterr(err, 0,
                    "an array's data was only on the OpenCL device when this process was forked "
                    "and could not be copied back before the fork (%s): it is lost in this process",
                    rt->fork_err.msg[0] ? rt->fork_err.msg : "no device");
        return CYRT_EBACKEND;
    }
    cyrt_status st = download(rt, t, t->lo, t->hi, acc, err);
    if (st == CYRT_OK)
        t->host_valid = 1;
    return st;
}

static cyrt_status d2d(cyrt_rt *rt, cyrt_region *from, cyrt_region *to, uintptr_t lo, uintptr_t hi,
                       cyrt_xfer *acc, cyrt_err *err) {
    int rc = cyrt_drain_locked(rt);
    if (rc != 0)
        return be_fail(rt, err, rc, "waiting for an earlier kernel before copying on the device", hi - lo);
    rc = rt->be.copy(rt->be.ctx, from->buf, lo - from->org, to->buf, lo - to->org, hi - lo);
    if (rc != 0)
        return be_fail(rt, err, rc, "copying on the device", hi - lo);
    account(rt, acc, ON_DEVICE, hi - lo, 0);
    return CYRT_OK;
}

/* The data of a merge: parts (sorted, disjoint, inside m) become m.  Where
 * some part's valid copy is on the device, m gets a buffer filled device to
 * device from the parts with a device copy and from the host for the rest
 * (m is then valid on the device, and on the host where every part was);
 * without a device copy, or if that fails, every part is brought to the
 * host and m starts on the host.  Parts' buffers are freed on success. */
static cyrt_status merge_data(cyrt_rt *rt, cyrt_region *m, cyrt_region *const *parts, size_t np,
                              cyrt_xfer *acc, cyrt_err *err) {
    int any_dev = 0, all_host = 1;
    for (size_t k = 0; k < np; k++) {
        any_dev |= parts[k]->dev_valid;
        all_host &= parts[k]->host_valid;
    }
    cyrt_status st = CYRT_OK;
    if (any_dev && rt->be.copy && buf_alloc(rt, m, NULL) == CYRT_OK) {
        uintptr_t cur = m->lo;
        for (size_t k = 0; k < np && st == CYRT_OK; k++) {
            cyrt_region *p = parts[k];
            st = upload(rt, m, cur, p->lo, acc, err);
            if (st == CYRT_OK)
                st = p->dev_valid ? d2d(rt, p, m, p->lo, p->hi, acc, err)
                                  : upload(rt, m, p->lo, p->hi, acc, err);
            cur = p->hi;
        }
        if (st == CYRT_OK)
            st = upload(rt, m, cur, m->hi, acc, err);
        if (st == CYRT_OK) {
            m->dev_valid = 1;
            m->host_valid = (unsigned char)all_host;
            for (size_t k = 0; k < np; k++)
                buf_drop(rt, parts[k]);
            return CYRT_OK;
        }
        buf_drop(rt, m);
    }
    for (size_t k = 0; k < np; k++)
        if ((st = to_host(rt, parts[k], acc, err)) != CYRT_OK)
            return st;
    for (size_t k = 0; k < np; k++)
        buf_drop(rt, parts[k]);
    m->host_valid = 1;
    m->dev_valid = 0;
    return CYRT_OK;
}

/* ---- placing an extent (rules 1-3) ------------------------------------------------ */

/* The record for extent [lo, hi): an existing one (rule 1), a new child of
 * the top containing it (rule 2), a new top, or a new region merged with
 * every top it overlaps (rules 2 and 3: the tops are disjoint, so the
 * overlapped ones are found in one pass and their union overlaps no other:
 * the cascade of rule 3 ends after this one step). */
static cyrt_status place(cyrt_rt *rt, uintptr_t lo, uintptr_t hi, cyrt_region **out, cyrt_xfer *acc,
                         cyrt_err *err) {
retry:;
    size_t i = first_after(rt, lo), j = i;
    while (j < rt->ntops && rt->tops[j]->lo < hi)
        j++;

    if (j == i) {
        cyrt_region *r = region_new(lo, hi);
        if (!r || tops_reserve(rt, 1) != 0) {
            free(r);
            return CYRT_ENOMEM;
        }
        tops_splice(rt, i, i, &r, 1);
        *out = r;
        return CYRT_OK;
    }

    cyrt_region *t = rt->tops[i];
    if (j == i + 1 && t->lo <= lo && hi <= t->hi) {
        if (t->lo == lo && t->hi == hi)
            return *out = t, CYRT_OK;
        for (size_t k = 0; k < t->nkids; k++)
            if (t->kids[k]->lo == lo && t->kids[k]->hi == hi)
                return *out = t->kids[k], CYRT_OK;
        cyrt_region *r = region_new(lo, hi);
        if (!r || kids_reserve(t, 1) != 0) {
            free(r);
            return CYRT_ENOMEM;
        }
        r->top = t;
        t->kids[t->nkids++] = r;
        *out = r;
        return CYRT_OK;
    }

    /* a merge: the buffers of the parts go away, so nobody may be using them */
    for (size_t k = i; k < j; k++) {
        if (pinned_by_other(rt->tops[k])) {
            pthread_cond_wait(&rt->unpinned, &rt->lock);
            goto retry;
        }
        if (rt->tops[k]->pins > 0) {
            cyrt_seterr(err, 0, "a view overlapping a region this thread holds on the device "
                                "was registered before cyrt_device_done");
            return CYRT_EBUSY;
        }
    }
    uintptr_t mlo = lo < rt->tops[i]->lo ? lo : rt->tops[i]->lo;
    uintptr_t mhi = hi > rt->tops[j - 1]->hi ? hi : rt->tops[j - 1]->hi;
    int exact = mlo == lo && mhi == hi;
    size_t nk = exact ? 0 : 1;
    for (size_t k = i; k < j; k++)
        nk += rt->tops[k]->nkids + (rt->tops[k]->refs > 0);
    cyrt_region *m = region_new(mlo, mhi);
    cyrt_region *r = exact ? m : region_new(lo, hi);
    if (!m || !r || kids_reserve(m, nk) != 0) {
        if (m)
            free(m->kids);
        free(m);
        if (r != m)
            free(r);
        return CYRT_ENOMEM;
    }
    cyrt_status st = merge_data(rt, m, rt->tops + i, j - i, acc, err);
    if (st != CYRT_OK) {
        buf_drop(rt, m);
        free(m->kids);
        free(m);
        if (r != m)
            free(r);
        return st;
    }
    for (size_t k = i; k < j; k++) {
        cyrt_region *p = rt->tops[k];
        for (size_t c = 0; c < p->nkids; c++) {
            p->kids[c]->top = m;
            m->kids[m->nkids++] = p->kids[c];
        }
        free(p->kids);
        if (p->refs > 0) {
            /* views still name it: it lives on as a child */
            p->kids = NULL;
            p->nkids = p->capkids = 0;
            p->top = m;
            m->kids[m->nkids++] = p;
        } else {
            free(p); /* a merged region of its own, views on none of it but its children */
        }
    }
    if (!exact) {
        r->top = m;
        m->kids[m->nkids++] = r;
    }
    tops_splice(rt, i, j, &m, 1);
    *out = r;
    return CYRT_OK;
}

/* ---- a top that lost its own views ----------------------------------------------- */

static int by_extent(const void *a, const void *b) {
    const cyrt_region *x = *(cyrt_region *const *)a, *y = *(cyrt_region *const *)b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->hi > y->hi ? -1 : x->hi < y->hi; /* the container first */
}

/* Frees a top with no views left, copying a device-only copy back first;
 * or shrinks one whose children remain to the regions they make among
 * themselves (each overlapping group of children becomes a top: the child
 * containing the group, or a merged region spanning it).  The data follows
 * device to device where the device copy is valid, else stays on the host.
 * A top locked by a device acquisition is left alone: cyrt_device_done
 * settles it. */
static cyrt_status settle(cyrt_rt *rt, cyrt_region *t, cyrt_xfer *acc, cyrt_err *err) {
    if (t->refs > 0 || t->pins > 0)
        return CYRT_OK;
    if (t->nkids == 0) {
        cyrt_status st = to_host(rt, t, acc, err);
        /* freeing the buffer is part of what the data's round trip cost
         * (the dispatcher's device times leave it out) */
        uint64_t t0 = acc && t->buf ? mono_ns() : 0;
        buf_drop(rt, t);
        if (t0)
            account_ns(rt, acc, TO_HOST, (size_t)(t->hi - t->lo), mono_ns() - t0);
        size_t at = top_index(rt, t);
        tops_splice(rt, at, at + 1, NULL, 0);
        free(t->kids);
        free(t);
        return st;
    }

    qsort(t->kids, t->nkids, sizeof *t->kids, by_extent);
    size_t ncomp = 0;
    uintptr_t end = 0;
    for (size_t k = 0; k < t->nkids; k++) {
        if (k == 0 || t->kids[k]->lo >= end)
            ncomp++;
        if (k == 0 || t->kids[k]->hi > end)
            end = t->kids[k]->hi;
    }
    if (ncomp == 1 && t->kids[0]->lo == t->lo && end == t->hi)
        return CYRT_OK; /* a merged region that still spans exactly its children */

    /* build the new tops aside; on a shortage of memory keep t as it is */
    cyrt_region **nt = calloc(ncomp, sizeof *nt);
    int ok = nt && tops_reserve(rt, ncomp) == 0;
    size_t c = 0;
    for (size_t k = 0; ok && k < t->nkids; c++) {
        size_t e = k + 1;
        uintptr_t hi = t->kids[k]->hi;
        while (e < t->nkids && t->kids[e]->lo < hi) {
            if (t->kids[e]->hi > hi)
                hi = t->kids[e]->hi;
            e++;
        }
        cyrt_region *first = t->kids[k];
        int container = first->hi == hi; /* sorted: the container comes first */
        cyrt_region *n = container ? first : region_new(first->lo, hi);
        if (!n || kids_reserve(n, e - k) != 0) {
            if (n && !container) {
                free(n->kids);
                free(n);
            } else if (n) {
                free(n->kids);
                n->kids = NULL;
                n->capkids = 0;
            }
            ok = 0;
            break;
        }
        nt[c] = n;
        k = e;
    }
    if (!ok) {
        for (size_t q = 0; nt && q < c; q++) {
            free(nt[q]->kids);
            nt[q]->kids = NULL;
            nt[q]->capkids = 0;
            if (nt[q]->refs == 0)
                free(nt[q]);
        }
        free(nt);
        return CYRT_OK;
    }

    /* data: device to device when t's device copy is valid; the bytes no
     * new region covers were the released views': they go back to the host */
    int on_dev = t->dev_valid && rt->be.copy;
    cyrt_status st = CYRT_OK;
    for (size_t q = 0; on_dev && q < ncomp; q++) {
        nt[q]->org = nt[q]->lo & ~(CYRT_ALIGN - 1);
        if (buf_alloc(rt, nt[q], NULL) != CYRT_OK ||
            d2d(rt, t, nt[q], nt[q]->lo, nt[q]->hi, acc, NULL) != CYRT_OK)
            on_dev = 0;
    }
    if (on_dev && !t->host_valid) {
        uintptr_t cur = t->lo;
        for (size_t q = 0; q <= ncomp && st == CYRT_OK; q++) {
            uintptr_t to = q < ncomp ? nt[q]->lo : t->hi;
            st = download(rt, t, cur, to, acc, err);
            cur = q < ncomp ? nt[q]->hi : t->hi;
        }
        if (st != CYRT_OK)
            on_dev = 0; /* and the whole of t comes back below (or fails again) */
    }
    if (!on_dev) {
        for (size_t q = 0; q < ncomp; q++)
            buf_drop(rt, nt[q]);
        if ((st = to_host(rt, t, acc, err)) != CYRT_OK) {
            for (size_t q = 0; q < ncomp; q++) {
                free(nt[q]->kids);
                nt[q]->kids = NULL;
                nt[q]->capkids = 0;
                if (nt[q]->refs == 0)
                    free(nt[q]);
            }
            free(nt);
            return st; /* t stays whole: its data is on neither side otherwise */
        }
    }
    for (size_t q = 0; q < ncomp; q++) {
        nt[q]->host_valid = on_dev ? t->host_valid : 1;
        nt[q]->dev_valid = (unsigned char)on_dev;
    }

    /* structure: each child goes under the new top of its group */
    c = 0;
    for (size_t k = 0; k < t->nkids; c++) {
        cyrt_region *n = nt[c];
        n->top = NULL;
        size_t e = k;
        while (e < t->nkids && t->kids[e]->lo < n->hi) {
            cyrt_region *kid = t->kids[e++];
            if (kid != n) {
                kid->top = n;
                n->kids[n->nkids++] = kid;
            }
        }
        k = e;
    }
    size_t at = top_index(rt, t);
    tops_splice(rt, at, at + 1, nt, ncomp);
    buf_drop(rt, t);
    free(t->kids);
    free(t);
    free(nt);
    return st;
}

/* ---- public entry points ------------------------------------------------------------ */

static void handle_link(cyrt_rt *rt, cyrt_handle *h) {
    __atomic_add_fetch(&rt->res_seq, 1, __ATOMIC_RELEASE);
    h->prev = NULL;
    h->next = rt->handles;
    if (rt->handles)
        rt->handles->prev = h;
    rt->handles = h;
}

static void handle_unlink(cyrt_rt *rt, cyrt_handle *h) {
    __atomic_add_fetch(&rt->res_seq, 1, __ATOMIC_RELEASE);
    if (h->prev)
        h->prev->next = h->next;
    else
        rt->handles = h->next;
    if (h->next)
        h->next->prev = h->prev;
}

/* The byte extent [lo, hi) a view's elements touch; *empty for a view with
 * no elements.  -1 (err filled) for a view the address space cannot hold. */
int cyrt_extent(const void *data, int ndim, const ptrdiff_t *shape, const ptrdiff_t *strides,
                size_t itemsize, uintptr_t *lo, uintptr_t *hi, int *empty, cyrt_err *err) {
    *lo = *hi = 0;
    *empty = 0;
    if (ndim < 0 || itemsize == 0 || (ndim > 0 && (!shape || !strides))) {
        cyrt_seterr(err, 0, "cyrt_register: a view needs an item size, shape and strides");
        return -1;
    }
    ptrdiff_t neg = 0, pos = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0) {
            cyrt_seterr(err, 0, "cyrt_register: negative extent %td on axis %d", shape[d], d);
            return -1;
        }
        *empty |= shape[d] == 0;
    }
    for (int d = 0; d < ndim && !*empty; d++) {
        ptrdiff_t span;
        if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) ||
            __builtin_add_overflow(span < 0 ? neg : pos, span, span < 0 ? &neg : &pos)) {
            cyrt_seterr(err, 0, "cyrt_register: the view spans more than the address space");
            return -1;
        }
    }
    if (*empty)
        return 0;
    uintptr_t base = (uintptr_t)data, down = (uintptr_t)0 - (uintptr_t)neg, h;
    if (!data) {
        cyrt_seterr(err, 0, "cyrt_register: a view with elements needs data");
        return -1;
    }
    if (down > base || __builtin_add_overflow(base, (uintptr_t)pos, &h) ||
        __builtin_add_overflow(h, itemsize, &h)) {
        cyrt_seterr(err, 0, "cyrt_register: the view spans more than the address space");
        return -1;
    }
    *lo = base - down;
    *hi = h;
    return 0;
}

cyrt_status cyrt_register(cyrt_rt *rt, const void *data, int ndim, const ptrdiff_t *shape,
                          const ptrdiff_t *strides, size_t itemsize, cyrt_handle **out,
                          cyrt_xfer *acc, cyrt_err *err) {
    *out = NULL;
    uintptr_t lo, hi, base = (uintptr_t)data;
    int empty;
    if (cyrt_extent(data, ndim, shape, strides, itemsize, &lo, &hi, &empty, err) < 0)
        return CYRT_EINVAL;
    cyrt_handle *h = calloc(1, sizeof *h);
    if (!h) {
        cyrt_seterr(err, 0, "out of memory");
        return CYRT_ENOMEM;
    }
    h->data = base;
    h->itemsize = itemsize;
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = CYRT_OK;
    if (!empty) {
        st = place(rt, lo, hi, &h->r, acc, err);
        if (st == CYRT_ENOMEM)
            cyrt_seterr(err, 0, "out of memory");
    }
    if (st == CYRT_OK) {
        if (h->r)
            h->r->refs++;
        handle_link(rt, h);
        *out = h;
    } else {
        free(h);
    }
    cyrt_restate_locked(rt);
    pthread_mutex_unlock(&rt->lock);
    return st;
}

/* Drops one view reference of r (lock held). */
static cyrt_status unref(cyrt_rt *rt, cyrt_region *r, cyrt_xfer *acc, cyrt_err *err) {
    if (--r->refs > 0)
        return CYRT_OK;
    cyrt_region *t = r;
    if (r->top) {
        t = r->top;
        kid_remove(t, r);
        free(r);
    }
    return settle(rt, t, acc, err);
}

cyrt_status cyrt_release_locked(cyrt_rt *rt, cyrt_handle *h, cyrt_xfer *acc, cyrt_err *err) {
    if (!h)
        return CYRT_OK;
    handle_unlink(rt, h);
    cyrt_status st = h->r ? unref(rt, h->r, acc, err) : CYRT_OK;
    cyrt_restate_locked(rt);
    free(h);
    return st;
}

cyrt_status cyrt_release(cyrt_rt *rt, cyrt_handle *h, cyrt_xfer *acc, cyrt_err *err) {
    if (!h)
        return CYRT_OK;
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_release_locked(rt, h, acc, err);
    pthread_mutex_unlock(&rt->lock);
    return st;
}

/* Binds the registry to device index (lock held). */
cyrt_status cyrt_bind_locked(cyrt_rt *rt, int index, cyrt_err *err) {
    if (rt->have_be && rt->be_device == index)
        return CYRT_OK;
    if (rt->have_be && rt->be_device < 0) {
        cyrt_seterr(err, 0, "this runtime was made with its own memory backend");
        return CYRT_EINVAL;
    }
    cyrt_status st = cyrt_open_locked(rt, index, err);
    if (st != CYRT_OK)
        return st;
    if (rt->have_be) {
        for (size_t k = 0; k < rt->ntops; k++)
            if (rt->tops[k]->pins > 0) {
                cyrt_seterr(err, 0, "regions are in use on device %d", rt->be_device);
                return CYRT_EBUSY;
            }
        for (size_t k = 0; k < rt->ntops; k++)
            if ((st = to_host(rt, rt->tops[k], NULL, err)) != CYRT_OK)
                return st;
        for (size_t k = 0; k < rt->ntops; k++)
            buf_drop(rt, rt->tops[k]);
    }
    cyrt_cl_backend(&rt->devs[index], &rt->be);
    rt->have_be = 1;
    rt->be_device = index;
    cyrt_restate_locked(rt);
    return CYRT_OK;
}

cyrt_status cyrt_use_device(cyrt_rt *rt, int index, cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_bind_locked(rt, index, err);
    pthread_mutex_unlock(&rt->lock);
    return st;
}

int cyrt_registry_device(cyrt_rt *rt) {
    pthread_mutex_lock(&rt->lock);
    int d = rt->have_be ? rt->be_device : -1;
    pthread_mutex_unlock(&rt->lock);
    return d;
}

static void unpin(cyrt_rt *rt, cyrt_region *t) {
    if (t->pins > 0 && --t->pins == 0)
        pthread_cond_broadcast(&rt->unpinned);
}

cyrt_status cyrt_device_acquire(cyrt_rt *rt, size_t n, cyrt_handle *const *hs,
                                const unsigned *modes, cyrt_devref *out, cyrt_xfer *acc,
                                cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = CYRT_OK;
    if (!rt->have_be) {
        int index;
        st = cyrt_select_locked(rt, CYRT_DEV_ALL, &index, err);
        if (st == CYRT_OK)
            st = cyrt_bind_locked(rt, index, err);
        if (st != CYRT_OK) {
            pthread_mutex_unlock(&rt->lock);
            return st;
        }
    }
retry:
    for (size_t i = 0; i < n; i++)
        if (hs[i]->r && pinned_by_other(top_of(hs[i]->r))) {
            pthread_cond_wait(&rt->unpinned, &rt->lock);
            goto retry;
        }
    for (size_t i = 0; i < n; i++)
        if (hs[i]->r) {
            cyrt_region *t = top_of(hs[i]->r);
            if (t->pins++ == 0)
                t->host_before = t->host_valid;
            t->pin_owner = pthread_self();
        }
    for (size_t i = 0; i < n && st == CYRT_OK; i++) {
        cyrt_region *t = hs[i]->r ? top_of(hs[i]->r) : NULL;
        if (!t || t->dev_valid)
            continue;
        /* allocating is part of the upload (for the dispatcher's times) */
        uint64_t ta = t->buf ? 0 : mono_ns();
        if ((st = buf_alloc(rt, t, err)) != CYRT_OK)
            break;
        if (ta)
            account_ns(rt, acc, TO_DEVICE, (size_t)(t->hi - t->lo), mono_ns() - ta);
        /* a view the kernel writes whole that is the whole of its region,
         * shared with no other view of the launch: its old contents are
         * never read (a failed launch drops the device copy: abandon) */
        int whole = (modes[i] & CYRT_WRITE_ALL) && !(modes[i] & CYRT_READ) && hs[i]->r->lo == t->lo &&
                    hs[i]->r->hi == t->hi;
        for (size_t k = 0; k < n && whole; k++)
            whole = k == i || !hs[k]->r || top_of(hs[k]->r) != t;
        if (whole) {
            t->dev_valid = 1;
            continue;
        }
        /* the whole extent goes over, since a kernel that writes some
         * elements leaves the others as they were.  The copy runs without the lock, so that other threads' launches
         * and host uses of other regions go on meanwhile: t is pinned by
         * this thread, and every path that would change, merge, move or
         * free a pinned top (or rebind the device) waits or refuses */
        cyrt_membackend be = rt->be;
        void *buf = t->buf;
        uintptr_t lo = t->lo, org = t->org;
        size_t bytes = (size_t)(t->hi - t->lo);
        int rc = 0;
        uint64_t t0 = 0, t1 = 0;
        if (bytes) {
            rc = cyrt_drain_locked(rt);
            pthread_mutex_unlock(&rt->lock);
            t0 = mono_ns();
            if (rc == 0)
                rc = be.write(be.ctx, buf, lo - org, (const void *)lo, bytes);
            t1 = mono_ns();
            pthread_mutex_lock(&rt->lock);
        }
        if (rc != 0) {
            st = be_fail(rt, err, rc, "copying to the device", bytes);
        } else {
            account(rt, acc, TO_DEVICE, bytes, t1 - t0);
            t->dev_valid = 1;
        }
    }
    if (st != CYRT_OK) {
        for (size_t i = 0; i < n; i++)
            if (hs[i]->r)
                unpin(rt, top_of(hs[i]->r));
        pthread_mutex_unlock(&rt->lock);
        return st;
    }
    for (size_t i = 0; i < n; i++) {
        const cyrt_handle *h = hs[i];
        if (!h->r) {
            out[i] = (cyrt_devref){NULL, 0, 0};
            continue;
        }
        cyrt_region *t = top_of(h->r);
        if (modes[i] & CYRT_WRITE)
            t->host_valid = 0;
        size_t off = h->data - t->org;
        out[i] = (cyrt_devref){t->buf, off, off % h->itemsize == 0 ? off / h->itemsize : SIZE_MAX};
    }
    cyrt_restate_locked(rt);
    pthread_mutex_unlock(&rt->lock);
    return CYRT_OK;
}

/* Unlocks the regions of one acquisition (lock held). */
static void done_locked(cyrt_rt *rt, size_t n, cyrt_handle *const *hs) {
    for (size_t i = 0; i < n; i++)
        if (hs[i]->r)
            unpin(rt, top_of(hs[i]->r));
    /* a top whose own views went while it was locked shrinks now; the
     * views here keep their records, and so the loop's pointers, alive */
    for (size_t i = 0; i < n; i++)
        if (hs[i]->r)
            settle(rt, top_of(hs[i]->r), NULL, NULL);
    cyrt_restate_locked(rt);
}

void cyrt_device_done(cyrt_rt *rt, size_t n, cyrt_handle *const *hs) {
    pthread_mutex_lock(&rt->lock);
    done_locked(rt, n, hs);
    pthread_mutex_unlock(&rt->lock);
}

void cyrt_device_abandon(cyrt_rt *rt, size_t n, cyrt_handle *const *hs) {
    pthread_mutex_lock(&rt->lock);
    for (size_t i = 0; i < n; i++) {
        cyrt_region *t = hs[i]->r ? top_of(hs[i]->r) : NULL;
        /* the host copy from before the launch is still in host memory:
         * whatever the kernel may have done to the device copy is dropped */
        if (t && t->host_before) {
            t->host_valid = 1;
            t->dev_valid = 0;
        }
    }
    done_locked(rt, n, hs);
    pthread_mutex_unlock(&rt->lock);
}

cyrt_status cyrt_host_acquire(cyrt_rt *rt, cyrt_handle *h, unsigned mode, cyrt_xfer *acc,
                              cyrt_err *err) {
    if (!h->r)
        return CYRT_OK;
    pthread_mutex_lock(&rt->lock);
    cyrt_region *t;
    while (pinned_by_other(t = top_of(h->r)))
        pthread_cond_wait(&rt->unpinned, &rt->lock);
    if (t->buf)
        __atomic_add_fetch(&rt->touch_seq, 1, __ATOMIC_RELAXED); /* as cyrt_host_range_locked */
    cyrt_status st = to_host(rt, t, acc, err);
    if (st == CYRT_OK && (mode & CYRT_WRITE))
        t->dev_valid = 0;
    cyrt_restate_locked(rt);
    pthread_mutex_unlock(&rt->lock);
    return st;
}

cyrt_status cyrt_sync_all(cyrt_rt *rt, cyrt_xfer *acc, cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    cyrt_status first = CYRT_OK;
retry:
    for (size_t k = 0; k < rt->ntops; k++) {
        cyrt_region *t = rt->tops[k];
        if (t->host_valid)
            continue;
        if (pinned_by_other(t)) {
            pthread_cond_wait(&rt->unpinned, &rt->lock);
            goto retry;
        }
        cyrt_status st = to_host(rt, t, acc, first == CYRT_OK ? err : NULL);
        if (first == CYRT_OK)
            first = st;
        if (st != CYRT_OK)
            break; /* a failing device would be waited on again and again */
    }
    cyrt_restate_locked(rt);
    pthread_mutex_unlock(&rt->lock);
    return first;
}

void cyrt_restate_locked(cyrt_rt *rt) {
    int st = 0;
    uint64_t fp = 1469598103934665603ull ^ rt->ntops; /* FNV-1a over the tops */
    for (size_t k = 0; k < rt->ntops; k++) {
        const cyrt_region *t = rt->tops[k];
        if (!t->host_valid)
            st |= CYRT_STATE_DIRTY;
        if (t->dev_valid)
            st |= CYRT_STATE_VALID;
        uint64_t w[3] = {(uint64_t)t->lo, (uint64_t)t->hi, (uint64_t)(t->host_valid | t->dev_valid << 1)};
        for (int i = 0; i < 3; i++)
            fp = (fp ^ w[i]) * 1099511628211ull;
    }
    if (fp != rt->res_fp) {
        rt->res_fp = fp;
        __atomic_add_fetch(&rt->res_seq, 1, __ATOMIC_RELEASE);
    }
    /* the start-up bit is the dispatcher's (set and cleared without this lock) */
    int old = __atomic_load_n(&rt->state, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&rt->state, &old, st | (old & CYRT_STATE_STARTING), 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
}

const int *cyrt_state_word(cyrt_rt *rt) { return &rt->state; }

int cyrt_set_force(cyrt_rt *rt, int force) { return __atomic_exchange_n(&rt->force, force, __ATOMIC_RELAXED); }

const int *cyrt_force_word(cyrt_rt *rt) { return &rt->force; }

/* Marks (t->mark = 1) the tops that hold a view flagged resident. */
static void mark_resident(cyrt_rt *rt) {
    for (size_t k = 0; k < rt->ntops; k++)
        rt->tops[k]->mark = 0;
    for (const cyrt_handle *h = rt->handles; h; h = h->next)
        if ((h->flags & CYRT_HF_RESIDENT) && h->r)
            top_of(h->r)->mark = 1;
}

cyrt_status cyrt_host_range_locked(cyrt_rt *rt, uintptr_t lo, uintptr_t hi, int invalidate,
                                   int skip_resident, cyrt_xfer *acc, cyrt_err *err) {
    int all = lo == 0 && hi == 0;
retry:
    if (skip_resident)
        mark_resident(rt);
    for (size_t k = all ? 0 : first_after(rt, lo); k < rt->ntops; k++) {
        cyrt_region *t = rt->tops[k];
        if (!all && t->lo >= hi)
            break;
        if (skip_resident && t->mark)
            continue;
        if (t->buf)
            __atomic_add_fetch(&rt->touch_seq, 1, __ATOMIC_RELAXED);
        /* a host write waits for another thread's launch on t even
         * while t has no device copy yet: that launch's upload may be
         * reading the host copy (cyrt_device_acquire copies unlocked) */
        if (t->host_valid && !(invalidate && (t->dev_valid || pinned_by_other(t))))
            continue;
        if (pinned_by_other(t)) {
            pthread_cond_wait(&rt->unpinned, &rt->lock);
            goto retry;
        }
        if (t->pins > 0)
            continue; /* this thread's own launch is using it */
        cyrt_status st = CYRT_OK;
        if (!t->host_valid && !t->lost && rt->have_be && t->hi > t->lo) {
            /* the copy back runs without the lock (as uploads do): t is
             * pinned meanwhile, so no other thread touches it; the tops
             * may change around it, so the walk starts again */
            cyrt_membackend be = rt->be;
            void *buf = t->buf;
            uintptr_t tlo = t->lo;
            size_t bytes = (size_t)(t->hi - t->lo), off = (size_t)(t->lo - t->org);
            t->pins = 1;
            t->host_before = t->host_valid;
            t->pin_owner = pthread_self();
            int rc = cyrt_drain_locked(rt);
            pthread_mutex_unlock(&rt->lock);
            uint64_t t0 = mono_ns();
            if (rc == 0)
                rc = be.read(be.ctx, buf, off, (void *)tlo, bytes);
            uint64_t t1 = mono_ns();
            pthread_mutex_lock(&rt->lock);
            unpin(rt, t);
            if (rc != 0) {
                st = be_fail(rt, err, rc, "copying back from the device", bytes);
            } else {
                account(rt, acc, TO_HOST, bytes, t1 - t0);
                t->host_valid = 1;
                if (invalidate)
                    t->dev_valid = 0;
                goto retry;
            }
        } else {
            st = to_host(rt, t, acc, err);
        }
        if (st != CYRT_OK) {
            cyrt_restate_locked(rt);
            return st;
        }
        if (invalidate)
            t->dev_valid = 0;
    }
    cyrt_restate_locked(rt);
    return CYRT_OK;
}

cyrt_status cyrt_host_use(cyrt_rt *rt, int write, cyrt_xfer *acc, cyrt_err *err) {
    cyrt_err e = {0};
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_host_range_locked(rt, 0, 0, write, 0, acc, &e);
    /* the host code goes on with what host memory holds: the call it is
     * part of must not return as if that were the data */
    if (st != CYRT_OK)
        cyrt_scope_note_failure_locked(rt, st, &e);
    pthread_mutex_unlock(&rt->lock);
    if (err)
        *err = e;
    return st;
}

/* cyrt_host_use for a statement that touches only the views v (generated
 * code knows which): their regions come back, other regions stay where
 * they are (inside cyocl.resident, on the device). */
cyrt_status cyrt_host_views(cyrt_rt *rt, int write, size_t n, const cyocl_hview *v, cyrt_xfer *acc,
                            cyrt_err *err) {
    cyrt_err e = {0};
    cyrt_status st = CYRT_OK;
    pthread_mutex_lock(&rt->lock);
    for (size_t i = 0; i < n && st == CYRT_OK; i++) {
        uintptr_t lo, hi;
        int empty;
        if (!v[i].data || v[i].itemsize <= 0 || v[i].ndim < 0 || v[i].ndim > CYOCL_API_MAX_NDIM)
            continue; /* an unset view: nothing there to touch */
        if (cyrt_extent(v[i].data, v[i].ndim, v[i].shape, v[i].strides, (size_t)v[i].itemsize, &lo, &hi, &empty,
                        &e) < 0) {
            st = CYRT_EINVAL;
            break;
        }
        if (!empty)
            st = cyrt_host_range_locked(rt, lo, hi, write, 0, acc, &e);
    }
    /* as in cyrt_host_use: the call this is part of must not return as if
     * host memory held the data */
    if (st != CYRT_OK)
        cyrt_scope_note_failure_locked(rt, st, &e);
    pthread_mutex_unlock(&rt->lock);
    if (err)
        *err = e;
    return st;
}

cyrt_status cyrt_host_extent(cyrt_rt *rt, const void *data, int ndim, const ptrdiff_t *shape,
                             const ptrdiff_t *strides, size_t itemsize, cyrt_xfer *acc,
                             cyrt_err *err) {
    uintptr_t lo, hi;
    int empty;
    if (cyrt_extent(data, ndim, shape, strides, itemsize, &lo, &hi, &empty, err) < 0)
        return CYRT_EINVAL;
    if (empty)
        return CYRT_OK;
    cyrt_err e = {0};
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_host_range_locked(rt, lo, hi, 1, 1, acc, &e);
    /* The memory may live on (a view of the caller's array goes when the
     * def returns): where its data could not come back, the call must not
     * return as if the host held it, once its records are gone below */
    if (st != CYRT_OK)
        cyrt_scope_note_failure_locked(rt, st, &e);
    /* even when that failed: the memory goes, and its records with it */
    cyrt_scope_forget_locked(rt, lo, hi);
    cyrt_restate_locked(rt);
    pthread_mutex_unlock(&rt->lock);
    if (err)
        *err = e;
    return st;
}

void cyrt_handle_set_flags(cyrt_rt *rt, cyrt_handle *h, unsigned flags) {
    pthread_mutex_lock(&rt->lock);
    h->flags = flags;
    __atomic_add_fetch(&rt->res_seq, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt->lock);
}

int cyrt_host_pinned(cyrt_rt *rt, const cyrt_handle *h) {
    if (!h->r)
        return 0;
    int pinned = 0;
    pthread_mutex_lock(&rt->lock);
    const cyrt_region *t = top_of(h->r);
    for (const cyrt_handle *o = rt->handles; o && !pinned; o = o->next)
        pinned = (o->flags & CYRT_HF_HOSTPIN) && o->r && top_of(o->r) == t;
    pthread_mutex_unlock(&rt->lock);
    return pinned;
}

/* Everything back to the host, then freed (lock held; no thread may be
 * using the runtime any more). */
cyrt_status cyrt_registry_free(cyrt_rt *rt, cyrt_err *err) {
    cyrt_status first = CYRT_OK;
    for (size_t k = 0; k < rt->ntops; k++) {
        cyrt_region *t = rt->tops[k];
        cyrt_status st = t->buf ? to_host(rt, t, NULL, first == CYRT_OK ? err : NULL) : CYRT_OK;
        if (first == CYRT_OK)
            first = st;
        buf_drop(rt, t);
        for (size_t c = 0; c < t->nkids; c++)
            free(t->kids[c]);
        free(t->kids);
        free(t);
    }
    free(rt->tops);
    rt->tops = NULL;
    rt->ntops = rt->captops = 0;
    while (rt->handles) {
        cyrt_handle *h = rt->handles;
        rt->handles = h->next;
        free(h);
    }
    __atomic_add_fetch(&rt->res_seq, 1, __ATOMIC_RELEASE);
    return first;
}

int cyrt_registry_fork_busy(cyrt_rt *rt) {
    for (size_t k = 0; k < rt->ntops; k++)
        if (!rt->tops[k]->host_valid && pinned_by_other(rt->tops[k]))
            return 1;
    return 0;
}

void cyrt_registry_fork_prepare(cyrt_rt *rt) {
    if (!rt->have_be)
        return; /* nothing on a device (a forked child keeps its fork_err) */
    memset(&rt->fork_err, 0, sizeof rt->fork_err);
    for (size_t k = 0; k < rt->ntops; k++) {
        cyrt_region *t = rt->tops[k];
        if (t->host_valid || t->pins > 0)
            continue; /* a top this thread itself holds is its launch's to settle */
        /* the parent keeps its device copy as well: nothing changes for it
         * but that the host copy is valid too */
        cyrt_err e = {0};
        if (to_host(rt, t, NULL, &e) != CYRT_OK && !rt->fork_err.msg[0])
            rt->fork_err = e;
    }
    cyrt_restate_locked(rt);
}

void cyrt_registry_fork_child(cyrt_rt *rt) {
    for (size_t k = 0; k < rt->ntops; k++) {
        cyrt_region *t = rt->tops[k];
        t->buf = NULL; /* the parent's buffer: leaked here, never released */
        t->bufsize = 0;
        t->dev_valid = 0;
        t->pins = 0; /* the threads that held them are not in this process */
        t->lost = !t->host_valid;
    }
    rt->have_be = 0;
    rt->be_device = -1;
    memset(&rt->be, 0, sizeof rt->be);
}

cyrt_status cyrt_handle_info_get(cyrt_rt *rt, const cyrt_handle *h, cyrt_handle_info *out) {
    memset(out, 0, sizeof *out);
    if (!h->r)
        return CYRT_OK;
    pthread_mutex_lock(&rt->lock);
    const cyrt_region *r = h->r, *t = top_of(h->r);
    out->region = r;
    out->top = t;
    out->lo = r->lo;
    out->hi = r->hi;
    out->top_lo = t->lo;
    out->top_hi = t->hi;
    out->refs = r->refs;
    out->residency = (t->host_valid ? CYRT_RES_HOST : 0) | (t->dev_valid ? CYRT_RES_DEVICE : 0);
    out->offset = r->lo - t->org;
    pthread_mutex_unlock(&rt->lock);
    return CYRT_OK;
}

void cyrt_registry_info_get(cyrt_rt *rt, cyrt_registry_info *out) {
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&rt->lock);
    out->tops = rt->ntops;
    for (size_t k = 0; k < rt->ntops; k++) {
        const cyrt_region *t = rt->tops[k];
        out->records += 1 + t->nkids;
        if (t->buf) {
            out->device_buffers++;
            out->device_bytes += t->bufsize;
        }
    }
    for (const cyrt_handle *h = rt->handles; h; h = h->next)
        out->handles++;
    cyrt_pools_info_locked(rt, out);
    pthread_mutex_unlock(&rt->lock);
}
